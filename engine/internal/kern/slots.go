package kern

import (
	"unsafe"

	"github.com/hyperplane-ml/hyperplane/asm"
)

// The interleaved layout: a learner keeps each weight in the first four
// bytes of a 16-byte slot and its float64 averaging accumulator in the
// last eight, so that the prediction's gather and the update's scatter
// touch one cache line per feature instead of two.

// DotInd4F32 returns Σ val[k]·w[4·ind[k]]: asm.DotIndF32 over weights
// kept in every fourth element of w, the layout in which a learner puts
// other per-feature state beside each weight so that one cache line serves
// both. On every tier the result is bit-identical to asm.DotIndF32 over the
// same weights packed densely (the same loop, switching to scalar loads at
// the same number of weights). It panics if len(val) != len(ind) or some
// 4·ind[k] is not in [0, len(w)).
func DotInd4F32(val []float32, ind []int32, w []float32) float32 {
	checkLen("DotInd4F32", len(val), len(ind))
	switch tier() {
	case asm.AVX512:
		return dotInd4F32AVX512Sized(val, ind, w)
	case asm.AVX2:
		return dotInd4F32AVX2Sized(val, ind, w)
	}
	return dotInd4F32Generic(val, ind, w)
}

// AxpyAvg4F32 is asm.AxpyAvgF32 on weights and accumulators interleaved in
// 16-byte slots: w[j] is the float32 in the first four bytes of wu[2j]
// (element 4j of a float32 view of wu, as DotInd4F32 reads it) and u[j]
// is wu[2j+1]. It panics if len(val) != len(ind) or an index is not in
// [0, len(wu)/2).
func AxpyAvg4F32(a float32, ca float64, val []float32, ind []int32, wu []float64) {
	checkLen("AxpyAvg4F32", len(val), len(ind))
	// One VEX-encoded scalar loop serves both SIMD tiers, as for
	// asm.AxpyAvgF32.
	if tier() != asm.Generic {
		axpyAvg4F32Checked(a, ca, val, ind, wu)
		return
	}
	axpyAvg4F32Generic(a, ca, val, ind, wu)
}

// dotInd4F32Generic computes, in the order of asm's portable DotIndF32,
//
//	for k := range val { s += val[k] * w[4*ind[k]] }
func dotInd4F32Generic(val []float32, ind []int32, w []float32) float32 {
	var s0, s1 float32
	ind = ind[:len(val)]
	k := 0
	for ; k+2 <= len(val); k += 2 {
		s0 += val[k] * w[4*int(ind[k])]
		s1 += val[k+1] * w[4*int(ind[k+1])]
	}
	if k < len(val) {
		s0 += val[k] * w[4*int(ind[k])]
	}
	return s0 + s1
}

// axpyAvg4F32Generic computes asm.AxpyAvgF32's update on interleaved
// slots, rounding every product before adding it: w[j] is the float32 in
// the first four bytes of wu[2j], u[j] is wu[2j+1].
//
//	for k := range val {
//		w[ind[k]] += a * val[k]
//		u[ind[k]] += ca * float64(val[k])
//	}
func axpyAvg4F32Generic(a float32, ca float64, val []float32, ind []int32, wu []float64) {
	w := unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(wu))), 2*len(wu))
	ind = ind[:len(val)]
	for k, v := range val {
		j := int(ind[k])
		w[4*j] += float32(a * v)
		wu[2*j+1] += float64(ca * float64(v))
	}
}
