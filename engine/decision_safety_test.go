package engine

import (
	"testing"

	"github.com/hyperplane-ml/hyperplane/asm"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// TestDecisionInconsistentModel: a Model assembled by hand whose W is
// shorter than its Dim says used to send Decision's gather far past W (a
// SIGSEGV, or a read of whatever lay there). The kernels check their
// indices now: on every tier it panics, recoverably, as a Go bounds check
// does.
func TestDecisionInconsistentModel(t *testing.T) {
	m := &Model{Classes: []float64{-1, 1}, Dim: 1 << 24, W: make([]float32, 40), B: make([]float32, 1)}
	x := sparse.Vector{Dim: 1 << 24}
	for j := range int32(64) {
		x.Ind = append(x.Ind, j*(1<<18))
		x.Val = append(x.Val, 1)
	}
	defer func(t0 asm.Tier) { _ = asm.SetTier(t0) }(asm.Active())
	for _, tier := range asm.Tiers() {
		if err := asm.SetTier(tier); err != nil {
			t.Fatal(err)
		}
		func() {
			defer func() {
				if recover() == nil {
					t.Fatalf("%v: Decision read past W without a panic", tier)
				}
			}()
			m.Decision(x)
		}()
	}
}
