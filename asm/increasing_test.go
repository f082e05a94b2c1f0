package asm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// guardedI32 returns n strictly increasing indices (random gaps, from a
// random start that may be negative) at offset off inside a buffer whose
// guard elements on both sides would break the order if a kernel read
// them: the one before is the maximum, the one after the minimum.
func guardedI32(r *rand.Rand, n, off int) []int32 {
	buf := make([]int32, n+off+2*guardLen)
	for i := range buf {
		if i < guardLen+off {
			buf[i] = math.MaxInt32
		} else {
			buf[i] = math.MinInt32
		}
	}
	s := buf[guardLen+off : guardLen+off+n : guardLen+off+n]
	v := int64(r.IntN(1000)) - 500
	for i := range s {
		s[i] = int32(v)
		v += 1 + int64(r.IntN(3))
	}
	return s
}

// TestIncreasingMatchesReference: on every tier IncreasingI32 agrees with
// the reference on strictly increasing rows of every length 0..300 at
// every offset, and on the same rows broken at each position (an equal
// neighbour, a smaller one, and a pair whose difference overflows int32).
// The guards around each row would break it if a kernel read them.
func TestIncreasingMatchesReference(t *testing.T) {
	forTiers(t, func(t *testing.T, k *kernelSet) {
		r := rand.New(rand.NewPCG(31, 32))
		for n := 0; n <= maxLen; n++ {
			ind := guardedI32(r, n, n%8)
			if !k.increasingI32(ind) || !increasingI32Generic(ind) {
				t.Fatalf("n=%d: an increasing row was rejected", n)
			}
			for p := 1; p < n; p++ {
				for _, bad := range []int32{ind[p-1], ind[p-1] - 1} {
					old := ind[p]
					ind[p] = bad
					if k.increasingI32(ind) || increasingI32Generic(ind) {
						t.Fatalf("n=%d: ind[%d]=%d after %d accepted", n, p, bad, ind[p-1])
					}
					ind[p] = old
				}
			}
			if n >= 2 {
				p := r.IntN(n-1) + 1
				a, b := ind[p-1], ind[p]
				ind[p-1], ind[p] = math.MaxInt32, math.MinInt32
				if k.increasingI32(ind) {
					t.Fatalf("n=%d: MaxInt32 then MinInt32 at %d accepted", n, p)
				}
				ind[p-1], ind[p] = math.MinInt32, math.MaxInt32
				if k.increasingI32(ind) != increasingI32Generic(ind) {
					t.Fatalf("n=%d: MinInt32 then MaxInt32 at %d: tiers disagree", n, p)
				}
				ind[p-1], ind[p] = a, b
			}
		}
	})
}
