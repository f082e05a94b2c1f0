package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A label holding a tab or a line end, which only a featurizer saved
// before such labels were refused can hold, appears quoted in eval's
// report as in predict's lines, never raw.
func TestControlCharacterLabelInReports(t *testing.T) {
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
	// Rename the labels as an old featurizer could have held them.
	b, err := os.ReadFile(feat)
	if err != nil {
		t.Fatal(err)
	}
	old := `"names":["neg","pos"]`
	if !strings.Contains(string(b), old) {
		t.Fatalf("featurizer file without %s: %.300s", old, b)
	}
	b = []byte(strings.Replace(string(b), old, `"names":["bad\nreview","good\treview"]`, 1))
	if err := os.WriteFile(feat, b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, e := runCmd("eval", "-model", model, "-featurizer", feat, hpc)
	if code != 0 {
		t.Fatalf("eval: %s", e)
	}
	if strings.Contains(out, "good\treview") || strings.Contains(out, "bad\nreview") || !strings.Contains(out, `"good\treview"`) || !strings.Contains(out, `"bad\nreview"`) {
		t.Errorf("eval report with raw or missing labels:\n%s", out)
	}
	code, out, e = runCmd("predict", "-model", model, "-featurizer", feat, "-k", "2", "-scores", hpc)
	if code != 0 {
		t.Fatalf("predict: %s", e)
	}
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if f := strings.Split(l, "\t"); len(f) != 4 {
			t.Fatalf("predict -k 2 -scores: line %q has %d fields, want 4", l, len(f))
		}
	}
}

// predict -featurizer refuses a model whose classes are none of the
// featurizer's label names also when those names read as numbers but are
// not numeric labels ("01", "1", "1.0" are classes 0, 1, 2), rather than
// print a class it has no name for as a bare number.
func TestPredictNumberLikeNamesChecked(t *testing.T) {
	dir := t.TempDir()
	var three, two strings.Builder
	for i := range 30 {
		fmt.Fprintf(&three, "%s\tw%d v%d\n", []string{"01", "1", "1.0"}[i%3], i%3, i%5)
		fmt.Fprintf(&two, "%s\tw%d v%d\n", []string{"neg", "pos"}[i%2], i%2, i%5)
	}
	feat := filepath.Join(dir, "three.feat")
	if code, _, e := runCmd("convert", "-save-featurizer", feat, writeFile(t, dir, "three.tsv", three.String()), filepath.Join(dir, "three.hpc")); code != 0 {
		t.Fatalf("convert: %s", e)
	}
	if code, _, e := runCmd("convert", writeFile(t, dir, "two.tsv", two.String()), filepath.Join(dir, "two.hpc")); code != 0 {
		t.Fatalf("convert: %s", e)
	}
	model := filepath.Join(dir, "two.hpm")
	if code, _, e := runCmd("train", "-o", model, filepath.Join(dir, "two.hpc")); code != 0 {
		t.Fatalf("train: %s", e)
	}
	code, out, e := runCmd("predict", "-model", model, "-featurizer", feat, filepath.Join(dir, "two.hpc"))
	if code == 0 || !strings.Contains(e, "none of its labels") {
		t.Errorf("predict with a featurizer of other labels: exit %d, %q, %q", code, out, e)
	}
}

// appendLabel quotes a label holding any character the text reader
// refuses in a label, C1 controls and the Unicode line separators too,
// and leaves other labels as they are.
func TestAppendLabelQuotesTheReadersClass(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"next\u0085line", `"next\u0085line"`}, {"a\u2028b", `"a\u2028b"`}, {"a\u2029b", `"a\u2029b"`},
		{"\u009b", `"\u009b"`}, {"\x1b", `"\x1b"`},
		{"é", "é"}, {"a\u00a0b", "a\u00a0b"}, {"日本", "日本"},
	} {
		if got := string(appendLabel(nil, tc.in)); got != tc.want {
			t.Errorf("appendLabel(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
