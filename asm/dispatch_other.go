//go:build !amd64 || noasm

package asm

// archInit has nothing to add where there is no assembly: only the
// portable tier runs.
func archInit() {}

// The exported kernels name every tier's function in their switches; here
// no tier but Generic is ever active, so the others are never called.

func unreachable() { panic("asm: a SIMD kernel was called in a build without assembly") }

func dotF32AVX2([]float32, []float32) float32   { unreachable(); return 0 }
func dotF32AVX512([]float32, []float32) float32 { unreachable(); return 0 }
func dotF64AVX2([]float64, []float64) float64   { unreachable(); return 0 }
func dotF64AVX512([]float64, []float64) float64 { unreachable(); return 0 }

func axpyF32AVX2(float32, []float32, []float32)   { unreachable() }
func axpyF32AVX512(float32, []float32, []float32) { unreachable() }
func axpyF64AVX2(float64, []float64, []float64)   { unreachable() }
func axpyF64AVX512(float64, []float64, []float64) { unreachable() }

func scaleF32AVX2(float32, []float32)   { unreachable() }
func scaleF32AVX512(float32, []float32) { unreachable() }
func scaleF64AVX2(float64, []float64)   { unreachable() }
func scaleF64AVX512(float64, []float64) { unreachable() }

func sumSqF32AVX2([]float32) float32   { unreachable(); return 0 }
func sumSqF32AVX512([]float32) float32 { unreachable(); return 0 }
func sumSqF64AVX2([]float64) float64   { unreachable(); return 0 }
func sumSqF64AVX512([]float64) float64 { unreachable(); return 0 }

func dotIndF32AVX2Sized([]float32, []int32, []float32) float32   { unreachable(); return 0 }
func dotIndF32AVX512Sized([]float32, []int32, []float32) float32 { unreachable(); return 0 }
func dotIndF64AVX2Sized([]float64, []int32, []float64) float64   { unreachable(); return 0 }
func dotIndF64AVX512Sized([]float64, []int32, []float64) float64 { unreachable(); return 0 }

func axpyIndF32Checked(float32, []float32, []int32, []float32)                     { unreachable() }
func axpyIndF64Checked(float64, []float64, []int32, []float64)                     { unreachable() }
func axpyAvgF32Checked(float32, float64, []float32, []int32, []float32, []float64) { unreachable() }
func axpyAvgDenseF32AVX2(float32, float64, []float32, []float32, []float64)        { unreachable() }
func addScoresAVX512Checked([]float32, []int32, []float32, []float32)              { unreachable() }
func addScoresAVX2Checked([]float32, []int32, []float32, []float32)                { unreachable() }

func increasingI32AVX2([]int32) bool { unreachable(); return false }

func averageF32AVX2([]float32, []float32, []float64, float64)   { unreachable() }
func averageF32AVX512([]float32, []float32, []float64, float64) { unreachable() }
func quotientF32AVX2([]float32, []float64, float64)             { unreachable() }
func quotientF32AVX512([]float32, []float64, float64)           { unreachable() }

func dotRowsF32Sized(Tier, []int64, []int32, []float32, []float32, []float32) { unreachable() }
func dotRowsF64Sized(Tier, []int64, []int32, []float64, []float64, []float64) { unreachable() }
