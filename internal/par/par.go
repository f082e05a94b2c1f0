// Package par splits work over the rows of a sparse matrix among
// goroutines, for the checks and conversions that the sparse and engine
// packages make of a whole matrix at once.
package par

import (
	"runtime"
	"sort"
	"sync"
)

// Split is the number of stored values per part: a matrix of fewer than
// 2·Split values is worked on by one goroutine, that of the caller.
const Split = 1 << 19

// ByNNZ runs f over the rows [0, n) of a matrix whose row pointers are
// indptr (n+1 of them, from 0), in contiguous parts that hold about the
// same number of values: one part per Split values, up to GOMAXPROCS
// parts, each on a goroutine of its own when there is more than one. It
// returns when every call of f has.
func ByNNZ(indptr []int64, f func(lo, hi int)) {
	n := len(indptr) - 1
	nnz := indptr[n]
	p := int(min(int64(runtime.GOMAXPROCS(0)), nnz/Split))
	if p < 2 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	lo := 0
	for k := 1; k <= p; k++ {
		hi := n
		if k < p {
			t := nnz * int64(k) / int64(p)
			hi = sort.Search(n, func(i int) bool { return indptr[i] >= t })
		}
		a := lo
		wg.Go(func() { f(a, hi) })
		lo = hi
	}
	wg.Wait()
}
