package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/hyperplane-ml/hyperplane/asm"
	"github.com/hyperplane-ml/hyperplane/dense"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// fxDenseData returns the rows of fxDenseSeparable as a dense matrix with
// a stride wider than its rows (every third value zeroed, so that zeros
// are among the values) and as the CSR holding every one of its values,
// zeros included.
func fxDenseData(seed uint64, rows, cols, K int) (*dense.Matrix[float32], *sparse.CSR, []float64) {
	S, y := fxDenseSeparable(seed, rows, cols, K, 0.2)
	stride := cols + 3
	D := &dense.Matrix[float32]{Rows: S.Rows, Cols: cols, Stride: stride, Data: make([]float32, S.Rows*stride)}
	for i := range S.Rows {
		r := S.Row(i)
		for k, j := range r.Ind {
			if (i+int(j))%3 != 0 {
				D.Data[i*stride+int(j)] = r.Val[k]
			}
		}
		for j := cols; j < stride; j++ {
			D.Data[i*stride+j] = float32(math.NaN()) // padding no one may read
		}
	}
	X := &sparse.CSR{Rows: D.Rows, Cols: cols, Indptr: make([]int64, D.Rows+1)}
	for i := range D.Rows {
		for j, v := range D.Row(i) {
			X.Ind = append(X.Ind, int32(j))
			X.Val = append(X.Val, v)
		}
		X.Indptr[i+1] = int64(len(X.Ind))
	}
	return D, X, y
}

// fxDenseConfigs are the learners FitDense offers, with the options that
// change how rows are visited or weighed.
func fxDenseConfigs(rows int) []Config {
	sw := make([]float64, rows)
	for i := range sw {
		sw[i] = float64(i%4) / 2
	}
	return []Config{
		{},
		{Algorithm: Plain},
		{Algorithm: Voted, Epochs: 3},
		{Rule: PA},
		{Rule: PA1, C: 0.1},
		{Rule: PA2},
		{Rule: Pegasos, Alpha: 1e-3},
		{Rule: Logistic, Normalize: true},
		{Rule: ModifiedHuber, Normalize: true},
		{Normalize: true},
		{Rule: PA1, Normalize: true},
		{Workers: 2},
		{Rule: PA1, Workers: 3, Normalize: true},
		{Validation: 0.2, Epochs: 20},
		{TrainLoss: true, Margin: 0.5, InitScale: 0.01, Bias: BiasAugmented, BiasScale: 2},
		{SampleWeight: sw, Balanced: true},
		{NoShuffle: true, Bias: NoBias},
	}
}

// TestFitDenseMatchesCSR: with the dot products of the sparse step,
// FitDense trains the model that Fit trains on a CSR of the same values,
// bit for bit, with the same statistics, for every learner and option.
// That is the whole of the dense path but its dot product kernel.
func TestFitDenseMatchesCSR(t *testing.T) {
	defer func(v bool) { denseKernels = v }(denseKernels)
	denseKernels = false
	for _, K := range []int{2, 4} {
		D, X, y := fxDenseData(uint64(K), 300, 17, K)
		for _, cfg := range fxDenseConfigs(D.Rows) {
			what := fmt.Sprintf("K=%d %+v", K, cfg)
			want, ws, err := Fit(context.Background(), X, y, cfg)
			if err != nil {
				t.Fatalf("%s: Fit: %v", what, err)
			}
			got, gs, err := FitDense(context.Background(), D, y, cfg)
			if err != nil {
				t.Fatalf("%s: FitDense: %v", what, err)
			}
			fxSameModel(t, what, got, want)
			if len(gs) != len(ws) {
				t.Fatalf("%s: %d epochs, CSR %d", what, len(gs), len(ws))
			}
			for e := range gs {
				g, w := gs[e], ws[e]
				if g.Mistakes != w.Mistakes || g.Updates != w.Updates || g.Loss != w.Loss || g.Rows != w.Rows ||
					g.TrainMistakes != w.TrainMistakes || !sameFloat(g.TrainLoss, w.TrainLoss) || !sameFloat(g.ValidAccuracy, w.ValidAccuracy) {
					t.Fatalf("%s: epoch %d: %+v, CSR %+v", what, e+1, g, w)
				}
			}
			if (got.Votes == nil) != (want.Votes == nil) || got.Votes != nil && !slices.Equal(got.Votes.Steps, want.Votes.Steps) {
				t.Fatalf("%s: the votes differ", what)
			}
		}
	}
}

