package hpc

import (
	"io"
	"slices"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

// Info is what a cache file's footer says of its data set.
type Info struct {
	Rows   int64
	NNZ    int64
	Cols   int       // as File.Cols
	Labels []float64 // as File.Labels: nil beyond MaxLabels, or with label lists
	Blocks int
	HasQID bool
	// LabelLists: the rows have label lists (a multi-label data set).
	LabelLists bool
}

// Info returns the cache's Info.
func (c *File) Info() Info {
	return Info{Rows: c.rows, NNZ: c.nnz, Cols: c.cols, Labels: c.Labels(), Blocks: len(c.blocks), HasQID: c.hasQID, LabelLists: c.lists}
}

// ReadInfo reads the rows, width and labels of the cache file r holds,
// for a driver that sizes a model (or weighs shards) before it reads any
// data. When r is an io.ReaderAt and an io.Seeker (an *os.File, a
// *bytes.Reader, an io.SectionReader), it reads only the trailer and the
// footer, with the checks of Open; otherwise it reads the whole stream,
// checking every block's checksum as NewScanner does (not its values),
// in memory bounded by one block. Of opt, Dim, MaxDim and Name apply as
// for Open. Errors are those of Open and NewScanner.
func ReadInfo(r io.Reader, opt sparse.ReadOptions) (Info, error) {
	if ra, ok := r.(interface {
		io.ReaderAt
		io.Seeker
	}); ok {
		size, err := ra.Seek(0, io.SeekEnd)
		if err != nil {
			return Info{}, err
		}
		c, err := openCache(ra, size, Options{ReadOptions: opt, LabelLists: true})
		if err != nil {
			return Info{}, err
		}
		return c.Info(), nil
	}
	st, err := newCacheStream(r, Options{ReadOptions: opt, SkipValueChecks: true, LabelLists: true})
	if err != nil {
		return Info{}, err
	}
	if err := st.each(func(*Block) error { return nil }); err != nil {
		return Info{}, err
	}
	var labels []float64
	if !st.lists {
		labels = slices.Clone(st.labels)
	}
	return Info{Rows: st.rows, NNZ: st.nnz, Cols: st.cols, Labels: labels, Blocks: len(st.index), HasQID: st.anyQID, LabelLists: st.lists}, nil
}
