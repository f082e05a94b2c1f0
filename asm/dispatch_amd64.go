//go:build amd64 && !noasm

package asm

import "github.com/klauspost/cpuid/v2"

var avx2Kernels = kernelSet{
	tier:             AVX2,
	dotF32:           dotF32AVX2,
	dotF64:           dotF64AVX2,
	axpyF32:          axpyF32AVX2,
	axpyF64:          axpyF64AVX2,
	scaleF32:         scaleF32AVX2,
	scaleF64:         scaleF64AVX2,
	sumSqF32:         sumSqF32AVX2,
	sumSqF64:         sumSqF64AVX2,
	dotIndF32:        dotIndF32AVX2Sized,
	dotInd4F32:       dotInd4F32AVX2Sized,
	dotIndF64:        dotIndF64AVX2Sized,
	axpyIndF32:       axpyIndF32AVX2,
	axpyIndF64:       axpyIndF64AVX2,
	axpyAvgF32:       axpyAvgF32AVX,
	axpyAvg4F32:      axpyAvg4F32AVX,
	axpyAvgStrideF32: axpyAvgStrideF32AVX,
	increasingI32:    increasingI32AVX2,
	averageF32:       averageF32AVX2,
	quotientF32:      quotientF32AVX2,
	dotRowsF32:       dotRowsF32AVX2Sized,
	dotRowsF64:       dotRowsF64AVX2Sized,
}

var avx512Kernels = kernelSet{
	tier:       AVX512,
	dotF32:     dotF32AVX512,
	dotF64:     dotF64AVX512,
	axpyF32:    axpyF32AVX512,
	axpyF64:    axpyF64AVX512,
	scaleF32:   scaleF32AVX512,
	scaleF64:   scaleF64AVX512,
	sumSqF32:   sumSqF32AVX512,
	sumSqF64:   sumSqF64AVX512,
	dotIndF32:  dotIndF32AVX512Sized,
	dotInd4F32: dotInd4F32AVX512Sized,
	dotIndF64:  dotIndF64AVX512Sized,
	// Gather, FMA and scatter (axpyInd*AVX512) lose to the scalar FMA
	// loop on rows of typical length, so this tier keeps the scalar loop,
	// which also tolerates repeated indices.
	axpyIndF32: axpyIndF32AVX2,
	axpyIndF64: axpyIndF64AVX2,
	// The averaged update is a scalar loop on both tiers (genAxpyAvg).
	axpyAvgF32:       axpyAvgF32AVX,
	axpyAvg4F32:      axpyAvg4F32AVX,
	axpyAvgStrideF32: axpyAvgStrideF32AVX,
	// Validating indices is bound by reading them: AVX2 serves both.
	increasingI32: increasingI32AVX2,
	averageF32:    averageF32AVX512,
	quotientF32:   quotientF32AVX512,
	dotRowsF32:    dotRowsF32AVX512Sized,
	dotRowsF64:    dotRowsF64AVX512Sized,
}

// archInit registers the tiers this CPU can run. cpuid's AVX flags already
// account for the operating system saving the wider registers.
func archInit() {
	if cpuid.CPU.Supports(cpuid.AVX, cpuid.AVX2, cpuid.FMA3) {
		tierKernels[AVX2] = &avx2Kernels
		// The AVX-512 kernels use EVEX forms on YMM (VL) and BZHI (BMI2)
		// for their tail masks.
		if cpuid.CPU.Supports(cpuid.AVX512F, cpuid.AVX512VL, cpuid.BMI2) {
			tierKernels[AVX512] = &avx512Kernels
		}
	}
}

// gatherMaxBytes is the weight-vector size above which gathers lose to
// scalar loads: gathers win while the weights sit in L2 and lose once
// they exceed about 8 MiB, when nearly every element is a cache miss and
// the gather's serialised loads cost more than the scalar loop's
// overlapped ones.
const gatherMaxBytes = 8 << 20

// gatherMinLen is the row length below which the scalar loop beats the
// gather kernels: their masked tail and horizontal sum are a fixed cost
// per row that short rows (a9a's have 14 nonzeros) do not repay; the two
// draw about level in the mid to high twenties.
const gatherMinLen = 24

// The Sized wrappers call the gather kernels directly (no function value
// in between: this sits on every sparse prediction) and switch to scalar
// loads for weight vectors past gatherMaxBytes and rows shorter than
// gatherMinLen.

func dotIndF32AVX2Sized(val []float32, ind []int32, w []float32) float32 {
	if len(w)*4 > gatherMaxBytes || len(val) < gatherMinLen {
		return dotIndF32Generic(val, ind, w)
	}
	return dotIndF32AVX2(val, ind, w)
}

