package kern

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// TestAxpyAvg4MatchesDense: on every tier the interleaved update leaves
// in every slot what AxpyAvgF32 leaves in dense w and u, bit for bit, and
// never writes the slot's other four bytes or past the slots.
func TestAxpyAvg4MatchesDense(t *testing.T) {
	forTiers(t, func(t *testing.T, k *kernelSet) {
		r := rand.New(rand.NewPCG(23, 24))
		for _, p := range indexPatterns {
			for nnz := 0; nnz <= maxLen; nnz++ {
				dim := maxLen + 1 + r.IntN(50)
				ind := p.Gen(r, nnz, dim)
				val, cv := guarded32(r, nnz, nnz%4)
				w, _ := guarded32(r, dim, 0)
				u, _ := guarded64(r, dim, 0)
				wu, cwu := guarded64(r, 2*dim, (nnz+1)%2)
				w4 := unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(wu))), 4*dim)
				for j := range dim {
					w4[4*j], w4[4*j+1] = w[j], guardF32
					wu[2*j+1] = u[j]
				}
				a, ca := float32(r.NormFloat64()), r.NormFloat64()*1e3
				k.axpyAvgF32(a, ca, val, ind, w, u)
				k.axpyAvg4F32(a, ca, val, ind, wu)
				for j := range dim {
					if math.Float32bits(w4[4*j]) != math.Float32bits(w[j]) || math.Float64bits(wu[2*j+1]) != math.Float64bits(u[j]) {
						t.Fatalf("%s nnz=%d j=%d: slot %v %v, dense %v %v", p.Name, nnz, j, w4[4*j], wu[2*j+1], w[j], u[j])
					}
					if math.Float32bits(w4[4*j+1]) != math.Float32bits(guardF32) {
						t.Fatalf("%s nnz=%d j=%d: the slot's unused bytes were written", p.Name, nnz, j)
					}
				}
				cv(t)
				cwu(t)
			}
		}
	})
}
