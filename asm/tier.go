package asm

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"

	"github.com/hyperplane-ml/hyperplane/internal/bounds"
)

// Tier names one implementation level of the kernels.
type Tier int

const (
	// Generic is the portable Go tier, available everywhere.
	Generic Tier = iota
	// AVX2 is the AVX2+FMA tier (amd64 only).
	AVX2
	// AVX512 is the AVX-512 F+VL tier, which also needs BMI2 (amd64 only).
	AVX512
)

// EnvVar names the environment variable that overrides the tier chosen at
// start-up: generic, avx2 or avx512.
const EnvVar = "HYPERPLANE_SIMD"

// ErrUnsupportedTier is returned by SetTier for a tier this CPU or build cannot run.
var ErrUnsupportedTier = errors.New("asm: SIMD tier not supported on this CPU or build")

// ErrUnknownTier is returned by ParseTier for a name that is no tier.
var ErrUnknownTier = errors.New("asm: unknown SIMD tier")

func (t Tier) String() string {
	switch t {
	case Generic:
		return "generic"
	case AVX2:
		return "avx2"
	case AVX512:
		return "avx512"
	}
	return fmt.Sprintf("Tier(%d)", int(t))
}

// ParseTier reads a tier name as String writes it (case-insensitive;
// "go", "portable" and "noasm" mean Generic, "avx-512" means AVX512).
func ParseTier(s string) (Tier, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "generic", "go", "portable", "noasm":
		return Generic, nil
	case "avx2":
		return AVX2, nil
	case "avx512", "avx-512":
		return AVX512, nil
	}
	return Generic, fmt.Errorf("%w %q (want generic, avx2 or avx512)", ErrUnknownTier, s)
}

// supported records the tiers this CPU and build can run; the
// architecture's archInit (dispatch_*.go) adds to the portable one.
var supported = [...]bool{Generic: true, AVX2: false, AVX512: false}

// active holds the Tier the kernels run on. Every exported kernel loads it
// and calls that tier's function directly, in a switch: with no table of
// function values in between, the compiler sees each callee, so escape
// analysis keeps a caller's slices on its stack and small wrappers inline.
// The load is atomic so that SetTier may run beside kernels (it is a plain
// load on amd64).
var active atomic.Int32

// tier is the active tier.
func tier() Tier { return Tier(active.Load()) }

// envNote records what became of the HYPERPLANE_SIMD override, for Info.
var envNote string

func init() {
	archInit()
	best := Best()
	active.Store(int32(best))
	v, ok := os.LookupEnv(EnvVar)
	if !ok || v == "" {
		return
	}
	t, err := ParseTier(v)
	if err != nil {
		envNote = fmt.Sprintf("%s=%q ignored: %v; using %s", EnvVar, v, err, best)
		return
	}
	if err := SetTier(t); err != nil {
		envNote = fmt.Sprintf("%s=%s ignored: not supported here; using %s", EnvVar, t, best)
		return
	}
	envNote = fmt.Sprintf("%s=%s", EnvVar, t)
}

// Supported reports whether this CPU and build can run tier t.
func Supported(t Tier) bool { return t >= 0 && int(t) < len(supported) && supported[t] }

// Tiers lists the tiers this CPU and build can run, from slowest to fastest.
func Tiers() []Tier {
	var ts []Tier
	for _, t := range []Tier{Generic, AVX2, AVX512} {
		if Supported(t) {
			ts = append(ts, t)
		}
	}
	return ts
}

// Best is the tier chosen at start-up when no override is given: the
// fastest tier the CPU supports.
func Best() Tier {
	ts := Tiers()
	return ts[len(ts)-1]
}

// Active returns the tier the kernels currently run on.
func Active() Tier { return tier() }

// SetTier switches every kernel to tier t. It is safe to call at any time;
// calls already running finish on the tier they started with.
func SetTier(t Tier) error {
	if !Supported(t) {
		return fmt.Errorf("%w: %s", ErrUnsupportedTier, t)
	}
	active.Store(int32(t))
	return nil
}

func checkLen(op string, a, b int) {
	if a != b {
		bounds.Len("asm", op, a, b)
	}
}

