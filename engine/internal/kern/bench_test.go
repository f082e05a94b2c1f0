package kern

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hyperplane-ml/hyperplane/asm"
)

// The packed updates' benchmarks, beside bench's BenchmarkAxpyIndF32 and
// kin over the same kind of rows unpacked: 75 nonzeros per row as in
// text, with small integer counts; weights of 47k features (held in
// cache, the rcv1 width), 1M (4 MiB) and 4M (16 MiB). Each iteration
// walks 1024 different rows, with indices drawn from a Zipf law as word
// ranks are ("zipf") or uniformly ("uniform", every weight a likely cache
// miss); "hot" repeats one row, so that only the arithmetic is measured.

const benchRows, benchNNZ = 1024, 75

// packedCase is a block of packed rows over dim features.
type packedCase struct {
	name string
	dim  int
	sh   uint
	p    []uint32
}

func packedCases(b *testing.B, seed uint64) []packedCase {
	r := rand.New(rand.NewPCG(2, seed))
	var cs []packedCase
	for _, dim := range []int{47_236, 1 << 20, 4 << 20} {
		z := rand.NewZipf(r, 1.1, 1, uint64(dim-1))
		for _, layout := range []string{"zipf", "uniform", "hot"} {
			sh := P32Shift(dim)
			p := make([]uint32, 0, benchRows*benchNNZ)
			row := make([]int32, 0, benchNNZ)
			val := make([]float32, benchNNZ)
			for range benchRows {
				if layout == "hot" && len(p) > 0 {
					p = append(p, p[:benchNNZ]...)
					continue
				}
				row = row[:0]
				for len(row) < benchNNZ {
					j := int32(r.IntN(dim))
					if layout == "zipf" {
						j = int32(z.Uint64())
					}
					if !slices.Contains(row, j) {
						row = append(row, j)
					}
				}
				slices.Sort(row)
				for k := range val {
					val[k] = float32(1 + r.IntN(3))
				}
				q := make([]uint32, benchNNZ)
				if !PackP32(q, row, val, sh) {
					b.Fatal("the rows do not pack")
				}
				p = append(p, q...)
			}
			cs = append(cs, packedCase{fmt.Sprintf("nnz=%d/dim=%d/%s", benchNNZ, dim, layout), dim, sh, p})
		}
	}
	return cs
}

// benchTiers runs f as a sub-benchmark per SIMD tier, forcing the tier
// through asm (benchmarks run one at a time, so the switch is safe).
func benchTiers(b *testing.B, f func(b *testing.B)) {
	defer func(t asm.Tier) { _ = asm.SetTier(t) }(asm.Active())
	for _, t := range asm.Tiers() {
		if err := asm.SetTier(t); err != nil {
			b.Fatal(err)
		}
		b.Run(t.String(), f)
	}
}

func randWeights(r *rand.Rand, n int) []float32 {
	w := make([]float32, n)
	for i := range w {
		w[i] = float32(r.NormFloat64())
	}
	return w
}

// BenchmarkAxpyAvgP32F32 is the averaged perceptron's update over packed
// rows (PackP32: index and count in one uint32), the update of every
// mistake of a packed epoch: w += a·x and u += ca·x in float32 and float64.
func BenchmarkAxpyAvgP32F32(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 5))
	for _, c := range packedCases(b, 5) {
		w := randWeights(r, c.dim)
		u := make([]float64, c.dim)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.p) * 4))
			benchTiers(b, func(b *testing.B) {
				for b.Loop() {
					for i := 0; i < len(c.p); i += benchNNZ {
						AxpyAvgP32F32(1e-6, 1e-3, c.p[i:i+benchNNZ], c.sh, w, u)
					}
				}
			})
		})
	}
}

// BenchmarkAxpyIndP32F32 is the plain perceptron's update over packed
// rows, w += a·x with the multiply and add fused as asm.AxpyIndF32 fuses
// them: the update of every mistake of a packed plain epoch, beside
// bench's BenchmarkAxpyIndF32 over rows of the same kind unpacked.
func BenchmarkAxpyIndP32F32(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 6))
	for _, c := range packedCases(b, 6) {
		w := randWeights(r, c.dim)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.p) * 4))
			benchTiers(b, func(b *testing.B) {
				for b.Loop() {
					for i := 0; i < len(c.p); i += benchNNZ {
						AxpyIndP32F32(1e-6, c.p[i:i+benchNNZ], c.sh, w)
					}
				}
			})
		})
	}
}
