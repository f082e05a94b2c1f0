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

// ---------------------------------------------------------------------
// 9. Prediction.

// ktModelCase is a trained kernel model and rows to predict.
type ktModelCase struct {
	name string
	m    *KernelModel
	X    *sparse.CSR
}

// ktPredictModels trains one model of each kind the prediction tests use.
func ktPredictModels(t testing.TB) []ktModelCase {
	t.Helper()
	Xd, yd := ktFloatData(111, 160, 10, 1, 2, 0.05)
	Xs, ys := ktFloatData(112, 160, 80, 0.1, 4, 0.05)
	Xi, yi := ktIntData(113, 160, 30, 5, 3, 0.1, 0)
	var out []ktModelCase
	add := func(name string, X *sparse.CSR, y []float64, cfg KernelConfig) {
		m, _ := ktFit(t, X, y, cfg)
		if m.NumSV() == 0 {
			t.Fatalf("%s: no support vectors", name)
		}
		out = append(out, ktModelCase{name, m, X})
	}
	add("rbf-averaged-binary-dense", Xd, yd, KernelConfig{Config: Config{Epochs: 4, Seed: 1}, Kernel: kernels.RBF{Gamma: 0.3}})
	add("default-rbf-K4-sparse", Xs, ys, KernelConfig{Config: Config{Epochs: 3, Seed: 1}})
	add("poly-plain-K3", Xi, yi, KernelConfig{Config: Config{Algorithm: Plain, Epochs: 3, Seed: 1}, Kernel: kernels.Poly{Degree: 2, Gamma: 0.5, Coef0: 1}})
	add("linear-binary-sparse", Xs, func() []float64 {
		z := make([]float64, len(ys))
		for i, v := range ys {
			z[i] = float64(int(v) % 2)
		}
		return z
	}(), KernelConfig{Config: Config{Epochs: 3, Seed: 1}, Kernel: kernels.Linear{}})
	add("sigmoid-binary", Xd, yd, KernelConfig{Config: Config{Epochs: 3, Seed: 1}, Kernel: kernels.Sigmoid{Gamma: 0.05}})
	add("rbf-augmented-K4", Xs, ys, KernelConfig{Config: Config{Bias: BiasAugmented, BiasScale: 2, Epochs: 3, Seed: 2}, Kernel: kernels.RBF{Gamma: 0.5}})
	add("poly-nobias-binary", Xd, yd, KernelConfig{Config: Config{Bias: NoBias, Epochs: 3, Seed: 3}, Kernel: kernels.Poly{Degree: 3, Gamma: 0.3, Coef0: 1}})
	add("voted-rbf-binary", Xd, yd, KernelConfig{Config: Config{Algorithm: Voted, Epochs: 3, Seed: 1}, Kernel: kernels.RBF{Gamma: 0.3}})
	add("voted-poly-K3", Xi, yi, KernelConfig{Config: Config{Algorithm: Voted, Epochs: 2, Seed: 1}, Kernel: kernels.Poly{Degree: 2, Gamma: 0.5, Coef0: 1}})
	return out
}

// ktRefScores returns the function values of x under m's coefficients in
// float64, with kernel values from m.Kernel directly, and for each a bound
// on float32 rounding.
func ktRefScores(m *KernelModel, x sparse.Vector) (s, tol []float64) {
	K := m.NumRows()
	s = make([]float64, K)
	tol = make([]float64, K)
	for k := range K {
		s[k] = float64(m.B[k])
		tol[k] = math.Abs(s[k])
	}
	for j := range m.NumSV() {
		kv := m.Kernel.Sparse(m.SV.Row(j), x)
		for k := range K {
			v := float64(m.Coef[j*K+k]) * kv
			s[k] += v
			tol[k] += math.Abs(v)
		}
	}
	for k := range tol {
		tol[k] = 1e-4*tol[k] + 1e-6
	}
	return s, tol
}

