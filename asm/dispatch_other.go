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

func dotIndF32AVX2Sized([]float32, []int32, []float32) float32    { unreachable(); return 0 }
func dotIndF32AVX512Sized([]float32, []int32, []float32) float32  { unreachable(); return 0 }
func dotInd4F32AVX2Sized([]float32, []int32, []float32) float32   { unreachable(); return 0 }
func dotInd4F32AVX512Sized([]float32, []int32, []float32) float32 { unreachable(); return 0 }
func dotIndF64AVX2Sized([]float64, []int32, []float64) float64    { unreachable(); return 0 }
func dotIndF64AVX512Sized([]float64, []int32, []float64) float64  { unreachable(); return 0 }

func axpyIndF32Checked(float32, []float32, []int32, []float32)                     { unreachable() }
func axpyIndF64Checked(float64, []float64, []int32, []float64)                     { unreachable() }
func axpyAvgF32Checked(float32, float64, []float32, []int32, []float32, []float64) { unreachable() }
func axpyAvg4F32Checked(float32, float64, []float32, []int32, []float64)           { unreachable() }
func axpyAvgStrideF32Checked(float32, float64, []float32, []int32, int, []float32, []float64) {
	unreachable()
}
func axpyAvgDenseF32AVX2(float32, float64, []float32, []float32, []float64) { unreachable() }
func addScoresAVX512Checked([]float32, []int32, []float32, []float32)       { unreachable() }
func axpyAvgPairF32Checked(float32, float64, []float32, []int32, int, int, int, []float32, []float64) {
	unreachable()
}
func addScoresAVX2Checked([]float32, []int32, []float32, []float32) { unreachable() }

func increasingI32AVX2([]int32) bool { unreachable(); return false }

func expandF32AVX2([]float32, []byte, []byte) (int, int, bool) { unreachable(); return 0, 0, false }

func averageF32AVX2([]float32, []float32, []float64, float64)   { unreachable() }
func averageF32AVX512([]float32, []float32, []float64, float64) { unreachable() }
func quotientF32AVX2([]float32, []float64, float64)             { unreachable() }
func quotientF32AVX512([]float32, []float64, float64)           { unreachable() }

func dotRowsF32Sized(Tier, []int64, []int32, []float32, []float32, []float32) { unreachable() }
func dotRowsF64Sized(Tier, []int64, []int32, []float64, []float64, []float64) { unreachable() }

func packP32Vec([]uint32, []int32, []float32, uint) bool { unreachable(); return false }

func dotP32F32AVX2([]uint32, uint64, uint64, []float32, int) (float32, bool) {
	unreachable()
	return 0, false
}
func dotP32F32AVX512([]uint32, uint64, uint64, []float32, int) (float32, bool) {
	unreachable()
	return 0, false
}
func axpyAvgP32F32AVX(float32, float64, []uint32, uint64, uint64, []float32, []float64, int) bool {
	unreachable()
	return false
}
func axpyAvgP32F32AVX512(float32, float64, []uint32, uint64, uint64, []float32, []float64, int) int {
	unreachable()
	return 0
}
func axpyIndP32F32AVX(float32, []uint32, uint64, uint64, []float32, int) bool {
	unreachable()
	return false
}
