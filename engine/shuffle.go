package engine

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
)

// shuffle puts p in a random order: the permutation rng.Shuffle makes
// from the same draws, without a function call per swap (which was much
// of the cost of shuffling).
func shuffle[T any](rng *rand.Rand, p []T) {
	for i := len(p) - 1; i > 0; i-- {
		j := rng.Uint64N(uint64(i + 1))
		p[i], p[j] = p[j], p[i]
	}
}

// A pcgRand is a generator whose source is a PCG it can also draw from
// directly (see pcgRand.shuffle): rand.Rand keeps no state of its own,
// so the two can take turns.
type pcgRand struct {
	*rand.Rand
	pcg *rand.PCG
}

// newPCGRand returns a generator over rand.NewPCG(seed1, seed2).
func newPCGRand(seed1, seed2 uint64) pcgRand {
	pcg := rand.NewPCG(seed1, seed2)
	return pcgRand{rand.New(pcg), pcg}
}

// shuffle is shuffle(r.Rand, p) with the generator's state in local
// variables instead of an interface call per draw: the same draws, the
// same permutation, at a fraction of the cost. It draws as Uint64N does
// on a 64-bit platform, and leaves the source where Uint64N would; on a
// 32-bit one, where Uint64N draws small bounds another way, it calls it.
func (r pcgRand) shuffle(p []int32) {
	if bits.UintSize != 64 || len(p) < 2 {
		shuffle(r.Rand, p)
		return
	}
	b, err := r.pcg.MarshalBinary()
	if err != nil || len(b) != 20 {
		shuffle(r.Rand, p)
		return
	}
	hi, lo := binary.BigEndian.Uint64(b[4:]), binary.BigEndian.Uint64(b[12:])
	for i := len(p) - 1; i > 0; i-- {
		// Uint64N(i+1): a power of two is masked; otherwise the high
		// word of the draw times the bound, unless the low word falls
		// where a draw must be redone (pcgRedraw).
		n := uint64(i + 1)
		var x, j uint64
		hi, lo, x = pcgNext(hi, lo)
		if n&(n-1) == 0 {
			j = x & (n - 1)
		} else {
			var l uint64
			j, l = bits.Mul64(x, n)
			if l < n {
				hi, lo, j = pcgRedraw(hi, lo, n, j, l)
			}
		}
		p[i], p[j] = p[j], p[i]
	}
	binary.BigEndian.PutUint64(b[4:], hi)
	binary.BigEndian.PutUint64(b[12:], lo)
	if err := r.pcg.UnmarshalBinary(b); err != nil {
		panic("engine: PCG state did not round-trip: " + err.Error())
	}
}

// pcgRedraw finishes Uint64N(n) for a bound n that is not a power of two
// whose first draw from the state (hi, lo) gave the product (h, l) with
// l < n: it draws again while the product falls in the biased range, as
// Uint64N does, and returns the state after the draws and the value.
func pcgRedraw(hi, lo, n, h, l uint64) (nhi, nlo, j uint64) {
	thresh := -n % n
	for l < thresh {
		var x uint64
		hi, lo, x = pcgNext(hi, lo)
		h, l = bits.Mul64(x, n)
	}
	return hi, lo, h
}

// pcgNext advances the 128-bit state (hi, lo) of math/rand/v2's PCG by
// one step and returns the new state and the draw PCG.Uint64 returns for
// it: the LCG step state·mul + inc, then the DXSM output function.
func pcgNext(hi, lo uint64) (nhi, nlo, x uint64) {
	const (
		mulHi    = 2549297995355413924
		mulLo    = 4865540595714422341
		incHi    = 6364136223846793005
		incLo    = 1442695040888963407
		cheapMul = 0xda942042e4dd58b5
	)
	h, l := bits.Mul64(lo, mulLo)
	h += hi*mulLo + lo*mulHi
	l, c := bits.Add64(l, incLo, 0)
	h, _ = bits.Add64(h, incHi, c)
	x = h
	x ^= x >> 32
	x *= cheapMul
	x ^= x >> 48
	x *= l | 1
	return h, l, x
}
