package kern

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"github.com/hyperplane-ml/hyperplane/asm"
)

// p32Row draws a row of n distinct increasing indices below dim with
// integer values in [0, vmax), packs it with P32Shift(dim) bits into a
// slice that starts off elements into its array, and returns both forms.
func p32Row(t *testing.T, r *rand.Rand, n, dim, vmax, off int) ([]int32, []float32, []uint32, uint) {
	t.Helper()
	sh := P32Shift(dim)
	seen := make(map[int32]bool, n)
	ind := make([]int32, 0, n)
	for len(ind) < n {
		if j := int32(r.IntN(dim)); !seen[j] {
			seen[j] = true
			ind = append(ind, j)
		}
	}
	slices.Sort(ind)
	val := make([]float32, n)
	for k := range n {
		val[k] = float32(r.IntN(vmax))
	}
	p := make([]uint32, n+off)[off:]
	if !PackP32(p, ind, val, sh) {
		t.Fatalf("PackP32 refused a packable row (dim %d, values below %d)", dim, vmax)
	}
	return ind, val, p, sh
}

// TestDotP32SameBits: on every tier the packed dot product gives the bits
// of DotIndF32 over the unpacked row, for rows of 0 to 300 elements at
// unaligned starts, weights in and past the sizes where the kernels
// switch, and values up to the largest the shift allows.
func TestDotP32SameBits(t *testing.T) {
	withTiers(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(91, 92))
		// (8 MiB of weights and one more: past the size where the SIMD
		// tiers switch to scalar loads.)
		for _, dim := range []int{301, 5000, 1 << 17, 2<<20 + 1} {
			w := make([]float32, dim)
			for j := range w {
				w[j] = float32(r.NormFloat64())
			}
			sh := P32Shift(dim)
			for n := 0; n <= 300; n++ {
				vmax := 50
				if n%7 == 0 {
					vmax = 1 << min(24, 32-sh) // exact float32 counts only
				}
				ind, val, p, _ := p32Row(t, r, n, dim, vmax, n%8)
				got := DotP32F32(p, sh, w)
				want := asm.DotIndF32(val, ind, w)
				if math.Float32bits(got) != math.Float32bits(want) {
					t.Fatalf("dim %d, n %d: DotP32F32 = %v, DotIndF32 = %v", dim, n, got, want)
				}
			}
		}
	})
}

// TestAxpyAvgP32SameBits: the packed update leaves w and u bit for bit as
// AxpyAvgF32 leaves them on the unpacked row, on every tier, for rows of 0
// to 300 elements at unaligned starts and weights on both sides of the
// size where the AVX-512 tier stops gathering and scattering.
func TestAxpyAvgP32SameBits(t *testing.T) {
	withTiers(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(93, 94))
		for _, dim := range []int{777, gatherMaxBytes/4 + 1} {
			w1, u1 := make([]float32, dim), make([]float64, dim)
			for j := range w1 {
				w1[j], u1[j] = float32(r.NormFloat64()), r.NormFloat64()
			}
			w2, u2 := slices.Clone(w1), slices.Clone(u1)
			for n := 0; n <= 300; n++ {
				if dim > 777 && n%16 != 0 && n%16 != 15 {
					continue
				}
				ind, val, p, sh := p32Row(t, r, n, dim, 40, n%5)
				a, ca := float32(r.NormFloat64()), r.NormFloat64()*1e5
				asm.AxpyAvgF32(a, ca, val, ind, w1, u1)
				AxpyAvgP32F32(a, ca, p, sh, w2, u2)
				for _, j := range ind {
					if math.Float32bits(w1[j]) != math.Float32bits(w2[j]) || math.Float64bits(u1[j]) != math.Float64bits(u2[j]) {
						t.Fatalf("dim %d, n %d, feature %d: w %v/%v, u %v/%v", dim, n, j, w1[j], w2[j], u1[j], u2[j])
					}
				}
			}
			if !slices.Equal(w1, w2) || !slices.Equal(u1, u2) {
				t.Fatalf("dim %d: a feature outside the rows changed", dim)
			}
		}
	})
}

