// Package csv reads labelled numeric tables in CSV (or tab-separated)
// form, as scikit-learn users keep them: an optional header of column
// names, one row per line, one column the label, every other column a
// number. The rows are dense (engine.FitDense trains on them);
// Table.Dataset gives the same rows as a sparse.Dataset.
//
// Quoting follows RFC 4180 (encoding/csv). Every problem of the content
// is a *sparse.ParseError naming the input, line and byte column.
package csv

import (
	"bufio"
	stdcsv "encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/hyperplane-ml/hyperplane/dense"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
	"github.com/klauspost/compress/gzip"
)

// Sentinel errors, besides sparse.ErrSyntax (malformed quoting, a row
// with another number of fields than the first) and sparse.ErrValue (a
// cell that is not a finite number).
var (
	// ErrMissing reports an empty cell or one marking a missing value
	// (NA, NaN, null, ?).
	ErrMissing = errors.New("csv: missing value")
	// ErrLabelColumn reports a label column that the table does not have.
	ErrLabelColumn = errors.New("csv: no such label column")
	// ErrEmpty reports a table without rows.
	ErrEmpty = errors.New("csv: no rows")
)

// Options controls Read and ReadFile. The zero value reads
// comma-separated values, gzip-compressed or not, with the label in the
// column named label, target, class or y (in any case) when the first
// line is a header, else in the first column.
type Options struct {
	// Comma separates the fields: 0 means ','; '\t' reads TSV.
	Comma rune
	// Label is the label column: a header's column name, else a 1-based
	// position ("1" is the first column). "" means the default above.
	Label string
	// Name names the input in errors; ReadFile defaults it to the path.
	Name string
}

// Table is a labelled table read from CSV.
type Table struct {
	// Names are the feature columns' names from the header, in order
	// (nil without a header).
	Names []string
	// LabelName is the label column's name ("" without a header).
	LabelName string
	X         *dense.Matrix[float32]
	Y         []float64
}

// defaultLabels are the header names taken as the label column when
// Options.Label is empty.
var defaultLabels = []string{"label", "target", "class", "y"}

// ReadFile reads the table in the file at path.
func ReadFile(path string, opt Options) (*Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if opt.Name == "" {
		opt.Name = path
	}
	return Read(f, opt)
}

// Read reads a whole table from r. Input starting with the gzip magic
// bytes is decompressed. The first line is a header when one of its
// cells is not a number. Rows that would take more memory than the
// budget (budget.Default) are an error wrapping budget.ErrExceeded.
func Read(r io.Reader, opt Options) (*Table, error) {
	src, closeSrc, err := decompress(r, opt)
	if err != nil {
		return nil, err
	}
	defer closeSrc()
	cr := stdcsv.NewReader(src)
	if opt.Comma != 0 {
		cr.Comma = opt.Comma
	}
	cr.ReuseRecord = true
	t := &Table{}
	var vals []float32
	label, cols := -1, 0
	rows, next := 0, int64(0)
	for first := true; ; first = false {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *stdcsv.ParseError
			if errors.As(err, &pe) {
				return nil, &sparse.ParseError{File: opt.Name, Line: pe.Line, Col: pe.Column, Msg: pe.Err.Error(), Err: sparse.ErrSyntax}
			}
			return nil, fmt.Errorf("csv: reading %s: %w", name(opt), err)
		}
		if first {
			cols = len(rec)
			var header bool
			if label, header, err = t.firstRecord(cr, rec, opt); err != nil {
				return nil, err
			}
			if header {
				continue
			}
		}
		if vals, err = t.addRow(cr, rec, label, vals, opt); err != nil {
			return nil, err
		}
		rows++
		if held := int64(cap(vals))*4 + int64(cap(t.Y))*8; held >= next {
			if err := budget.Check(0, 2*held, "the rows of "+name(opt)); err != nil {
				return nil, err
			}
			next = held + 1<<20
		}
	}
	if rows == 0 {
		return nil, fmt.Errorf("%w: %s", ErrEmpty, name(opt))
	}
	t.X = &dense.Matrix[float32]{Rows: rows, Cols: cols - 1, Stride: cols - 1, Data: vals}
	return t, nil
}

// decompress returns r, decompressed if it starts with the gzip magic
// bytes, and the function that closes the decompressor.
func decompress(r io.Reader, opt Options) (io.Reader, func(), error) {
	br := bufio.NewReaderSize(r, 1<<16)
	if b, _ := br.Peek(2); len(b) == 2 && b[0] == 0x1f && b[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, fmt.Errorf("csv: reading %s: %w", name(opt), err)
		}
		return zr, func() { zr.Close() }, nil
	}
	return br, func() {}, nil
}

