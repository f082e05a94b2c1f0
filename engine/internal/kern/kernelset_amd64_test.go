//go:build amd64 && !noasm

package kern

import "github.com/hyperplane-ml/hyperplane/asm"

// simdKernels lists what the exported kernels call on tier t (AVX2 or
// AVX512).
func simdKernels(t asm.Tier) *kernelSet {
	k := &kernelSet{
		tier:             t,
		dotInd4F32:       dotInd4F32AVX2Sized,
		axpyAvg4F32:      axpyAvg4F32Checked,
		axpyAvgStrideF32: axpyAvgStrideF32Checked,
		axpyAvgPairF32:   axpyAvgPairF32Checked,
		expandF32:        expandF32Vec,
	}
	if t == asm.AVX512 {
		k.dotInd4F32 = dotInd4F32AVX512Sized
	}
	return k
}

// rawDot4 is the raw interleaved gather kernel with the bound its Sized
// wrappers pass, for tests that reach past the wrappers' switch to scalar
// loads.
func rawDot4(f func([]float32, []int32, []float32, int) (float32, bool)) func([]float32, []int32, []float32) float32 {
	return func(val []float32, ind []int32, w []float32) float32 {
		s, ok := f(val, ind, w, strideLim(len(w), 4))
		if !ok {
			panicIndex("raw", ind, strideLim(len(w), 4))
		}
		return s
	}
}
