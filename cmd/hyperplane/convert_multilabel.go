package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/hyperplane-ml/hyperplane/internal/iox"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/hpc"
	"github.com/hyperplane-ml/hyperplane/sparse/libsvm"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

// Multi-label convert: rows with label lists (multi-label LIBSVM, a cache
// with label lists, labelled text with several labels a document) are
// read whole and written in the multi-label form of OUT: LIBSVM's
// "1,3,5 idx:val ..." lines, or a cache with label lists, which train,
// eval and predict take as they take the LIBSVM file, to the same model.
// Text's labels become class numbers 0, 1, … in the order of the
// featurizer's label names (sorted), which the report lists and
// -save-featurizer keeps (text.Featurizer.WithLabels), so that
// -featurizer numbers the labels of test text alike.

// multiLabelInput reports whether IN, of kind kind and read through src,
// holds multi-label rows: by -multilabel, else by its first row (LIBSVM),
// its header (a cache) or its first document (text named by a path).
func (c *conversion) multiLabelInput(kind string, src *bufio.Reader, in string) bool {
	if c.o.multilabel {
		return true // a CSV table is then refused by readMultiLabel
	}
	switch kind {
	case "libsvm":
		b, _ := src.Peek(src.Size())
		return labelIsList(bytes.NewReader(b))
	case "cache":
		b, _ := src.Peek(16)
		return hpc.SniffLabelLists(b)
	case "text":
		return in != "-" && firstLabelIsList(in, c.o.text.readOptions(c.name))
	}
	return false
}

// readMultiLabel reads the multi-label rows of the input, of kind kind,
// into c.ml, and for text the featurizer that made them.
func (c *conversion) readMultiLabel(kind string, cfg text.Config) (*text.Featurizer, error) {
	ropt := sparse.ReadOptions{Dim: c.o.dim, Name: c.name}
	var err error
	switch kind {
	case "libsvm":
		c.ml, err = libsvm.ReadMultiLabel(c.src, ropt)
	case "cache":
		c.ml, err = hpc.ReadMultiLabel(c.src, ropt)
	case "text":
		var f *text.Featurizer
		f, err = c.readMultiLabelText(cfg)
		return f, interrupted(c.ctx, err)
	default:
		return nil, usageError("-multilabel: %s is a CSV table, whose rows have one label each", c.res.In)
	}
	return nil, interrupted(c.ctx, err)
}

// readMultiLabelText featurizes the multi-label text input, with the
// -featurizer given or one fitted on it, and numbers its labels.
func (c *conversion) readMultiLabelText(cfg text.Config) (*text.Featurizer, error) {
	o := c.o
	topt := o.text.readOptions(c.name)
	var f *text.Featurizer
	if o.load != "" {
		var err error
		if f, err = o.loadFeaturizer(&topt); err != nil {
			return nil, err
		}
	}
	topt.MultiLabel = true
	corpus, err := text.Read(c.src, topt)
	if err != nil {
		return nil, err
	}
	// A featurizer is fitted on one label a document, which its
	// features do not depend on: the documents carry a stand-in, and
	// the featurizer then gets every label name (WithLabels).
	fc := *corpus
	fc.Docs = slices.Clone(corpus.Docs)
	stand := textLabelStandIn
	if f != nil {
		stand = f.Labels()[0]
	}
	for i := range fc.Docs {
		fc.Docs[i].Label = stand
	}
	var d *sparse.Dataset
	if f == nil {
		names := slices.Concat(corpus.Labels...)
		if len(names) == 0 {
			return nil, fmt.Errorf("%s: no document has a label", c.res.In)
		}
		if f, d, err = text.FitVectorize(c.ctx, &fc, cfg); err != nil {
			return nil, err
		}
		if f, err = f.WithLabels(names); err != nil {
			return nil, err
		}
	} else if d, err = f.VectorizeContext(c.ctx, &fc); err != nil {
		return nil, err
	}
	Y, dropped := numberLabels(f.Labels(), corpus.Labels)
	c.ml = &libsvm.MultiLabelDataset{X: d.X, Labels: Y}
	c.res.Labels, c.res.Dropped = f.Labels(), dropped
	for k := range c.res.Labels {
		c.res.Values = append(c.res.Values, float64(k))
	}
	return f, nil
}

