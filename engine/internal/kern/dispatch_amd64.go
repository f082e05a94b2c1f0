//go:build amd64 && !noasm

package kern

// The Sized wrappers of the interleaved dot product switch to scalar loads
// at the same number of weights (len(w)/4) and the same row length as
// asm.DotIndF32's, which keeps them bit-identical to it, and otherwise
// call the gather kernel with the number of indices j with 4j inside w as
// its bound. Weights of no element go to the loop too, whose bounds check
// then panics on the first index.

func dotInd4F32AVX2Sized(val []float32, ind []int32, w []float32) float32 {
	if len(w) > gatherMaxBytes || len(val) < gatherMinLen || len(w) == 0 {
		return dotInd4F32Generic(val, ind, w)
	}
	s, ok := dotInd4F32AVX2(val, ind, w, strideLim(len(w), 4))
	if !ok {
		panicIndex("DotInd4F32", ind, strideLim(len(w), 4))
	}
	return s
}

func dotInd4F32AVX512Sized(val []float32, ind []int32, w []float32) float32 {
	if len(w) > gatherMaxBytes || len(val) < gatherMinLen || len(w) == 0 {
		return dotInd4F32Generic(val, ind, w)
	}
	s, ok := dotInd4F32AVX512(val, ind, w, strideLim(len(w), 4))
	if !ok {
		panicIndex("DotInd4F32", ind, strideLim(len(w), 4))
	}
	return s
}

// The scalar update loops compare each sign-extended index with a 64-bit
// bound, so any slice length serves as their bound.

func axpyAvg4F32Checked(a float32, ca float64, val []float32, ind []int32, wu []float64) {
	if !axpyAvg4F32AVX(a, ca, val, ind, wu, len(wu)/2) {
		panicIndex("AxpyAvg4F32", ind, len(wu)/2)
	}
}

// axpyAvgStrideF32Checked bounds the indices, not their products with
// stride, so the kernel's check comes before any multiplication that could
// overflow.
func axpyAvgStrideF32Checked(a float32, ca float64, val []float32, ind []int32, stride int, w []float32, u []float64) {
	lim := stridedLim(len(w), len(u), stride)
	if !axpyAvgStrideF32AVX(a, ca, val, ind, stride, w, u, lim) {
		panicIndex("AxpyAvgStrideF32", ind, lim)
	}
}

func axpyAvgPairF32Checked(a float32, ca float64, val []float32, ind []int32, stride, c, r int, w []float32, u []float64) {
	lim := pairLim(len(w), len(u), stride, max(c, r))
	if !axpyAvgPairF32AVX(a, ca, val, ind, stride, c, r, w, u, lim) {
		panicIndex("AxpyAvgPairF32", ind, lim)
	}
}

// packP32Vec packs the whole vectors of eight of a row (PackP32 packs the
// rest) and reports whether they packed without loss.
func packP32Vec(dst []uint32, ind []int32, val []float32, sh uint) bool {
	return packP32AVX2(dst, ind, val, uint64(sh))
}
