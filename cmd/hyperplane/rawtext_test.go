package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A model trained on converted text predicts new raw text with its
// featurizer: plain lines or JSON objects, from a file or standard input
// (gzip too), one label name a line, an empty line included.
func TestPredictRawText(t *testing.T) {
	dir := t.TempDir()
	var train strings.Builder
	for i := range 40 {
		train.WriteString(`{"label":"pos","text":"good great fine lovely` + strings.Repeat(" nice", i%3) + `"}` + "\n")
		train.WriteString(`{"label":"neg","text":"bad awful poor dreadful` + strings.Repeat(" dull", i%3) + `"}` + "\n")
	}
	tr := writeFile(t, dir, "train.jsonl", train.String())
	feat, hpc, model := filepath.Join(dir, "f.feat"), filepath.Join(dir, "t.hpc"), filepath.Join(dir, "m.hpm")
	if code, _, e := runCmd("convert", "-save-featurizer", feat, tr, hpc); code != 0 {
		t.Fatalf("convert: %s", e)
	}
	if code, _, e := runCmd("train", "-o", model, hpc); code != 0 {
		t.Fatalf("train: %s", e)
	}
	// Plain lines, each a document, a blank one too.
	docs := "a great and lovely film\nawful, dreadful, poor\nnice and good\n\n"
	want := []string{"pos", "neg", "pos"}
	check := func(what, out string) {
		t.Helper()
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != 4 {
			t.Fatalf("%s: %d lines for 4 documents: %q", what, len(lines), out)
		}
		for i, w := range want {
			if lines[i] != w {
				t.Errorf("%s: document %d predicted %q, want %q", what, i+1, lines[i], w)
			}
		}
	}
	code, out, e := runCmd("predict", "-model", model, "-featurizer", feat, writeFile(t, dir, "new.txt", docs))
	if code != 0 {
		t.Fatalf("predict new.txt: %s", e)
	}
	check("new.txt", out)
	// JSON objects, with a field besides the text, and a blank line.
	js := "{\"text\": \"a great and lovely film\"}\n{\"text\": \"awful, dreadful, poor\"}\n{\"text\": \"nice and good\", \"id\": 7}\n{\"text\": \"\"}\n"
	code, out, e = runCmd("predict", "-model", model, "-featurizer", feat, writeFile(t, dir, "new.jsonl", js))
	if code != 0 {
		t.Fatalf("predict new.jsonl: %s", e)
	}
	check("new.jsonl", out)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(docs))
	zw.Close()
	for name, input := range map[string][]byte{"stdin": []byte(docs), "gzip stdin": gz.Bytes()} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		go func() { w.Write(input); w.Close() }()
		code, out, e = runWith(context.Background(), r, "predict", "-model", model, "-featurizer", feat, "-")
		r.Close()
		if code != 0 {
			t.Fatalf("%s: %s", name, e)
		}
		check(name, out)
	}
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"predict", "-model", model, "-from", "text", writeFile(t, dir, "x.txt", "hello\n")}, 2, "needs the -featurizer"},
		{[]string{"predict", "-model", model, "-featurizer", feat, writeFile(t, dir, "bad.jsonl", "{\"label\": \"pos\"}\n")}, 1, `bad.jsonl:1:1: no text field "text"`},
		{[]string{"predict", "-model", model, "-featurizer", feat, "-from", "csv", "x.txt"}, 2, `-from "csv"`},
	} {
		code, _, e := runCmd(c.args...)
		if code != c.code || !strings.Contains(e, c.msg) {
			t.Errorf("%v: exit %d, %q; want %d and %q", c.args[1:], code, e, c.code, c.msg)
		}
	}
}
