package engine_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

func ExampleModel_Save() {
	dir, err := os.MkdirTemp("", "hyperplane-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	// A binary model over two features: score = 2·x0 − x1 − 0.5.
	m := &engine.Model{
		Classes:   []float64{-1, 1},
		Dim:       2,
		W:         []float32{2, -1},
		B:         []float32{-0.5},
		BiasScale: 1,
	}
	path := filepath.Join(dir, "model.hpm")
	if err := m.Save(path); err != nil {
		log.Fatal(err)
	}
	loaded, err := engine.Load(path)
	if err != nil {
		log.Fatal(err)
	}
	x := sparse.Vector{Dim: 2, Ind: []int32{0}, Val: []float32{1}}
	fmt.Println(loaded.Predict(x), loaded.Decision(x))
	// Output: 1 1.5
}
