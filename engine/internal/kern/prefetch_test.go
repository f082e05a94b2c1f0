package kern

import (
	"math"
	"testing"
)

// TestPrefetchRow: a prefetch is only a hint, so the test checks that it
// leaves the row and its neighbours untouched, takes empty and unaligned
// rows, and allocates nothing.
func TestPrefetchRow(t *testing.T) {
	ind := make([]int32, 300)
	val := make([]float32, 300)
	for i := range ind {
		ind[i] = int32(3 * i)
		val[i] = float32(i) + 0.5
	}
	for n := 0; n <= 300; n += 7 {
		for off := 0; off < 4 && off <= n; off++ {
			PrefetchRow(ind[off:n], val[off:n])
		}
	}
	PrefetchRow(nil, nil)
	for i := range ind {
		if ind[i] != int32(3*i) || val[i] != float32(i)+0.5 {
			t.Fatalf("PrefetchRow changed element %d", i)
		}
	}
	if a := testing.AllocsPerRun(100, func() { PrefetchRow(ind, val) }); a != 0 {
		t.Errorf("PrefetchRow allocates %v times", a)
	}
}

// TestPrefetchGather: the weights' prefetch must not fault whatever the
// indices (negative, or far past w with a large stride: a hint for an
// unmapped address is dropped), must leave ind and w untouched, and
// allocates nothing.
func TestPrefetchGather(t *testing.T) {
	ind := []int32{0, 5, 1 << 30, -1, -(1 << 31), 1<<31 - 1, 17}
	w := make([]float32, 64)
	for i := range w {
		w[i] = float32(i)
	}
	for _, stride := range []int{1, 3, 20, 1 << 20} {
		for off := 0; off <= len(ind); off++ {
			PrefetchGather(ind[off:], w, stride)
		}
	}
	PrefetchGather(nil, nil, 1)
	if ind[2] != 1<<30 || ind[3] != -1 {
		t.Fatal("PrefetchGather changed the indices")
	}
	for i := range w {
		if w[i] != float32(i) {
			t.Fatalf("PrefetchGather changed w[%d]", i)
		}
	}
	if a := testing.AllocsPerRun(100, func() { PrefetchGather(ind, w, 20) }); a != 0 {
		t.Errorf("PrefetchGather allocates %v times", a)
	}
}

// TestPrefetchAnyStride: a prefetch takes any stride, negative and huge
// ones included, and returns. A block loop that walked addresses instead
// of counting cache lines ran for hours on a wild index; it would hang
// this test until go test's timeout fails it.
func TestPrefetchAnyStride(t *testing.T) {
	ind := []int32{0, 1, -1, math.MaxInt32, math.MinInt32, 1 << 20}
	w := make([]float32, 8)
	for _, stride := range []int{0, -1, -(1 << 40), 5, 1 << 12, 1<<12 + 1, 1 << 40, math.MaxInt, math.MinInt} {
		PrefetchGather(ind, w, stride)
		PrefetchGather(ind, nil, stride)
	}
}
