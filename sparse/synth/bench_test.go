package synth

import (
	"fmt"
	"math/rand"
	"runtime"
	"testing"
)

// BenchmarkText generates 100000 imdb-sized rows (75 nonzeros on average
// over 2^20 features) with one worker and with GOMAXPROCS, reporting the
// time per nonzero and the rows per second (setup included: the Zipf
// table, the separator and the pilot rows take a few tens of ms).
func BenchmarkText(b *testing.B) {
	for _, w := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			cfg := Text{Rows: 100000, Seed: 1, Workers: w}
			var nnz int64
			for b.Loop() {
				d, err := cfg.Generate()
				if err != nil {
					b.Fatal(err)
				}
				nnz += d.X.NNZ()
			}
			ns := float64(b.Elapsed().Nanoseconds())
			b.ReportMetric(ns/float64(nnz), "ns/nnz")
			b.ReportMetric(float64(b.N)*float64(cfg.Rows)/(ns/1e9), "rows/s")
		})
	}
}

// BenchmarkZipf compares the tabulated sampler with math/rand's Zipf over
// 2^20 ranks with exponent 1.1.
func BenchmarkZipf(b *testing.B) {
	b.Run("table", func(b *testing.B) {
		z := newZipf(1<<20, 1.1)
		r := seedRNG(1, 0, 0)
		s := 0
		for b.Loop() {
			s += z.draw(&r)
		}
		sink = s
	})
	b.Run("math/rand", func(b *testing.B) {
		z := rand.NewZipf(rand.New(rand.NewSource(1)), 1.1, 1, 1<<20-1)
		var s uint64
		for b.Loop() {
			s += z.Uint64()
		}
		sink = int(s)
	})
}

var sink int

// BenchmarkWriteLIBSVM streams 50000 imdb-sized rows as LIBSVM text to
// io.Discard on all cores.
func BenchmarkWriteLIBSVM(b *testing.B) {
	cfg := Text{Rows: 50000, Seed: 1}
	var n int64
	for b.Loop() {
		var cw countWriter
		if err := cfg.WriteLIBSVM(&cw); err != nil {
			b.Fatal(err)
		}
		n += int64(cw)
	}
	b.SetBytes(n / int64(b.N))
}

type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) {
	*c += countWriter(len(p))
	return len(p), nil
}
