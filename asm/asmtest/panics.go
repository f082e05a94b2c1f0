package asmtest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

// MustPanic fails unless f panics as a bounds check does: with a runtime
// error, or with a message of package pkg ("pkg.Func: …" or "pkg: …").
func MustPanic(t *testing.T, pkg, what string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		switch p := recover().(type) {
		case nil:
			t.Fatalf("%s: no panic", what)
		case runtime.Error:
		case string:
			if !strings.HasPrefix(p, pkg+".") && !strings.HasPrefix(p, pkg+":") {
				t.Fatalf("%s: panic %q", what, p)
			}
		default:
			t.Fatalf("%s: panic with %T %v", what, p, p)
		}
	}()
	f()
}

// SafetyRowLens are row lengths around every vector width, unroll and
// gather switch point, so that a bad index reaches the unrolled loop, the
// single vectors, the masked or scalar tail and the short-row loop.
var SafetyRowLens = []int{1, 2, 7, 8, 9, 15, 16, 17, 23, 24, 25, 31, 32, 33, 47, 48, 49, 64, 65, 100}

// SafetyMaxRow is the longest of SafetyRowLens.
const SafetyMaxRow = 100

// BadIndices are indices outside [0, lim): just past either end, far
// past, and the int32 extremes.
func BadIndices(lim int) []int32 {
	return []int32{-1, int32(lim), int32(lim) + 1, int32(-lim), 1 << 30, math.MaxInt32, math.MinInt32}
}

// BadRows calls f with rows (val, ind) of every length in SafetyRowLens
// whose indices lie in [0, lim) but for one bad index at the start, in
// the middle or at the end. ind and val end against fenced pages.
func BadRows(t *testing.T, r *rand.Rand, lim int, f func(val []float32, ind []int32, what string)) {
	ib := FencedI32(t, SafetyMaxRow, true)
	vb := Fenced32(t, SafetyMaxRow, true)
	for _, n := range SafetyRowLens {
		ind, val := ib[SafetyMaxRow-n:], vb[SafetyMaxRow-n:]
		for _, at := range []int{0, n / 2, n - 1} {
			for _, bad := range BadIndices(lim) {
				for k := range ind {
					ind[k] = int32(r.IntN(max(lim, 1)))
					val[k] = float32(r.NormFloat64())
				}
				ind[at] = bad
				f(val, ind, fmt.Sprintf("n=%d ind[%d]=%d lim=%d", n, at, bad, lim))
			}
		}
	}
}
