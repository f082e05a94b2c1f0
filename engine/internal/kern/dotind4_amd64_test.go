//go:build amd64 && !noasm

package kern

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDotInd4SizeSwitch: both forms leave the gather for scalar loads at
// the same number of weights, so they agree on either side of it.
func TestDotInd4SizeSwitch(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 64 MiB")
	}
	r := rand.New(rand.NewPCG(19, 20))
	for _, dim := range []int{gatherMaxBytes / 4, gatherMaxBytes/4 + 1} {
		w := make([]float32, dim)
		w4 := make([]float32, 4*dim)
		for j := range w {
			w[j] = float32(r.NormFloat64())
			w4[4*j] = w[j]
		}
		ind := make([]int32, 77)
		val := make([]float32, 77)
		for i := range ind {
			ind[i] = int32(r.IntN(dim))
			val[i] = float32(r.NormFloat64())
		}
		forTiers(t, func(t *testing.T, k *kernelSet) {
			if got, want := k.dotInd4F32(val, ind, w4), k.dotIndF32(val, ind, w); math.Float32bits(got) != math.Float32bits(want) {
				t.Fatalf("dim %d: DotInd4F32 %v, DotIndF32 %v", dim, got, want)
			}
		})
	}
}
