package kern

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"

	"github.com/hyperplane-ml/hyperplane/asm"
)

// ExpandF32 sets dst from a bitmap and the values of its set bits, the
// sparse form a model file stores weights in: dst[i] is the next value of
// vals, in order, where bit i of mask (bit i%8 of mask[i/8]) is set, and
// 0 where it is not. vals holds the values as float32 bits, little-endian,
// 4 bytes each. It returns the number of values taken and reports whether
// any of them has all its bits 0. Bits of mask past len(dst) are not read.
// It panics if mask has fewer than ⌈len(dst)/8⌉ bytes or vals fewer
// values than the bits set.
func ExpandF32(dst []float32, mask []byte, vals []byte) (n int, zero bool) {
	if len(mask) < (len(dst)+7)/8 {
		panic(fmt.Sprintf("kern.ExpandF32: %d mask bytes for %d weights", len(mask), len(dst)))
	}
	// Reading the values and writing the weights bound it: AVX2 serves
	// both SIMD tiers.
	if tier() != asm.Generic {
		return expandF32Vec(dst, mask, vals)
	}
	return expandF32Generic(dst, mask, vals)
}

// expandF32Vec is ExpandF32 on the AVX2 kernel, which stops short of the
// last 8 values of vals and of a last partial byte of mask; the Go loop
// finishes.
func expandF32Vec(dst []float32, mask []byte, vals []byte) (n int, zero bool) {
	nb, nv, z := expandF32AVX2(dst, mask, vals)
	n, zero = expandF32Generic(dst[8*nb:], mask[nb:], vals[4*nv:])
	return nv + n, z || zero
}

// expandF32Generic is ExpandF32 (mask at least ⌈len(dst)/8⌉ bytes): it
// clears dst, then gives each set bit below len(dst), in order, the next
// value of vals.
func expandF32Generic(dst []float32, mask []byte, vals []byte) (n int, zero bool) {
	clear(dst)
	for b, m := range mask[:(len(dst)+7)/8] {
		for ; m != 0; m &= m - 1 {
			i := 8*b + bits.TrailingZeros8(m)
			if i >= len(dst) {
				break
			}
			if len(vals) < 4*(n+1) {
				panic(fmt.Sprintf("kern.ExpandF32: %d values for more set bits", len(vals)/4))
			}
			u := binary.LittleEndian.Uint32(vals[4*n:])
			zero = zero || u == 0
			dst[i] = math.Float32frombits(u)
			n++
		}
	}
	return n, zero
}
