//go:build amd64 && !noasm

package kernels

import "github.com/viterin/vek/vek32"

// rbfApplySIMD is RBF.Apply on the AVX2 and AVX-512 tiers: each step a
// vectorized pass of vek32 over the row, exp included (vek32 runs its
// AVX2 code, which both tiers' CPUs have). Only builds with assembly
// link vek32.
func rbfApplySIMD(dots []float32, xx float32, zz []float32, g float32) {
	vek32.MulNumber_Inplace(dots, 2)
	vek32.Sub_Inplace(dots, zz)
	vek32.AddNumber_Inplace(dots, -xx)
	vek32.MinimumNumber_Inplace(dots, 0)
	vek32.MulNumber_Inplace(dots, g)
	vek32.MaximumNumber_Inplace(dots, rbfFloor)
	vek32.Exp_Inplace(dots)
}
