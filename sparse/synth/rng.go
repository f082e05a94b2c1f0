package synth

import "math"

// rng is a SplitMix64 generator: a 64-bit counter stepped by the golden
// gamma and passed through a strong finalizer. It is tiny, fast, passes
// BigCrush, and every stream is fully determined by its starting state,
// which is derived from (Seed, stream, chunk) by seedRNG.
type rng struct{ s uint64 }

const golden = 0x9e3779b97f4a7c15

// mix64 is the SplitMix64 / MurmurHash3 finalizer: a bijection of uint64
// that spreads every input bit over the output.
func mix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// Stream identifiers: every (Seed, stream, chunk) triple starts its own
// generator, so the rows of a chunk never depend on which worker made them
// or on the other settings that use other streams.
const (
	streamLength  = 1 // row lengths
	streamContent = 2 // Zipf draws of the features
	streamNoise   = 3 // label noise
	streamPilot   = 4 // pilot rows that fix the biases (chunk = 0)
	streamWeight  = 5 // planted separator weights (hashed per feature)
	streamPerm    = 6 // constants of the feature bijection
	streamPoints  = 7 // Separable points
	streamSep     = 8 // Separable's separator u
)

// seedRNG returns the generator of one chunk of one stream.
func seedRNG(seed, stream, chunk uint64) rng {
	return rng{s: mix64(mix64(seed^stream*golden) + chunk*0xd1b54a32d192ed03)}
}

func (r *rng) next() uint64 {
	r.s += golden
	return mix64(r.s)
}

// float64 returns a uniform number in [0, 1) with 53 random bits.
func (r *rng) float64() float64 {
	return float64(r.next()>>11) * (1.0 / (1 << 53))
}

// intn returns a uniform integer in [0, n) for 0 < n ≤ 2^32 (Lemire's
// multiply-shift; the bias is below 2^-32 and irrelevant here).
func (r *rng) intn(n int) int {
	return int((r.next() >> 32) * uint64(n) >> 32)
}

// normal returns a standard normal deviate (Marsaglia's polar method; the
// second deviate of each pair is discarded so that the stream position
// does not depend on hidden state).
func (r *rng) normal() float64 {
	for {
		u := 2*r.float64() - 1
		v := 2*r.float64() - 1
		s := u*u + v*v
		if s > 0 && s < 1 {
			return u * math.Sqrt(-2*math.Log(s)/s)
		}
	}
}

// exp1 returns a standard exponential deviate.
func (r *rng) exp1() float64 {
	return -math.Log1p(-r.float64())
}

// normals fills dst with standard normal deviates, using both deviates of
// each polar pair.
func (r *rng) normals(dst []float64) {
	for i := 0; i < len(dst); {
		u := 2*r.float64() - 1
		v := 2*r.float64() - 1
		s := u*u + v*v
		if s <= 0 || s >= 1 {
			continue
		}
		f := math.Sqrt(-2 * math.Log(s) / s)
		dst[i] = u * f
		if i+1 < len(dst) {
			dst[i+1] = v * f
		}
		i += 2
	}
}
