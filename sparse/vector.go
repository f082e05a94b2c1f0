package sparse

import (
	"fmt"
	"strconv"

	"github.com/hyperplane-ml/hyperplane/asm"
)

// Vector is a sparse vector of dimension Dim: Val[k] is the coordinate at
// 0-based index Ind[k]. Indices are strictly increasing and lie in [0, Dim);
// len(Ind) == len(Val). Validate checks these invariants.
type Vector struct {
	Dim int
	Ind []int32
	Val []float32
}

// NNZ returns the number of stored entries.
func (v Vector) NNZ() int { return len(v.Ind) }

// checkDense panics (a programmer error, like an out-of-range slice index)
// when w is too short for v or v's stored indices obviously fall outside
// [0, Dim). The constant-time check looks at the first and last index only:
// it relies on the ordering invariant, which Validate checks.
func (v Vector) checkDense(op string, w []float32) {
	if len(w) < v.Dim {
		panic(fmt.Sprintf("sparse: Vector.%s: len(w) = %d < Dim = %d", op, len(w), v.Dim))
	}
	if len(v.Ind) != len(v.Val) {
		panic(fmt.Sprintf("sparse: Vector.%s: len(Ind) = %d != len(Val) = %d", op, len(v.Ind), len(v.Val)))
	}
	if n := len(v.Ind); n > 0 && (v.Ind[0] < 0 || int(v.Ind[n-1]) >= v.Dim) {
		panic(fmt.Sprintf("sparse: Vector.%s: index out of [0, %d)", op, v.Dim))
	}
}

// Dot returns Σ v.Val[k]·w[v.Ind[k]]. It panics if len(w) < v.Dim, which
// is a programmer error. v must satisfy the invariants checked by Validate.
func (v Vector) Dot(w []float32) float32 {
	v.checkDense("Dot", w)
	return asm.DotIndF32(v.Val, v.Ind, w)
}

// AddTo computes w += a·v, that is w[v.Ind[k]] += a·v.Val[k]. It panics if
// len(w) < v.Dim, which is a programmer error. v must satisfy the invariants
// checked by Validate.
func (v Vector) AddTo(w []float32, a float32) {
	v.checkDense("AddTo", w)
	asm.AxpyIndF32(a, v.Val, v.Ind, w)
}

// SumSq returns Σ v.Val[k]², the squared Euclidean norm.
func (v Vector) SumSq() float32 { return asm.SumSqF32(v.Val) }

// Dense returns v as a dense slice of length Dim. It returns nil for a
// vector that fails Validate.
func (v Vector) Dense() []float32 {
	if v.Validate() != nil {
		return nil
	}
	d := make([]float32, v.Dim)
	for k, j := range v.Ind {
		d[j] = v.Val[k]
	}
	return d
}

// Validate checks every invariant of v: Dim ≥ 0, len(Ind) == len(Val),
// indices strictly increasing in [0, Dim), values finite. The error wraps
// ErrShape, ErrIndexOrder, ErrIndexRange or ErrValue.
func (v Vector) Validate() error {
	if v.Dim < 0 {
		return fmt.Errorf("%w: negative Dim %d", ErrShape, v.Dim)
	}
	if len(v.Ind) != len(v.Val) {
		return fmt.Errorf("%w: len(Ind) = %d, len(Val) = %d", ErrShape, len(v.Ind), len(v.Val))
	}
	return checkRow(v.Ind, v.Val, v.Dim)
}

// checkRow checks that ind is strictly increasing within [0, dim) and that
// every value is finite.
func checkRow(ind []int32, val []float32, dim int) error {
	if rowOK(ind, val, dim) {
		return nil
	}
	prev := int64(-1)
	for k, j := range ind {
		if j < 0 || int64(j) >= int64(dim) {
			return fmt.Errorf("%w: entry %d: index %d outside [0, %d)", ErrIndexRange, k, j, dim)
		}
		if int64(j) <= prev {
			return fmt.Errorf("%w: entry %d: index %d after %d", ErrIndexOrder, k, j, prev)
		}
		prev = int64(j)
	}
	for k, x := range val {
		if !finite32(x) {
			return fmt.Errorf("%w: entry %d (index %d): %s", ErrValue, k, ind[k], strconv.FormatFloat(float64(x), 'g', -1, 32))
		}
	}
	return nil
}

// rowOK is checkRow's fast path: true when the row is valid, false when
// checkRow must look for the error. Strictly increasing indices that start
// at 0 or above and end below dim are all in range, and every difference
// of neighbours is then negative, so their bitwise AND is; a sum of
// squares is finite when every value is (a huge finite value may
// overflow it: the slow path then finds nothing wrong). It runs about
// three times as fast as the loops that name the error, and Fit validates
// its data with it before every training.
func rowOK(ind []int32, val []float32, dim int) bool {
	if len(ind) == 0 {
		return true
	}
	if !indicesOK(ind, dim) {
		return false
	}
	s := asm.SumSqF32(val)
	return s-s == 0
}

// indicesOK is rowOK's test of a non-empty row's indices: strictly
// increasing, from 0 or above to below dim. Rows of simdIndices or more
// take asm.IncreasingI32; below that the call costs more than the loop.
func indicesOK(ind []int32, dim int) bool {
	n := len(ind)
	if ind[0] < 0 || int64(ind[n-1]) >= int64(dim) {
		return false
	}
	if n >= simdIndices {
		return asm.IncreasingI32(ind)
	}
	acc := int64(-1)
	for k := 1; k < n; k++ {
		acc &= int64(ind[k-1]) - int64(ind[k])
	}
	return acc < 0
}

// simdIndices is the row length from which indicesOK calls the kernel.
const simdIndices = 32

// finite32 reports whether x is neither NaN nor ±Inf: x−x is 0 exactly for
// finite x and NaN otherwise. It is half the cost of math.IsNaN and
// math.IsInf on the float64 conversion, which made Validate the slowest
// pass over a matrix.
func finite32(x float32) bool { return x-x == 0 }
