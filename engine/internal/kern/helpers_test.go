package kern

import (
	"testing"

	"github.com/hyperplane-ml/hyperplane/asm"
	"github.com/hyperplane-ml/hyperplane/asm/asmtest"
)

// The test helpers this package shares with asm's tests
// (asm/asmtest), under the names asm's tests give them.

const (
	maxLen = asmtest.MaxLen
	fenced = asmtest.Fenced
)

var (
	guardF32      = asmtest.GuardF32
	guarded32     = asmtest.Guarded32
	guarded64     = asmtest.Guarded64
	close32       = asmtest.Close32
	indexPatterns = asmtest.IndexPatterns
	fenced32      = asmtest.Fenced32
	fenced64      = asmtest.Fenced64
	fencedI32     = asmtest.FencedI32
	fencedBytes   = asmtest.FencedBytes
	badRows       = asmtest.BadRows
	safetyRowLens = asmtest.SafetyRowLens
)

// mustPanic fails unless f panics as a bounds check does: with a runtime
// error, or with one of this package's messages.
func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	asmtest.MustPanic(t, "kern", what, f)
}

// withTiers runs f once with each supported tier active, set through
// asm.SetTier: the one switch that these kernels follow too.
func withTiers(t *testing.T, f func(t *testing.T)) {
	defer func(t0 asm.Tier) { _ = asm.SetTier(t0) }(asm.Active())
	for _, tier := range asm.Tiers() {
		if err := asm.SetTier(tier); err != nil {
			t.Fatal(err)
		}
		t.Run(tier.String(), f)
	}
}

// kernelSet is one tier's function for every kernel here, with the
// exported kernels' signatures and checks but without the switch on the
// active tier, so that tests run each tier's code directly; and asm's
// public twins that they must match bit for bit, which run on asm's active
// tier (forTiers sets it to the set's).
type kernelSet struct {
	tier asm.Tier

	dotInd4F32       func(val []float32, ind []int32, w []float32) float32
	axpyAvg4F32      func(a float32, ca float64, val []float32, ind []int32, wu []float64)
	axpyAvgStrideF32 func(a float32, ca float64, val []float32, ind []int32, stride int, w []float32, u []float64)
	axpyAvgPairF32   func(a float32, ca float64, val []float32, ind []int32, stride, c, r int, w []float32, u []float64)
	expandF32        func(dst []float32, mask, vals []byte) (int, bool)

	dotIndF32  func(val []float32, ind []int32, w []float32) float32
	axpyAvgF32 func(a float32, ca float64, val []float32, ind []int32, w []float32, u []float64)
}

var genericKernels = kernelSet{
	tier:             asm.Generic,
	dotInd4F32:       dotInd4F32Generic,
	axpyAvg4F32:      axpyAvg4F32Generic,
	axpyAvgStrideF32: axpyAvgStrideF32Generic,
	axpyAvgPairF32:   axpyAvgPairF32Generic,
	expandF32:        expandF32Generic,
}

// kernelsFor returns tier t's kernels, or nil where t cannot run.
func kernelsFor(t asm.Tier) *kernelSet {
	if !asm.Supported(t) {
		return nil
	}
	var k *kernelSet
	if t == asm.Generic {
		g := genericKernels
		k = &g
	} else {
		k = simdKernels(t)
	}
	k.dotIndF32, k.axpyAvgF32 = asm.DotIndF32, asm.AxpyAvgF32
	return k
}

// forTiers runs f once per tier this machine supports, on that tier's
// kernels, with asm's tier set to it for the public twins.
func forTiers(t *testing.T, f func(t *testing.T, k *kernelSet)) {
	defer func(t0 asm.Tier) { _ = asm.SetTier(t0) }(asm.Active())
	for _, tier := range asm.Tiers() {
		if err := asm.SetTier(tier); err != nil {
			t.Fatal(err)
		}
		k := kernelsFor(tier)
		t.Run(tier.String(), func(t *testing.T) { f(t, k) })
	}
}
