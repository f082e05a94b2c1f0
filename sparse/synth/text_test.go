package synth

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/libsvm"
)

// small is a quick configuration spanning several 1024-row chunks.
var small = Text{Rows: 3500, Dim: 1 << 16, Seed: 7}

func mustGenerate(t *testing.T, cfg Text) *sparse.Dataset {
	t.Helper()
	d, err := cfg.Generate()
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	return d
}

func sameData(t *testing.T, what string, a, b *sparse.Dataset) {
	t.Helper()
	switch {
	case a.X.Rows != b.X.Rows || a.X.Cols != b.X.Cols:
		t.Fatalf("%s: shapes %d×%d and %d×%d", what, a.X.Rows, a.X.Cols, b.X.Rows, b.X.Cols)
	case !slices.Equal(a.X.Indptr, b.X.Indptr):
		t.Fatalf("%s: row pointers differ", what)
	case !slices.Equal(a.X.Ind, b.X.Ind):
		t.Fatalf("%s: indices differ", what)
	case !slices.Equal(a.X.Val, b.X.Val):
		t.Fatalf("%s: values differ", what)
	case !slices.Equal(a.Y, b.Y):
		t.Fatalf("%s: labels differ", what)
	}
}

func TestTextDeterministicAcrossWorkers(t *testing.T) {
	for _, base := range []Text{small, {Rows: 3000, Dim: 5000, Classes: 5, Noise: 0.1, Seed: 3, RankOrder: true}} {
		var ref *sparse.Dataset
		for _, w := range []int{1, 2, 7} {
			cfg := base
			cfg.Workers = w
			d := mustGenerate(t, cfg)
			if ref == nil {
				ref = d
				continue
			}
			sameData(t, "Workers 1 vs more", ref, d)
		}
		cfg := base
		cfg.Seed++
		if d := mustGenerate(t, cfg); slices.Equal(d.X.Ind, ref.X.Ind) {
			t.Fatal("another seed gave the same indices")
		}
	}
}

func TestTextRowsArePrefixes(t *testing.T) {
	cfg := small
	a := mustGenerate(t, cfg)
	cfg.Rows = 2100
	b := mustGenerate(t, cfg)
	sameData(t, "first rows", b, &sparse.Dataset{X: a.X.Slice(0, 2100), Y: a.Y[:2100]})
}

func TestTextInvariants(t *testing.T) {
	for _, cfg := range []Text{
		small,
		{Rows: 300, Seed: 1}, // all defaults: Dim 2^20, mean 75
		{Rows: 1000, Dim: 1 << 20, Zipf: 0.7, LengthSigma: 1, Seed: 2},
		{Rows: 200, Dim: 3 << 17, Zipf: 1.5, MeanNNZ: 100, Seed: 5},         // scattered, Dim not a power of two, tail bins
		{Rows: 200, Dim: 20, MeanNNZ: 16, Zipf: 4, Seed: 4},                 // steep law, rows near Dim: completion path
		{Rows: 100, Dim: 1, MeanNNZ: 1, Seed: 6},                            // a single feature
		{Rows: 300, Dim: MaxDim, Classes: 4, Seed: 8},                       // largest Dim: hashed weights, many bins
		{Rows: 100, Dim: 7, MeanNNZ: 7, FixedLength: true, RankOrder: true}, // every row full
		{Rows: 0},
	} {
		d := mustGenerate(t, cfg)
		cfgN, _ := cfg.normalize()
		if d.X.Rows != cfg.Rows || d.X.Cols != cfgN.Dim || len(d.Y) != cfg.Rows || d.QID != nil {
			t.Fatalf("%+v: shape %d×%d, %d labels", cfg, d.X.Rows, d.X.Cols, len(d.Y))
		}
		maxLen := int(min(float64(cfgN.Dim), math.Ceil(64*cfgN.MeanNNZ)))
		for i := range d.X.Rows {
			row := d.X.Row(i)
			if n := row.NNZ(); n < 1 || n > maxLen {
				t.Fatalf("%+v: row %d has %d nonzeros", cfg, i, n)
			}
			for _, v := range row.Val {
				if v < 1 || v != float32(int(v)) {
					t.Fatalf("%+v: row %d: value %v is not a count", cfg, i, v)
				}
			}
			if y := d.Y[i]; cfgN.Classes == 2 && y != -1 && y != 1 ||
				cfgN.Classes > 2 && (y != math.Trunc(y) || y < 0 || y >= float64(cfgN.Classes)) {
				t.Fatalf("%+v: row %d: label %v", cfg, i, y)
			}
		}
	}
}

