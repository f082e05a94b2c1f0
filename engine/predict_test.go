package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"slices"
	"sync"
	"testing"

	"github.com/hyperplane-ml/hyperplane/kernels"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// fxRace reports whether the test binary was built with -race. sync.Pool
// drops a random quarter of what is put into it under the race detector,
// so pooled paths allocate there by design.
var fxRace = func() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" && s.Value == "true" {
			return true
		}
	}
	return false
}()

// fxVec is one weight vector of the voted perceptron with its vote.
type fxVec struct {
	w [][]float64 // per weight row, dense
	b []float64
	c int64
}

func (v fxVec) clone() fxVec {
	w := make([][]float64, len(v.w))
	for k := range w {
		w[k] = slices.Clone(v.w[k])
	}
	return fxVec{w: w, b: slices.Clone(v.b), c: 0}
}

// fxRefVoted runs the classic perceptron (LearningRate 1, separate bias,
// zero start, rows in order) and records every weight vector with the
// number of examples for which it was the vector in force after the
// example: an update starts a new vector that counts its own example; the
// start vector counts the examples before the first update.
func fxRefVoted(X *sparse.CSR, cls []int, K, epochs int) []fxVec {
	nw := K
	if K == 2 {
		nw = 1
	}
	cur := fxVec{w: make([][]float64, nw), b: make([]float64, nw)}
	for k := range cur.w {
		cur.w[k] = make([]float64, X.Cols)
	}
	vecs := []fxVec{cur.clone()}
	s := make([]float64, nw)
	for e := 0; e < epochs; e++ {
		updates := 0
		for i := 0; i < X.Rows; i++ {
			row := X.Row(i)
			last := &vecs[len(vecs)-1]
			for k := range s {
				s[k] = last.b[k]
				for q, j := range row.Ind {
					s[k] += last.w[k][j] * float64(row.Val[q])
				}
			}
			c := cls[i]
			update := false
			next := last.clone()
			if nw == 1 {
				y := -1.0
				if c == 1 {
					y = 1
				}
				if y*s[0] <= 0 {
					update = true
					for q, j := range row.Ind {
						next.w[0][j] += y * float64(row.Val[q])
					}
					next.b[0] += y
				}
			} else {
				r := bestOther32(s, c)
				if s[c]-s[r] <= 0 {
					update = true
					for q, j := range row.Ind {
						next.w[c][j] += float64(row.Val[q])
						next.w[r][j] -= float64(row.Val[q])
					}
					next.b[c]++
					next.b[r]--
				}
			}
			if update {
				updates++
				next.c = 1
				vecs = append(vecs, next)
			} else {
				last.c++
			}
		}
		if updates == 0 {
			break
		}
	}
	return vecs
}

func bestOther32(s []float64, c int) int {
	r := -1
	for k, v := range s {
		if k != c && (r < 0 || v > s[r]) {
			r = k
		}
	}
	return r
}

// fxVecsFromVotes rebuilds the voted perceptron's vectors from a model's
// record, in float64.
func fxVecsFromVotes(m *Model) []fxVec {
	v := m.Votes
	K := m.NumRows()
	cur := fxVec{w: make([][]float64, K), b: make([]float64, K), c: v.Count0}
	for k := range cur.w {
		cur.w[k] = make([]float64, m.Dim)
		if v.W0 != nil {
			for j := range m.Dim {
				cur.w[k][j] = float64(v.W0[j*K+k])
			}
			cur.b[k] = float64(v.B0[k])
		}
	}
	bb := float64(m.BiasScale) * float64(m.BiasScale)
	if m.Bias == NoBias {
		bb = 0
	}
	vecs := []fxVec{cur}
	for _, st := range v.Steps {
		next := vecs[len(vecs)-1].clone()
		row := v.SV.Row(int(st.Row))
		a := float64(st.A)
		for q, j := range row.Ind {
			next.w[st.Up][j] += a * float64(row.Val[q])
			if st.Down >= 0 {
				next.w[st.Down][j] -= a * float64(row.Val[q])
			}
		}
		next.b[st.Up] += a * bb
		if st.Down >= 0 {
			next.b[st.Down] -= a * bb
		}
		next.c = st.Count
		vecs = append(vecs, next)
	}
	return vecs
}

