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
