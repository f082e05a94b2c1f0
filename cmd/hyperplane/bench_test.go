package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/asm"
)

// TestBenchReportCompare: the suite's report names the CPU and every tier
// and has sane figures; compare of two reports prints ratios and plots.
func TestBenchReportCompare(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.json")
	code, out, errOut := runCmd("bench", "-quick", "-reps", "2", "-ms", "1", "-o", a)
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
	if r.Suite != benchSuite+benchQuickSuffix || !r.Quick || r.GoVersion == "" || len(r.CPU.Tiers) == 0 || r.CPU.Arch == "" {
		t.Fatalf("report header: %+v", r)
	}
	// The run's conditions: repetitions, their length, the duration, the
	// platform and the build, and the cores this process may use.
	if r.Repetitions != 2 || r.RepMillis != 1 || !(r.DurationSeconds > 0) || r.OS != runtime.GOOS ||
		r.CPU.UsableCores != runtime.NumCPU() || r.GOMAXPROC != runtime.GOMAXPROCS(0) {
		t.Fatalf("report conditions: reps %d, ms %d, duration %v, os %q, usable cores %d, gomaxprocs %d",
			r.Repetitions, r.RepMillis, r.DurationSeconds, r.OS, r.CPU.UsableCores, r.GOMAXPROC)
	}
	if runtime.GOARCH == "amd64" && !strings.HasPrefix(r.GOAMD64, "v") {
		t.Fatalf("GOAMD64 %q", r.GOAMD64)
	}
	tiers := map[string]bool{}
	var epochs int
	for _, f := range r.Results {
		tiers[f.Tier] = true
		if !(f.Median > 0) || f.Min > f.Median || f.Median > f.Max || !(f.RepSeconds > 0) || len(f.Reps) < 2 {
			t.Fatalf("figure %+v", f)
		}
		// Each figure keeps its repetitions, and summarizes them.
		if med, lo, hi := summarize(f.Reps); med != f.Median || lo != f.Min || hi != f.Max {
			t.Fatalf("figure %s: median, min, max %v %v %v of repetitions %v", f.key(), f.Median, f.Min, f.Max, f.Reps)
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
		f := &r.Results[i]
		f.Median, f.Min, f.Max = 2*f.Median, 2*f.Min, 2*f.Max
		for j := range f.Reps {
			f.Reps[j] *= 2
		}
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

// writeBenchReport writes r as a report file in dir and returns its path.
func writeBenchReport(t *testing.T, dir, name string, r any) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// compareLine returns the line of compare's table that starts with figure.
func compareLine(t *testing.T, out, figure string) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, figure) {
			return l
		}
	}
	t.Fatalf("no line for %q in:\n%s", figure, out)
	return ""
}

// TestBenchCompareNoise: compare shows each side's min–max over the
// repetitions and marks noise exactly where the two ranges overlap.
func TestBenchCompareNoise(t *testing.T) {
	dir := t.TempDir()
	fig := func(name string, reps ...float64) benchFigure {
		med, lo, hi := summarize(reps)
		return benchFigure{Name: name, Tier: "avx2", Unit: "Mnnz/s", Median: med, Min: lo, Max: hi, Reps: reps, RepSeconds: 0.04}
	}
	rep := func(figs ...benchFigure) benchReport {
		return benchReport{Suite: benchSuite, GoVersion: "go1.26", GOMAXPROC: 2, Repetitions: 3, RepMillis: 40,
			CPU: asm.CPUInfo{Brand: "Test CPU", Arch: "amd64", PhysicalCores: 2, LogicalCores: 2, UsableCores: 2}, Results: figs}
	}
	a := writeBenchReport(t, dir, "a.json", rep(fig("apart", 10, 12, 11), fig("overlap", 10, 12, 11), fig("touch", 10, 12, 11)))
	b := writeBenchReport(t, dir, "b.json", rep(fig("apart", 21, 20, 22), fig("overlap", 11, 12, 13), fig("touch", 12, 13, 14)))
	code, out, errOut := runCmd("bench", "compare", a, b)
	if code != 0 {
		t.Fatalf("compare: exit %d\n%s%s", code, out, errOut)
	}
	apart := compareLine(t, out, "apart [avx2]")
	if !regexp.MustCompile(`11\.000 +10\.000–12\.000 +21\.000 +20\.000–22\.000 +1\.91x *$`).MatchString(apart) {
		t.Fatalf("ranges apart: %q", apart)
	}
	for _, name := range []string{"overlap", "touch"} {
		if l := compareLine(t, out, name+" [avx2]"); !strings.HasSuffix(strings.TrimSpace(l), "noise") {
			t.Fatalf("ranges that overlap, not marked noise: %q", l)
		}
	}
	if !strings.Contains(out, "2 of 3 ratios are noise") {
		t.Fatalf("no noise count in:\n%s", out)
	}
	// One repetition on a side: no spread, so no verdict either way.
	s1 := writeBenchReport(t, dir, "s1.json", rep(fig("apart", 11)))
	code, out1, _ := runCmd("bench", "compare", a, s1)
	if l := compareLine(t, out1, "apart [avx2]"); code != 0 || !strings.HasSuffix(strings.TrimSpace(l), "one rep: spread unknown") ||
		!strings.Contains(out1, "1 ratios rest on a single repetition") {
		t.Fatalf("a single repetition: exit %d\n%s", code, out1)
	}
	if strings.Contains(out, "warning") {
		t.Fatalf("a warning for reports of one suite:\n%s", out)
	}
	// A quick run is another suite: compare says so.
	q := rep(fig("apart", 21, 20, 22))
	q.Suite, q.Quick = benchSuite+benchQuickSuffix, true
	qPath := writeBenchReport(t, dir, "q.json", q)
	code, out, _ = runCmd("bench", "compare", a, qPath)
	if code != 0 || !strings.Contains(out, "warning: [2] is suite "+benchSuite+benchQuickSuffix) {
		t.Fatalf("compare of a full and a quick report: exit %d\n%s", code, out)
	}
}

