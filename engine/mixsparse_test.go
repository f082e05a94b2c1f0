package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

// fxSparseEpochs is fxShardEpochs the way a driver of a wide model runs
// it: the state stays sparse (Compact), every learner starts from the
// weights of its shard's features only (WeightsAt), returns its Delta
// (through the binary form when wire is set), and the deltas merge into
// the sparse state. It also runs the dense way alongside and fails t
// unless the two states have the same bits after every epoch.
func fxSparseEpochs(t *testing.T, X *sparse.CSR, y []float64, cfg Config, P, epochs int, wire bool) *Mix {
	t.Helper()
	classes, _ := classesOf(y, 1024)
	dense := fxZeroMix(classes, X.Cols)
	state, err := fxZeroMix(classes, X.Cols).Compact()
	if err != nil {
		t.Fatal(err)
	}
	n := X.Rows
	ctx := context.Background()
	for e := range epochs {
		start := &Mix{Classes: dense.Classes, Dim: dense.Dim, W: dense.W, B: dense.B}
		sparseShards := make([]*Mix, P)
		denseShards := make([]*Mix, P)
		for k := range P {
			lo, hi := k*n/P, (k+1)*n/P
			Xk := X.Slice(lo, hi)
			feat := fxFeaturesOf(Xk)
			from, err := state.WeightsAt(feat)
			if err != nil {
				t.Fatal(err)
			}
			l, err := NewLearnerFrom(from, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := l.PartialFit(ctx, Xk, y[lo:hi]); err != nil {
				t.Fatal(err)
			}
			d, err := l.Delta()
			if err != nil {
				t.Fatal(err)
			}
			fxCheckLearnerDelta(t, l, d, from, feat)
			if wire {
				var buf bytes.Buffer
				if _, err := d.WriteTo(&buf); err != nil {
					t.Fatal(err)
				}
				if d, err = ReadMix(&buf, 0); err != nil {
					t.Fatal(err)
				}
			}
			sparseShards[k] = d
			ld, err := NewLearnerFrom(start, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ld.PartialFit(ctx, Xk, y[lo:hi]); err != nil {
				t.Fatal(err)
			}
			if denseShards[k], err = ld.Mix(); err != nil {
				t.Fatal(err)
			}
		}
		if err := state.Merge(sparseShards); err != nil {
			t.Fatal(err)
		}
		if err := dense.Merge(denseShards); err != nil {
			t.Fatal(err)
		}
		if !state.Sparse || len(state.Features) > X.Cols {
			t.Fatalf("epoch %d: the merged state is not sparse", e+1)
		}
		fxSameMixBits(t, "sparse against dense merge", state, dense)
		// Merge drops the features whose values are all +0.
		K := state.NumRows()
		for i, j := range state.Features {
			zero := true
			for c := range K {
				zero = zero && math.Float32bits(state.W[i*K+c]) == 0 && (state.Sum == nil || math.Float64bits(state.Sum[i*K+c]) == 0)
			}
			if zero {
				t.Fatalf("epoch %d: the merged state lists feature %d, all of whose values are +0", e+1, j)
			}
		}
	}
	return state
}

// fxCheckLearnerDelta fails t unless d, the Delta of learner l started
// from start, lists as changed the features that Mix.Delta of its Mix
// lists, and the other features of feat (those of the rows it learned)
// as seen.
func fxCheckLearnerDelta(t *testing.T, l *Learner, d, start *Mix, feat []int32) {
	t.Helper()
	m, err := l.Mix()
	if err != nil {
		t.Fatal(err)
	}
	dense, err := start.Dense()
	if err != nil {
		t.Fatal(err)
	}
	want, err := m.Delta(dense)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.Features, want.Features) {
		t.Fatalf("Learner.Delta lists %d features as changed, Mix.Delta %d", len(d.Features), len(want.Features))
	}
	all := slices.Sorted(slices.Values(append(slices.Clone(d.Features), d.Seen...)))
	if !slices.Equal(all, feat) {
		t.Fatalf("Learner.Delta lists %d features changed and %d seen; the rows have %d", len(d.Features), len(d.Seen), len(feat))
	}
}

// fxFeaturesOf returns the features the rows of X use, ascending.
func fxFeaturesOf(X *sparse.CSR) []int32 {
	seen := make([]bool, X.Cols)
	for _, j := range X.Ind {
		seen[j] = true
	}
	out := []int32{}
	for j, s := range seen {
		if s {
			out = append(out, int32(j))
		}
	}
	return out
}

// fxSameMixBits fails t unless states a and b (either dense or sparse)
// have the same weights, biases, accumulators, sums and counts, bit for
// bit.
func fxSameMixBits(t *testing.T, what string, a, b *Mix) {
	t.Helper()
	da, err := a.Dense()
	if err != nil {
		t.Fatal(err)
	}
	db, err := b.Dense()
	if err != nil {
		t.Fatal(err)
	}
	if da.N != db.N || da.SumN != db.SumN || da.Updates != db.Updates || (da.Sum == nil) != (db.Sum == nil) || (da.U == nil) != (db.U == nil) {
		t.Fatalf("%s: counts N %v/%v, SumN %v/%v, Updates %d/%d, sums %v/%v", what, da.N, db.N, da.SumN, db.SumN, da.Updates, db.Updates, da.Sum != nil, db.Sum != nil)
	}
	f32 := func(name string, x, y []float32) {
		for i := range max(len(x), len(y)) {
			if i >= len(x) || i >= len(y) || math.Float32bits(x[i]) != math.Float32bits(y[i]) {
				t.Fatalf("%s: %s[%d] differs (%d and %d values)", what, name, i, len(x), len(y))
			}
		}
	}
	f64 := func(name string, x, y []float64) {
		for i := range max(len(x), len(y)) {
			if i >= len(x) || i >= len(y) || math.Float64bits(x[i]) != math.Float64bits(y[i]) {
				t.Fatalf("%s: %s[%d] differs (%d and %d values)", what, name, i, len(x), len(y))
			}
		}
	}
	f32("W", da.W, db.W)
	f32("B", da.B, db.B)
	f64("U", da.U, db.U)
	f64("UB", da.UB, db.UB)
	f64("Sum", da.Sum, db.Sum)
	f64("SumB", da.SumB, db.SumB)
}

// A sparse state, workers that start from their shard's weights only and
// deltas from Learner.Delta give the bits of dense mixing after every
// epoch (fxSparseEpochs checks), and so Fit's model with Workers.
func TestSparseMixIsFitWorkers(t *testing.T) {
	// Wide rows with few features each, so that shards touch a part of
	// the width and the state stays mostly zero.
	Xb, yb := fxIntBinary(41, 600, 900, 6, 0.1)
	Xm, ym := fxIntMulti(42, 500, 700, 6, 4, 0.1)
	for _, tc := range []struct {
		name string
		X    *sparse.CSR
		y    []float64
	}{{"binary", Xb, yb}, {"multiclass", Xm, ym}} {
		for _, cfg := range []Config{
			{NoShuffle: true},
			{NoShuffle: true, Algorithm: Plain},
			{NoShuffle: true, Rule: PA2, Normalize: true},
			{NoShuffle: true, Margin: 0.5, LearningRate: 0.3, Bias: BiasAugmented, BiasScale: 2},
		} {
			for _, P := range []int{2, 3} {
				const epochs = 3
				fc := cfg
				fc.Workers, fc.Epochs = P, epochs
				want, _ := fxFit(t, tc.X, tc.y, fc)
				for _, wire := range []bool{false, true} {
					state := fxSparseEpochs(t, tc.X, tc.y, cfg, P, epochs, wire)
					got, err := state.Model(cfg)
					if err != nil {
						t.Fatal(err)
					}
					fxSameWeights(t, tc.name, want, got)
				}
			}
		}
	}
}

// The same on the interleaved layout of a wide binary averaged learner.
func TestSparseMixInterleaved(t *testing.T) {
	defer func(v int) { interleaveBytes = v }(interleaveBytes)
	interleaveBytes = 64
	X, y := fxIntBinary(43, 500, 800, 8, 0.1)
	want, _ := fxFit(t, X, y, Config{NoShuffle: true, Workers: 2, Epochs: 3})
	got, err := fxSparseEpochs(t, X, y, Config{NoShuffle: true}, 2, 3, false).Model(Config{})
	if err != nil {
		t.Fatal(err)
	}
	fxSameWeights(t, "interleaved", want, got)
}

// Learner.Delta after PartialFitCache lists the features of the cache's
// rows and merges as the learner's Mix does.
func TestLearnerDeltaCache(t *testing.T) {
	X, y := fxIntBinary(44, 300, 500, 5, 0.1)
	classes, _ := classesOf(y, 1024)
	c, _ := fxCache(t, X, y, 2048)
	base := fxZeroMix(classes, X.Cols)
	l, err := NewLearnerFrom(base, Config{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.PartialFitCache(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	d, err := l.Delta()
	if err != nil {
		t.Fatal(err)
	}
	fxCheckLearnerDelta(t, l, d, base, fxFeaturesOf(X))
	m, _ := l.Mix()
	a, b := fxZeroMix(classes, X.Cols), fxZeroMix(classes, X.Cols)
	if err := a.Merge([]*Mix{d}); err != nil {
		t.Fatal(err)
	}
	if err := b.Merge([]*Mix{m}); err != nil {
		t.Fatal(err)
	}
	fxSameMixBits(t, "Delta against Mix", a, b)
}

// A learner restarted from another state learns the cache it holds as a
// new learner from that state does, bit for bit, without reading the
// cache again; a restart that fails changes nothing.
func TestLearnerRestart(t *testing.T) {
	X, y := fxIntBinary(46, 300, 400, 6, 0.1)
	classes, _ := classesOf(y, 1024)
	c, _ := fxCache(t, X, y, 2048)
	if c.NumBlocks() < 2 || c.NumBlocks() > CacheWindow {
		t.Fatalf("the cache has %d blocks; the test wants a few, kept resident", c.NumBlocks())
	}
	ctx := context.Background()
	l, err := NewLearnerFrom(fxZeroMix(classes, X.Cols), Config{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.PartialFitCache(ctx, c); err != nil {
		t.Fatal(err)
	}
	kept := l.cf.resident[0]
	for _, cfg := range []Config{
		{Seed: 2},
		{Seed: 3, Normalize: true},
		{Seed: 4, NoShuffle: true},
		{Seed: 5, Algorithm: Plain, Rule: PA1},
	} {
		start, err := l.Mix()
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Algorithm == Plain {
			start.U, start.UB = nil, nil
		}
		fresh, err := NewLearnerFrom(start, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Restart(start, cfg); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			a, err := l.PartialFitCache(ctx, c)
			if err != nil {
				t.Fatal(err)
			}
			b, err := fresh.PartialFitCache(ctx, c)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(a) != fmt.Sprint(b) {
				t.Fatalf("%+v: restarted %+v, new %+v", cfg, a, b)
			}
		}
		if l.cf.resident[0] != kept {
			t.Fatalf("%+v: the restarted learner read the cache again", cfg)
		}
		var got, want bytes.Buffer
		for _, x := range []struct {
			l *Learner
			b *bytes.Buffer
		}{{l, &got}, {fresh, &want}} {
			d, err := x.l.Delta()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := d.WriteTo(x.b); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("%+v: the restarted learner's delta differs from a new learner's", cfg)
		}
	}
	before, _ := l.Mix()
	if err := l.Restart(&Mix{Classes: []float64{7, 8}, Dim: 3}, Config{}); err == nil {
		t.Fatal("a restart from a bad state succeeded")
	}
	after, _ := l.Mix()
	fxSameMixBits(t, "after a failed restart", after, before)
}

// Compact, Dense and WeightsAt keep every bit, −0 included, and refuse
// deltas; Merge into a sparse state refuses what is not a delta.
func TestSparseStateConversions(t *testing.T) {
	m := &Mix{
		Classes: []float64{0, 1, 2}, Dim: 6,
		W: []float32{0, 0, 0, 1, float32(math.Copysign(0, -1)), 2, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0},
		B: []float32{1, 2, 3}, N: 4, U: make([]float64, 18), UB: []float64{0, 0, 1},
		Sum: make([]float64, 18), SumB: []float64{1, 1, 1}, SumN: 10, Updates: 2,
	}
	m.U[15] = 0.5   // feature 5: an accumulator only
	m.Sum[7] = -1.5 // feature 2: a sum only
	c, err := m.Compact()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Features, []int32{1, 2, 4, 5}) || !c.Sparse {
		t.Fatalf("Compact lists %v", c.Features)
	}
	fxSameMixBits(t, "Compact", c, m)
	w, err := c.WeightsAt([]int32{0, 1, 4})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(w.W, []float32{0, 0, 0, 1, float32(math.Copysign(0, -1)), 2, 3, 0, 0}) || w.N != 0 || w.U != nil || w.Sum != nil {
		t.Fatalf("WeightsAt: %+v", w)
	}
	if math.Float32bits(w.W[4]) != math.Float32bits(float32(math.Copysign(0, -1))) {
		t.Fatal("WeightsAt lost the sign of −0")
	}
	// A learner starts from a sparse state as from its dense form.
	cfg := Config{Algorithm: Averaged}
	a, err := NewLearnerFrom(c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewLearnerFrom(m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	fxSameModel(t, "learner from a sparse state", a.Model(), b.Model())
	ma, _ := c.Model(cfg)
	mb, _ := m.Model(cfg)
	fxSameWeights(t, "Model of a sparse state", ma, mb)

	delta := &Mix{Classes: m.Classes, Dim: 6, Features: []int32{1}, W: []float32{1, 2, 3}, B: []float32{0, 0, 0}, N: 1}
	for name, err := range map[string]error{
		"Dense of a delta":                           func() error { _, err := delta.Dense(); return err }(),
		"Compact of a delta":                         func() error { _, err := delta.Compact(); return err }(),
		"WeightsAt of a delta":                       func() error { _, err := delta.WeightsAt(nil); return err }(),
		"WeightsAt unsorted":                         func() error { _, err := c.WeightsAt([]int32{3, 1}); return err }(),
		"WeightsAt past Dim":                         func() error { _, err := c.WeightsAt([]int32{6}); return err }(),
		"Merge of a dense shard into a sparse state": c.Merge([]*Mix{m}),
		"Merge of a sparse state":                    m.Merge([]*Mix{c}),
		"Sparse without features":                    (&Mix{Classes: m.Classes, Dim: 1, Sparse: true, W: []float32{0, 0, 0}, B: []float32{0, 0, 0}}).check(),
	} {
		if !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v, want ErrConfig", name, err)
		}
	}
}

// Merge into a sparse state split over goroutines, at features that cut
// the lists anywhere, keeps the bits of the dense merge (fxSparseEpochs
// checks every epoch).
func TestSparseMergeSplit(t *testing.T) {
	defer func(v int) { mixSparseSplitMin = v }(mixSparseSplitMin)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(7))
	mixSparseSplitMin = 50
	for _, K := range []int{2, 4} {
		X, y := fxIntMulti(45, 500, 900, 6, K, 0.1)
		fxSparseEpochs(t, X, y, Config{NoShuffle: true}, 3, 3, false)
	}
}

// The same for a width of many tiles, mostly empty, and for tiles of 64
// and 128 features, whose edges cut the lists anywhere: binary and
// multiclass, averaged and plain.
func TestSparseMergeTiles(t *testing.T) {
	defer func(v int32) { tileWidth = v }(tileWidth)
	r := rand.New(rand.NewPCG(7, 8))
	const cols = 1 << 18
	bld := sparse.NewBuilder(cols)
	// Features from a pool of 3000 spread over the width, and some
	// around tile edges.
	pool := make([]int32, 3000)
	for i := range pool {
		pool[i] = int32(r.IntN(cols))
		if i%10 == 0 {
			pool[i] = int32(64*r.IntN(cols/64) + r.IntN(2)*63)
		}
	}
	rows := 400
	for range rows {
		ind := make([]int32, 8)
		for k := range ind {
			ind[k] = pool[r.IntN(len(pool))]
		}
		slices.Sort(ind)
		ind = slices.Compact(ind)
		val := make([]float32, len(ind))
		for k := range val {
			val[k] = float32(r.IntN(5) - 2)
		}
		if err := bld.Add(ind, val); err != nil {
			t.Fatal(err)
		}
	}
	X := bld.Build()
	yb, ym := make([]float64, rows), make([]float64, rows)
	for i := range rows {
		row := X.Row(i)
		s := 0.0
		for k, j := range row.Ind {
			s += float64(row.Val[k]) * float64(j%7-3)
		}
		yb[i] = float64(max(0, min(1, int(s)))) // 0 or 1
		ym[i] = float64(int(math.Abs(s)) % 3)
	}
	for _, w := range []int32{4096, 128, 64} {
		tileWidth = w
		for _, cfg := range []Config{{NoShuffle: true}, {NoShuffle: true, Algorithm: Plain}} {
			fxSparseEpochs(t, X, yb, cfg, 3, 3, false)
			fxSparseEpochs(t, X, ym, cfg, 3, 3, false)
		}
	}
}

// WeightsAt of a sparse state gives the weights of the dense state, for
// lists of features far sparser and far denser than the state's.
func TestWeightsAtSearch(t *testing.T) {
	r := rand.New(rand.NewPCG(46, 1))
	const dim = 5000
	dense := fxZeroMix([]float64{0, 1, 2}, dim)
	for i := range dense.W {
		if r.IntN(10) == 0 {
			dense.W[i] = float32(r.NormFloat64())
		}
	}
	state, err := dense.Compact()
	if err != nil {
		t.Fatal(err)
	}
	for _, every := range []int{1, 2, 7, 100, 3000} {
		var feat []int32
		for j := range dim {
			if r.IntN(every) == 0 {
				feat = append(feat, int32(j))
			}
		}
		got, err := state.WeightsAt(feat)
		if err != nil {
			t.Fatal(err)
		}
		want, err := dense.WeightsAt(feat)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.W, want.W) || !slices.Equal(got.Features, want.Features) {
			t.Fatalf("one feature in %d: the sparse state's weights differ from the dense one's", every)
		}
	}
}

// The model of a sparse state that lists at most half of its width lists
// its columns, as Fit's model of a wide feature space does, with the bits
// of the dense state's model, for every learner the state may come from;
// one that lists more has dense weights.
func TestSparseStateModelListed(t *testing.T) {
	for _, dim := range []int{8, 40} {
		m := &Mix{
			Classes: []float64{0, 1, 2}, Dim: dim,
			W: make([]float32, dim*3), B: []float32{1, 2, 3}, N: 4,
			U: make([]float64, dim*3), UB: []float64{0, 0, 1},
			Sum: make([]float64, dim*3), SumB: []float64{1, 1, 1}, SumN: 10, Updates: 2,
		}
		for k, j := range []int{1, 2, 4, 5, 7} {
			m.W[3*j+k%3] = float32(k+1) / 3
			m.U[3*j+(k+1)%3] = 0.25 * float64(k)
			m.Sum[3*j+(k+2)%3] = -1.5 * float64(k)
		}
		c, err := m.Compact()
		if err != nil {
			t.Fatal(err)
		}
		for _, cfg := range []Config{{Algorithm: Averaged}, {Algorithm: Plain}, {Rule: PA2}} {
			got, err := c.Model(cfg)
			if err != nil {
				t.Fatal(err)
			}
			want, err := m.Model(cfg)
			if err != nil {
				t.Fatal(err)
			}
			fxSameWeights(t, fmt.Sprintf("dim %d, %+v", dim, cfg), got, want)
			if listed := got.Cols != nil; listed != (2*len(c.Features) <= dim) || got.Dim != dim {
				t.Errorf("dim %d: columns %v listed for %d features, Dim %d", dim, got.Cols, len(c.Features), got.Dim)
			}
			if got.Cols != nil && !slices.Equal(got.Cols, c.Features) {
				t.Errorf("dim %d: lists %v, want %v", dim, got.Cols, c.Features)
			}
		}
	}
}

// BenchmarkMergeSparse: four deltas of a binary averaged learner, of about
// 150k features each, most of them in the state, merged into a sparse
// state of 400k features of a 2^22 space, about as the Beam mixing step
// merges imdb's shards.
func BenchmarkMergeSparse(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	pick := func(n int) []int32 {
		seen := map[int32]bool{}
		for len(seen) < n {
			seen[int32(r.IntN(1<<22))] = true
		}
		out := make([]int32, 0, n)
		for j := range seen {
			out = append(out, j)
		}
		slices.Sort(out)
		return out
	}
	fill32 := func(n int) []float32 {
		w := make([]float32, n)
		for i := range w {
			w[i] = float32(r.NormFloat64())
		}
		return w
	}
	fill64 := func(n int) []float64 {
		u := make([]float64, n)
		for i := range u {
			u[i] = r.NormFloat64()
		}
		return u
	}
	sf := pick(400000)
	state := &Mix{Classes: []float64{-1, 1}, Dim: 1 << 22, Features: sf, Sparse: true, W: fill32(len(sf)), B: []float32{0.5},
		Sum: fill64(len(sf)), SumB: []float64{1}, SumN: 100}
	deltas := make([]*Mix, 4)
	for k := range deltas {
		// Most of a shard's features are in the state already.
		seen := map[int32]bool{}
		for len(seen) < 140000 {
			seen[sf[r.IntN(len(sf))]] = true
		}
		for _, j := range pick(10000) {
			seen[j] = true
		}
		f := make([]int32, 0, len(seen))
		for j := range seen {
			f = append(f, j)
		}
		slices.Sort(f)
		deltas[k] = &Mix{Classes: state.Classes, Dim: state.Dim, Features: f, W: fill32(len(f)), B: []float32{0.25},
			N: 1000, U: fill64(len(f)), UB: []float64{0.5}, Updates: 10}
	}
	for b.Loop() {
		st := *state
		if err := st.Merge(deltas); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLearnerDelta: the delta of a binary averaged learner that
// learned 20k rows over 500k features from a dense start, about as a
// Beam shard of imdb returns it.
func BenchmarkLearnerDelta(b *testing.B) {
	l := fxDeltaLearner(b)
	for b.Loop() {
		if _, err := l.Delta(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMixCheck: the checks of that delta, as reading it and merging
// it make them.
func BenchmarkMixCheck(b *testing.B) {
	d, err := fxDeltaLearner(b).Delta()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := d.check(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(d.Features)), "changed")
	b.ReportMetric(float64(len(d.Seen)), "seen")
}

// fxDeltaLearner returns the learner of BenchmarkLearnerDelta.
func fxDeltaLearner(b *testing.B) *Learner {
	r := rand.New(rand.NewPCG(5, 6))
	const rows, cols = 20000, 500000
	bld := sparse.NewBuilder(cols)
	y := make([]float64, rows)
	for i := range y {
		ind := make([]int32, 60)
		for k := range ind {
			ind[k] = int32(r.IntN(cols))
		}
		slices.Sort(ind)
		ind = slices.Compact(ind)
		val := make([]float32, len(ind))
		for k := range val {
			val[k] = float32(r.NormFloat64())
		}
		if err := bld.Add(ind, val); err != nil {
			b.Fatal(err)
		}
		y[i] = float64(2*r.IntN(2) - 1)
	}
	X := bld.Build()
	classes, _ := classesOf(y, 1024)
	l, err := NewLearnerFrom(fxZeroMix(classes, X.Cols), Config{Seed: 3})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := l.PartialFit(context.Background(), X, y); err != nil {
		b.Fatal(err)
	}
	return l
}

// TestBelow8 checks the branch-free count against plain compares over
// the whole range of feature indices, the ends of int32 included.
func TestBelow8(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	edge := []int32{0, 1, 2, math.MaxInt32 - 1, math.MaxInt32}
	pick := func() int32 {
		if r.IntN(4) == 0 {
			return edge[r.IntN(len(edge))]
		}
		return r.Int32()
	}
	for range 100000 {
		var w [8]int32
		for k := range w {
			w[k] = pick()
		}
		j := pick()
		want := 0
		for _, f := range w {
			if f < j {
				want++
			}
		}
		if got := below8(&w, j); got != want {
			t.Fatalf("below8(%v, %d) = %d, want %d", w, j, got, want)
		}
	}
}
