//go:build amd64 && !noasm

package asm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestGatherKernelsAllLengths checks the gather kernels themselves at every
// length 0..300: the Sized wrappers that tiers dispatch to send rows
// shorter than gatherMinLen (and weights past gatherMaxBytes) to the
// scalar loop, so the kernels' short and masked paths would otherwise go
// untested. (engine/internal/kern tests its interleaved twins the same way.)
func TestGatherKernelsAllLengths(t *testing.T) {
	type kernels struct {
		name  string
		ok    bool
		dot   func(val []float32, ind []int32, w []float32) float32
		dot64 func(val []float64, ind []int32, w []float64) float64
	}
	for _, k := range []kernels{
		{"avx2", Supported(AVX2), rawDot(dotIndF32AVX2), rawDot64(dotIndF64AVX2)},
		{"avx512", Supported(AVX512), rawDot(dotIndF32AVX512), rawDot64(dotIndF64AVX512)},
	} {
		t.Run(k.name, func(t *testing.T) {
			if !k.ok {
				t.Skip("not supported on this CPU")
			}
			r := rand.New(rand.NewPCG(41, 42))
			for _, p := range indexPatterns {
				for nnz := 0; nnz <= maxLen; nnz++ {
					dim := maxLen + 1 + r.IntN(50)
					ind := p.Gen(r, nnz, dim)
					w, cw := guarded32(r, dim, nnz%4)
					val, cv := guarded32(r, nnz, (nnz+1)%4)
					var mag float32
					for i := range val {
						mag += float32(math.Abs(float64(val[i] * w[ind[i]])))
					}
					got, want := k.dot(val, ind, w), dotIndGeneric(val, ind, w)
					if !close32(got, want, mag, nnz) {
						t.Fatalf("%s nnz=%d: dotInd %v, reference %v", p.Name, nnz, got, want)
					}
					w64, cw64 := guarded64(r, dim, nnz%4)
					val64, cv64 := guarded64(r, nnz, (nnz+3)%4)
					var mag64 float64
					for i := range val64 {
						mag64 += math.Abs(val64[i] * w64[ind[i]])
					}
					if got, want := k.dot64(val64, ind, w64), dotIndGeneric(val64, ind, w64); !close64(got, want, mag64, nnz) {
						t.Fatalf("%s nnz=%d: dotIndF64 %v, reference %v", p.Name, nnz, got, want)
					}
					cw(t)
					cv(t)
					cw64(t)
					cv64(t)
				}
			}
		})
	}
}

// TestShortRowsTakeTheLoop: below gatherMinLen the dispatched dot product
// is the scalar loop's, bit for bit, on every tier; at gatherMinLen and
// above it is the gather kernel's.
func TestShortRowsTakeTheLoop(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	for _, tier := range Tiers() {
		k := kernelsFor(tier)
		raw := map[Tier]func(val []float32, ind []int32, w []float32) float32{
			AVX2: rawDot(dotIndF32AVX2), AVX512: rawDot(dotIndF32AVX512),
		}[tier]
		if raw == nil {
			continue
		}
		for nnz := 1; nnz <= gatherMinLen+8; nnz++ {
			ind := indexPatterns[0].Gen(r, nnz, 1000)
			w, _ := guarded32(r, 1000, 0)
			val, _ := guarded32(r, nnz, 0)
			want := raw(val, ind, w)
			if nnz < gatherMinLen {
				want = dotIndGeneric(val, ind, w)
			}
			if got := k.dotIndF32(val, ind, w); math.Float32bits(got) != math.Float32bits(want) {
				t.Fatalf("%v nnz=%d: dispatched %v, want %v", tier, nnz, got, want)
			}
		}
	}
}

// TestDotRowsEqualsDotInd: on every tier a DotRows block gives every row
// the bits DotInd gives it alone, for blocks mixing rows on both sides of
// gatherMinLen (runs of short and long rows, empty rows) and for weights
// on both sides of gatherMaxBytes. The raw kernels must agree with the
// raw gathers row by row too.
func TestDotRowsEqualsDotInd(t *testing.T) {
	r := rand.New(rand.NewPCG(45, 46))
	lens := []int{0, 3, 40, 41, 23, 24, 25, 1, 2, 60, 0, 30, 31, 5, 100, 7, 8, 9, 24, 23}
	for _, dim := range []int{1000, gatherMaxBytes/8 + 1, gatherMaxBytes/4 + 1} {
		w := make([]float32, dim)
		w64 := make([]float64, dim)
		for i := range w {
			w[i] = float32(r.NormFloat64())
			w64[i] = r.NormFloat64()
		}
		indptr := []int64{0}
		var ind []int32
		var val []float32
		var val64 []float64
		for _, n := range lens {
			ind = append(ind, indexPatterns[0].Gen(r, n, dim)...)
			for range n {
				val = append(val, float32(r.NormFloat64()))
				val64 = append(val64, r.NormFloat64())
			}
			indptr = append(indptr, int64(len(ind)))
		}
		rows := len(lens)
		forTiers(t, func(t *testing.T, k *kernelSet) {
			out := make([]float32, rows)
			out64 := make([]float64, rows)
			k.dotRowsF32(indptr, ind, val, w, out)
			k.dotRowsF64(indptr, ind, val64, w64, out64)
			for i := range rows {
				lo, hi := indptr[i], indptr[i+1]
				if want := k.dotIndF32(val[lo:hi], ind[lo:hi], w); math.Float32bits(out[i]) != math.Float32bits(want) {
					t.Fatalf("dim=%d row %d (%d nonzeros): DotRowsF32 %v, DotIndF32 %v", dim, i, hi-lo, out[i], want)
				}
				if want := k.dotIndF64(val64[lo:hi], ind[lo:hi], w64); math.Float64bits(out64[i]) != math.Float64bits(want) {
					t.Fatalf("dim=%d row %d (%d nonzeros): DotRowsF64 %v, DotIndF64 %v", dim, i, hi-lo, out64[i], want)
				}
			}
		})
		raw := []struct {
			ok   bool
			rows func(indptr []int64, ind []int32, val, w, out []float32)
			dot  func(val []float32, ind []int32, w []float32) float32
		}{{Supported(AVX2), rawRows(dotRowsF32AVX2), rawDot(dotIndF32AVX2)}, {Supported(AVX512), rawRows(dotRowsF32AVX512), rawDot(dotIndF32AVX512)}}
		for _, k := range raw {
			if !k.ok || dim != 1000 {
				continue
			}
			out := make([]float32, rows)
			k.rows(indptr, ind, val, w, out)
			for i := range rows {
				lo, hi := indptr[i], indptr[i+1]
				if want := k.dot(val[lo:hi], ind[lo:hi], w); math.Float32bits(out[i]) != math.Float32bits(want) {
					t.Fatalf("raw kernels, row %d: dotRows %v, dotInd %v", i, out[i], want)
				}
			}
		}
	}
}
