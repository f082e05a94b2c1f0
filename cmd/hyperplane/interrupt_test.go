package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInterruptedEverywhere: a command whose context is done (as a
// SIGINT or SIGTERM makes it) stops and says it was interrupted, in the
// phases that used to run on to their end whatever the signal: featurizing
// text for train (a vocabulary, hashing) and convert, reading LIBSVM for
// train and -cv, generating data; and it writes nothing.
func TestInterruptedEverywhere(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 20000 {
		l := []string{"pos", "neg"}[i%2]
		fmt.Fprintf(&b, `{"label":%q,"text":"%s %s film %d"}`+"\n", l, strings.Repeat("good fine ", 1+i%4), l, i%97)
	}
	txt := writeFile(t, dir, "big.jsonl", b.String())
	b.Reset()
	for i := range 20000 {
		fmt.Fprintf(&b, "%d 1:%d 2:0.5 %d:1\n", 2*(i%2)-1, i%7, 3+i%50)
	}
	svm := writeFile(t, dir, "big.svm", b.String())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := filepath.Join(dir, "out")
	for _, args := range [][]string{
		{"train", "-o", out + ".hptm", txt},
		{"train", "-vocab=false", "-o", out + ".hptm", txt},
		{"train", "-o", out + ".hpm", svm},
		{"train", "-cv", "3", svm},
		{"convert", txt, out + ".hpc"},
		{"convert", "-vocab", txt, out + ".hpc"},
		{"gen", "-rows", "200000", out + ".svm"},
		{"gen", "-kind", "separable", "-rows", "100000", out + ".svm"},
	} {
		code, _, e := runWith(ctx, strings.NewReader(""), args...)
		if code != 1 || !strings.Contains(e, "interrupted") {
			t.Errorf("%q: exit %d, %q; want it interrupted", args, code, e)
		}
		if _, err := filepath.Glob(out + "*"); err != nil {
			t.Fatal(err)
		}
		if m, _ := filepath.Glob(out + "*"); len(m) > 0 {
			t.Errorf("%q left %v", args, m)
		}
	}
}

// TestTrainFromStdin: train - reads standard input, raw text or LIBSVM,
// plain or gzip, told by its content, and -test - the same; the models
// are those of the same data read from a file.
func TestTrainFromStdin(t *testing.T) {
	dir := t.TempDir()
	txt := reviews(t, dir, "r.jsonl", 40)
	svm := writeFile(t, dir, "s.svm", smallSVM)
	for _, tc := range []struct {
		file string
		gz   bool
	}{{txt, false}, {txt, true}, {svm, false}, {svm, true}} {
		ext := ".hpm"
		if tc.file == txt {
			ext = ".hptm"
		}
		fromFile, fromStdin := filepath.Join(dir, "f"+ext), filepath.Join(dir, "s"+ext)
		if code, _, e := runCmd("train", "-o", fromFile, tc.file); code != 0 {
			t.Fatal(e)
		}
		data, err := os.ReadFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		if tc.gz {
			data = gzipped(data)
		}
		code, out, e := runWith(context.Background(), bytes.NewReader(data), "train", "-o", fromStdin, "-")
		if code != 0 {
			t.Fatalf("%s (gzip %v) on standard input: %s", tc.file, tc.gz, e)
		}
		a, _ := os.ReadFile(fromFile)
		b, _ := os.ReadFile(fromStdin)
		if !bytes.Equal(a, b) {
			t.Errorf("%s (gzip %v): the model from standard input differs from the file's (%s)", tc.file, tc.gz, out)
		}
		code, out, e = runWith(context.Background(), bytes.NewReader(data), "train", "-test", "-", tc.file)
		if code != 0 || !strings.Contains(out, "test:") {
			t.Errorf("%s: -test -: exit %d, %s %s", tc.file, code, out, e)
		}
	}
}
