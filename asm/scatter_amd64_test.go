//go:build amd64 && !noasm

package asm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestScatterKernels checks the AVX-512 gather–FMA–scatter kernels, which no
// tier dispatches to (they lose to the scalar loop on the CPUs measured so
// far) but which are kept, generated and correct, for CPUs where they win.
func TestScatterKernels(t *testing.T) {
	if !Supported(AVX512) {
		t.Skip("no AVX-512 on this CPU: the kernels cannot run")
	}
	r := rand.New(rand.NewPCG(9, 10))
	for _, p := range indexPatterns {
		if !p.unique {
			continue
		}
		for nnz := 0; nnz <= maxLen; nnz++ {
			dim := maxLen + 1 + r.IntN(50)
			ind := p.gen(r, nnz, dim)
			w, cw := guarded32(r, dim, nnz%4)
			val, cv := guarded32(r, nnz, (nnz+1)%4)
			want := append([]float32(nil), w...)
			axpyIndF32Generic(1.5, val, ind, want)
			axpyIndF32AVX512(1.5, val, ind, w)
			for i := range w {
				if !close32(w[i], want[i], float32(math.Abs(float64(want[i])))+8, 4) {
					t.Fatalf("%s nnz=%d i=%d: got %v want %v", p.name, nnz, i, w[i], want[i])
				}
			}
			w64, cw64 := guarded64(r, dim, nnz%4)
			val64, cv64 := guarded64(r, nnz, (nnz+3)%4)
			want64 := append([]float64(nil), w64...)
			axpyIndF64Generic(-0.5, val64, ind, want64)
			axpyIndF64AVX512(-0.5, val64, ind, w64)
			for i := range w64 {
				if !close64(w64[i], want64[i], math.Abs(want64[i])+8, 4) {
					t.Fatalf("%s nnz=%d i=%d: got %v want %v", p.name, nnz, i, w64[i], want64[i])
				}
			}
			for _, c := range []func(*testing.T){cw, cv, cw64, cv64} {
				c(t)
			}
		}
	}
}
