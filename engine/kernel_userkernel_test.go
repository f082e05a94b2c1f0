package engine

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/hyperplane-ml/hyperplane/kernels"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// ktUserPoly is (x·z + 1)², implemented outside the built-in kernels (no
// DotKernel fast path).
type ktUserPoly struct{}

func (ktUserPoly) Dense(x, z []float32) float64 {
	var s float64
	for i := range x {
		s += float64(x[i]) * float64(z[i])
	}
	return (s + 1) * (s + 1)
}
func (ktUserPoly) Sparse(x, z sparse.Vector) float64 {
	s := kernels.SparseDot(x, z)
	return (s + 1) * (s + 1)
}
func (ktUserPoly) String() string { return "test:poly2" }

// ktLaplace is the Laplacian kernel exp(−γ‖x − z‖₁).
type ktLaplace struct{ gamma float64 }

func (k ktLaplace) Dense(x, z []float32) float64 {
	var d float64
	for i := range x {
		d += math.Abs(float64(x[i]) - float64(z[i]))
	}
	return math.Exp(-k.gamma * d)
}
func (k ktLaplace) Sparse(x, z sparse.Vector) float64 {
	var d float64
	i, j := 0, 0
	for i < len(x.Ind) || j < len(z.Ind) {
		switch {
		case j == len(z.Ind) || (i < len(x.Ind) && x.Ind[i] < z.Ind[j]):
			d += math.Abs(float64(x.Val[i]))
			i++
		case i == len(x.Ind) || z.Ind[j] < x.Ind[i]:
			d += math.Abs(float64(z.Val[j]))
			j++
		default:
			d += math.Abs(float64(x.Val[i]) - float64(z.Val[j]))
			i++
			j++
		}
	}
	return math.Exp(-k.gamma * d)
}
func (k ktLaplace) String() string { return fmt.Sprintf("test:laplace:%v", k.gamma) }

// TestKernelUserDefined: a kernel that implements kernels.Kernel only
// trains and predicts. (x·z+1)² written by hand gives, on integer data,
// the bit-identical model and predictions of kernels.Poly{2, 1, 1}; a
// Laplacian kernel learns XOR and predicts as a direct evaluation says,
// on sparse, dense, short, long and batched rows.
func TestKernelUserDefined(t *testing.T) {
	for _, dense := range []bool{false, true} {
		t.Run(fmt.Sprintf("dense=%v", dense), func(t *testing.T) {
			var X *sparse.CSR
			var y []float64
			if dense {
				X, y = ktIntData(131, 120, 8, 8, 3, 0.1, 0)
			} else {
				X, y = ktIntData(132, 120, 30, 4, 3, 0.1, 0)
			}
			for _, alg := range []Algorithm{Averaged, Plain, Voted} {
				what := fmt.Sprintf("dense=%v/%v", dense, alg)
				var mu, mb *KernelModel
				tu := ktTrace(t, func() {
					mu, _ = ktFit(t, X, y, KernelConfig{Config: Config{Algorithm: alg, Epochs: 3, Seed: 2}, Kernel: ktUserPoly{}})
				})
				tb := ktTrace(t, func() {
					mb, _ = ktFit(t, X, y, KernelConfig{Config: Config{Algorithm: alg, Epochs: 3, Seed: 2}, Kernel: kernels.Poly{Degree: 2, Coef0: 1}})
				})
				ktSameSeq(t, what, tu, tb)
				ktSameModel(t, what+": user (x·z+1)² vs Poly", mu, mb)
				if _, ok := mu.Kernel.(ktUserPoly); !ok {
					t.Errorf("%s: model kernel %T", what, mu.Kernel)
				}
				pu, pb := mu.PredictBatch(X, nil), mb.PredictBatch(X, nil)
				du, db := mu.DecisionBatch(X, nil), mb.DecisionBatch(X, nil)
				for i := range X.Rows {
					x := X.Row(i)
					if mu.Decision(x) != mb.Decision(x) || mu.Predict(x) != mb.Predict(x) || pu[i] != pb[i] || du[i] != db[i] {
						t.Fatalf("%s: row %d: user kernel predicts %v/%v (batch %v/%v), Poly %v/%v (batch %v/%v)",
							what, i, mu.Predict(x), mu.Decision(x), pu[i], du[i], mb.Predict(x), mb.Decision(x), pb[i], db[i])
					}
					xd := x.Dense()
					for _, row := range [][]float32{xd, xd[:len(xd)-2], append(slices.Clone(xd), 2, -1)} {
						if a, b := mu.DecisionDense(row), mb.DecisionDense(row); a != b {
							t.Fatalf("%s: row %d dense (len %d): user %v, Poly %v", what, i, len(row), a, b)
						}
					}
				}
			}
		})
	}

	X, y := ktXOR(133, 20, 0.4)
	m, stats := ktFit(t, X, y, KernelConfig{Config: Config{Algorithm: Plain, Epochs: 100, Seed: 1}, Kernel: ktLaplace{gamma: 1}})
	if stats[len(stats)-1].Updates != 0 || ktAccuracy(m, X, y) != 1 {
		t.Fatalf("Laplacian kernel on XOR: accuracy %v after %d epochs", ktAccuracy(m, X, y), len(stats))
	}
	if err := m.Check(); err != nil {
		t.Fatalf("Laplacian model: %v", err)
	}
	test, _ := ktXOR(134, 10, 0.6)
	for i := range test.Rows {
		x := test.Row(i)
		want, tol := ktRefScores(m, x)
		if d := m.Decision(x); math.Abs(float64(d)-want[0]) > tol[0] {
			t.Fatalf("Laplacian: row %d: Decision %v, reference %v", i, d, want[0])
		}
		if d := m.DecisionDense(x.Dense()); math.Abs(float64(d)-want[0]) > tol[0] {
			t.Fatalf("Laplacian: row %d: DecisionDense %v, reference %v", i, d, want[0])
		}
		long := append(x.Dense(), 0.5)
		xl := sparse.Vector{Dim: 3, Ind: append(slices.Clone(x.Ind), 2), Val: append(slices.Clone(x.Val), 0.5)}
		wl, tl := ktRefScores(m, xl)
		if d := m.DecisionDense(long); math.Abs(float64(d)-wl[0]) > tl[0] {
			t.Fatalf("Laplacian: row %d long: DecisionDense %v, reference %v", i, d, wl[0])
		}
		if d := m.Decision(xl); math.Abs(float64(d)-wl[0]) > tl[0] {
			t.Fatalf("Laplacian: row %d wide: Decision %v, reference %v", i, d, wl[0])
		}
	}
	db := m.DecisionBatch(test, nil)
	for i := range test.Rows {
		want, tol := ktRefScores(m, test.Row(i))
		if math.Abs(float64(db[i])-want[0]) > tol[0] {
			t.Fatalf("Laplacian: DecisionBatch row %d = %v, reference %v", i, db[i], want[0])
		}
	}
}
