package asmtest

import (
	"math"
	"math/rand/v2"
	"testing"
)

// GuardLen is the number of guard elements on either side of a guarded
// slice.
const GuardLen = 16

// GuardF32 and GuardF64 fill the guards: NaNs with a payload, which a
// kernel that read them would carry into its result.
var (
	GuardF32 = math.Float32frombits(0x7fc0dead)
	GuardF64 = math.Float64frombits(0x7ff8_0000_dead_beef)
)

// Guarded32 returns a slice of n random values that starts off elements
// past a 64-byte-aligned-ish base, inside a buffer whose GuardLen elements
// on either side hold GuardF32, and a check that the guards are intact.
func Guarded32(r *rand.Rand, n, off int) ([]float32, func(t *testing.T)) {
	return guarded(r, n, off, GuardF32, func(v float32) uint64 { return uint64(math.Float32bits(v)) })
}

// Guarded64 is Guarded32 in float64, with GuardF64 in the guards.
func Guarded64(r *rand.Rand, n, off int) ([]float64, func(t *testing.T)) {
	return guarded(r, n, off, GuardF64, math.Float64bits)
}

// guarded is Guarded32 and Guarded64, with guard in the guards, which it
// compares by their bits.
func guarded[T float32 | float64](r *rand.Rand, n, off int, guard T, bits func(T) uint64) ([]T, func(t *testing.T)) {
	buf := make([]T, n+off+2*GuardLen)
	for i := range buf {
		buf[i] = guard
	}
	s := buf[GuardLen+off : GuardLen+off+n : GuardLen+off+n]
	for i := range s {
		s[i] = T(r.NormFloat64())
	}
	return s, func(t *testing.T) {
		t.Helper()
		for i, v := range buf {
			if i >= GuardLen+off && i < GuardLen+off+n {
				continue
			}
			if bits(v) != bits(guard) {
				t.Fatalf("guard element %d overwritten with %v (n=%d off=%d)", i, v, n, off)
			}
		}
	}
}

// Close32 reports whether got is within the rounding error a sum of n
// products with magnitude sum mag can have in float32.
func Close32(got, want, mag float32, n int) bool {
	tol := float64(mag)*float64(n+4)*1.2e-7 + 1e-30
	return math.Abs(float64(got)-float64(want)) <= tol
}

// Close64 is Close32 in float64.
func Close64(got, want, mag float64, n int) bool {
	tol := mag*float64(n+4)*2.3e-16 + 1e-300
	return math.Abs(got-want) <= tol
}

// MaxLen is the longest slice the kernels are tested at every length up
// to.
const MaxLen = 300
