package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestGenTrainPredict: generated data trains, the separable set keeps the
// perceptron under its mistake bound, the same flags give the same file,
// and predict writes one label (and score) per row that matches eval.
func TestGenTrainPredict(t *testing.T) {
	dir := t.TempDir()
	sep := filepath.Join(dir, "sep.svm")
	code, out, errOut := runCmd("gen", "-json", "-kind", "separable", "-rows", "400", "-dim", "10", "-margin", "0.05", "-seed", "3", sep)
	if code != 0 {
		t.Fatalf("gen separable: exit %d\n%s%s", code, out, errOut)
	}
	var g struct {
		Rows  int     `json:"rows"`
		Bound float64 `json:"mistake_bound"`
	}
	if err := json.Unmarshal([]byte(out), &g); err != nil || g.Rows != 400 || !(g.Bound >= 1) {
		t.Fatalf("gen separable printed %s (err %v)", out, err)
	}
	code, out, errOut = runCmd("train", "-json", "-algo", "plain", "-bias", "none", "-no-shuffle", "-epochs", "10000", sep)
	if code != 0 {
		t.Fatalf("train: exit %d\n%s%s", code, out, errOut)
	}
	var r struct {
		Mistakes []int `json:"mistakes_per_epoch"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if total := sum(r.Mistakes); float64(total) > g.Bound || r.Mistakes[len(r.Mistakes)-1] != 0 {
		t.Fatalf("separable data: %d mistakes over %d epochs, bound %.1f", total, len(r.Mistakes), g.Bound)
	}

	// Text-like data, twice with the same flags: the same bytes.
	a, b := filepath.Join(dir, "a.svm"), filepath.Join(dir, "b.svm")
	for _, p := range []string{a, b} {
		if code, out, errOut := runCmd("gen", "-rows", "3000", "-dim", "5000", "-noise", "0.02", "-seed", "9", p); code != 0 {
			t.Fatalf("gen text: exit %d\n%s%s", code, out, errOut)
		}
	}
	da, _ := os.ReadFile(a)
	db, _ := os.ReadFile(b)
	if len(da) == 0 || string(da) != string(db) {
		t.Fatal("gen with the same flags wrote different files")
	}

	model := filepath.Join(dir, "m.hpm")
	if code, out, errOut := runCmd("train", "-o", model, a); code != 0 {
		t.Fatalf("train: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCmd("predict", "-model", model, "-scores", a)
	if code != 0 {
		t.Fatalf("predict: exit %d\n%s%s", code, out, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	labels := strings.Split(strings.TrimSpace(string(da)), "\n")
	if len(lines) != 3000 {
		t.Fatalf("predict wrote %d lines for 3000 rows", len(lines))
	}
	right := 0
	for i, l := range lines {
		f := strings.Split(l, "\t")
		if len(f) != 2 {
			t.Fatalf("line %d: %q, want label<TAB>score", i+1, l)
		}
		p, err1 := strconv.ParseFloat(f[0], 64)
		s, err2 := strconv.ParseFloat(f[1], 64)
		if err1 != nil || err2 != nil || (p > 0) != (s > 0) {
			t.Fatalf("line %d: %q: label and score disagree", i+1, l)
		}
		want, _ := strconv.ParseFloat(strings.Fields(labels[i])[0], 64)
		if p == want {
			right++
		}
	}
	code, out, _ = runCmd("eval", "-json", "-model", model, a)
	var e struct {
		Metrics struct {
			Accuracy float64 `json:"accuracy"`
		} `json:"metrics"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &e) != nil {
		t.Fatalf("eval: exit %d, %s", code, out)
	}
	if got := float64(right) / 3000; got != e.Metrics.Accuracy || got < 0.8 {
		t.Fatalf("predict's labels are %.4f right, eval says %.4f", got, e.Metrics.Accuracy)
	}
	// -o writes the same lines to a file.
	pf := filepath.Join(dir, "pred.txt")
	if code, _, errOut := runCmd("predict", "-model", model, "-o", pf, a); code != 0 {
		t.Fatalf("predict -o: %s", errOut)
	}
	if b, _ := os.ReadFile(pf); strings.Count(string(b), "\n") != 3000 {
		t.Fatalf("predict -o wrote %d lines", strings.Count(string(b), "\n"))
	}
	for _, bad := range [][]string{{"gen", "-kind", "blobs", a}, {"gen", "-rows", "-5", a}, {"predict", a}, {"gen"}} {
		if code, _, _ := runCmd(bad...); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
}

// TestWidthMismatch: data wider than the model is a warning for eval and
// predict, an error with -strict.
func TestWidthMismatch(t *testing.T) {
	train, _ := threeClassFiles(t)
	dir := t.TempDir()
	model := filepath.Join(dir, "m.hpm")
	if code, _, errOut := runCmd("train", "-o", model, train); code != 0 {
		t.Fatal(errOut)
	}
	wide := filepath.Join(dir, "wide.svm")
	if err := os.WriteFile(wide, []byte("1 2:1 50:3\n2 3:1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"eval", "predict"} {
		code, _, errOut := runCmd(cmd, "-model", model, wide)
		if code != 0 || !strings.Contains(errOut, "warning") || !strings.Contains(errOut, "features up to 50") {
			t.Errorf("%s on wider data: exit %d, stderr %q; want a warning", cmd, code, errOut)
		}
		code, _, errOut = runCmd(cmd, "-strict", "-model", model, wide)
		if code != 1 || !strings.Contains(errOut, "features up to 50") {
			t.Errorf("%s -strict on wider data: exit %d, stderr %q; want an error", cmd, code, errOut)
		}
	}
	// A file that declares more columns than the model has but uses none
	// past its width (a cache made with a featurizer declares all 2^bits)
	// passes -strict without a warning.
	declared := filepath.Join(dir, "declared.hpc")
	if err := os.WriteFile(filepath.Join(dir, "narrow.svm"), []byte("1 2:1\n2 3:1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCmd("convert", "-dim", "50", filepath.Join(dir, "narrow.svm"), declared); code != 0 {
		t.Fatal(errOut)
	}
	for _, cmd := range []string{"eval", "predict"} {
		if code, _, errOut := runCmd(cmd, "-strict", "-model", model, declared); code != 0 || strings.Contains(errOut, "warning") {
			t.Errorf("%s -strict on a file declaring 50 columns but using 3: exit %d, stderr %q", cmd, code, errOut)
		}
	}
}

// gen refuses, at once and without writing, rows wider than the readers
// accept (a separable row holds every one of -dim features), where it
// used to spend minutes and gigabytes on one row.
func TestGenRefusesRowsReadersRefuse(t *testing.T) {
	out := filepath.Join(t.TempDir(), "g.svm")
	for _, args := range [][]string{
		{"gen", "-kind", "separable", "-rows", "1", "-dim", "100000000", out},
		{"gen", "-nnz", "20000000", "-rows", "1", out},
	} {
		code, _, stderr := runCmd(args...)
		if code != 2 || !strings.Contains(stderr, "a row may hold") {
			t.Errorf("%v: exit %d, %q", args, code, stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: wrote %s", args, out)
		}
	}
}

// A generator over the memory budget is refused before it allocates, as
// an error of its own (exit 1) with what to do, not as a misuse.
func TestGenOverBudget(t *testing.T) {
	out := filepath.Join(t.TempDir(), "g.svm")
	code, _, stderr := runCmd("gen", "-mem", "64MiB", "-kind", "separable", "-rows", "100", "-dim", "1000000", out)
	if code != 1 || !strings.Contains(stderr, "over the memory budget") || !strings.Contains(stderr, "fewer -rows") {
		t.Errorf("exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("wrote %s", out)
	}
}
