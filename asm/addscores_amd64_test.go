//go:build amd64 && !noasm

package asm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAddScoresKernel: the AVX-512 and AVX2 kernels give the portable
// loop's scores bit for bit for every class count around their 8-, 16-
// and 32-lane chunks, rows of 0..40 nonzeros with any indices, unaligned
// and guarded s and W, and write no score past K.
func TestAddScoresKernel(t *testing.T) {
	for _, k := range []struct {
		tier Tier
		run  func(W []float32, ind []int32, val []float32, s []float32)
	}{{AVX512, addScoresAVX512Checked}, {AVX2, addScoresAVX2Checked}} {
		t.Run(k.tier.String(), func(t *testing.T) {
			if !Supported(k.tier) {
				t.Skipf("no %v on this CPU: the kernel cannot run", k.tier)
			}
			testAddScoresKernel(t, k.run)
		})
	}
}

func testAddScoresKernel(t *testing.T, kernel func(W []float32, ind []int32, val []float32, s []float32)) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, K := range []int{1, 2, 3, 7, 8, 9, 15, 16, 17, 20, 23, 24, 25, 31, 32, 33, 40, 47, 48, 52, 57, 64, 65, 100} {
		for nnz := 0; nnz <= 40; nnz++ {
			dim := 1 + r.IntN(60)
			ind := make([]int32, nnz)
			for i := range ind {
				ind[i] = int32(r.IntN(dim))
			}
			val, cv := guarded32(r, nnz, nnz%4)
			W, cW := guarded32(r, dim*K, (nnz+1)%4)
			s, cs := guarded32(r, K, (nnz+2)%4)
			want := append([]float32(nil), s...)
			addScoresF32Generic(W, ind, val, want)
			kernel(W, ind, val, s)
			for c := range s {
				if math.Float32bits(s[c]) != math.Float32bits(want[c]) {
					t.Fatalf("K=%d nnz=%d class %d: %v, want %v", K, nnz, c, s[c], want[c])
				}
			}
			cv(t)
			cW(t)
			cs(t)
		}
	}
}