// ktRefVote replays m.Votes in float64 with kernel values from m.Kernel:
// the vote (binary) or shares (multiclass), and whether every running
// function stayed clear of a decision boundary by more than rounding.
func ktRefVote(m *KernelModel, x sparse.Vector) ([]float64, bool) {
	v := m.Votes
	K := m.NumRows()
	bb := 0.0
	if m.Bias != NoBias {
		bb = float64(m.BiasScale) * float64(m.BiasScale)
	}
	kx := make([]float64, m.NumSV())
	for j := range kx {
		kx[j] = m.Kernel.Sparse(m.SV.Row(j), x)
	}
	s := make([]float64, K)
	out := make([]float64, K)
	var total, scale float64
	far := true
	cast := func(count int64) {
		if count == 0 {
			return
		}
		total += float64(count)
		tol := 1e-4*scale + 1e-6
		if K == 1 {
			if math.Abs(s[0]) <= tol {
				far = false
			}
			if s[0] > 0 {
				out[0] += float64(count)
			} else {
				out[0] -= float64(count)
			}
			return
		}
		b := ktArgmax(s)
		if s[b]-s[ktBestOther(s, b)] <= tol {
			far = false
		}
		out[b] += float64(count)
	}
	// The start vector's scores are exactly 0 on every path: no rounding
	// can move them across the boundary.
	saved := far
	cast(v.Count0)
	far = saved
	for _, st := range v.Steps {
		d := float64(st.A) * (kx[st.Row] + bb)
		scale += math.Abs(d)
		s[st.Up] += d
		if st.Down >= 0 {
			s[st.Down] -= d
		}
		cast(st.Count)
	}
	for k := range out {
		out[k] /= total
	}
	return out, far
}

// ktPredictRows returns rows to predict with m: training rows; rows of
// half the model's width; rows with extra features past Dim.
func ktPredictRows(m *KernelModel, X *sparse.CSR, seed uint64) []sparse.Vector {
	r := ktRNG(seed)
	var rows []sparse.Vector
	for i := 0; i < X.Rows; i += 3 {
		rows = append(rows, X.Row(i))
	}
	for i := range 20 {
		x := X.Row(i)
		// Narrower: the features below Dim/2, in a vector of that width.
		nar := sparse.Vector{Dim: m.Dim / 2}
		for q, j := range x.Ind {
			if int(j) < nar.Dim {
				nar.Ind = append(nar.Ind, j)
				nar.Val = append(nar.Val, x.Val[q])
			}
		}
		rows = append(rows, nar)
		// Wider: one to three features past Dim.
		wide := sparse.Vector{Dim: m.Dim + 6, Ind: slices.Clone(x.Ind), Val: slices.Clone(x.Val)}
		for j := m.Dim; j < m.Dim+6; j += 1 + r.IntN(3) {
			wide.Ind = append(wide.Ind, int32(j))
			wide.Val = append(wide.Val, float32(r.IntN(5)-2)*0.5+0.25)
		}
		rows = append(rows, wide)
	}
	return rows
}

