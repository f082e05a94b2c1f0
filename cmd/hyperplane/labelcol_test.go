package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLabelCol: -label-col picks a CSV table's label column by header
// name or 1-based position, for convert, train, eval and predict; given
// for input that is not CSV it is refused.
func TestLabelCol(t *testing.T) {
	dir := t.TempDir()
	// No column has a default label name, so without -label-col the
	// table is refused.
	table := writeFile(t, dir, "t.csv", "a,score,b\n5,1,0.5\n7,-1,0.25\n5,1,0.75\n7,-1,0.125\n")
	if code, _, e := runCmd("train", table); code == 0 || !strings.Contains(e, "name the label column") {
		t.Fatalf("train without -label-col: exit %d, %q; want the label column asked for", code, e)
	}
	for _, col := range []string{"score", "2"} {
		out := filepath.Join(dir, "o"+col+".svm")
		if code, _, e := runCmd("convert", "-label-col", col, table, out); code != 0 {
			t.Fatalf("convert -label-col %s: exit %d: %s", col, code, e)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) != 4 || !strings.HasPrefix(lines[0], "1 ") || !strings.HasPrefix(lines[1], "-1 ") {
			t.Fatalf("convert -label-col %s wrote %q; want labels 1, -1, ...", col, b)
		}
	}
	model := filepath.Join(dir, "m.hpm")
	if code, _, e := runCmd("train", "-label-col", "score", "-o", model, table); code != 0 {
		t.Fatalf("train: exit %d: %s", code, e)
	}
	if code, out, e := runCmd("eval", "-label-col", "score", "-model", model, table); code != 0 {
		t.Fatalf("eval: exit %d: %s %s", code, out, e)
	}
	code, out, e := runCmd("predict", "-label-col", "score", "-model", model, table)
	if code != 0 || len(strings.Fields(out)) != 4 {
		t.Fatalf("predict: exit %d: %q %s", code, out, e)
	}
	if code, _, e := runCmd("train", "-label-col", "nope", table); code == 0 || !strings.Contains(e, "nope") {
		t.Errorf("train -label-col nope: exit %d, %q; want the missing column named", code, e)
	}
	svm := writeFile(t, dir, "s.svm", smallSVM)
	txt := reviews(t, dir, "r.jsonl", 10)
	for _, args := range [][]string{
		{"train", "-label-col", "2", svm},
		{"train", "-label-col", "2", txt},
		{"convert", "-label-col", "2", svm, filepath.Join(dir, "x.hpc")},
	} {
		if code, _, e := runCmd(args...); code != 2 || !strings.Contains(e, "a CSV table") {
			t.Errorf("%q: exit %d, %q; want a usage error", args, code, e)
		}
	}
}
