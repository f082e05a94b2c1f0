package kern

import (
	"testing"

	"github.com/hyperplane-ml/hyperplane/asm"
)

// TestTierFollowsAsm: the kernels here take asm's tier, so that one
// switch (asm.SetTier, or HYPERPLANE_SIMD read by asm) moves both
// packages.
func TestTierFollowsAsm(t *testing.T) {
	withTiers(t, func(t *testing.T) {
		if got, want := tier(), asm.Active(); got != want {
			t.Fatalf("tier() = %v, asm.Active() = %v", got, want)
		}
		if got := NewP32(8).t; got != asm.Active() {
			t.Fatalf("NewP32 bound tier %v, asm's is %v", got, asm.Active())
		}
	})
}

func TestLengthMismatchPanics(t *testing.T) {
	cases := map[string]func(){
		"DotInd4F32": func() { DotInd4F32(make([]float32, 3), make([]int32, 2), make([]float32, 36)) },
		"AxpyAvgStrideF32": func() {
			AxpyAvgStrideF32(1, 1, make([]float32, 2), make([]int32, 3), 2, make([]float32, 9), nil)
		},
		"AxpyAvgPairF32": func() {
			AxpyAvgPairF32(1, 1, make([]float32, 2), make([]int32, 3), 2, 0, 1, make([]float32, 9), nil)
		},
		"AxpyAvg4F32": func() { AxpyAvg4F32(1, 1, make([]float32, 2), make([]int32, 3), make([]float64, 18)) },
		"PackP32":     func() { PackP32(make([]uint32, 3), make([]int32, 2), make([]float32, 3), 4) },
	}
	for name, f := range cases {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatalf("%s did not panic on a length mismatch", name)
				}
			}()
			f()
		})
	}
}
