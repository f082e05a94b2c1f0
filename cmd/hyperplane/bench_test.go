package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBenchReportCompare: the suite's report names the CPU and every tier
// and has sane figures; compare of two reports prints ratios and plots.
func TestBenchReportCompare(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.json")
	code, out, errOut := runCmd("bench", "-quick", "-reps", "1", "-ms", "1", "-o", a)
	if code != 0 {
		t.Fatalf("bench: exit %d\n%s%s", code, out, errOut)
	}
	b, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	var r benchReport
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if r.Suite != benchSuite || r.GoVersion == "" || len(r.CPU.Tiers) == 0 || r.CPU.Arch == "" {
		t.Fatalf("report header: %+v", r)
	}
	tiers := map[string]bool{}
	var epochs int
	for _, f := range r.Results {
		tiers[f.Tier] = true
		if !(f.Median > 0) || f.Min > f.Median || f.Median > f.Max {
			t.Fatalf("figure %+v", f)
		}
		if strings.HasPrefix(f.Name, "averaged epoch") {
			epochs++
		}
	}
	for _, tn := range r.CPU.Tiers {
		if !tiers[tn] {
			t.Fatalf("no figure for tier %s", tn)
		}
	}
	if epochs == 0 {
		t.Fatal("no training figure")
	}
	// A second report with every figure doubled: compare shows 2.00x.
	for i := range r.Results {
		r.Results[i].Median *= 2
	}
	r.CPU.Brand = "Twice as fast"
	b2, _ := json.Marshal(r)
	bPath := filepath.Join(dir, "b.json")
	if err := os.WriteFile(bPath, b2, 0o644); err != nil {
		t.Fatal(err)
	}
	svg := filepath.Join(dir, "cmp.svg")
	code, out, errOut = runCmd("bench", "-plot", svg, "compare", a, bPath)
	if code != 0 {
		t.Fatalf("compare: exit %d\n%s%s", code, out, errOut)
	}
	if strings.Count(out, "2.00x") != len(r.Results) || !strings.Contains(out, "Twice as fast") {
		t.Fatalf("compare printed:\n%s", out)
	}
	if fi, err := os.Stat(svg); err != nil || fi.Size() < 1000 {
		t.Fatalf("plot: %v", err)
	}
	// The flags may also follow compare, and go between the reports.
	png := filepath.Join(dir, "cmp.png")
	code, out, errOut = runCmd("bench", "compare", a, "-plot", png, bPath)
	if code != 0 || strings.Count(out, "2.00x") != len(r.Results) {
		t.Fatalf("compare with -plot after it: exit %d\n%s%s", code, out, errOut)
	}
	if fi, err := os.Stat(png); err != nil || fi.Size() < 1000 {
		t.Fatalf("plot: %v", err)
	}
	for _, args := range [][]string{
		{"bench", "compare", "-quick", a, bPath}, // a run's flag
		{"bench", "-plot", svg},                  // -plot without compare
		{"bench", "compare", a, "-nosuch", bPath},
	} {
		if code, _, _ := runCmd(args...); code != 2 {
			t.Fatalf("%v: exit %d, want 2", args, code)
		}
	}
	if code, _, _ := runCmd("bench", "compare", a); code != 2 {
		t.Fatalf("compare with one report: exit %d, want 2", code)
	}
	if code, _, _ := runCmd("bench", "compare", a, filepath.Join(dir, "nope.json")); code != 1 {
		t.Fatalf("compare with a missing report: exit %d, want 1", code)
	}
}