// textLabelStandIn is the label the documents of multi-label text carry
// while a featurizer is fitted on them.
const textLabelStandIn = "_"

// numberLabels returns each document's labels as class numbers, a label
// being its position among names; labels not among names are dropped
// and counted.
func numberLabels(names []string, labels [][]string) ([][]int, int) {
	class := make(map[string]int, len(names))
	for k, n := range names {
		class[n] = k
	}
	Y := make([][]int, len(labels))
	dropped := 0
	for i, ls := range labels {
		Y[i] = []int{}
		for _, l := range ls {
			if k, ok := class[l]; ok {
				Y[i] = append(Y[i], k)
			} else {
				dropped++
			}
		}
	}
	return Y, dropped
}

// writeMultiLabel writes c.ml to OUT, or dealt into its shards, and the
// featurizer f to -save-featurizer, and commits them.
func (c *conversion) writeMultiLabel(f *text.Featurizer) error {
	ctx, o, d := c.ctx, c.o, c.ml
	// The width a cache records: LIBSVM's, which a LIBSVM file of the
	// rows would give too (the largest index + 1, or -dim), or the
	// input cache's.
	dim := o.dim
	if c.res.From == "cache" {
		dim = d.X.Cols
	}
	var err error
	switch {
	case o.shards > 0:
		paths := shardPaths(c.dst, o.shards)
		err = writeShardsMultiLabel(ctx, c.outs, paths, d, o.seed)
		c.res.Out, c.res.Shards = paths[0]+" …", o.shards
	case isCachePath(c.dst):
		err = writeMultiLabelCache(iox.Writer(ctx, c.outs.writer(c.dst)), d, dim, nil)
	default:
		err = writeMultiLabelSVM(iox.Writer(ctx, c.outs.writer(c.dst)), c.dst, d)
	}
	if err != nil {
		return interrupted(ctx, err)
	}
	if err := c.commit(f); err != nil {
		return err
	}
	c.res.Rows, c.res.Cols, c.res.NNZ, c.res.MultiLabel = d.X.Rows, d.X.Cols, d.X.NNZ(), true
	return nil
}

// writeMultiLabelCache writes the rows of d listed in rows (all, in
// order, when nil) to w as a cache with label lists of dim columns (0:
// the largest index + 1).
func writeMultiLabelCache(w io.Writer, d *libsvm.MultiLabelDataset, dim int, rows []int) error {
	cw := hpc.NewWriter(w, hpc.WriterOptions{Dim: dim, LabelLists: true})
	add := func(i int) error {
		r := d.X.Row(i)
		return cw.AddLabels(d.Labels[i], r.Ind, r.Val)
	}
	for i := range len(rows) {
		if err := add(rows[i]); err != nil {
			return err
		}
	}
	if rows == nil {
		for i := range d.X.Rows {
			if err := add(i); err != nil {
				return err
			}
		}
	}
	return cw.Close()
}

// writeMultiLabelSVM writes d to w as multi-label LIBSVM, gzip-compressed
// when path ends in .gz.
func writeMultiLabelSVM(w io.Writer, path string, d *libsvm.MultiLabelDataset) error {
	if !strings.HasSuffix(path, ".gz") {
		return libsvm.WriteMultiLabel(w, d)
	}
	zw := gzip.NewWriter(w)
	if err := libsvm.WriteMultiLabel(zw, d); err != nil {
		return err
	}
	return zw.Close()
}

// writeShardsMultiLabel deals the rows of d into the cache files paths
// as writeShards deals rows of one label: the same permutation for the
// same seed and number of rows.
func writeShardsMultiLabel(ctx context.Context, outs *outputs, paths []string, d *libsvm.MultiLabelDataset, seed uint64) error {
	return dealShards(ctx, outs, paths, d.X.Rows, seed, func(out io.Writer, rows []int) error {
		return writeMultiLabelCache(out, d, d.X.Cols, rows)
	})
}
