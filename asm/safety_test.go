package asm

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// The tests here hold every exported function to the package's promise:
// whatever its arguments, it touches no memory outside the slices it was
// given. The slices lie against pages the process may not touch (see
// fencedBytes), so a stray read or write faults; every bad index must
// panic, on every tier, through the exported functions that users call.

// withTiers runs f once with each supported tier active.
func withTiers(t *testing.T, f func(t *testing.T)) {
	defer func(t0 Tier) { _ = SetTier(t0) }(Active())
	for _, tier := range Tiers() {
		if err := SetTier(tier); err != nil {
			t.Fatal(err)
		}
		t.Run(tier.String(), f)
	}
}

// safetyDims are weight counts on both sides of gatherMaxBytes' switch to
// scalar loads is too large to fence cheaply; these are all below it, where
// the gathers run, and include the empty vector.
var safetyDims = []int{0, 1, 5, 64, 1000}

func TestSparseKernelsRejectBadIndices(t *testing.T) {
	withTiers(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(51, 52))
		for _, dim := range safetyDims {
			for _, atEnd := range []bool{true, false} {
				w := fenced32(t, dim, atEnd)
				w64 := fenced64(t, dim, atEnd)
				u := fenced64(t, dim, atEnd)
				badRows(t, r, dim, func(val []float32, ind []int32, what string) {
					val64 := make([]float64, len(val))
					mustPanic(t, "DotIndF32 "+what, func() { DotIndF32(val, ind, w) })
					mustPanic(t, "DotIndF64 "+what, func() { DotIndF64(val64, ind, w64) })
					mustPanic(t, "AxpyIndF32 "+what, func() { AxpyIndF32(1, val, ind, w) })
					mustPanic(t, "AxpyIndF64 "+what, func() { AxpyIndF64(1, val64, ind, w64) })
					mustPanic(t, "AxpyAvgF32 "+what, func() { AxpyAvgF32(1, 1, val, ind, w, u) })
					indptr := []int64{0, int64(len(ind))}
					mustPanic(t, "DotRowsF32 "+what, func() { DotRowsF32(indptr, ind, val, w, make([]float32, 1)) })
					mustPanic(t, "DotRowsF64 "+what, func() { DotRowsF64(indptr, ind, val64, w64, make([]float64, 1)) })
				})
			}
		}
	})
}

// TestShortSlicesRejectIndices: the kernels that read several slices
// bound every index by the shortest, and the class scores by the last
// whole block of classes.
func TestShortSlicesRejectIndices(t *testing.T) {
	withTiers(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(53, 54))
		for _, d := range []int{1, 6, 40, 300} {
			// u shorter than w: index len(u) fits w but not u.
			w := fenced32(t, d+3, true)
			u := fenced64(t, d, true)
			badRows(t, r, d, func(val []float32, ind []int32, what string) {
				mustPanic(t, "AxpyAvgF32 short u "+what, func() { AxpyAvgF32(1, 1, val, ind, w, u) })
			})
			// w shorter than u.
			w2 := fenced32(t, d, true)
			u2 := fenced64(t, d+3, true)
			badRows(t, r, d, func(val []float32, ind []int32, what string) {
				mustPanic(t, "AxpyAvgF32 short w "+what, func() { AxpyAvgF32(1, 1, val, ind, w2, u2) })
			})
			// Class scores: W of d·K+rem weights holds d features of K.
			for _, K := range []int{1, 7, 16, 20, 33} {
				for _, rem := range []int{0, 1, K - 1} {
					W := fenced32(t, d*K+rem, true)
					s := fenced32(t, K, true)
					badRows(t, r, len(W)/K, func(val []float32, ind []int32, what string) {
						mustPanic(t, fmt.Sprintf("AddScoresF32 K=%d %s", K, what), func() { AddScoresF32(W, ind, val, s) })
					})
				}
			}
		}
	})
}

