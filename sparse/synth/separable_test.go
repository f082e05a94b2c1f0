package synth

import (
	"errors"
	"math"
	"slices"
	"testing"
)

func mustSeparable(t *testing.T, cfg Separable) *SeparableData {
	t.Helper()
	d, err := cfg.Generate()
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Data.Validate(); err != nil {
		t.Fatal(err)
	}
	return d
}

// perceptron runs the classic perceptron (no bias, w = 0 at the start, in
// float64) over the rows in order until a pass makes no mistake, and
// returns the number of mistakes.
func perceptron(x [][]float32, y []float64, maxPasses int) (mistakes int, converged bool) {
	w := make([]float64, len(x[0]))
	for range maxPasses {
		before := mistakes
		for i, row := range x {
			var s float64
			for j, v := range row {
				s += w[j] * float64(v)
			}
			if y[i]*s <= 0 {
				mistakes++
				for j, v := range row {
					w[j] += y[i] * float64(v)
				}
			}
		}
		if mistakes == before {
			return mistakes, true
		}
	}
	return mistakes, false
}

func TestSeparableMargin(t *testing.T) {
	for _, cfg := range []Separable{
		{N: 2000, Dim: 1, Margin: 0.2, Seed: 1},
		{N: 2000, Dim: 2, Seed: 2},
		{N: 1000, Dim: 20, Radius: 3, Margin: 0.05, Seed: 3},
		{N: 500, Dim: 200, Margin: 0.5, Seed: 4}, // mass of the band ≈ 10^-13 of the ball
		{N: 300, Dim: 2000, Margin: 0.01, Seed: 5},
		{N: 300, Dim: 50, Margin: 0.999, Seed: 6},
		{N: 300, Dim: 3, Radius: 1e-9, Margin: 0.9999e-9, Seed: 7},
		{N: 300, Dim: 1000, Radius: 1e12, Margin: 0.9999e12, Seed: 8},
	} {
		d := mustSeparable(t, cfg)
		c, _ := cfg.normalize()
		X := d.Data.X
		if X.Rows != cfg.N || X.Cols != cfg.Dim || X.NNZ() != int64(cfg.N*cfg.Dim) || len(d.Dense) != cfg.N || len(d.U) != cfg.Dim {
			t.Fatalf("%+v: wrong shapes", cfg)
		}
		var uu float64
		for _, v := range d.U {
			uu += v * v
		}
		if math.Abs(uu-1) > 1e-12 {
			t.Fatalf("%+v: ‖u‖² = %v", cfg, uu)
		}
		R, gamma, pos := 0.0, math.Inf(1), 0
		for i := range cfg.N {
			row := X.Row(i)
			if !slices.Equal(row.Val, d.Dense[i]) {
				t.Fatalf("%+v: row %d: CSR and dense differ", cfg, i)
			}
			nrm, ux := norms(d.Dense[i], d.U)
			m := d.Data.Y[i] * ux / math.Sqrt(uu)
			if nrm > c.Radius || m < c.Margin {
				t.Fatalf("%+v: point %d has norm %v and margin %v", cfg, i, nrm, m)
			}
			if y := d.Data.Y[i]; y == 1 {
				pos++
			} else if y != -1 {
				t.Fatalf("label %v", y)
			}
			R, gamma = max(R, nrm), min(gamma, m)
		}
		if R != d.R || gamma != d.Gamma {
			t.Fatalf("%+v: measured R = %v, γ = %v; returned %v, %v", cfg, R, gamma, d.R, d.Gamma)
		}
		if f := float64(pos) / float64(cfg.N); f < 0.4 || f > 0.6 {
			t.Errorf("%+v: %.3f of labels are +1", cfg, f)
		}
		// The sample fills the allowed region: the extremes come close to
		// the configured bounds.
		if d.R < 0.9*c.Radius || d.Gamma > c.Margin+0.1*(c.Radius-c.Margin) {
			t.Errorf("%+v: R = %v, γ = %v do not approach the bounds", cfg, d.R, d.Gamma)
		}
	}
}

