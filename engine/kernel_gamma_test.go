package engine

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/kernels"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// ---------------------------------------------------------------------
// 10. ScaleGamma.

// TestKernelScaleGamma compares ScaleGamma with 1/(Dim·Var) computed
// directly (two passes over every cell, zeros included, in float64), and
// checks the degenerate cases and that it is the default kernel's γ.
func TestKernelScaleGamma(t *testing.T) {
	direct := func(X *sparse.CSR) float64 {
		cells := float64(X.Rows * X.Cols)
		var s float64
		for _, v := range X.Val {
			s += float64(v)
		}
		mean := s / cells
		var ss float64
		for i := range X.Rows {
			d := X.Row(i).Dense()
			for j := range X.Cols {
				v := 0.0
				if j < len(d) {
					v = float64(d[j])
				}
				ss += (v - mean) * (v - mean)
			}
		}
		return 1 / (float64(X.Cols) * ss / cells)
	}
	for _, c := range []struct {
		name string
		X    *sparse.CSR
	}{
		{"dense", func() *sparse.CSR { X, _ := ktFloatData(141, 80, 12, 1, 2, 0); return X }()},
		{"sparse", func() *sparse.CSR { X, _ := ktFloatData(142, 80, 200, 0.05, 2, 0); return X }()},
		{"integer", func() *sparse.CSR { X, _ := ktIntData(143, 80, 40, 5, 2, 0, 0); return X }()},
		{"shifted", func() *sparse.CSR {
			r := ktRNG(144)
			rows := make([][]float32, 50)
			for i := range rows {
				rows[i] = []float32{float32(100 + r.Float64()), float32(200 + r.Float64()), float32(50 + r.Float64())}
			}
			return sparse.FromDense(rows)
		}()},
	} {
		got, want := ScaleGamma(c.X), direct(c.X)
		if math.Abs(got-want) > 1e-6*want {
			t.Errorf("%s: ScaleGamma %v, direct %v", c.name, got, want)
		}
	}
	if g := ScaleGamma(&sparse.CSR{Cols: 4, Indptr: []int64{0}}); g != 1 {
		t.Errorf("no rows: %v, want 1", g)
	}
	if g := ScaleGamma(&sparse.CSR{Rows: 3, Cols: 4, Indptr: []int64{0, 0, 0, 0}}); g != 1 {
		t.Errorf("all zero: %v, want 1", g)
	}
	X, y := ktFloatData(145, 60, 6, 1, 2, 0.1)
	m, _ := ktFit(t, X, y, KernelConfig{Config: Config{Epochs: 2}})
	if k, ok := m.Kernel.(kernels.RBF); !ok || k.Gamma != ScaleGamma(X) {
		t.Errorf("default kernel %v, want RBF of γ %v", m.Kernel, ScaleGamma(X))
	}
}

// TestKernelScaleGammaConstantData: a one-pass variance, E[x²] − E[x]²,
// cancels catastrophically when the spread of the entries is small against
// their mean: a constant matrix (variance exactly 0, documented γ 1) got
// γ ≈ 1e10 or more from rounding noise, and nearly constant data a γ off
// by percents, or 1. ScaleGamma now takes the mean first; this test failed
// with the one-pass formula.
func TestKernelScaleGammaConstantData(t *testing.T) {
	constant := func(v float32, n, c int) *sparse.CSR {
		rows := make([][]float32, n)
		for i := range rows {
			rows[i] = make([]float32, c)
			for j := range rows[i] {
				rows[i][j] = v
			}
		}
		return sparse.FromDense(rows)
	}
	for _, c := range []struct {
		v    float32
		n, c int
	}{{1, 30, 7}, {6.7745566, 185, 16}, {2.8244913, 199, 9}, {7.650947, 220, 11}} {
		if g := ScaleGamma(constant(c.v, c.n, c.c)); g != 1 {
			t.Errorf("constant %v (%d×%d): ScaleGamma %v, want 1 (variance 0)", c.v, c.n, c.c, g)
		}
	}
	r := ktRNG(146)
	for _, c := range []struct{ base, spread float64 }{{100, 1e-3}, {1000, 1e-2}, {1000, 1e-4}} {
		rows := make([][]float32, 200)
		var vals []float64
		for i := range rows {
			rows[i] = make([]float32, 10)
			for j := range rows[i] {
				rows[i][j] = float32(c.base + c.spread*r.Float64())
				vals = append(vals, float64(rows[i][j]))
			}
		}
		var sum, ss float64
		for _, v := range vals {
			sum += v
		}
		mean := sum / float64(len(vals))
		for _, v := range vals {
			ss += (v - mean) * (v - mean)
		}
		want := 1 / (10 * ss / float64(len(vals)))
		if got := ScaleGamma(sparse.FromDense(rows)); math.Abs(got-want) > 1e-6*want {
			t.Errorf("entries %v + U(0, %v): ScaleGamma %v, direct two-pass %v (relative error %.2g)", c.base, c.spread, got, want, (got-want)/want)
		}
	}
}

// TestKernelDefaultGammaTinyValues: rows of values near 1e-18 make the
// default gamma 1/(features·variance) too large for the kernels; the
// error says the data need scaling instead of blaming a gamma the caller
// never set.
func TestKernelDefaultGammaTinyValues(t *testing.T) {
	X := sparse.FromDense([][]float32{{1e-18, 0}, {0, 1e-18}, {2e-18, 1e-18}, {0, 3e-18}})
	_, _, err := FitKernel(context.Background(), X, []float64{1, -1, 1, -1}, KernelConfig{})
	if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "scale the features") {
		t.Fatalf("default kernel on values near 1e-18: %v", err)
	}
}
