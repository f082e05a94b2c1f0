package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
	"github.com/klauspost/compress/gzip"
)

// maxTextLine caps one document line of raw text, as the text reader
// caps its lines.
const maxTextLine = 64 << 20

// textNamed reports whether path names raw text by its extension
// (.jsonl, .json, .tsv, .txt, gzip too), as convert tells it.
func textNamed(path string) bool {
	p := strings.TrimSuffix(path, ".gz")
	for _, ext := range []string{".jsonl", ".json", ".tsv", ".txt"} {
		if strings.HasSuffix(p, ext) {
			return true
		}
	}
	return false
}

// readRawText reads unlabelled documents, one a line, and turns them
// into rows with f: a line that is a JSON object gives its "text" field
// (a "label" is ignored), any other line is the document itself, as
// fastText's predict reads them. Every line gives a row, an empty one
// too, so that output lines match input lines. gzip input is recognized
// by its magic bytes; "-" is standard input. With keep, the documents'
// texts are appended to it.
func readRawText(ctx context.Context, env *Env, path string, f *text.Featurizer, keep *[]string) (*sparse.Dataset, error) {
	dr, err := openDocs(ctx, env, path)
	if err != nil {
		return nil, err
	}
	defer dr.close()
	return dr.rows(nil, f, keep)
}

// docReader reads unlabelled documents as readRawText does, one at a
// time.
type docReader struct {
	ctx     context.Context
	name    string
	sc      *bufio.Scanner
	line    int
	closers []io.Closer
}

// openDocs opens path ("-": standard input) for reading documents.
func openDocs(ctx context.Context, env *Env, path string) (*docReader, error) {
	dr := &docReader{ctx: ctx, name: "standard input"}
	var src io.Reader = ctxReader{ctx, env.Stdin}
	if path != "-" {
		fh, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		dr.closers = append(dr.closers, fh)
		src, dr.name = ctxReader{ctx, fh}, path
	}
	br := bufio.NewReaderSize(src, 1<<16)
	if b, _ := br.Peek(2); len(b) == 2 && b[0] == 0x1f && b[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			dr.close()
			return nil, &fileError{dr.name, err}
		}
		dr.closers = append(dr.closers, zr)
		br = bufio.NewReaderSize(zr, 1<<16)
	}
	dr.sc = bufio.NewScanner(br)
	dr.sc.Buffer(make([]byte, 0, 1<<16), maxTextLine)
	return dr, nil
}

func (dr *docReader) close() {
	for i := len(dr.closers) - 1; i >= 0; i-- {
		dr.closers[i].Close()
	}
}

// next returns the next document, or ok = false at the end of the input.
func (dr *docReader) next() (doc string, ok bool, err error) {
	if !dr.sc.Scan() {
		if err := dr.sc.Err(); err != nil {
			if err == bufio.ErrTooLong {
				return "", false, fmt.Errorf("%s: a line is longer than %d bytes", dr.name, maxTextLine)
			}
			return "", false, &fileError{dr.name, err}
		}
		if err := dr.ctx.Err(); err != nil {
			return "", false, err
		}
		return "", false, nil
	}
	dr.line++
	doc = dr.sc.Text()
	if t := bytes.TrimSpace(dr.sc.Bytes()); len(t) > 0 && t[0] == '{' {
		var obj struct {
			Text *string `json:"text"`
		}
		if err := json.Unmarshal(t, &obj); err != nil {
			return "", false, fmt.Errorf("%s:%d: a line that starts with '{' is read as JSON: %v", dr.name, dr.line, err)
		}
		if obj.Text == nil {
			return "", false, fmt.Errorf("%s:%d: the JSON object has no \"text\" field", dr.name, dr.line)
		}
		doc = *obj.Text
	}
	return doc, true, nil
}

// head reads documents until they hold more than limit bytes or the input
// ends, and reports whether it ended.
func (dr *docReader) head(limit int) (docs []string, end bool, err error) {
	size := 0
	for size <= limit {
		doc, ok, err := dr.next()
		if err != nil {
			return nil, false, err
		}
		if !ok {
			return docs, true, nil
		}
		docs = append(docs, doc)
		size += len(doc)
	}
	return docs, false, nil
}

// rows turns the documents head, then the rest of the input, into rows
// with f; with keep, their texts are appended to it.
func (dr *docReader) rows(head []string, f *text.Featurizer, keep *[]string) (*sparse.Dataset, error) {
	b := sparse.NewBuilder(f.Dim())
	enc := f.NewEncoder()
	var held int64
	for k := 0; ; k++ {
		var doc string
		if k < len(head) {
			doc = head[k]
		} else {
			d, ok, err := dr.next()
			if err != nil {
				return nil, err
			}
			if !ok {
				break
			}
			doc = d
		}
		v := enc.Transform(doc)
		if keep != nil {
			*keep = append(*keep, doc)
			held += int64(len(doc))
		}
		// The rows are held until every line is read: 8 bytes a
		// nonzero and 16 a row.
		if held += int64(len(v.Ind))*8 + 16; held > budget.Default() {
			return nil, fmt.Errorf("%s: %w: %d lines need more than %s; split the input", dr.name, budget.ErrExceeded, k+1, budget.Format(budget.Default()))
		}
		if err := b.Add(v.Ind, v.Val); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", dr.name, k+1, err)
		}
	}
	X := b.Build()
	return &sparse.Dataset{X: X, Y: make([]float64, X.Rows)}, nil
}

// readLabelledText reads labelled raw text (JSONL, label<TAB>text, gzip
// too; "-" is standard input) and turns it into rows with f, labels
// becoming f's class values.
func readLabelledText(ctx context.Context, env *Env, path string, f *text.Featurizer) (*sparse.Dataset, error) {
	if path == "-" {
		return f.VectorizeReader(ctxReader{ctx, env.Stdin}, text.ReadOptions{Name: "standard input"})
	}
	return f.VectorizeFile(path, text.ReadOptions{})
}
