package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
	"github.com/hyperplane-ml/hyperplane/sparse/hpc"
	"github.com/hyperplane-ml/hyperplane/sparse/libsvm"
)

// Multi-label LIBSVM: a file whose first row's label holds a comma
// ("1,3,5 2:0.5 ...") trains a multi-label model of numbered features
// (.hpml), as does any LIBSVM file with -multilabel, and a cache file
// with label lists (convert writes one from such a file). Label L is
// class L of the model: the multi-label LIBSVM sets number their labels
// from 0 or 1, and a model's width in classes is its largest label plus
// one.

// maxNumberedLabel bounds the labels of a multi-label LIBSVM file, as the
// model holds a weight per feature for every class up to the largest.
const maxNumberedLabel = 1 << 16

// libsvmLabelIsList reports whether the first row of the LIBSVM file at
// path has a comma in its label.
func libsvmLabelIsList(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	return labelIsList(f)
}

// isMultiLabelCache reports whether the file at path is a cache file
// with label lists (a regular file: a pipe would lose what is read).
func isMultiLabelCache(path string) bool {
	return regularFileIs(path, func(f *os.File) bool {
		info, err := hpc.ReadInfo(f, sparse.ReadOptions{Name: path})
		return err == nil && info.LabelLists
	})
}

// labelIsList reports whether the first row of the LIBSVM input r
// (gzip too) has a comma in its label.
func labelIsList(r io.Reader) bool {
	br := bufio.NewReader(r)
	r = br
	if b, _ := br.Peek(2); len(b) == 2 && b[0] == 0x1f && b[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return false
		}
		r = gz
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		ln := bytes.TrimRight(sc.Bytes(), "\r")
		t := bytes.TrimLeft(ln, " \t")
		if len(t) == 0 || t[0] == '#' {
			continue
		}
		if len(t) < len(ln) {
			return false // a row with no label: it does not tell
		}
		tok, _, _ := bytes.Cut(t, []byte(" "))
		tok, _, _ = bytes.Cut(tok, []byte("\t"))
		// Class numbers and commas, then features or nothing: a CSV
		// header or row has commas too, but no index:value pair.
		if bytes.IndexByte(tok, ',') < 0 || len(bytes.Trim(tok, "0123456789,")) > 0 {
			return false
		}
		rest := bytes.TrimLeft(t[len(tok):], " \t")
		return len(rest) == 0 || rest[0] == '#' || bytes.IndexByte(rest, ':') > 0
	}
	return false
}

// readNumberedMultiLabel reads a multi-label LIBSVM file, or a cache file
// with label lists, and its classes.
func readNumberedMultiLabel(path string) (*sparse.CSR, [][]int, int, error) {
	read := libsvm.ReadMultiLabelFile
	if fileIsCache(path) {
		read = hpc.ReadMultiLabelFile
	}
	d, err := read(path, sparse.ReadOptions{})
	if err != nil {
		return nil, nil, 0, err
	}
	K := 0
	for i, ls := range d.Labels {
		for _, l := range ls {
			if l >= maxNumberedLabel {
				return nil, nil, 0, fmt.Errorf("%s: row %d: label %d: multi-label LIBSVM labels are class numbers below %d", path, i+1, l, maxNumberedLabel)
			}
			K = max(K, l+1)
		}
	}
	return d.X, d.Labels, K, nil
}

// runTrainMultiLabelNumbered is train for a multi-label LIBSVM file.
func runTrainMultiLabelNumbered(ctx context.Context, env *Env, fs *flag.FlagSet, path, algo string, cfg engine.Config, o trainOpts) error {
	if len(setAmong(fs, "stream")) > 0 {
		return usageError("-stream: %s is multi-label data, which train reads whole, its cache too: drop -stream", path)
	}
	// Rows of numbered features are not normalized either.
	if bad := setAmong(fs, append(multiLabelRefused, "normalize")...); len(bad) > 0 {
		return usageError("%s: not available for multi-label data", bad[0])
	}
	mc, err := multiLabelConfig(algo, cfg)
	if err != nil {
		return err
	}
	outs, err := prepareTrain(fs, env.Stdout, path, o, "")
	if err != nil {
		return err
	}
	defer outs.cleanup()
	X, Y, K, err := readNumberedMultiLabel(path)
	if err != nil {
		return err
	}
	if K == 0 {
		return fmt.Errorf("%s: no row has a label", path)
	}
	if err := budget.Check(0, budget.Mul(8, int64(K), int64(X.Cols)), "a multi-label model of "+strconv.Itoa(K)+" classes"); err != nil {
		return err
	}
	m, err := engine.FitMultiLabel(ctx, X, Y, K, mc)
	if err != nil {
		return interrupted(ctx, err)
	}
	if o.out != "" {
		b, err := m.MarshalBinary()
		if err != nil {
			return err
		}
		if _, err := outs.writer(o.out).Write(b); err != nil {
			return err
		}
		if err := outs.commit(); err != nil {
			return err
		}
	}
	fmt.Fprintf(env.Stdout, "multi-label: %d rows, %d classes, %d features\n", X.Rows, K, X.Cols)
	if o.test != "" {
		return evalNumberedMultiLabel(env, m, o.test, o.json, false)
	}
	return nil
}

// evalNumberedMultiLabel evaluates m on the multi-label LIBSVM file path.
func evalNumberedMultiLabel(env *Env, m *engine.MultiLabelModel, path string, asJSON, report bool) error {
	X, Y, _, err := readNumberedMultiLabel(path)
	if err != nil {
		return err
	}
	if X.Rows == 0 {
		return fmt.Errorf("%s: no rows", path)
	}
	unknown := 0
	for i, ls := range Y {
		kept := ls[:0]
		for _, l := range ls {
			if l < m.Classes() {
				kept = append(kept, l)
			} else {
				unknown++
			}
		}
		Y[i] = kept
	}
	names := make([]string, m.Classes())
	for c := range names {
		names[c] = strconv.Itoa(c)
	}
	r, err := evalMultiLabel(m, names, X, Y, path, unknown)
	if err != nil {
		return err
	}
	return r.print(env.Stdout, asJSON, report)
}

// isNumberedMultiLabel reports whether path starts with the multi-label
// model's magic.
func isNumberedMultiLabel(path string) bool { return startsWith(path, "HPML") }

// predictNumberedMultiLabel writes, for every row of the LIBSVM file
// path (its labels, if any, unused), the classes m gives it, as
// predictMultiLabel writes labels.
func predictNumberedMultiLabel(w io.Writer, m *engine.MultiLabelModel, path string, k int, scores, proba bool) error {
	X, _, _, err := readNumberedMultiLabel(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	var s []float32
	ml := &mlLine{m: m, k: k, scores: scores, proba: proba}
	class := func(b []byte, c int) []byte { return strconv.AppendInt(b, int64(c), 10) }
	for i := range X.Rows {
		s = m.Scores(X.Row(i), s)
		b, _ := ml.line(s, class)
		b = append(b, '\n')
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// fileIsCache reports whether the file at path starts with a cache
// file's magic bytes.
func fileIsCache(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	return isCache(bufio.NewReaderSize(f, 64))
}
