package engine

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hyperplane-ml/hyperplane/kernels"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// Helpers of the kernel perceptron's tests carry the prefix kt. None of
// these tests runs in parallel: several of them set traceMistake.

// ktRNG returns a PCG generator for seed.
func ktRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x6b65726e)) }

// ktDesc describes a KernelConfig for failure messages.
func ktDesc(cfg KernelConfig) string {
	k := "default-rbf"
	if cfg.Kernel != nil {
		k = cfg.Kernel.String()
	}
	return fmt.Sprintf("{kernel %s, %v, epochs %d, bias %v×%v, margin %v, noshuffle %v, seed %d, max SVs %d, cw %v, gram %+v}",
		k, cfg.Algorithm, cfg.Epochs, cfg.Bias, cfg.BiasScale, cfg.Margin, cfg.NoShuffle, cfg.Seed, cfg.MaxSupportVectors, cfg.ClassWeight, cfg.Gram)
}

// ktFit calls FitKernel and fails the test on an error or a model that
// fails Check.
func ktFit(t testing.TB, X *sparse.CSR, y []float64, cfg KernelConfig) (*KernelModel, []KernelEpochStats) {
	t.Helper()
	m, stats, err := FitKernel(context.Background(), X, y, cfg)
	if err != nil {
		t.Fatalf("FitKernel(%s): %v", ktDesc(cfg), err)
	}
	if err := m.Check(); err != nil {
		t.Fatalf("FitKernel(%s): model fails Check: %v", ktDesc(cfg), err)
	}
	return m, stats
}

// ktTrace runs f with traceMistake recording the training row of every
// mistake, and returns them in order.
func ktTrace(t testing.TB, f func()) []int {
	t.Helper()
	if traceMistake != nil {
		t.Fatal("traceMistake is already set: the tests that use it must not run in parallel")
	}
	rows := []int{}
	traceMistake = func(r int) { rows = append(rows, r) }
	defer func() { traceMistake = nil }()
	f()
	return rows
}

