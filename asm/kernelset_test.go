package asm

// kernelSet is one tier's function for every kernel, with the exported
// kernels' signatures and checks but without the switch on the active
// tier, so that tests run each tier's code directly and tiers never race.
type kernelSet struct {
	tier Tier

	dotF32   func(x, y []float32) float32
	dotF64   func(x, y []float64) float64
	axpyF32  func(a float32, x, y []float32)
	axpyF64  func(a float64, x, y []float64)
	scaleF32 func(a float32, x []float32)
	scaleF64 func(a float64, x []float64)
	sumSqF32 func(x []float32) float32
	sumSqF64 func(x []float64) float64

	dotIndF32  func(val []float32, ind []int32, w []float32) float32
	dotIndF64  func(val []float64, ind []int32, w []float64) float64
	axpyIndF32 func(a float32, val []float32, ind []int32, w []float32)
	axpyIndF64 func(a float64, val []float64, ind []int32, w []float64)

	axpyAvgF32      func(a float32, ca float64, val []float32, ind []int32, w []float32, u []float64)
	axpyAvgDenseF32 func(a float32, ca float64, x []float32, w []float32, u []float64)
	addScoresF32    func(W []float32, ind []int32, val []float32, s []float32)

	increasingI32 func(ind []int32) bool

	averageF32  func(dst, w []float32, u []float64, c float64)
	quotientF32 func(dst []float32, x []float64, d float64)

	dotRowsF32 func(indptr []int64, ind []int32, val []float32, w []float32, out []float32)
	dotRowsF64 func(indptr []int64, ind []int32, val []float64, w []float64, out []float64)
}

var genericKernels = kernelSet{
	tier:            Generic,
	dotF32:          dotGeneric[float32],
	dotF64:          dotGeneric[float64],
	axpyF32:         axpyGeneric[float32],
	axpyF64:         axpyGeneric[float64],
	scaleF32:        scaleGeneric[float32],
	scaleF64:        scaleGeneric[float64],
	sumSqF32:        sumSqGeneric[float32],
	sumSqF64:        sumSqGeneric[float64],
	dotIndF32:       dotIndGeneric[float32],
	dotIndF64:       dotIndGeneric[float64],
	axpyIndF32:      axpyIndGeneric[float32],
	axpyIndF64:      axpyIndGeneric[float64],
	axpyAvgF32:      axpyAvgF32Generic,
	axpyAvgDenseF32: axpyAvgDenseF32Generic,
	addScoresF32:    addScoresF32Generic,
	increasingI32:   increasingI32Generic,
	averageF32:      averageF32Generic,
	quotientF32:     quotientF32Generic,
	dotRowsF32:      dotRowsGeneric[float32],
	dotRowsF64:      dotRowsGeneric[float64],
}

// kernelsFor returns tier t's kernels, or nil where t cannot run.
func kernelsFor(t Tier) *kernelSet {
	if !Supported(t) {
		return nil
	}
	if t == Generic {
		return &genericKernels
	}
	return simdKernels(t)
}