func TestSeparablePerceptronBound(t *testing.T) {
	for _, cfg := range []Separable{
		{N: 400, Dim: 10, Margin: 0.1, Seed: 1},
		{N: 400, Dim: 50, Margin: 0.05, Seed: 2},
		{N: 200, Dim: 2, Margin: 0.02, Seed: 3},
		{N: 300, Dim: 100, Margin: 0.3, Radius: 2, Seed: 4},
	} {
		d := mustSeparable(t, cfg)
		m, ok := perceptron(d.Dense, d.Data.Y, 10000)
		if !ok || float64(m) > d.MistakeBound() {
			t.Errorf("%+v: %d mistakes (converged %v), bound (R/γ)² = %.1f", cfg, m, ok, d.MistakeBound())
		}
	}
}

func TestSeparableDeterministic(t *testing.T) {
	var ref *SeparableData
	for _, w := range []int{1, 2, 7} {
		d := mustSeparable(t, Separable{N: 1500, Dim: 30, Seed: 9, Workers: w})
		if ref == nil {
			ref = d
			continue
		}
		if !slices.Equal(ref.Data.X.Val, d.Data.X.Val) || !slices.Equal(ref.Data.Y, d.Data.Y) || !slices.Equal(ref.U, d.U) || ref.R != d.R || ref.Gamma != d.Gamma {
			t.Fatalf("Workers = %d changed the data", w)
		}
	}
}

// TestAxisDistribution checks the sampler of u·x against the exact mean
// of the density ∝ (1−s²)^m on [g, 1].
func TestAxisDistribution(t *testing.T) {
	for _, c := range []struct{ g, m float64 }{
		{0.1, 0}, {0.3, 0.5}, {0, 2}, {0.05, 10}, {0.3, 50}, {0.5, 1000}, {0.01, 5000}, {0.9, 3},
	} {
		a := newAxis(c.g, c.m)
		r := seedRNG(3, 1, uint64(c.m))
		const n = 100000
		var sum, sum2 float64
		for range n {
			s := a.sample(&r)
			if s < c.g || s > 1 {
				t.Fatalf("g = %g, m = %g: sample %v outside [g, 1]", c.g, c.m, s)
			}
			sum += s
			sum2 += s * s
		}
		// E[s] = ∫ s f / ∫ f, with ∫ s(1−s²)^m = (1−g²)^(m+1)/(2(m+1)) and
		// ∫ f by Simpson's rule on a fine grid near g, where f lives.
		f := func(s float64) float64 { return math.Exp(c.m * (math.Log1p(-s*s) - math.Log1p(-c.g*c.g))) }
		const k = 200000
		h := (1 - c.g) / k
		z := f(c.g) + f(1)
		for i := 1; i < k; i++ {
			z += float64(2+2*(i%2)) * f(c.g+float64(i)*h)
		}
		z *= h / 3
		want := (1 - c.g*c.g) / (2 * (c.m + 1)) / z
		mean := sum / n
		sd := math.Sqrt((sum2/n - mean*mean) / n)
		if math.Abs(mean-want) > 5*sd {
			t.Errorf("g = %g, m = %g: mean %.6f, want %.6f ± %.6f", c.g, c.m, mean, want, sd)
		}
	}
}

func TestSeparableConfigErrors(t *testing.T) {
	for _, cfg := range []Separable{
		{},
		{N: 10},
		{Dim: 10},
		{N: -1, Dim: 3},
		{N: 3, Dim: -1},
		{N: 3, Dim: 3, Radius: -1},
		{N: 3, Dim: 3, Radius: math.NaN()},
		{N: 3, Dim: 3, Radius: 1e16},
		{N: 3, Dim: 3, Radius: 1e-16},
		{N: 3, Dim: 3, Margin: 0.99995},
		{N: 3, Dim: 3, Margin: 1},
		{N: 3, Dim: 3, Margin: -0.1},
		{N: 3, Dim: 3, Radius: 2, Margin: 3},
		{N: 3, Dim: 3, Workers: -1},
		{N: math.MaxInt / 2, Dim: 3},
	} {
		if _, err := cfg.Generate(); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: err = %v, want ErrConfig", cfg, err)
		}
	}
}
