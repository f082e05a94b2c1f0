package engine

import (
	"fmt"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

// The prediction methods of the models have no error to return: a row
// that breaks their preconditions is a mistake in the caller, so they
// panic, as the asm kernels do, but with a message that names the method
// and the broken precondition rather than a bare index error deep inside.

// mustVector panics unless x has as many values as indices: fn names the
// method for the message.
func mustVector(fn string, x sparse.Vector) {
	if len(x.Ind) != len(x.Val) {
		panic(fmt.Sprintf("engine: %s: the row has %d indices and %d values; sparse.Vector needs one value per index", fn, len(x.Ind), len(x.Val)))
	}
}

// rowsOut panics unless X is a matrix whose shape holds together
// (sparse.CSR.ValidateShape: not nil, row pointers within Ind and Val):
// its cost is one pass over the row pointers, far below the prediction's.
// Indices outside a model's features are the model's to ignore, and the
// kernels check the indices they use. fn, the batch method, names it in
// the message. It returns dst grown to hold per values for each row of X
// (see sized), which fn writes.
func rowsOut[T any](fn string, X *sparse.CSR, per int, dst []T) []T {
	if err := X.ValidateShape(); err != nil {
		panic(fmt.Sprintf("engine: %s: X: %v", fn, err))
	}
	return sized(dst, X.Rows*per)
}