// TestKernelPredictAgrees: Predict, Decision, Scores, PredictDense,
// DecisionDense, PredictBatch and DecisionBatch agree with one another and
// with a slow float64 reference that evaluates the kernel directly, for
// rows of the model's width, narrower and wider (extra features count in
// ‖x‖² only), and dense rows shorter and longer than Dim.
func TestKernelPredictAgrees(t *testing.T) {
	for _, mc := range ktPredictModels(t) {
		t.Run(mc.name, func(t *testing.T) {
			m := mc.m
			K := m.NumRows()
			rows := ktPredictRows(m, mc.X, 7)
			for i, x := range rows {
				what := fmt.Sprintf("%s: row %d (dim %d, model %d)", mc.name, i, x.Dim, m.Dim)
				s := m.Scores(x, nil)
				d := m.Decision(x)
				p := m.Predict(x)
				if len(s) != K {
					t.Fatalf("%s: %d scores, want %d", what, len(s), K)
				}
				// The per-row methods share one computation: exact agreement.
				s64 := make([]float64, K)
				for k, v := range s {
					s64[k] = float64(v)
				}
				b := ktArgmax(s64)
				if K == 1 {
					want := m.Classes[0]
					if d > 0 {
						want = m.Classes[1]
					}
					if d != s[0] || p != want {
						t.Fatalf("%s: Decision %v, Scores %v, Predict %v disagree", what, d, s, p)
					}
				} else if d != s[b] || p != m.Classes[b] {
					t.Fatalf("%s: Decision %v, Scores %v, Predict %v disagree", what, d, s, p)
				}
				// Against the reference.
				var refLabel float64
				far := true
				if m.Votes != nil {
					want, ok := ktRefVote(m, x)
					far = ok
					if ok {
						for k := range want {
							if math.Abs(float64(s[k])-want[k]) > 1e-6 {
								t.Fatalf("%s: vote %v, reference %v", what, s, want)
							}
						}
					}
					if K == 1 {
						refLabel = m.Classes[0]
						if want[0] > 0 {
							refLabel = m.Classes[1]
						}
					} else {
						refLabel = m.Classes[ktArgmax(want)]
						wb := ktArgmax(want)
						if want[wb] == want[ktBestOther(want, wb)] {
							far = false
						}
					}
				} else {
					want, tol := ktRefScores(m, x)
					for k := range want {
						if math.Abs(float64(s[k])-want[k]) > tol[k] {
							t.Fatalf("%s: score %d = %v, reference %v (tolerance %v)", what, k, s[k], want[k], tol[k])
						}
					}
					if K == 1 {
						refLabel = m.Classes[0]
						if want[0] > 0 {
							refLabel = m.Classes[1]
						}
						far = math.Abs(want[0]) > tol[0]
					} else {
						wb := ktArgmax(want)
						o := ktBestOther(want, wb)
						refLabel = m.Classes[wb]
						far = want[wb]-want[o] > tol[wb]+tol[o]
					}
				}
				if far && p != refLabel {
					t.Fatalf("%s: Predict %v, reference %v", what, p, refLabel)
				}
				// Dense rows: the same row at its width, cut short, and longer.
				dense := x.Dense()
				for _, dx := range []struct {
					name string
					row  []float32
				}{
					{"dense", dense},
					{"dense-short", dense[:min(len(dense), m.Dim-3)]},
					{"dense-long", append(slices.Clone(dense), 0, 1.5, 0, -0.5)},
				} {
					xs := sparse.Vector{Dim: len(dx.row)}
					for j, v := range dx.row {
						if v != 0 {
							xs.Ind = append(xs.Ind, int32(j))
							xs.Val = append(xs.Val, v)
						}
					}
					ds := m.Scores(xs, nil)
					dd, dp := m.DecisionDense(dx.row), m.PredictDense(dx.row)
					sd, sp := m.Decision(xs), m.Predict(xs)
					tolD := 1e-5 * (1 + math.Abs(float64(sd)))
					if m.Votes != nil {
						if _, ok := ktRefVote(m, xs); !ok {
							continue // a running function near 0: dense and sparse rounding may vote differently
						}
					} else {
						_, tol := ktRefScores(m, xs)
						tolD = tol[0]
						for _, v := range tol {
							tolD = max(tolD, v)
						}
					}
					if math.Abs(float64(dd-sd)) > tolD {
						t.Fatalf("%s %s: DecisionDense %v, Decision of the sparse row %v", what, dx.name, dd, sd)
					}
					if dp != sp {
						gap := math.Abs(float64(sd))
						if K > 1 {
							s64 := make([]float64, K)
							for k, v := range ds {
								s64[k] = float64(v)
							}
							b := ktArgmax(s64)
							gap = s64[b] - s64[ktBestOther(s64, b)]
						}
						if gap > 2*tolD {
							t.Fatalf("%s %s: PredictDense %v, Predict of the sparse row %v (scores %v)", what, dx.name, dp, sp, ds)
						}
					}
				}
			}
			// The batch methods, over the same rows gathered into matrices of
			// one width each.
			byDim := map[int][]sparse.Vector{}
			for _, x := range rows {
				byDim[x.Dim] = append(byDim[x.Dim], x)
			}
			for dim, xs := range byDim {
				b := sparse.NewBuilder(dim)
				for _, x := range xs {
					if err := b.Add(x.Ind, x.Val); err != nil {
						t.Fatal(err)
					}
				}
				B := b.Build()
				B.Cols = dim
				pb := m.PredictBatch(B, nil)
				db := m.DecisionBatch(B, make([]float32, 3))
				if len(pb) != len(xs) || len(db) != len(xs) {
					t.Fatalf("%s: batch of %d rows gave %d labels and %d decisions", mc.name, len(xs), len(pb), len(db))
				}
				for i, x := range xs {
					d, p := m.Decision(x), m.Predict(x)
					tol := 1e-5 * (1 + math.Abs(float64(d)))
					if m.Votes != nil {
						if _, ok := ktRefVote(m, x); !ok {
							continue
						}
					} else {
						_, tl := ktRefScores(m, x)
						tol = slices.Max(tl)
					}
					if math.Abs(float64(db[i]-d)) > tol {
						t.Fatalf("%s: batch (width %d) row %d: DecisionBatch %v, Decision %v", mc.name, dim, i, db[i], d)
					}
					if K == 1 {
						want := m.Classes[0]
						if db[i] > 0 {
							want = m.Classes[1]
						}
						if pb[i] != want {
							t.Fatalf("%s: batch row %d: PredictBatch %v but DecisionBatch %v", mc.name, i, pb[i], db[i])
						}
					}
					if pb[i] != p {
						s := m.Scores(x, nil)
						gap := math.Abs(float64(d))
						if K > 1 {
							s64 := make([]float64, K)
							for k, v := range s {
								s64[k] = float64(v)
							}
							b := ktArgmax(s64)
							gap = s64[b] - s64[ktBestOther(s64, b)]
						}
						if gap > 2*tol {
							t.Fatalf("%s: batch (width %d) row %d: PredictBatch %v, Predict %v (scores %v)", mc.name, dim, i, pb[i], p, s)
						}
					}
				}
			}
		})
	}
}

