package libsvm

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/klauspost/compress/gzip"
)

// Write writes d in LIBSVM / SVMlight format, one row per line:
// the label, " qid:N" if d.QID is set, then " index:value" for every stored
// entry with 1-based indices. Integral labels are written without a
// decimal point ("1", "-1", "3"); other labels and all values are written
// with the fewest digits that read back to the same float64 (labels) or
// float32 (values), so Read returns d bit for bit, except for Cols,
// which the format does not hold: read with sparse.ReadOptions{Dim: d.X.Cols} to
// keep trailing empty columns. d is validated first (see
// sparse.Dataset.Validate); nothing is written if it is invalid, or if it holds
// what the format cannot: an entry in column 2^31-1, whose 1-based index
// no reader takes (sparse.ErrIndexRange), or a negative qid (sparse.ErrSyntax; the cache
// format holds those).
func Write(w io.Writer, d *sparse.Dataset) error {
	if err := d.Validate(); err != nil {
		return err
	}
	for i, q := range d.QID {
		if q < 0 {
			return fmt.Errorf("%w: qid of row %d is %d: LIBSVM's qid:N has no sign", sparse.ErrSyntax, i, q)
		}
	}
	if d.X.Cols > math.MaxInt32 {
		for k, j := range d.X.Ind {
			if j == math.MaxInt32 {
				return fmt.Errorf("%w: entry %d is in column %d, whose 1-based index %d the LIBSVM readers refuse", sparse.ErrIndexRange, k, j, int64(j)+1)
			}
		}
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	var line []byte
	x := d.X
	for i := 0; i < x.Rows; i++ {
		line = appendLabel(line[:0], d.Y[i])
		if d.QID != nil {
			line = append(line, " qid:"...)
			line = strconv.AppendInt(line, d.QID[i], 10)
		}
		a, b := x.Indptr[i], x.Indptr[i+1]
		line = appendFeatures(line, x.Ind[a:b], x.Val[a:b])
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// AppendRow appends to b the line that Write writes for a row with label
// y and features x, its '\n' included, and returns the extended buffer.
// It is the writer's formatting, for code that formats rows itself (in
// parallel, or as they are made). It does not check x: Write does, and a
// caller validates x (sparse.Vector.Validate) unless it made x valid itself; x.Val
// must be as long as x.Ind.
func AppendRow(b []byte, y float64, x sparse.Vector) []byte {
	return appendFeatures(appendLabel(b, y), x.Ind, x.Val[:len(x.Ind)])
}

// appendFeatures appends " index:value" for every entry, with 1-based
// indices, then '\n'.
func appendFeatures(b []byte, ind []int32, val []float32) []byte {
	for k, j := range ind {
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(j)+1, 10)
		b = append(b, ':')
		b = appendValue(b, val[k])
	}
	return append(b, '\n')
}

func appendLabel(b []byte, y float64) []byte {
	if y == math.Trunc(y) && math.Abs(y) < 1e15 && !(y == 0 && math.Signbit(y)) {
		return strconv.AppendInt(b, int64(y), 10)
	}
	return strconv.AppendFloat(b, y, 'g', -1, 64)
}

func appendValue(b []byte, v float32) []byte {
	if v > 0 && v < 1e6 && v == float32(int32(v)) {
		return strconv.AppendInt(b, int64(v), 10)
	}
	return strconv.AppendFloat(b, float64(v), 'g', -1, 32)
}

// writeGzip writes d as Write does, gzip-compressed.
func writeGzip(w io.Writer, d *sparse.Dataset) error {
	zw := gzip.NewWriter(w)
	if err := Write(zw, d); err != nil {
		return err
	}
	return zw.Close()
}
