package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/hyperplane-ml/hyperplane/asm"
	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/libsvm"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

// textLike makes a data set shaped like imdb.train: rows of nnz Zipf word
// indices over dim features with counts 1..3, labelled by a planted random
// separator (k classes: the argmax of k of them) with 10% of the labels
// flipped at random, so training never converges and every epoch costs
// what a real one does.
func textLike(rows, nnz, dim, k int, seed uint64) (*sparse.CSR, []float64) {
	r := rand.New(rand.NewPCG(seed, 7))
	ind, val, _ := sparseRows(r, rows, nnz, dim, true)
	X := &sparse.CSR{Rows: rows, Cols: dim, Indptr: make([]int64, rows+1), Ind: ind, Val: val}
	for i := range rows {
		X.Indptr[i+1] = int64((i + 1) * nnz)
	}
	sep := make([][]float32, k)
	for c := range sep {
		sep[c] = make([]float32, dim)
		for j := range sep[c] {
			sep[c][j] = float32(r.NormFloat64())
		}
	}
	y := make([]float64, rows)
	for i := range y {
		row := X.Row(i)
		best, bs := 0, row.Dot(sep[0])
		if k == 1 {
			y[i] = -1
			if bs > 0 {
				y[i] = 1
			}
		} else {
			for c := 1; c < k; c++ {
				if s := row.Dot(sep[c]); s > bs {
					best, bs = c, s
				}
			}
			y[i] = float64(best)
		}
		if r.Float64() < 0.1 {
			if k == 1 {
				y[i] = -y[i]
			} else {
				y[i] = float64(r.IntN(k))
			}
		}
	}
	return X, y
}

// fitBench trains cfg on X, y and reports the time per epoch, per nonzero
// and per row visited.
func fitBench(b *testing.B, X *sparse.CSR, y []float64, cfg engine.Config) {
	b.ReportAllocs()
	epochs := 0
	for b.Loop() {
		_, st, err := engine.Fit(context.Background(), X, y, cfg)
		if err != nil {
			b.Fatal(err)
		}
		epochs += len(st)
	}
	ns := float64(b.Elapsed().Nanoseconds())
	b.ReportMetric(ns/float64(epochs)/1e6, "ms/epoch")
	b.ReportMetric(ns/float64(epochs)/float64(X.NNZ()), "ns/nnz")
	b.ReportMetric(ns/float64(epochs)/float64(X.Rows), "ns/row")
}

// BenchmarkFit trains every linear algorithm for 10 epochs on 25000
// imdb-shaped rows (142 nonzeros each, 101256 features).
func BenchmarkFit(b *testing.B) {
	X, y := textLike(25000, 142, 101256, 1, 1)
	for _, a := range []engine.Algorithm{engine.Averaged, engine.Plain, engine.Voted, engine.Batch} {
		b.Run(a.String(), func(b *testing.B) {
			tiers(b, func(b *testing.B) { fitBench(b, X, y, engine.Config{Algorithm: a}) })
		})
	}
}

// BenchmarkFitMulticlass: averaged, 20 classes, 11314 rows of 164
// nonzeros over 168426 features (the shape of 20 Newsgroups).
func BenchmarkFitMulticlass(b *testing.B) {
	X, y := textLike(11314, 164, 168426, 20, 2)
	fitBench(b, X, y, engine.Config{})
}

