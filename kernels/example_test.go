package kernels_test

import (
	"errors"
	"fmt"

	"github.com/hyperplane-ml/hyperplane/kernels"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// ExampleRBF evaluates the Gaussian kernel on two rows, pairwise and in
// bulk against a prepared data set.
func ExampleRBF() {
	x := []float32{1, 0, 2}
	z := []float32{0, 1, 2}
	k := kernels.RBF{Gamma: 0.5}
	// ‖x − z‖² = 2, so K(x, z) = exp(−0.5·2) = e⁻¹.
	fmt.Printf("K(x, z) = %.6f\n", k.Dense(x, z))

	// The same against both rows at once.
	d := kernels.NewDenseData(append(append([]float32(nil), x...), z...), 2, 3)
	dst := make([]float32, d.Rows())
	d.EvalDense(k, x, dst, nil)
	fmt.Printf("K(x, ·) = [%.6f %.6f]\n", dst[0], dst[1])
	// Output:
	// K(x, z) = 0.367879
	// K(x, ·) = [1.000000 0.367879]
}

// ExampleNewGram builds the Gram matrix of three rows. With Precompute and
// a budget it fits, it is computed whole at once; without, rows are
// computed when first asked for.
func ExampleNewGram() {
	X := sparse.FromDense([][]float32{
		{1, 0},
		{0, 1},
		{1, 1},
	})
	g, err := kernels.NewGram(kernels.RBF{Gamma: 0.5}, kernels.NewData(X), kernels.Options{Precompute: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("row 0: %.4f\n", g.Row(0))
	fmt.Printf("diag 2: %.4f\n", g.Diag(2))
	fmt.Println("full:", g.Stats().Full)
	// Output:
	// row 0: [1.0000 0.3679 0.6065]
	// diag 2: 1.0000
	// full: true
}

// ExampleParse reads kernels as String writes them; left-out parameters
// take their defaults.
func ExampleParse() {
	for _, s := range []string{"linear", "rbf", "poly:degree=2,coef0=1", "sigmoid:gamma=0.01,coef0=-1", "cubic", "poly:degree=40"} {
		k, err := kernels.Parse(s)
		if err != nil {
			fmt.Println(errors.Is(err, kernels.ErrKernel), err)
			continue
		}
		fmt.Println(k)
	}
	// Output:
	// linear
	// rbf:gamma=1
	// poly:degree=2,gamma=1,coef0=1
	// sigmoid:gamma=0.01,coef0=-1
	// true kernels: bad kernel: unknown kernel "cubic" (want linear, poly, rbf or sigmoid)
	// true kernels: bad kernel: "poly:degree=40": degree must be a whole number in [1, 32]
}
