// Package synth generates synthetic data sets for testing and benchmarking
// linear learners: deterministic, fast, and in parallel.
//
// # Text-like corpora
//
// Text describes a sparse corpus shaped like bag-of-words text: row
// lengths spread around a mean (lognormal), feature popularity following
// Zipf's law, values that are term counts 1, 2, 3, …, and features
// scattered over a large index range as with the hashing trick. Labels come
// from a planted linear rule (binary, or K classes by argmax) with
// balanced classes and optional label noise.
//
//	d, err := synth.Text{Rows: 10_000_000, Seed: 1}.Generate() // 10M × 2^20, ~750M nonzeros
//
// Generate builds the whole sparse.Dataset in memory, allocating its arrays
// once and filling them on all cores. Stream yields the same rows one at a
// time, and Text.WriteLIBSVM writes them as LIBSVM text, both without
// holding the corpus in memory. Planted returns the rule behind the labels.
//
// Feature ranks are drawn with an alias table over the 2^16 most popular
// ranks and a second one over geometric bins of the rarer ranks, with an
// exact rejection step: a draw is a few table lookups, several times
// cheaper than math/rand's Zipf, and the tables take under 1 MiB for any
// Dim. Rows sort their indices by ordered linear probing instead of a
// comparison sort. For corpora of many gigabytes, a large share of the
// CPU time is the page faults of first touching the result.
//
// # Separable data with a known margin
//
// Separable draws points uniformly from the ball of radius R restricted to
// |u·x| ≥ γ for a random unit vector u, labelled by the sign of u·x, so
// that the perceptron mistake bound (R/γ)² applies; SeparableData reports
// u and the exact R and γ of the sample. The component along u is sampled
// directly from its (truncated) distribution, so large margins in high
// dimension cost no more than small ones.
//
// # Determinism
//
// Every generator is a pure function of its configuration: random numbers
// come from independent SplitMix64 streams per fixed block of rows, keyed
// by Seed, so the number of workers never changes the output, row i does
// not depend on the number of rows, and a Text corpus' features do not
// depend on Classes or Noise. The results are bit-identical on one
// architecture; across architectures math library routines may differ in
// the last bit, which could move a rare rounding boundary.
//
// # Errors
//
// An invalid configuration yields an error wrapping ErrConfig; nothing in
// this package panics on user input.
package synth