// panicIndex panics with the first index of ind not in [0, lim): a
// checked kernel found one.
func panicIndex(op string, ind []int32, lim int) { bounds.Index("asm", op, ind, lim) }

// DotF32 returns Σ x[i]·y[i]. It panics if len(x) != len(y).
func DotF32(x, y []float32) float32 {
	checkLen("DotF32", len(x), len(y))
	switch tier() {
	case AVX512:
		return dotF32AVX512(x, y)
	case AVX2:
		return dotF32AVX2(x, y)
	}
	return dotGeneric(x, y)
}

// DotF64 returns Σ x[i]·y[i]. It panics if len(x) != len(y).
func DotF64(x, y []float64) float64 {
	checkLen("DotF64", len(x), len(y))
	switch tier() {
	case AVX512:
		return dotF64AVX512(x, y)
	case AVX2:
		return dotF64AVX2(x, y)
	}
	return dotGeneric(x, y)
}

// AxpyF32 computes y[i] += a·x[i], fused into one pass. It panics if len(x) != len(y).
func AxpyF32(a float32, x, y []float32) {
	checkLen("AxpyF32", len(x), len(y))
	switch tier() {
	case AVX512:
		axpyF32AVX512(a, x, y)
	case AVX2:
		axpyF32AVX2(a, x, y)
	default:
		axpyGeneric(a, x, y)
	}
}

// AxpyF64 computes y[i] += a·x[i], fused into one pass. It panics if len(x) != len(y).
func AxpyF64(a float64, x, y []float64) {
	checkLen("AxpyF64", len(x), len(y))
	switch tier() {
	case AVX512:
		axpyF64AVX512(a, x, y)
	case AVX2:
		axpyF64AVX2(a, x, y)
	default:
		axpyGeneric(a, x, y)
	}
}

// ScaleF32 computes x[i] *= a.
func ScaleF32(a float32, x []float32) {
	switch tier() {
	case AVX512:
		scaleF32AVX512(a, x)
	case AVX2:
		scaleF32AVX2(a, x)
	default:
		scaleGeneric(a, x)
	}
}

// ScaleF64 computes x[i] *= a.
func ScaleF64(a float64, x []float64) {
	switch tier() {
	case AVX512:
		scaleF64AVX512(a, x)
	case AVX2:
		scaleF64AVX2(a, x)
	default:
		scaleGeneric(a, x)
	}
}

// SumSqF32 returns Σ x[i]², the squared Euclidean norm.
func SumSqF32(x []float32) float32 {
	switch tier() {
	case AVX512:
		return sumSqF32AVX512(x)
	case AVX2:
		return sumSqF32AVX2(x)
	}
	return sumSqGeneric(x)
}

// SumSqF64 returns Σ x[i]², the squared Euclidean norm.
func SumSqF64(x []float64) float64 {
	switch tier() {
	case AVX512:
		return sumSqF64AVX512(x)
	case AVX2:
		return sumSqF64AVX2(x)
	}
	return sumSqGeneric(x)
}

// The sparse kernels check their indices as they go, on every tier: the
// portable loops through Go's bounds checks, the assembly by comparing
// each index (a vector of them before a gather) with the bound before
// it loads or stores, so no argument makes them touch memory outside
// their slices. An index out of range panics, as a bounds check in a Go
// loop does, with the elements before it already added where the kernel
// writes.

// DotIndF32 returns Σ val[k]·w[ind[k]], the gather behind every sparse
// prediction. It panics if len(val) != len(ind) or an index is not in
// [0, len(w)).
func DotIndF32(val []float32, ind []int32, w []float32) float32 {
	checkLen("DotIndF32", len(val), len(ind))
	switch tier() {
	case AVX512:
		return dotIndF32AVX512Sized(val, ind, w)
	case AVX2:
		return dotIndF32AVX2Sized(val, ind, w)
	}
	return dotIndGeneric(val, ind, w)
}

