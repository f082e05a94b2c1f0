package kern

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/hyperplane-ml/hyperplane/asm"
)

// A packed sparse row holds each element in one uint32: the feature index
// in the low sh bits and the value, a non-negative integer, above them,
// p[k] = uint32(val[k])<<sh | uint32(ind[k]). Term counts pack this way
// without loss, and a row takes half the bytes of separate index and value
// arrays: a learner that visits rows in shuffled order fetches half as
// much. PackP32 builds it; DotP32F32, AxpyAvgP32F32 and AxpyIndP32F32
// are asm.DotIndF32, asm.AxpyAvgF32 and asm.AxpyIndF32 over it.

// P32Shift returns the number of index bits a packed row over dim features
// uses: enough for dim−1, at least 1.
func P32Shift(dim int) uint {
	return uint(max(1, bits.Len64(uint64(max(dim, 1)-1))))
}

// PackP32 packs the row (ind, val) into dst[:len(val)] with sh index bits
// and reports whether that is lossless: every index in [0, 1<<sh) and
// every value a non-negative integer below 1<<(32−sh) (not −0, not NaN).
// Where it is not, dst holds a prefix and must not be used. It panics if
// len(ind) != len(val), dst is shorter than the row, or sh is not in
// [1, 31].
func PackP32(dst []uint32, ind []int32, val []float32, sh uint) bool {
	checkLen("PackP32", len(val), len(ind))
	if len(dst) < len(val) || sh < 1 || sh > 31 {
		panic(fmt.Sprintf("kern.PackP32: %d elements into %d, shift %d", len(val), len(dst), sh))
	}
	k0 := 0
	if tier() != asm.Generic {
		// The vector kernel packs whole vectors of eight; the loop
		// below the rest.
		if !packP32Vec(dst, ind, val, sh) {
			return false
		}
		k0 = len(val) &^ 7
	}
	lim := uint32(1) << sh
	vmax := uint32(1) << (32 - sh)
	for k := k0; k < len(val); k++ {
		v := val[k]
		j := uint32(ind[k])
		c := uint32(v)
		if j >= lim || !(v >= 0) || v >= float32(vmax) || math.Float32bits(v) != math.Float32bits(float32(c)) {
			return false
		}
		dst[k] = c<<sh | j
	}
	return true
}

// DotP32F32 returns Σ val[k]·w[ind[k]] over the row packed in p with sh
// index bits (see PackP32). On every tier its sum is bit-identical to
// asm.DotIndF32's over the unpacked row: the same loop, with each vector of
// values converted from the packed counts instead of loaded, and the same
// switch to scalar loads. It panics if some index is not in [0, len(w))
// or sh is not in [1, 31].
func DotP32F32(p []uint32, sh uint, w []float32) float32 {
	return newP32("DotP32F32", sh).Dot(p, w)
}

// dotP32F32Generic computes, in the order of asm's portable DotIndF32,
//
//	for k := range p { s += float32(p[k]>>sh) * w[p[k]&(1<<sh-1)] }
func dotP32F32Generic(p []uint32, sh uint, w []float32) float32 {
	mask := uint32(1)<<sh - 1
	var s0, s1 float32
	k := 0
	for ; k+2 <= len(p); k += 2 {
		s0 += float32(p[k]>>sh) * w[p[k]&mask]
		s1 += float32(p[k+1]>>sh) * w[p[k+1]&mask]
	}
	if k < len(p) {
		s0 += float32(p[k]>>sh) * w[p[k]&mask]
	}
	return s0 + s1
}

// AxpyAvgP32F32 is asm.AxpyAvgF32 over the row packed in p with sh index
// bits: for every element, with v its value and j its index,
// w[j] += float32(a·v) and u[j] += ca·float64(v), each product rounded
// before it is added, the bits asm.AxpyAvgF32 gives on every tier. It panics
// if some index is not below len(w) and len(u) (the elements before it
// updated) or sh is not in [1, 31].
func AxpyAvgP32F32(a float32, ca float64, p []uint32, sh uint, w []float32, u []float64) {
	newP32("AxpyAvgP32F32", sh).AxpyAvg(a, ca, p, w, u)
}

// axpyAvgP32F32Generic computes, for k in order,
//
//	j, v := p[k]&(1<<sh-1), float32(p[k]>>sh)
//	w[j] += float32(a * v)
//	u[j] += float64(ca * float64(v))
//
// panicking at the first j not below lim.
func axpyAvgP32F32Generic(a float32, ca float64, p []uint32, sh uint, w []float32, u []float64, lim int) {
	mask := uint32(1)<<sh - 1
	w, u = w[:lim], u[:lim]
	for k, x := range p {
		j := x & mask
		if int(j) >= lim {
			panic(fmt.Sprintf("kern.AxpyAvgP32F32: index %d of p[%d] out of range [0, %d)", j, k, lim))
		}
		v := float32(x >> sh)
		w[j] += float32(a * v)
		u[j] += float64(ca * float64(v))
	}
}

// AxpyIndP32F32 is asm.AxpyIndF32 over the row packed in p with sh index
// bits: for every element in order, with v its value and j its index,
// w[j] += a·v, the bits asm.AxpyIndF32 gives on the unpacked row on every
// tier (its SIMD tiers fuse the multiply and the add). It panics if some
// index is not below len(w) (the elements before it updated) or sh is not
// in [1, 31].
func AxpyIndP32F32(a float32, p []uint32, sh uint, w []float32) {
	newP32("AxpyIndP32F32", sh).Axpy(a, p, w)
}

