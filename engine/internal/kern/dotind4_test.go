package kern

import (
	"math"
	"math/rand/v2"
	"testing"
)

// spread4 returns w laid out in every fourth element of a guarded slice
// whose other elements (and guards) are NaNs with a payload: a kernel that
// reads any of them returns NaN.
func spread4(r *rand.Rand, w []float32, off int) ([]float32, func(t *testing.T)) {
	w4, check := guarded32(r, 4*len(w), off)
	for i := range w4 {
		w4[i] = guardF32
	}
	for j, v := range w {
		w4[4*j] = v
	}
	return w4, check
}

// TestDotInd4MatchesDotInd: on every tier the interleaved dot product is
// bit-identical to DotIndF32 over the dense weights, for all lengths
// 0..300, every index pattern and unaligned slices, and reads nothing but
// every fourth element.
func TestDotInd4MatchesDotInd(t *testing.T) {
	forTiers(t, func(t *testing.T, k *kernelSet) {
		r := rand.New(rand.NewPCG(17, 18))
		for _, p := range indexPatterns {
			for nnz := 0; nnz <= maxLen; nnz++ {
				dim := maxLen + 1 + r.IntN(50)
				ind := p.Gen(r, nnz, dim)
				w, cw := guarded32(r, dim, nnz%4)
				val, cv := guarded32(r, nnz, (nnz+1)%4)
				w4, cw4 := spread4(r, w, (nnz+2)%4)
				got, want := k.dotInd4F32(val, ind, w4), k.dotIndF32(val, ind, w)
				if math.Float32bits(got) != math.Float32bits(want) {
					t.Fatalf("%s nnz=%d: DotInd4F32 %v, DotIndF32 %v", p.Name, nnz, got, want)
				}
				cw(t)
				cv(t)
				cw4(t)
			}
		}
	})
}
