package sparse

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"
)

// scanAll reads r with a Scanner into a Dataset, for comparison with
// ReadLIBSVM.
func scanAll(r io.Reader, opt ReadOptions) (*Dataset, error) {
	sc := NewScanner(r, opt)
	b := NewBuilder(opt.Dim)
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
	d := &Dataset{X: b.Build(), Y: y}
	if has {
		d.QID = qid
	}
	return d, nil
}

// diffDatasets describes the first difference between a and b, bit for
// bit, or returns "".
func diffDatasets(a, b *Dataset) string {
	if a.X.Rows != b.X.Rows || a.X.Cols != b.X.Cols {
		return fmt.Sprintf("shape %d×%d vs %d×%d", a.X.Rows, a.X.Cols, b.X.Rows, b.X.Cols)
	}
	if len(a.X.Indptr) != len(b.X.Indptr) {
		return "indptr length"
	}
	for i := range a.X.Indptr {
		if a.X.Indptr[i] != b.X.Indptr[i] {
			return fmt.Sprintf("indptr[%d] %d vs %d", i, a.X.Indptr[i], b.X.Indptr[i])
		}
	}
	if len(a.X.Ind) != len(b.X.Ind) || len(a.X.Val) != len(b.X.Val) {
		return "nnz"
	}
	for k := range a.X.Ind {
		if a.X.Ind[k] != b.X.Ind[k] {
			return fmt.Sprintf("ind[%d] %d vs %d", k, a.X.Ind[k], b.X.Ind[k])
		}
		if math.Float32bits(a.X.Val[k]) != math.Float32bits(b.X.Val[k]) {
			return fmt.Sprintf("val[%d] %v vs %v", k, a.X.Val[k], b.X.Val[k])
		}
	}
	if len(a.Y) != len(b.Y) {
		return "labels length"
	}
	for i := range a.Y {
		if math.Float64bits(a.Y[i]) != math.Float64bits(b.Y[i]) {
			return fmt.Sprintf("y[%d] %v vs %v", i, a.Y[i], b.Y[i])
		}
	}
	if (a.QID == nil) != (b.QID == nil) || len(a.QID) != len(b.QID) {
		return fmt.Sprintf("qid %v vs %v", a.QID, b.QID)
	}
	for i := range a.QID {
		if a.QID[i] != b.QID[i] {
			return fmt.Sprintf("qid[%d] %d vs %d", i, a.QID[i], b.QID[i])
		}
	}
	return ""
}

// readAllWays parses input with ReadLIBSVM (default blocks, and tiny
// blocks with several workers) and with Scanner (default and tiny
// buffers), checks that all four agree exactly — same data or same error
// text — and returns ReadLIBSVM's result.
func readAllWays(t *testing.T, input string, opt ReadOptions) (*Dataset, error) {
	t.Helper()
	d, err := ReadLIBSVM(strings.NewReader(input), opt)
	tiny := opt
	tiny.chunkSize, tiny.Workers = 16, 3
	others := []struct {
		name string
		read func() (*Dataset, error)
	}{
		{"tiny blocks", func() (*Dataset, error) { return ReadLIBSVM(strings.NewReader(input), tiny) }},
		{"scanner", func() (*Dataset, error) { return scanAll(strings.NewReader(input), opt) }},
		{"scanner tiny", func() (*Dataset, error) { return scanAll(iotestOneByte(input), tiny) }},
	}
	for _, o := range others {
		d2, err2 := o.read()
		if (err == nil) != (err2 == nil) {
			t.Fatalf("%s: error %v, ReadLIBSVM error %v", o.name, err2, err)
		}
		if err != nil {
			if err.Error() != err2.Error() {
				t.Fatalf("%s: error %q, ReadLIBSVM error %q", o.name, err2, err)
			}
			continue
		}
		if diff := diffDatasets(d, d2); diff != "" {
			t.Fatalf("%s differs from ReadLIBSVM: %s", o.name, diff)
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
