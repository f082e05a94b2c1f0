package asm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAverageMatchesReference: on every tier AverageF32 and QuotientF32
// write the reference loop's bits for every length 0..300 at unaligned
// offsets, including values that round to ±0, huge and tiny quotients,
// and write nothing outside dst.
func TestAverageMatchesReference(t *testing.T) {
	forTiers(t, func(t *testing.T, k *kernelSet) {
		r := rand.New(rand.NewPCG(51, 52))
		for n := 0; n <= maxLen; n++ {
			w, cw := guarded32(r, n, n%4)
			u, cu := guarded64(r, n, (n+1)%4)
			for i := range u {
				switch r.IntN(8) {
				case 0:
					u[i] = 0
				case 1:
					u[i] = math.Ldexp(u[i], 200) // overflows float32 after the division
				case 2:
					u[i] = math.Ldexp(u[i], -200) // underflows
				default:
					u[i] *= 1e4
				}
			}
			c := float64(1 + r.IntN(1<<20))
			dst, cd := guarded32(r, n, (n+2)%4)
			want := make([]float32, n)
			averageF32Generic(want, w, u, c)
			k.averageF32(dst, w, u, c)
			for i := range dst {
				if math.Float32bits(dst[i]) != math.Float32bits(want[i]) {
					t.Fatalf("average n=%d i=%d: %v, want %v", n, i, dst[i], want[i])
				}
			}
			quotientF32Generic(want, u, c)
			k.quotientF32(dst, u, c)
			for i := range dst {
				if math.Float32bits(dst[i]) != math.Float32bits(want[i]) {
					t.Fatalf("quotient n=%d i=%d: %v, want %v", n, i, dst[i], want[i])
				}
			}
			cw(t)
			cu(t)
			cd(t)
		}
	})
}

// TestAverageReference pins the reference: the division happens in
// float64 before the subtraction, and only the result is rounded to
// float32.
func TestAverageReference(t *testing.T) {
	dst := make([]float32, 1)
	averageF32Generic(dst, []float32{1}, []float64{1}, 3)
	if want := float32(1 - 1.0/3); dst[0] != want {
		t.Fatalf("got %v, want %v", dst[0], want)
	}
	quotientF32Generic(dst, []float64{2}, 3)
	if want := float32(2.0 / 3); dst[0] != want {
		t.Fatalf("got %v, want %v", dst[0], want)
	}
}
