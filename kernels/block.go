package kernels

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/hyperplane-ml/hyperplane/asm"
)

// worker holds the scratch one goroutine needs to compute kernel blocks.
type worker struct {
	buf []float32 // dim, all zero between uses: a scattered sparse row
	bt  []float32 // dim×cols: a transposed dense block of b
}

func (w *worker) scratch(dim int) []float32 {
	if len(w.buf) < dim {
		w.buf = make([]float32, dim)
	}
	return w.buf[:dim]
}

// transpose returns b's rows [j0, j1) transposed (dim × (j1−j0)), from bt
// when the caller precomputed the whole transpose (ld = b.n), or copied
// into the worker's scratch.
func (w *worker) transpose(b *Data, j0, j1 int, whole []float32) ([]float32, int) {
	if whole != nil {
		return whole[j0:], b.n
	}
	nb, dim := j1-j0, b.dim
	if cap(w.bt) < nb*dim {
		w.bt = make([]float32, nb*dim)
	}
	bt := w.bt[:nb*dim]
	for j := j0; j < j1; j++ {
		row := b.dense[j*dim : (j+1)*dim]
		for k, v := range row {
			bt[k*nb+j-j0] = v
		}
	}
	return bt, nb
}

// block computes K(a_i, b_j) for i in [i0, i1), j in [j0, j1) into dst
// (row i−i0 starts at dst[(i−i0)*ld]). whole is b's full transpose when b
// is dense and the caller has one, else nil.
func (w *worker) block(k Kernel, a *Data, i0, i1 int, b *Data, j0, j1 int, dst []float32, ld int, whole []float32) {
	if j1 <= j0 || i1 <= i0 {
		return
	}
	dk, ok := k.(DotKernel)
	if !ok {
		w.pairs(k, a, i0, i1, b, j0, j1, dst, ld)
		return
	}
	var zz []float32
	if dk.NeedsNorms() {
		zz = b.norms[j0:j1]
	}
	t := blockTask{dk: dk, a: a, i0: i0, i1: i1, b: b, j0: j0, j1: j1, dst: dst, ld: ld, zz: zz}
	switch {
	case b.dense != nil && a.dense != nil:
		w.denseDense(t, whole)
	case b.dense != nil:
		t.sparseDense()
	default:
		w.anySparse(t)
	}
}

// blockTask is a block of kernel values to compute (see block): rows
// [i0, i1) of a against rows [j0, j1) of b into dst, row by row at ld,
// by the dot-product kernel dk, with b's norms zz where dk needs them.
type blockTask struct {
	dk     DotKernel
	a, b   *Data
	i0, i1 int
	j0, j1 int
	dst    []float32
	ld     int
	zz     []float32
}

// out returns the row of dst that holds a_i's values.
func (t *blockTask) out(i int) []float32 {
	return t.dst[(i-t.i0)*t.ld : (i-t.i0)*t.ld+t.j1-t.j0]
}

// denseDense computes a block of dense a against dense b as rank-1
// updates: dst_i += a_ik · (row k of bᵀ), one fused axpy over the block
// per feature. The block of bᵀ stays in cache for every row of a.
// Features past the narrower width add nothing to the dot product (they
// count in the norms).
func (w *worker) denseDense(t blockTask, whole []float32) {
	a, b, nb := t.a, t.b, t.j1-t.j0
	bt, bld := w.transpose(b, t.j0, t.j1, whole)
	dim := min(a.dim, b.dim)
	for i := t.i0; i < t.i1; i++ {
		out := t.out(i)
		clear(out)
		arow := a.dense[i*a.dim : i*a.dim+dim]
		for f, v := range arow {
			if v != 0 {
				asm.AxpyF32(v, bt[f*bld:f*bld+nb], out)
			}
		}
		t.dk.Apply(out, a.norms[i], t.zz)
	}
}

// sparseDense computes a block of sparse a against dense b: a gather from
// each dense row of b.
func (t *blockTask) sparseDense() {
	a, b := t.a, t.b
	for i := t.i0; i < t.i1; i++ {
		out := t.out(i)
		lo, hi := a.csr.Indptr[i], a.csr.Indptr[i+1]
		ind, val := a.csr.Ind[lo:hi], a.csr.Val[lo:hi]
		cut := len(ind)
		for cut > 0 && int(ind[cut-1]) >= b.dim {
			cut--
		}
		ind, val = ind[:cut], val[:cut]
		for j := t.j0; j < t.j1; j++ {
			out[j-t.j0] = asm.DotIndF32(val, ind, b.dense[j*b.dim:(j+1)*b.dim])
		}
		t.dk.Apply(out, a.norms[i], t.zz)
	}
}