// TestBadRowPointers: DotRows checks every row pointer, not only the
// first and last, and never reaches into the capacity past ind and val.
func TestBadRowPointers(t *testing.T) {
	withTiers(t, func(t *testing.T) {
		const n = 60
		ind := make([]int32, n, 4*n)
		val := make([]float32, n, 4*n)
		val64 := make([]float64, n, 4*n)
		for k := range ind {
			ind[k] = int32(k)
		}
		w := fenced32(t, n, true)
		w64 := fenced64(t, n, true)
		for _, indptr := range [][]int64{
			{0, 3 * n, n},        // into the capacity, back inside
			{0, 2 * n, 2 * n, n}, // a long run past the end
			{0, 30, 10, n},       // decreasing, short rows
			{0, 40, 30, n},
			{0, 50, 25, 55, n},
			{5, 4, n},
			{0, -30, n},
			{0, 30, 30, 1 << 40, n},
		} {
			rows := len(indptr) - 1
			what := fmt.Sprint(indptr)
			mustPanic(t, "DotRowsF32 "+what, func() { DotRowsF32(indptr, ind, val, w, make([]float32, rows)) })
			mustPanic(t, "DotRowsF64 "+what, func() { DotRowsF64(indptr, ind, val64, w64, make([]float64, rows)) })
		}
		// Bad indices in a later row of a block, after good rows long
		// and short.
		r := rand.New(rand.NewPCG(55, 56))
		for _, bad := range badIndices(n) {
			for _, lens := range [][]int{{30, 30, 40}, {5, 30, 3}, {40, 2, 26}} {
				indptr := []int64{0}
				var ind []int32
				for _, l := range lens {
					for range l {
						ind = append(ind, int32(r.IntN(n)))
					}
					indptr = append(indptr, int64(len(ind)))
				}
				ind[len(ind)-2] = bad
				val := make([]float32, len(ind))
				val64 := make([]float64, len(ind))
				what := fmt.Sprintf("rows %v bad %d", lens, bad)
				mustPanic(t, "DotRowsF32 "+what, func() { DotRowsF32(indptr, ind, val, w, make([]float32, len(lens))) })
				mustPanic(t, "DotRowsF64 "+what, func() { DotRowsF64(indptr, ind, val64, w64, make([]float64, len(lens))) })
			}
		}
	})
}

// TestKernelsStayInFencedSlices: with valid arguments every kernel reads
// and writes only its slices, at every length 0..70 and with the slices
// ending or starting at an inaccessible page, on every tier.
func TestKernelsStayInFencedSlices(t *testing.T) {
	if !fenced {
		t.Skip("no mmap: fenced slices are plain ones here")
	}
	withTiers(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(57, 58))
		for n := 0; n <= 70; n++ {
			for _, atEnd := range []bool{true, false} {
				x, y := fenced32(t, n, atEnd), fenced32(t, n, atEnd)
				x64, y64 := fenced64(t, n, atEnd), fenced64(t, n, atEnd)
				ind := fencedI32(t, n, atEnd)
				for i := range n {
					x[i], y[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
					x64[i], y64[i] = r.NormFloat64(), r.NormFloat64()
					ind[i] = int32(r.IntN(n))
				}
				_ = DotF32(x, y) + SumSqF32(x)
				_ = DotF64(x64, y64) + SumSqF64(x64)
				AxpyF32(0.5, x, y)
				AxpyF64(0.5, x64, y64)
				ScaleF32(0.5, x)
				ScaleF64(0.5, x64)
				AverageF32(x, y, y64, 3)
				QuotientF32(x, y64, 3)
				_ = IncreasingI32(ind)
				_ = DotIndF32(x, ind, y)
				_ = DotIndF64(x64, ind, y64)
				AxpyIndF32(0.5, x, ind, y)
				AxpyIndF64(0.5, x64, ind, y64)
				AxpyAvgF32(0.5, 1, x, ind, y, y64)
				AxpyAvgDenseF32(0.5, 1, x, y, y64)
				if n > 0 {
					AddScoresF32(y, ind[:1], x[:1], fenced32(t, 1, atEnd))
				}
				DotRowsF32([]int64{0, int64(n)}, ind, x, y, make([]float32, 1))
				DotRowsF64([]int64{0, int64(n)}, ind, x64, y64, make([]float64, 1))
			}
		}
	})
}