// TestKernelPredictHandBuilt: models built by hand whose support vectors
// use only the first 3 of Dim = 10 features predict, on rows that use all
// 10 (and 12), what a direct evaluation of the kernel says: the features
// the support vectors lack still count in ‖x‖². Empty rows and batches
// work too.
func TestKernelPredictHandBuilt(t *testing.T) {
	sv := sparse.FromDense([][]float32{{1, 0, 2}, {0, -1, 0.5}, {3, 1, 0}})
	sv.Cols = 10
	models := []*KernelModel{
		{Kernel: kernels.RBF{Gamma: 0.2}, Algorithm: Plain, Classes: []float64{-1, 1}, Dim: 10, SV: sv,
			Coef: []float32{1, -0.5, 0.75}, B: []float32{0.1}},
		{Kernel: kernels.Poly{Degree: 2, Coef0: 1}, Classes: []float64{1, 2, 3}, Dim: 10, SV: sv,
			Coef: []float32{1, -1, 0, 0.5, 0.25, -0.75, -1, 0, 1}, B: []float32{0, 0.5, -0.5}},
		{Kernel: kernels.Sigmoid{Gamma: 0.3, Coef0: -0.2}, Bias: NoBias, Classes: []float64{0, 1}, Dim: 10, SV: sv,
			Coef: []float32{0.5, 1, -1}, B: []float32{0}},
		{Kernel: kernels.RBF{Gamma: 0.2}, Algorithm: Voted, BiasScale: 1, Classes: []float64{0, 1}, Dim: 10, SV: sv,
			Coef: []float32{0.2, -0.1, 0.3}, B: []float32{0.05}, Votes: &Votes{SV: sv, Count0: 1, Steps: []VoteStep{
				{Row: 0, Up: 0, Down: -1, A: 1, Count: 3}, {Row: 1, Up: 0, Down: -1, A: -1, Count: 2}, {Row: 2, Up: 0, Down: -1, A: -1, Count: 5}}}},
		{Kernel: kernels.Linear{}, Algorithm: Voted, BiasScale: 2, Bias: BiasAugmented, Classes: []float64{5, 6, 7}, Dim: 10, SV: sv,
			Coef: make([]float32, 9), B: make([]float32, 3), Votes: &Votes{SV: sv, Steps: []VoteStep{
				{Row: 0, Up: 0, Down: 1, A: 1, Count: 4}, {Row: 2, Up: 2, Down: 0, A: 1, Count: 1}, {Row: 1, Up: 1, Down: 2, A: 1, Count: 3}}}},
	}
	r := ktRNG(126)
	var rows []sparse.Vector
	for i := range 40 {
		x := sparse.Vector{Dim: 10 + 2*(i%2)}
		for j := range x.Dim {
			if r.IntN(3) > 0 {
				x.Ind = append(x.Ind, int32(j))
				x.Val = append(x.Val, float32(2*r.Float64()-1))
			}
		}
		rows = append(rows, x)
	}
	rows = append(rows, sparse.Vector{Dim: 10}, sparse.Vector{Dim: 10, Ind: []int32{9}, Val: []float32{2}})
	for mi, m := range models {
		t.Run(fmt.Sprintf("model-%d", mi), func(t *testing.T) {
			if err := m.Check(); err != nil {
				t.Fatalf("model %d: Check: %v", mi, err)
			}
			K := m.NumRows()
			checked := 0
			for i, x := range rows {
				what := fmt.Sprintf("model %d (%s, %v) row %d", mi, m.Kernel, m.Algorithm, i)
				s := m.Scores(x, nil)
				if m.Votes != nil {
					want, ok := ktRefVote(m, x)
					if !ok {
						continue
					}
					checked++
					for k := range want {
						if math.Abs(float64(s[k])-want[k]) > 1e-6 {
							t.Fatalf("%s: vote %v, reference %v", what, s, want)
						}
					}
				} else {
					checked++
					want, tol := ktRefScores(m, x)
					for k := range want {
						if math.Abs(float64(s[k])-want[k]) > tol[k] {
							t.Fatalf("%s: scores %v, reference %v", what, s, want)
						}
					}
				}
				d := m.Decision(x)
				if dd := m.DecisionDense(x.Dense()); math.Abs(float64(dd-d)) > 1e-5*(1+math.Abs(float64(d))) {
					t.Fatalf("%s: DecisionDense %v, Decision %v", what, dd, d)
				}
				if K == 1 && d != s[0] {
					t.Fatalf("%s: Decision %v, Scores %v", what, d, s)
				}
			}
			if checked < len(rows)/2 {
				t.Errorf("model %d: only %d of %d rows clear of a tie", mi, checked, len(rows))
			}
			if d0, de := m.DecisionDense(nil), m.Decision(sparse.Vector{}); d0 != de {
				t.Errorf("model %d: empty dense row %v, empty sparse row %v", mi, d0, de)
			}
			if p := m.PredictBatch(&sparse.CSR{Cols: 10, Indptr: []int64{0}}, nil); len(p) != 0 {
				t.Errorf("model %d: PredictBatch of no rows gave %v", mi, p)
			}
			for _, dim := range []int{10, 12} {
				b := sparse.NewBuilder(dim)
				var xs []sparse.Vector
				for _, x := range rows {
					if x.Dim == dim {
						b.Add(x.Ind, x.Val)
						xs = append(xs, x)
					}
				}
				B := b.Build()
				B.Cols = dim
				db := m.DecisionBatch(B, nil)
				for i, x := range xs {
					if d := m.Decision(x); math.Abs(float64(db[i]-d)) > 1e-5*(1+math.Abs(float64(d))) {
						if _, ok := ktRefVote(m, x); m.Votes == nil || ok {
							t.Fatalf("model %d width %d row %d: DecisionBatch %v, Decision %v", mi, dim, i, db[i], d)
						}
					}
				}
			}
		})
	}
}