// fxVote returns the reference vote of vecs on x: for one weight row the
// binary vote Σ c·sign(w·x+b)/Σ c with sign(0) = −1, for K rows every
// class's share of the votes (argmax, the first on ties). minAbs is the
// smallest |score| (binary) or lead of the best class met, so that a
// caller can tell whether rounding could flip a vote.
func fxVote(vecs []fxVec, x sparse.Vector) (shares []float64, minAbs float64) {
	K := len(vecs[0].w)
	minAbs = math.Inf(1)
	s := make([]float64, K)
	var total float64
	if K == 1 {
		shares = make([]float64, 1)
	} else {
		shares = make([]float64, K)
	}
	for _, v := range vecs {
		for k := range K {
			s[k] = v.b[k]
			for q, j := range x.Ind {
				if int(j) < len(v.w[k]) {
					s[k] += v.w[k][j] * float64(x.Val[q])
				}
			}
		}
		total += float64(v.c)
		if K == 1 {
			minAbs = min(minAbs, math.Abs(s[0]))
			if s[0] > 0 {
				shares[0] += float64(v.c)
			} else {
				shares[0] -= float64(v.c)
			}
			continue
		}
		best := 0
		for k := range s {
			if s[k] > s[best] {
				best = k
			}
		}
		lead := math.Inf(1)
		for k := range s {
			if k != best {
				lead = min(lead, s[best]-s[k])
			}
		}
		minAbs = min(minAbs, lead)
		shares[best] += float64(v.c)
	}
	for k := range shares {
		shares[k] /= total
	}
	return shares, minAbs
}

// TestVotedMatchesReference checks the voted perceptron's prediction
// against an explicit list of every weight vector and its survival count.
func TestVotedMatchesReference(t *testing.T) {
	for _, K := range []int{2, 4} {
		t.Run(fmt.Sprintf("K=%d", K), func(t *testing.T) {
			var X, Xt *sparse.CSR
			var y []float64
			if K == 2 {
				X, y = fxIntBinary(30, 200, 16, 4, 0.2)
				Xt, _ = fxIntBinary(31, 150, 20, 5, 0) // wider than the model
			} else {
				X, y = fxIntMulti(30, 200, 16, 4, K, 0.2)
				Xt, _ = fxIntMulti(31, 150, 20, 5, K, 0)
			}
			const epochs = 6
			cfg := Config{Algorithm: Voted, Epochs: epochs, NoShuffle: true}
			m, stats := fxFit(t, X, y, cfg)
			if len(stats) != epochs {
				t.Fatalf("ran %d of %d epochs", len(stats), epochs)
			}
			ref := fxRefVoted(X, fxClassIndex(m.Classes, y), K, epochs)

			// The record must describe exactly the reference's vectors.
			got := fxVecsFromVotes(m)
			if len(got) != len(ref) {
				t.Fatalf("votes hold %d vectors, the reference %d", len(got), len(ref))
			}
			var total int64
			for k := range ref {
				if got[k].c != ref[k].c {
					t.Fatalf("vector %d survives %d examples, reference %d", k, got[k].c, ref[k].c)
				}
				total += got[k].c
				for r := range ref[k].w {
					if !slices.Equal(got[k].w[r], ref[k].w[r]) || got[k].b[r] != ref[k].b[r] {
						t.Fatalf("vector %d row %d differs from the reference", k, r)
					}
				}
			}
			if total != int64(epochs*X.Rows) {
				t.Fatalf("counts sum to %d, want %d examples", total, epochs*X.Rows)
			}
			if m.Votes.SV.Rows > X.Rows {
				t.Fatalf("SV holds %d rows, more than the %d training rows", m.Votes.SV.Rows, X.Rows)
			}

			sc := make([]float32, m.NumRows())
			for i := 0; i < Xt.Rows+X.Rows; i++ {
				var x sparse.Vector
				if i < Xt.Rows {
					x = Xt.Row(i)
				} else {
					x = X.Row(i - Xt.Rows)
				}
				want, _ := fxVote(ref, x)
				if K == 2 {
					d := m.Decision(x)
					if math.Abs(float64(d)-want[0]) > 1e-6 {
						t.Fatalf("row %d: Decision %v, reference vote %v", i, d, want[0])
					}
					p := m.Predict(x)
					wp := m.Classes[0]
					if want[0] > 0 {
						wp = m.Classes[1]
					}
					if p != wp {
						t.Fatalf("row %d: Predict %v, vote %v says %v", i, p, want[0], wp)
					}
					if s := m.Scores(x, sc); len(s) != 1 || s[0] != d {
						t.Fatalf("row %d: Scores %v, Decision %v", i, s, d)
					}
					continue
				}
				s := m.Scores(x, sc)
				best := 0
				for k := range want {
					if math.Abs(float64(s[k])-want[k]) > 1e-6 {
						t.Fatalf("row %d: vote shares %v, reference %v", i, s, want)
					}
					if want[k] > want[best] {
						best = k
					}
				}
				if p := m.Predict(x); p != m.Classes[best] {
					t.Fatalf("row %d: Predict %v, reference shares %v pick %v", i, p, want, m.Classes[best])
				}
				if d := m.Decision(x); d != s[argmax(s)] {
					t.Fatalf("row %d: Decision %v, largest share %v", i, d, s[argmax(s)])
				}
			}

			// The voted model's W and B are the averaged perceptron's.
			cfg.Algorithm = Averaged
			a, _ := fxFit(t, X, y, cfg)
			fxSameModel(t, "voted W/B vs averaged", m, a)
			// With shuffling too.
			cfg = Config{Algorithm: Voted, Epochs: 4, Seed: 77}
			v2, _ := fxFit(t, X, y, cfg)
			cfg.Algorithm = Averaged
			a2, _ := fxFit(t, X, y, cfg)
			fxSameModel(t, "voted W/B vs averaged, shuffled", v2, a2)
		})
	}
}

