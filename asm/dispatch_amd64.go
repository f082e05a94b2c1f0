//go:build amd64 && !noasm

package asm

import "github.com/klauspost/cpuid/v2"

var avx2Kernels = kernelSet{
	tier:       AVX2,
	dotF32:     dotF32AVX2,
	dotF64:     dotF64AVX2,
	axpyF32:    axpyF32AVX2,
	axpyF64:    axpyF64AVX2,
	scaleF32:   scaleF32AVX2,
	scaleF64:   scaleF64AVX2,
	sumSqF32:   sumSqF32AVX2,
	sumSqF64:   sumSqF64AVX2,
	dotIndF32:  dotIndF32AVX2,
	dotIndF64:  dotIndF64AVX2,
	axpyIndF32: axpyIndF32AVX2,
	axpyIndF64: axpyIndF64AVX2,
	dotRowsF32: dotRowsF32AVX2,
	dotRowsF64: dotRowsF64AVX2,
}

var avx512Kernels = kernelSet{
	tier:       AVX512,
	dotF32:     dotF32AVX512,
	dotF64:     dotF64AVX512,
	axpyF32:    axpyF32AVX512,
	axpyF64:    axpyF64AVX512,
	scaleF32:   scaleF32AVX512,
	scaleF64:   scaleF64AVX512,
	sumSqF32:   sumSqF32AVX512,
	sumSqF64:   sumSqF64AVX512,
	dotIndF32:  dotIndF32AVX512,
	dotIndF64:  dotIndF64AVX512,
	axpyIndF32: axpyIndF32AVX512,
	axpyIndF64: axpyIndF64AVX512,
	dotRowsF32: dotRowsF32AVX512,
	dotRowsF64: dotRowsF64AVX512,
}

// archInit registers the tiers this CPU can run. cpuid's AVX flags already
// account for the operating system saving the wider registers.
func archInit() {
	if cpuid.CPU.Supports(cpuid.AVX, cpuid.AVX2, cpuid.FMA3) {
		tierKernels[AVX2] = &avx2Kernels
		// The AVX-512 kernels use EVEX forms on YMM (VL) and BZHI (BMI2)
		// for their tail masks.
		if cpuid.CPU.Supports(cpuid.AVX512F, cpuid.AVX512VL, cpuid.BMI2) {
			tierKernels[AVX512] = &avx512Kernels
		}
	}
}