// TestBenchCompareAcrossCPUs: two CPUs with different best tiers and core
// counts still compare their training figures (run on the best tier) and
// their all-cores figure, and a tier only the second CPU runs is listed
// without a ratio.
func TestBenchCompareAcrossCPUs(t *testing.T) {
	dir := t.TempDir()
	fig := func(name, tier string, reps ...float64) benchFigure {
		med, lo, hi := summarize(reps)
		return benchFigure{Name: name, Tier: tier, Unit: "Mnnz/s", Median: med, Min: lo, Max: hi, Reps: reps}
	}
	rep := func(procs int, figs ...benchFigure) benchReport {
		return benchReport{Suite: benchSuite, GoVersion: "go1.26", GOMAXPROC: procs, Repetitions: 3, RepMillis: 40,
			CPU: asm.CPUInfo{Brand: "Test CPU", Arch: "amd64"}, Results: figs}
	}
	a := writeBenchReport(t, dir, "a.json", rep(2,
		fig("dot", "generic", 1, 1, 1), fig("dot", "avx2", 4, 4, 4),
		fig("averaged epoch, workers=1", "avx2", 10, 11, 12), fig("averaged epoch, workers=2", "avx2", 20, 21, 22)))
	b := writeBenchReport(t, dir, "b.json", rep(16,
		fig("dot", "generic", 1, 1, 1), fig("dot", "avx2", 4, 4, 4), fig("dot", "avx512", 8, 8, 8),
		fig("averaged epoch, workers=1", "avx512", 30, 33, 36), fig("averaged epoch, workers=16", "avx512", 200, 210, 220)))
	code, out, errOut := runCmd("bench", "compare", a, b)
	if code != 0 {
		t.Fatalf("compare: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []struct{ line, ratio string }{
		{"averaged epoch, workers=1 [best: avx2] / avx512", "3.00x"},
		{"averaged epoch, workers=all [best: avx2] / avx512", "10.00x"},
		{"dot [avx2]", "1.00x"},
	} {
		if l := compareLine(t, out, want.line); !strings.Contains(l, want.ratio) {
			t.Errorf("%s: want ratio %s in %q", want.line, want.ratio, l)
		}
	}
	if l := compareLine(t, out, "dot [avx512]"); !regexp.MustCompile(`^dot \[avx512\] +Mnnz/s +— +8\.000 +8\.000–8\.000 +— *$`).MatchString(l) {
		t.Errorf("a tier only [2] runs: %q", l)
	}
	if strings.Contains(out, "workers=16") || strings.Contains(out, "workers=2 ") {
		t.Errorf("an all-cores figure left under its core count:\n%s", out)
	}
}

// TestBenchCompareOldReport: a report written before repetitions, build
// and conditions were recorded (suite version 1) still compares, by its
// median, min and max, with what it lacks shown as unknown.
func TestBenchCompareOldReport(t *testing.T) {
	dir := t.TempDir()
	old := `{"suite": "hyperplane-bench/1", "time": "2026-11-20T10:00:00Z", "go_version": "go1.26.0", "gomaxprocs": 2,
	  "cpu": {"brand": "Old CPU", "vendor": "AuthenticAMD", "arch": "amd64", "physical_cores": 254, "logical_cores": 254},
	  "results": [
	    {"name": "dense dot f32, n=256", "tier": "avx2", "unit": "GFLOP/s", "median": 10, "min": 9, "max": 11},
	    {"name": "sparse dot (gather) f32, nnz=32", "tier": "avx2", "unit": "Mnnz/s", "median": 100, "min": 0, "max": 0}]}`
	oldPath := filepath.Join(dir, "old.json")
	if err := os.WriteFile(oldPath, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	cur := benchReport{Suite: benchSuite, GoVersion: "go1.26", GOMAXPROC: 2, Repetitions: 3, RepMillis: 40, OS: "linux", GOAMD64: "v1",
		CPU: asm.CPUInfo{Brand: "New CPU", Arch: "amd64", UsableCores: 2}, Results: []benchFigure{
			{Name: "dense dot f32, n=256", Tier: "avx2", Unit: "GFLOP/s", Median: 30, Min: 29, Max: 31, Reps: []float64{29, 30, 31}},
			{Name: "sparse dot (gather) f32, nnz=32", Tier: "avx2", Unit: "Mnnz/s", Median: 100, Min: 100, Max: 100, Reps: []float64{100, 100, 100}}}}
	curPath := writeBenchReport(t, dir, "new.json", cur)
	code, out, errOut := runCmd("bench", "compare", oldPath, curPath)
	if code != 0 {
		t.Fatalf("compare: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"hyperplane-bench/1 on Old CPU", "repetitions unknown", "commit unknown", "unknown/amd64",
		"GOAMD64 unknown", "cores: GOMAXPROCS 2; cpuid: 254 physical", "warning: [2] is suite " + benchSuite} {
		if !strings.Contains(out, want) {
			t.Fatalf("no %q in:\n%s", want, out)
		}
	}
	if l := compareLine(t, out, "dense dot f32, n=256 [avx2]"); !strings.Contains(l, "9.000–11.000") || !strings.HasSuffix(strings.TrimSpace(l), "3.00x") {
		t.Fatalf("old figure with min and max: %q", l)
	}
	// A figure without min and max reads as a range of its median alone.
	if l := compareLine(t, out, "sparse dot (gather) f32, nnz=32 [avx2]"); !strings.HasSuffix(strings.TrimSpace(l), "1.00x  noise") {
		t.Fatalf("old figure without a range: %q", l)
	}
}

// TestCoreCounts: cpu and bench print the cores alike, usable count
// first, and say when cpuid's package counts exceed it.
func TestCoreCounts(t *testing.T) {
	vm := coresLine(asm.CPUInfo{PhysicalCores: 254, LogicalCores: 254, UsableCores: 2}, 2)
	if !strings.HasPrefix(vm, "2 usable by this process (GOMAXPROCS 2); cpuid: 254 physical, 254 logical in the package, more than this process may use") {
		t.Fatalf("a VM's counts: %q", vm)
	}
	if l := coresLine(asm.CPUInfo{PhysicalCores: 8, LogicalCores: 16, UsableCores: 16}, 16); strings.Contains(l, "more than") {
		t.Fatalf("counts that agree flagged: %q", l)
	}
	code, cpuOut, _ := runCmd("cpu")
	m := regexp.MustCompile(`(?m)^cores: +(.*)$`).FindStringSubmatch(cpuOut)
	if code != 0 || m == nil {
		t.Fatalf("cpu: exit %d\n%s", code, cpuOut)
	}
	if m[1] != coresLine(asm.CPU(), runtime.GOMAXPROCS(0)) {
		t.Fatalf("cpu prints cores %q", m[1])
	}
	dir := t.TempDir()
	code, benchOut, errOut := runCmd("bench", "-quick", "-reps", "1", "-ms", "1", "-o", filepath.Join(dir, "r.json"))
	if code != 0 || !strings.Contains(benchOut, "cores: "+m[1]+";") {
		t.Fatalf("bench does not print cpu's cores %q: exit %d\n%s%s", m[1], code, benchOut, errOut)
	}
}
