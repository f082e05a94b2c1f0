package asm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// TestAxpyAvgMatchesReference: on every tier the averaged update gives the
// reference loop's bits (a fused multiply-add would not), for all lengths
// 0..300, every index pattern (repeats included), unaligned slices, and
// writes nothing outside w and u.
func TestAxpyAvgMatchesReference(t *testing.T) {
	forTiers(t, func(t *testing.T, k *kernelSet) {
		r := rand.New(rand.NewPCG(21, 22))
		for _, p := range indexPatterns {
			for nnz := 0; nnz <= maxLen; nnz++ {
				dim := maxLen + 1 + r.IntN(50)
				ind := p.Gen(r, nnz, dim)
				val, cv := guarded32(r, nnz, nnz%4)
				w, cw := guarded32(r, dim, (nnz+1)%4)
				u, cu := guarded64(r, dim, (nnz+2)%4)
				a, ca := float32(r.NormFloat64()), r.NormFloat64()*1e3
				ww, wu := append([]float32(nil), w...), append([]float64(nil), u...)
				axpyAvgF32Generic(a, ca, val, ind, ww, wu)
				k.axpyAvgF32(a, ca, val, ind, w, u)
				for i := range w {
					if math.Float32bits(w[i]) != math.Float32bits(ww[i]) || math.Float64bits(u[i]) != math.Float64bits(wu[i]) {
						t.Fatalf("%s nnz=%d i=%d: w %v u %v, want %v %v", p.Name, nnz, i, w[i], u[i], ww[i], wu[i])
					}
				}
				cv(t)
				cw(t)
				cu(t)
			}
		}
	})
}

// TestAxpyAvgReferenceRounds pins the reference itself: each product is
// rounded before the add. Values are picked where fusing would differ.
func TestAxpyAvgReferenceRounds(t *testing.T) {
	a, v := float32(1+0x1p-12), float32(1+0x1p-12)
	w := []float32{-1}
	u := []float64{-1}
	axpyAvgF32Generic(a, 1+0x1p-30, []float32{v}, []int32{0}, w, u)
	if want := float32(a*v) - 1; w[0] != want {
		t.Fatalf("w = %v, want the rounded product's %v", w[0], want)
	}
	if d := float64(1+0x1p-30) * float64(v); u[0] != float64(d)-1 {
		t.Fatalf("u = %v, want %v", u[0], float64(d)-1)
	}
}

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

// The averaged perceptron's update: at example c = 3, a mistake on the row
// {1: 1.5, 4: 0.5} with step a = 2 adds a·x to w and c·a·x to u; the
// averaged weights are then w − u/c.
func ExampleAxpyAvgF32() {
	w := []float32{0, 1, 0, 0, 1}
	u := make([]float64, 5)
	a, c := float32(2), 3.0
	AxpyAvgF32(a, c*float64(a), []float32{1.5, 0.5}, []int32{1, 4}, w, u)
	fmt.Println(w, u)
	// Output:
	// [0 4 0 0 2] [0 9 0 0 3]
}

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

// TestAxpyAvgDenseMatchesSparse: on every tier the dense averaged update
// leaves in w and u the bits that the reference sparse update leaves over
// the indices 0…n−1, for all lengths 0..300, unaligned x, w and u, w and
// u longer than x (the rest untouched), and writes nothing outside them.
// Half the rounds use values where a fused multiply-add would round
// differently.
func TestAxpyAvgDenseMatchesSparse(t *testing.T) {
	forTiers(t, func(t *testing.T, k *kernelSet) {
		r := rand.New(rand.NewPCG(27, 28))
		for n := 0; n <= maxLen; n++ {
			for _, fusable := range []bool{false, true} {
				extra := r.IntN(20)
				x, cx := guarded32(r, n, n%8)
				w, cw := guarded32(r, n+extra, (n+3)%8)
				u, cu := guarded64(r, n+extra, (n+5)%4)
				a, ca := float32(r.NormFloat64()), r.NormFloat64()*1e3
				if fusable {
					a, ca = 1+0x1p-12, 1+0x1p-30
					for i := range x {
						x[i], w[i], u[i] = 1+0x1p-12, -1, -1
					}
				}
				ind := make([]int32, n)
				for i := range ind {
					ind[i] = int32(i)
				}
				ww, wu := append([]float32(nil), w...), append([]float64(nil), u...)
				axpyAvgF32Generic(a, ca, x, ind, ww, wu)
				k.axpyAvgDenseF32(a, ca, x, w, u)
				for i := range w {
					if math.Float32bits(w[i]) != math.Float32bits(ww[i]) || math.Float64bits(u[i]) != math.Float64bits(wu[i]) {
						t.Fatalf("n=%d fusable=%v i=%d: w %v u %v, want %v %v", n, fusable, i, w[i], u[i], ww[i], wu[i])
					}
				}
				cx(t)
				cw(t)
				cu(t)
			}
		}
	})
}

// TestAxpyAvgDenseShortSlices: w or u shorter than x panics on every
// tier, before anything is written.
func TestAxpyAvgDenseShortSlices(t *testing.T) {
	withTiers(t, func(t *testing.T) {
		for _, n := range []int{1, 7, 8, 9, 16, 17, 100} {
			x := fenced32(t, n, true)
			for _, c := range []struct{ nw, nu int }{{n - 1, n}, {n, n - 1}, {0, 0}, {n - 1, n + 5}} {
				w, u := fenced32(t, c.nw, true), fenced64(t, c.nu, true)
				for i := range w {
					w[i] = 7
				}
				mustPanic(t, fmt.Sprintf("AxpyAvgDenseF32 n=%d len(w)=%d len(u)=%d", n, c.nw, c.nu), func() {
					AxpyAvgDenseF32(1, 1, x, w, u)
				})
				for i, v := range w {
					if v != 7 {
						t.Fatalf("n=%d: w[%d] written before the panic", n, i)
					}
				}
			}
		}
	})
}

// The averaged perceptron's update on a dense row: at example c = 3, a
// mistake on the row (0, 1.5, 0, 0.5) with step a = 2 adds a·x to w and
// c·a·x to u, as AxpyAvgF32 does over that row's nonzeros.
func ExampleAxpyAvgDenseF32() {
	w := []float32{0, 1, 0, 1}
	u := make([]float64, 4)
	a, c := float32(2), 3.0
	AxpyAvgDenseF32(a, c*float64(a), []float32{0, 1.5, 0, 0.5}, w, u)
	fmt.Println(w, u)
	// Output:
	// [0 4 0 2] [0 9 0 3]
}