// TestVotedNegativeStep pins the multiclass vote down on a hand-made
// record: one step moves x·sv = −1 from class 0 to class 1, so x's score
// for class 0 falls and class 1's rises. The vector after the step must
// vote for class 1.
func TestVotedNegativeStep(t *testing.T) {
	sv := sparse.FromDense([][]float32{{1}})
	m := &Model{
		Algorithm: Voted, Bias: NoBias, BiasScale: 1,
		Classes: []float64{10, 20, 30}, Dim: 1,
		W: make([]float32, 3), B: make([]float32, 3),
		Votes: &Votes{SV: sv, Count0: 1, Steps: []VoteStep{{Row: 0, Up: 0, Down: 1, A: 1, Count: 3}}},
	}
	if err := m.Check(); err != nil {
		t.Fatal(err)
	}
	// Start vector: scores (0, 0, 0), a tie won by class 0, 1 vote. After
	// the step, x = (−1): scores (−1, +1, 0), class 1, 3 votes.
	x := sparse.Vector{Dim: 1, Ind: []int32{0}, Val: []float32{-1}}
	want := []float32{0.25, 0.75, 0}
	if got := m.Scores(x, nil); !slices.Equal(got, want) {
		t.Errorf("x = (−1): vote shares %v, want %v (the step lowered class 0 below class 1)", got, want)
	}
	if p := m.Predict(x); p != 20 {
		t.Errorf("x = (−1): Predict %v, want 20", p)
	}
	if p := m.PredictDense([]float32{-1}); p != 20 {
		t.Errorf("dense x = (−1): PredictDense %v, want 20", p)
	}
	// x = (+1): scores (1, −1, 0) after the step, class 0 keeps every vote.
	x.Val[0] = 1
	if got := m.Scores(x, nil); !slices.Equal(got, []float32{1, 0, 0}) {
		t.Errorf("x = (+1): vote shares %v, want [1 0 0]", got)
	}
}

// TestVotedRandomStart checks the vote with a random start vector and a
// bias scale, rebuilding the vectors from the model's record; the
// vectors' count-weighted mean must be the averaged weights.
func TestVotedRandomStart(t *testing.T) {
	for _, K := range []int{2, 3} {
		t.Run(fmt.Sprintf("K=%d", K), func(t *testing.T) {
			var X *sparse.CSR
			var y []float64
			if K == 2 {
				X, y = fxIntBinary(32, 150, 12, 4, 0.2)
			} else {
				X, y = fxIntMulti(32, 150, 12, 4, K, 0.2)
			}
			cfg := Config{Algorithm: Voted, Epochs: 5, Seed: 3, InitScale: 0.5, Bias: BiasAugmented, BiasScale: 1.5}
			m, _ := fxFit(t, X, y, cfg)
			if m.Votes.W0 == nil || len(m.Votes.W0) != len(m.W) {
				t.Fatalf("K=%d: random start but W0 %d long", K, len(m.Votes.W0))
			}
			vecs := fxVecsFromVotes(m)
			var total float64
			avg := make([][]float64, m.NumRows())
			avgB := make([]float64, m.NumRows())
			for k := range avg {
				avg[k] = make([]float64, m.Dim)
			}
			for _, v := range vecs {
				total += float64(v.c)
				for k := range v.w {
					for j, w := range v.w[k] {
						avg[k][j] += float64(v.c) * w
					}
					avgB[k] += float64(v.c) * v.b[k]
				}
			}
			if total != float64(5*X.Rows) {
				t.Fatalf("K=%d: counts sum to %v", K, total)
			}
			for k := range avg {
				for j := range avg[k] {
					if w := avg[k][j] / total; math.Abs(w-float64(m.Weight(k, j))) > 1e-4*(1+math.Abs(w)) {
						t.Fatalf("K=%d: count-weighted mean of the voted vectors W[%d,%d] = %v, model's averaged weight %v", K, k, j, w, m.Weight(k, j))
					}
				}
				if b := avgB[k] / total; math.Abs(b-float64(m.B[k])) > 1e-4*(1+math.Abs(b)) {
					t.Fatalf("K=%d: mean bias %v, model %v", K, b, m.B[k])
				}
			}
			checked := 0
			sc := make([]float32, m.NumRows())
			for i := 0; i < X.Rows; i++ {
				x := X.Row(i)
				want, minAbs := fxVote(vecs, x)
				if minAbs < 1e-3 {
					continue // a float32 rounding could flip one vote
				}
				checked++
				s := m.Scores(x, sc)
				for k := range want {
					if math.Abs(float64(s[k])-want[k]) > 1e-6 {
						t.Fatalf("K=%d row %d: scores %v, reference %v", K, i, s, want)
					}
				}
			}
			if checked < X.Rows/2 {
				t.Fatalf("K=%d: only %d rows far enough from a tie to check", K, checked)
			}
		})
	}
}

