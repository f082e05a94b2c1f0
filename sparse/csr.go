package sparse

import (
	"fmt"
	"math"
	"sync/atomic"

	"github.com/hyperplane-ml/hyperplane/asm"
	"github.com/hyperplane-ml/hyperplane/internal/par"
)

// CSR is a sparse matrix in compressed-sparse-row form. Row i holds the
// entries Ind[Indptr[i]:Indptr[i+1]] (0-based column indices, strictly
// increasing, in [0, Cols)) with values Val[Indptr[i]:Indptr[i+1]]. The row
// pointers are 64-bit, so a matrix may hold more than 2^31 nonzeros.
//
// A CSR built by Builder, FromDense or the readers satisfies every
// invariant; Validate checks one assembled from user-supplied slices.
type CSR struct {
	Rows, Cols int
	Indptr     []int64 // len Rows+1, Indptr[0] == 0, non-decreasing
	Ind        []int32 // len NNZ()
	Val        []float32
}

// NNZ returns the number of stored entries.
func (m *CSR) NNZ() int64 {
	if len(m.Indptr) == 0 {
		return 0
	}
	return m.Indptr[len(m.Indptr)-1]
}

// Row returns row i as a Vector of dimension Cols. The vector is a view that
// shares storage with m (its slices are capacity-limited, so appending to
// them never overwrites the next row). Row panics if i is out of range.
func (m *CSR) Row(i int) Vector {
	if i < 0 || i >= m.Rows {
		panic(fmt.Sprintf("sparse: CSR.Row(%d) out of range [0, %d)", i, m.Rows))
	}
	a, b := m.Indptr[i], m.Indptr[i+1]
	return Vector{Dim: m.Cols, Ind: m.Ind[a:b:b], Val: m.Val[a:b:b]}
}

// Validate checks every invariant of m: non-negative Rows and Cols,
// len(Indptr) == Rows+1, Indptr[0] == 0, non-decreasing row pointers,
// len(Ind) == len(Val) == Indptr[Rows], each row's indices strictly
// increasing in [0, Cols), and every value finite. The error wraps ErrShape,
// ErrIndexOrder, ErrIndexRange or ErrValue and names the first bad row.
// A matrix of 2^20 nonzeros or more is checked on GOMAXPROCS goroutines.
func (m *CSR) Validate() error {
	if err := m.ValidateShape(); err != nil {
		return err
	}
	if m.rowsOK() {
		return nil
	}
	for i := 0; i < m.Rows; i++ {
		if err := m.ValidateRow(i); err != nil {
			return err
		}
	}
	return nil
}

// rowsOK is Validate's fast path over a matrix whose shape is valid: true
// when every row is, false when the row-by-row check must find the first
// bad one. It is rowOK's test in one loop over the rows, with no call per
// row, and the values' finiteness checked in blocks (a sum of squares is
// finite when every value is; a huge finite value may overflow it, and the
// slow path then finds nothing wrong). What it saves over the row-by-row
// check is per-row overhead, so it helps short rows such as a9a's most;
// long rows check their index order with asm.IncreasingI32 (indicesOK).
// A large matrix is checked in parts of about equal size on GOMAXPROCS
// goroutines (par.ByNNZ).
func (m *CSR) rowsOK() bool {
	var bad atomic.Bool
	par.ByNNZ(m.Indptr[:m.Rows+1], func(lo, hi int) {
		if !m.rowsOKIn(lo, hi) {
			bad.Store(true)
		}
	})
	return !bad.Load()
}

// rowsOKIn is rowsOK's test of rows [lo, hi).
func (m *CSR) rowsOKIn(lo, hi int) bool {
	ind, ptr := m.Ind, m.Indptr
	for i := lo; i < hi; i++ {
		if a, b := ptr[i], ptr[i+1]; a < b && !indicesOK(ind[a:b], m.Cols) {
			return false
		}
	}
	const block = 1 << 14
	for v := m.Val[ptr[lo]:ptr[hi]]; len(v) > 0; {
		n := min(block, len(v))
		if s := asm.SumSqF32(v[:n]); s-s != 0 {
			return false
		}
		v = v[n:]
	}
	return true
}

