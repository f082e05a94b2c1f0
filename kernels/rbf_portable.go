//go:build !amd64 || noasm

package kernels

// rbfApplySIMD never runs where there is no assembly (asm's only tier is
// the generic one, which RBF.Apply serves with rbfApplyGeneric); it is the
// portable loop so that such builds do not link vek32.
func rbfApplySIMD(dots []float32, xx float32, zz []float32, g float32) {
	rbfApplyGeneric(dots, xx, zz, g)
}
