package engine_test

import (
	"context"
	"fmt"

	"github.com/hyperplane-ml/hyperplane/dense"
	"github.com/hyperplane-ml/hyperplane/engine"
	"gonum.org/v1/gonum/mat"
)

// ExampleFitDense trains on dense rows (here from a gonum matrix, as
// embeddings or sensor readings often come) and labels new ones.
func ExampleFitDense() {
	g := mat.NewDense(6, 2, []float64{
		2, 1, 3, 2, 2.5, 3, // class 1: x₀ large
		-1, 2, -2, -1, -1.5, 0, // class 0: x₀ small
	})
	X := dense.Convert[float32](dense.FromGonum(g))
	y := []float64{1, 1, 1, 0, 0, 0}
	m, stats, err := engine.FitDense(context.Background(), X, y, engine.Config{Epochs: 20})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("epochs:", len(stats), "mistakes in the last:", stats[len(stats)-1].Mistakes)
	test, _ := dense.FromRows([][]float32{{4, 0}, {-3, 1}})
	fmt.Println(m.PredictDenseBatch(test, nil))
	// Output:
	// epochs: 2 mistakes in the last: 0
	// [1 0]
}
