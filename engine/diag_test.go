package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

// separable draws n points in d dimensions, uniformly in the ball of
// radius R, keeping those at least gamma from the hyperplane u·x = 0 of a
// random unit u, and labels them by the side. It returns u too.
func separable(r *rand.Rand, n, d int, radius, gamma float64) (*sparse.CSR, []float64, []float64) {
	u := make([]float64, d)
	var nu float64
	for j := range u {
		u[j] = r.NormFloat64()
		nu += u[j] * u[j]
	}
	for j := range u {
		u[j] /= math.Sqrt(nu)
	}
	rows := make([][]float32, 0, n)
	y := make([]float64, 0, n)
	for len(rows) < n {
		x := make([]float64, d)
		var nx float64
		for j := range x {
			x[j] = r.NormFloat64()
			nx += x[j] * x[j]
		}
		s := radius * math.Pow(r.Float64(), 1/float64(d)) / math.Sqrt(nx)
		var dot float64
		row := make([]float32, d)
		for j := range x {
			row[j] = float32(x[j] * s)
			dot += float64(row[j]) * u[j]
		}
		if math.Abs(dot) < gamma {
			continue
		}
		rows = append(rows, row)
		y = append(y, math.Copysign(1, dot))
	}
	return sparse.FromDense(rows), y, u
}

// TestMistakeBound: Novikoff's theorem, measured. The plain perceptron
// with no bias, started at zero, must make at most (R/γ)² mistakes in all
// on data that a unit vector separates with margin γ, whatever the order;
// and Margins of the converged model must report a bound the mistakes
// also respect (the model's own direction is a separator).
func TestMistakeBound(t *testing.T) {
	for seed := uint64(1); seed <= 12; seed++ {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 3))
			d := 2 + int(seed%5)*3
			gamma := 0.05 + 0.05*float64(seed%4)
			X, y, u := separable(r, 300, d, 1, gamma)
			m, stats, err := Fit(context.Background(), X, y, Config{Algorithm: Plain, Bias: NoBias, Epochs: 100000, Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			if last := stats[len(stats)-1]; last.Mistakes != 0 {
				t.Fatalf("seed %d: no convergence after %d epochs", seed, len(stats))
			}
			mistakes := 0
			for _, s := range stats {
				mistakes += s.Mistakes
			}
			// The radius and margin of the true separator, measured on the
			// float32 rows.
			var R float64
			gu := math.Inf(1)
			for i := 0; i < X.Rows; i++ {
				row := X.Row(i)
				var n2, dot float64
				for k, j := range row.Ind {
					v := float64(row.Val[k])
					n2 += v * v
					dot += v * u[j]
				}
				R = math.Max(R, math.Sqrt(n2))
				gu = math.Min(gu, y[i]*dot)
			}
			bound := (R / gu) * (R / gu)
			t.Logf("seed %d: d=%d γ=%.3f R=%.3f: %d mistakes in %d epochs, bound %.0f", seed, d, gu, R, mistakes, len(stats), bound)
			if float64(mistakes) > bound {
				t.Errorf("seed %d: %d mistakes exceed (R/γ)² = %.1f for the planted separator", seed, mistakes, bound)
			}
			ms, err := Margins(m, X, y)
			if err != nil {
				t.Fatal(err)
			}
			if !ms.Separable || ms.Errors != 0 || ms.Functional <= 0 {
				t.Fatalf("seed %d: converged model reported as not separating: %+v", seed, ms)
			}
			if math.Abs(ms.Radius-R) > 1e-6*R {
				t.Errorf("seed %d: radius %v, want %v", seed, ms.Radius, R)
			}
			if float64(mistakes) > ms.Bound {
				t.Errorf("seed %d: %d mistakes exceed the bound %.1f from the learned direction", seed, mistakes, ms.Bound)
			}
			if ms.Geometric > R {
				t.Errorf("seed %d: geometric margin %v larger than the radius %v", seed, ms.Geometric, R)
			}
		})
	}
}

