//go:build amd64 && !noasm

package kern

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hyperplane-ml/hyperplane/asm"
)

// TestDotInd4KernelsAllLengths checks the interleaved gather kernels
// themselves at every length 0..300: the Sized wrappers send rows shorter
// than gatherMinLen to the scalar loop, so the kernels' short and masked
// paths would otherwise go untested. Each must agree with the reference
// within rounding, and, at gatherMinLen and above, where asm.DotIndF32
// runs its own gather kernel, with it bit for bit.
func TestDotInd4KernelsAllLengths(t *testing.T) {
	defer func(t0 asm.Tier) { _ = asm.SetTier(t0) }(asm.Active())
	for _, k := range []struct {
		tier asm.Tier
		dot4 func(val []float32, ind []int32, w []float32) float32
	}{
		{asm.AVX2, rawDot4(dotInd4F32AVX2)},
		{asm.AVX512, rawDot4(dotInd4F32AVX512)},
	} {
		t.Run(k.tier.String(), func(t *testing.T) {
			if err := asm.SetTier(k.tier); err != nil {
				t.Skip("not supported on this CPU")
			}
			r := rand.New(rand.NewPCG(41, 42))
			for _, p := range indexPatterns {
				for nnz := 0; nnz <= maxLen; nnz++ {
					dim := maxLen + 1 + r.IntN(50)
					ind := p.Gen(r, nnz, dim)
					w, cw := guarded32(r, dim, nnz%4)
					val, cv := guarded32(r, nnz, (nnz+1)%4)
					w4, cw4 := spread4(r, w, (nnz+2)%4)
					var mag float32
					for i := range val {
						mag += float32(math.Abs(float64(val[i] * w[ind[i]])))
					}
					got := k.dot4(val, ind, w4)
					if want := dotInd4F32Generic(val, ind, w4); !close32(got, want, mag, nnz) {
						t.Fatalf("%s nnz=%d: dotInd4 %v, reference %v", p.Name, nnz, got, want)
					}
					if want := asm.DotIndF32(val, ind, w); nnz >= gatherMinLen && math.Float32bits(got) != math.Float32bits(want) {
						t.Fatalf("%s nnz=%d: dotInd4 %v, asm.DotIndF32 %v", p.Name, nnz, got, want)
					}
					cw(t)
					cv(t)
					cw4(t)
				}
			}
		})
	}
}
