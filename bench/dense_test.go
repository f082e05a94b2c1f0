package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/hyperplane-ml/hyperplane/asm"
	"github.com/hyperplane-ml/hyperplane/dense"
	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// denseLike makes rows×cols dense float32 rows (Gaussian, like
// embeddings) labelled by the sign of a planted hyperplane, 10% of the
// labels flipped so that every epoch keeps updating.
func denseLike(rows, cols int, seed uint64) (*dense.Matrix[float32], []float64) {
	r := rand.New(rand.NewPCG(seed, 11))
	X, _ := dense.New[float32](rows, cols)
	for i := range X.Data {
		X.Data[i] = float32(r.NormFloat64())
	}
	u := make([]float32, cols)
	for j := range u {
		u[j] = float32(r.NormFloat64())
	}
	y := make([]float64, rows)
	for i := range y {
		y[i] = -1
		if asm.DotF32(X.Row(i), u) > 0 {
			y[i] = 1
		}
		if r.Float64() < 0.1 {
			y[i] = -y[i]
		}
	}
	return X, y
}

var denseSink float32

// BenchmarkDenseEpoch times an epoch of the averaged perceptron on 200000
// dense rows of 256 float32 values (205 MB) against a bare pass of
// asm.DotF32 over the same rows in storage order, run right after each
// epoch, and reports the ratio of the medians: what the learner costs
// beyond reading its rows. Shuffled epochs visit rows in windowed order;
// NoShuffle in storage order, as the bare pass does. Set
// HYPERPLANE_DENSE_ROWS to change the rows.
func BenchmarkDenseEpoch(b *testing.B) {
	rows := 200_000
	if v, err := strconv.Atoi(os.Getenv("HYPERPLANE_DENSE_ROWS")); err == nil && v > 0 {
		rows = v
	}
	X, y := denseLike(rows, 256, 1)
	w := make([]float32, X.Cols)
	for j := range w {
		w[j] = 1e-3 * float32(j%7)
	}
	bare := func() {
		var s float32
		for i := range X.Rows {
			s += asm.DotF32(X.Row(i), w)
		}
		denseSink = s
	}
	fit := func(cfg engine.Config) ([]engine.EpochStats, error) {
		_, st, err := engine.FitDense(context.Background(), X, y, cfg)
		return st, err
	}
	for _, c := range []struct {
		name string
		cfg  engine.Config
	}{
		{"averaged", engine.Config{Epochs: 6}},
		{"averaged/noshuffle", engine.Config{Epochs: 6, NoShuffle: true}},
		{"plain", engine.Config{Epochs: 6, Algorithm: engine.Plain}},
		{"pa1/normalize", engine.Config{Epochs: 6, Rule: engine.PA1, Normalize: true}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var ep, bp []time.Duration
			for b.Loop() {
				e, p, _ := epochTimes(b, fit, c.cfg, bare)
				ep, bp = append(ep, e...), append(bp, p...)
			}
			me, mb := medianDur(ep), medianDur(bp)
			b.ReportMetric(float64(me.Microseconds())/1e3, "ms/epoch")
			b.ReportMetric(float64(mb.Microseconds())/1e3, "ms/bare-dot-pass")
			b.ReportMetric(float64(me)/float64(mb), "epoch/bare")
		})
	}
}

// BenchmarkDenseVsCSR trains the averaged perceptron and PA-I (rows
// normalized) on letter and digits from ../shared/data as dense rows
// (FitDense) and as the sparse rows the files give (Fit), 10 epochs
// each, and reports the median epoch of each and their accuracies on
// the test files.
func BenchmarkDenseVsCSR(b *testing.B) {
	for _, set := range []struct{ name, train, test string }{
		{"letter", "libsvm/letter.scale.tr", "libsvm/letter.scale.t"},
		{"digits", "sklearn/digits.train.svm", "sklearn/digits.test.svm"},
	} {
		tr, te := sharedData(b, set.train), sharedData(b, set.test)
		cols := max(tr.X.Cols, te.X.Cols)
		tr.X.Cols, te.X.Cols = cols, cols
		Dtr, Dte := toDense(tr.X), toDense(te.X)
		for _, cfg := range []engine.Config{{}, {Rule: engine.PA1, Normalize: true}} {
			name := "averaged"
			if cfg.Rule != engine.Perceptron {
				name = "pa1-normalize"
			}
			b.Run(set.name+"/"+name, func(b *testing.B) {
				var de, se []time.Duration
				var dacc, sacc float64
				for b.Loop() {
					var m *engine.Model
					e, _, _ := epochTimes(b, func(c engine.Config) ([]engine.EpochStats, error) {
						var st []engine.EpochStats
						var err error
						m, st, err = engine.FitDense(context.Background(), Dtr, tr.Y, c)
						return st, err
					}, cfg, nil)
					de = append(de, e...)
					dacc = accuracy(m.PredictDenseBatch(Dte, nil), te.Y)
					e, _, _ = epochTimes(b, func(c engine.Config) ([]engine.EpochStats, error) {
						var st []engine.EpochStats
						var err error
						m, st, err = engine.Fit(context.Background(), tr.X, tr.Y, c)
						return st, err
					}, cfg, nil)
					se = append(se, e...)
					sacc = accuracy(m.PredictBatch(te.X, nil), te.Y)
				}
				md, ms := medianDur(de), medianDur(se)
				b.ReportMetric(float64(md.Microseconds())/1e3, "ms/epoch-dense")
				b.ReportMetric(float64(ms.Microseconds())/1e3, "ms/epoch-csr")
				b.ReportMetric(float64(md)/float64(ms), "dense/csr")
				b.ReportMetric(dacc, "acc-dense")
				b.ReportMetric(sacc, "acc-csr")
			})
		}
	}
}

// toDense returns the rows of X as a dense matrix.
func toDense(X *sparse.CSR) *dense.Matrix[float32] {
	D, err := dense.New[float32](X.Rows, X.Cols)
	if err != nil {
		panic(fmt.Sprint(err))
	}
	for i := range X.Rows {
		r := X.Row(i)
		row := D.Row(i)
		for k, j := range r.Ind {
			row[j] = r.Val[k]
		}
	}
	return D
}

func accuracy(pred, y []float64) float64 {
	right := 0
	for i, p := range pred {
		if p == y[i] {
			right++
		}
	}
	return float64(right) / float64(len(y))
}
