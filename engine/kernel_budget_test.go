package engine

import (
	"fmt"
	"slices"
	"testing"

	"github.com/hyperplane-ml/hyperplane/kernels"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// ---------------------------------------------------------------------
// 7. The support-vector budget.

// TestKernelBudgetEvictsSmallest builds cases where the vector to remove is
// known: three mistakes in a row on a budget of 2 remove the support
// vector of the smallest ‖α_j‖·√K(x_j,x_j), the oldest on a tie, whatever
// its norm alone says.
func TestKernelBudgetEvictsSmallest(t *testing.T) {
	type tc struct {
		name string
		x0   []float32
		cw   map[float64]float64
		keep [][]float32 // the support vectors left, in training order
		coef []float32
	}
	x1 := []float32{0, 3}
	x2 := []float32{0, -1}
	for _, c := range []tc{
		// ‖x0‖ = 1 < ‖x1‖ = 3, both α = ±1: x0 goes.
		{"smaller-norm", []float32{1, 0}, nil, [][]float32{x1, x2}, []float32{-1, -1}},
		// ‖x0‖ = 5 > 3: x1 goes.
		{"larger-norm", []float32{5, 0}, nil, [][]float32{{5, 0}, x2}, []float32{1, -1}},
		// 3 = 3: the oldest, x0, goes.
		{"tie-oldest", []float32{3, 0}, nil, [][]float32{x1, x2}, []float32{-1, -1}},
		// ‖x0‖ = 4 > 3 but α0 = 0.25: 0.25·4 = 1 < 3, x0 goes.
		{"small-alpha", []float32{4, 0}, map[float64]float64{1: 0.25}, [][]float32{x1, x2}, []float32{-1, -1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			// x0 (+1) is a mistake at f = 0; x1 (−1) too, as x1 ⊥ x0; and x2
			// (−1) has f(x2) = α1·(x1·x2) = 3 > 0, a third mistake on a full
			// budget.
			X := sparse.FromDense([][]float32{c.x0, x1, x2})
			y := []float64{1, -1, -1}
			var removed, maxSV []int
			cfg := KernelConfig{
				Config: Config{Algorithm: Plain, Bias: NoBias, NoShuffle: true, Epochs: 1, ClassWeight: c.cw},
				Kernel: kernels.Linear{}, MaxSupportVectors: 2,
				OnKernelEpoch: func(s KernelEpochStats) error {
					removed = append(removed, s.Removed)
					maxSV = append(maxSV, s.SupportVectors)
					return nil
				},
			}
			var m *KernelModel
			got := ktTrace(t, func() { m, _ = ktFit(t, X, y, cfg) })
			if !slices.Equal(got, []int{0, 1, 2}) {
				t.Fatalf("%s: mistakes on rows %v, want 0 1 2 (the case is built wrong)", c.name, got)
			}
			if !slices.Equal(removed, []int{1}) || !slices.Equal(maxSV, []int{2}) {
				t.Errorf("%s: epoch stats removed %v, support vectors %v; want [1] and [2]", c.name, removed, maxSV)
			}
			if m.NumSV() != len(c.keep) {
				t.Fatalf("%s: %d support vectors, want %d", c.name, m.NumSV(), len(c.keep))
			}
			for r, want := range c.keep {
				if got := m.SV.Row(r).Dense(); !slices.Equal(got, want) {
					t.Fatalf("%s: support vector %d is %v, want %v", c.name, r, got, want)
				}
				if m.Coef[r] != c.coef[r] {
					t.Fatalf("%s: Coef %v, want %v", c.name, m.Coef, c.coef)
				}
			}
		})
	}
}

// TestKernelBudgetMatchesReference: with a budget the dual perceptron makes
// the mistakes and removals of the slow reference budget perceptron; the
// support vectors never exceed the budget (every epoch, and in the model);
// Removed counts the removals; coefficients match exactly. (Only Plain
// takes a budget.)
func TestKernelBudgetMatchesReference(t *testing.T) {
	poly := kernels.Poly{Degree: 2, Coef0: 1}
	for _, c := range []struct {
		K      int
		budget int
		kern   kernels.Kernel
	}{
		{2, 8, poly},
		{2, 5, poly},
		{3, 12, poly},
		{3, 5, poly},
		{2, 10, kernels.Linear{}},
		{4, 9, kernels.Linear{}},
	} {
		t.Run(fmt.Sprintf("K=%d/budget=%d/%s", c.K, c.budget, c.kern), func(t *testing.T) {
			what := fmt.Sprintf("K=%d/budget=%d/%s", c.K, c.budget, c.kern)
			X, y := ktIntData(91+uint64(c.K*c.budget), 120, 20, 4, c.K, 0.2, 0)
			classes, cls := ktClasses(y)
			var perEpoch []KernelEpochStats
			cfg := KernelConfig{Config: Config{Algorithm: Plain, Epochs: 5, Seed: 11}, Kernel: c.kern, MaxSupportVectors: c.budget,
				OnKernelEpoch: func(s KernelEpochStats) error { perEpoch = append(perEpoch, s); return nil }}
			ref := ktRefRun(c.kern, X, cls, ktRefCfg{K: len(classes), Epochs: 5, BB: 1, Seed: 11, Budget: c.budget})
			var m *KernelModel
			var stats []KernelEpochStats
			got := ktTrace(t, func() { m, stats = ktFit(t, X, y, cfg) })
			ktSameSeq(t, what, got, ref.mistakes)
			ktCompareStats(t, what, stats, ref)
			if len(ref.removed) == 0 {
				t.Fatalf("%s: the budget removed nothing; the case tests nothing", what)
			}
			removed := 0
			for e, s := range perEpoch {
				if s.SupportVectors > c.budget || s.SupportVectors < 1 {
					t.Fatalf("%s: epoch %d ends with %d support vectors, budget %d", what, e+1, s.SupportVectors, c.budget)
				}
				removed += s.Removed
			}
			if removed != len(ref.removed) {
				t.Errorf("%s: Removed sums to %d, the reference removed %d", what, removed, len(ref.removed))
			}
			if m.NumSV() > c.budget {
				t.Errorf("%s: model has %d support vectors, budget %d", what, m.NumSV(), c.budget)
			}
			coef := ktCoefByRow(t, m, X)
			ktCompare(t, what+": Coef", coef, ref.alpha, 0)
			ktCompare(t, what+": B", m.B, ref.b, 0)
			if m.NumSV() != perEpoch[len(perEpoch)-1].SupportVectors {
				t.Errorf("%s: model has %d support vectors, the last epoch reported %d", what, m.NumSV(), perEpoch[len(perEpoch)-1].SupportVectors)
			}
		})
	}
}