// TestAxpyAvgP32Repeats: where a row's indices repeat or go down, the
// packed update is still the sequential one, every element added in turn
// (as AxpyAvgF32 adds them), on every tier: a vector whose lanes share an
// index must not be scattered, which would keep one lane's sum and drop
// the others. The repeats fall inside the first, a middle and the last
// vector of sixteen, at either end of one, and across two.
func TestAxpyAvgP32Repeats(t *testing.T) {
	withTiers(t, func(t *testing.T) {
		const dim = 500
		r := rand.New(rand.NewPCG(97, 98))
		for _, n := range []int{24, 31, 32, 33, 48, 64, 100, 160} {
			for _, at := range []int{0, 1, 14, 15, 16, 17, 31, 32, 47, n - 2} {
				if at+1 >= n {
					continue
				}
				for _, down := range []bool{false, true} {
					ind, val, _, sh := p32Row(t, r, n, dim, 40, 0)
					if down {
						ind[at], ind[at+1] = ind[at+1], ind[at] // a step down
					} else {
						ind[at+1] = ind[at] // a repeat
					}
					p := make([]uint32, n)
					if !PackP32(p, ind, val, sh) {
						t.Fatal("PackP32 refused the row")
					}
					w1, u1 := make([]float32, dim), make([]float64, dim)
					for j := range w1 {
						w1[j], u1[j] = float32(r.NormFloat64()), r.NormFloat64()
					}
					w2, u2 := slices.Clone(w1), slices.Clone(u1)
					a, ca := float32(r.NormFloat64()), r.NormFloat64()*1e5
					asm.AxpyAvgF32(a, ca, val, ind, w1, u1)
					AxpyAvgP32F32(a, ca, p, sh, w2, u2)
					NewP32(sh).AxpyAvg(a, ca, p, w2, u2)
					asm.AxpyAvgF32(a, ca, val, ind, w1, u1)
					for j := range w1 {
						if math.Float32bits(w1[j]) != math.Float32bits(w2[j]) || math.Float64bits(u1[j]) != math.Float64bits(u2[j]) {
							t.Fatalf("n %d, %v at %d, feature %d: w %v/%v, u %v/%v", n, map[bool]string{false: "repeat", true: "step down"}[down], at, j, w1[j], w2[j], u1[j], u2[j])
						}
					}
				}
			}
		}
	})
}

// TestAxpyIndP32SameBits: the packed plain update leaves w bit for bit as
// AxpyIndF32 leaves it on the unpacked row, on every tier (the SIMD tiers
// fuse the multiply and the add, the generic one need not), for rows of 0
// to 300 elements at unaligned starts and values up to the largest the
// shift allows.
func TestAxpyIndP32SameBits(t *testing.T) {
	withTiers(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(99, 100))
		for _, dim := range []int{301, 777, 1 << 17} {
			sh := P32Shift(dim)
			for n := 0; n <= 300; n++ {
				vmax := 40
				if n%7 == 0 {
					vmax = 1 << min(24, 32-sh)
				}
				ind, val, p, _ := p32Row(t, r, n, dim, vmax, n%5)
				w1 := make([]float32, dim)
				for j := range w1 {
					w1[j] = float32(r.NormFloat64())
				}
				w2 := slices.Clone(w1)
				a := float32(r.NormFloat64())
				asm.AxpyIndF32(a, val, ind, w1)
				AxpyIndP32F32(a, p, sh, w2)
				for j := range w1 {
					if math.Float32bits(w1[j]) != math.Float32bits(w2[j]) {
						t.Fatalf("dim %d, n %d, feature %d: %v, AxpyIndF32 %v", dim, n, j, w2[j], w1[j])
					}
				}
			}
		}
	})
}

