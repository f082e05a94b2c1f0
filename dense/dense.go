// Package dense holds dense vectors and row-major matrices in float32 or
// float64, with the vector operations that learners need, all running on
// the SIMD kernels of package asm.
//
// Like gonum, the vector functions panic when their arguments differ in
// length: that is a programmer error. Constructors that take user data
// return errors instead.
package dense

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/hyperplane-ml/hyperplane/asm"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Float is the element type of vectors and matrices.
type Float interface{ float32 | float64 }

// ErrShape reports rows of different lengths or a size that does not fit.
var ErrShape = errors.New("dense: bad shape")

// as32 and as64 reinterpret a []T as the concrete slice type of T. Which
// one applies is decided by the size of T, a constant in each
// instantiation, so the branch costs nothing and nothing is allocated.
func as32[T Float](x []T) []float32 {
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(x))), len(x))
}

func as64[T Float](x []T) []float64 {
	return unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(x))), len(x))
}

func is32[T Float]() bool { var z T; return unsafe.Sizeof(z) == 4 }

// Dot returns Σ x[i]·y[i]. It panics if the lengths differ.
func Dot[T Float](x, y []T) T {
	if is32[T]() {
		return T(asm.DotF32(as32(x), as32(y)))
	}
	return T(asm.DotF64(as64(x), as64(y)))
}

// Axpy computes y[i] += a·x[i]. It panics if the lengths differ.
func Axpy[T Float](a T, x, y []T) {
	if is32[T]() {
		asm.AxpyF32(float32(a), as32(x), as32(y))
		return
	}
	asm.AxpyF64(float64(a), as64(x), as64(y))
}

// Scale computes x[i] *= a.
func Scale[T Float](a T, x []T) {
	if is32[T]() {
		asm.ScaleF32(float32(a), as32(x))
		return
	}
	asm.ScaleF64(float64(a), as64(x))
}

// SumSq returns Σ x[i]², the squared Euclidean norm.
func SumSq[T Float](x []T) T {
	if is32[T]() {
		return T(asm.SumSqF32(as32(x)))
	}
	return T(asm.SumSqF64(as64(x)))
}

// Matrix is a row-major matrix: element (i, j) is Data[i*Stride+j].
// Stride is at least Cols; rows views share Data.
type Matrix[T Float] struct {
	Rows, Cols, Stride int
	Data               []T
}

// New returns a zeroed rows×cols matrix. It returns ErrShape for negative
// sizes or a size that overflows.
func New[T Float](rows, cols int) (*Matrix[T], error) {
	if rows < 0 || cols < 0 || (cols > 0 && rows > (1<<62)/cols) {
		return nil, fmt.Errorf("%w: %d×%d", ErrShape, rows, cols)
	}
	return &Matrix[T]{Rows: rows, Cols: cols, Stride: cols, Data: make([]T, rows*cols)}, nil
}

// FromRows copies rows into a new matrix. It returns ErrShape when the rows
// differ in length.
func FromRows[T Float](rows [][]T) (*Matrix[T], error) {
	cols := 0
	if len(rows) > 0 {
		cols = len(rows[0])
	}
	m := &Matrix[T]{Rows: len(rows), Cols: cols, Stride: cols, Data: make([]T, 0, len(rows)*cols)}
	for i, r := range rows {
		if len(r) != cols {
			return nil, fmt.Errorf("%w: row %d has %d columns, row 0 has %d", ErrShape, i, len(r), cols)
		}
		m.Data = append(m.Data, r...)
	}
	return m, nil
}

// Row returns row i as a slice sharing the matrix's storage.
func (m *Matrix[T]) Row(i int) []T {
	if uint(i) >= uint(m.Rows) {
		panic(fmt.Sprintf("dense: row %d out of range [0, %d)", i, m.Rows))
	}
	return m.Data[i*m.Stride : i*m.Stride+m.Cols : i*m.Stride+m.Cols]
}

// At returns element (i, j).
func (m *Matrix[T]) At(i, j int) T {
	if uint(j) >= uint(m.Cols) {
		panic(fmt.Sprintf("dense: column %d out of range [0, %d)", j, m.Cols))
	}
	return m.Row(i)[j]
}

// Set sets element (i, j) to v.
func (m *Matrix[T]) Set(i, j int, v T) {
	if uint(j) >= uint(m.Cols) {
		panic(fmt.Sprintf("dense: column %d out of range [0, %d)", j, m.Cols))
	}
	m.Row(i)[j] = v
}

// Slice returns rows [i, j) as a matrix sharing this one's storage.
func (m *Matrix[T]) Slice(i, j int) *Matrix[T] {
	if i < 0 || j < i || j > m.Rows {
		panic(fmt.Sprintf("dense: rows [%d, %d) out of range [0, %d]", i, j, m.Rows))
	}
	if i == j {
		return &Matrix[T]{Cols: m.Cols, Stride: m.Stride}
	}
	return &Matrix[T]{Rows: j - i, Cols: m.Cols, Stride: m.Stride, Data: m.Data[i*m.Stride : (j-1)*m.Stride+m.Cols]}
}

// MulVec computes out[i] = Row(i)·w for every row. It panics unless
// len(w) == Cols and len(out) == Rows.
func (m *Matrix[T]) MulVec(w, out []T) {
	if len(w) != m.Cols || len(out) != m.Rows {
		panic(fmt.Sprintf("dense: MulVec of %d×%d matrix with len(w)=%d into len(out)=%d", m.Rows, m.Cols, len(w), len(out)))
	}
	for i := range out {
		out[i] = Dot(m.Row(i), w)
	}
}

// ToGonum returns m as a gonum matrix sharing its storage (its stride
// too, so a view of a wider matrix stays one), for the factorisations and
// BLAS level-3 routines gonum has.
func ToGonum(m *Matrix[float64]) *mat.Dense {
	if m.Rows == 0 || m.Cols == 0 {
		return &mat.Dense{}
	}
	var d mat.Dense
	d.SetRawMatrix(blas64.General{Rows: m.Rows, Cols: m.Cols, Stride: m.Stride, Data: m.Data[:(m.Rows-1)*m.Stride+m.Cols]})
	return &d
}

// FromGonum returns a gonum matrix as a Matrix sharing its storage.
func FromGonum(d *mat.Dense) *Matrix[float64] {
	raw := d.RawMatrix()
	return &Matrix[float64]{Rows: raw.Rows, Cols: raw.Cols, Stride: raw.Stride, Data: raw.Data}
}

// Convert returns a copy of m with its values converted to T (rounded to
// nearest for float32; a value past float32's range becomes ±Inf), with
// Stride equal to Cols. With FromGonum it brings a gonum matrix to the
// float32 rows that engine.FitDense trains on.
func Convert[T, U Float](m *Matrix[U]) *Matrix[T] {
	out := &Matrix[T]{Rows: m.Rows, Cols: m.Cols, Stride: m.Cols, Data: make([]T, m.Rows*m.Cols)}
	for i := range m.Rows {
		dst := out.Data[i*m.Cols : (i+1)*m.Cols]
		for j, v := range m.Row(i) {
			dst[j] = T(v)
		}
	}
	return out
}
