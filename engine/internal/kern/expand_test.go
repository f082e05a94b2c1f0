package kern

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// expandRef is ExpandF32 bit by bit.
func expandRef(dst []float32, mask, vals []byte) (n int, zero bool) {
	for i := range dst {
		if mask[i/8]>>(i%8)&1 == 0 {
			dst[i] = 0
			continue
		}
		u := binary.LittleEndian.Uint32(vals[4*n:])
		dst[i] = math.Float32frombits(u)
		zero = zero || u == 0
		n++
	}
	return n, zero
}

// TestExpandMatchesReference: on every tier ExpandF32 sets every weight
// as the reference does, for every length 0..300 and densities from no
// bit set to all, over weights that held other values; it ignores bits
// past the last weight and reports a zero value wherever it is. The
// mask, the values (which the AVX2 kernel loads 8 at a time) and the
// weights end against fenced pages, so that a kernel that read or wrote
// past them would fault.
func TestExpandMatchesReference(t *testing.T) {
	forTiers(t, func(t *testing.T, k *kernelSet) {
		r := rand.New(rand.NewPCG(51, 52))
		for n := 0; n <= maxLen; n++ {
			for _, density := range []float64{0, 0.1, 0.5, 0.9, 1} {
				nb := (n + 7) / 8
				mask := fencedBytes(t, nb, true)
				set := 0
				for i := range n {
					if r.Float64() < density {
						mask[i/8] |= 1 << (i % 8)
						set++
					}
				}
				want := make([]float32, n)
				vals := fencedBytes(t, 4*set, true)
				for i := range set {
					binary.LittleEndian.PutUint32(vals[4*i:], r.Uint32()|1)
				}
				expandRef(want, mask, vals)
				if n%8 != 0 {
					mask[nb-1] |= 0xff << (n % 8) // past the last weight
				}
				dst := fenced32(t, n, true)
				for trial := range 2 {
					if trial == 1 && set > 0 {
						// A zero value, reported, and still set.
						j := r.IntN(set)
						binary.LittleEndian.PutUint32(vals[4*j:], 0)
						for i := range want {
							if mask[i/8]>>(i%8)&1 != 0 {
								if j == 0 {
									want[i] = 0
									break
								}
								j--
							}
						}
					}
					for i := range dst {
						dst[i] = guardF32
					}
					got, zero := k.expandF32(dst, mask, vals)
					if got != set || zero != (trial == 1 && set > 0) {
						t.Fatalf("n=%d density %v trial %d: %d values taken, zero %v; want %d", n, density, trial, got, zero, set)
					}
					for i := range dst {
						if math.Float32bits(dst[i]) != math.Float32bits(want[i]) {
							t.Fatalf("n=%d density %v trial %d: dst[%d] = %#x, want %#x", n, density, trial, i, math.Float32bits(dst[i]), math.Float32bits(want[i]))
						}
					}
				}
			}
		}
	})
}

// ExpandF32 panics on a mask too short for dst and on fewer values than
// set bits, on every tier, without reading past either (the values end
// against a fenced page).
func TestExpandPanics(t *testing.T) {
	forTiers(t, func(t *testing.T, k *kernelSet) {
		for name, c := range map[string]struct {
			n          int
			mask, vals []byte
		}{
			"short mask":        {17, []byte{1, 2}, make([]byte, 8)},
			"too few values":    {16, []byte{0xff, 0x01}, make([]byte, 4*8)},
			"many too few":      {800, fill(100, 0xff), make([]byte, 4*100)},
			"no values at all":  {8, []byte{0x80}, nil},
			"short mask, empty": {1, nil, nil},
		} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s: no panic", name)
					}
				}()
				vals := c.vals
				if len(vals) > 0 {
					vals = fencedBytes(t, len(c.vals), true)
				}
				k.expandF32(make([]float32, c.n), c.mask, vals)
			}()
		}
	})
}

func fill(n int, b byte) []byte {
	s := make([]byte, n)
	for i := range s {
		s[i] = b
	}
	return s
}
