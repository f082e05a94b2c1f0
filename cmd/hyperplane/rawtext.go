package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
	"github.com/hyperplane-ml/hyperplane/sparse/csv"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

// Every command reads raw text with the one reader of package text
// (text.Scanner): train its training and -test text, eval its labelled
// text and predict its documents, so that an input gives the same
// documents to all three. How the format of an input is chosen, first
// that applies:
//
//   - -from (predict): jsonl, tsv or lines;
//   - a name ending in .tsv (.gz too): TSV;
//   - the first non-blank line: '{' is JSONL; LIBSVM or a cache is
//     refused (text.ErrNotText); otherwise TSV, or for predict, TSV when
//     the line has a tab after one of the model's labels, plain lines
//     (each line a document) when not.
//
// The JSONL fields are the ones the model's text was read from in
// training (its featurizer keeps them), unless -label-field and
// -text-field say otherwise.

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

// textFormat returns the format of the text input path by -from's value
// (jsonl, tsv, lines; anything else is not a text format) and its name:
// TSV for a name ending in .tsv, else text.Auto, for the content to tell.
func textFormat(path, from string) text.Format {
	switch from {
	case "jsonl":
		return text.JSONL
	case "tsv":
		return text.TSV
	case "lines":
		return text.Lines
	}
	if strings.HasSuffix(strings.TrimSuffix(path, ".gz"), ".tsv") {
		return text.TSV
	}
	return text.Auto
}

// fieldFlags are -label-field and -text-field of the commands that read
// text for a saved featurizer (eval, predict): by default the fields the
// featurizer's training text was read from.
type fieldFlags struct {
	fs               *flag.FlagSet
	label, textField *string
}

func addFieldFlags(fs *flag.FlagSet) *fieldFlags {
	return &fieldFlags{fs: fs,
		label:     fs.String("label-field", "label", "text, JSONL: the label field (default: the one the model's training text had)"),
		textField: fs.String("text-field", "text", "text, JSONL: the text field (default: the one the model's training text had)")}
}

// options returns how to read the text input path for f: f's fields but
// where the flags are set, the format by textFormat.
func (ff *fieldFlags) options(f *text.Featurizer, path, from string) text.ReadOptions {
	opt := f.ReadOptions()
	if len(setAmong(ff.fs, "label-field")) > 0 {
		opt.LabelField = *ff.label
	}
	if len(setAmong(ff.fs, "text-field")) > 0 {
		opt.TextField = *ff.textField
	}
	opt.Format = textFormat(path, from)
	return opt
}

// set returns the field flags written on the command line.
func (ff *fieldFlags) set() []string { return setAmong(ff.fs, "label-field", "text-field") }

// input is a command's data file, opened and looked at: what its first
// line looks like tells a text input from LIBSVM or a cache.
type input struct {
	path, name string
	br         *bufio.Reader // the content, none of it consumed yet
	kind       text.Kind
	line       string // the first non-blank line, for messages
	close      func()
}

// openData opens path ("-": standard input) and sniffs its kind; a read
// that fails because a signal cancelled ctx is an interruption.
func openData(ctx context.Context, env *Env, path string) (*input, error) {
	br, name, closeIn, err := openInput(ctx, env, path)
	if err != nil {
		return nil, err
	}
	in := &input{path: path, name: name, br: br, close: closeIn}
	if in.kind, in.line, err = text.Sniff(br); err != nil {
		closeIn()
		return nil, interrupted(ctx, &fileError{name, err})
	}
	return in, nil
}

// isText reports whether in holds raw text: JSONL, or a line plainly not
// LIBSVM; a first line that tells neither (a lone word) goes by the name.
func (in *input) isText() bool {
	if csvNamed(in.path) {
		return false // a CSV header reads as a line of words
	}
	switch in.kind {
	case text.KindJSONL, text.KindText:
		return true
	case text.KindUnknown:
		return in.path == "-" || textNamed(in.path)
	}
	return false
}

// errWrongKind: a model given data of the other kind (raw text for a
// model of numbered features, LIBSVM or a cache for a text model).
var errWrongKind = errors.New("input of the wrong kind for the model")

// notNumbered is the error for raw text given to a model of numbered
// features without a featurizer.
func (in *input) notNumbered(model string) error {
	return fmt.Errorf("%s: %w: it looks like %s (%q), and %s is a model of numbered features, which reads LIBSVM or a cache: give the -featurizer its features were made with (convert -save-featurizer), or use a text model (train on raw text -o M.hptm)",
		in.name, errWrongKind, in.kind, short(in.line), model)
}

// notText words the text reader's refusal of LIBSVM or a cache file
// (text.ErrNotText) for a text model; other errors pass unchanged.
func notText(err error, model string) error {
	if errors.Is(err, text.ErrNotText) {
		return fmt.Errorf("%w (%w): %s is a text model, which reads raw text: JSONL, label<TAB>text or, to predict, a document a line", err, errWrongKind, model)
	}
	return err
}

// short cuts s to a length fit for a message.
func short(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

// readData reads in, a cache or LIBSVM file (gzip too), as
// sparse.ReadFile does; standard input is read from what was sniffed.
// label is -label-col, a CSV table's label column (a header name or a
// 1-based position; "" for the default); it is refused for other input,
// which has no columns to pick from.
func readData(in *input, label string) (*sparse.Dataset, error) {
	if label != "" && !csvNamed(in.path) {
		return nil, usageError("-label-col %q: %s is not a CSV table (.csv, .csv.gz)", label, in.path)
	}
	if csvNamed(in.path) {
		// A table of numbers (sparse/csv), as the rows of a LIBSVM file.
		t, err := csv.Read(in.br, csv.Options{Name: in.name, Label: label})
		if err != nil {
			return nil, err
		}
		return t.Dataset(), nil
	}
	if in.path != "-" && in.kind == text.KindCache {
		return sparse.ReadFile(in.path, sparse.ReadOptions{})
	}
	// LIBSVM is parsed from in's reader, which fails once the command's
	// context is done, so that a signal stops a long parse; a cache file
	// is read by its path, its blocks at once.
	return sparse.Read(in.br, sparse.ReadOptions{Name: in.name})
}

// readLabelledText reads in's labelled raw text with opt and turns it
// into rows with f, labels becoming f's class values.
func readLabelledText(in *input, f *text.Featurizer, opt text.ReadOptions) (*sparse.Dataset, error) {
	opt.Name = in.name
	return f.VectorizeReader(in.br, opt)
}

// docReader reads documents without labels (predict's input) with the
// text reader, one at a time.
type docReader struct {
	name string
	sc   *text.Scanner
}

// openDocs reads the documents of in with opt, Documents set (opt.IsLabel
// should be the model's featurizer's, to tell TSV from plain lines).
func openDocs(in *input, opt text.ReadOptions) *docReader {
	opt.Documents, opt.Name = true, in.name
	return &docReader{name: in.name, sc: text.NewScanner(in.br, opt)}
}

// next returns the next document, or ok = false at the end of the input.
func (dr *docReader) next() (doc string, ok bool, err error) {
	if dr.sc.Scan() {
		return dr.sc.Doc().Text, true, nil
	}
	return "", false, dr.sc.Err()
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
			return nil, fmt.Errorf("%s: %w: %d documents need more than %s; split the input", dr.name, budget.ErrExceeded, k+1, budget.Format(budget.Default()))
		}
		if err := b.Add(v.Ind, v.Val); err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", dr.name, k+1, err)
		}
	}
	X := b.Build()
	return &sparse.Dataset{X: X, Y: make([]float64, X.Rows)}, nil
}
