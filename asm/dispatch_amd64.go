//go:build amd64 && !noasm

package asm

import (
	"fmt"
	"unsafe"

	"github.com/klauspost/cpuid/v2"
)

// archInit registers the tiers this CPU can run. cpuid's AVX flags already
// account for the operating system saving the wider registers.
func archInit() {
	if cpuid.CPU.Supports(cpuid.AVX, cpuid.AVX2, cpuid.FMA3) {
		supported[AVX2] = true
		// The AVX-512 kernels use EVEX forms on YMM (VL) and BZHI (BMI2)
		// for their tail masks.
		supported[AVX512] = cpuid.CPU.Supports(cpuid.AVX512F, cpuid.AVX512VL, cpuid.BMI2)
	}
}

// The Sized wrappers switch to scalar loads for weight vectors past
// gatherMaxBytes and rows shorter than gatherMinLen, and otherwise call the
// gather kernel with the bound its indices must respect: below gatherMaxBytes
// of weights it is far under the 2³¹ the kernels' 32-bit compares allow.
// Weights of no element go to the loop too, whose bounds check then
// panics on the first index. They run once per row, so each tier has its
// own: one wrapper taking the tier as an argument cost about five
// instructions more per call (the tier's word past the nine argument
// registers, and a second branch on it).

func dotIndF32AVX2Sized(val []float32, ind []int32, w []float32) float32 {
	if len(w)*4 > gatherMaxBytes || len(val) < gatherMinLen || len(w) == 0 {
		return dotIndGeneric(val, ind, w)
	}
	s, ok := dotIndF32AVX2(val, ind, w, len(w))
	if !ok {
		panicIndex("DotIndF32", ind, len(w))
	}
	return s
}

func dotIndF32AVX512Sized(val []float32, ind []int32, w []float32) float32 {
	if len(w)*4 > gatherMaxBytes || len(val) < gatherMinLen || len(w) == 0 {
		return dotIndGeneric(val, ind, w)
	}
	s, ok := dotIndF32AVX512(val, ind, w, len(w))
	if !ok {
		panicIndex("DotIndF32", ind, len(w))
	}
	return s
}

func dotIndF64AVX2Sized(val []float64, ind []int32, w []float64) float64 {
	if len(w)*8 > gatherMaxBytes || len(w) == 0 {
		return dotIndGeneric(val, ind, w)
	}
	s, ok := dotIndF64AVX2(val, ind, w, len(w))
	if !ok {
		panicIndex("DotIndF64", ind, len(w))
	}
	return s
}

func dotIndF64AVX512Sized(val []float64, ind []int32, w []float64) float64 {
	if len(w)*8 > gatherMaxBytes || len(w) == 0 {
		return dotIndGeneric(val, ind, w)
	}
	s, ok := dotIndF64AVX512(val, ind, w, len(w))
	if !ok {
		panicIndex("DotIndF64", ind, len(w))
	}
	return s
}

// The scalar update loops compare each sign-extended index with a 64-bit
// bound, so any slice length serves as their bound.

func axpyIndF32Checked(a float32, val []float32, ind []int32, w []float32) {
	if !axpyIndF32AVX2(a, val, ind, w, len(w)) {
		panicIndex("AxpyIndF32", ind, len(w))
	}
}

func axpyIndF64Checked(a float64, val []float64, ind []int32, w []float64) {
	if !axpyIndF64AVX2(a, val, ind, w, len(w)) {
		panicIndex("AxpyIndF64", ind, len(w))
	}
}

func axpyAvgF32Checked(a float32, ca float64, val []float32, ind []int32, w []float32, u []float64) {
	lim := min(len(w), len(u))
	if !axpyAvgF32AVX(a, ca, val, ind, w, u, lim) {
		panicIndex("AxpyAvgF32", ind, lim)
	}
}

func addScoresAVX2Checked(W []float32, ind []int32, val []float32, s []float32) {
	lim := scoresLim(W, s)
	if !addScoresAVX2(W, ind, val, s, lim) {
		panicIndex("AddScoresF32", ind, lim)
	}
}

func addScoresAVX512Checked(W []float32, ind []int32, val []float32, s []float32) {
	lim := scoresLim(W, s)
	if !addScoresAVX512(W, ind, val, s, lim) {
		panicIndex("AddScoresF32", ind, lim)
	}
}

// scoresLim is the bound of AddScoresF32's indices: the features of W,
// len(W)/len(s) (0 without classes).
func scoresLim(W, s []float32) int {
	if len(s) == 0 {
		return 0
	}
	return len(W) / len(s)
}

// The DotRows wrappers make every row's product the one DotInd gives for
// that row alone: past gatherMaxBytes of weights all rows take the scalar
// loop, and otherwise runs of rows of gatherMinLen or more (float32) go to
// the kernel in one call and shorter rows to the loop. Batch prediction
// then agrees bit for bit with row-by-row prediction. Walking the rows in
// order they also check what checkRows leaves: a short row's slicing
// panics if its pointers decrease, a run holds only rows whose pointers
// increase, and its last pointer must lie inside ind (ind and val come
// with their capacities cut to their lengths).

func dotRowsF32Sized(t Tier, indptr []int64, ind []int32, val, w, out []float32) {
	kernel := dotRowsF32AVX2
	if t == AVX512 {
		kernel = dotRowsF32AVX512
	}
	dotRowsSized("DotRowsF32", gatherMinLen, kernel, indptr, ind, val, w, out)
}

func dotRowsF64Sized(t Tier, indptr []int64, ind []int32, val, w, out []float64) {
	kernel := dotRowsF64AVX2
	if t == AVX512 {
		kernel = dotRowsF64AVX512
	}
	dotRowsSized("DotRowsF64", 0, kernel, indptr, ind, val, w, out)
}

// dotRowsSized sends the runs of rows of minLen or more to kernel, a
// tier's rows kernel, and shorter rows to the loop. With minLen 0 the
// only rows the loop gets are those whose pointers decrease, whose
// slicing panics.
func dotRowsSized[T float32 | float64](op string, minLen int, kernel func([]int64, []int32, []T, []T, []T, int) bool, indptr []int64, ind []int32, val, w, out []T) {
	if len(w)*int(unsafe.Sizeof(w[0])) > gatherMaxBytes || len(w) == 0 {
		dotRowsGeneric(indptr, ind, val, w, out)
		return
	}
	for r := 0; r < len(out); {
		if lo, hi := indptr[r], indptr[r+1]; hi-lo < int64(minLen) {
			out[r] = dotIndGeneric(val[lo:hi], ind[lo:hi], w)
			r++
			continue
		}
		e := runEnd(indptr, r, len(out), minLen, len(ind))
		if !kernel(indptr[r:e+1], ind, val, w, out[r:e], len(w)) {
			panicIndex(op, ind[indptr[r]:indptr[e]], len(w))
		}
		r = e
	}
}

// runEnd returns the end e of the run of rows from r (whose length the
// caller has checked to be at least minLen) while rows of minLen or more
// follow, and panics unless the run's last pointer lies inside the nind
// stored entries.
func runEnd(indptr []int64, r, rows, minLen, nind int) int {
	e := r + 1
	for e < rows && indptr[e+1]-indptr[e] >= int64(minLen) {
		e++
	}
	if indptr[e] > int64(nind) {
		panic(fmt.Sprintf("asm: row pointer indptr[%d] = %d past the %d stored entries", e, indptr[e], nind))
	}
	return e
}
