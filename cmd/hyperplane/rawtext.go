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
	var src io.Reader = ctxReader{ctx, env.Stdin}
	name := "standard input"
	if path != "-" {
		fh, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer fh.Close()
		src, name = ctxReader{ctx, fh}, path
	}
	br := bufio.NewReaderSize(src, 1<<16)
	if b, _ := br.Peek(2); len(b) == 2 && b[0] == 0x1f && b[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, &fileError{name, err}
		}
		defer zr.Close()
		br = bufio.NewReaderSize(zr, 1<<16)
	}
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 0, 1<<16), maxTextLine)
	b := sparse.NewBuilder(f.Dim())
	enc := f.NewEncoder()
	var held int64
	for line := 1; sc.Scan(); line++ {
		doc := sc.Text()
		if t := bytes.TrimSpace(sc.Bytes()); len(t) > 0 && t[0] == '{' {
			var obj struct {
				Text *string `json:"text"`
			}
			if err := json.Unmarshal(t, &obj); err != nil {
				return nil, fmt.Errorf("%s:%d: a line that starts with '{' is read as JSON: %v", name, line, err)
			}
			if obj.Text == nil {
				return nil, fmt.Errorf("%s:%d: the JSON object has no \"text\" field", name, line)
			}
			doc = *obj.Text
		}
		v := enc.Transform(doc)
		if keep != nil {
			*keep = append(*keep, doc)
			held += int64(len(doc))
		}
		// The rows are held until every line is read: 8 bytes a
		// nonzero and 16 a row.
		if held += int64(len(v.Ind))*8 + 16; held > budget.Default() {
			return nil, fmt.Errorf("%s: %w: %d lines need more than %s; split the input", name, budget.ErrExceeded, line, budget.Format(budget.Default()))
		}
		if err := b.Add(v.Ind, v.Val); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		if err == bufio.ErrTooLong {
			return nil, fmt.Errorf("%s: a line is longer than %d bytes", name, maxTextLine)
		}
		return nil, &fileError{name, err}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
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
