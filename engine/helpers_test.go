package engine

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

// Helpers shared by the engine's tests carry the prefix fx (fixture) so
// that they cannot collide with helpers of other test files. The kernel
// perceptron's own helpers (prefix kt) are in kernel_helpers_test.go;
// they compare floats with fxULP below, the one ulp distance of the
// package's tests.

// fxRNG returns a PCG generator for seed.
func fxRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5eed)) }

// fxRow draws nnz distinct sorted features of [0, cols) with integer
// values in [−3, 3] \ {0}.
func fxRow(r *rand.Rand, cols, nnz int) ([]int32, []float32) {
	perm := r.Perm(cols)[:nnz]
	slices.Sort(perm)
	ind := make([]int32, nnz)
	val := make([]float32, nnz)
	for k, j := range perm {
		ind[k] = int32(j)
		v := float32(r.IntN(3) + 1)
		if r.IntN(2) == 0 {
			v = -v
		}
		val[k] = v
	}
	return ind, val
}

// fxIntBinary returns rows sparse rows of nnz integer features each over
// cols columns, labelled ±1 by a hidden integer hyperplane, each label
// flipped with probability noise.
func fxIntBinary(seed uint64, rows, cols, nnz int, noise float64) (*sparse.CSR, []float64) {
	r := fxRNG(seed)
	u := make([]float64, cols)
	for j := range u {
		u[j] = float64(r.IntN(7) - 3)
	}
	b := sparse.NewBuilder(cols)
	y := make([]float64, rows)
	for i := range rows {
		ind, val := fxRow(r, cols, nnz)
		s := 0.5 // ties go to +1
		for k, j := range ind {
			s += u[j] * float64(val[k])
		}
		y[i] = 1
		if s < 0 {
			y[i] = -1
		}
		if r.Float64() < noise {
			y[i] = -y[i]
		}
		if err := b.Add(ind, val); err != nil {
			panic(err)
		}
	}
	return b.Build(), y
}

// fxIntMulti returns integer sparse rows labelled 0..K−1 by the argmax of
// K hidden integer hyperplanes, each label replaced by a random class
// with probability noise.
func fxIntMulti(seed uint64, rows, cols, nnz, K int, noise float64) (*sparse.CSR, []float64) {
	r := fxRNG(seed)
	u := make([][]float64, K)
	for k := range u {
		u[k] = make([]float64, cols)
		for j := range u[k] {
			u[k][j] = float64(r.IntN(7) - 3)
		}
	}
	b := sparse.NewBuilder(cols)
	y := make([]float64, rows)
	for i := range rows {
		ind, val := fxRow(r, cols, nnz)
		best, bs := 0, math.Inf(-1)
		for k := range K {
			s := 0.0
			for q, j := range ind {
				s += u[k][j] * float64(val[q])
			}
			if s > bs {
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

// fxDenseSeparable returns rows dense-ish rows (every feature set, values
// uniform in [−1, 1]) labelled by the argmax of K random hyperplanes (the
// sign of one for K = 2, labels 0/1), keeping only rows whose best class
// leads the next by at least gap.
func fxDenseSeparable(seed uint64, rows, cols, K int, gap float64) (*sparse.CSR, []float64) {
	r := fxRNG(seed)
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
	var dense [][]float32
	var y []float64
	for len(y) < rows {
		x := make([]float32, cols)
		for j := range x {
			x[j] = float32(2*r.Float64() - 1)
		}
		s := make([]float64, nh)
		for k := range s {
			s[k] = bias[k]
			for j, v := range x {
				s[k] += u[k][j] * float64(v)
			}
		}
		var label float64
		if K == 2 {
			if math.Abs(s[0]) < gap {
				continue
			}
			if s[0] > 0 {
				label = 1
			}
		} else {
			order := make([]int, K)
			for k := range order {
				order[k] = k
			}
			slices.SortFunc(order, func(a, b int) int {
				switch {
				case s[a] > s[b]:
					return -1
				case s[a] < s[b]:
					return 1
				}
				return 0
			})
			if s[order[0]]-s[order[1]] < gap {
				continue
			}
			label = float64(order[0])
		}
		dense = append(dense, x)
		y = append(y, label)
	}
	X := sparse.FromDense(dense)
	X.Cols = cols
	return X, y
}

// fxFit calls Fit and fails the test on an error.
func fxFit(t testing.TB, X *sparse.CSR, y []float64, cfg Config) (*Model, []EpochStats) {
	t.Helper()
	m, stats, err := Fit(context.Background(), X, y, cfg)
	if err != nil {
		t.Fatalf("Fit(%+v): %v", cfg, err)
	}
	if err := m.Check(); err != nil {
		t.Fatalf("trained model fails Check: %v", err)
	}
	return m, stats
}

// fxOrdered maps float32 bits onto integers that order like the floats.
func fxOrdered(f float32) int64 {
	b := math.Float32bits(f)
	if b&0x80000000 != 0 {
		return -int64(b & 0x7fffffff)
	}
	return int64(b)
}

// fxULP returns the distance between a and b in float32 units in the
// last place (0 for equal values, +0 and −0 included).
func fxULP(a, b float32) int64 {
	d := fxOrdered(a) - fxOrdered(b)
	if d < 0 {
		d = -d
	}
	return d
}

// fxSameModel fails unless a and b have the same columns and
// bit-identical weights and biases.
func fxSameModel(t testing.TB, what string, a, b *Model) {
	t.Helper()
	if a.Dim != b.Dim || len(a.W) != len(b.W) || len(a.B) != len(b.B) || !slices.Equal(a.Cols, b.Cols) || (a.Cols == nil) != (b.Cols == nil) {
		t.Fatalf("%s: shapes differ: dim %d/%d, %d/%d weights, %d/%d biases, %d/%d columns", what, a.Dim, b.Dim, len(a.W), len(b.W), len(a.B), len(b.B), len(a.Cols), len(b.Cols))
	}
	for i := range a.W {
		if math.Float32bits(a.W[i]) != math.Float32bits(b.W[i]) {
			t.Fatalf("%s: W[%d] = %v vs %v (not bit-identical)", what, i, a.W[i], b.W[i])
		}
	}
	for i := range a.B {
		if math.Float32bits(a.B[i]) != math.Float32bits(b.B[i]) {
			t.Fatalf("%s: B[%d] = %v vs %v (not bit-identical)", what, i, a.B[i], b.B[i])
		}
	}
}

// fxTotalUpdates sums Updates over the epochs.
func fxTotalUpdates(stats []EpochStats) int {
	n := 0
	for _, s := range stats {
		n += s.Updates
	}
	return n
}

// fxClassIndex returns the index of every label among the ascending
// classes.
func fxClassIndex(classes []float64, y []float64) []int {
	c := make([]int, len(y))
	for i, v := range y {
		c[i] = slices.Index(classes, v)
		if c[i] < 0 {
			panic(fmt.Sprintf("label %v not in %v", v, classes))
		}
	}
	return c
}