// TestMulticlassMistakeBound: the Kesler construction's bound 2(R/γ)²
// with the learned weights as the separator holds for the multiclass
// perceptron too.
func TestMulticlassMistakeBound(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	const k, d, n = 4, 6, 400
	sep := make([][]float64, k)
	for c := range sep {
		sep[c] = make([]float64, d)
		for j := range sep[c] {
			sep[c][j] = r.NormFloat64()
		}
	}
	var rows [][]float32
	var y []float64
	for len(rows) < n {
		row := make([]float32, d)
		for j := range row {
			row[j] = float32(2*r.Float64() - 1)
		}
		s := make([]float64, k)
		for c := range sep {
			for j := range row {
				s[c] += sep[c][j] * float64(row[j])
			}
		}
		best, second := 0, -1
		for c := 1; c < k; c++ {
			if s[c] > s[best] {
				best, second = c, best
			} else if second < 0 || s[c] > s[second] {
				second = c
			}
		}
		if s[best]-s[second] < 0.3 {
			continue
		}
		rows = append(rows, row)
		y = append(y, float64(best))
	}
	X := sparse.FromDense(rows)
	m, stats, err := Fit(context.Background(), X, y, Config{Algorithm: Plain, Bias: NoBias, Epochs: 100000})
	if err != nil {
		t.Fatal(err)
	}
	mistakes := 0
	for _, s := range stats {
		mistakes += s.Mistakes
	}
	ms, err := Margins(m, X, y)
	if err != nil {
		t.Fatal(err)
	}
	if !ms.Separable || float64(mistakes) > ms.Bound {
		t.Fatalf("%d mistakes, margins %+v", mistakes, ms)
	}
}

// TestMarginsByHand checks every figure on three points.
func TestMarginsByHand(t *testing.T) {
	X := sparse.FromDense([][]float32{{3, 4}, {0, -1}, {1, 0}})
	y := []float64{1, -1, 1}
	m := &Model{Classes: []float64{-1, 1}, Dim: 2, W: []float32{1, 1}, B: []float32{-0.5}, BiasScale: 1}
	ms, err := Margins(m, X, y)
	if err != nil {
		t.Fatal(err)
	}
	// Margins y(w·x+b): 6.5, 1.5, 0.5 → functional 0.5; ‖w‖ = √2.
	if ms.Functional != 0.5 || math.Abs(ms.Geometric-0.5/math.Sqrt2) > 1e-12 || ms.Radius != 5 || !ms.Separable {
		t.Fatalf("%+v", ms)
	}
	// The bound is taken in the augmented space: R² = 25+1, ‖(w,b)‖² =
	// 2.25, γ = 0.5/1.5.
	if want := 26 / (0.5 / 1.5 * 0.5 / 1.5); math.Abs(ms.Bound-want) > 1e-9*want {
		t.Fatalf("bound %v, want %v", ms.Bound, want)
	}
	// Augmented: the constant feature counts in the radius and the norm.
	// The stored bias −0.5 is b·A with A = 2: b = −0.25.
	m.Bias, m.BiasScale = BiasAugmented, 2
	ms, _ = Margins(m, X, y)
	if math.Abs(ms.Radius-math.Sqrt(29)) > 1e-12 || math.Abs(ms.Geometric-0.5/math.Sqrt(2.0625)) > 1e-12 {
		t.Fatalf("augmented: %+v", ms)
	}
	// A point on the wrong side: not separable, infinite bound.
	y[1] = 1
	ms, _ = Margins(m, X, y)
	if ms.Separable || ms.Errors != 1 || !math.IsInf(ms.Bound, 1) || ms.Functional != -1.5 {
		t.Fatalf("wrong side: %+v", ms)
	}
	if _, err := Margins(m, X, []float64{1, 7, 1}); !errors.Is(err, ErrUnknownLabel) {
		t.Fatalf("unknown label: %v", err)
	}
	if _, err := Margins(m, X, y[:2]); !errors.Is(err, ErrLabels) {
		t.Fatalf("short labels: %v", err)
	}
}

// TestMarginsBiasScaleZero: a model whose BiasScale is 0 (hand-built, or
// from JSON without it) reads it as the default 1, as Config does, so its
// bound counts the bias as the model trained with scale 1 would.
func TestMarginsBiasScaleZero(t *testing.T) {
	m := &Model{Classes: []float64{0, 1, 2}, Dim: 2, W: []float32{1, 0, -1, 0, 1, -1}, B: []float32{0, 0.5, 0}, BiasScale: 1}
	X := sparse.FromDense([][]float32{{2, 0}, {0, 2}, {-1, -1}})
	y := []float64{0, 1, 2}
	a, err := Margins(m, X, y)
	if err != nil {
		t.Fatal(err)
	}
	m.BiasScale = 0
	b, err := Margins(m, X, y)
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Fatalf("BiasScale 0: %+v; with 1: %+v", b, a)
	}
}
