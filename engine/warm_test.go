package engine

import (
	"bytes"
	"context"
	"errors"
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/hyperplane-ml/hyperplane/dense"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// fxDenseW returns m's weights over all Dim features (m.Cols expanded).
func fxDenseW(m *Model) []float32 {
	K := m.NumRows()
	w := make([]float32, m.Dim*K)
	for j := range m.Dim {
		for k := range K {
			w[j*K+k] = m.Weight(k, j)
		}
	}
	return w
}

// fxSameWeights fails unless a and b have bit-identical weights (in
// either layout) and biases.
func fxSameWeights(t testing.TB, what string, a, b *Model) {
	t.Helper()
	wa, wb := fxDenseW(a), fxDenseW(b)
	if len(wa) != len(wb) || len(a.B) != len(b.B) {
		t.Fatalf("%s: %d/%d weights, %d/%d biases", what, len(wa), len(wb), len(a.B), len(b.B))
	}
	for i := range wa {
		if math.Float32bits(wa[i]) != math.Float32bits(wb[i]) {
			t.Fatalf("%s: W[%d] = %v vs %v (not bit-identical)", what, i, wa[i], wb[i])
		}
	}
	for i := range a.B {
		if math.Float32bits(a.B[i]) != math.Float32bits(b.B[i]) {
			t.Fatalf("%s: B[%d] = %v vs %v (not bit-identical)", what, i, a.B[i], b.B[i])
		}
	}
}

// fxZeroMix returns the state of no training for classes and dim.
func fxZeroMix(classes []float64, dim int) *Mix {
	K := weightRows(classes)
	return &Mix{Classes: classes, Dim: dim, W: make([]float32, dim*K), B: make([]float32, K)}
}

// A warm start from zero weights trains exactly as a cold start: Fit
// (sequential, with workers, dense rows), FitCache and a Learner.
func TestWarmZeroIsCold(t *testing.T) {
	Xb, yb := fxIntBinary(3, 400, 60, 8, 0.1)
	Xm, ym := fxIntMulti(4, 500, 80, 9, 4, 0.1)
	for _, tc := range []struct {
		name string
		X    *sparse.CSR
		y    []float64
	}{{"binary", Xb, yb}, {"multiclass", Xm, ym}} {
		classes, _ := classesOf(tc.y, 1024)
		for _, cfg := range []Config{
			{Epochs: 4},
			{Epochs: 4, Algorithm: Plain},
			{Epochs: 4, Workers: 3},
			{Epochs: 4, Workers: 2, Algorithm: Plain, Normalize: true},
			{Epochs: 3, Rule: PA1, Validation: 0.2},
			{Epochs: 3, Algorithm: Batch},
		} {
			cold, _ := fxFit(t, tc.X, tc.y, cfg)
			cfg.Warm = fxZeroMix(classes, tc.X.Cols)
			warm, _ := fxFit(t, tc.X, tc.y, cfg)
			fxSameModel(t, tc.name, cold, warm)
		}
		for _, cfg := range []Config{{Seed: 5}, {Algorithm: Plain, Rule: PA2}} {
			l1, err := NewLearner(classes, tc.X.Cols, cfg)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Warm = fxZeroMix(classes, tc.X.Cols)
			l2, err := NewLearner(classes, tc.X.Cols, cfg)
			if err != nil {
				t.Fatal(err)
			}
			for range 2 {
				if _, err := l1.PartialFit(context.Background(), tc.X, tc.y); err != nil {
					t.Fatal(err)
				}
				if _, err := l2.PartialFit(context.Background(), tc.X, tc.y); err != nil {
					t.Fatal(err)
				}
			}
			fxSameModel(t, tc.name+" learner", l1.Model(), l2.Model())
		}
	}
}

// fxShardEpochs is parameter mixing through Mix: every epoch, P learners
// start from the mixed state's weights, each learns its contiguous shard
// of the rows in order (NoShuffle), and the driver merges their states
// (as deltas when delta is set, through the binary form when wire is).
func fxShardEpochs(t *testing.T, X *sparse.CSR, y []float64, cfg Config, P, epochs int, delta, wire bool) *Mix {
	t.Helper()
	classes, _ := classesOf(y, 1024)
	state := fxZeroMix(classes, X.Cols)
	n := X.Rows
	for range epochs {
		start := &Mix{Classes: state.Classes, Dim: state.Dim, W: state.W, B: state.B}
		shards := make([]*Mix, P)
		for k := range P {
			lo, hi := k*n/P, (k+1)*n/P
			l, err := NewLearnerFrom(start, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := l.PartialFit(context.Background(), X.Slice(lo, hi), y[lo:hi]); err != nil {
				t.Fatal(err)
			}
			m, err := l.Mix()
			if err != nil {
				t.Fatal(err)
			}
			if delta {
				if m, err = m.Delta(start); err != nil {
					t.Fatal(err)
				}
			}
			if wire {
				var buf bytes.Buffer
				if _, err := m.WriteTo(&buf); err != nil {
					t.Fatal(err)
				}
				if m, err = ReadMix(&buf, 0); err != nil {
					t.Fatal(err)
				}
			}
			shards[k] = m
		}
		if err := state.Merge(shards); err != nil {
			t.Fatal(err)
		}
	}
	return state
}

// Mixing shard states through Mix (dense, as deltas, through the binary
// form) gives Fit's model with Workers: P bit for bit, for the same
// shards in the same order.
func TestMergeIsFitWorkers(t *testing.T) {
	Xb, yb := fxIntBinary(7, 1003, 70, 8, 0.15)
	Xm, ym := fxIntMulti(8, 901, 90, 9, 5, 0.15)
	for _, tc := range []struct {
		name string
		X    *sparse.CSR
		y    []float64
	}{{"binary", Xb, yb}, {"multiclass", Xm, ym}} {
		for _, cfg := range []Config{
			{NoShuffle: true},
			{NoShuffle: true, Algorithm: Plain},
			{NoShuffle: true, Rule: PA1, Normalize: true},
			{NoShuffle: true, Margin: 0.5, LearningRate: 0.3, Bias: BiasAugmented, BiasScale: 2},
		} {
			for _, P := range []int{2, 3} {
				const epochs = 4
				fc := cfg
				fc.Workers, fc.Epochs = P, epochs
				want, stats := fxFit(t, tc.X, tc.y, fc)
				if len(stats) != epochs {
					t.Fatalf("%s: Fit stopped after %d epochs; the test needs updates in every one", tc.name, len(stats))
				}
				for _, mode := range []struct{ delta, wire bool }{{false, false}, {true, false}, {true, true}, {false, true}} {
					state := fxShardEpochs(t, tc.X, tc.y, cfg, P, epochs, mode.delta, mode.wire)
					got, err := state.Model(cfg)
					if err != nil {
						t.Fatal(err)
					}
					fxSameWeights(t, tc.name, want, got)
					if state.Updates == 0 {
						t.Fatalf("%s: no updates counted in the last epoch", tc.name)
					}
				}
			}
		}
	}
}

// The same holds on the interleaved layout of a wide binary averaged
// learner.
func TestMergeIsFitWorkersInterleaved(t *testing.T) {
	defer func(v int) { interleaveBytes = v }(interleaveBytes)
	interleaveBytes = 64
	X, y := fxIntBinary(9, 600, 300, 10, 0.1)
	want, _ := fxFit(t, X, y, Config{NoShuffle: true, Workers: 2, Epochs: 3})
	state := fxShardEpochs(t, X, y, Config{NoShuffle: true}, 2, 3, true, false)
	got, err := state.Model(Config{})
	if err != nil {
		t.Fatal(err)
	}
	fxSameWeights(t, "interleaved", want, got)
}

// Fit from a state continues it: with Workers, two fits of 2 and 3
// epochs from the state the first left give the model of one fit of 5
// epochs (NoShuffle), as they mix through the same history.
func TestWarmContinuesWorkers(t *testing.T) {
	X, y := fxIntMulti(11, 700, 60, 8, 3, 0.1)
	want, _ := fxFit(t, X, y, Config{NoShuffle: true, Workers: 2, Epochs: 5})
	state := fxShardEpochs(t, X, y, Config{NoShuffle: true}, 2, 2, false, false)
	got, _ := fxFit(t, X, y, Config{NoShuffle: true, Workers: 2, Epochs: 3, Warm: state})
	fxSameWeights(t, "continued", want, got)
}

// A sequential learner's state continues as the learner would: the model
// of a learner started from another's Mix after its passes is that of
// the other after the same passes (NoShuffle), to rounding.
func TestWarmContinuesLearner(t *testing.T) {
	X, y := fxIntBinary(12, 500, 50, 7, 0.1)
	classes, _ := classesOf(y, 1024)
	cfg := Config{NoShuffle: true}
	a, _ := NewLearner(classes, X.Cols, cfg)
	for range 2 {
		a.PartialFit(context.Background(), X, y)
	}
	m, err := a.Mix()
	if err != nil {
		t.Fatal(err)
	}
	if m.N != 2*float64(X.Rows) || m.U == nil {
		t.Fatalf("Mix of a learner after 2 passes: N %v, U nil %v", m.N, m.U == nil)
	}
	// The Mix's model is the learner's, bit for bit.
	mm, err := m.Model(cfg)
	if err != nil {
		t.Fatal(err)
	}
	fxSameModel(t, "Mix.Model", a.Model(), mm)
	b, err := NewLearnerFrom(m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	a.PartialFit(context.Background(), X, y)
	b.PartialFit(context.Background(), X, y)
	wa, wb := a.Model(), b.Model()
	for i := range wa.W {
		if d := math.Abs(float64(wa.W[i] - wb.W[i])); d > 1e-5*(1+math.Abs(float64(wa.W[i]))) {
			t.Fatalf("W[%d] = %v continued, %v without a break", i, wb.W[i], wa.W[i])
		}
	}
	// Training does not change the start state.
	m2, _ := NewLearnerFrom(m, cfg)
	m3, _ := m2.Mix()
	if !slices.Equal(m3.W, m.W) {
		t.Fatal("a learner's start changed its Mix")
	}
}

// A delta lists only the features a shard changed; Merge reads it as the
// dense state.
func TestMixDelta(t *testing.T) {
	X, y := fxIntBinary(13, 200, 1000, 5, 0.1)
	classes, _ := classesOf(y, 1024)
	base := fxZeroMix(classes, 1000)
	l, _ := NewLearnerFrom(base, Config{})
	l.PartialFit(context.Background(), X.Slice(0, 20), y[:20])
	m, _ := l.Mix()
	d, err := m.Delta(base)
	if err != nil {
		t.Fatal(err)
	}
	used := map[int32]bool{}
	for i := range 20 {
		for _, j := range X.Row(i).Ind {
			used[j] = true
		}
	}
	if len(d.Features) == 0 || len(d.Features) > len(used) {
		t.Fatalf("delta lists %d features; the 20 rows use %d", len(d.Features), len(used))
	}
	for p, j := range d.Features {
		if !used[j] || d.W[p] != m.W[j] {
			t.Fatalf("feature %d in the delta: used %v, weight %v vs %v", j, used[j], d.W[p], m.W[j])
		}
	}
	var db, mb bytes.Buffer
	d.WriteTo(&db)
	m.WriteTo(&mb)
	if db.Len()*5 > mb.Len() {
		t.Fatalf("delta of %d bytes, dense %d", db.Len(), mb.Len())
	}
	if _, err := d.Delta(base); !errors.Is(err, ErrConfig) {
		t.Fatalf("Delta of a delta: %v", err)
	}
}

// PartialFitCache makes FitCache's epochs: two calls from the learner's
// seed give FitCache's model of two epochs, bit for bit, over a file of
// more blocks than a window (streamed) and of fewer (resident); a warm
// start from zero weights changes nothing.
func TestPartialFitCache(t *testing.T) {
	X, y := fxIntMulti(21, 3000, 120, 10, 3, 0.1)
	for _, block := range []int{4 << 10, 64 << 10} {
		c, _ := fxCache(t, X, y, block)
		for _, cfg := range []Config{{Seed: 3, Epochs: 2}, {Seed: 4, Epochs: 2, Algorithm: Plain, Rule: PA1, Normalize: true}} {
			want, stats, err := FitCache(context.Background(), c, cfg)
			if err != nil || len(stats) != 2 {
				t.Fatalf("FitCache: %v (%d epochs)", err, len(stats))
			}
			cfg.Warm = fxZeroMix(c.Labels(), c.Cols())
			warm, _, err := FitCache(context.Background(), c, cfg)
			if err != nil {
				t.Fatal(err)
			}
			fxSameModel(t, "warm FitCache", want, warm)
			l, err := NewLearnerFrom(cfg.Warm, cfg)
			if err != nil {
				t.Fatal(err)
			}
			for e := range 2 {
				es, err := l.PartialFitCache(context.Background(), c)
				if err != nil || es.Rows != X.Rows || es.Epoch != e+1 {
					t.Fatalf("PartialFitCache: %+v, %v", es, err)
				}
			}
			fxSameModel(t, "PartialFitCache", want, l.Model())
			m, _ := l.Mix()
			if m.N != 2*float64(X.Rows) || m.Updates == 0 {
				t.Fatalf("Mix after two passes: N %v, Updates %d", m.N, m.Updates)
			}
		}
	}
}

// Warm starts that cannot be honoured are errors, before training.
func TestWarmErrors(t *testing.T) {
	X, y := fxIntBinary(22, 100, 20, 5, 0)
	good := fxZeroMix([]float64{-1, 1}, 20)
	for _, tc := range []struct {
		name string
		warm *Mix
		cfg  Config
		want error
	}{
		{"narrower", fxZeroMix([]float64{-1, 1}, 10), Config{}, ErrDim},
		{"other classes", fxZeroMix([]float64{2, 3}, 20), Config{}, ErrLabels},
		{"short W", &Mix{Classes: []float64{-1, 1}, Dim: 20, W: make([]float32, 3), B: []float32{0}}, Config{}, ErrConfig},
		{"NaN weight", &Mix{Classes: []float64{-1, 1}, Dim: 1, W: []float32{float32(math.NaN())}, B: []float32{0}}, Config{}, ErrDiverged},
		{"voted", good, Config{Algorithm: Voted}, ErrConfig},
		{"pegasos", good, Config{Rule: Pegasos}, ErrConfig},
		{"init scale", good, Config{InitScale: 0.1}, ErrConfig},
		{"delta", &Mix{Classes: []float64{-1, 1}, Dim: 20, Features: []int32{}, W: []float32{}, B: []float32{0}}, Config{}, ErrConfig},
		{"examples without accumulators", &Mix{Classes: []float64{-1, 1}, Dim: 20, W: make([]float32, 20), B: []float32{0}, N: 5}, Config{}, ErrConfig},
	} {
		cfg := tc.cfg
		cfg.Warm = tc.warm
		if _, _, err := Fit(context.Background(), X, y, cfg); !errors.Is(err, tc.want) {
			t.Errorf("%s: Fit: %v, want %v", tc.name, err, tc.want)
		}
	}
	if _, err := NewLearner([]float64{-1, 0, 1}, 20, Config{Warm: good}); !errors.Is(err, ErrLabels) {
		t.Errorf("learner of other classes: %v", err)
	}
	// Merge refuses shards of another shape, and a shard count of zero.
	st := fxZeroMix([]float64{0, 1}, 20)
	if err := st.Merge([]*Mix{fxZeroMix([]float64{0, 1}, 21)}); !errors.Is(err, ErrDim) {
		t.Errorf("Merge of another width: %v", err)
	}
	if err := st.Merge([]*Mix{fxZeroMix([]float64{0, 1}, 20)}); !errors.Is(err, ErrNoData) {
		t.Errorf("Merge of shards without examples: %v", err)
	}
	if err := st.Merge(nil); !errors.Is(err, ErrNoData) {
		t.Errorf("Merge of no shard: %v", err)
	}
}

// Merge split over goroutines, at boundaries that cut a feature's
// weights and a delta's features, gives the bits of Merge in one piece.
func TestMergeSplit(t *testing.T) {
	X, y := fxIntMulti(31, 400, 3000, 6, 5, 0.1)
	defer func(v int) { mixSplitMin = v }(mixSplitMin)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(7))
	var got [2]*Mix
	for i, split := range []int{1 << 30, 1000} {
		mixSplitMin = split
		got[i] = fxShardEpochs(t, X, y, Config{NoShuffle: true}, 3, 2, true, false)
	}
	for i := range got[0].W {
		if math.Float32bits(got[0].W[i]) != math.Float32bits(got[1].W[i]) || math.Float64bits(got[0].Sum[i]) != math.Float64bits(got[1].Sum[i]) {
			t.Fatalf("weight %d: %v, %v in one piece; %v, %v split", i, got[0].W[i], got[0].Sum[i], got[1].W[i], got[1].Sum[i])
		}
	}
	want, _ := fxFit(t, X, y, Config{NoShuffle: true, Workers: 3, Epochs: 2})
	m, _ := got[1].Model(Config{})
	fxSameWeights(t, "split", want, m)
}

// FitDense starts from a state as Fit does: from zero weights as cold,
// and from a trained state as Fit from it.
func TestWarmFitDense(t *testing.T) {
	X, y := fxIntBinary(32, 300, 12, 12, 0.1)
	D, err := dense.New[float32](X.Rows, X.Cols)
	if err != nil {
		t.Fatal(err)
	}
	for i := range X.Rows {
		r := X.Row(i)
		for k, j := range r.Ind {
			D.Set(i, int(j), r.Val[k])
		}
	}
	state := fxShardEpochs(t, X, y, Config{NoShuffle: true}, 2, 1, false, false)
	for _, warm := range []*Mix{nil, fxZeroMix([]float64{-1, 1}, X.Cols), state} {
		cfg := Config{Epochs: 3, Warm: warm}
		a, _ := fxFit(t, X, y, cfg)
		b, _, err := FitDense(context.Background(), D, y, cfg)
		if err != nil {
			t.Fatal(err)
		}
		fxSameWeights(t, "FitDense", a, b)
	}
}

// Config.Check refuses a Warm state that no learner can start from.
func TestWarmCheck(t *testing.T) {
	good := fxZeroMix([]float64{0, 1}, 3)
	if err := (Config{Warm: good}).Check(); err != nil {
		t.Fatalf("Check of a zero state: %v", err)
	}
	for _, cfg := range []Config{
		{Warm: &Mix{Classes: []float64{0, 1}, Dim: 3, W: make([]float32, 2), B: []float32{0}}},
		{Warm: good, Algorithm: Voted},
	} {
		if err := cfg.Check(); !errors.Is(err, ErrConfig) {
			t.Errorf("Check(%+v): %v", cfg, err)
		}
	}
}
