//go:build !amd64 || noasm

package kern

// The exported kernels name every tier's function in their switches; here
// asm never makes a tier but Generic active, so the others are never
// called.

func unreachable() { panic("kern: a SIMD kernel was called in a build without assembly") }

func dotInd4F32AVX2Sized([]float32, []int32, []float32) float32   { unreachable(); return 0 }
func dotInd4F32AVX512Sized([]float32, []int32, []float32) float32 { unreachable(); return 0 }

func axpyAvg4F32Checked(float32, float64, []float32, []int32, []float64) { unreachable() }
func axpyAvgStrideF32Checked(float32, float64, []float32, []int32, int, []float32, []float64) {
	unreachable()
}
func axpyAvgPairF32Checked(float32, float64, []float32, []int32, int, int, int, []float32, []float64) {
	unreachable()
}

func expandF32AVX2([]float32, []byte, []byte) (int, int, bool) { unreachable(); return 0, 0, false }

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
