package kern

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// The tests here hold every exported function to asm's promise, which
// this package keeps too: whatever its arguments, it touches no memory
// outside the slices it was given. The slices lie against pages the
// process may not touch (asmtest.FencedBytes), so a stray read or write
// faults; every bad index must panic, on every tier.

// safetyDims are weight counts below gatherMaxBytes, where the gathers
// run (one past it is too large to fence cheaply), and the empty vector.
var safetyDims = []int{0, 1, 5, 64, 1000}

func TestSparseKernelsRejectBadIndices(t *testing.T) {
	withTiers(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(51, 52))
		for _, dim := range safetyDims {
			for _, atEnd := range []bool{true, false} {
				w := fenced32(t, dim, atEnd)
				u := fenced64(t, dim, atEnd)
				badRows(t, r, dim, func(val []float32, ind []int32, what string) {
					mustPanic(t, "AxpyAvgStrideF32 "+what, func() { AxpyAvgStrideF32(1, 1, val, ind, 1, w, u) })
					mustPanic(t, "AxpyAvgStrideF32 no u "+what, func() { AxpyAvgStrideF32(1, 1, val, ind, 1, w, nil) })
				})
			}
		}
	})
}

// TestShortSlicesRejectIndices: the kernels that read several slices
// bound every index by the shortest, and the interleaved and strided ones
// by the last whole slot or block.
func TestShortSlicesRejectIndices(t *testing.T) {
	withTiers(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(53, 54))
		for _, d := range []int{1, 6, 40, 300} {
			// u shorter than w: index len(u) fits w but not u.
			w := fenced32(t, d+3, true)
			u := fenced64(t, d, true)
			badRows(t, r, d, func(val []float32, ind []int32, what string) {
				mustPanic(t, "AxpyAvgStrideF32 short u "+what, func() { AxpyAvgStrideF32(1, 1, val, ind, 1, w, u) })
			})
			// Interleaved slots: an odd wu has a last half slot that no
			// index may reach; w4 of 4d+rem float32 holds ⌈(4d+rem)/4⌉ weights.
			for rem := range 4 {
				wu := fenced64(t, 2*d+rem%2, true)
				badRows(t, r, d, func(val []float32, ind []int32, what string) {
					mustPanic(t, "AxpyAvg4F32 "+what, func() { AxpyAvg4F32(1, 1, val, ind, wu) })
				})
				w4 := fenced32(t, 4*d+rem, true)
				badRows(t, r, strideLim(4*d+rem, 4), func(val []float32, ind []int32, what string) {
					mustPanic(t, "DotInd4F32 "+what, func() { DotInd4F32(val, ind, w4) })
				})
			}
			// Strides: the bound is the number of whole-or-partial blocks,
			// and huge strides must not overflow into range.
			for _, stride := range []int{2, 3, 20, 1 << 31, 1 << 40, math.MaxInt} {
				ws := fenced32(t, d*2+1, true)
				us := fenced64(t, d*2+1, true)
				badRows(t, r, strideLim(d*2+1, stride), func(val []float32, ind []int32, what string) {
					mustPanic(t, fmt.Sprintf("AxpyAvgStrideF32 stride=%d %s", stride, what), func() { AxpyAvgStrideF32(1, 1, val, ind, stride, ws, us) })
					mustPanic(t, fmt.Sprintf("AxpyAvgStrideF32 stride=%d no u %s", stride, what), func() { AxpyAvgStrideF32(1, 1, val, ind, stride, ws, nil) })
				})
				// A pair reaches j·stride + the higher class: with it at
				// 1, the bound is the blocks whose second element lies in
				// w and u.
				badRows(t, r, strideLim(d*2, stride), func(val []float32, ind []int32, what string) {
					mustPanic(t, fmt.Sprintf("AxpyAvgPairF32 stride=%d %s", stride, what), func() { AxpyAvgPairF32(1, 1, val, ind, stride, 1, 0, ws, us) })
					mustPanic(t, fmt.Sprintf("AxpyAvgPairF32 stride=%d no u %s", stride, what), func() { AxpyAvgPairF32(1, 1, val, ind, stride, 0, 1, ws, nil) })
				})
			}
		}
	})
}

// TestKernelsStayInFencedSlices: with valid arguments every kernel reads
// and writes only its slices, at every length 0..70 and with the slices
// ending or starting at an inaccessible page, on every tier. (The packed
// kernels have TestP32StaysInFencedSlices, ExpandF32
// TestExpandMatchesReference.)
func TestKernelsStayInFencedSlices(t *testing.T) {
	if !fenced {
		t.Skip("no mmap: fenced slices are plain ones here")
	}
	withTiers(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(57, 58))
		for n := 0; n <= 70; n++ {
			for _, atEnd := range []bool{true, false} {
				x, y := fenced32(t, n, atEnd), fenced32(t, n, atEnd)
				y64 := fenced64(t, n, atEnd)
				// ind indexes all of y; indQ a quarter, for the kernels
				// that take every second, third or fourth element.
				ind, indQ := fencedI32(t, n, atEnd), fencedI32(t, n, atEnd)
				for i := range n {
					x[i], y[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
					y64[i] = r.NormFloat64()
					ind[i], indQ[i] = int32(r.IntN(n)), int32(r.IntN(max(n/4, 1)))
				}
				_ = DotInd4F32(x[:n/4], indQ[:n/4], y)
				AxpyAvg4F32(0.5, 1, x[:n/2], indQ[:n/2], y64)
				AxpyAvgStrideF32(0.5, 1, x[:n/3], indQ[:n/3], 3, y, y64)
				if n >= 3 {
					// Classes 0 and 2 of 3: j·3+2 < n for every j of indQ.
					AxpyAvgPairF32(0.5, 1, x[:n/3], indQ[:n/3], 3, 2, 0, y, y64)
				}
				PrefetchRow(ind, x)
				PrefetchGather(ind, y, 3)
			}
		}
	})
}