// TestAxpyIndP32Fuses: on the SIMD tiers the packed plain update rounds
// a·v + w once, as AxpyIndF32 does there: with a = 1+2⁻¹², v = 1+2⁻¹² and
// w = −(1+2⁻¹¹), the exact sum is 2⁻²⁴, which a rounded product loses.
func TestAxpyIndP32Fuses(t *testing.T) {
	withTiers(t, func(t *testing.T) {
		const sh = 4
		a := float32(1 + 1.0/4096)
		w := []float32{-(1 + 1.0/2048)}
		// v = 1+2⁻¹² is not an integer; scale: a·v with v = 4097 and
		// a = (1+2⁻¹²)/4096 is the same product.
		a /= 4096
		p := []uint32{4097 << sh} // index 0
		w2 := slices.Clone(w)
		AxpyIndP32F32(a, p, sh, w)
		asm.AxpyIndF32(a, []float32{4097}, []int32{0}, w2)
		if math.Float32bits(w[0]) != math.Float32bits(w2[0]) {
			t.Fatalf("packed %v, unpacked %v", w[0], w2[0])
		}
		if tier() != asm.Generic && w[0] != float32(math.Ldexp(1, -24)) {
			t.Fatalf("SIMD tier: %v, want the fused 2^-24", w[0])
		}
	})
}

// TestPackP32: what packs and what does not, and that a packed row
// unpacks to itself.
func TestPackP32(t *testing.T) {
	for dim, want := range map[int]uint{0: 1, 1: 1, 2: 1, 3: 2, 4: 2, 5: 3, 1 << 20: 20, 1<<20 + 1: 21} {
		if got := P32Shift(dim); got != want {
			t.Errorf("P32Shift(%d) = %d, want %d", dim, got, want)
		}
	}
	const sh = 10
	dst := make([]uint32, 1)
	for _, c := range []struct {
		j    int32
		v    float32
		want bool
	}{
		{0, 0, true}, {1023, 1, true}, {5, 1<<22 - 1, true}, {5, 1 << 22, false},
		{1024, 1, false}, {-1, 1, false}, {3, -1, false}, {3, 0.5, false},
		{3, float32(math.Copysign(0, -1)), false}, {3, float32(math.NaN()), false}, {3, float32(math.Inf(1)), false},
	} {
		got := PackP32(dst, []int32{c.j}, []float32{c.v}, sh)
		if got != c.want {
			t.Errorf("PackP32(index %d, value %v) = %v, want %v", c.j, c.v, got, c.want)
		}
		if got && (int32(dst[0]&(1<<sh-1)) != c.j || float32(dst[0]>>sh) != c.v) {
			t.Errorf("index %d, value %v packed to %#x", c.j, c.v, dst[0])
		}
	}
	mustPanic(t, "short dst", func() { PackP32(nil, []int32{1}, []float32{1}, sh) })
	mustPanic(t, "shift 0", func() { PackP32(dst, []int32{1}, []float32{1}, 0) })
	mustPanic(t, "shift 32", func() { PackP32(dst, []int32{1}, []float32{1}, 32) })
}

// TestP32BadIndex: an index past w panics on every tier and every path of
// the kernel (unrolled loop, single vector, scalar tail, short rows), and
// the weights lie against a page the process may not touch, so a read
// past them would fault instead.
func TestP32BadIndex(t *testing.T) {
	withTiers(t, func(t *testing.T) {
		const lim = 40
		w := fenced32(t, lim, true)
		u := fenced64(t, lim, true)
		sh := uint(10)
		for _, n := range safetyRowLens {
			for pos := range n {
				p := make([]uint32, n)
				for k := range p {
					p[k] = uint32(k%lim) | 3<<sh
				}
				p[pos] = uint32(lim+pos%(1<<sh-lim)) | 1<<sh
				mustPanic(t, "DotP32F32", func() { DotP32F32(p, sh, w) })
				mustPanic(t, "AxpyAvgP32F32", func() { AxpyAvgP32F32(1, 1, p, sh, w, u) })
				mustPanic(t, "AxpyIndP32F32", func() { AxpyIndP32F32(1, p, sh, w) })
				if pos > 3 {
					break
				}
			}
		}
		mustPanic(t, "DotP32F32 shift 0", func() { DotP32F32(nil, 0, w) })
		mustPanic(t, "AxpyIndP32F32 shift 32", func() { AxpyIndP32F32(1, nil, 32, w) })
		PrefetchP32(nil)
		PrefetchP32(make([]uint32, 3))
	})
}

