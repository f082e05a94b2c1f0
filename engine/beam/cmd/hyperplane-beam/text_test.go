package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/engine/textmodel"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

// writeParts writes two JSONL shards part0.jsonl and part1.jsonl of n
// documents each in dir, alternately good (the word fine) and bad (awful),
// line making document i of shard s.
func writeParts(t *testing.T, dir string, n int, line func(s, i int, label, word string) string) {
	t.Helper()
	for s := range 2 {
		var b strings.Builder
		for i := range n {
			label, word := "good", "fine"
			if (i+s)%2 == 0 {
				label, word = "bad", "awful"
			}
			b.WriteString(line(s, i, label, word))
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("part%d.jsonl", s)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// trainParts runs the command with -text and flags on the shards of
// writeParts in dir, for two epochs, checks that it classifies every
// document of part1.jsonl right, and returns the model it wrote.
func trainParts(t *testing.T, dir string, flags ...string) *textmodel.Model {
	t.Helper()
	out := filepath.Join(dir, "m.hptm")
	args := append([]string{"train", "-text", "-shards", filepath.Join(dir, "part*.jsonl"), "-workdir", t.TempDir(), "-o", out, "-epochs", "2",
		"-test", filepath.Join(dir, "part1.jsonl")}, flags...)
	var stdout, stderr bytes.Buffer
	if err := run(args, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "test accuracy 1.0000") {
		t.Fatalf("stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	}
	m, err := textmodel.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestTrainTextCommand runs the command with -text on Prism over two
// JSONL shards with custom fields and checks that it writes a text model
// that textmodel loads and that classifies the -test text well.
func TestTrainTextCommand(t *testing.T) {
	dir := t.TempDir()
	writeParts(t, dir, 100, func(s, i int, label, word string) string {
		return fmt.Sprintf("{\"y\":%q,\"body\":\"a %s thing number %d\"}\n", label, word, i%9)
	})
	m := trainParts(t, dir, "-label-field", "y", "-text-field", "body", "-bits", "16")
	if got := m.Classify("an awful one"); got != "bad" {
		t.Errorf("classified an awful one as %q", got)
	}
	if f := m.Featurizer(); f.Dim() != 1<<16 || f.Config().NGrams != 2 || f.ReadOptions().LabelField != "y" {
		t.Errorf("featurizer: width %d, config %+v, fields %+v", f.Dim(), f.Config(), f.ReadOptions())
	}
}

// TestTextFlags: the featurizer flags read as hyperplane train reads
// them: a vocabulary of the terms in two documents or more by default,
// hashing with -vocab=false or a -bits without -vocab, and what does not
// fit together refused; a flag given in one run is not in the next.
func TestTextFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want text.Config
		bad  bool
	}{
		{nil, text.Config{Vocabulary: true, MinDF: 2}, false},
		{[]string{"-max-features", "100", "-min-df", "1"}, text.Config{Vocabulary: true, MinDF: 1, MaxFeatures: 100}, false},
		{[]string{"-bits", "16"}, text.Config{Bits: 16}, false},
		{[]string{"-vocab=false"}, text.Config{}, false},
		{nil, text.Config{Vocabulary: true, MinDF: 2}, false},
		{[]string{"-vocab", "-bits", "16"}, text.Config{}, true},
		{[]string{"-vocab=false", "-min-df", "3"}, text.Config{}, true},
		{[]string{"-bits", "16", "-max-features", "9"}, text.Config{}, true},
	} {
		args := append([]string{"train", "-text", "-shards", "x", "-workdir", "w", "-o", "m"}, c.args...)
		err := parse(args, io.Discard)
		if c.bad != (err != nil) {
			t.Errorf("%q: err %v", c.args, err)
			continue
		}
		if err != nil {
			continue
		}
		got, err := textConfig()
		want := c.want
		want.NGrams, want.TF, want.IDF = 2, text.Log, true
		if err != nil || got != want {
			t.Errorf("%q: config %+v, %v; want %+v", c.args, got, err, want)
		}
	}
}

// TestTrainTextCommandVocabulary: by default the command fits a
// vocabulary on the workers, as hyperplane train does, and the model
// holds it.
func TestTrainTextCommandVocabulary(t *testing.T) {
	dir := t.TempDir()
	writeParts(t, dir, 60, func(s, i int, label, word string) string {
		return fmt.Sprintf("{\"label\":%q,\"text\":\"a %s thing number %d w%d\"}\n", label, word, i%9, i+100*s)
	})
	m := trainParts(t, dir)
	f := m.Featurizer()
	if c := f.Config(); !c.Vocabulary || c.MinDF != 2 {
		t.Errorf("featurizer config %+v, want a vocabulary of MinDF 2", c)
	}
	// The words of one document (w0, w1, ...) are in fewer than two.
	if v := f.Vocabulary(); !slices.Contains(v, "awful") || !slices.Contains(v, "a fine") || slices.Contains(v, "w7") {
		t.Errorf("vocabulary %q", v)
	}
}
