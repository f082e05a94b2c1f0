package engine

import (
	"fmt"
	"slices"

	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
)

// compactMinBytes is the training memory for dense weights above which Fit
// renumbers the columns its rows use (see renumberColumns). Below it the
// weights stay in cache and the pass would cost more than it saves. (A
// variable so that tests can lower it.)
var compactMinBytes int64 = 8 << 20

// compactScans reports whether dense weights of X.Cols features would
// take compactMinBytes or more, so that Fit renumbers X's columns.
func compactScans(X *sparse.CSR, K int, per int64) bool {
	return budget.Mul(int64(X.Cols), int64(K), per) >= compactMinBytes
}

// renumberColumns numbers the columns X's rows use by the number of rows
// that hold them, most first, and among columns held by as many rows in
// the order the rows first use them, leaving out the columns no row uses.
//
// The weights of a wide feature space outgrow the caches, and the order of
// its columns often has nothing to do with how often they are used: a
// hash spreads the common terms over all of the buckets, a vocabulary in
// order of first sight or of spelling does much the same. In order of
// frequency the features most rows share sit together in a few pages at
// the front of the weights, and the rare features of one row get
// neighbouring numbers, so that a row's tail touches a cache line or two
// instead of a line per feature.
//
// Each row keeps its values in their order, so a learner sums the same
// products in the same order as on X, and its weights are bit for bit
// those of X's columns (see inOrder). It returns the columns in their new
// order (cols[p] is X's number of column p), the renumbered rows, which
// share X's row pointers and values, and how many of the first columns
// hold hotShare of the values: the weights a pass keeps reading, where
// the rare columns past them (most of a hashed space's columns) are read
// once or twice an epoch each. X's rows must be valid.
func renumberColumns(X *sparse.CSR, limit int64) ([]int32, *sparse.CSR, int, error) {
	nnz := X.NNZ()
	ind := X.Ind[:nnz]
	// A count for every column, unless the columns far outnumber the
	// values: then a count for each distinct column, found by sorting a
	// copy of the indices, with the indices mapped to their places in it.
	sorted := int64(X.Cols) > 2*nnz
	slots := int64(X.Cols)
	if sorted {
		slots = nnz
	}
	// The new indices, the counts, the columns in their new order, the
	// starts of the counts (rows + 2 at most), and the sorted copy.
	need := budget.Mul(nnz+2*slots+int64(X.Rows)+2, 4, 1)
	if sorted {
		need += budget.Mul(nnz, 4, 1)
	}
	if err := budget.Check(limit, need, "the renumbered column indices"); err != nil {
		return nil, nil, 0, fmt.Errorf("%w: %w", ErrMemory, err)
	}
	out := &sparse.CSR{Rows: X.Rows, Cols: 0, Indptr: X.Indptr, Ind: make([]int32, nnz), Val: X.Val[:nnz]}
	src := ind // the indices the counting reads: columns, or places in uniq
	var uniq []int32
	if sorted {
		uniq = slices.Clone(ind)
		slices.Sort(uniq)
		uniq = slices.Compact(uniq)
		slots = int64(len(uniq))
		parallelNNZ(X, func(lo, hi int) {
			for p := X.Indptr[lo]; p < X.Indptr[hi]; p++ {
				q, _ := slices.BinarySearch(uniq, ind[p])
				out.Ind[p] = int32(q)
			}
		})
		src = out.Ind
	}
	count := make([]int32, slots)
	for _, j := range src {
		count[j]++
	}
	// A counting sort by descending count, each count's columns placed in
	// the order the indices name them: a pass over the columns and two
	// over the indices, where a comparison sort of a million columns would
	// cost more than the rest together.
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
	cols := make([]int32, start[most]) // start[most]: the columns of count ≥ 1
	for _, j := range src {
		if c := count[j]; c > 0 {
			p := start[most-c]
			start[most-c]++
			cols[p] = j
			count[j] = -1 - p // from here on, −1 − the new number
		}
	}
	parallelNNZ(X, func(lo, hi int) {
		for p := X.Indptr[lo]; p < X.Indptr[hi]; p++ {
			out.Ind[p] = -1 - count[src[p]]
		}
	})
	if sorted {
		for p, q := range cols {
			cols[p] = uniq[q]
		}
	}
	out.Cols = len(cols)
	return cols, out, hotPrefix(start, most, nnz), nil
}

// hotShare is the share of a training set's values that its hot columns
// hold (see renumberColumns).
const hotShare = 0.95

// hotPrefix returns how many of the first columns in order of frequency
// hold hotShare of the nnz values, from the counting sort's starts after
// its fill: the columns of count most−b then have the new numbers from
// start[b−1] (0 for b = 0) to start[b].
func hotPrefix(start []int32, most int32, nnz int64) int {
	want := int64(float64(nnz) * hotShare)
	sum, prev := int64(0), int32(0)
	for b := range most {
		c, n := int64(most-b), int64(start[b]-prev)
		if sum+n*c >= want {
			return int(prev) + int((want-sum+c-1)/c)
		}
		sum += n * c
		prev = start[b]
	}
	return int(prev)
}

// renumbered is what renumberFit gives a fit: the rows to train on (X,
// or X on its used columns renumbered by frequency), their columns in
// their new order (nil when X stays as it is), how many of them are hot
// (see renumberColumns), whether the model is to list its columns rather
// than hold dense weights (when the rows use at most half of them), and
// whether X's rows have been checked.
type renumbered struct {
	X       *sparse.CSR
	cols    []int32
	hot     int
	listed  bool
	checked bool
}

// renumberFit renumbers X's columns (see renumberColumns) when dense
// weights of its width would take compactMinBytes or more (per bytes for
// each weight vector), for the learners that train on rows as they are
// given from zero weights: not the voted perceptron, which keeps its rows,
// nor a random or warm start, which would differ on the unused columns.
// It checks X's rows first unless checked.
func renumberFit(X *sparse.CSR, classes []float64, s *settings, rowCols int, checked bool) (renumbered, error) {
	as := renumbered{X: X, checked: checked}
	if X == nil || s.Algorithm == Voted || s.InitScale != 0 || (s.Warm != nil && !s.Warm.isZero()) {
		return as, nil
	}
	K := weightRows(classes)
	if !compactScans(X, K, s.bytesPerWeight(X.Cols*K, s.Workers)) {
		return as, nil
	}
	if !checked {
		if err := checkDataCols(X, rowCols); err != nil {
			return as, err
		}
		as.checked = true
	}
	cols, R, hot, err := renumberColumns(X, s.MemoryBudget)
	if err != nil || len(cols) == 0 {
		// Without values there is nothing to renumber, and the width
		// as given is what the model is to hold (or be refused for).
		return as, err
	}
	return renumbered{X: R, cols: cols, hot: hot, listed: len(cols)*2 <= X.Cols, checked: true}, nil
}

// inOrder turns a model trained on the renumbered columns cols (see
// renumberColumns) into one of the original width dim: listing its
// columns in increasing order when listed is set, with dense weights
// otherwise.
func inOrder(m *Model, cols []int32, dim int, listed bool) *Model {
	if m == nil || cols == nil {
		return m
	}
	K := len(m.B)
	if !listed {
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
	m.W, m.Cols, m.Dim = w, inc, dim
	m.index()
	return m
}