// fxModelSet is a trained model with rows to predict.
type fxModelSet struct {
	name string
	m    *Model
	X    *sparse.CSR // rows to predict
}

// fxPredictModels trains one model of each kind the prediction tests use.
func fxPredictModels(t testing.TB) []fxModelSet {
	t.Helper()
	Xb, yb := fxDenseSeparable(40, 400, 24, 2, 0.05)
	Xs, ys := fxIntBinary(41, 400, 50, 6, 0.2)
	X5, y5 := fxIntMulti(42, 500, 50, 6, 5, 0.2)
	X70, y70 := fxIntMulti(43, 1400, 60, 6, 70, 0.1)
	Xv, yv := fxIntBinary(44, 200, 30, 5, 0.2)
	Xv4, yv4 := fxIntMulti(45, 200, 30, 5, 4, 0.2)
	var out []fxModelSet
	add := func(name string, X *sparse.CSR, y []float64, cfg Config) {
		m, _ := fxFit(t, X, y, cfg)
		out = append(out, fxModelSet{name, m, X})
	}
	add("binary-dense", Xb, yb, Config{Epochs: 5, Seed: 1})
	add("binary-sparse", Xs, ys, Config{Epochs: 5, Seed: 1})
	add("plain-binary", Xs, ys, Config{Algorithm: Plain, Epochs: 5, Seed: 1})
	add("K=5", X5, y5, Config{Epochs: 3, Seed: 1})
	add("K=70", X70, y70, Config{Epochs: 2, Seed: 1})
	add("voted-binary", Xv, yv, Config{Algorithm: Voted, Epochs: 3, Seed: 1})
	add("voted-K=4", Xv4, yv4, Config{Algorithm: Voted, Epochs: 3, Seed: 1, InitScale: 0.1})
	add("batch-K=5", X5, y5, Config{Algorithm: Batch, Epochs: 5})
	return out
}

var (
	fxSinkF  float64
	fxSinkF3 float32
)

// TestPredictAllocs: prediction allocates nothing (after the pools have
// warmed up, for K > 64 and the voted models).
func TestPredictAllocs(t *testing.T) {
	for _, ms := range fxPredictModels(t) {
		m := ms.m
		pooled := m.NumRows() > maxStack || m.Votes != nil
		x := ms.X.Row(7)
		dense := x.Dense()
		dst := make([]float32, m.NumRows())
		for _, f := range []struct {
			name string
			fn   func()
		}{
			{"Predict", func() { fxSinkF = m.Predict(x) }},
			{"Decision", func() { fxSinkF3 = m.Decision(x) }},
			{"Scores", func() { fxSinkF3 = m.Scores(x, dst)[0] }},
			{"PredictDense", func() { fxSinkF = m.PredictDense(dense) }},
			{"DecisionDense", func() { fxSinkF3 = m.DecisionDense(dense) }},
		} {
			// AllocsPerRun warms up with one call before it counts.
			allocs := testing.AllocsPerRun(200, f.fn)
			if pooled && fxRace {
				// sync.Pool drops items at random under -race.
				t.Logf("%s %s: %v allocs per call under -race (pooled path, not checked)", ms.name, f.name, allocs)
				continue
			}
			if allocs != 0 {
				t.Errorf("%s (K=%d, voted %v): %s allocates %v times per call, want 0", ms.name, len(m.Classes), m.Votes != nil, f.name, allocs)
			}
		}
	}
}