var (
	ktSinkF  float64
	ktSinkF3 float32
)

// TestKernelPredictAllocs: with the built-in kernels, prediction allocates
// nothing once its pool is warm.
func TestKernelPredictAllocs(t *testing.T) {
	if ktRace {
		t.Skip("sync.Pool drops items at random under -race; the kernel model's scratch is pooled")
	}
	for _, mc := range ktPredictModels(t) {
		m := mc.m
		x := mc.X.Row(5)
		dense := x.Dense()
		short := dense[:m.Dim/2]
		long := append(slices.Clone(dense), 1, 2)
		dst := make([]float32, m.NumRows())
		for _, f := range []struct {
			name string
			fn   func()
		}{
			{"Predict", func() { ktSinkF = m.Predict(x) }},
			{"Decision", func() { ktSinkF3 = m.Decision(x) }},
			{"Scores", func() { ktSinkF3 = m.Scores(x, dst)[0] }},
			{"PredictDense", func() { ktSinkF = m.PredictDense(dense) }},
			{"PredictDense-short", func() { ktSinkF = m.PredictDense(short) }},
			{"PredictDense-long", func() { ktSinkF = m.PredictDense(long) }},
			{"DecisionDense", func() { ktSinkF3 = m.DecisionDense(dense) }},
		} {
			if a := testing.AllocsPerRun(100, f.fn); a != 0 {
				t.Errorf("%s: %s allocates %v times per call, want 0", mc.name, f.name, a)
			}
		}
	}
}

