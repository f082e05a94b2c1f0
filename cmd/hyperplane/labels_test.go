package main

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// labelledDocs writes n JSONL documents per label, each made of its
// label's own words, so that a model learns every label apart.
func labelledDocs(t *testing.T, dir, name string, labels []string, n int) string {
	t.Helper()
	var b strings.Builder
	for i := range n {
		for k, l := range labels {
			fmt.Fprintf(&b, `{"label":%s,"text":"w%da w%db w%dc doc%d"}`+"\n", strconv.Quote(l), k, k, k, i%5)
		}
	}
	return writeFile(t, dir, name, b.String())
}

// TestTextLabelsAreStrings: labels that are different strings are
// different classes, even where they are one number or one float64, and
// predict writes back exactly the labels it was trained on.
func TestTextLabelsAreStrings(t *testing.T) {
	for _, labels := range [][]string{
		{"9007199254740992", "9007199254740993", "9007199254740995"},
		{"1", "1.0", "01"},
		{"0", "-0"},
	} {
		t.Run(strings.Join(labels, ","), func(t *testing.T) {
			dir := t.TempDir()
			tr := labelledDocs(t, dir, "train.jsonl", labels, 20)
			model := filepath.Join(dir, "m.hptm")
			if code, _, e := runCmd("train", "-o", model, "-test", tr, tr); code != 0 {
				t.Fatal(e)
			}
			code, out, e := runCmd("predict", "-model", model, tr)
			if code != 0 {
				t.Fatal(e)
			}
			got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			for i, p := range got {
				if want := labels[i%len(labels)]; p != want {
					t.Fatalf("row %d predicted %q, want %q (labels %q)", i+1, p, want, labels)
				}
			}
			code, out, e = runCmd("eval", "-json", "-model", model, tr)
			if code != 0 || !strings.Contains(out, `"accuracy": 1,`) {
				t.Errorf("eval: exit %d, %s %s; want accuracy 1 over %d classes", code, out, e, len(labels))
			}
		})
	}
	// Canonical numbers stay numbers: a model of -1/1 labels keeps them.
	dir := t.TempDir()
	tr := labelledDocs(t, dir, "train.jsonl", []string{"-1", "1"}, 10)
	model := filepath.Join(dir, "m.hptm")
	if code, _, e := runCmd("train", "-o", model, tr); code != 0 {
		t.Fatal(e)
	}
	if _, out, _ := runCmd("predict", "-model", model, tr); !strings.HasPrefix(out, "-1\n1\n") {
		t.Errorf("predict of numeric labels: %q", out[:min(len(out), 20)])
	}
}

// TestLabelControlCharacters: a label holding a tab or a line end is
// refused where it is read, with its line and column; and a label name
// that holds one (from a featurizer written before) is quoted on output,
// so that an output line is always one line with the same fields.
func TestLabelControlCharacters(t *testing.T) {
	dir := t.TempDir()
	for _, l := range []string{"a\tb", "a\nb", "a\rb", "x\x7f"} {
		tr := writeFile(t, dir, "train.jsonl", `{"label":"ok","text":"fine"}`+"\n"+`{"label":`+jsonString(l)+`,"text":"good"}`+"\n")
		code, _, e := runCmd("train", "-o", filepath.Join(dir, "m.hptm"), tr)
		if code == 0 || !strings.Contains(e, "train.jsonl:2:10:") || !strings.Contains(e, "control character") {
			t.Errorf("label %q: exit %d, %q; want it refused at line 2, column 10", l, code, e)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"pos", "pos"}, {`say "hi"`, `say "hi"`}, {"café", "café"},
		{"a\tb", `"a\tb"`}, {"a\nb", `"a\nb"`}, {"\x7f", `"\x7f"`},
	} {
		if got := string(appendLabel([]byte("x "), tc.in)); got != "x "+tc.want {
			t.Errorf("appendLabel(%q) = %q, want %q", tc.in, got, "x "+tc.want)
		}
	}
}

// TestProbaAgreesWithLabel: the label predict writes is the one its
// -proba probability is for, and that probability is at least 1/2 (so
// -k 1 names the same label), on a noisy binary set with more of one
// class, where held-out scores lean to one side.
func TestProbaAgreesWithLabel(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(7, 8))
	docs := randomDocs(r, 3000)
	var b strings.Builder
	for i, d := range docs {
		l := "yes"
		if d.label == "bad" || (d.label == "meh" && i%3 == 0) {
			l = "no"
		}
		fmt.Fprintf(&b, `{"label":%q,"text":%s}`+"\n", l, jsonString(d.text))
	}
	tr := writeFile(t, dir, "train.jsonl", b.String())
	model := filepath.Join(dir, "m.hptm")
	if code, _, e := runCmd("train", "-o", model, tr); code != 0 {
		t.Fatal(e)
	}
	_, one, _ := runCmd("predict", "-model", model, "-proba", tr)
	_, top, _ := runCmd("predict", "-model", model, "-proba", "-k", "1", tr)
	_, plain, _ := runCmd("predict", "-model", model, tr)
	ones, tops, plains := strings.Split(one, "\n"), strings.Split(top, "\n"), strings.Split(plain, "\n")
	if len(ones) != len(docs)+1 || !slices.Equal(ones, tops) {
		t.Fatalf("-proba and -proba -k 1 differ (%d and %d lines)", len(ones), len(tops))
	}
	for i, l := range ones[:len(docs)] {
		label, p, _ := strings.Cut(l, "\t")
		v, err := strconv.ParseFloat(p, 64)
		if err != nil || v < 0.5 || label != plains[i] {
			t.Fatalf("row %d: %q with -proba, %q without: the label's probability is below 1/2 or the label differs", i+1, l, plains[i])
		}
	}
}