func TestTextRowLengths(t *testing.T) {
	for _, cfg := range []Text{
		small,
		{Rows: 4000, Dim: 1 << 18, MeanNNZ: 20, LengthSigma: 1, Seed: 9},
		{Rows: 1000, Dim: 1 << 18, MeanNNZ: 150, Seed: 10},
	} {
		d := mustGenerate(t, cfg)
		cfgN, _ := cfg.normalize()
		mean := float64(d.X.NNZ()) / float64(d.X.Rows)
		if math.Abs(mean/cfgN.MeanNNZ-1) > 0.03 {
			t.Errorf("%+v: mean row length %.2f, want %.0f ± 3%%", cfg, mean, cfgN.MeanNNZ)
		}
	}
	d := mustGenerate(t, Text{Rows: 500, Dim: 1000, MeanNNZ: 12.6, FixedLength: true})
	for i := range d.X.Rows {
		if n := d.X.Row(i).NNZ(); n != 13 {
			t.Fatalf("FixedLength: row %d has %d nonzeros, want 13", i, n)
		}
	}
}

// zipfExponent estimates s from the term totals of ranks a and b.
func zipfExponent(tot []float64, a, b int) float64 {
	return math.Log(tot[a]/tot[b]) / math.Log(float64(b+1)/float64(a+1))
}

func TestTextZipfLaw(t *testing.T) {
	// By Wald's identity every draw of a row is Zipf-distributed whatever
	// the stopping rule, so the term totals of each rank follow (r+1)^-s.
	for _, c := range []struct {
		s         float64
		rankOrder bool
	}{{0.8, true}, {1.1, false}, {1.6, true}, {1.6, false}} {
		s, rankOrder := c.s, c.rankOrder
		cfg := Text{Rows: 3000, Dim: 1 << 18, Zipf: s, RankOrder: rankOrder, Seed: 11}
		d := mustGenerate(t, cfg)
		byIndex := make([]float64, cfg.Dim)
		for k, j := range d.X.Ind {
			byIndex[j] += float64(d.X.Val[k])
		}
		tot := byIndex
		if !rankOrder {
			p, _ := cfg.plan()
			tot = make([]float64, cfg.Dim)
			for r := range tot {
				tot[r] = byIndex[p.perm.at(r)]
			}
		}
		if e := zipfExponent(tot, 0, 99); math.Abs(e-s) > 0.05 {
			t.Errorf("s = %g, rank order %v: exponent from ranks 1 and 100 is %.3f", s, rankOrder, e)
		}
		// Bands of ranks 11-20 and 1001-2000 against the law with
		// exponent s and, to show the check has teeth, s ± 0.1.
		band := func(tot []float64, lo, hi int, e float64) float64 {
			var sum float64
			for r := lo; r < hi; r++ {
				if tot != nil {
					sum += tot[r]
				} else {
					sum += math.Pow(float64(r+1), -e)
				}
			}
			return sum
		}
		got := math.Log(band(tot, 10, 20, 0) / band(tot, 1000, 2000, 0))
		for _, ds := range []float64{-0.1, 0, 0.1} {
			want := math.Log(band(nil, 10, 20, s+ds) / band(nil, 1000, 2000, s+ds))
			if ok := math.Abs(got-want) < 0.05; ok != (ds == 0) {
				t.Errorf("s = %g, rank order %v: log band ratio %.3f, law with s%+g gives %.3f", s, rankOrder, got, ds, want)
			}
		}
	}
}