// AddScoresF32 adds val[k]·W[ind[k]·K + c] to s[c] for every class c < K =
// len(s) and every k in order: the class scores of a multiclass linear
// model whose K weights per feature are stored together. Each product is
// rounded before it is added, so every tier gives the same scores bit for
// bit. It panics if len(val) != len(ind) or an index is not in
// [0, len(W)/K).
func AddScoresF32(W []float32, ind []int32, val []float32, s []float32) {
	checkLen("AddScoresF32", len(val), len(ind))
	switch tier() {
	case AVX512:
		addScoresAVX512Checked(W, ind, val, s)
	case AVX2:
		addScoresAVX2Checked(W, ind, val, s)
	default:
		addScoresF32Generic(W, ind, val, s)
	}
}

// DotIndF64 returns Σ val[k]·w[ind[k]]. It panics if len(val) != len(ind)
// or an index is not in [0, len(w)).
func DotIndF64(val []float64, ind []int32, w []float64) float64 {
	checkLen("DotIndF64", len(val), len(ind))
	switch tier() {
	case AVX512:
		return dotIndF64AVX512Sized(val, ind, w)
	case AVX2:
		return dotIndF64AVX2Sized(val, ind, w)
	}
	return dotIndGeneric(val, ind, w)
}

// AxpyIndF32 computes w[ind[k]] += a·val[k], the scatter behind every
// sparse update. A repeated index gets every one of its products. It
// panics if len(val) != len(ind) or an index is not in [0, len(w)).
func AxpyIndF32(a float32, val []float32, ind []int32, w []float32) {
	checkLen("AxpyIndF32", len(val), len(ind))
	// Both SIMD tiers run the AVX2 scalar loop (see genAxpyInd).
	if tier() != Generic {
		axpyIndF32Checked(a, val, ind, w)
		return
	}
	axpyIndGeneric(a, val, ind, w)
}

// AxpyIndF64 computes w[ind[k]] += a·val[k]. It panics if len(val) !=
// len(ind) or an index is not in [0, len(w)).
func AxpyIndF64(a float64, val []float64, ind []int32, w []float64) {
	checkLen("AxpyIndF64", len(val), len(ind))
	if tier() != Generic {
		axpyIndF64Checked(a, val, ind, w)
		return
	}
	axpyIndGeneric(a, val, ind, w)
}

// AxpyAvgF32 computes w[ind[k]] += a·val[k] and u[ind[k]] += ca·val[k]
// (in float64) for every k: the update of an averaged perceptron, its
// weights and its averaging accumulator in one pass over the row. Every
// product is rounded before it is added, so every tier computes the same
// bits. It panics if len(val) != len(ind) or an index is not in [0,
// len(w)) and [0, len(u)).
func AxpyAvgF32(a float32, ca float64, val []float32, ind []int32, w []float32, u []float64) {
	checkLen("AxpyAvgF32", len(val), len(ind))
	// One VEX-encoded scalar loop serves both SIMD tiers (genAxpyAvg).
	if tier() != Generic {
		axpyAvgF32Checked(a, ca, val, ind, w, u)
		return
	}
	axpyAvgF32Generic(a, ca, val, ind, w, u)
}

// AxpyAvgDenseF32 computes w[i] += a·x[i] and u[i] += ca·x[i] (in
// float64) for every i < len(x): AxpyAvgF32's update of an averaged
// perceptron on a dense row, with the same bits as AxpyAvgF32 over the
// indices 0, 1, …, len(x)−1 on every tier (each product is rounded before
// it is added), in vectors instead of one element at a time. Elements of
// w and u past len(x) are left alone. It panics if w or u is shorter than
// x. If x overlaps w, the result is unspecified (the vector tiers read
// several values of x before they write w).
func AxpyAvgDenseF32(a float32, ca float64, x []float32, w []float32, u []float64) {
	if len(w) < len(x) || len(u) < len(x) {
		panic(fmt.Sprintf("asm.AxpyAvgDenseF32: len(x) = %d but len(w) = %d, len(u) = %d", len(x), len(w), len(u)))
	}
	// The AVX-512 tier runs the AVX2 kernel too (every AVX-512 CPU has
	// AVX2): no AVX-512 form of it has been written and tested on an
	// AVX-512 machine.
	if tier() != Generic {
		axpyAvgDenseF32AVX2(a, ca, x, w, u)
		return
	}
	axpyAvgDenseF32Generic(a, ca, x, w, u)
}

