package hpc

import (
	"fmt"
	"io"
	"math"

	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
	"github.com/hyperplane-ml/hyperplane/sparse/libsvm"
)

// Multi-label data sets: a cache file with label lists (format version
// 2) holds the rows of a libsvm.MultiLabelDataset, each with its list of
// labels in the order the data set gives them, so that a model trained
// from the cache is the one trained from the LIBSVM file it came from.

// WriteMultiLabel writes d to w as a cache file with label lists and the
// default block size. The file fixes the number of columns to d.X.Cols,
// so ReadMultiLabelFile returns d bit for bit. d is validated first:
// nothing is written if its rows are invalid or a label list is (a
// negative label, one listed twice).
func WriteMultiLabel(w io.Writer, d *libsvm.MultiLabelDataset) error {
	if d == nil || d.X == nil {
		return fmt.Errorf("%w: no data set", sparse.ErrShape)
	}
	if err := d.X.Validate(); err != nil {
		return err
	}
	if len(d.Labels) != d.X.Rows {
		return fmt.Errorf("%w: %d rows, %d label lists", sparse.ErrShape, d.X.Rows, len(d.Labels))
	}
	for i, ls := range d.Labels {
		if err := checkRowLabels(ls); err != nil {
			return fmt.Errorf("sparse: row %d: %w", i, err)
		}
	}
	if d.X.Cols > math.MaxInt32 {
		return fmt.Errorf("%w: %d columns, beyond the cache format's 2^31-1", sparse.ErrIndexRange, d.X.Cols)
	}
	return writeLists(NewWriter(w, WriterOptions{Dim: d.X.Cols, LabelLists: true}), d)
}

// writeLists writes the rows of d with cw, a Writer with label lists,
// and closes it.
func writeLists(cw *Writer, d *libsvm.MultiLabelDataset) error {
	x := d.X
	for i := range x.Rows {
		a, b := x.Indptr[i], x.Indptr[i+1]
		if err := cw.AddLabels(d.Labels[i], x.Ind[a:b], x.Val[a:b]); err != nil {
			return err
		}
	}
	return cw.Close()
}

// ReadMultiLabelFile reads the whole cache file with label lists at
// path: Open with Options.LabelLists, then File.LoadMultiLabel. If
// opt.Name is empty, errors name the file by path. A cache file without
// label lists is an error (a single-label data set has no label lists to
// give).
func ReadMultiLabelFile(path string, opt sparse.ReadOptions) (*libsvm.MultiLabelDataset, error) {
	c, err := Open(path, Options{ReadOptions: opt, LabelLists: true})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return c.LoadMultiLabel()
}

// LoadMultiLabel reads the whole cache, which must hold label lists,
// into memory as a multi-label data set, checking every block as
// ReadBlock does. What it allocates is sized by the file's index, which
// Open checked against the file's size, and checked first against
// sparse.ReadOptions.MaxNNZ and MemoryBudget.
func (c *File) LoadMultiLabel() (*libsvm.MultiLabelDataset, error) {
	if !c.lists {
		return nil, fmt.Errorf("sparse: %s holds one label per row, no label lists (it is no multi-label data set)", c.name)
	}
	var m int64
	for i := range c.blocks {
		m += int64(c.blocks[i].lists)
	}
	if c.rows > math.MaxInt-1 || c.nnz > math.MaxInt || m > math.MaxInt {
		return nil, cacheLimit(c.name, -1, sparse.ErrRowTooLong, "too large for this platform")
	}
	if c.nnz > c.opt.MaxNNZ {
		return nil, fmt.Errorf("%w: %s has %d nonzeros, more than MaxNNZ = %d: raise ReadOptions.MaxNNZ", sparse.ErrTooLarge, c.name, c.nnz, c.opt.MaxNNZ)
	}
	// Row pointers, the label slices' headers, the nonzeros and labels.
	need := budget.Add(budget.Add(budget.Mul(c.rows, 32), budget.Mul(c.nnz, 8)), budget.Mul(m, 8))
	if err := budget.Check(c.opt.MemoryBudget, need, fmt.Sprintf("loading %s (%d rows, %d nonzeros, %d labels)", c.name, c.rows, c.nnz, m)); err != nil {
		return nil, err
	}
	rows := int(c.rows)
	x := &sparse.CSR{Rows: rows, Cols: c.cols, Indptr: make([]int64, 1, rows+1), Ind: make([]int32, 0, c.nnz), Val: make([]float32, 0, c.nnz)}
	d := &libsvm.MultiLabelDataset{X: x, Labels: make([][]int, 0, rows)}
	all := make([]int, 0, m)
	var blk Block
	for i := range c.blocks {
		if err := c.ReadBlock(i, &blk); err != nil {
			return nil, err
		}
		appendRows(x, blk.X)
		for r := range blk.X.Rows {
			a := len(all)
			for _, l := range blk.RowLabels(r) {
				all = append(all, int(l))
			}
			d.Labels = append(d.Labels, all[a:len(all):len(all)])
		}
	}
	if err := c.CheckUnchanged(); err != nil {
		return nil, err
	}
	return d, nil
}

// ReadMultiLabel reads a whole cache file with label lists from the
// stream r, block by block in order, with the checks of NewScanner;
// memory use follows the data received, within opt.MemoryBudget. A
// cache without label lists is an error, as for ReadMultiLabelFile.
func ReadMultiLabel(r io.Reader, opt sparse.ReadOptions) (*libsvm.MultiLabelDataset, error) {
	st, err := newCacheStream(r, Options{ReadOptions: opt, LabelLists: true})
	if err != nil {
		return nil, err
	}
	x := &sparse.CSR{Indptr: []int64{0}, Ind: []int32{}, Val: []float32{}}
	d := &libsvm.MultiLabelDataset{X: x, Labels: [][]int{}}
	single := func() error {
		return fmt.Errorf("sparse: %s holds one label per row, no label lists (it is no multi-label data set)", nameOr(st.name))
	}
	err = st.each(func(blk *Block) error {
		if !st.lists {
			return single()
		}
		appendRows(x, blk.X)
		for r := range blk.X.Rows {
			ls := make([]int, len(blk.RowLabels(r)))
			for k, l := range blk.RowLabels(r) {
				ls[k] = int(l)
			}
			d.Labels = append(d.Labels, ls)
		}
		held := budget.Add(budget.Mul(int64(len(x.Ind)), 8), budget.Mul(int64(len(d.Labels)), 48))
		return budget.Check(st.opt.MemoryBudget, held, "the multi-label rows of "+nameOr(st.name))
	})
	if err != nil {
		return nil, err
	}
	if !st.lists {
		return nil, single()
	}
	x.Rows = len(d.Labels)
	x.Cols = st.cols
	return d, nil
}

// nameOr returns name, or "<input>" for an unnamed input.
func nameOr(name string) string {
	if name == "" {
		return "<input>"
	}
	return name
}

// SniffLabelLists reports whether b, the first bytes of a file (16 or
// more), is the header of a cache file with label lists: what a reader
// of a stream looks at to choose between ReadMultiLabel and Read before
// it reads on.
func SniffLabelLists(b []byte) bool {
	_, lists, err := decodeHeader(b, "")
	return err == nil && lists
}
