package libsvm

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
	"github.com/hyperplane-ml/hyperplane/sparse/internal/lineio"
	"github.com/hyperplane-ml/hyperplane/sparse/internal/readopt"
)

// MultiLabelDataset is a multi-label data set: the rows, and the labels of
// each row as written in the file (non-negative integers).
type MultiLabelDataset struct {
	X *sparse.CSR
	// Labels[i] are row i's labels, in the order written, repeats
	// dropped; empty for a row with no label.
	Labels [][]int
}

// maxMultiLabel is the largest label ReadMultiLabel accepts.
const maxMultiLabel = math.MaxInt32

// ReadMultiLabelFile reads the multi-label LIBSVM file at path (gzip
// too) with ReadMultiLabel; errors name the file by path unless
// opt.Name is set.
func ReadMultiLabelFile(path string, opt sparse.ReadOptions) (*MultiLabelDataset, error) {
	return readopt.ReadFile(path, &opt.Name, func(r io.Reader) (*MultiLabelDataset, error) { return ReadMultiLabel(r, opt) })
}

// ReadMultiLabel reads LIBSVM's multi-label form, in which a row's label
// is a list of non-negative integers separated by commas, with no
// blanks ("1,3,5 2:0.5 7:1"), and a row with no label starts with a
// blank ("  2:0.5"); a single label is a list of one. The features and
// everything else are read, accepted and refused as Read does them,
// sequentially, with the same limits; input that starts with the gzip
// magic bytes is decompressed. Errors are *sparse.ParseError values naming
// the line and column (a bad label wraps sparse.ErrSyntax, a label past
// 2^31-1 sparse.ErrValue); rows past the memory budget are an error
// wrapping budget.ErrExceeded.
func ReadMultiLabel(r io.Reader, opt sparse.ReadOptions) (*MultiLabelDataset, error) {
	if opt.MaxLineBytes == 0 {
		opt.MaxLineBytes = sparse.DefaultMaxLineBytes
	}
	if opt.MaxRowNNZ == 0 {
		opt.MaxRowNNZ = sparse.DefaultMaxRowNNZ
	}
	if opt.MaxDim == 0 {
		opt.MaxDim = math.MaxInt32
	}
	if opt.MaxLineBytes < 0 || opt.MaxRowNNZ < 0 || opt.Dim < 0 || opt.MaxDim < 0 {
		return nil, fmt.Errorf("%w: negative limit in %+v", sparse.ErrBadOption, opt)
	}
	src, err := lineio.Open(r)
	if err != nil {
		return nil, err
	}
	lr := lineio.Reader{Src: src, Max: opt.MaxLineBytes}
	p := newLineParser(&opt)
	d := &MultiLabelDataset{X: &sparse.CSR{Indptr: []int64{0}}, Labels: [][]int{}}
	X := d.X
	var maxInd int32 = -1
	line := 0
	var next int64
	for {
		ln, st := lr.Next()
		switch st {
		case lineio.EOF:
			X.Rows = len(d.Labels)
			X.Cols = int(maxInd) + 1
			if opt.Dim > 0 {
				X.Cols = opt.Dim
			}
			return d, nil
		case lineio.ReadErr:
			return nil, lr.Err
		case lineio.TooLong:
			le := lineTooLong(opt.MaxLineBytes)
			return nil, &sparse.ParseError{File: opt.Name, Line: line + 1, Col: le.col, Msg: le.msg, Err: le.err}
		}
		line++
		if line == 1 && len(ln) >= 3 && string(ln[:3]) == "\xef\xbb\xbf" {
			ln = ln[3:]
		}
		if k := len(ln); k > 0 && ln[k-1] == '\r' {
			ln = ln[:k-1]
		}
		labels, i, blank, le := parseLabelList(ln)
		if le == nil && !blank {
			start := len(X.Ind)
			X.Ind, X.Val, le = p.features(ln, i, X.Ind, X.Val)
			if le == nil {
				for _, j := range X.Ind[start:] {
					maxInd = max(maxInd, j)
				}
			}
		}
		if le != nil {
			return nil, &sparse.ParseError{File: opt.Name, Line: line, Col: le.col, Msg: le.msg, Err: le.err}
		}
		if blank {
			continue
		}
		d.Labels = append(d.Labels, labels)
		X.Indptr = append(X.Indptr, int64(len(X.Ind)))
		if held := int64(len(X.Ind))*8 + int64(len(d.Labels))*40; held >= next {
			if err := budget.Check(opt.MemoryBudget, 2*held, "the multi-label rows of "+nameOr(opt.Name)); err != nil {
				return nil, err
			}
			next = held + 1<<20
		}
	}
}