// TestBatchEqualsRows: the batch methods give what the per-row ones do,
// for test sets narrower and wider than the model, on one goroutine and
// several.
func TestBatchEqualsRows(t *testing.T) {
	models := fxPredictModels(t)
	for _, ms := range models {
		t.Run(ms.name, func(t *testing.T) {
			m := ms.m
			for _, extra := range []int{0, 7} {
				var X *sparse.CSR
				if extra == 0 {
					X = ms.X
				} else {
					// The same rows plus features past the model's width.
					b := sparse.NewBuilder(m.Dim + extra)
					r := fxRNG(uint64(extra))
					for i := 0; i < 600; i++ {
						row := ms.X.Row(i % ms.X.Rows)
						ind := slices.Clone(row.Ind)
						val := slices.Clone(row.Val)
						if i%2 == 0 {
							ind = append(ind, int32(m.Dim+r.IntN(extra)))
							val = append(val, 3)
						}
						if err := b.Add(ind, val); err != nil {
							t.Fatal(err)
						}
					}
					X = b.Build()
				}
				for _, rows := range []int{X.Rows, 5, 0} {
					Xr := X.Slice(0, rows)
					p := m.PredictBatch(Xr, nil)
					d := m.DecisionBatch(Xr, nil)
					if len(p) != rows || len(d) != rows {
						t.Fatalf("%s: %d rows gave %d predictions, %d decisions", ms.name, rows, len(p), len(d))
					}
					for i := range rows {
						x := Xr.Row(i)
						if want := m.Decision(x); math.Float32bits(d[i]) != math.Float32bits(want) {
							t.Fatalf("%s (%d cols, model dim %d): DecisionBatch[%d] = %v, Decision = %v", ms.name, Xr.Cols, m.Dim, i, d[i], want)
						}
						if want := m.Predict(x); p[i] != want {
							t.Fatalf("%s (%d cols, model dim %d): PredictBatch[%d] = %v, Predict = %v", ms.name, Xr.Cols, m.Dim, i, p[i], want)
						}
					}
					// dst is reused when large enough.
					pd := make([]float64, rows, rows+3)
					if got := m.PredictBatch(Xr, pd); rows > 0 && &got[0] != &pd[0] {
						t.Fatalf("%s: PredictBatch did not reuse dst", ms.name)
					}
				}
			}
		})
	}
}

// TestDenseEqualsSparse: the dense forms score like the sparse forms, for
// dense rows shorter than, as long as and longer than Dim.
func TestDenseEqualsSparse(t *testing.T) {
	r := fxRNG(46)
	for _, ms := range fxPredictModels(t) {
		t.Run(ms.name, func(t *testing.T) {
			m := ms.m
			// Plain and voted models on integer rows have integer weights or
			// integer arithmetic all through: every form must agree exactly.
			exact := m.Algorithm == Plain || m.Algorithm == Batch || (m.Votes != nil && m.Votes.W0 == nil)
			for i := 0; i < 100; i++ {
				full := make([]float32, m.Dim+6)
				copy(full, ms.X.Row(i).Dense())
				for j := m.Dim; j < len(full); j++ {
					full[j] = float32(r.IntN(5) - 2)
				}
				for _, L := range []int{m.Dim - 5, m.Dim, m.Dim + 6} {
					x := full[:L]
					sx := sparse.FromDense([][]float32{x}).Row(0)
					sx.Dim = L
					ds, dd := m.Decision(sx), m.DecisionDense(x)
					ps, pd := m.Predict(sx), m.PredictDense(x)
					if exact {
						if ds != dd || ps != pd {
							t.Fatalf("%s row %d len %d: sparse %v/%v, dense %v/%v", ms.name, i, L, ds, ps, dd, pd)
						}
						continue
					}
					// The averaged weights are not integers and the kernels sum in
					// different orders.
					tol := 1e-4 * (1 + math.Abs(float64(ds)))
					if math.Abs(float64(ds-dd)) > tol {
						t.Fatalf("%s row %d len %d: Decision %v, DecisionDense %v", ms.name, i, L, ds, dd)
					}
					if ps != pd && math.Abs(float64(ds)) > tol && m.Binary() {
						t.Fatalf("%s row %d len %d: Predict %v, PredictDense %v (decision %v)", ms.name, i, L, ps, pd, ds)
					}
				}
			}
		})
	}
}

