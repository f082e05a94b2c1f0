package asm

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
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

// kernelSet is one tier's implementation of every kernel. The exported
// functions call through the active set, chosen once at start-up.
type kernelSet struct {
	tier Tier

	dotF32   func(x, y []float32) float32
	dotF64   func(x, y []float64) float64
	axpyF32  func(a float32, x, y []float32)
	axpyF64  func(a float64, x, y []float64)
	scaleF32 func(a float32, x []float32)
	scaleF64 func(a float64, x []float64)
	sumSqF32 func(x []float32) float32
	sumSqF64 func(x []float64) float64

	dotIndF32  func(val []float32, ind []int32, w []float32) float32
	dotInd4F32 func(val []float32, ind []int32, w []float32) float32
	dotIndF64  func(val []float64, ind []int32, w []float64) float64
	axpyIndF32 func(a float32, val []float32, ind []int32, w []float32)
	axpyIndF64 func(a float64, val []float64, ind []int32, w []float64)

	axpyAvgF32       func(a float32, ca float64, val []float32, ind []int32, w []float32, u []float64)
	axpyAvg4F32      func(a float32, ca float64, val []float32, ind []int32, wu []float64)
	axpyAvgStrideF32 func(a float32, ca float64, val []float32, ind []int32, stride int, w []float32, u []float64)

	increasingI32 func(ind []int32) bool

	averageF32  func(dst, w []float32, u []float64, c float64)
	quotientF32 func(dst []float32, x []float64, d float64)

	dotRowsF32 func(indptr []int64, ind []int32, val []float32, w []float32, out []float32)
	dotRowsF64 func(indptr []int64, ind []int32, val []float64, w []float64, out []float64)
}

var genericKernels = kernelSet{
	tier:             Generic,
	dotF32:           dotF32Generic,
	dotF64:           dotF64Generic,
	axpyF32:          axpyF32Generic,
	axpyF64:          axpyF64Generic,
	scaleF32:         scaleF32Generic,
	scaleF64:         scaleF64Generic,
	sumSqF32:         sumSqF32Generic,
	sumSqF64:         sumSqF64Generic,
	dotIndF32:        dotIndF32Generic,
	dotInd4F32:       dotInd4F32Generic,
	dotIndF64:        dotIndF64Generic,
	axpyIndF32:       axpyIndF32Generic,
	axpyIndF64:       axpyIndF64Generic,
	axpyAvgF32:       axpyAvgF32Generic,
	axpyAvg4F32:      axpyAvg4F32Generic,
	axpyAvgStrideF32: axpyAvgStrideF32Generic,
	increasingI32:    increasingI32Generic,
	averageF32:       averageF32Generic,
	quotientF32:      quotientF32Generic,
	dotRowsF32:       dotRowsF32Generic,
	dotRowsF64:       dotRowsF64Generic,
}

// tierKernels maps each tier this build and CPU can run to its kernels; it
// is filled by the architecture's init (dispatch_*.go).
var tierKernels = map[Tier]*kernelSet{Generic: &genericKernels}

var active atomic.Pointer[kernelSet]

// envNote records what became of the HYPERPLANE_SIMD override, for Info.
var envNote string