// anySparse computes a block of a (dense or sparse) against sparse b: the
// rows of b times a_i made dense, in one DotRows call per row of a.
func (w *worker) anySparse(t blockTask) {
	a, csr := t.a, t.b.csr
	direct := a.dense != nil && a.dim >= t.b.dim
	var buf []float32
	if !direct {
		buf = w.scratch(t.b.dim)
	}
	for i := t.i0; i < t.i1; i++ {
		out := t.out(i)
		var x []float32
		switch {
		case direct:
			x = a.dense[i*a.dim : (i+1)*a.dim]
		case a.dense != nil:
			copy(buf, a.dense[i*a.dim:(i+1)*a.dim])
			x = buf
		default:
			a.scatter(i, buf)
			x = buf
		}
		asm.DotRowsF32(csr.Indptr[t.j0:t.j1+1], csr.Ind, csr.Val, x, out)
		switch {
		case direct:
		case a.dense != nil:
			clear(buf[:a.dim])
		default:
			a.unscatter(i, buf)
		}
		t.dk.Apply(out, a.norms[i], t.zz)
	}
}

// pairs evaluates a user-defined kernel entry by entry.
func (w *worker) pairs(k Kernel, a *Data, i0, i1 int, b *Data, j0, j1 int, dst []float32, ld int) {
	for i := i0; i < i1; i++ {
		out := dst[(i-i0)*ld : (i-i0)*ld+j1-j0]
		if a.dense != nil && b.dense != nil && a.dim == b.dim {
			x := a.DenseRow(i)
			for j := j0; j < j1; j++ {
				out[j-j0] = float32(k.Dense(x, b.DenseRow(j)))
			}
			continue
		}
		x := a.SparseRow(i)
		for j := j0; j < j1; j++ {
			out[j-j0] = float32(k.Sparse(x, b.SparseRow(j)))
		}
	}
}

// Block computes the kernel block K(a_i, b_j) for i in [i0, i1) and j in
// [j0, j1) into dst: entry (i, j) goes to dst[(i−i0)*ld + j−j0]. It runs
// on the calling goroutine. It panics if the
// ranges are out of bounds or dst is too short, like a slice index would.
// a and b may differ in width: the features only one of them has count
// in its norm and add nothing to the dot product.
func Block(k Kernel, a *Data, i0, i1 int, b *Data, j0, j1 int, dst []float32, ld int) {
	if i0 < 0 || i1 > a.n || j0 < 0 || j1 > b.n || ld < j1-j0 {
		panic("kernels.Block: range out of bounds")
	}
	if i1 > i0 && j1 > j0 {
		_ = dst[(i1-i0-1)*ld+j1-j0-1]
	}
	var w worker
	w.block(k, a, i0, i1, b, j0, j1, dst, ld, nil)
}

// Matrix computes the whole kernel matrix K(a_i, b_j) into dst
// (a.Rows() × b.Rows(), row-major), on all cores.
func Matrix(k Kernel, a, b *Data, dst []float32) {
	n, m := a.n, b.n
	if len(dst) < n*m {
		panic("kernels.Matrix: dst too short")
	}
	const rowsPer = 32
	const colsPer = 1024
	type tile struct{ i0, j0 int }
	var tiles []tile
	for j := 0; j < m; j += colsPer {
		for i := 0; i < n; i += rowsPer {
			tiles = append(tiles, tile{i, j})
		}
	}
	// A dense b is transposed once for every tile, not per tile.
	var bt []float32
	if _, ok := k.(DotKernel); ok && a.dense != nil {
		bt = transposeAll(b)
	}
	parallel(len(tiles), func(w *worker, t int) {
		i0, j0 := tiles[t].i0, tiles[t].j0
		i1, j1 := min(i0+rowsPer, n), min(j0+colsPer, m)
		w.block(k, a, i0, i1, b, j0, j1, dst[i0*m+j0:], m, bt)
	})
}

// parallel runs f(w, t) for t in [0, n) on GOMAXPROCS goroutines, each
// with its own worker, taking tasks in order from a shared counter.
func parallel(n int, f func(w *worker, t int)) {
	p := min(runtime.GOMAXPROCS(0), n)
	if p <= 1 {
		var w worker
		for t := range n {
			f(&w, t)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range p {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var w worker
			for {
				t := int(next.Add(1) - 1)
				if t >= n {
					return
				}
				f(&w, t)
			}
		}()
	}
	wg.Wait()
}