func sameFloat(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

// TestFitDenseKernels: with the dense dot product a binary learner's sums
// round in another order than the sparse one's, so its model is the CSR
// one up to rounding: on rows that every learner separates with a margin
// the two label every row alike and their weights agree to 1e-3 of the
// largest. Multiclass learners take the sparse step's products and stay
// bit-identical.
func TestFitDenseKernels(t *testing.T) {
	for _, K := range []int{2, 3} {
		D, X, y := fxDenseData(uint64(10+K), 400, 33, K)
		for _, cfg := range fxDenseConfigs(D.Rows) {
			what := fmt.Sprintf("K=%d %+v", K, cfg)
			want, _, err := Fit(context.Background(), X, y, cfg)
			if err != nil {
				t.Fatalf("%s: Fit: %v", what, err)
			}
			got, _, err := FitDense(context.Background(), D, y, cfg)
			if err != nil {
				t.Fatalf("%s: FitDense: %v", what, err)
			}
			if K > 2 {
				fxSameModel(t, what, got, want)
				continue
			}
			if cfg.Rule == ModifiedHuber {
				// Its steps, up to 4 times the row's, follow the margin's
				// last bits on every row inside the margin, and the
				// dense kernel's rounding drifted its weights by a few
				// per cent (logistic regression's smaller steps, on
				// these unit-length rows, stay within the bound; on raw
				// rows they drifted too). TestFitDenseMatchesCSR checks
				// that the dense path is its sparse step.
				continue
			}
			var big, diff float64
			for j := range want.W {
				big = max(big, math.Abs(float64(want.W[j])))
				diff = max(diff, math.Abs(float64(got.W[j]-want.W[j])))
			}
			diff = max(diff, math.Abs(float64(got.B[0]-want.B[0])))
			if !(diff <= 1e-3*big) {
				t.Errorf("%s: weights differ by %g, largest %g", what, diff, big)
			}
			gl, wl := got.PredictDenseBatch(D, nil), want.PredictBatch(X, nil)
			differ := 0
			for i := range gl {
				if gl[i] != wl[i] {
					differ++
				}
			}
			if differ > D.Rows/100 {
				t.Errorf("%s: %d of %d rows labelled differently", what, differ, D.Rows)
			}
		}
	}
}

// TestPredictDense: the dense predictions of a model are its sparse
// predictions of the same rows (within rounding for a binary model's
// score, whose dense dot product sums in another order), one row or a
// matrix at a time, and cost no allocation.
func TestPredictDense(t *testing.T) {
	for _, K := range []int{2, 5} {
		D, X, y := fxDenseData(uint64(20+K), 300, 19, K)
		for _, cfg := range []Config{{}, {Normalize: true}, {Algorithm: Voted, Epochs: 2}} {
			m, _, err := FitDense(context.Background(), D, y, cfg)
			if err != nil {
				t.Fatal(err)
			}
			dec := m.DecisionDenseBatch(D, nil)
			lab := m.PredictDenseBatch(D, make([]float64, 0, D.Rows))
			sdec := m.DecisionBatch(X, nil)
			for i := range D.Rows {
				x := D.Row(i)
				if d := m.DecisionDense(x); math.Float32bits(d) != math.Float32bits(dec[i]) {
					t.Fatalf("K=%d %+v row %d: DecisionDense %v, batch %v", K, cfg, i, d, dec[i])
				}
				if p := m.PredictDense(x); p != lab[i] {
					t.Fatalf("K=%d %+v row %d: PredictDense %v, batch %v", K, cfg, i, p, lab[i])
				}
				if d, s := float64(dec[i]), float64(sdec[i]); math.Abs(d-s) > 1e-4*(1+math.Abs(s)) {
					t.Fatalf("K=%d %+v row %d: dense decision %v, sparse %v", K, cfg, i, d, s)
				}
				if math.Abs(float64(sdec[i])) > 1e-3 && lab[i] != m.Predict(X.Row(i)) {
					t.Fatalf("K=%d %+v row %d: dense label %v, sparse %v", K, cfg, i, lab[i], m.Predict(X.Row(i)))
				}
			}
			if cfg.Algorithm == Voted {
				continue
			}
			x := D.Row(7)
			if a := testing.AllocsPerRun(100, func() { m.PredictDense(x); m.DecisionDense(x) }); a != 0 {
				t.Errorf("K=%d %+v: PredictDense and DecisionDense allocate %v times", K, cfg, a)
			}
		}
	}
}

// TestFitDenseErrors: bad shapes, labels and values are errors naming
// their sentinel, never a panic.
func TestFitDenseErrors(t *testing.T) {
	D, _, y := fxDenseData(1, 50, 6, 2)
	ctx := context.Background()
	nanM := &dense.Matrix[float32]{Rows: D.Rows, Cols: D.Cols, Stride: D.Stride, Data: slices.Clone(D.Data)}
	nanM.Data[30*D.Stride+4] = float32(math.Inf(-1))
	for _, c := range []struct {
		name string
		X    *dense.Matrix[float32]
		y    []float64
		cfg  Config
		want error
	}{
		{"nil", nil, y, Config{}, ErrNoData},
		{"no rows", &dense.Matrix[float32]{Cols: 3, Stride: 3}, nil, Config{}, ErrNoData},
		{"labels", D, y[1:], Config{}, ErrLabels},
		{"one class", D, make([]float64, len(y)), Config{}, ErrLabels},
		{"stride", &dense.Matrix[float32]{Rows: 2, Cols: 3, Stride: 2, Data: make([]float32, 6)}, []float64{0, 1}, Config{}, ErrDim},
		{"short data", &dense.Matrix[float32]{Rows: 3, Cols: 3, Stride: 4, Data: make([]float32, 10)}, []float64{0, 1, 0}, Config{}, ErrDim},
		{"negative", &dense.Matrix[float32]{Rows: 1, Cols: -1, Stride: 0}, []float64{0}, Config{}, ErrDim},
		{"infinite value", nanM, y, Config{}, ErrDiverged},
		{"batch", D, y, Config{Algorithm: Batch}, ErrConfig},
		{"config", D, y, Config{Epochs: -1}, ErrConfig},
	} {
		m, _, err := FitDense(ctx, c.X, c.y, c.cfg)
		if !errors.Is(err, c.want) || m != nil {
			t.Errorf("%s: model %v, err %v, want %v", c.name, m != nil, err, c.want)
		}
	}
	// The last row may end at its width: no value past it is needed.
	ok := &dense.Matrix[float32]{Rows: 2, Cols: 2, Stride: 5, Data: []float32{1, 0, 9, 9, 9, -1, 0}}
	if _, _, err := FitDense(ctx, ok, []float64{1, -1}, Config{}); err != nil {
		t.Errorf("a strided matrix whose last row ends its data: %v", err)
	}
	if _, _, err := FitDense(ctx, nanM, y, Config{}); err == nil || !errors.Is(err, sparse.ErrValue) {
		t.Errorf("infinite value: %v, want sparse.ErrValue too", err)
	}
}

// TestFitDenseCancel: a done context stops FitDense as it stops Fit.
func TestFitDenseCancel(t *testing.T) {
	D, _, y := fxDenseData(3, 100, 5, 2)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m, stats, err := FitDense(ctx, D, y, Config{})
	if !errors.Is(err, context.Canceled) || m == nil || len(stats) != 0 {
		t.Fatalf("cancelled: model %v, %d epochs, err %v", m != nil, len(stats), err)
	}
}

// TestDenseUpdateBits: the plain learner's dense update gives the bits
// of the sparse kernel that update1 calls with the indices 0…n−1, at
// every length to 300 and unaligned starts, on the active SIMD tier.
func TestDenseUpdateBits(t *testing.T) {
	r := fxRNG(5)
	for n := 0; n <= 300; n++ {
		off := n % 3
		x := make([]float32, n+off)[off:]
		for j := range x {
			x[j] = float32(r.NormFloat64())
		}
		w0 := make([]float32, n+1)[1:]
		for j := range w0 {
			w0[j] = float32(r.NormFloat64())
		}
		a := float32(r.NormFloat64())
		w1, w2 := slices.Clone(w0), slices.Clone(w0)
		asm.AxpyF32(a, x, w1)
		asm.AxpyIndF32(a, x, denseIndices(n), w2)
		for j := range n {
			if math.Float32bits(w1[j]) != math.Float32bits(w2[j]) {
				t.Fatalf("n=%d: update of value %d: %v vs %v", n, j, w1[j], w2[j])
			}
		}
	}
}

// TestFitDenseNoColumns: rows of no values train a model of the bias
// alone, as a CSR of width 0 does.
func TestFitDenseNoColumns(t *testing.T) {
	D := &dense.Matrix[float32]{Rows: 3, Cols: 0, Stride: 0}
	y := []float64{1, 1, -1}
	m, _, err := FitDense(context.Background(), D, y, Config{NoShuffle: true})
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := Fit(context.Background(), &sparse.CSR{Rows: 3, Indptr: make([]int64, 4)}, y, Config{NoShuffle: true})
	if err != nil {
		t.Fatal(err)
	}
	fxSameModel(t, "width 0", m, want)
	if got := m.PredictDense(nil); got != want.Predict(sparse.Vector{}) {
		t.Fatalf("PredictDense of an empty row %v, sparse %v", got, want.Predict(sparse.Vector{}))
	}
}
