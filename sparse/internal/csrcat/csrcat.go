// Package csrcat concatenates CSR pieces parsed or vectorized in parallel
// into one matrix, copying them in parallel: the last step of both
// sparse's LIBSVM reader and sparse/text's vectorizer.
package csrcat

import (
	"sync"
	"sync/atomic"
)

// Part is one piece: rows with local row pointers (Indptr[0] == 0,
// len(Indptr) == len(Y)+1) and, when the result has them, query ids.
type Part struct {
	Indptr []int64
	Ind    []int32
	Val    []float32
	Y      []float64
	QID    []int64 // nil: zeros (when qid is wanted)
}

// Result is the concatenation, its arrays freshly allocated.
type Result struct {
	Indptr []int64
	Ind    []int32
	Val    []float32
	Y      []float64
	QID    []int64 // nil unless asked for
}

// Concat joins parts in order with up to workers goroutines. With qid the
// result has a QID array (zero for parts without one). Each part is handed
// to release, if not nil, once it has been copied, so that its caller can
// let the collector have it before the whole copy ends.
func Concat(parts []Part, qid bool, workers int, release func(k int)) Result {
	type span struct {
		k   int
		row int
		off int64
	}
	spans := make([]span, 0, len(parts))
	var rows int
	var nnz int64
	for k := range parts {
		if len(parts[k].Y) == 0 {
			continue
		}
		spans = append(spans, span{k, rows, nnz})
		rows += len(parts[k].Y)
		nnz += int64(len(parts[k].Ind))
	}
	r := Result{
		Indptr: make([]int64, rows+1),
		Ind:    make([]int32, nnz),
		Val:    make([]float32, nnz),
		Y:      make([]float64, rows),
	}
	if qid {
		r.QID = make([]int64, rows)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(max(workers, 1), len(spans)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(spans) {
					return
				}
				s := spans[i]
				p := &parts[s.k]
				copy(r.Ind[s.off:], p.Ind)
				copy(r.Val[s.off:], p.Val)
				copy(r.Y[s.row:], p.Y)
				if r.QID != nil && p.QID != nil {
					copy(r.QID[s.row:], p.QID)
				}
				ptr := r.Indptr[s.row+1 : s.row+1+len(p.Y)]
				for j := range ptr {
					ptr[j] = p.Indptr[j+1] + s.off
				}
				if release != nil {
					release(s.k)
				}
			}
		})
	}
	wg.Wait()
	return r
}