func init() {
	archInit()
	best := Best()
	active.Store(tierKernels[best])
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
func Supported(t Tier) bool { return tierKernels[t] != nil }

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
func Active() Tier { return active.Load().tier }

// SetTier switches every kernel to tier t. It is safe to call at any time;
// calls already running finish on the tier they started with.
func SetTier(t Tier) error {
	k := tierKernels[t]
	if k == nil {
		return fmt.Errorf("%w: %s", ErrUnsupportedTier, t)
	}
	active.Store(k)
	return nil
}

func checkLen(op string, a, b int) {
	if a != b {
		panic(fmt.Sprintf("asm.%s: length mismatch %d != %d", op, a, b))
	}
}

// DotF32 returns Σ x[i]·y[i]. It panics if len(x) != len(y).
func DotF32(x, y []float32) float32 {
	checkLen("DotF32", len(x), len(y))
	return active.Load().dotF32(x, y)
}

// DotF64 returns Σ x[i]·y[i]. It panics if len(x) != len(y).
func DotF64(x, y []float64) float64 {
	checkLen("DotF64", len(x), len(y))
	return active.Load().dotF64(x, y)
}

// AxpyF32 computes y[i] += a·x[i], fused into one pass. It panics if len(x) != len(y).
func AxpyF32(a float32, x, y []float32) {
	checkLen("AxpyF32", len(x), len(y))
	active.Load().axpyF32(a, x, y)
}

// AxpyF64 computes y[i] += a·x[i], fused into one pass. It panics if len(x) != len(y).
func AxpyF64(a float64, x, y []float64) {
	checkLen("AxpyF64", len(x), len(y))
	active.Load().axpyF64(a, x, y)
}

// ScaleF32 computes x[i] *= a.
func ScaleF32(a float32, x []float32) { active.Load().scaleF32(a, x) }

// ScaleF64 computes x[i] *= a.
func ScaleF64(a float64, x []float64) { active.Load().scaleF64(a, x) }

// SumSqF32 returns Σ x[i]², the squared Euclidean norm.
func SumSqF32(x []float32) float32 { return active.Load().sumSqF32(x) }

// SumSqF64 returns Σ x[i]², the squared Euclidean norm.
func SumSqF64(x []float64) float64 { return active.Load().sumSqF64(x) }

// DotIndF32 returns Σ val[k]·w[ind[k]], the gather behind every sparse
// prediction. It panics if len(val) != len(ind). The indices are not
// checked: each must lie in [0, len(w)).
func DotIndF32(val []float32, ind []int32, w []float32) float32 {
	checkLen("DotIndF32", len(val), len(ind))
	return active.Load().dotIndF32(val, ind, w)
}

// DotInd4F32 returns Σ val[k]·w[4·ind[k]]: DotIndF32 over weights kept in
// every fourth element of w, the layout in which a learner puts other
// per-feature state beside each weight so that one cache line serves both.
// On every tier the result is bit-identical to DotIndF32 over the same
// weights packed densely (the same loop, switching to scalar loads at the
// same number of weights). It panics if len(val) != len(ind). The indices
// are not checked: each must lie in [0, len(w)/4).
func DotInd4F32(val []float32, ind []int32, w []float32) float32 {
	checkLen("DotInd4F32", len(val), len(ind))
	return active.Load().dotInd4F32(val, ind, w)
}

// AddScoresF32 adds val[k]·W[ind[k]·K + c] to s[c] for every class c < K =
// len(s) and every k in order: the class scores of a multiclass linear
// model whose K weights per feature are stored together. Each product is
// rounded before it is added, so every tier gives the same scores bit for
// bit. It panics if len(val) != len(ind). The indices are not checked:
// each must lie in [0, len(W)/K).
func AddScoresF32(W []float32, ind []int32, val []float32, s []float32) {
	checkLen("AddScoresF32", len(val), len(ind))
	addScores(W, ind, val, s)
}

// DotIndF64 returns Σ val[k]·w[ind[k]]. It panics if len(val) != len(ind).
// The indices are not checked: each must lie in [0, len(w)).
func DotIndF64(val []float64, ind []int32, w []float64) float64 {
	checkLen("DotIndF64", len(val), len(ind))
	return active.Load().dotIndF64(val, ind, w)
}

// AxpyIndF32 computes w[ind[k]] += a·val[k], the scatter behind every sparse
// update. It panics if len(val) != len(ind). The indices are not checked:
// each must lie in [0, len(w)) and none may repeat.
func AxpyIndF32(a float32, val []float32, ind []int32, w []float32) {
	checkLen("AxpyIndF32", len(val), len(ind))
	active.Load().axpyIndF32(a, val, ind, w)
}

// AxpyIndF64 computes w[ind[k]] += a·val[k]. It panics if len(val) !=
// len(ind). The indices are not checked: each must lie in [0, len(w)) and
// none may repeat.
func AxpyIndF64(a float64, val []float64, ind []int32, w []float64) {
	checkLen("AxpyIndF64", len(val), len(ind))
	active.Load().axpyIndF64(a, val, ind, w)
}

// AxpyAvgF32 computes w[ind[k]] += a·val[k] and u[ind[k]] += ca·val[k]
// (in float64) for every k: the update of an averaged perceptron, its
// weights and its averaging accumulator in one pass over the row. Every
// product is rounded before it is added, so every tier computes the same
// bits. It panics if len(val) != len(ind). The indices are not checked:
// each must lie in [0, len(w)) and in [0, len(u)).
func AxpyAvgF32(a float32, ca float64, val []float32, ind []int32, w []float32, u []float64) {
	checkLen("AxpyAvgF32", len(val), len(ind))
	active.Load().axpyAvgF32(a, ca, val, ind, w, u)
}

// AxpyAvg4F32 is AxpyAvgF32 on weights and accumulators interleaved in
// 16-byte slots: w[j] is the float32 in the first four bytes of wu[2j]
// (element 4j of a float32 view of wu, as DotInd4F32 reads it) and u[j]
// is wu[2j+1]. It panics if len(val) != len(ind). The indices are not
// checked: each must lie in [0, len(wu)/2).
func AxpyAvg4F32(a float32, ca float64, val []float32, ind []int32, wu []float64) {
	checkLen("AxpyAvg4F32", len(val), len(ind))
	active.Load().axpyAvg4F32(a, ca, val, ind, wu)
}

// AxpyAvgStrideF32 is AxpyAvgF32 on every stride-th weight:
// w[ind[k]·stride] += a·val[k] and, when u is not empty,
// u[ind[k]·stride] += ca·val[k] (in float64). A multiclass learner keeps a
// feature's K class weights together; its update of class c is a call
// with w[c:], u[c:] and stride K. It panics if len(val) != len(ind) or
// stride < 1. The indices are not checked: each ind[k]·stride must lie in
// w, and in u when u is not empty.
func AxpyAvgStrideF32(a float32, ca float64, val []float32, ind []int32, stride int, w []float32, u []float64) {
	checkLen("AxpyAvgStrideF32", len(val), len(ind))
	if stride < 1 {
		panic(fmt.Sprintf("asm.AxpyAvgStrideF32: stride %d < 1", stride))
	}
	active.Load().axpyAvgStrideF32(a, ca, val, ind, stride, w, u)
}

// AverageF32 sets dst[i] = float32(float64(w[i]) − u[i]/c) for every i:
// an averaged perceptron's weights, from its weights w and its averaging
// accumulator u after c examples. Every operation is rounded as in that
// Go expression, so every tier writes the same bits. It panics unless w
// and u are as long as dst.
func AverageF32(dst, w []float32, u []float64, c float64) {
	checkLen("AverageF32", len(dst), len(w))
	checkLen("AverageF32", len(dst), len(u))
	active.Load().averageF32(dst, w, u, c)
}

// QuotientF32 sets dst[i] = float32(x[i] / d) for every i: the average of
// d weight vectors from their sum x. Every tier writes the same bits. It
// panics unless x is as long as dst.
func QuotientF32(dst []float32, x []float64, d float64) {
	checkLen("QuotientF32", len(dst), len(x))
	active.Load().quotientF32(dst, x, d)
}

// IncreasingI32 reports whether ind is strictly increasing: every
// ind[k-1] < ind[k]. It is the test behind validating a sparse row's
// indices (with the first ≥ 0 and the last below the dimension, all are in
// range).
func IncreasingI32(ind []int32) bool {
	return active.Load().increasingI32(ind)
}

// checkRows panics unless indptr describes len(out) rows whose ranges lie
// inside ind and val.
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
// cost. It panics if len(indptr) != len(out)+1, len(ind) != len(val) or
// the first and last row pointers fall outside ind. The pointers between
// must not decrease, and the indices must lie in [0, len(w)); neither is
// checked.
func DotRowsF32(indptr []int64, ind []int32, val []float32, w []float32, out []float32) {
	checkRows("DotRowsF32", indptr, len(ind), len(val), len(out))
	active.Load().dotRowsF32(indptr, ind, val, w, out)
}

// DotRowsF64 is DotRowsF32 in float64.
func DotRowsF64(indptr []int64, ind []int32, val []float64, w []float64, out []float64) {
	checkRows("DotRowsF64", indptr, len(ind), len(val), len(out))
	active.Load().dotRowsF64(indptr, ind, val, w, out)
}
