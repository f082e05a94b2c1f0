package kernels

import (
	"fmt"

	"github.com/hyperplane-ml/hyperplane/asm"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// denseFraction is the share of nonzeros above which NewData stores a
// data set densely: a dense row-major block then costs at most 1/denseFraction
// times the memory of its values, and its kernel blocks are matrix
// products on contiguous rows instead of gathers.
const denseFraction = 0.25

// maxDenseBytes caps the dense copy NewData makes.
const maxDenseBytes = 1 << 30

// Data is a set of rows prepared for kernel evaluation: stored densely
// (row-major) or as CSR, with the squared norm of every row cached. It is
// read-only once built and safe for concurrent use.
type Data struct {
	n, dim int
	dense  []float32   // n×dim row-major, nil when sparse
	csr    *sparse.CSR // the rows when sparse
	src    *sparse.CSR // the CSR the Data was made from, if any
	norms  []float32
}

// NewData prepares the rows of X. Rows that are mostly nonzero (at least a
// quarter of the entries, and at most 1 GiB as dense) are copied into a
// dense block; others stay sparse and share X's storage.
func NewData(X *sparse.CSR) *Data {
	d := &Data{n: X.Rows, dim: X.Cols, norms: make([]float32, X.Rows), src: X}
	cells := int64(X.Rows) * int64(X.Cols)
	if cells > 0 && float64(X.NNZ()) >= denseFraction*float64(cells) && cells*4 <= maxDenseBytes {
		d.dense = make([]float32, cells)
		for i := 0; i < X.Rows; i++ {
			row := d.dense[i*X.Cols : (i+1)*X.Cols]
			lo, hi := X.Indptr[i], X.Indptr[i+1]
			for k, j := range X.Ind[lo:hi] {
				row[j] = X.Val[lo+int64(k)]
			}
			d.norms[i] = asm.SumSqF32(X.Val[lo:hi])
		}
		return d
	}
	d.csr = X
	for i := 0; i < X.Rows; i++ {
		lo, hi := X.Indptr[i], X.Indptr[i+1]
		d.norms[i] = asm.SumSqF32(X.Val[lo:hi])
	}
	return d
}

// NewDenseData prepares n dense rows of width dim stored row-major in x
// (which it keeps; do not modify it afterwards).
func NewDenseData(x []float32, n, dim int) *Data {
	if len(x) != n*dim {
		panic("kernels.NewDenseData: len(x) != n*dim")
	}
	if x == nil {
		x = []float32{} // dense, even when empty
	}
	d := &Data{n: n, dim: dim, dense: x, norms: make([]float32, n)}
	for i := range n {
		d.norms[i] = asm.SumSqF32(x[i*dim : (i+1)*dim])
	}
	return d
}

// Rows returns the number of rows.
func (d *Data) Rows() int { return d.n }

// Dim returns the width of the rows.
func (d *Data) Dim() int { return d.dim }

// IsDense reports whether the rows are stored densely.
func (d *Data) IsDense() bool { return d.dense != nil }

// Norm2 returns ‖x_i‖².
func (d *Data) Norm2(i int) float32 { return d.norms[i] }

// DenseRow returns row i of a dense Data (nil for a sparse one).
func (d *Data) DenseRow(i int) []float32 {
	if d.dense == nil {
		return nil
	}
	return d.dense[i*d.dim : (i+1)*d.dim : (i+1)*d.dim]
}

// SparseRow returns row i as a sparse vector. For Data made by NewData
// it shares the CSR's storage; for NewDenseData it gathers the nonzeros
// into new slices.
func (d *Data) SparseRow(i int) sparse.Vector {
	if d.src != nil {
		return d.src.Row(i)
	}
	row := d.DenseRow(i)
	v := sparse.Vector{Dim: d.dim}
	for j, x := range row {
		if x != 0 {
			v.Ind = append(v.Ind, int32(j))
			v.Val = append(v.Val, x)
		}
	}
	return v
}

// scatter writes sparse row i into buf (all zero); unscatter zeroes it
// again. Entries at or past len(buf) are left out.
func (d *Data) scatter(i int, buf []float32) {
	lo, hi := d.csr.Indptr[i], d.csr.Indptr[i+1]
	val := d.csr.Val[lo:hi]
	for k, j := range d.csr.Ind[lo:hi] {
		if int(j) < len(buf) {
			buf[j] = val[k]
		}
	}
}

func (d *Data) unscatter(i int, buf []float32) {
	lo, hi := d.csr.Indptr[i], d.csr.Indptr[i+1]
	for _, j := range d.csr.Ind[lo:hi] {
		if int(j) < len(buf) {
			buf[j] = 0
		}
	}
}

// EvalSparse sets dst[j] = K(x, row j) for every row j of d (len(dst) ≥
// d.Rows()). buf is scratch of at least d.Dim() zeros, and is left zero.
// Features of x at or past d.Dim() count in ‖x‖² but add nothing to a
// dot product. For a DotKernel it allocates nothing.
func (d *Data) EvalSparse(k Kernel, x sparse.Vector, dst, buf []float32) {
	if len(dst) < d.n {
		panic(fmt.Sprintf("kernels.EvalSparse: dst of %d for %d rows", len(dst), d.n))
	}
	dst = dst[:d.n]
	dk, ok := k.(DotKernel)
	if !ok {
		for j := range dst {
			dst[j] = float32(k.Sparse(x, d.SparseRow(j)))
		}
		return
	}
	if len(buf) < d.dim {
		panic(fmt.Sprintf("kernels.EvalSparse: scratch of %d for rows of width %d", len(buf), d.dim))
	}
	buf = buf[:d.dim]
	val := x.Val[:len(x.Ind)]
	for k, j := range x.Ind {
		if j >= 0 && int(j) < len(buf) {
			buf[j] = val[k]
		}
	}
	d.dots(buf, dst)
	for _, j := range x.Ind {
		if j >= 0 && int(j) < len(buf) {
			buf[j] = 0
		}
	}
	var xx float32
	if dk.NeedsNorms() {
		xx = asm.SumSqF32(val)
	}
	dk.Apply(dst, xx, d.norms)
}

// EvalDense is EvalSparse for a dense row x, which may be shorter than
// d.Dim() (missing features are zero) or longer (extra features count in
// ‖x‖² only). buf is needed (and left zero) only when x is shorter.
func (d *Data) EvalDense(k Kernel, x []float32, dst, buf []float32) {
	if len(dst) < d.n {
		panic(fmt.Sprintf("kernels.EvalDense: dst of %d for %d rows", len(dst), d.n))
	}
	dst = dst[:d.n]
	dk, ok := k.(DotKernel)
	if !ok {
		if d.dense != nil && len(x) == d.dim {
			for j := range dst {
				dst[j] = float32(k.Dense(x, d.DenseRow(j)))
			}
			return
		}
		v := sparse.Vector{Dim: len(x)}
		for j, f := range x {
			if f != 0 {
				v.Ind = append(v.Ind, int32(j))
				v.Val = append(v.Val, f)
			}
		}
		for j := range dst {
			dst[j] = float32(k.Sparse(v, d.SparseRow(j)))
		}
		return
	}
	if len(x) >= d.dim {
		d.dots(x[:d.dim], dst)
	} else {
		if len(buf) < d.dim {
			panic(fmt.Sprintf("kernels.EvalDense: scratch of %d for rows of width %d", len(buf), d.dim))
		}
		copy(buf, x)
		d.dots(buf[:d.dim], dst)
		clear(buf[:len(x)])
	}
	var xx float32
	if dk.NeedsNorms() {
		xx = asm.SumSqF32(x)
	}
	dk.Apply(dst, xx, d.norms)
}

// dots sets dst[j] = w·row j for a dense w of width d.dim.
func (d *Data) dots(w, dst []float32) {
	if d.csr != nil {
		if d.n > 0 {
			asm.DotRowsF32(d.csr.Indptr, d.csr.Ind, d.csr.Val, w, dst)
		}
		return
	}
	for j := range dst {
		dst[j] = asm.DotF32(w, d.dense[j*d.dim:(j+1)*d.dim])
	}
}