// firstRecord reads the table's first record, rec: the number of
// columns, whether it is a header (one of its cells is not a number),
// the names it gives t if so, and the label column.
func (t *Table) firstRecord(cr *stdcsv.Reader, rec []string, opt Options) (label int, header bool, err error) {
	if len(rec) < 2 {
		line, _ := cr.FieldPos(0)
		return 0, false, &sparse.ParseError{File: opt.Name, Line: line, Col: 1, Msg: fmt.Sprintf("%d column: a table needs a label and at least one feature (is the delimiter %q?)", len(rec), string(cr.Comma)), Err: sparse.ErrSyntax}
	}
	for _, c := range rec {
		if _, err := parseNumber(c); err != nil && !isMissing(c) {
			header = true
		}
	}
	if label, err = labelColumn(rec, header, opt.Label); err != nil {
		line, _ := cr.FieldPos(0)
		return 0, false, &sparse.ParseError{File: opt.Name, Line: line, Col: 1, Msg: err.Error(), Err: ErrLabelColumn}
	}
	if header {
		for i, c := range rec {
			if i == label {
				t.LabelName = c
			} else {
				t.Names = append(t.Names, c)
			}
		}
	}
	return label, header, nil
}

// addRow parses the record rec: its label to t.Y and its features
// appended to vals.
func (t *Table) addRow(cr *stdcsv.Reader, rec []string, label int, vals []float32, opt Options) ([]float32, error) {
	for i, c := range rec {
		v, err := parseNumber(c)
		if err != nil {
			line, col := cr.FieldPos(i)
			what := "feature"
			if i == label {
				what = "label"
			}
			return nil, &sparse.ParseError{File: opt.Name, Line: line, Col: col, Msg: fmt.Sprintf("%s %q: %v", what, c, err), Err: err}
		}
		if i == label {
			t.Y = append(t.Y, v)
		} else {
			vals = append(vals, float32(v))
		}
	}
	return vals, nil
}

// labelColumn returns the index of the label column of a table whose
// first record is rec.
func labelColumn(rec []string, header bool, want string) (int, error) {
	if want == "" {
		if header {
			for _, d := range defaultLabels {
				for i, c := range rec {
					if strings.EqualFold(strings.TrimSpace(c), d) {
						return i, nil
					}
				}
			}
			return 0, fmt.Errorf("no column named %s in the header: name the label column (its name or 1-based position)", strings.Join(defaultLabels, ", "))
		}
		return 0, nil
	}
	if header {
		for i, c := range rec {
			if strings.TrimSpace(c) == want {
				return i, nil
			}
		}
	}
	if p, err := strconv.Atoi(want); err == nil {
		if p < 1 || p > len(rec) {
			return 0, fmt.Errorf("label column %d: the table has columns 1 to %d", p, len(rec))
		}
		return p - 1, nil
	}
	if !header {
		return 0, fmt.Errorf("label column %q: the table has no header to name it (give a 1-based position)", want)
	}
	return 0, fmt.Errorf("label column %q: not in the header", want)
}

// parseNumber parses a cell: a finite number, spaces around it allowed.
func parseNumber(c string) (float64, error) {
	s := strings.TrimSpace(c)
	if isMissing(s) {
		return 0, ErrMissing
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v-v != 0 || float64(float32(v))-float64(float32(v)) != 0 {
		return 0, sparse.ErrValue
	}
	return v, nil
}

// isMissing reports whether a cell marks a missing value.
func isMissing(c string) bool {
	switch strings.ToLower(strings.TrimSpace(c)) {
	case "", "na", "nan", "null", "?":
		return true
	}
	return false
}

func name(opt Options) string {
	if opt.Name == "" {
		return "input"
	}
	return opt.Name
}

// Dataset returns the table's rows as a sparse data set: the same
// values, zeros left out, column j of X as feature j+1 of a LIBSVM file.
func (t *Table) Dataset() *sparse.Dataset {
	X := &sparse.CSR{Rows: t.X.Rows, Cols: t.X.Cols, Indptr: make([]int64, t.X.Rows+1)}
	for i := 0; i < t.X.Rows; i++ {
		for j, v := range t.X.Row(i) {
			if v != 0 {
				X.Ind = append(X.Ind, int32(j))
				X.Val = append(X.Val, v)
			}
		}
		X.Indptr[i+1] = int64(len(X.Ind))
	}
	return &sparse.Dataset{X: X, Y: append([]float64(nil), t.Y...)}
}