func TestZipfSampler(t *testing.T) {
	// Draw directly, with ranks on both sides of the table/tail boundary.
	for _, c := range []struct {
		n int
		s float64
	}{{1000, 1.1}, {1 << 20, 1.1}, {1 << 20, 1}, {3<<20 + 5, 0.5}, {1 << 31, 1.2}} {
		z := newZipf(c.n, c.s)
		r := seedRNG(1, 99, uint64(c.n))
		const draws = 1 << 18
		// Ranges of ranks [lo, hi) whose shares we compare.
		edges := []int{0, 1, 10, 100, 1000, 1 << 15, 1 << 16, 1 << 17, 1 << 19, 1 << 20, 1 << 25, c.n}
		edges = slices.DeleteFunc(edges, func(e int) bool { return e > c.n })
		edges = slices.Compact(edges)
		got := make([]float64, len(edges)-1)
		for range draws {
			k := z.draw(&r)
			if k < 0 || k >= c.n {
				t.Fatalf("n = %d: rank %d out of range", c.n, k)
			}
			i, _ := slices.BinarySearch(edges, k+1)
			got[i-1]++
		}
		// Exact shares: sums of (r+1)^-s, by the midpoint integral beyond
		// 2^17 (relative error below 10^-10).
		share := func(lo, hi int) float64 {
			var sum float64
			for k := lo + 1; k <= min(hi, 1<<17); k++ {
				sum += math.Pow(float64(k), -c.s)
			}
			if hi > 1<<17 {
				a, b := float64(max(lo, 1<<17))+0.5, float64(hi)+0.5
				if c.s == 1 {
					sum += math.Log(b / a)
				} else {
					sum += (math.Pow(b, 1-c.s) - math.Pow(a, 1-c.s)) / (1 - c.s)
				}
			}
			return sum
		}
		total := share(0, c.n)
		for i := range got {
			p := share(edges[i], edges[i+1]) / total
			sd := math.Sqrt(draws * p * (1 - p))
			if math.Abs(got[i]-draws*p) > 5*sd+1 {
				t.Errorf("n = %d, s = %g: ranks [%d, %d): %v draws, want %.1f ± %.1f", c.n, c.s, edges[i], edges[i+1], got[i], draws*p, sd)
			}
		}
	}
}

func TestPermIsBijection(t *testing.T) {
	for _, n := range []int{1, 2, 3, 5, 1000, 1024, 1<<16 + 3} {
		p := newPerm(n, uint64(n))
		seen := make([]bool, n)
		for r := range n {
			j := p.at(r)
			if j < 0 || j >= n || seen[j] {
				t.Fatalf("n = %d: rank %d maps to %d (repeated or out of range)", n, r, j)
			}
			seen[j] = true
		}
		if n == 1000 && p.at(0) == 0 && p.at(1) == 1 && p.at(2) == 2 {
			t.Fatal("perm is the identity on the top ranks")
		}
	}
}

func TestTextBalanceAndPlanted(t *testing.T) {
	for _, cfg := range []Text{small, {Rows: 2000, Dim: 1 << 20, Zipf: 0.9, Seed: 12}} {
		d := mustGenerate(t, cfg)
		pos := 0
		for _, y := range d.Y {
			if y > 0 {
				pos++
			}
		}
		if f := float64(pos) / float64(len(d.Y)); f < 0.45 || f > 0.55 {
			t.Errorf("%+v: %.3f of labels are +1", cfg, f)
		}
		pl, err := cfg.Planted()
		if err != nil {
			t.Fatal(err)
		}
		for i := range d.X.Rows {
			var s float64 // summed in row order, then the bias, as generated
			row := d.X.Row(i)
			for k, j := range row.Ind {
				s += float64(pl.W[0][j]) * float64(row.Val[k])
			}
			s += pl.Bias[0]
			if want := math.Copysign(1, s); s == 0 && d.Y[i] != -1 || s != 0 && d.Y[i] != want {
				t.Fatalf("row %d: label %v, planted score %g", i, d.Y[i], s)
			}
		}
	}
}

