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

// TestTrainTextCommand runs the command with -text on Prism over two
// JSONL shards with custom fields and checks that it writes a text model
// that textmodel loads and that classifies the -test text well.
func TestTrainTextCommand(t *testing.T) {
	dir := t.TempDir()
	for s := range 2 {
		var b strings.Builder
		for i := range 100 {
			label, word := "good", "fine"
			if (i+s)%2 == 0 {
				label, word = "bad", "awful"
			}
			fmt.Fprintf(&b, "{\"y\":%q,\"body\":\"a %s thing number %d\"}\n", label, word, i%9)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("part%d.jsonl", s)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "m.hptm")
	var stdout, stderr bytes.Buffer
	args := []string{"train", "-text", "-label-field", "y", "-text-field", "body", "-bits", "16", "-shards", filepath.Join(dir, "part*.jsonl"),
		"-workdir", t.TempDir(), "-o", out, "-epochs", "2", "-test", filepath.Join(dir, "part1.jsonl")}
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
	for s := range 2 {
		var b strings.Builder
		for i := range 60 {
			label, word := "good", "fine"
			if (i+s)%2 == 0 {
				label, word = "bad", "awful"
			}
			fmt.Fprintf(&b, "{\"label\":%q,\"text\":\"a %s thing number %d w%d\"}\n", label, word, i%9, i+100*s)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("part%d.jsonl", s)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "m.hptm")
	var stdout, stderr bytes.Buffer
	args := []string{"train", "-text", "-shards", filepath.Join(dir, "part*.jsonl"), "-workdir", t.TempDir(), "-o", out, "-epochs", "2",
		"-test", filepath.Join(dir, "part1.jsonl")}
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
	f := m.Featurizer()
	if c := f.Config(); !c.Vocabulary || c.MinDF != 2 {
		t.Errorf("featurizer config %+v, want a vocabulary of MinDF 2", c)
	}
	// The words of one document (w0, w1, ...) are in fewer than two.
	if v := f.Vocabulary(); !slices.Contains(v, "awful") || !slices.Contains(v, "a fine") || slices.Contains(v, "w7") {
		t.Errorf("vocabulary %q", v)
	}
}
