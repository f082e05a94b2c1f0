//go:build amd64 && !noasm

package asm

import "github.com/klauspost/cpuid/v2"

var avx2Kernels = kernelSet{
	tier:          AVX2,
	dotF32:        dotF32AVX2,
	dotF64:        dotF64AVX2,
	axpyF32:       axpyF32AVX2,
	axpyF64:       axpyF64AVX2,
	scaleF32:      scaleF32AVX2,
	scaleF64:      scaleF64AVX2,
	sumSqF32:      sumSqF32AVX2,
	sumSqF64:      sumSqF64AVX2,
	dotIndF32:     dotIndF32AVX2Sized,
	dotInd4F32:    dotInd4F32AVX2Sized,
	dotIndF64:     dotIndF64AVX2Sized,
	axpyIndF32:    axpyIndF32AVX2,
	axpyIndF64:    axpyIndF64AVX2,
	axpyAvgF32:    axpyAvgF32AVX,
	axpyAvg4F32:   axpyAvg4F32AVX,
	increasingI32: increasingI32AVX2,
	dotRowsF32:    dotRowsF32AVX2,
	dotRowsF64:    dotRowsF64AVX2,
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
	// Gather, FMA and scatter (axpyInd*AVX512) measured 1.5x slower than
	// the scalar FMA loop on a Zen 5 (48 vs 31 µs for 1024 rows of 75
	// nonzeros), so this tier keeps the scalar loop, which also tolerates
	// repeated indices.
	axpyIndF32: axpyIndF32AVX2,
	axpyIndF64: axpyIndF64AVX2,
	// The averaged update is a scalar loop on both tiers (genAxpyAvg).
	axpyAvgF32:  axpyAvgF32AVX,
	axpyAvg4F32: axpyAvg4F32AVX,
	// Validating indices is bound by reading them: AVX2 serves both.
	increasingI32: increasingI32AVX2,
	dotRowsF32:    dotRowsF32AVX512,
	dotRowsF64:    dotRowsF64AVX512,
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
// scalar loads: measured on a Zen 5, gathers win while the weights sit in
// L2 and lose once they exceed about 8 MiB, when nearly every element is a
// cache miss and the gather's serialised loads cost more than the scalar
// loop's overlapped ones.
const gatherMaxBytes = 8 << 20

// The Sized wrappers call the gather kernels directly (no function value
// in between: this sits on every sparse prediction) and switch to scalar
// loads for weight vectors past gatherMaxBytes.

func dotIndF32AVX2Sized(val []float32, ind []int32, w []float32) float32 {
	if len(w)*4 > gatherMaxBytes {
		return dotIndF32Generic(val, ind, w)
	}
	return dotIndF32AVX2(val, ind, w)
}

func dotIndF32AVX512Sized(val []float32, ind []int32, w []float32) float32 {
	if len(w)*4 > gatherMaxBytes {
		return dotIndF32Generic(val, ind, w)
	}
	return dotIndF32AVX512(val, ind, w)
}

// The interleaved forms switch at the same number of weights (len(w)/4),
// which keeps them bit-identical to the dense ones.

func dotInd4F32AVX2Sized(val []float32, ind []int32, w []float32) float32 {
	if len(w) > gatherMaxBytes {
		return dotInd4F32Generic(val, ind, w)
	}
	return dotInd4F32AVX2(val, ind, w)
}

func dotInd4F32AVX512Sized(val []float32, ind []int32, w []float32) float32 {
	if len(w) > gatherMaxBytes {
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