// axpyIndP32F32Generic computes, for k in order, as asm's portable
// AxpyIndF32 does,
//
//	j, v := p[k]&(1<<sh-1), float32(p[k]>>sh)
//	w[j] += a * v
//
// panicking at the first j not below len(w).
func axpyIndP32F32Generic(a float32, p []uint32, sh uint, w []float32) {
	mask := uint32(1)<<sh - 1
	for k, x := range p {
		j := x & mask
		if int(j) >= len(w) {
			panic(fmt.Sprintf("kern.AxpyIndP32F32: index %d of p[%d] out of range [0, %d)", j, k, len(w)))
		}
		v := float32(x >> sh)
		w[j] += a * v
	}
}

// P32 is DotP32F32, AxpyAvgP32F32 and AxpyIndP32F32 for one shift, with
// the shift checked and the tier chosen once (NewP32) rather than at every
// call: a pass that calls them for every row of an epoch, as the
// perceptron's does, saves a call level and the checks per row. Its
// methods give the functions' results bit for bit, and panic where they
// panic.
type P32 struct {
	sh   uint
	mask uint64
	t    asm.Tier
}

// NewP32 returns the packed-row kernels for sh index bits on the tier
// active now. It panics if sh is not in [1, 31].
func NewP32(sh uint) P32 { return newP32("NewP32", sh) }

// newP32 is NewP32 for the function op, which its panic names.
func newP32(op string, sh uint) P32 {
	if sh < 1 || sh > 31 {
		panic(fmt.Sprintf("kern.%s: shift %d not in [1, 31]", op, sh))
	}
	return P32{sh: sh, mask: uint64(1)<<sh - 1, t: tier()}
}

// Dot is DotP32F32(p, sh, w). The SIMD tiers run their vector kernel
// (AVX-512's gather instruction; on AVX2 scalar loads merged into
// vectors) for rows of gatherMinLen elements or more and weights of up to
// gatherMaxBytes, and the portable loop otherwise, as asm.DotIndF32 does, so
// that the sum is asm.DotIndF32's over the unpacked row.
func (k P32) Dot(p []uint32, w []float32) float32 {
	if k.t == asm.Generic || len(p) < gatherMinLen || len(w) == 0 || len(w)*4 > gatherMaxBytes {
		return dotP32F32Generic(p, k.sh, w)
	}
	var s float32
	var ok bool
	if k.t == asm.AVX512 {
		s, ok = dotP32F32AVX512(p, uint64(k.sh), k.mask, w, len(w))
	} else {
		s, ok = dotP32F32AVX2(p, uint64(k.sh), k.mask, w, len(w))
	}
	if !ok {
		panicP32("DotP32F32", p, k.sh, len(w))
	}
	return s
}

// AxpyAvg is AxpyAvgP32F32(a, ca, p, sh, w, u). The AVX-512 tier updates
// rows of gatherMinLen elements or more, with weights of up to
// gatherMaxBytes, sixteen elements at a time by gathers and scatters,
// wherever a vector's indices are strictly increasing (so distinct, and
// the scatter is the sequential update); the VEX scalar update, which the
// AVX2 tier runs on every row, takes the rest.
func (k P32) AxpyAvg(a float32, ca float64, p []uint32, w []float32, u []float64) {
	lim := min(len(w), len(u))
	if k.t == asm.Generic {
		axpyAvgP32F32Generic(a, ca, p, k.sh, w, u, lim)
		return
	}
	q := p
	if k.t == asm.AVX512 && len(p) >= gatherMinLen && len(w)*4 <= gatherMaxBytes {
		q = p[axpyAvgP32F32AVX512(a, ca, p, uint64(k.sh), k.mask, w, u, lim):]
	}
	if !axpyAvgP32F32AVX(a, ca, q, uint64(k.sh), k.mask, w, u, lim) {
		panicP32("AxpyAvgP32F32", p, k.sh, lim)
	}
}

// Axpy is AxpyIndP32F32(a, p, sh, w): both SIMD tiers run one kernel, as
// asm.AxpyIndF32 does.
func (k P32) Axpy(a float32, p []uint32, w []float32) {
	if k.t == asm.Generic {
		axpyIndP32F32Generic(a, p, k.sh, w)
		return
	}
	if !axpyIndP32F32AVX(a, p, uint64(k.sh), k.mask, w, len(w)) {
		panicP32("AxpyIndP32F32", p, k.sh, len(w))
	}
}

// PrefetchP32 is PrefetchRow for a packed row: a hint for every 64-byte
// line of p. It reads nothing and cannot fault.
func PrefetchP32(p []uint32) { prefetchLines(p) }

// panicP32 panics with the first index of the packed row p not in
// [0, lim), as a Go bounds check would: a checked kernel found one.
func panicP32(op string, p []uint32, sh uint, lim int) {
	mask := uint32(1)<<sh - 1
	for k, x := range p {
		if int64(x&mask) >= int64(lim) {
			panic(fmt.Sprintf("kern.%s: index %d of p[%d] out of range [0, %d)", op, x&mask, k, lim))
		}
	}
	panic(fmt.Sprintf("kern.%s: an index out of range [0, %d)", op, lim))
}
