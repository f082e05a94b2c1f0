package libsvm

import (
	"bytes"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/internal/readopt"
)

// BenchmarkParseLineIMDB runs lineParser.parseLine alone over the lines of
// imdb.train, uncompressed in memory: the per-line parser's speed without
// blocks, workers, allocation or assembly (BenchmarkParseIMDB has those).
func BenchmarkParseLineIMDB(b *testing.B) {
	raw, err := readAllGzip(imdbPath)
	if err != nil {
		b.Skip("imdb data not available:", err)
	}
	o, _ := readopt.Normalize(sparse.ReadOptions{})
	p := newLineParser(&o)
	var ind []int32
	var val []float32
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		for data := raw; len(data) > 0; {
			ln := data
			if k := bytes.IndexByte(data, '\n'); k >= 0 {
				ln, data = data[:k], data[k+1:]
			} else {
				data = nil
			}
			var le *lineError
			_, ind, val, _, le = p.parseLine(ln, ind[:0], val[:0])
			if le != nil {
				b.Fatal(le.msg)
			}
		}
	}
}