// parseLabelList parses the label list at the start of line and returns
// the labels, the index after them, and whether the line is blank (or a
// comment alone).
func parseLabelList(line []byte) ([]int, int, bool, *lineError) {
	n := len(line)
	labels := []int{}
	if n == 0 || isBlank(line[0]) {
		i := 0
		for i < n && isBlank(line[i]) {
			i++
		}
		return labels, 0, i == n || line[i] == '#', nil
	}
	if line[0] == '#' {
		return labels, 0, true, nil
	}
	i := 0
	for {
		start := i
		v := 0
		for i < n && line[i] >= '0' && line[i] <= '9' {
			if v > (maxMultiLabel-int(line[i]-'0'))/10 {
				return nil, 0, false, &lineError{col: start + 1, msg: fmt.Sprintf("label %q is above %d", token(line, start), maxMultiLabel), err: sparse.ErrValue}
			}
			v = 10*v + int(line[i]-'0')
			i++
		}
		if i == start {
			return nil, 0, false, &lineError{col: start + 1, msg: fmt.Sprintf("invalid label list %q (want non-negative integers separated by commas, as 1,3,5)", token(line, 0)), err: sparse.ErrSyntax}
		}
		dup := false
		for _, l := range labels {
			dup = dup || l == v
		}
		if !dup {
			labels = append(labels, v)
		}
		if i < n && line[i] == ',' {
			i++
			continue
		}
		if i < n && !isBlank(line[i]) && line[i] != '#' {
			return nil, 0, false, &lineError{col: i + 1, msg: fmt.Sprintf("invalid label list %q (want non-negative integers separated by commas, as 1,3,5)", token(line, 0)), err: sparse.ErrSyntax}
		}
		return labels, i, false, nil
	}
}

// WriteMultiLabel writes d in LIBSVM's multi-label form, which
// ReadMultiLabel reads back bit for bit (but for Cols, as with Write):
// each row's labels separated by commas in their order ("3,1,5"), or
// nothing for a row with no label, whose line then starts with the blank
// before its first feature, then the features as Write writes them. A
// row with neither labels nor features would be a blank line, which
// readers skip: it is refused (sparse.ErrShape), as are a negative label,
// one past 2^31-1 (sparse.ErrValue) and invalid rows; nothing is written
// then.
func WriteMultiLabel(w io.Writer, d *MultiLabelDataset) error {
	if err := d.X.Validate(); err != nil {
		return err
	}
	x := d.X
	if len(d.Labels) != x.Rows {
		return fmt.Errorf("%w: %d rows, %d label lists", sparse.ErrShape, x.Rows, len(d.Labels))
	}
	for i, ls := range d.Labels {
		for _, l := range ls {
			if l < 0 || l > maxMultiLabel {
				return fmt.Errorf("%w: row %d: label %d outside [0, %d]", sparse.ErrValue, i, l, maxMultiLabel)
			}
		}
		if len(ls) == 0 && x.Indptr[i+1] == x.Indptr[i] {
			return fmt.Errorf("%w: row %d has neither labels nor features, which the multi-label LIBSVM form cannot hold (its line would be blank)", sparse.ErrShape, i)
		}
	}
	if x.Cols > math.MaxInt32 {
		for k, j := range x.Ind {
			if j == math.MaxInt32 {
				return fmt.Errorf("%w: entry %d is in column %d, whose 1-based index %d the LIBSVM readers refuse", sparse.ErrIndexRange, k, j, int64(j)+1)
			}
		}
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	var line []byte
	for i := range x.Rows {
		line = line[:0]
		for k, l := range d.Labels[i] {
			if k > 0 {
				line = append(line, ',')
			}
			line = strconv.AppendInt(line, int64(l), 10)
		}
		a, b := x.Indptr[i], x.Indptr[i+1]
		line = appendFeatures(line, x.Ind[a:b], x.Val[a:b])
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}
