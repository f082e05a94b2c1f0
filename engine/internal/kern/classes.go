package kern

import (
	"fmt"

	"github.com/hyperplane-ml/hyperplane/asm"
)

// The multiclass layout: a model keeps a feature's K class weights (and
// accumulators) together, feature-major, so that scoring a row reads one
// run of K weights per feature (asm.AddScoresF32). Its update moves one or
// two classes: every K-th weight from the class's offset.

// AxpyAvgStrideF32 is asm.AxpyAvgF32 on every stride-th weight:
// w[ind[k]·stride] += a·val[k] and, when u is not empty,
// u[ind[k]·stride] += ca·val[k] (in float64). A multiclass learner keeps a
// feature's K class weights together; its update of class c is a call
// with w[c:], u[c:] and stride K. It panics if len(val) != len(ind),
// stride < 1, or some ind[k]·stride lies outside w, or outside u when u
// is not empty.
func AxpyAvgStrideF32(a float32, ca float64, val []float32, ind []int32, stride int, w []float32, u []float64) {
	checkLen("AxpyAvgStrideF32", len(val), len(ind))
	if stride < 1 {
		panic(fmt.Sprintf("kern.AxpyAvgStrideF32: stride %d < 1", stride))
	}
	if tier() != asm.Generic {
		axpyAvgStrideF32Checked(a, ca, val, ind, stride, w, u)
		return
	}
	axpyAvgStrideF32Generic(a, ca, val, ind, stride, w, u)
}

// AxpyAvgPairF32 is a multiclass learner's update in one pass over the
// row: class c gains and class r loses,
//
//	w[ind[k]·stride+c] += a·val[k]    w[ind[k]·stride+r] −= a·val[k]
//
// and, when u is not empty, u[…+c] += ca·val[k] and u[…+r] −= ca·val[k]
// (in float64). It gives the bits of AxpyAvgStrideF32(a, ca, …, w[c:],
// u[c:]) followed by AxpyAvgStrideF32(−a, −ca, …, w[r:], u[r:]). It
// panics if len(val) != len(ind), stride < 1, c or r is not in
// [0, stride), c == r, or some ind[k]·stride + max(c, r) lies outside w,
// or outside u when u is not empty.
func AxpyAvgPairF32(a float32, ca float64, val []float32, ind []int32, stride, c, r int, w []float32, u []float64) {
	checkLen("AxpyAvgPairF32", len(val), len(ind))
	if stride < 1 || uint(c) >= uint(stride) || uint(r) >= uint(stride) || c == r {
		panic(fmt.Sprintf("kern.AxpyAvgPairF32: classes %d and %d with stride %d", c, r, stride))
	}
	if tier() != asm.Generic {
		axpyAvgPairF32Checked(a, ca, val, ind, stride, c, r, w, u)
		return
	}
	axpyAvgPairF32Generic(a, ca, val, ind, stride, c, r, w, u)
}

// pairLim is the bound on the indices of AxpyAvgPairF32: j·stride + hi,
// hi the higher class, must lie in w (nw elements) and, when u is not
// empty, in u (nu).
func pairLim(nw, nu, stride, hi int) int {
	lim := strideLim(max(nw-hi, 0), stride)
	if nu > 0 {
		lim = min(lim, strideLim(max(nu-hi, 0), stride))
	}
	return lim
}

// stridedLim is the bound on the indices of AxpyAvgStrideF32: each j·stride
// must lie in w (nw elements) and, when u is not empty, in u (nu).
func stridedLim(nw, nu, stride int) int {
	lim := strideLim(nw, stride)
	if nu > 0 {
		lim = min(lim, strideLim(nu, stride))
	}
	return lim
}

// axpyAvgStrideF32Generic computes, rounding every product before adding
// it,
//
//	for k := range val {
//		w[ind[k]*stride] += a * val[k]
//		if len(u) > 0 { u[ind[k]*stride] += ca * float64(val[k]) }
//	}
//
// An index is checked before it is multiplied (j·stride could overflow
// into range otherwise): it must be below stridedLim's bound.
func axpyAvgStrideF32Generic(a float32, ca float64, val []float32, ind []int32, stride int, w []float32, u []float64) {
	ind = ind[:len(val)]
	lim := stridedLim(len(w), len(u), stride)
	for k, v := range val {
		j := int(ind[k])
		if uint(j) >= uint(lim) {
			panicIndex("AxpyAvgStrideF32", ind, lim)
		}
		j *= stride
		w[j] += float32(a * v)
		if len(u) > 0 {
			u[j] += float64(ca * float64(v))
		}
	}
}

// axpyAvgPairF32Generic computes, rounding every product once,
//
//	for k := range val {
//		j := ind[k]*stride
//		q := a * val[k]
//		w[j+c] += q; w[j+r] -= q
//		if len(u) > 0 { d := ca * float64(val[k]); u[j+c] += d; u[j+r] -= d }
//	}
//
// An index is checked before it is multiplied: it must be below pairLim's
// bound.
func axpyAvgPairF32Generic(a float32, ca float64, val []float32, ind []int32, stride, c, r int, w []float32, u []float64) {
	ind = ind[:len(val)]
	lim := pairLim(len(w), len(u), stride, max(c, r))
	for k, v := range val {
		j := int(ind[k])
		if uint(j) >= uint(lim) {
			panicIndex("AxpyAvgPairF32", ind, lim)
		}
		j *= stride
		q := float32(a * v)
		w[j+c] += q
		w[j+r] -= q
		if len(u) > 0 {
			d := float64(ca * float64(v))
			u[j+c] += d
			u[j+r] -= d
		}
	}
}
