package engine

import (
	"fmt"
	"slices"
	"testing"

	"github.com/hyperplane-ml/hyperplane/kernels"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// ---------------------------------------------------------------------
// 4. Labels.

// TestKernelLabelSets: binary labels 0/1, ±1 and {2, 7} give bit-identical
// models; multiclass labels {−3, 5, 11} the model of {0, 1, 2}; prediction
// returns the caller's labels, the argmax of the scores.
func TestKernelLabelSets(t *testing.T) {
	Xb, yb := ktIntData(61, 120, 20, 4, 2, 0.1, 0)
	var base *KernelModel
	for _, labels := range [][2]float64{{0, 1}, {-1, 1}, {2, 7}} {
		t.Run(fmt.Sprintf("labels=%v,%v", labels[0], labels[1]), func(t *testing.T) {
			y := make([]float64, len(yb))
			for i, v := range yb {
				y[i] = labels[int(v)]
			}
			{
				m, _ := ktFit(t, Xb, y, KernelConfig{Config: Config{Epochs: 4, Seed: 9}, Kernel: kernels.RBF{Gamma: 0.1}})
				if !slices.Equal(m.Classes, labels[:]) {
					t.Fatalf("labels %v: Classes %v", labels, m.Classes)
				}
				if base == nil {
					base = m
				} else {
					ktSameModel(t, fmt.Sprintf("labels %v vs 0/1", labels), m, base)
				}
				for i := range Xb.Rows {
					x := Xb.Row(i)
					want := labels[0]
					if base.Decision(x) > 0 {
						want = labels[1]
					}
					if got := m.Predict(x); got != want {
						t.Fatalf("labels %v: row %d predicts %v, want %v", labels, i, got, want)
					}
				}
			}
		})
	}

	X3, y3 := ktIntData(62, 150, 20, 4, 3, 0.1, 0)
	odd := []float64{-3, 5, 11}
	yOdd := make([]float64, len(y3))
	for i, v := range y3 {
		yOdd[i] = odd[int(v)]
	}
	for _, alg := range []Algorithm{Averaged, Plain, Voted} {
		t.Run(alg.String(), func(t *testing.T) {
			cfg := KernelConfig{Config: Config{Algorithm: alg, Epochs: 4, Seed: 10}, Kernel: kernels.Poly{Degree: 2, Coef0: 1}}
			m0, _ := ktFit(t, X3, y3, cfg)
			m, _ := ktFit(t, X3, yOdd, cfg)
			if !slices.Equal(m.Classes, odd) || m.NumRows() != 3 || m.Binary() {
				t.Fatalf("%v: Classes %v, %d rows", alg, m.Classes, m.NumRows())
			}
			ktSameModel(t, fmt.Sprintf("%v: labels %v vs 0,1,2", alg, odd), m, m0)
			var s []float32
			for i := range X3.Rows {
				x := X3.Row(i)
				s = m.Scores(x, s)
				s64 := make([]float64, len(s))
				for k, v := range s {
					s64[k] = float64(v)
				}
				b := ktArgmax(s64)
				if got := m.Predict(x); got != odd[b] {
					t.Fatalf("%v: row %d predicts %v, scores %v have their argmax at %v", alg, i, got, s, odd[b])
				}
				if got := m0.Predict(x); got != float64(b) {
					t.Fatalf("%v: row %d: the 0,1,2 model predicts %v, want %d", alg, i, got, b)
				}
				if d := m.Decision(x); d != s[b] {
					t.Fatalf("%v: row %d: Decision %v is not the top score %v", alg, i, d, s[b])
				}
			}
		})
	}
}

// ---------------------------------------------------------------------
// 5. What kernels are for.

// ktAccuracy returns the fraction of rows of X that m labels as y does.
func ktAccuracy(m *KernelModel, X *sparse.CSR, y []float64) float64 {
	p := m.PredictBatch(X, nil)
	right := 0
	for i, v := range p {
		if v == y[i] {
			right++
		}
	}
	return float64(right) / float64(len(y))
}

// TestKernelNonlinearToys: the RBF kernel learns XOR and concentric
// circles, the degree-2 polynomial kernel the circles, to 100% training
// accuracy; the linear kernel cannot (no line separates them).
func TestKernelNonlinearToys(t *testing.T) {
	Xx, yx := ktXOR(71, 25, 0.5)
	Xc, yc := ktCircles(72, 50)
	for _, c := range []struct {
		name string
		X    *sparse.CSR
		y    []float64
		cfg  KernelConfig
	}{
		{"xor-rbf-plain", Xx, yx, KernelConfig{Config: Config{Algorithm: Plain, Epochs: 100, Seed: 1}, Kernel: kernels.RBF{Gamma: 1}}},
		{"xor-rbf-averaged", Xx, yx, KernelConfig{Config: Config{Epochs: 100, Seed: 1}, Kernel: kernels.RBF{Gamma: 1}}},
		{"xor-default-kernel", Xx, yx, KernelConfig{Config: Config{Epochs: 100, Seed: 2}}},
		{"xor-rbf-voted", Xx, yx, KernelConfig{Config: Config{Algorithm: Voted, Epochs: 100, Seed: 1}, Kernel: kernels.RBF{Gamma: 1}}},
		{"circles-rbf", Xc, yc, KernelConfig{Config: Config{Algorithm: Plain, Epochs: 100, Seed: 3}, Kernel: kernels.RBF{Gamma: 0.5}}},
		{"circles-poly2", Xc, yc, KernelConfig{Config: Config{Algorithm: Plain, Epochs: 200, Seed: 4}, Kernel: kernels.Poly{Degree: 2, Coef0: 1}}},
		{"circles-poly2-averaged", Xc, yc, KernelConfig{Config: Config{Epochs: 200, Seed: 4}, Kernel: kernels.Poly{Degree: 2, Coef0: 1}}},
	} {
		m, stats := ktFit(t, c.X, c.y, c.cfg)
		if last := stats[len(stats)-1]; last.Updates != 0 {
			t.Errorf("%s: no convergence in %d epochs (last epoch %d updates)", c.name, len(stats), last.Updates)
		}
		if acc := ktAccuracy(m, c.X, c.y); acc != 1 {
			t.Errorf("%s: training accuracy %v, want 1 (%d support vectors, %d epochs)", c.name, acc, m.NumSV(), len(stats))
		}
	}
	for _, c := range []struct {
		name string
		X    *sparse.CSR
		y    []float64
	}{{"xor", Xx, yx}, {"circles", Xc, yc}} {
		for _, alg := range []Algorithm{Plain, Averaged} {
			m, stats := ktFit(t, c.X, c.y, KernelConfig{Config: Config{Algorithm: alg, Epochs: 100, Seed: 1}, Kernel: kernels.Linear{}})
			if acc := ktAccuracy(m, c.X, c.y); acc >= 0.9 {
				t.Errorf("%s linear %v: training accuracy %v; a line cannot separate it", c.name, alg, acc)
			}
			if stats[len(stats)-1].Updates == 0 {
				t.Errorf("%s linear %v: converged on data no line separates", c.name, alg)
			}
		}
	}
}
