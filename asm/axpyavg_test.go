package asm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
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
