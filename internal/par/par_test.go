package par

import (
	"runtime"
	"slices"
	"sync"
	"testing"
)

// parts returns the parts ByNNZ gives rows of the given lengths, sorted.
func parts(lens []int64) [][2]int {
	indptr := make([]int64, len(lens)+1)
	for i, l := range lens {
		indptr[i+1] = indptr[i] + l
	}
	var mu sync.Mutex
	var got [][2]int
	ByNNZ(indptr, func(lo, hi int) {
		mu.Lock()
		got = append(got, [2]int{lo, hi})
		mu.Unlock()
	})
	slices.SortFunc(got, func(a, b [2]int) int { return a[0] - b[0] })
	return got
}

func TestByNNZ(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	one := func(n int, l int64) []int64 {
		lens := make([]int64, n)
		for i := range lens {
			lens[i] = l
		}
		return lens
	}
	for _, c := range []struct {
		name  string
		lens  []int64
		parts int
	}{
		{"no rows", nil, 1},
		{"small", one(100, 10), 1},
		{"just under two parts", one(2*Split/64-1, 64), 1},
		{"two parts", one(2*Split/64, 64), 2},
		{"more than GOMAXPROCS", one(16*Split/1024, 1024), 4},
		{"one huge row", append(one(10, 1), 8*Split), 4},
	} {
		got := parts(c.lens)
		if len(got) != c.parts {
			t.Errorf("%s: %d parts %v, want %d", c.name, len(got), got, c.parts)
			continue
		}
		// The parts are contiguous and cover every row once.
		next := 0
		for _, p := range got {
			if p[0] != next || p[1] < p[0] {
				t.Errorf("%s: parts %v do not tile [0, %d)", c.name, got, len(c.lens))
				break
			}
			next = p[1]
		}
		if next != len(c.lens) {
			t.Errorf("%s: parts %v end at %d, want %d", c.name, got, next, len(c.lens))
		}
	}
}