// sharedData reads the LIBSVM file rel under ../shared/data, or skips the
// benchmark when the shared data is not there.
func sharedData(b *testing.B, rel string) *sparse.Dataset {
	path := "../../shared/data/" + rel
	if _, err := os.Stat(path); err != nil {
		b.Skip("no shared data: ", err)
	}
	d, err := libsvm.ReadFile(path, sparse.ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	return d
}

// BenchmarkFitIMDB: the averaged perceptron, 10 epochs, on the real
// imdb.train from ../shared/data when it is there (the one-core epoch
// compared with scikit-learn's; bench/compare_linear.sh runs scikit-learn
// beside it), the plain one, and the averaged one on two cores by parameter
// mixing.
func BenchmarkFitIMDB(b *testing.B) {
	d := sharedData(b, "text/imdb/imdb.train.svm.gz")
	for _, a := range []engine.Algorithm{engine.Averaged, engine.Plain} {
		b.Run(a.String(), func(b *testing.B) { fitBench(b, d.X, d.Y, engine.Config{Algorithm: a}) })
	}
	b.Run("averaged/workers=2", func(b *testing.B) { fitBench(b, d.X, d.Y, engine.Config{Workers: 2}) })
}

// BenchmarkScoreIMDB: the least any imdb epoch has to do, w·x for every
// row once in storage order with the gather kernel (no learning, no
// shuffling), beside a pass that only reads the rows' 28.6 MB. It bounds
// the one-core epoch from below: no learner's epoch can be faster than
// the scoring alone.
func BenchmarkScoreIMDB(b *testing.B) {
	X := sharedData(b, "text/imdb/imdb.train.svm.gz").X
	w := make([]float32, X.Cols)
	for j := range w {
		w[j] = float32(j%7) - 3
	}
	out := make([]float32, X.Rows)
	b.Run("dotrows", func(b *testing.B) {
		for b.Loop() {
			asm.DotRowsF32(X.Indptr, X.Ind, X.Val, w, out)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/pass")
	})
	b.Run("read", func(b *testing.B) {
		var s int32
		var f float32
		for b.Loop() {
			for i := 0; i < len(X.Ind); i += 16 { // one load per 64-byte line
				s += X.Ind[i]
				f += X.Val[i]
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/pass")
		bareSink = f + float32(s)
	})
}

// BenchmarkMixingIMDB: the two-core speed-up on real data. Fits on one
// worker and on two by parameter mixing alternate, so that both see the
// same machine, and the medians of their epochs after the first (which
// also validates the data and allocates) are reported with their ratio.
func BenchmarkMixingIMDB(b *testing.B) {
	d := sharedData(b, "text/imdb/imdb.train.svm.gz")
	fit := func(cfg engine.Config) ([]engine.EpochStats, error) {
		_, st, err := engine.Fit(context.Background(), d.X, d.Y, cfg)
		return st, err
	}
	var one, two []time.Duration
	for b.Loop() {
		e1, _, _ := epochTimes(b, fit, engine.Config{Workers: 1}, nil)
		e2, _, _ := epochTimes(b, fit, engine.Config{Workers: 2}, nil)
		one, two = append(one, e1...), append(two, e2...)
	}
	m1, m2 := medianDur(one), medianDur(two)
	b.ReportMetric(float64(m1.Microseconds())/1e3, "ms/epoch-1")
	b.ReportMetric(float64(m2.Microseconds())/1e3, "ms/epoch-2")
	b.ReportMetric(float64(m1)/float64(m2), "speedup")
}

// BenchmarkFitA9A: the averaged perceptron, 10 epochs, on a9a from
// ../shared/data when it is there: 32561 rows of about 14 nonzeros, where
// per-row costs (the shuffle, the dot product's fixed cost, the loop)
// matter more than per-nonzero ones.
func BenchmarkFitA9A(b *testing.B) {
	d := sharedData(b, "libsvm/a9a")
	fitBench(b, d.X, d.Y, engine.Config{})
}

// BenchmarkPredictBatch: labels for 25000 rows of 142 nonzeros, binary
// and 20-class, on all cores.
func BenchmarkPredictBatch(b *testing.B) {
	for _, k := range []int{1, 20} {
		X, y := textLike(25000, 142, 101256, k, 3)
		m, _, err := engine.Fit(context.Background(), X, y, engine.Config{Epochs: 2})
		if err != nil {
			b.Fatal(err)
		}
		dst := make([]float64, X.Rows)
		b.Run(fmt.Sprintf("classes=%d", max(2, k)), func(b *testing.B) {
			for b.Loop() {
				m.PredictBatch(X, dst)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(X.NNZ()), "ns/nnz")
		})
	}
}

// BenchmarkFitTextIMDB: train's default learner (averaged PA-II on unit
// rows, 10 epochs) on the real imdb train text from ../shared/data,
// featurized as train does by default (bigrams, log tf, idf, a vocabulary
// of the terms in two documents or more) and hashed into 2^20 buckets
// instead. Fit numbers the hashed space's used columns by frequency, so
// that its epoch per nonzero comes near the vocabulary's; the ratio of
// the two ns/nnz figures is the one train -json's ns_per_nonzero gives.
func BenchmarkFitTextIMDB(b *testing.B) {
	path := "../../shared/data/text/imdb/imdb.train.jsonl.gz"
	if _, err := os.Stat(path); err != nil {
		b.Skip("no shared data: ", err)
	}
	for _, tc := range []struct {
		name string
		cfg  text.Config
	}{
		{"vocabulary", text.Config{NGrams: 2, TF: text.Log, IDF: true, Vocabulary: true, MinDF: 2}},
		{"hashed", text.Config{NGrams: 2, TF: text.Log, IDF: true, Bits: 20}},
	} {
		_, d, err := text.FitFile(path, text.ReadOptions{}, tc.cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(tc.name, func(b *testing.B) {
			fitBench(b, d.X, d.Y, engine.Config{Rule: engine.PA2, Normalize: true})
		})
	}
}
