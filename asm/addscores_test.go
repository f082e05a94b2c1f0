package asm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAddScoresTiers: the exported AddScoresF32 gives the same scores on
// every tier, and allocates nothing with the scores on the stack.
func TestAddScoresTiers(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	const K, dim = 20, 500
	W := make([]float32, K*dim)
	for i := range W {
		W[i] = float32(r.NormFloat64())
	}
	ind := []int32{0, 3, 77, 120, 499}
	val := []float32{1, 0.5, -2, 3, 0.25}
	var ref []float32
	old := Active()
	defer SetTier(old)
	for _, tier := range Tiers() {
		if err := SetTier(tier); err != nil {
			t.Fatal(err)
		}
		s := make([]float32, K)
		AddScoresF32(W, ind, val, s)
		if ref == nil {
			ref = s
		}
		for c := range s {
			if math.Float32bits(s[c]) != math.Float32bits(ref[c]) {
				t.Fatalf("%v class %d: %v, generic %v", tier, c, s[c], ref[c])
			}
		}
		if a := testing.AllocsPerRun(50, func() {
			var s [K]float32
			AddScoresF32(W, ind, val, s[:])
		}); a != 0 {
			t.Errorf("%v: AddScoresF32 allocates %v times", tier, a)
		}
	}
}
