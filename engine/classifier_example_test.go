package engine_test

import (
	"bytes"
	"fmt"
	"log"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/kernels"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// Code that serves models of either kind holds an engine.Classifier:
// here a linear and a kernel model, written to one stream and read back
// with ReadClassifier, score the same rows through the interface.
func ExampleClassifier() {
	linear := &engine.Model{
		Classes: []float64{1, 2, 3}, Dim: 2, BiasScale: 1,
		// Feature-major: feature 0 weighs 1, 0, −1 in the three rows.
		W: []float32{1, 0, -1, 0, 1, -1},
		B: []float32{0, 0, 0.5},
	}
	kernel := &engine.KernelModel{
		Kernel: kernels.Linear{}, Classes: []float64{-1, 1}, Dim: 2,
		SV:   &sparse.CSR{Rows: 1, Cols: 2, Indptr: []int64{0, 2}, Ind: []int32{0, 1}, Val: []float32{1, -1}},
		Coef: []float32{1}, B: []float32{0},
	}
	var stream bytes.Buffer
	for _, m := range []engine.Classifier{linear, kernel} {
		if _, err := m.WriteTo(&stream); err != nil {
			log.Fatal(err)
		}
	}
	X := sparse.FromDense([][]float32{{2, 0}, {0, 3}})
	for range 2 {
		c, err := engine.ReadClassifier(&stream)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%T: classes %v, %d features, labels %v, scores %v\n",
			c, c.ClassValues(), c.NumFeatures(), c.PredictBatch(X, nil), c.ScoresBatch(X, nil))
	}
	// Output:
	// *engine.Model: classes [1 2 3], 2 features, labels [1 2], scores [2 0 -1.5 0 3 -2.5]
	// *engine.KernelModel: classes [-1 1], 2 features, labels [1 -1], scores [2 -3]
}
