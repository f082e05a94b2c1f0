package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Values of 1e20 against weights of 1e20 pass float32's range: predict
// gives the exact score's labels and says that the scores overflowed,
// instead of printing NaN and the lower class with exit 0.
func TestPredictReportsOverflow(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "big.svm")
	if err := os.WriteFile(data, []byte("1 1:1e20\n-1 1:-1e20\n1 1:1e20 2:1e20\n-1 1:-1e20 2:1e20\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "m.hpm")
	if code, _, stderr := runCmd("train", "-algo", "averaged", "-normalize=false", "-epochs", "5", "-o", model, data); code != 0 {
		t.Fatalf("train: %d %s", code, stderr)
	}
	code, stdout, stderr := runCmd("predict", "-scores", "-model", model, data)
	if code != 0 {
		t.Fatalf("predict: %d %s", code, stderr)
	}
	if strings.Contains(stdout, "NaN") {
		t.Errorf("a NaN score:\n%s", stdout)
	}
	if !strings.Contains(stderr, "score beyond float32's range") {
		t.Errorf("no overflow warning: %q", stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	for i, want := range []string{"1\t", "-1\t"} {
		if !strings.HasPrefix(lines[i], want) {
			t.Errorf("row %d: %q, want label %q", i+1, lines[i], want)
		}
	}
}
