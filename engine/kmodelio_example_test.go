package engine_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/kernels"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

func ExampleKernelModel_Save() {
	dir, err := os.MkdirTemp("", "hyperplane-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	// A binary RBF model with two support vectors:
	// f(x) = exp(−‖x − (1, 0)‖²) − exp(−‖x − (0, 1)‖²).
	// The kernel's zero Gamma means 1; the file stores the 1.
	sv := &sparse.CSR{
		Rows: 2, Cols: 2,
		Indptr: []int64{0, 1, 2},
		Ind:    []int32{0, 1},
		Val:    []float32{1, 1},
	}
	m := &engine.KernelModel{
		Kernel:  kernels.RBF{},
		Classes: []float64{-1, 1},
		Dim:     2,
		SV:      sv,
		Coef:    []float32{1, -1},
		B:       []float32{0},
	}
	path := filepath.Join(dir, "model.hpk")
	if err := m.Save(path); err != nil {
		log.Fatal(err)
	}

	// LoadKernel reads it back; LoadClassifier reads either kind of model.
	loaded, err := engine.LoadKernel(path)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(loaded.Kernel, loaded.NumSV())
	c, err := engine.LoadClassifier(path)
	if err != nil {
		log.Fatal(err)
	}
	x := sparse.Vector{Dim: 2, Ind: []int32{0}, Val: []float32{1}}
	fmt.Printf("%T %v %.3f\n", c, c.Predict(x), c.Decision(x))
	// Output:
	// rbf:gamma=1 2
	// *engine.KernelModel 1 0.865
}
