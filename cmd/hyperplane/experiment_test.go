package main

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestExperiments: the convergence sweep writes a CSV whose every run
// converged within its mistake bound, and the plots; the variants
// experiment writes one accuracy per algorithm and epoch.
func TestExperiments(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runCmd("experiment", "-o", dir, "-quick", "-seeds", "2", "convergence")
	if code != 0 {
		t.Fatalf("convergence: exit %d\n%s%s", code, out, errOut)
	}
	f, err := os.Open(filepath.Join(dir, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(recs) != 1+9*2 {
		t.Fatalf("results.csv: %d records, err %v", len(recs), err)
	}
	for _, r := range recs[1:] {
		bound, _ := strconv.ParseFloat(r[7], 64)
		mistakes, _ := strconv.Atoi(r[8])
		cos, _ := strconv.ParseFloat(r[11], 64)
		if r[10] != "true" || float64(mistakes) > bound || mistakes < 1 || !(cos > 0.5) {
			t.Fatalf("run %v: converged %s, %d mistakes, bound %s, cosine %s", r[:5], r[10], mistakes, r[7], r[11])
		}
	}
	for _, sw := range []string{"n", "d", "gamma"} {
		for _, ext := range []string{".svg", ".png"} {
			if fi, err := os.Stat(filepath.Join(dir, "convergence_"+sw+ext)); err != nil || fi.Size() < 1000 {
				t.Fatalf("convergence_%s%s: %v", sw, ext, err)
			}
		}
	}
	code, out, errOut = runCmd("experiment", "-o", dir, "-epochs", "2", "variants")
	if code != 0 {
		t.Fatalf("variants: exit %d\n%s%s", code, out, errOut)
	}
	b, err := os.ReadFile(filepath.Join(dir, "variants.csv"))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if err != nil || len(lines) != 3 || lines[0] != "epoch,plain,averaged,voted,batch" {
		t.Fatalf("variants.csv: %q (err %v)", b, err)
	}
	for _, bad := range [][]string{{"experiment"}, {"experiment", "galaxy"}, {"experiment", "-seeds", "0", "convergence"}, {"experiment", "-train", "x", "variants"}} {
		if code, _, _ := runCmd(append(bad[:1], append([]string{"-o", dir}, bad[1:]...)...)...); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
}

// TestExperimentMisuseLeavesNothing: a misused experiment makes no -o
// directory, and a test set without rows is refused before the results of
// an earlier run are replaced.
func TestExperimentMisuseLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "exp")
	if code, _, _ := runCmd("experiment", "-o", out, "bogus"); code != 2 {
		t.Fatalf("bogus experiment: exit %d, want 2", code)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("a misused experiment left %s behind (%v)", out, err)
	}
	train, _ := threeClassFiles(t)
	empty := filepath.Join(dir, "empty.svm")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	csvPath := filepath.Join(out, "variants.csv")
	if err := os.WriteFile(csvPath, []byte("earlier results\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCmd("experiment", "-o", out, "-epochs", "2", "-train", train, "-test", empty, "variants")
	if code != 2 || !strings.Contains(errOut, "no rows") {
		t.Fatalf("variants on an empty test set: exit %d, %q; want 2", code, errOut)
	}
	if b, err := os.ReadFile(csvPath); err != nil || string(b) != "earlier results\n" {
		t.Fatalf("variants.csv was replaced: %q (%v)", b, err)
	}
}

// TestMarginsExperiment: the margins experiment writes one run per
// learner and setting, every mistake count within its bound, a bound for
// every learner that has one, and on separable data final weights that
// separate the points (each learner ran until an epoch without updates).
func TestMarginsExperiment(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runCmd("experiment", "-o", dir, "-quick", "-seeds", "1", "margins")
	if code != 0 {
		t.Fatalf("margins: exit %d\n%s%s", code, out, errOut)
	}
	f, err := os.Open(filepath.Join(dir, "margins.csv"))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(recs) != 1+4*len(marginRules) {
		t.Fatalf("margins.csv: %d records, err %v", len(recs), err)
	}
	for _, r := range recs[1:] {
		mistakes, _ := strconv.Atoi(r[5])
		bound, _ := strconv.ParseFloat(r[6], 64)
		margin, _ := strconv.ParseFloat(r[7], 64)
		hasBound := r[3] != "pegasos" && !(r[3] == "pa" && r[0] == "noisy" && r[1] != "0")
		if hasBound != !math.IsNaN(bound) || float64(mistakes) > bound {
			t.Errorf("run %v: %d mistakes, bound %v", r[:4], mistakes, bound)
		}
		if r[0] == "separable" && r[3] != "pegasos" && !(margin > 0) {
			t.Errorf("run %v: final margin %v on separable data", r[:4], margin)
		}
	}
	for _, sw := range []string{"separable", "noisy"} {
		if fi, err := os.Stat(filepath.Join(dir, "margins_"+sw+".png")); err != nil || fi.Size() < 1000 {
			t.Fatalf("margins_%s.png: %v", sw, err)
		}
	}
}