// ktSameSeq fails unless two mistake sequences are equal, naming the first
// difference.
func ktSameSeq(t testing.TB, what string, got, want []int) {
	t.Helper()
	if slices.Equal(got, want) {
		return
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	at := func(s []int) string {
		if i < len(s) {
			return fmt.Sprint(s[i])
		}
		return "end"
	}
	t.Fatalf("%s: mistake sequences differ at mistake %d: row %s vs row %s (%d vs %d mistakes in all)",
		what, i, at(got), at(want), len(got), len(want))
}

// ktKey identifies a sparse row by its content.
func ktKey(ind []int32, val []float32) string {
	b := make([]byte, 0, 8*len(ind))
	for k, j := range ind {
		v := math.Float32bits(val[k])
		b = append(b, byte(j), byte(j>>8), byte(j>>16), byte(j>>24), byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
	}
	return string(b)
}

// ktClasses returns the ascending distinct labels of y and the class index
// of every row.
func ktClasses(y []float64) ([]float64, []int) {
	classes := slices.Clone(y)
	slices.Sort(classes)
	classes = slices.Compact(classes)
	cls := make([]int, len(y))
	for i, v := range y {
		cls[i] = slices.Index(classes, v)
	}
	return classes, cls
}

// ktIntData returns rows distinct sparse rows over cols columns with nnz
// integer features in [−3, 3] \ {0}, labelled 0..K−1 by the argmax of K
// hidden integer hyperplanes (for K = 2 the sign of one, offset by 0.5).
// Rows whose best class leads by less than gap are dropped; then each
// label is replaced by a random class with probability noise.
func ktIntData(seed uint64, rows, cols, nnz, K int, noise, gap float64) (*sparse.CSR, []float64) {
	r := ktRNG(seed)
	nh := K
	if K == 2 {
		nh = 1
	}
	u := make([][]float64, nh)
	for k := range u {
		u[k] = make([]float64, cols)
		for j := range u[k] {
			u[k][j] = float64(r.IntN(7) - 3)
		}
	}
	b := sparse.NewBuilder(cols)
	seen := map[string]bool{}
	var y []float64
	for len(y) < rows {
		perm := r.Perm(cols)[:nnz]
		slices.Sort(perm)
		ind := make([]int32, nnz)
		val := make([]float32, nnz)
		for q, j := range perm {
			ind[q] = int32(j)
			v := float32(r.IntN(3) + 1)
			if r.IntN(2) == 0 {
				v = -v
			}
			val[q] = v
		}
		s := make([]float64, nh)
		for k := range s {
			for q, j := range ind {
				s[k] += u[k][j] * float64(val[q])
			}
		}
		var label float64
		if nh == 1 {
			s[0] += 0.5
			if math.Abs(s[0]) < gap {
				continue
			}
			if s[0] > 0 {
				label = 1
			}
		} else {
			best, second := 0, -1
			for k := 1; k < K; k++ {
				if s[k] > s[best] {
					best, second = k, best
				} else if second < 0 || s[k] > s[second] {
					second = k
				}
			}
			if s[best]-s[second] < gap {
				continue
			}
			label = float64(best)
		}
		key := ktKey(ind, val)
		if seen[key] {
			continue
		}
		seen[key] = true
		if r.Float64() < noise {
			label = float64(r.IntN(K))
		}
		if err := b.Add(ind, val); err != nil {
			panic(err)
		}
		y = append(y, label)
	}
	return b.Build(), y
}

// ktFloatData returns rows rows over cols columns in which each feature is
// set with probability density to a value uniform in [−1, 1] (every row has
// one at least), labelled 0..K−1 by the argmax of K random hyperplanes with
// biases (the sign of one for K = 2), each label replaced at random with
// probability noise.
func ktFloatData(seed uint64, rows, cols int, density float64, K int, noise float64) (*sparse.CSR, []float64) {
	r := ktRNG(seed)
	nh := K
	if K == 2 {
		nh = 1
	}
	u := make([][]float64, nh)
	bias := make([]float64, nh)
	for k := range u {
		u[k] = make([]float64, cols)
		for j := range u[k] {
			u[k][j] = r.NormFloat64()
		}
		bias[k] = 0.3 * r.NormFloat64()
	}
	b := sparse.NewBuilder(cols)
	y := make([]float64, rows)
	for i := range rows {
		var ind []int32
		var val []float32
		for j := range cols {
			if r.Float64() < density {
				v := float32(2*r.Float64() - 1)
				if v == 0 {
					v = 0.5
				}
				ind = append(ind, int32(j))
				val = append(val, v)
			}
		}
		if len(ind) == 0 {
			ind, val = []int32{int32(r.IntN(cols))}, []float32{0.5}
		}
		best, bs := 0, math.Inf(-1)
		for k := range nh {
			s := bias[k]
			for q, j := range ind {
				s += u[k][j] * float64(val[q])
			}
			if nh == 1 {
				if s > 0 {
					best = 1
				}
			} else if s > bs {
				best, bs = k, s
			}
		}
		y[i] = float64(best)
		if r.Float64() < noise {
			y[i] = float64(r.IntN(K))
		}
		if err := b.Add(ind, val); err != nil {
			panic(err)
		}
	}
	return b.Build(), y
}

// ktXOR returns 4·per points around (±1, ±1), spread uniformly by up to
// spread in each coordinate, labelled +1 where x·y > 0 and −1 elsewhere.
func ktXOR(seed uint64, per int, spread float64) (*sparse.CSR, []float64) {
	r := ktRNG(seed)
	var rows [][]float32
	var y []float64
	for _, c := range [][2]float64{{1, 1}, {-1, -1}, {1, -1}, {-1, 1}} {
		for range per {
			rows = append(rows, []float32{
				float32(c[0] + spread*(2*r.Float64()-1)),
				float32(c[1] + spread*(2*r.Float64()-1)),
			})
			y = append(y, math.Copysign(1, c[0]*c[1]))
		}
	}
	return sparse.FromDense(rows), y
}

// ktCircles returns per points of radius in [0, 1] labelled −1 and per of
// radius in [2, 3] labelled +1.
func ktCircles(seed uint64, per int) (*sparse.CSR, []float64) {
	r := ktRNG(seed)
	var rows [][]float32
	var y []float64
	for _, ring := range []struct{ lo, label float64 }{{0, -1}, {2, 1}} {
		for range per {
			rad := ring.lo + r.Float64()
			a := 2 * math.Pi * r.Float64()
			rows = append(rows, []float32{float32(rad * math.Cos(a)), float32(rad * math.Sin(a))})
			y = append(y, ring.label)
		}
	}
	return sparse.FromDense(rows), y
}

// ktGram64 returns the kernel matrix of X in float64, from the kernel's
// own Sparse method.
func ktGram64(k kernels.Kernel, X *sparse.CSR) [][]float64 {
	G := make([][]float64, X.Rows)
	for i := range G {
		G[i] = make([]float64, X.Rows)
		for j := range G[i] {
			G[i][j] = k.Sparse(X.Row(i), X.Row(j))
		}
	}
	return G
}

// ktBestOther returns the index of the highest score other than c's, the first on ties.
func ktBestOther(s []float64, c int) int {
	r := -1
	for k, v := range s {
		if k != c && (r < 0 || v > s[r]) {
			r = k
		}
	}
	return r
}

// ktArgmax returns the index of the largest element, the first on ties.
func ktArgmax(s []float64) int {
	best := 0
	for i, v := range s {
		if v > s[best] {
			best = i
		}
	}
	return best
}
