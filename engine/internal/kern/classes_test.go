package kern

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestAxpyAvgStrideMatchesReference: on every tier the strided update
// gives the reference loop's bits, with and without accumulators, for
// strides 1..21, lengths 0..300 and every index pattern (repeats
// included), touches only every stride-th value from the start of w and
// u, and writes nothing outside them.
func TestAxpyAvgStrideMatchesReference(t *testing.T) {
	forTiers(t, func(t *testing.T, k *kernelSet) {
		r := rand.New(rand.NewPCG(25, 26))
		for _, stride := range []int{1, 2, 3, 4, 20, 21} {
			for _, p := range indexPatterns {
				for nnz := 0; nnz <= maxLen; nnz += 1 + nnz/16 {
					dim := maxLen + 1 + r.IntN(50)
					ind := p.Gen(r, nnz, dim)
					val, cv := guarded32(r, nnz, nnz%4)
					w, cw := guarded32(r, dim*stride, (nnz+1)%4)
					u, cu := guarded64(r, dim*stride, (nnz+2)%4)
					for _, avg := range []bool{false, true} {
						uu := u
						if !avg {
							uu = nil
						}
						a, ca := float32(r.NormFloat64()), r.NormFloat64()*1e3
						ww, wu := append([]float32(nil), w...), append([]float64(nil), u...)
						var wantU []float64
						if avg {
							wantU = wu
						}
						axpyAvgStrideF32Generic(a, ca, val, ind, stride, ww, wantU)
						k.axpyAvgStrideF32(a, ca, val, ind, stride, w, uu)
						for i := range w {
							if math.Float32bits(w[i]) != math.Float32bits(ww[i]) || math.Float64bits(u[i]) != math.Float64bits(wu[i]) {
								t.Fatalf("stride=%d %s nnz=%d avg=%v i=%d: w %v u %v, want %v %v", stride, p.Name, nnz, avg, i, w[i], u[i], ww[i], wu[i])
							}
						}
					}
					cv(t)
					cw(t)
					cu(t)
				}
			}
		}
	})
}

// TestAxpyAvgPairMatchesStride: on every tier the pair update gives the
// bits of two strided updates, +a on class c then −a on class r, and the
// reference loop's, with and without accumulators, for strides 2..21,
// every pair of classes order, lengths 0..300 and every index pattern
// (repeats included), and writes nothing outside w and u.
func TestAxpyAvgPairMatchesStride(t *testing.T) {
	forTiers(t, func(t *testing.T, k *kernelSet) {
		r := rand.New(rand.NewPCG(27, 28))
		for _, stride := range []int{2, 3, 4, 20, 21} {
			for _, p := range indexPatterns {
				for nnz := 0; nnz <= maxLen; nnz += 1 + nnz/16 {
					dim := maxLen + 1 + r.IntN(50)
					ind := p.Gen(r, nnz, dim)
					c := r.IntN(stride)
					cr := (c + 1 + r.IntN(stride-1)) % stride
					val, cv := guarded32(r, nnz, nnz%4)
					w, cw := guarded32(r, dim*stride, (nnz+1)%4)
					u, cu := guarded64(r, dim*stride, (nnz+2)%4)
					for _, avg := range []bool{false, true} {
						uu := u
						if !avg {
							uu = nil
						}
						a, ca := float32(r.NormFloat64()), r.NormFloat64()*1e3
						two, twoU := append([]float32(nil), w...), append([]float64(nil), u...)
						ref, refU := append([]float32(nil), w...), append([]float64(nil), u...)
						var tu, ru []float64
						if avg {
							tu, ru = twoU, refU
						}
						axpyAvgStrideF32Generic(a, ca, val, ind, stride, two[c:], sub64(tu, c))
						axpyAvgStrideF32Generic(-a, -ca, val, ind, stride, two[cr:], sub64(tu, cr))
						axpyAvgPairF32Generic(a, ca, val, ind, stride, c, cr, ref, ru)
						k.axpyAvgPairF32(a, ca, val, ind, stride, c, cr, w, uu)
						for i := range w {
							if math.Float32bits(w[i]) != math.Float32bits(two[i]) || math.Float64bits(u[i]) != math.Float64bits(twoU[i]) ||
								math.Float32bits(w[i]) != math.Float32bits(ref[i]) || math.Float64bits(u[i]) != math.Float64bits(refU[i]) {
								t.Fatalf("stride=%d classes %d,%d %s nnz=%d avg=%v i=%d: w %v u %v, want %v %v (reference %v %v)",
									stride, c, cr, p.Name, nnz, avg, i, w[i], u[i], two[i], twoU[i], ref[i], refU[i])
							}
						}
					}
					cv(t)
					cw(t)
					cu(t)
				}
			}
		}
	})
}

// sub64 is u[c:], or nil for a nil u.
func sub64(u []float64, c int) []float64 {
	if u == nil {
		return nil
	}
	return u[c:]
}

// TestAxpyAvgPairRejectsClasses: classes equal, negative or not below the
// stride panic before anything is written.
func TestAxpyAvgPairRejectsClasses(t *testing.T) {
	for _, cr := range [][3]int{{0, 0, 2}, {-1, 1, 2}, {0, 2, 2}, {2, 0, 2}, {0, 1, 0}} {
		w := make([]float32, 8)
		mustPanic(t, fmt.Sprint("classes ", cr), func() {
			AxpyAvgPairF32(1, 1, []float32{1}, []int32{0}, cr[2], cr[0], cr[1], w, nil)
		})
		for _, x := range w {
			if x != 0 {
				t.Fatalf("classes %v: w written before the panic: %v", cr, w)
			}
		}
	}
}

func TestAxpyAvgStrideRejectsStride(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("stride 0 did not panic")
		}
	}()
	AxpyAvgStrideF32(1, 1, []float32{1}, []int32{0}, 0, make([]float32, 4), nil)
}