func TestTextClasses(t *testing.T) {
	for _, k := range []int{3, 12} {
		cfg := Text{Rows: 2500, Dim: 1 << 16, Classes: k, Seed: 13}
		d := mustGenerate(t, cfg)
		pl, err := cfg.Planted()
		if err != nil {
			t.Fatal(err)
		}
		count := make([]int, k)
		for i, y := range d.Y {
			c := int(y)
			if float64(c) != y || c < 0 || c >= k {
				t.Fatalf("K = %d: label %v", k, y)
			}
			count[c]++
			row := d.X.Row(i)
			best, bv := -1, math.Inf(-1)
			for c := range k {
				var s float64
				for m, j := range row.Ind {
					s += float64(pl.W[c][j]) * float64(row.Val[m])
				}
				s += pl.Bias[c]
				if s > bv {
					best, bv = c, s
				}
			}
			if best != int(y) {
				t.Fatalf("K = %d: row %d: label %v, planted argmax %d", k, i, y, best)
			}
		}
		for c, n := range count {
			if f := float64(n) * float64(k) / float64(cfg.Rows); f < 0.6 || f > 1.4 {
				t.Errorf("K = %d: class %d has %d rows (%.2f of its fair share)", k, c, n, f)
			}
		}
	}
}

func TestTextNoise(t *testing.T) {
	for _, k := range []int{2, 4} {
		clean := Text{Rows: 3000, Dim: 1 << 16, Classes: k, Seed: 14}
		a := mustGenerate(t, clean)
		noisy := clean
		noisy.Noise = 0.2
		b := mustGenerate(t, noisy)
		if !slices.Equal(a.X.Ind, b.X.Ind) || !slices.Equal(a.X.Val, b.X.Val) {
			t.Fatal("Noise changed X")
		}
		flips := 0
		for i := range a.Y {
			if a.Y[i] != b.Y[i] {
				flips++
			}
		}
		if f := float64(flips) / float64(len(a.Y)); math.Abs(f-0.2) > 0.03 {
			t.Errorf("K = %d: %.3f of labels changed, want 0.2", k, f)
		}
	}
	all := mustGenerate(t, Text{Rows: 500, Dim: 1 << 16, Noise: 1, Seed: 14})
	none := mustGenerate(t, Text{Rows: 500, Dim: 1 << 16, Seed: 14})
	for i := range all.Y {
		if all.Y[i] != -none.Y[i] {
			t.Fatal("Noise 1 must flip every binary label")
		}
	}
}

func TestTextStreamMatchesGenerate(t *testing.T) {
	for _, cfg := range []Text{{Rows: 2500, Dim: 1 << 16, Seed: 7}, {Rows: 1500, Dim: 300, MeanNNZ: 40, Classes: 3, Noise: 0.3, Seed: 15}} {
		d := mustGenerate(t, cfg)
		s := cfg.Stream()
		if s.Index() != -1 {
			t.Fatal("Index before Scan")
		}
		i := 0
		for s.Scan() {
			y, x := s.Row()
			want := d.X.Row(i)
			if s.Index() != i || y != d.Y[i] || x.Dim != want.Dim || !slices.Equal(x.Ind, want.Ind) || !slices.Equal(x.Val, want.Val) {
				t.Fatalf("%+v: stream row %d differs", cfg, i)
			}
			i++
		}
		if err := s.Err(); err != nil || i != cfg.Rows {
			t.Fatalf("stream: %d rows, err %v", i, err)
		}
		if s.Scan() {
			t.Fatal("Scan after the end")
		}

		var want, got bytes.Buffer
		if err := libsvm.Write(&want, d); err != nil {
			t.Fatal(err)
		}
		for _, w := range []int{1, 3} {
			got.Reset()
			cfg.Workers = w
			if err := cfg.WriteLIBSVM(&got); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Fatalf("%+v: WriteLIBSVM differs from libsvm.Write", cfg)
			}
		}
	}
}

type failWriter struct{ n int }

var errWrite = errors.New("disk full")

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n == 0 {
		return 0, errWrite
	}
	f.n--
	return len(p), nil
}

func TestTextWriteError(t *testing.T) {
	for _, n := range []int{0, 2} {
		err := Text{Rows: 20000, Dim: 1 << 12, MeanNNZ: 5, Workers: 3}.WriteLIBSVM(&failWriter{n: n})
		if !errors.Is(err, errWrite) {
			t.Fatalf("after %d writes: err = %v", n, err)
		}
	}
}

