//go:build amd64 && !noasm

package asm

// simdKernels lists what the exported kernels call on tier t (AVX2 or
// AVX512).
func simdKernels(t Tier) *kernelSet {
	k := &kernelSet{
		tier:       t,
		dotF32:     dotF32AVX2,
		dotF64:     dotF64AVX2,
		axpyF32:    axpyF32AVX2,
		axpyF64:    axpyF64AVX2,
		scaleF32:   scaleF32AVX2,
		scaleF64:   scaleF64AVX2,
		sumSqF32:   sumSqF32AVX2,
		sumSqF64:   sumSqF64AVX2,
		dotIndF32:  dotIndF32AVX2Sized,
		dotIndF64:  dotIndF64AVX2Sized,
		axpyIndF32: axpyIndF32Checked,
		axpyIndF64: axpyIndF64Checked,
		axpyAvgF32: axpyAvgF32Checked,
		// Both SIMD tiers run the AVX2 kernel (see AxpyAvgDenseF32).
		axpyAvgDenseF32: axpyAvgDenseF32AVX2,
		addScoresF32:    addScoresAVX2Checked,
		increasingI32:   increasingI32AVX2,
		averageF32:      averageF32AVX2,
		quotientF32:     quotientF32AVX2,
		dotRowsF32: func(indptr []int64, ind []int32, val, w, out []float32) {
			dotRowsF32Sized(t, indptr, ind, val, w, out)
		},
		dotRowsF64: func(indptr []int64, ind []int32, val, w, out []float64) {
			dotRowsF64Sized(t, indptr, ind, val, w, out)
		},
	}
	if t == AVX512 {
		k.dotF32, k.dotF64 = dotF32AVX512, dotF64AVX512
		k.axpyF32, k.axpyF64 = axpyF32AVX512, axpyF64AVX512
		k.scaleF32, k.scaleF64 = scaleF32AVX512, scaleF64AVX512
		k.sumSqF32, k.sumSqF64 = sumSqF32AVX512, sumSqF64AVX512
		k.dotIndF32, k.dotIndF64 = dotIndF32AVX512Sized, dotIndF64AVX512Sized
		k.addScoresF32 = addScoresAVX512Checked
		k.averageF32, k.quotientF32 = averageF32AVX512, quotientF32AVX512
	}
	return k
}

// The raw gather kernels with the bound their Sized wrappers pass, for
// tests that reach past the wrappers' switch to scalar loads.

func rawDot(f func([]float32, []int32, []float32, int) (float32, bool)) func([]float32, []int32, []float32) float32 {
	return func(val []float32, ind []int32, w []float32) float32 {
		s, ok := f(val, ind, w, len(w))
		if !ok {
			panicIndex("raw", ind, len(w))
		}
		return s
	}
}

func rawDot64(f func([]float64, []int32, []float64, int) (float64, bool)) func([]float64, []int32, []float64) float64 {
	return func(val []float64, ind []int32, w []float64) float64 {
		s, ok := f(val, ind, w, len(w))
		if !ok {
			panicIndex("raw", ind, len(w))
		}
		return s
	}
}

func rawRows(f func([]int64, []int32, []float32, []float32, []float32, int) bool) func(indptr []int64, ind []int32, val, w, out []float32) {
	return func(indptr []int64, ind []int32, val, w, out []float32) {
		if !f(indptr, ind, val, w, out, len(w)) {
			panic("raw dotRows: index out of range")
		}
	}
}