// ktRace reports whether the test binary was built with -race (sync.Pool
// then drops a random share of what is put into it, by design).
var ktRace = func() bool {
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

// TestKernelConcurrentPredict: many goroutines predict with fresh models
// (their first use races to prepare them) while another goroutine trains
// a different model; every answer must be the one a lone goroutine gets.
// Run with -race.
func TestKernelConcurrentPredict(t *testing.T) {
	Xd, yd := ktFloatData(121, 150, 10, 1, 2, 0.05)
	X4, y4 := ktFloatData(122, 150, 40, 0.2, 4, 0.05)
	cfgs := []struct {
		X   *sparse.CSR
		y   []float64
		cfg KernelConfig
	}{
		{Xd, yd, KernelConfig{Config: Config{Epochs: 3, Seed: 1}, Kernel: kernels.RBF{Gamma: 0.3}}},
		{X4, y4, KernelConfig{Config: Config{Epochs: 3, Seed: 1}, Kernel: kernels.Poly{Degree: 2, Gamma: 0.5, Coef0: 1}}},
		{Xd, yd, KernelConfig{Config: Config{Algorithm: Voted, Epochs: 2, Seed: 1}, Kernel: kernels.RBF{Gamma: 0.3}}},
	}
	type want struct {
		p  []float64
		d  []float32
		pd []float64
		pb []float64
	}
	var fresh []*KernelModel
	var wants []want
	for _, c := range cfgs {
		ref, _ := ktFit(t, c.X, c.y, c.cfg)
		m, _ := ktFit(t, c.X, c.y, c.cfg)
		fresh = append(fresh, m)
		var w want
		for i := range c.X.Rows {
			x := c.X.Row(i)
			w.p = append(w.p, ref.Predict(x))
			w.d = append(w.d, ref.Decision(x))
			w.pd = append(w.pd, ref.PredictDense(x.Dense()))
		}
		w.pb = ref.PredictBatch(c.X, nil)
		wants = append(wants, w)
	}
	Xt, yt := ktFloatData(123, 200, 12, 1, 3, 0.1)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 2 {
			m, _, err := FitKernel(context.Background(), Xt, yt, KernelConfig{Config: Config{Epochs: 3}, Kernel: kernels.RBF{Gamma: 0.2}})
			if err != nil || m.NumSV() == 0 {
				errs <- fmt.Errorf("training beside prediction: %v", err)
			}
		}
	}()
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for mi, m := range fresh {
				X := cfgs[mi].X
				w := wants[mi]
				for rep := range 2 {
					for i := (g + rep) % 3; i < X.Rows; i += 3 {
						x := X.Row(i)
						if p, d, pd := m.Predict(x), m.Decision(x), m.PredictDense(x.Dense()); p != w.p[i] || math.Float32bits(d) != math.Float32bits(w.d[i]) || pd != w.pd[i] {
							errs <- fmt.Errorf("model %d row %d: goroutine %d got %v %v %v, alone %v %v %v", mi, i, g, p, d, pd, w.p[i], w.d[i], w.pd[i])
							return
						}
					}
				}
				if g%4 == 0 {
					if pb := m.PredictBatch(X, nil); !slices.Equal(pb, w.pb) {
						errs <- fmt.Errorf("model %d: PredictBatch differs under concurrency", mi)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestKernelZeroSupportVectors: a model without support vectors (built by
// hand, or returned by a training cancelled before it began) predicts from
// its bias alone on every path.
func TestKernelZeroSupportVectors(t *testing.T) {
	empty := func(dim int) *sparse.CSR { return &sparse.CSR{Cols: dim, Indptr: []int64{0}} }
	X := sparse.FromDense([][]float32{{1, 2, 3}, {0, 0, 0}, {-1, 0, 4}})
	X.Cols = 3
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cancelled, _, err := FitKernel(ctx, X, []float64{1, 2, 3}, KernelConfig{Kernel: kernels.RBF{Gamma: 1}})
	if !errors.Is(err, context.Canceled) || cancelled == nil {
		t.Fatalf("cancelled training: %v", err)
	}
	for _, c := range []struct {
		name  string
		m     *KernelModel
		label float64
		dec   float32
	}{
		{"binary-positive-bias", &KernelModel{Kernel: kernels.RBF{Gamma: 1}, Classes: []float64{-1, 1}, Dim: 3, SV: empty(3), B: []float32{0.5}}, 1, 0.5},
		{"binary-negative-bias", &KernelModel{Kernel: kernels.Linear{}, Classes: []float64{-1, 1}, Dim: 3, SV: empty(3), B: []float32{-2}}, -1, -2},
		{"K3", &KernelModel{Kernel: kernels.Poly{Degree: 2}, Classes: []float64{4, 5, 6}, Dim: 3, SV: empty(3), B: []float32{0, 3, 1}}, 5, 3},
		{"voted-binary", func() *KernelModel {
			sv := empty(3)
			return &KernelModel{Kernel: kernels.RBF{}, Algorithm: Voted, Classes: []float64{0, 1}, Dim: 3, SV: sv, B: []float32{0}, Votes: &Votes{SV: sv, Count0: 10}}
		}(), 0, -1},
		{"cancelled-K3", cancelled, 1, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := c.m.Check(); err != nil {
				t.Fatalf("%s: Check: %v", c.name, err)
			}
			if c.m.NumSV() != 0 {
				t.Fatalf("%s: %d support vectors", c.name, c.m.NumSV())
			}
			for i := range X.Rows {
				x := X.Row(i)
				if p, d := c.m.Predict(x), c.m.Decision(x); p != c.label || d != c.dec {
					t.Fatalf("%s: row %d: Predict %v Decision %v, want %v %v", c.name, i, p, d, c.label, c.dec)
				}
				if p, d := c.m.PredictDense(x.Dense()), c.m.DecisionDense(x.Dense()[:1]); p != c.label || d != c.dec {
					t.Fatalf("%s: row %d dense: Predict %v Decision %v, want %v %v", c.name, i, p, d, c.label, c.dec)
				}
				if s := c.m.Scores(x, nil); len(s) != c.m.NumRows() {
					t.Fatalf("%s: %d scores", c.name, len(s))
				}
			}
			for _, p := range c.m.PredictBatch(X, nil) {
				if p != c.label {
					t.Fatalf("%s: PredictBatch %v, want %v", c.name, p, c.label)
				}
			}
			for _, d := range c.m.DecisionBatch(X, nil) {
				if d != c.dec {
					t.Fatalf("%s: DecisionBatch %v, want %v", c.name, d, c.dec)
				}
			}
		})
	}
	// Class weights of 0 make no update at all: no support vector, every
	// example (the epochs left after the first included) counted for the
	// zero start of the voted perceptron.
	Xw, yw := ktFloatData(125, 40, 5, 1, 2, 0)
	for _, alg := range []Algorithm{Averaged, Plain, Voted} {
		t.Run(alg.String(), func(t *testing.T) {
			mw, stats := ktFit(t, Xw, yw, KernelConfig{Config: Config{Algorithm: alg, Epochs: 5, ClassWeight: map[float64]float64{0: 0, 1: 0}}})
			if mw.NumSV() != 0 || len(stats) != 1 || stats[0].Updates != 0 || stats[0].Mistakes != Xw.Rows {
				t.Fatalf("%v with zero class weights: %d support vectors, stats %+v", alg, mw.NumSV(), stats)
			}
			if alg == Voted && (mw.Votes.Count0 != int64(5*Xw.Rows) || len(mw.Votes.Steps) != 0) {
				t.Errorf("voted with zero class weights: Count0 %d, %d steps; want %d, 0", mw.Votes.Count0, len(mw.Votes.Steps), 5*Xw.Rows)
			}
			if p := mw.Predict(Xw.Row(0)); p != 0 {
				t.Errorf("%v with zero class weights predicts %v", alg, p)
			}
		})
	}
	// A model whose SV is nil altogether.
	m := &KernelModel{Kernel: kernels.RBF{Gamma: 1}, Classes: []float64{0, 1}, Dim: 3, B: []float32{1}}
	if p := m.Predict(X.Row(0)); p != 1 {
		t.Errorf("nil SV: Predict %v", p)
	}
	if p := m.PredictBatch(X, nil); !slices.Equal(p, []float64{1, 1, 1}) {
		t.Errorf("nil SV: PredictBatch %v", p)
	}
}
