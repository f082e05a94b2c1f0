package engine

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
)

// compactMinBytes is the training memory for dense weights above which Fit
// looks for unused columns. Below it the pass that finds them would cost
// more than it saves. (A variable so that tests can lower it.)
var compactMinBytes int64 = 8 << 20

// compactScans reports whether compactColumns reads X's indices to
// decide: whether dense weights of X.Cols features would take
// compactMinBytes or more.
func compactScans(X *sparse.CSR, K int, per int64) bool {
	return budget.Mul(int64(X.Cols), int64(K), per) >= compactMinBytes
}

// compactColumns decides whether Fit trains on X's used columns only: when
// dense weights of X.Cols features would take more than compactMinBytes
// (per bytes for each of K weight vectors) and at least half of the
// columns hold no value in any row. It then returns the used columns in
// increasing order and X with its indices renumbered into them (sharing
// X's row pointers and values); otherwise nil and X. Training on the
// renumbered rows does the same arithmetic in the same order, so the
// weights of the used columns are bit for bit those of a dense fit, and
// the others stay zero.
func compactColumns(X *sparse.CSR, K int, per, limit int64) ([]int32, *sparse.CSR, error) {
	if !compactScans(X, K, per) {
		return nil, X, nil
	}
	nnz := X.NNZ()
	ind := X.Ind[:nnz]
	// Find the used columns by a bitmap of the columns, or, when the rows
	// hold fewer values than the bitmap has bytes, by sorting a copy of
	// the indices: the smaller of the two.
	mapBytes := int64(X.Cols+63) / 64 * 8
	var cols []int32
	var words []uint64
	if nnz*4 < mapBytes {
		if err := budget.Check(limit, nnz*4, "sorting the column indices"); err != nil {
			return nil, nil, fmt.Errorf("%w: %w", ErrMemory, err)
		}
		cols = slices.Clone(ind)
		slices.Sort(cols)
		cols = slices.Compact(cols)
	} else {
		if err := budget.Check(limit, mapBytes*2, "the map of used columns"); err != nil {
			return nil, nil, fmt.Errorf("%w: %w", ErrMemory, err)
		}
		words = make([]uint64, (X.Cols+63)/64)
		for _, j := range ind {
			words[j>>6] |= 1 << (j & 63)
		}
		n := 0
		for _, w := range words {
			n += bits.OnesCount64(w)
		}
		if n*2 > X.Cols || n == 0 {
			return nil, X, nil
		}
		cols = make([]int32, 0, n)
		for wi, w := range words {
			for w != 0 {
				cols = append(cols, int32(wi*64+bits.TrailingZeros64(w)))
				w &= w - 1
			}
		}
	}
	if len(cols)*2 > X.Cols || len(cols) == 0 {
		return nil, X, nil
	}
	if err := budget.Check(limit, nnz*4, "the renumbered column indices"); err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrMemory, err)
	}
	out := make([]int32, nnz)
	if words != nil {
		// The rank of a column is the used columns below its word plus
		// those below it in its word.
		rank := make([]int32, len(words))
		r := int32(0)
		for i, w := range words {
			rank[i] = r
			r += int32(bits.OnesCount64(w))
		}
		for i, j := range ind {
			out[i] = rank[j>>6] + int32(bits.OnesCount64(words[j>>6]&(1<<(j&63)-1)))
		}
	} else {
		for i, j := range ind {
			p, _ := slices.BinarySearch(cols, j)
			out[i] = int32(p)
		}
	}
	return cols, &sparse.CSR{Rows: X.Rows, Cols: len(cols), Indptr: X.Indptr, Ind: out, Val: X.Val[:nnz]}, nil
}

// withCols turns a model trained on renumbered columns into one of the
// original width that lists them.
func withCols(m *Model, cols []int32, dim int) *Model {
	if m == nil || cols == nil {
		return m
	}
	m.Cols, m.Dim = cols, dim
	m.index()
	return m
}

