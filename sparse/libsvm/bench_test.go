package libsvm

import (
	"bytes"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/internal/lineio"
)

// benchCorpus returns a LIBSVM text of about size bytes that looks like a
// bag-of-words data set: about 140 features per row, indices up to 100k
// drawn log-uniformly (small indices are common words), small integer
// counts as values, ±1 labels.
func benchCorpus(size int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	var b []byte
	idx := make([]int, 0, 300)
	for len(b) < size {
		if r.IntN(2) == 0 {
			b = append(b, "-1"...)
		} else {
			b = append(b, '1')
		}
		n := 100 + r.IntN(81)
		idx = idx[:0]
		for range n {
			idx = append(idx, int(math.Pow(100000, r.Float64())))
		}
		slices.Sort(idx)
		idx = slices.Compact(idx)
		for _, k := range idx {
			b = append(b, ' ')
			b = strconv.AppendInt(b, int64(k), 10)
			b = append(b, ':')
			c := 1
			for r.IntN(3) == 0 {
				c++
			}
			b = strconv.AppendInt(b, int64(c), 10)
		}
		b = append(b, '\n')
	}
	return b
}

var (
	corpusOnce sync.Once
	corpus     []byte
)

func getCorpus() []byte {
	corpusOnce.Do(func() { corpus = benchCorpus(20 << 20) })
	return corpus
}

func BenchmarkReadLIBSVM(b *testing.B) {
	data := getCorpus()
	for _, w := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run("workers="+strconv.Itoa(w), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Read(bytes.NewReader(data), sparse.ReadOptions{Workers: w}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkScanner(b *testing.B) {
	data := getCorpus()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		sc := NewScanner(bytes.NewReader(data), sparse.ReadOptions{})
		nnz := 0
		for sc.Scan() {
			_, v := sc.Row()
			nnz += v.NNZ()
		}
		if sc.Err() != nil || nnz == 0 {
			b.Fatal(sc.Err())
		}
	}
}

const imdbPath = "../../shared/data/text/imdb/imdb.train.svm.gz"

// BenchmarkReadIMDB reads the real imdb.train (gzip) from disk.
func BenchmarkReadIMDB(b *testing.B) {
	if _, err := os.Stat(imdbPath); err != nil {
		b.Skip("imdb data not available:", err)
	}
	for _, w := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run("workers="+strconv.Itoa(w), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				d, err := ReadFile(imdbPath, sparse.ReadOptions{Workers: w})
				if err != nil {
					b.Fatal(err)
				}
				if d.X.Rows != 25000 {
					b.Fatalf("rows = %d", d.X.Rows)
				}
			}
		})
	}
}

// BenchmarkParseIMDB parses the real imdb.train uncompressed from memory:
// the parser's MB/s per core, without the disk or gzip.
func BenchmarkParseIMDB(b *testing.B) {
	raw, err := readAllGzip(imdbPath)
	if err != nil {
		b.Skip("imdb data not available:", err)
	}
	for _, w := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run("workers="+strconv.Itoa(w), func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				if _, err := Read(bytes.NewReader(raw), sparse.ReadOptions{Workers: w}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(raw))/1e6/(b.Elapsed().Seconds()/float64(b.N))/float64(w), "MB/s/core")
		})
	}
}

// BenchmarkValidateIMDB: Validate over imdb.train (3.5M nonzeros), the
// check Fit runs before training.
func BenchmarkValidateIMDB(b *testing.B) {
	d, err := ReadFile(imdbPath, sparse.ReadOptions{})
	if err != nil {
		b.Skip("imdb data not available:", err)
	}
	b.SetBytes(d.X.NNZ() * 8)
	for b.Loop() {
		if err := d.X.Validate(); err != nil {
			b.Fatal(err)
		}
	}
}

func readAllGzip(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	src, err := lineio.Open(f)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(src)
}

func BenchmarkWriteLIBSVM(b *testing.B) {
	d, err := Read(bytes.NewReader(getCorpus()), sparse.ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(getCorpus())))
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := Write(&buf, d); err != nil {
			b.Fatal(err)
		}
	}
}