// TestScoresLayout: Scores are W_k·x + B[k] with W feature-major, and
// Decision is the largest score (the binary score for two classes).
func TestScoresLayout(t *testing.T) {
	for _, ms := range fxPredictModels(t) {
		t.Run(ms.name, func(t *testing.T) {
			m := ms.m
			if m.Votes != nil {
				return
			}
			K := m.NumRows()
			for i := 0; i < 50; i++ {
				x := ms.X.Row(i)
				s := m.Scores(x, nil)
				if len(s) != K {
					t.Fatalf("%s: %d scores for %d rows", ms.name, len(s), K)
				}
				for k := range K {
					want := float64(m.B[k])
					for q, j := range x.Ind {
						want += float64(m.W[int(j)*K+k]) * float64(x.Val[q])
						if m.Weight(k, int(j)) != m.W[int(j)*K+k] {
							t.Fatalf("%s: Weight(%d, %d) is not W[j*K+k]", ms.name, k, j)
						}
					}
					if math.Abs(float64(s[k])-want) > 1e-4*(1+math.Abs(want)) {
						t.Fatalf("%s row %d: score %d = %v, W_k·x+B_k = %v", ms.name, i, k, s[k], want)
					}
				}
				d := m.Decision(x)
				if K == 1 {
					if d != s[0] {
						t.Fatalf("%s: Decision %v, Scores %v", ms.name, d, s)
					}
					if p := m.Predict(x); (d > 0) != (p == m.Classes[1]) {
						t.Fatalf("%s: Decision %v but Predict %v", ms.name, d, p)
					}
					continue
				}
				if c := argmax(s); d != s[c] || m.Predict(x) != m.Classes[c] {
					t.Fatalf("%s: Decision %v, Predict %v; scores %v", ms.name, d, m.Predict(x), s)
				}
			}
			// An empty row scores the biases.
			e := sparse.Vector{Dim: m.Dim}
			if s := m.Scores(e, nil); !slices.Equal(s, m.B) {
				t.Fatalf("%s: empty row scores %v, biases %v", ms.name, s, m.B)
			}
		})
	}
	// Ties go to the first class.
	m := &Model{Classes: []float64{1, 2, 3}, Dim: 1, W: []float32{0, 1, 1}, B: []float32{0, 0, 0}}
	if p := m.Predict(sparse.Vector{Dim: 1, Ind: []int32{0}, Val: []float32{2}}); p != 2 {
		t.Fatalf("tie between classes 2 and 3 predicted %v, want 2", p)
	}
	if p := m.Predict(sparse.Vector{Dim: 1}); p != 1 {
		t.Fatalf("three-way tie predicted %v, want 1", p)
	}
	bm := &Model{Classes: []float64{-1, 1}, Dim: 1, W: []float32{1}, B: []float32{0}}
	if p := bm.Predict(sparse.Vector{Dim: 1}); p != -1 {
		t.Fatalf("binary decision 0 predicted %v, want the negative class", p)
	}
}

// TestConcurrentPredict: a model serves many goroutines at once, while
// training goes on elsewhere, with the serial results.
func TestConcurrentPredict(t *testing.T) {
	models := fxPredictModels(t)
	type want struct {
		p []float64
		d []float32
	}
	wants := make([]want, len(models))
	for k, ms := range models {
		n := min(ms.X.Rows, 120)
		for i := range n {
			wants[k].p = append(wants[k].p, ms.m.Predict(ms.X.Row(i)))
			wants[k].d = append(wants[k].d, ms.m.Decision(ms.X.Row(i)))
		}
	}
	rounds := 4
	if testing.Short() {
		rounds = 2
	}
	Xt, yt := fxIntMulti(47, 300, 40, 5, 6, 0.2)
	var serial *Model
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		m, _, err := Fit(context.Background(), Xt, yt, Config{Algorithm: Voted, Epochs: 3, Seed: 9})
		if err != nil {
			t.Errorf("concurrent Fit: %v", err)
			return
		}
		serial = m
	}()
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := make([]float32, 80)
			for range rounds {
				for k, ms := range models {
					for i := range wants[k].p {
						ii := (i + g) % len(wants[k].p)
						x := ms.X.Row(ii)
						if p := ms.m.Predict(x); p != wants[k].p[ii] {
							t.Errorf("goroutine %d, %s row %d: Predict %v, serially %v", g, ms.name, ii, p, wants[k].p[ii])
							return
						}
						if d := ms.m.Decision(x); math.Float32bits(d) != math.Float32bits(wants[k].d[ii]) {
							t.Errorf("goroutine %d, %s row %d: Decision %v, serially %v", g, ms.name, ii, d, wants[k].d[ii])
							return
						}
						ms.m.Scores(x, sc)
						ms.m.DecisionDense(x.Dense())
					}
				}
			}
		}()
	}
	wg.Wait()
	if serial == nil {
		t.Fatal("the concurrent Fit returned no model")
	}
	again, _ := fxFit(t, Xt, yt, Config{Algorithm: Voted, Epochs: 3, Seed: 9})
	fxSameModel(t, "Fit beside predictions vs alone", serial, again)
}