// reorderColumns renumbers the columns X's rows use by the number of rows
// that hold them, most first, and among columns held by as many rows in
// the order the rows first use them. In a hashed feature space the
// features most rows share then sit together at the front of the weights
// instead of being spread over all of them by the hash, and the rare
// features of one row get neighbouring numbers, so that a row's tail
// touches a cache line or two instead of one line a feature. Each row
// keeps its values in their order, so a learner sums the same products
// in the same order as on X and its weights are bit for bit those of X's
// columns. It returns the columns in their new order (cols[p] is the
// original number of column p) and the renumbered rows, which share X's
// row pointers and values. X's rows must be valid.
func reorderColumns(X *sparse.CSR, limit int64) ([]int32, *sparse.CSR, error) {
	nnz := X.NNZ()
	// The new indices, a count a column, the columns in their new order
	// and a start a count (rows + 2 at most).
	need := budget.Mul(nnz+2*int64(X.Cols)+int64(X.Rows)+2, 4, 1)
	if err := budget.Check(limit, need, "the reordered column indices"); err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrMemory, err)
	}
	count := make([]int32, X.Cols)
	for _, j := range X.Ind[:nnz] {
		count[j]++
	}
	// A counting sort by descending count, its buckets filled in the
	// order of the values: one pass over the columns and one over the
	// indices, where a comparison sort of a million columns would cost
	// more than the rest together.
	most := int32(0)
	for _, c := range count {
		most = max(most, c)
	}
	start := make([]int32, most+2)
	for _, c := range count {
		start[most-c+1]++
	}
	for c := 1; c < len(start); c++ {
		start[c] += start[c-1]
	}
	used := int(start[most]) // the columns of count ≥ 1
	cols := make([]int32, used)
	for _, j := range X.Ind[:nnz] {
		if c := count[j]; c > 0 {
			p := start[most-c]
			start[most-c]++
			cols[p] = j
			count[j] = -1 - p // from here on, count holds −1 − the new number
		}
	}
	out := &sparse.CSR{Rows: X.Rows, Cols: used, Indptr: X.Indptr, Ind: make([]int32, nnz), Val: X.Val[:nnz]}
	parallelNNZ(X, func(lo, hi int) {
		a, b := X.Indptr[lo], X.Indptr[hi]
		for p := a; p < b; p++ {
			out.Ind[p] = -1 - count[X.Ind[p]]
		}
	})
	return cols, out, nil
}

// inOrder turns a model trained on the reordered columns cols (see
// reorderColumns) into one of the original width dim: listing its
// columns in increasing order when sparse is set, else with dense
// weights, the form Fit gives the same rows without reordering.
func inOrder(m *Model, cols []int32, dim int, sparse bool) *Model {
	if m == nil || cols == nil {
		return m
	}
	K := len(m.B)
	if !sparse {
		w := make([]float32, dim*K)
		for p, j := range cols {
			copy(w[int(j)*K:int(j+1)*K], m.W[p*K:(p+1)*K])
		}
		m.W, m.Dim = w, dim
		return m
	}
	order := make([]int32, len(cols))
	for p := range order {
		order[p] = int32(p)
	}
	slices.SortFunc(order, func(a, b int32) int { return int(cols[a]) - int(cols[b]) })
	w := make([]float32, len(m.W))
	inc := make([]int32, len(cols))
	for q, p := range order {
		inc[q] = cols[p]
		copy(w[q*K:(q+1)*K], m.W[int(p)*K:int(p+1)*K])
	}
	m.W = w
	return withCols(m, inc, dim)
}

// reorderFit is compactFit for Config.ReorderColumns: it checks X's rows
// where they are not checked yet, reorders their columns (see
// reorderColumns) and reports whether the model is to list its columns,
// as it would when compactFit kept only the used columns.
func reorderFit(X *sparse.CSR, classes []float64, s *settings, rowCols int, checked bool) ([]int32, *sparse.CSR, bool, error) {
	if !checked {
		if err := checkDataCols(X, rowCols); err != nil {
			return nil, nil, false, err
		}
	}
	K := weightRows(classes)
	per := s.bytesPerWeight(X.Cols*K, s.Workers)
	cols, R, err := reorderColumns(X, s.MemoryBudget)
	if err != nil {
		return nil, nil, false, err
	}
	listed := compactScans(X, K, per) && len(cols) > 0 && len(cols)*2 <= X.Cols
	return cols, R, listed, nil
}
