package libsvm

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/internal/sparsetest"
)

// chunked is a read's options and the size of the blocks Read cuts its
// input into (0: the default), which tests shrink to exercise the block
// boundaries.
type chunked struct {
	sparse.ReadOptions
	chunk int
}

// scanAll reads r with a Scanner into a Dataset, for comparison with
// Read.
func scanAll(r io.Reader, opt sparse.ReadOptions) (*sparse.Dataset, error) {
	return scanAllChunk(r, opt, 0)
}

// scanAllChunk is scanAll with a Scanner whose first buffer is chunk
// bytes (0: the default).
func scanAllChunk(r io.Reader, opt sparse.ReadOptions, chunk int) (*sparse.Dataset, error) {
	sc := newScanner(r, opt, chunk)
	b := sparse.NewBuilder(opt.Dim)
	var y []float64
	var qid []int64
	has := false
	for sc.Scan() {
		label, v := sc.Row()
		if opt.Dim > 0 && v.Dim != opt.Dim {
			return nil, fmt.Errorf("scanner Dim %d, want %d", v.Dim, opt.Dim)
		}
		if err := b.Add(v.Ind, v.Val); err != nil {
			return nil, err
		}
		y = append(y, label)
		q, ok := sc.QID()
		qid = append(qid, q)
		has = has || ok
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if y == nil {
		y = []float64{}
	}
	d := &sparse.Dataset{X: b.Build(), Y: y}
	if has {
		d.QID = qid
	}
	return d, nil
}

// readAllWays parses input with Read (default blocks, and tiny
// blocks with several workers) and with Scanner (default and tiny
// buffers), checks that all four agree exactly — same data or same error
// text — and returns Read's result.
func readAllWays(t *testing.T, input string, opt sparse.ReadOptions) (*sparse.Dataset, error) {
	t.Helper()
	d, err := Read(strings.NewReader(input), opt)
	tiny := opt
	tiny.Workers = 3
	others := []struct {
		name string
		read func() (*sparse.Dataset, error)
	}{
		{"tiny blocks", func() (*sparse.Dataset, error) { return read(strings.NewReader(input), tiny, 16) }},
		{"scanner", func() (*sparse.Dataset, error) { return scanAll(strings.NewReader(input), opt) }},
		{"scanner tiny", func() (*sparse.Dataset, error) { return scanAllChunk(iotestOneByte(input), tiny, 16) }},
	}
	for _, o := range others {
		d2, err2 := o.read()
		if (err == nil) != (err2 == nil) {
			t.Fatalf("%s: error %v, Read error %v", o.name, err2, err)
		}
		if err != nil {
			if err.Error() != err2.Error() {
				t.Fatalf("%s: error %q, Read error %q", o.name, err2, err)
			}
			continue
		}
		if diff := diffDatasets(d, d2); diff != "" {
			t.Fatalf("%s differs from Read: %s", o.name, diff)
		}
	}
	if err == nil {
		if verr := d.Validate(); verr != nil {
			t.Fatalf("result invalid: %v", verr)
		}
	}
	return d, err
}

// oneByteReader returns one byte per Read.
type oneByteReader struct{ r io.Reader }

func (o oneByteReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return o.r.Read(p[:1])
}

func iotestOneByte(s string) io.Reader { return oneByteReader{bytes.NewReader([]byte(s))} }

// finite32 reports whether x is neither NaN nor infinite.
func finite32(x float32) bool { return x-x == 0 }

// diffDatasets describes the first difference between two data sets, bit
// for bit, or returns "".
var diffDatasets = sparsetest.Diff