// TestCheck: trained models pass Check; broken ones fail with ErrFormat.
func TestCheck(t *testing.T) {
	models := fxPredictModels(t)
	for _, ms := range models {
		if err := ms.m.Check(); err != nil {
			t.Errorf("%s: %v", ms.name, err)
		}
	}
	base := models[3].m // K=5
	voted := models[6].m
	clone := func(m *Model) *Model {
		c := *m
		c.W, c.B, c.Classes = slices.Clone(m.W), slices.Clone(m.B), slices.Clone(m.Classes)
		if m.Votes != nil {
			v := *m.Votes
			v.Steps = slices.Clone(v.Steps)
			c.Votes = &v
		}
		return &c
	}
	for name, broke := range map[string]func(m *Model){
		"short W":             func(m *Model) { m.W = m.W[:len(m.W)-1] },
		"long W":              func(m *Model) { m.W = append(m.W, 0) },
		"short B":             func(m *Model) { m.B = m.B[:1] },
		"dim mismatch":        func(m *Model) { m.Dim++ },
		"negative dim":        func(m *Model) { m.Dim = -1 },
		"one class":           func(m *Model) { m.Classes = m.Classes[:1]; m.B = m.B[:1] },
		"classes unsorted":    func(m *Model) { m.Classes[0], m.Classes[1] = m.Classes[1], m.Classes[0] },
		"duplicate class":     func(m *Model) { m.Classes[1] = m.Classes[0] },
		"unknown algorithm":   func(m *Model) { m.Algorithm = Batch + 1 },
		"unknown bias":        func(m *Model) { m.Bias = NoBias + 1 },
		"voted without votes": func(m *Model) { m.Algorithm = Voted },
		"votes not voted":     func(m *Model) { m.Votes = voted.Votes },
	} {
		m := clone(base)
		broke(m)
		if err := m.Check(); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: Check = %v, want ErrFormat", name, err)
		}
	}
	for name, broke := range map[string]func(m *Model){
		"no SV":           func(m *Model) { m.Votes.SV = nil },
		"step row":        func(m *Model) { m.Votes.Steps[0].Row = int32(m.Votes.SV.Rows) },
		"step up":         func(m *Model) { m.Votes.Steps[0].Up = 4 },
		"step down":       func(m *Model) { m.Votes.Steps[0].Down = -1 },
		"negative count":  func(m *Model) { m.Votes.Steps[0].Count = -1 },
		"short W0":        func(m *Model) { m.Votes.W0 = m.Votes.W0[:3] },
		"W0 without B0":   func(m *Model) { m.Votes.B0 = nil },
		"SV wider":        func(m *Model) { sv := *m.Votes.SV; sv.Cols = m.Dim + 1; m.Votes.SV = &sv },
		"SV invalid":      func(m *Model) { sv := *m.Votes.SV; sv.Indptr = sv.Indptr[:1]; m.Votes.SV = &sv },
		"W resized alone": func(m *Model) { m.W = append(m.W, 0, 0, 0, 0) },
	} {
		m := clone(voted)
		broke(m)
		if err := m.Check(); !errors.Is(err, ErrFormat) {
			t.Errorf("voted, %s: Check = %v, want ErrFormat", name, err)
		}
	}
	// A hand-built binary model passes.
	hand := &Model{Classes: []float64{0, 1}, Dim: 2, W: []float32{1, -1}, B: []float32{0.5}}
	if err := hand.Check(); err != nil {
		t.Fatalf("hand-built model: %v", err)
	}
	hand.W = hand.W[:1]
	if err := hand.Check(); !errors.Is(err, ErrFormat) {
		t.Fatalf("hand-built model with one weight for dim 2: %v", err)
	}
}

