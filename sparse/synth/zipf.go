package synth

import (
	"math"
	"math/bits"
)

// zipf draws ranks r in [0, n) with probability proportional to (r+1)^-s,
// exactly up to float64 rounding and the 2^-48 resolution of its tables.
//
// The first head = min(n, 2^16) ranks (2^16-1 when there is a tail) are
// drawn with an alias table of at most 2^16 slots (Walker/Vose): the top
// bits of one 64-bit draw pick a slot and its 32 low bits decide between
// the slot's own rank and its alias, a single lookup in a 512 KiB table
// that stays in cache, with no unpredictable branch. When n > 2^16 the last
// outcome of that table stands for the tail, ranks head+1 … n (1-based).
// The tail is cut into bins of consecutive ranks, each at most 1/1024 of
// its first rank long (about 1024·ln(n/head) bins, under 11000), weighted
// by the envelope cnt·lo^-s; a second alias table picks a bin, a rank k is
// uniform in it, and it is accepted with probability (k/lo)^-s, which is
// almost always settled by comparing with the bin-independent lower bound
// (1+1/1024)^-s without computing the power. A rejection redraws from
// scratch, so every rank gets exactly its share; about 0.1% of tail
// proposals are rejected.
type zipf struct {
	n, head int
	alias   []uint64 // head outcomes: slot i holds alias<<32 | keep
	shift   uint     // slot = u >> shift
	s       float64
	bins    []zbin   // tail bins, 1-based ranks [lo, lo+cnt)
	balias  []uint64 // alias table over the bins
	bshift  uint
	squeeze float64 // lower bound of (k/lo)^-s over every bin
}

type zbin struct{ lo, cnt uint64 }

const (
	zipfSlots = 1 << 16
	binFrac   = 1024 // bins are at most lo/binFrac ranks long
)

func newZipf(n int, s float64) *zipf {
	z := &zipf{n: n, head: n, s: s, squeeze: 1}
	slots := 1 << bitsFor(n)
	if n > zipfSlots {
		slots = zipfSlots
		z.head = zipfSlots - 1
	}
	z.shift = 64 - uint(bitsFor(slots))
	w := make([]float64, slots) // outcome weights; padding stays 0
	for r := range z.head {
		w[r] = math.Pow(float64(r+1), -s)
	}
	if n > z.head {
		var bw []float64
		for lo := uint64(z.head + 1); lo <= uint64(n); {
			cnt := min(max(1, lo/binFrac), uint64(n)+1-lo)
			z.bins = append(z.bins, zbin{lo, cnt})
			x := math.Pow(float64(lo), -s)
			bw = append(bw, float64(cnt)*x)
			// Smallest acceptance ratio in this bin, at its last rank.
			z.squeeze = min(z.squeeze, math.Pow(float64(lo+cnt-1)/float64(lo), -s))
			lo += cnt
		}
		// Pad the bin weights to a power of two.
		nb := 1 << bitsFor(len(bw))
		bw = append(bw, make([]float64, nb-len(bw))...)
		var tail float64
		for _, x := range bw {
			tail += x
		}
		w[z.head] = tail
		z.balias = aliasTable(bw)
		z.bshift = 64 - uint(bitsFor(nb))
	}
	z.alias = aliasTable(w)
	return z
}

// aliasTable builds Vose's alias table for the weights w (len a power of
// two): slot i keeps outcome i with probability q_i and otherwise yields
// its alias, each slot being picked with probability 1/len(w).
func aliasTable(w []float64) []uint64 {
	n := len(w)
	var total float64
	for _, x := range w {
		total += x
	}
	q := make([]float64, n)
	small, large := make([]int, 0, n), make([]int, 0, n)
	for i, x := range w {
		q[i] = x * float64(n) / total
		if q[i] < 1 {
			small = append(small, i)
		} else {
			large = append(large, i)
		}
	}
	out := make([]uint64, n)
	for len(small) > 0 && len(large) > 0 {
		l := small[len(small)-1]
		small = small[:len(small)-1]
		g := large[len(large)-1]
		out[l] = uint64(g)<<32 | keep32(q[l])
		q[g] -= 1 - q[l]
		if q[g] < 1 {
			large = large[:len(large)-1]
			small = append(small, g)
		}
	}
	// Leftovers are 1 up to rounding: they always keep themselves. (A
	// leftover far below 1 cannot occur, as the q sum to n; should rounding
	// ever leave one, it defers to the heaviest outcome rather than ever
	// yielding an outcome of weight 0.)
	heaviest := 0
	for i, x := range w {
		if x > w[heaviest] {
			heaviest = i
		}
	}
	for _, i := range append(small, large...) {
		out[i] = uint64(i)<<32 | math.MaxUint32
		if q[i] < 0.5 {
			out[i] = uint64(heaviest) << 32
		}
	}
	return out
}

// keep32 converts a keep probability to a 32-bit threshold (the low 32 bits
// of a draw keep the slot when below it).
func keep32(p float64) uint64 {
	return uint64(min(math.Round(max(p, 0)*(1<<32)), math.MaxUint32))
}

// pick draws an outcome from an alias table with one 64-bit draw.
func pick(table []uint64, shift uint, u uint64) int {
	e := table[u>>shift]
	if uint32(u) < uint32(e) {
		return int(u >> shift)
	}
	return int(e >> 32)
}

// draw returns a rank.
func (z *zipf) draw(r *rng) int {
	for {
		k := pick(z.alias, z.shift, r.next())
		if k < z.head {
			return k
		}
		b := z.bins[pick(z.balias, z.bshift, r.next())]
		hi, _ := bits.Mul64(r.next(), b.cnt)
		k = int(b.lo + hi) // 1-based
		if v := r.float64(); v < z.squeeze || v < math.Pow(float64(k)/float64(b.lo), -z.s) {
			return k - 1
		}
	}
}

// perm is a fixed pseudo-random bijection of [0, n): an invertible mix of
// k = ⌈log2 n⌉ bits (add, odd multiply and xor-shift, all mod 2^k) applied
// by cycle walking until the image falls below n, fewer than two rounds on
// average. It scatters the popular ranks over the index range the way a
// hashing trick would, without a table.
type perm struct {
	n          uint64
	mask       uint64
	shift      uint
	c0, c1     uint64
	m0, m1, m2 uint64
}

func newPerm(n int, seed uint64) perm {
	k := bits.Len64(uint64(n - 1)) // n ≥ 1; k = 0 for n = 1
	r := seedRNG(seed, streamPerm, 0)
	p := perm{n: uint64(n), mask: 1<<k - 1, shift: uint(max(1, (k+1)/2))}
	p.c0, p.c1 = r.next(), r.next()
	p.m0, p.m1, p.m2 = r.next()|1, r.next()|1, r.next()|1
	return p
}

func (p *perm) round(x uint64) uint64 {
	m := p.mask
	x = (x + p.c0) * p.m0 & m
	x ^= x >> p.shift
	x = x * p.m1 & m
	x ^= x >> p.shift
	x = (x + p.c1) * p.m2 & m
	x ^= x >> p.shift
	return x
}

func (p *perm) at(r int) int {
	x := p.round(uint64(r))
	for x >= p.n {
		x = p.round(x)
	}
	return int(x)
}