func dotIndF32AVX512Sized(val []float32, ind []int32, w []float32) float32 {
	if len(w)*4 > gatherMaxBytes || len(val) < gatherMinLen {
		return dotIndF32Generic(val, ind, w)
	}
	return dotIndF32AVX512(val, ind, w)
}

// The interleaved forms switch at the same number of weights (len(w)/4)
// and the same row length, which keeps them bit-identical to the dense
// ones.

func dotInd4F32AVX2Sized(val []float32, ind []int32, w []float32) float32 {
	if len(w) > gatherMaxBytes || len(val) < gatherMinLen {
		return dotInd4F32Generic(val, ind, w)
	}
	return dotInd4F32AVX2(val, ind, w)
}

func dotInd4F32AVX512Sized(val []float32, ind []int32, w []float32) float32 {
	if len(w) > gatherMaxBytes || len(val) < gatherMinLen {
		return dotInd4F32Generic(val, ind, w)
	}
	return dotInd4F32AVX512(val, ind, w)
}

func dotIndF64AVX2Sized(val []float64, ind []int32, w []float64) float64 {
	if len(w)*8 > gatherMaxBytes {
		return dotIndF64Generic(val, ind, w)
	}
	return dotIndF64AVX2(val, ind, w)
}

func dotIndF64AVX512Sized(val []float64, ind []int32, w []float64) float64 {
	if len(w)*8 > gatherMaxBytes {
		return dotIndF64Generic(val, ind, w)
	}
	return dotIndF64AVX512(val, ind, w)
}

// The DotRows wrappers make every row's product the one DotInd gives for
// that row alone: past gatherMaxBytes of weights all rows take the scalar
// loop, and otherwise runs of rows of gatherMinLen or more (float32) go to
// the kernel in one call and shorter rows to the loop. Batch prediction
// then agrees bit for bit with row-by-row prediction.

func dotRowsF32AVX2Sized(indptr []int64, ind []int32, val []float32, w []float32, out []float32) {
	dotRowsSized(indptr, ind, val, w, out, 4, gatherMinLen, dotIndF32Generic, dotRowsF32AVX2)
}

func dotRowsF32AVX512Sized(indptr []int64, ind []int32, val []float32, w []float32, out []float32) {
	dotRowsSized(indptr, ind, val, w, out, 4, gatherMinLen, dotIndF32Generic, dotRowsF32AVX512)
}

func dotRowsF64AVX2Sized(indptr []int64, ind []int32, val []float64, w []float64, out []float64) {
	dotRowsSized(indptr, ind, val, w, out, 8, 0, dotIndF64Generic, dotRowsF64AVX2)
}

func dotRowsF64AVX512Sized(indptr []int64, ind []int32, val []float64, w []float64, out []float64) {
	dotRowsSized(indptr, ind, val, w, out, 8, 0, dotIndF64Generic, dotRowsF64AVX512)
}

// dotRowsSized computes a DotRows block as the Sized wrappers split it:
// rows shorter than minLen, or all rows when w has more than
// gatherMaxBytes (size bytes a weight), by loop, and every run of longer
// rows by one call of kernel.
func dotRowsSized[T float32 | float64](indptr []int64, ind []int32, val, w, out []T, size, minLen int,
	loop func(val []T, ind []int32, w []T) T, kernel func(indptr []int64, ind []int32, val, w, out []T)) {
	if len(w)*size > gatherMaxBytes {
		for r := range out {
			lo, hi := indptr[r], indptr[r+1]
			out[r] = loop(val[lo:hi], ind[lo:hi], w)
		}
		return
	}
	for r := 0; r < len(out); {
		if lo, hi := indptr[r], indptr[r+1]; hi-lo < int64(minLen) {
			out[r] = loop(val[lo:hi], ind[lo:hi], w)
			r++
			continue
		}
		e := r + 1
		for e < len(out) && indptr[e+1]-indptr[e] >= int64(minLen) {
			e++
		}
		kernel(indptr[r:e+1], ind, val, w, out[r:e])
		r = e
	}
}

// addScores calls the AVX-512 kernel directly rather than through the
// kernel table: through a function value the compiler cannot see that s
// stays put, and a caller's stack scratch (Model.Predict's scores) would
// move to the heap. AVX2 keeps the Go loop: with 8 lanes and a masked tail
// it has no instruction to spare over it.
func addScores(W []float32, ind []int32, val []float32, s []float32) {
	if active.Load().tier == AVX512 {
		addScoresAVX512(W, ind, val, s)
		return
	}
	addScoresF32Generic(W, ind, val, s)
}