// ValidateShape checks what Validate checks except the rows' indices and
// values: the dimensions, the lengths and the row pointers. With it, a
// caller that visits every row anyway can check each one with ValidateRow
// as it goes, instead of an extra pass over the matrix.
func (m *CSR) ValidateShape() error {
	if m == nil {
		return fmt.Errorf("%w: nil matrix", ErrShape)
	}
	if m.Rows < 0 || m.Cols < 0 {
		return fmt.Errorf("%w: negative dimensions %d×%d", ErrShape, m.Rows, m.Cols)
	}
	if len(m.Indptr) != m.Rows+1 {
		return fmt.Errorf("%w: len(Indptr) = %d, want Rows+1 = %d", ErrShape, len(m.Indptr), m.Rows+1)
	}
	if m.Indptr[0] != 0 {
		return fmt.Errorf("%w: Indptr[0] = %d, want 0", ErrShape, m.Indptr[0])
	}
	nnz := m.Indptr[m.Rows]
	if int64(len(m.Ind)) != nnz || int64(len(m.Val)) != nnz {
		return fmt.Errorf("%w: Indptr[Rows] = %d, len(Ind) = %d, len(Val) = %d", ErrShape, nnz, len(m.Ind), len(m.Val))
	}
	for i := 0; i < m.Rows; i++ {
		if a, b := m.Indptr[i], m.Indptr[i+1]; b < a || b > nnz {
			return fmt.Errorf("%w: row %d: Indptr not non-decreasing (%d, %d)", ErrShape, i, a, b)
		}
	}
	return nil
}

// ValidateRow checks row i of a matrix whose shape is valid
// (ValidateShape): its indices strictly increasing in [0, Cols), its
// values finite. The error wraps ErrIndexOrder, ErrIndexRange or ErrValue
// and names the row.
func (m *CSR) ValidateRow(i int) error {
	a, b := m.Indptr[i], m.Indptr[i+1]
	if err := checkRow(m.Ind[a:b], m.Val[a:b], m.Cols); err != nil {
		return fmt.Errorf("row %d: %w", i, err)
	}
	return nil
}

// Slice returns a copy of rows [i, j) of m. It panics if the range is
// invalid, like slicing a Go slice.
func (m *CSR) Slice(i, j int) *CSR {
	if i < 0 || j < i || j > m.Rows {
		panic(fmt.Sprintf("sparse: CSR.Slice(%d, %d) out of range [0, %d]", i, j, m.Rows))
	}
	a, b := m.Indptr[i], m.Indptr[j]
	out := &CSR{
		Rows:   j - i,
		Cols:   m.Cols,
		Indptr: make([]int64, j-i+1),
		Ind:    append([]int32(nil), m.Ind[a:b]...),
		Val:    append([]float32(nil), m.Val[a:b]...),
	}
	for r := i; r <= j; r++ {
		out.Indptr[r-i] = m.Indptr[r] - a
	}
	return out
}

// SelectRows returns a copy of the rows of m listed in idx, in that order
// (an index may repeat). It panics if an index is out of range.
func (m *CSR) SelectRows(idx []int) *CSR {
	var nnz int64
	for _, r := range idx {
		if r < 0 || r >= m.Rows {
			panic(fmt.Sprintf("sparse: CSR.SelectRows: row %d out of range [0, %d)", r, m.Rows))
		}
		nnz += m.Indptr[r+1] - m.Indptr[r]
	}
	out := &CSR{
		Rows:   len(idx),
		Cols:   m.Cols,
		Indptr: make([]int64, len(idx)+1),
		Ind:    make([]int32, 0, nnz),
		Val:    make([]float32, 0, nnz),
	}
	for k, r := range idx {
		a, b := m.Indptr[r], m.Indptr[r+1]
		out.Ind = append(out.Ind, m.Ind[a:b]...)
		out.Val = append(out.Val, m.Val[a:b]...)
		out.Indptr[k+1] = int64(len(out.Ind))
	}
	return out
}

// RowNorms returns the Euclidean (L2) norm of every row.
func (m *CSR) RowNorms() []float32 {
	n := make([]float32, m.Rows)
	for i := range n {
		a, b := m.Indptr[i], m.Indptr[i+1]
		ss, _ := sumSq(m.Val[a:b])
		n[i] = float32(math.Sqrt(ss))
	}
	return n
}

// NormalizeRows scales every row of m in place to unit Euclidean norm.
// Rows whose norm is zero are left unchanged.
func (m *CSR) NormalizeRows() {
	for i := 0; i < m.Rows; i++ {
		a, b := m.Indptr[i], m.Indptr[i+1]
		v := m.Val[a:b]
		ss, fast := sumSq(v)
		switch {
		case ss == 0:
		case fast:
			asm.ScaleF32(float32(1/math.Sqrt(ss)), v)
		default:
			// 1/norm may not be a float32: divide each value.
			norm := math.Sqrt(ss)
			for k, x := range v {
				v[k] = float32(float64(x) / norm)
			}
		}
	}
}