// TestScoresForeignIndices: a row with features the model has never seen
// (past its width, negative, in any order) scores as if they were absent,
// never reading past the weights: the multiclass kernel reads them
// unchecked, so the model must keep such rows from it.
func TestScoresForeignIndices(t *testing.T) {
	m := &Model{Classes: []float64{1, 2, 3}, Dim: 4, B: []float32{0.5, 0, -0.5},
		W: []float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}}
	clean := m.Scores(sparse.Vector{Dim: 4, Ind: []int32{1, 3}, Val: []float32{2, -1}}, nil)
	for _, x := range []sparse.Vector{
		{Dim: 9, Ind: []int32{1, 3, 8}, Val: []float32{2, -1, 5}},
		{Dim: 9, Ind: []int32{1, 1 << 30, 3}, Val: []float32{2, 5, -1}},
		{Dim: 9, Ind: []int32{-7, 1, 3}, Val: []float32{5, 2, -1}},
		{Dim: 9, Ind: []int32{3, -(1 << 31), 1}, Val: []float32{-1, 5, 2}},
	} {
		if s := m.Scores(x, nil); !slices.Equal(s, clean) {
			t.Errorf("%v: scores %v, want %v", x.Ind, s, clean)
		}
	}
}

// TestBinaryForeignIndices: the binary model's gather kernel reads W
// unchecked too. Rows short and long (the long ones take the vector check
// of their order), with features past the width, negative or out of
// order, score as without them; W sits between guards of 1e30 that any
// stray read would show.
func TestBinaryForeignIndices(t *testing.T) {
	const dim = 64
	buf := make([]float32, 3*dim)
	for i := range buf {
		buf[i] = 1e30
	}
	W := buf[dim : 2*dim : 2*dim]
	for j := range W {
		W[j] = float32(j%5) - 2
	}
	m := &Model{Classes: []float64{0, 1}, Dim: dim, W: W, B: []float32{0.25}}
	for _, n := range []int{3, 40} {
		t.Run(fmt.Sprintf("nnz=%d", n), func(t *testing.T) {
			ind := make([]int32, n)
			val := make([]float32, n)
			for k := range ind {
				ind[k], val[k] = int32(k+1), float32(k%3)+0.5
			}
			want := m.Decision(sparse.Vector{Dim: dim, Ind: ind, Val: val})
			if want > 1e20 || want < -1e20 {
				t.Fatalf("n=%d: clean row scores %g", n, want)
			}
			with := func(pos int, j int32) sparse.Vector {
				i := slices.Insert(slices.Clone(ind), pos, j)
				v := slices.Insert(slices.Clone(val), pos, 7)
				return sparse.Vector{Dim: 1<<31 - 1, Ind: i, Val: v}
			}
			for _, x := range []sparse.Vector{
				with(0, -1),           // increasing, first negative
				with(0, -(1 << 20)),   // far below W
				with(n, dim),          // just past the width
				with(n, 1<<30),        // far past it
				with(n/2, dim+3),      // out of order, past the width
				with(n/2, -dim),       // out of order, negative
				with(n/2, int32(n/2)), // a repeat, in range: counts
			} {
				got := m.Decision(x)
				exp := want
				if j := x.Ind[n/2]; j == int32(n/2) && x.Val[n/2] == 7 {
					exp = want + 7*W[j]
				}
				if got != exp {
					t.Fatalf("n=%d, row %v: decision %g, want %g", n, x.Ind, got, exp)
				}
			}
		})
	}
}

// TestCheckNonFiniteVoteStep: a vote step whose coefficient is not finite
// (only a damaged or hand-made file has one) fails Check, linear and
// kernel alike, as a NaN weight does.
func TestCheckNonFiniteVoteStep(t *testing.T) {
	X := sparse.FromDense([][]float32{{1, 0}, {0, 1}, {-1, 0}, {0, -1}})
	y := []float64{1, 1, -1, -1}
	m, _, err := Fit(context.Background(), X, y, Config{Algorithm: Voted, NoShuffle: true})
	if err != nil || m.Check() != nil || len(m.Votes.Steps) == 0 {
		t.Fatalf("voted fit: %v", err)
	}
	m.Votes.Steps[0].A = float32(math.NaN())
	if err := m.Check(); !errors.Is(err, ErrFormat) {
		t.Fatalf("linear model with a NaN step: %v", err)
	}
	k, _, err := FitKernel(context.Background(), X, y, KernelConfig{Config: Config{Algorithm: Voted, NoShuffle: true}, Kernel: kernels.Linear{}})
	if err != nil || k.Check() != nil {
		t.Fatalf("voted kernel fit: %v", err)
	}
	k.Votes.Steps[0].A = float32(math.Inf(1))
	if err := k.Check(); !errors.Is(err, ErrFormat) {
		t.Fatalf("kernel model with an infinite step: %v", err)
	}
}