// TestP32StaysInFencedSlices: the packed kernels, on every tier, read and
// write nothing outside the row and the weights they are given, which lie
// against pages the process may not touch.
func TestP32StaysInFencedSlices(t *testing.T) {
	if !fenced {
		t.Skip("no mmap: fenced slices are plain ones here")
	}
	withTiers(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(95, 96))
		for n := 0; n <= 70; n++ {
			for _, atEnd := range []bool{true, false} {
				dim := max(n, 1)
				sh := P32Shift(dim)
				pi := fencedI32(t, n, atEnd)
				p := unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(pi))), n)
				for k := range p {
					p[k] = uint32(r.IntN(dim)) | uint32(r.IntN(9))<<sh
				}
				w, u := fenced32(t, dim, atEnd), fenced64(t, dim, atEnd)
				_ = DotP32F32(p, sh, w)
				AxpyAvgP32F32(0.5, 2, p, sh, w, u)
				AxpyIndP32F32(0.5, p, sh, w)
				PrefetchP32(p)
				ind, val := fencedI32(t, n, atEnd), fenced32(t, n, atEnd)
				for k := range ind {
					ind[k], val[k] = int32(r.IntN(dim)), float32(r.IntN(9))
				}
				dst := unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(fencedI32(t, n, atEnd)))), n)
				if !PackP32(dst, ind, val, sh) {
					t.Fatalf("n %d: a packable row did not pack", n)
				}
			}
		}
	})
}

// TestPackP32Rows: on every tier, whole rows pack to the reference
// encoding, and one element that cannot pack, wherever it lies (in a
// vector of eight or in the rest), makes PackP32 report false.
func TestPackP32Rows(t *testing.T) {
	withTiers(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(97, 98))
		const dim = 1000
		sh := P32Shift(dim)
		for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 40, 63, 300} {
			ind, val, p, _ := p32Row(t, r, n, dim, 1<<(32-sh), 0)
			for k := range p {
				if want := uint32(val[k])<<sh | uint32(ind[k]); p[k] != want {
					t.Fatalf("n %d: p[%d] = %#x, want %#x", n, k, p[k], want)
				}
			}
			bad := []struct {
				name string
				j    int32
				v    float32
			}{
				{"index 1<<sh", 1 << sh, 1}, {"negative index", -1, 1}, {"negative value", 3, -2},
				{"-0", 3, float32(math.Copysign(0, -1))}, {"NaN", 3, float32(math.NaN())}, {"fraction", 3, 2.5},
				{"value 1<<(32-sh)", 3, float32(uint32(1) << (32 - sh))}, {"-2^31", 3, -(1 << 31)}, {"+Inf", 3, float32(math.Inf(1))},
			}
			for pos := range n {
				for _, b := range bad {
					i2, v2 := slices.Clone(ind), slices.Clone(val)
					i2[pos], v2[pos] = b.j, b.v
					if PackP32(make([]uint32, n), i2, v2, sh) {
						t.Fatalf("n %d, position %d, %s: packed", n, pos, b.name)
					}
				}
			}
		}
	})
}

// A pass over packed rows binds the kernels once: the row {1: 3, 4: 1}
// of term counts packs into two uint32s; at example c = 3 a mistake with
// step a = 2 adds a·x to w and c·a·x to u.
func ExampleNewP32() {
	sh := P32Shift(5) // 3 index bits for 5 features
	row := make([]uint32, 2)
	PackP32(row, []int32{1, 4}, []float32{3, 1}, sh)
	kp := NewP32(sh)
	w := []float32{0, 1, 0, 0, 1}
	u := make([]float64, 5)
	fmt.Println(kp.Dot(row, w))
	a, c := float32(2), 3.0
	kp.AxpyAvg(a, c*float64(a), row, w, u)
	fmt.Println(w, u)
	// Output:
	// 4
	// [0 7 0 0 3] [0 18 0 0 6]
}
