package bench

import (
	"context"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/kernels"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/libsvm"
)

// letterSet generates n rows of 16 features in [−1, 1] in 26 classes,
// each a noisy cloud around its own centre (the same centres for every
// seed, so that sets of two seeds are a train and a test set): the shape
// of UCI letter.
func letterSet(n int, seed uint64) (*sparse.CSR, []float64) {
	r := rand.New(rand.NewPCG(26, 26))
	const d, k = 16, 26
	centre := make([][]float32, k)
	for c := range centre {
		centre[c] = make([]float32, d)
		for j := range centre[c] {
			centre[c][j] = float32(2*r.Float64() - 1)
		}
	}
	r = rand.New(rand.NewPCG(seed, 27))
	rows := make([][]float32, n)
	y := make([]float64, n)
	for i := range rows {
		c := r.IntN(k)
		rows[i] = make([]float32, d)
		for j := range rows[i] {
			rows[i][j] = max(-1, min(1, centre[c][j]+float32(0.35*r.NormFloat64())))
		}
		y[i] = float64(c + 1)
	}
	return sparse.FromDense(rows), y
}

// gramModes are the three ways FitKernel can hold the Gram matrix: rows on
// demand with room for all of them, the whole matrix precomputed, and an
// LRU cache of a tenth of the full matrix's bytes.
func gramModes(n, dim int) []struct {
	name string
	opt  kernels.Options
} {
	full := int64(n) * int64(n) * 4
	over := 4*int64(n) + 4*int64(n)*int64(dim)
	return []struct {
		name string
		opt  kernels.Options
	}{
		{"gram=rows", kernels.Options{Budget: full + over}},
		{"gram=precompute", kernels.Options{Budget: full, Precompute: true}},
		{"gram=cache10pct", kernels.Options{Budget: full/10 + over}},
	}
}

func benchFitKernel(b *testing.B, X *sparse.CSR, y []float64, cfg engine.KernelConfig, test *sparse.CSR, ty []float64) {
	for _, g := range gramModes(X.Rows, X.Cols) {
		b.Run(g.name, func(b *testing.B) {
			cfg := cfg
			cfg.Gram = g.opt
			var m *engine.KernelModel
			var stats []engine.KernelEpochStats
			for b.Loop() {
				var err error
				m, stats, err = engine.FitKernel(context.Background(), X, y, cfg)
				if err != nil {
					b.Fatal(err)
				}
			}
			st := stats[len(stats)-1].Gram
			b.ReportMetric(float64(m.NumSV()), "SVs")
			b.ReportMetric(float64(st.Misses), "rows-computed")
			b.ReportMetric(float64(st.Computed)/1e6, "Mentries")
			if test != nil {
				pred := m.PredictBatch(test, nil)
				ok := 0
				for i, p := range pred {
					if p == ty[i] {
						ok++
					}
				}
				b.ReportMetric(float64(ok)/float64(len(pred)), "test-acc")
			}
		})
	}
}

// BenchmarkFitKernel trains the averaged RBF kernel perceptron (10
// epochs) on 4000 generated letter-shaped rows, with each way of holding
// the Gram matrix.
func BenchmarkFitKernel(b *testing.B) {
	X, y := letterSet(4000, 1)
	tX, ty := letterSet(1000, 2)
	benchFitKernel(b, X, y, engine.KernelConfig{Kernel: kernels.RBF{Gamma: 2}}, tX, ty)
}

// BenchmarkFitKernelLetter is BenchmarkFitKernel on UCI letter
// (letter.scale.tr, 15000 rows, 26 classes) from ../shared/data when it is
// there: the kernel perceptron's speed is compared with LIBSVM's on this
// fit (bench/compare_kernel.sh runs LIBSVM beside it).
func BenchmarkFitKernelLetter(b *testing.B) {
	const dir = "../../shared/data/libsvm/"
	if _, err := os.Stat(dir + "letter.scale.tr"); err != nil {
		b.Skip("no shared data: ", err)
	}
	tr, err := libsvm.ReadFile(dir+"letter.scale.tr", sparse.ReadOptions{Dim: 16})
	if err != nil {
		b.Fatal(err)
	}
	te, err := libsvm.ReadFile(dir+"letter.scale.t", sparse.ReadOptions{Dim: 16})
	if err != nil {
		b.Fatal(err)
	}
	benchFitKernel(b, tr.X, tr.Y, engine.KernelConfig{Kernel: kernels.RBF{Gamma: 2}}, te.X, te.Y)
}
