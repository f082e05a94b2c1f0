package engine

import (
	"context"
	"fmt"
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/hyperplane-ml/hyperplane/internal/colorder"
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
// those of X's columns (see inOrder). It returns the renumbered rows,
// which share X's row pointers and values, the columns in their new order
// and their new numbers in increasing order of column, and how many of
// the first columns hold colorder.HotShare of the values: the weights a
// pass keeps reading, where the rare columns past them (most of a hashed
// space's columns) are read once or twice an epoch each. X's rows must be
// valid.
func renumberColumns(X *sparse.CSR, limit int64) (renumbered, error) {
	nnz := X.NNZ()
	ind := X.Ind[:nnz]
	// A count for every column when there are no more columns than
	// values; otherwise a count for each distinct column, with the indices
	// first mapped to their places among the distinct columns (uniq).
	// Those are found by a bitmap of the columns, or, when the bitmap
	// would be larger than a copy of the indices, by sorting such a copy.
	slots := int64(X.Cols)
	mapBytes := (int64(X.Cols) + 63) / 64 * 8
	bitmap, sorted := slots > nnz && mapBytes <= 4*nnz, slots > nnz && mapBytes > 4*nnz
	if bitmap || sorted {
		slots = nnz // at most
	}
	// The new indices; the counts, the columns in their new order, their
	// new numbers by column and the distinct columns (a slot each at
	// most); the starts of the counts (rows + 2 at most); and the bitmap
	// with its ranks.
	need := budget.Mul(nnz+4*slots+int64(X.Rows)+2, 4, 1)
	if bitmap {
		need += 2 * mapBytes
	}
	if err := budget.Check(limit, need, "the renumbered column indices"); err != nil {
		return renumbered{}, fmt.Errorf("%w: %w", ErrMemory, err)
	}
	out := &sparse.CSR{Rows: X.Rows, Cols: 0, Indptr: X.Indptr, Ind: make([]int32, nnz), Val: X.Val[:nnz]}
	src := ind // the indices the counting reads: columns, or places in uniq
	var uniq []int32
	switch {
	case bitmap:
		uniq = usedColumns(X, out.Ind)
	case sorted:
		uniq = sortedColumns(X, out.Ind)
	}
	if uniq != nil {
		slots, src = int64(len(uniq)), out.Ind
	}
	cols, count, start, most, spare := byCount(src, int(slots))
	parallelNNZ(X, func(lo, hi int) {
		for p := X.Indptr[lo]; p < X.Indptr[hi]; p++ {
			out.Ind[p] = -1 - count[src[p]]
		}
	})
	// The new numbers in the order of the columns, for the model's list
	// of its columns (see inOrder): count holds them by column or by
	// place among the distinct columns, both in increasing order.
	byCol := spare[:0] // as long as cols
	for _, c := range count {
		if c < 0 {
			byCol = append(byCol, -1-c)
		}
	}
	if uniq != nil {
		for p, q := range cols {
			cols[p] = uniq[q]
		}
	}
	out.Cols = len(cols)
	return renumbered{X: out, cols: cols, byCol: byCol, hot: colorder.HotPrefix(start, most, nnz)}, nil
}

// byCount numbers the slots that src names by how many times src names
// them, most first, equal counts in the order src first names them (see
// colorder.Rank). The pass that counts also lists the slots in the order
// src first names them, so that the sort reads only the slots named, once
// each, and src just once: most of a text corpus's values name a column
// seen before. It returns the slots in their new order, the count of each
// slot turned into −1 − its new number (0 for a slot src does not name),
// the counting sort's starts after its fill with the largest count (see
// colorder.HotPrefix), and the list of first names, of no further use to
// byCount, for the caller to reuse.
func byCount(src []int32, slots int) (order, count, start []int32, most int32, spare []int32) {
	count = make([]int32, slots)
	first := make([]int32, 0, min(slots, len(src)))
	for _, j := range src {
		if count[j] == 0 {
			first = append(first, j)
		}
		count[j]++
	}
	order, start, most = colorder.Rank(count, first)
	return order, count, start, most, first
}

// sortedColumns is usedColumns by sorting a copy of the indices, for a
// width whose bitmap would be larger than that copy.
func sortedColumns(X *sparse.CSR, places []int32) []int32 {
	ind := X.Ind[:X.NNZ()]
	uniq := slices.Clone(ind)
	slices.Sort(uniq)
	uniq = slices.Compact(uniq)
	parallelNNZ(X, func(lo, hi int) {
		for p := X.Indptr[lo]; p < X.Indptr[hi]; p++ {
			q, _ := slices.BinarySearch(uniq, ind[p])
			places[p] = int32(q)
		}
	})
	return uniq
}

// usedColumns returns the columns X's rows use, in increasing order, and
// writes into places each index's place among them, found by a bitmap of
// the columns: a column's place is the number of used columns in the
// bitmap's words before its own plus those below it in its word.
func usedColumns(X *sparse.CSR, places []int32) []int32 {
	ind := X.Ind[:X.NNZ()]
	words := make([]uint64, (X.Cols+63)/64)
	for _, j := range ind {
		words[j>>6] |= 1 << (j & 63)
	}
	rank := make([]int32, len(words))
	n := int32(0)
	for i, w := range words {
		rank[i] = n
		n += int32(bits.OnesCount64(w))
	}
	uniq := make([]int32, 0, n)
	for i, w := range words {
		for ; w != 0; w &= w - 1 {
			uniq = append(uniq, int32(i*64+bits.TrailingZeros64(w)))
		}
	}
	parallelNNZ(X, func(lo, hi int) {
		for p := X.Indptr[lo]; p < X.Indptr[hi]; p++ {
			j := ind[p]
			places[p] = rank[j>>6] + int32(bits.OnesCount64(words[j>>6]&(1<<(j&63)-1)))
		}
	})
	return uniq
}

// renumbered is what renumberFit gives a fit: the rows to train on (X,
// or X on its used columns renumbered by frequency), their columns in
// their new order (nil when X stays as it is) and the reverse, how many
// of them are hot
// (see renumberColumns), whether the model is to list its columns rather
// than hold dense weights (when the rows use at most half of them), and
// whether X's rows have been checked.
type renumbered struct {
	X       *sparse.CSR
	cols    []int32 // cols[p]: X's number of column p
	byCol   []int32 // the new numbers of the used columns, in increasing order of column
	hot     int
	listed  bool
	checked bool
}

// renumberFit renumbers X's columns (see renumberColumns) when dense
// weights of its width would take compactMinBytes or more (per bytes for
// each weight vector), for the learners that train on rows as they are
// given from zero weights: not the voted perceptron, which keeps its rows,
// nor a random or warm start, which would differ on the unused columns.
// It checks X's rows first unless checked. Where ctx carries a numbering
// of X's columns (colorder.PlanFor), counted as X was read, it takes that
// instead of counting X.
func renumberFit(ctx context.Context, X *sparse.CSR, classes []float64, s *settings, rowCols int, checked bool) (renumbered, error) {
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
	if p := colorder.PlanFor(ctx, X); p != nil {
		if rn, ok := planned(X, p); ok {
			return rn, nil
		}
	}
	rn, err := renumberColumns(X, s.MemoryBudget)
	if err != nil || len(rn.cols) == 0 {
		// Without values there is nothing to renumber, and the width
		// as given is what the model is to hold (or be refused for).
		return as, err
	}
	rn.listed, rn.checked = len(rn.cols)*2 <= X.Cols, true
	return rn, nil
}

// planned renumbers X's columns by the plan p, which numbers the columns
// X's rows use (colorder.Recorder.NewPlan), in one pass on every core. It
// reports false, and X is to be counted, where p does not fit X: another
// width, or a column p has no number for.
func planned(X *sparse.CSR, p *colorder.Plan) (renumbered, bool) {
	if p.Dim != X.Cols || len(p.Code) != X.Cols || len(p.Cols) == 0 {
		return renumbered{}, false
	}
	nnz := X.NNZ()
	out := &sparse.CSR{Rows: X.Rows, Cols: len(p.Cols), Indptr: X.Indptr, Val: X.Val[:nnz]}
	if numberedAlready(X, p) {
		out.Ind = p.Ind[:nnz]
		return plannedOf(out, X.Cols, p), true
	}
	out.Ind = make([]int32, nnz)
	var bad atomic.Bool
	parallelNNZ(X, func(lo, hi int) {
		or := int32(0)
		code, ind := p.Code, X.Ind
		for q := X.Indptr[lo]; q < X.Indptr[hi]; q++ {
			c := code[ind[q]]
			or |= ^c // negative where some c ≥ 0: a column without a number
			out.Ind[q] = -1 - c
		}
		if or < 0 {
			bad.Store(true)
		}
	})
	if bad.Load() {
		return renumbered{}, false
	}
	return plannedOf(out, X.Cols, p), true
}

// plannedOf is what planned returns for X renumbered by p into out, X
// being dim wide.
func plannedOf(out *sparse.CSR, dim int, p *colorder.Plan) renumbered {
	// The new numbers in the order of the columns, for inOrder.
	byCol := make([]int32, 0, len(p.Cols))
	for _, c := range p.Code {
		if c < 0 {
			byCol = append(byCol, -1-c)
		}
	}
	return renumbered{X: out, cols: p.Cols, byCol: byCol, hot: p.Hot, listed: len(byCol)*2 <= dim, checked: true}
}

// numberedAlready reports whether p.Ind holds X's indices renumbered by
// p, as far as a look at one value in every numberedStride tells: its
// length, and the sampled values against p.Code.
func numberedAlready(X *sparse.CSR, p *colorder.Plan) bool {
	nnz := X.NNZ()
	if p.Ind == nil || int64(len(p.Ind)) < nnz || int64(len(X.Ind)) < nnz {
		return false
	}
	same := func(q int64) bool {
		j := X.Ind[q]
		return j >= 0 && int(j) < len(p.Code) && p.Code[j] < 0 && -1-p.Code[j] == p.Ind[q]
	}
	for q := int64(0); q < nnz; q += numberedStride {
		if !same(q) {
			return false
		}
	}
	return nnz == 0 || same(nnz-1)
}

// numberedStride is how far apart numberedAlready samples.
const numberedStride = 61

// inOrder turns a model trained on the renumbered columns of rn (see
// renumberColumns) into one of the original width dim: listing its
// columns in increasing order when rn.listed is set, with dense weights
// otherwise.
func inOrder(m *Model, rn renumbered, dim int) *Model {
	if m == nil || rn.cols == nil {
		return m
	}
	K := len(m.B)
	w := make([]float32, len(rn.byCol)*K)
	if !rn.listed {
		w = make([]float32, dim*K)
	}
	inc := make([]int32, len(rn.byCol))
	// Each new number moves to a place of its own: the blocks run on
	// every core.
	parallelRows(len(rn.byCol), func(lo, hi int) {
		for q := lo; q < hi; q++ {
			p := rn.byCol[q]
			j := rn.cols[p]
			to := q
			if !rn.listed {
				to = int(j)
			}
			inc[q] = j
			if K == 1 {
				// A call to copy one weight costs more than the copy.
				w[to] = m.W[p]
				continue
			}
			copy(w[to*K:(to+1)*K], m.W[int(p)*K:int(p+1)*K])
		}
	})
	m.W, m.Dim = w, dim
	if rn.listed {
		m.Cols = inc
		m.index()
	}
	return m
}
