package hpc

import (
	"bufio"
	"hash/crc32"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

// The cache benchmarks share one generated data set of about 100 MB in
// cache form: bag-of-words-like rows of 100..180 nonzeros with indices up
// to 100k drawn log-uniformly, small integer values, ±1 labels.
//
//	go test -run '^$' -bench 'File|Memcpy' -benchtime 5x ./sparse/

var (
	cacheBenchOnce sync.Once
	cacheBenchData *sparse.Dataset
)

// cacheBench returns the benchmark data set and its cache file, written
// to b.TempDir(), with the file's size.
func cacheBench(b *testing.B) (*sparse.Dataset, string, int64) {
	b.Helper()
	cacheBenchOnce.Do(func() {
		r := rand.New(rand.NewPCG(1, 2))
		bl := sparse.NewBuilder(100000)
		var y []float64
		var ind []int32
		var val []float32
		var nnz int64
		for bl.Len() == 0 || nnz*8 < 100<<20 {
			ind, val = ind[:0], val[:0]
			for range 100 + r.IntN(81) {
				ind = append(ind, int32(math.Pow(100000, r.Float64())))
			}
			slices.Sort(ind)
			ind = slices.Compact(ind)
			for range ind {
				c := float32(1)
				for r.IntN(3) == 0 {
					c++
				}
				val = append(val, c)
			}
			if err := bl.Add(ind, val); err != nil {
				panic(err)
			}
			nnz += int64(len(ind))
			y = append(y, float64(2*r.IntN(2)-1))
		}
		cacheBenchData = &sparse.Dataset{X: bl.Build(), Y: y}
	})
	path := filepath.Join(b.TempDir(), "bench.hpc")
	if err := sparse.WriteFile(path, cacheBenchData); err != nil {
		b.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return cacheBenchData, path, fi.Size()
}

func BenchmarkCacheWrite(b *testing.B) {
	d, _, size := cacheBench(b)
	b.Run("discard", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			if err := Write(io.Discard, d); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("file", func(b *testing.B) {
		path := filepath.Join(b.TempDir(), "w.hpc")
		b.SetBytes(size)
		for b.Loop() {
			f, err := os.Create(path)
			if err != nil {
				b.Fatal(err)
			}
			w := bufio.NewWriterSize(f, 1<<16)
			if err := Write(w, d); err != nil {
				b.Fatal(err)
			}
			if err := w.Flush(); err != nil {
				b.Fatal(err)
			}
			f.Close()
		}
	})
}

func BenchmarkCacheLoad(b *testing.B) {
	_, path, size := cacheBench(b)
	for _, mapped := range []bool{false, true} {
		name := "read"
		if mapped {
			name = "mmap"
		}
		b.Run(name, func(b *testing.B) {
			c, err := Open(path, Options{Map: mapped})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			b.SetBytes(size)
			for b.Loop() {
				if _, err := c.Load(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCacheReadBlock streams every block of the cache, in order, into
// one reused Block on one goroutine, and reports ns per nonzero.
// "first" opens the cache afresh for each pass, so that every block is
// value-checked; the other passes reuse the File, whose blocks were
// checked on their first read and now cost only the checksum.
func BenchmarkCacheReadBlock(b *testing.B) {
	_, path, size := cacheBench(b)
	for _, tc := range []struct {
		name                string
		mapped, skip, fresh bool
	}{
		{"read/first", false, false, true},
		{"read", false, false, false},
		{"read/skipvaluechecks", false, true, true},
		{"mmap/first", true, false, true},
		{"mmap", true, false, false},
		{"mmap/skipvaluechecks", true, true, true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			opt := Options{Map: tc.mapped, SkipValueChecks: tc.skip}
			c, err := Open(path, opt)
			if err != nil {
				b.Fatal(err)
			}
			defer func() { c.Close() }()
			var blk Block
			b.SetBytes(size)
			for b.Loop() {
				if tc.fresh {
					c.Close()
					if c, err = Open(path, opt); err != nil {
						b.Fatal(err)
					}
				}
				for i := range c.NumBlocks() {
					if err := c.ReadBlock(i, &blk); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(c.NNZ()), "ns/nnz")
		})
	}
}

// BenchmarkCacheParts times the passes ReadBlock makes over a block's
// bytes, on the whole file in memory: the checksum and the value checks.
func BenchmarkCacheParts(b *testing.B) {
	_, path, size := cacheBench(b)
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("crc32c", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			crc32.Checksum(data, castagnoli)
		}
	})
	c, err := Open(path, Options{Map: true})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	blocks := make([]Block, c.NumBlocks())
	for i := range blocks {
		if err := c.ReadBlock(i, &blocks[i]); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("checks", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			for i := range blocks {
				if err := blocks[i].check(&c.checks); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// BenchmarkMemcpy copies as many bytes as the cache file holds, the
// bound for reading it.
func BenchmarkMemcpy(b *testing.B) {
	_, _, size := cacheBench(b)
	src := make([]byte, size)
	dst := make([]byte, size)
	for i := range src {
		src[i] = byte(i)
	}
	b.SetBytes(size)
	for b.Loop() {
		copy(dst, src)
	}
}

// perceptronPass runs one perceptron epoch over the rows rows yields and
// returns the number of mistakes.
func perceptronPass(w []float32, rows func(yield func(y float64, x sparse.Vector) bool)) int {
	mistakes := 0
	for y, x := range rows {
		s := x.Dot(w)
		if (s > 0) != (y > 0) {
			mistakes++
			x.AddTo(w, float32(y))
		}
	}
	return mistakes
}

// BenchmarkCacheEpoch compares one perceptron epoch over the data set in
// memory with one streamed from the cache by a Scanner (read ahead
// on another goroutine): the first epoch over a freshly opened File,
// which value-checks every block, and the later ones.
func BenchmarkCacheEpoch(b *testing.B) {
	d, path, _ := cacheBench(b)
	nnz := float64(d.X.NNZ())
	b.Run("memory", func(b *testing.B) {
		w := make([]float32, d.X.Cols)
		for b.Loop() {
			perceptronPass(w, func(yield func(float64, sparse.Vector) bool) {
				for i := range d.X.Rows {
					if !yield(d.Y[i], d.X.Row(i)) {
						return
					}
				}
			})
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/nnz, "ns/nnz")
	})
	for _, tc := range []struct {
		name          string
		mapped, fresh bool
	}{
		{"scanner/read/first", false, true},
		{"scanner/read", false, false},
		{"scanner/mmap/first", true, true},
		{"scanner/mmap", true, false},
	} {
		b.Run(tc.name, func(b *testing.B) {
			opt := Options{Map: tc.mapped}
			c, err := Open(path, opt)
			if err != nil {
				b.Fatal(err)
			}
			defer func() { c.Close() }()
			w := make([]float32, c.Cols())
			for b.Loop() {
				if tc.fresh {
					c.Close()
					if c, err = Open(path, opt); err != nil {
						b.Fatal(err)
					}
				}
				sc := c.Scanner()
				perceptronPass(w, func(yield func(float64, sparse.Vector) bool) {
					for sc.Scan() {
						if !yield(sc.Row()) {
							return
						}
					}
				})
				if err := sc.Err(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/nnz, "ns/nnz")
		})
	}
}