// SquaredNorm returns Σ v[k]² in float64, computed by the float32 SIMD
// kernel when the sum lies well inside float32's range and in float64
// otherwise, so that rows of huge or tiny values (those whose squares
// overflow or underflow float32) get their true norm. NormalizeRows and
// RowNorms use it; so does a model that normalizes the rows it scores.
func SquaredNorm(v []float32) float64 {
	ss, _ := sumSq(v)
	return ss
}

// sumSq returns the sum of the squares of v, and whether the float32
// kernel computed it: it does when the sum lies well inside float32's
// range, and the float64 loop takes rows whose squares overflow float32
// (values near 1e19 and up) or underflow it (near 1e-19 and below).
func sumSq(v []float32) (ss float64, fast bool) {
	if ss := float64(asm.SumSqF32(v)); ss > 0x1p-60 && ss < 0x1p100 {
		return ss, true
	}
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	return ss, false
}

// FromDense builds a CSR from dense rows, storing only the nonzero entries
// (a NaN counts as nonzero and is kept, so Validate reports it). Cols is the
// length of the longest row; shorter rows are treated as zero-padded.
func FromDense(rows [][]float32) *CSR {
	cols, nnz := 0, 0
	for _, r := range rows {
		cols = max(cols, len(r))
		for _, x := range r {
			if x != 0 {
				nnz++
			}
		}
	}
	m := &CSR{
		Rows:   len(rows),
		Cols:   cols,
		Indptr: make([]int64, len(rows)+1),
		Ind:    make([]int32, 0, nnz),
		Val:    make([]float32, 0, nnz),
	}
	for i, r := range rows {
		for j, x := range r {
			if x != 0 {
				m.Ind = append(m.Ind, int32(j))
				m.Val = append(m.Val, x)
			}
		}
		m.Indptr[i+1] = int64(len(m.Ind))
	}
	return m
}

// Builder assembles a CSR row by row, validating each row. The zero value
// is ready to use and infers the number of columns from the indices added.
type Builder struct {
	cols   int  // fixed number of columns, or running max index+1 if !fixed
	fixed  bool // cols was given to NewBuilder
	indptr []int64
	ind    []int32
	val    []float32
}

// NewBuilder returns a Builder for a matrix with cols columns. If cols ≤ 0
// the number of columns is inferred as the largest index added plus one.
func NewBuilder(cols int) *Builder {
	if cols <= 0 {
		return &Builder{}
	}
	return &Builder{cols: cols, fixed: true}
}

// Len returns the number of rows added since the last Build.
func (b *Builder) Len() int {
	if len(b.indptr) == 0 {
		return 0
	}
	return len(b.indptr) - 1
}

// Add appends a row with 0-based indices ind and values val, copying both.
// The row is rejected, leaving the builder unchanged, unless len(ind) ==
// len(val) (else ErrShape), the indices are strictly increasing (else
// ErrIndexOrder), non-negative and below the column count when it is fixed
// (else ErrIndexRange), and every value is finite (else ErrValue). An empty
// row is valid.
func (b *Builder) Add(ind []int32, val []float32) error {
	if len(ind) != len(val) {
		return fmt.Errorf("%w: len(ind) = %d, len(val) = %d", ErrShape, len(ind), len(val))
	}
	dim := math.MaxInt32 + 1
	if b.fixed {
		dim = b.cols
	}
	if err := checkRow(ind, val, dim); err != nil {
		return err
	}
	if len(b.indptr) == 0 {
		b.indptr = append(b.indptr, 0)
	}
	b.ind = append(b.ind, ind...)
	b.val = append(b.val, val...)
	b.indptr = append(b.indptr, int64(len(b.ind)))
	if !b.fixed && len(ind) > 0 {
		b.cols = max(b.cols, int(ind[len(ind)-1])+1)
	}
	return nil
}

// Build returns the matrix of the rows added so far and resets the builder
// to empty (keeping its column setting); the matrix takes over the
// builder's storage.
func (b *Builder) Build() *CSR {
	m := &CSR{Rows: b.Len(), Cols: b.cols, Indptr: b.indptr, Ind: b.ind, Val: b.val}
	if m.Indptr == nil {
		m.Indptr = []int64{0}
	}
	if m.Ind == nil {
		m.Ind, m.Val = []int32{}, []float32{}
	}
	b.indptr, b.ind, b.val = nil, nil, nil
	if !b.fixed {
		b.cols = 0
	}
	return m
}
