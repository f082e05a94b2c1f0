package engine

import (
	"math"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

// Finite weights and values can overflow float32 scores: 1e20·1e20 is
// +Inf, and +Inf plus −Inf is NaN. The label must still be the sign of the
// exact score, and no score may come out NaN.
func TestOverflowingScores(t *testing.T) {
	bin := &Model{Classes: []float64{-1, 1}, Dim: 2, W: []float32{1e20, 2e20}, B: []float32{0}}
	// Exact score: −1e40 + 2e40 = +1e40 (beyond float32: +Inf), label 1.
	x := sparse.Vector{Dim: 2, Ind: []int32{0, 1}, Val: []float32{-1e20, 1e20}}
	dense := []float32{-1e20, 1e20}
	X := sparse.FromDense([][]float32{dense, {1, 1}})
	for _, norm := range []bool{false, true} {
		bin.Normalize = norm
		if d := bin.Decision(x); d <= 0 || d != d {
			t.Errorf("normalize %v: Decision %v, want > 0", norm, d)
		}
		if d := bin.DecisionDense(dense); d <= 0 || d != d {
			t.Errorf("normalize %v: DecisionDense %v, want > 0", norm, d)
		}
		if p := bin.Predict(x); p != 1 {
			t.Errorf("normalize %v: Predict %v, want 1", norm, p)
		}
		if p := bin.PredictDense(dense); p != 1 {
			t.Errorf("normalize %v: PredictDense %v, want 1", norm, p)
		}
		if p := bin.PredictBatch(X, nil); p[0] != 1 || p[1] != 1 {
			t.Errorf("normalize %v: PredictBatch %v, want [1 1]", norm, p)
		}
		if d := bin.DecisionBatch(X, nil); !(d[0] > 0) {
			t.Errorf("normalize %v: DecisionBatch %v", norm, d)
		}
	}
	// Multiclass: class 0's float32 score is NaN, class 1's exact score
	// is the largest; with the bias alone class 2 would win.
	mc := &Model{Classes: []float64{0, 1, 2}, Dim: 2,
		W: []float32{1e20, 2e20, 0, 1e20, 3e20, 0},
		B: []float32{0, 0, 1}}
	// Scores: class 0: −1e40+1e40 = 0; class 1: −2e40+3e40 = +1e40; class 2: 1.
	for _, norm := range []bool{false, true} {
		mc.Normalize = norm
		if p := mc.Predict(x); p != 1 {
			t.Errorf("normalize %v: multiclass Predict %v, want 1", norm, p)
		}
		if p := mc.PredictDense(dense); p != 1 {
			t.Errorf("normalize %v: multiclass PredictDense %v, want 1", norm, p)
		}
		for k, s := range mc.Scores(x, nil) {
			if s != s {
				t.Errorf("normalize %v: score %d is NaN", norm, k)
			}
		}
	}
}

func TestArgmaxIgnoresNaN(t *testing.T) {
	nan := float32(math.NaN())
	for _, c := range []struct {
		s    []float32
		want int
	}{
		{[]float32{nan, 1, 2}, 2},
		{[]float32{1, nan, 0}, 0},
		{[]float32{nan, nan, -5}, 2},
		{[]float32{3, 3, 1}, 0},
	} {
		if got := argmax(c.s); got != c.want {
			t.Errorf("argmax(%v) = %d, want %d", c.s, got, c.want)
		}
	}
}