func TestTextConfigErrors(t *testing.T) {
	nan := math.NaN()
	for _, cfg := range []Text{
		{Rows: -1},
		{Dim: -1},
		{Dim: MaxDim + 1},
		{MeanNNZ: -3},
		{MeanNNZ: 0.5},
		{MeanNNZ: nan},
		{Dim: 10, MeanNNZ: 11},
		{MeanNNZ: MaxMeanNNZ + 1, Dim: MaxDim},
		{LengthSigma: -1},
		{LengthSigma: math.Inf(1)},
		{LengthSigma: MaxLengthSigma + 1},
		{Zipf: -1},
		{Zipf: nan},
		{Zipf: MaxZipf + 1},
		{Classes: 1},
		{Classes: -2},
		{Classes: MaxClasses + 1},
		{Noise: -0.1},
		{Noise: 1.5},
		{Noise: nan},
		{Workers: -1},
	} {
		if _, err := cfg.Generate(); !errors.Is(err, ErrConfig) {
			t.Errorf("Generate(%+v): err = %v, want ErrConfig", cfg, err)
		}
		if _, err := cfg.Planted(); !errors.Is(err, ErrConfig) {
			t.Errorf("Planted(%+v): err = %v", cfg, err)
		}
		s := cfg.Stream()
		if s.Scan() || !errors.Is(s.Err(), ErrConfig) {
			t.Errorf("Stream(%+v): err = %v", cfg, s.Err())
		}
		if y, x := s.Row(); y != 0 || x.NNZ() != 0 {
			t.Errorf("Stream(%+v): Row after error", cfg)
		}
		var buf bytes.Buffer
		if err := cfg.WriteLIBSVM(&buf); !errors.Is(err, ErrConfig) || buf.Len() != 0 {
			t.Errorf("WriteLIBSVM(%+v): err = %v, %d bytes", cfg, err, buf.Len())
		}
	}
	if _, err := (Text{Dim: MaxDim, Classes: 3}).Planted(); !errors.Is(err, ErrConfig) {
		t.Errorf("Planted of 3·2^31 weights: err = %v", err)
	}
}

func TestSelectKthAndMedian(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 3, 10, 101, 1000} {
		x := make([]float64, n)
		for i := range x {
			x[i] = float64(r.IntN(n/2 + 1)) // with ties
		}
		sorted := slices.Sorted(slices.Values(x))
		for _, k := range []int{0, n / 3, n / 2, n - 1} {
			y := slices.Clone(x)
			if got := selectKth(y, k); got != sorted[k] || slices.Max(y[:k+1]) != got || (k+1 < n && slices.Min(y[k:]) != got) {
				t.Fatalf("n = %d, k = %d: %v, want %v", n, k, got, sorted[k])
			}
		}
		want := sorted[n/2]
		if n%2 == 0 {
			want = (sorted[n/2-1] + sorted[n/2]) / 2
		}
		if got := median(slices.Clone(x)); got != want {
			t.Fatalf("median of %d: %v, want %v", n, got, want)
		}
	}
}

func TestAliasTable(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 2, 8, 1024} {
		w := make([]float64, n)
		var total float64
		for i := range w {
			if r.IntN(4) > 0 { // a quarter of the outcomes have weight 0
				w[i] = r.ExpFloat64() * math.Pow(10, float64(r.IntN(6)))
			}
			total += w[i]
		}
		if total == 0 {
			w[0], total = 1, 1
		}
		// Probability of each outcome implied by the table.
		p := make([]float64, n)
		for i, e := range aliasTable(w) {
			keep := float64(uint32(e)) / (1 << 32)
			p[i] += keep / float64(n)
			p[e>>32] += (1 - keep) / float64(n)
		}
		for i := range w {
			if want := w[i] / total; math.Abs(p[i]-want) > 1e-9 || (w[i] == 0 && p[i] > 1e-9) {
				t.Fatalf("n = %d: outcome %d has probability %g, want %g", n, i, p[i], want)
			}
		}
	}
}