// AverageF32 sets dst[i] = float32(float64(w[i]) − u[i]/c) for every i:
// an averaged perceptron's weights, from its weights w and its averaging
// accumulator u after c examples. Every operation is rounded as in that
// Go expression, so every tier writes the same bits. It panics unless w
// and u are as long as dst.
func AverageF32(dst, w []float32, u []float64, c float64) {
	checkLen("AverageF32", len(dst), len(w))
	checkLen("AverageF32", len(dst), len(u))
	switch tier() {
	case AVX512:
		averageF32AVX512(dst, w, u, c)
	case AVX2:
		averageF32AVX2(dst, w, u, c)
	default:
		averageF32Generic(dst, w, u, c)
	}
}

// QuotientF32 sets dst[i] = float32(x[i] / d) for every i: the average of
// d weight vectors from their sum x. Every tier writes the same bits. It
// panics unless x is as long as dst.
func QuotientF32(dst []float32, x []float64, d float64) {
	checkLen("QuotientF32", len(dst), len(x))
	switch tier() {
	case AVX512:
		quotientF32AVX512(dst, x, d)
	case AVX2:
		quotientF32AVX2(dst, x, d)
	default:
		quotientF32Generic(dst, x, d)
	}
}

// IncreasingI32 reports whether ind is strictly increasing: every
// ind[k-1] < ind[k]. It is the test behind validating a sparse row's
// indices (with the first ≥ 0 and the last below the dimension, all are in
// range).
func IncreasingI32(ind []int32) bool {
	// Validating indices is bound by reading them: AVX2 serves both
	// SIMD tiers.
	if tier() != Generic {
		return increasingI32AVX2(ind)
	}
	return increasingI32Generic(ind)
}

// checkRows panics unless indptr describes len(out) rows whose ranges lie
// inside ind and val. It checks the first and last pointers; the row
// loops check that no pointer decreases (dotRowsGeneric, dotRowsSized).
func checkRows(op string, indptr []int64, nind, nval, nout int) {
	if len(indptr) != nout+1 {
		panic(fmt.Sprintf("asm.%s: len(indptr) = %d, want len(out)+1 = %d", op, len(indptr), nout+1))
	}
	checkLen(op, nval, nind)
	if indptr[0] < 0 || indptr[nout] > int64(nind) || indptr[0] > indptr[nout] {
		panic(fmt.Sprintf("asm.%s: indptr range [%d, %d] outside the %d stored entries", op, indptr[0], indptr[nout], nind))
	}
}

// DotRowsF32 computes out[r] = Σ val[k]·w[ind[k]] over k in
// [indptr[r], indptr[r+1]) for every row r of a CSR block: the sparse
// matrix–vector product, in one call so that short rows pay no per-call
// cost. It panics if len(indptr) != len(out)+1, len(ind) != len(val), a
// row pointer falls outside ind or is less than the one before it, or an
// index is not in [0, len(w)).
func DotRowsF32(indptr []int64, ind []int32, val []float32, w []float32, out []float32) {
	checkRows("DotRowsF32", indptr, len(ind), len(val), len(out))
	// Rows are resliced from ind and val: with their capacities cut to
	// their lengths, a wrong pointer cannot reach past them.
	ind, val = ind[:len(ind):len(ind)], val[:len(val):len(val)]
	if t := tier(); t != Generic {
		dotRowsF32Sized(t, indptr, ind, val, w, out)
		return
	}
	dotRowsGeneric(indptr, ind, val, w, out)
}

// DotRowsF64 is DotRowsF32 in float64.
func DotRowsF64(indptr []int64, ind []int32, val []float64, w []float64, out []float64) {
	checkRows("DotRowsF64", indptr, len(ind), len(val), len(out))
	ind, val = ind[:len(ind):len(ind)], val[:len(val):len(val)]
	if t := tier(); t != Generic {
		dotRowsF64Sized(t, indptr, ind, val, w, out)
		return
	}
	dotRowsGeneric(indptr, ind, val, w, out)
}
