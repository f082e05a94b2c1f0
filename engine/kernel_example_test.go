package engine_test

import (
	"context"
	"fmt"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/kernels"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

func ExampleFitKernel() {
	// XOR: the label is the sign of x·y, which no line separates.
	X := sparse.FromDense([][]float32{
		{1, 1}, {1.2, 0.8}, {0.8, 1.2},
		{-1, -1}, {-1.2, -0.8}, {-0.8, -1.2},
		{1, -1}, {1.2, -0.8}, {0.8, -1.2},
		{-1, 1}, {-1.2, 0.8}, {-0.8, 1.2},
	})
	y := []float64{1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1}

	for _, k := range []kernels.Kernel{kernels.Linear{}, kernels.RBF{Gamma: 1}} {
		m, stats, err := engine.FitKernel(context.Background(), X, y, engine.KernelConfig{Config: engine.Config{Epochs: 20, Seed: 1}, Kernel: k})
		if err != nil {
			fmt.Println(err)
			return
		}
		right := 0
		for i, p := range m.PredictBatch(X, nil) {
			if p == y[i] {
				right++
			}
		}
		fmt.Printf("%s: every training point right: %v, converged: %v\n", k, right == len(y), stats[len(stats)-1].Updates == 0)
		if _, ok := k.(kernels.RBF); ok {
			fmt.Println("support vectors:", m.NumSV())
			fmt.Println("(0.9, 0.9) →", m.PredictDense([]float32{0.9, 0.9}), " (-0.9, 0.9) →", m.PredictDense([]float32{-0.9, 0.9}))
		}
	}
	// Output:
	// linear: every training point right: false, converged: false
	// rbf:gamma=1: every training point right: true, converged: true
	// support vectors: 4
	// (0.9, 0.9) → 1  (-0.9, 0.9) → -1
}

func ExampleKernelModel_PredictBatch() {
	// Two rings: radius 1 is class "inner" (0), radius 3 "outer" (1). A
	// degree-2 polynomial kernel sees x² + y², which separates them.
	var rows [][]float32
	var y []float64
	for _, ring := range []struct {
		r     float32
		label float64
	}{{1, 0}, {3, 1}} {
		for _, p := range [][2]float32{{1, 0}, {0.6, 0.8}, {0, 1}, {-0.6, 0.8}, {-1, 0}, {-0.6, -0.8}, {0, -1}, {0.6, -0.8}} {
			rows = append(rows, []float32{ring.r * p[0], ring.r * p[1]})
			y = append(y, ring.label)
		}
	}
	m, _, err := engine.FitKernel(context.Background(), sparse.FromDense(rows), y, engine.KernelConfig{
		Config: engine.Config{Epochs: 50},
		Kernel: kernels.Poly{Degree: 2, Coef0: 1},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	test := sparse.FromDense([][]float32{{0.5, 0.5}, {2.5, 1}, {-0.2, 0.1}, {0, -3.5}})
	fmt.Println(m.PredictBatch(test, nil))
	// Output:
	// [0 1 0 1]
}
