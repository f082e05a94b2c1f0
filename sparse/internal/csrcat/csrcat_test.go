package csrcat

import (
	"slices"
	"sync"
	"testing"
)

func TestConcat(t *testing.T) {
	parts := func() []Part {
		return []Part{
			{Indptr: []int64{0, 2, 3}, Ind: []int32{0, 4, 1}, Val: []float32{1, 2, 3}, Y: []float64{1, -1}, QID: []int64{7, 7}},
			{Indptr: []int64{0}}, // no rows
			{Indptr: []int64{0, 0, 1}, Ind: []int32{9}, Val: []float32{4}, Y: []float64{2, 3}},
			{Indptr: []int64{0, 1}, Ind: []int32{5}, Val: []float32{5}, Y: []float64{4}, QID: []int64{8}},
		}
	}
	for _, workers := range []int{0, 1, 3, 8} {
		for _, qid := range []bool{false, true} {
			ps := parts()
			var mu sync.Mutex
			var released []int
			r := Concat(ps, qid, workers, func(k int) {
				mu.Lock()
				released = append(released, k)
				mu.Unlock()
			})
			slices.Sort(released)
			switch {
			case !slices.Equal(r.Indptr, []int64{0, 2, 3, 3, 4, 5}):
				t.Fatalf("workers %d: Indptr %v", workers, r.Indptr)
			case !slices.Equal(r.Ind, []int32{0, 4, 1, 9, 5}) || !slices.Equal(r.Val, []float32{1, 2, 3, 4, 5}):
				t.Fatalf("workers %d: Ind %v Val %v", workers, r.Ind, r.Val)
			case !slices.Equal(r.Y, []float64{1, -1, 2, 3, 4}):
				t.Fatalf("workers %d: Y %v", workers, r.Y)
			case qid && !slices.Equal(r.QID, []int64{7, 7, 0, 0, 8}), !qid && r.QID != nil:
				t.Fatalf("workers %d qid %v: QID %v", workers, qid, r.QID)
			case !slices.Equal(released, []int{0, 2, 3}):
				t.Fatalf("workers %d: released %v", workers, released)
			}
		}
	}
	if r := Concat(nil, false, 2, nil); len(r.Indptr) != 1 || len(r.Y) != 0 {
		t.Fatalf("no parts: %+v", r)
	}
}
