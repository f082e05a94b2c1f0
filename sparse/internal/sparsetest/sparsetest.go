// Package sparsetest holds what the tests of the packages under sparse
// share.
package sparsetest

import (
	"fmt"
	"math"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

// Diff describes the first difference between a and b, bit for
// bit, or returns "".
func Diff(a, b *sparse.Dataset) string {
	if a.X.Rows != b.X.Rows || a.X.Cols != b.X.Cols {
		return fmt.Sprintf("shape %d×%d vs %d×%d", a.X.Rows, a.X.Cols, b.X.Rows, b.X.Cols)
	}
	if len(a.X.Indptr) != len(b.X.Indptr) {
		return "indptr length"
	}
	for i := range a.X.Indptr {
		if a.X.Indptr[i] != b.X.Indptr[i] {
			return fmt.Sprintf("indptr[%d] %d vs %d", i, a.X.Indptr[i], b.X.Indptr[i])
		}
	}
	if len(a.X.Ind) != len(b.X.Ind) || len(a.X.Val) != len(b.X.Val) {
		return "nnz"
	}
	for k := range a.X.Ind {
		if a.X.Ind[k] != b.X.Ind[k] {
			return fmt.Sprintf("ind[%d] %d vs %d", k, a.X.Ind[k], b.X.Ind[k])
		}
		if math.Float32bits(a.X.Val[k]) != math.Float32bits(b.X.Val[k]) {
			return fmt.Sprintf("val[%d] %v vs %v", k, a.X.Val[k], b.X.Val[k])
		}
	}
	if len(a.Y) != len(b.Y) {
		return "labels length"
	}
	for i := range a.Y {
		if math.Float64bits(a.Y[i]) != math.Float64bits(b.Y[i]) {
			return fmt.Sprintf("y[%d] %v vs %v", i, a.Y[i], b.Y[i])
		}
	}
	if (a.QID == nil) != (b.QID == nil) || len(a.QID) != len(b.QID) {
		return fmt.Sprintf("qid %v vs %v", a.QID, b.QID)
	}
	for i := range a.QID {
		if a.QID[i] != b.QID[i] {
			return fmt.Sprintf("qid[%d] %d vs %d", i, a.QID[i], b.QID[i])
		}
	}
	return ""
}
