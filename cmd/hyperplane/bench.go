package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/hyperplane-ml/hyperplane/asm"
	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/kernels"
	"github.com/hyperplane-ml/hyperplane/sparse/atomicfile"
	"github.com/hyperplane-ml/hyperplane/sparse/synth"
)

// benchSuite names the fixed benchmark suite; a report from another
// version is compared figure by figure, by name. A -quick run measures a
// smaller corpus with fewer, shorter repetitions: it is a different suite,
// benchSuite+benchQuickSuffix, so that its figures are not taken for a
// full run's. (Version 1 reports did not tell the two apart.)
const (
	benchSuite       = "hyperplane-bench/2"
	benchQuickSuffix = "-quick"
)

func newBenchCmd() *Command {
	o := new(benchOptions)
	c := &Command{
		UsageLine: "bench [compare A.json B.json ...]",
		Short:     "run the fixed benchmark suite (every SIMD tier), or compare reports across CPUs",
		Long: `Bench runs a fixed, versioned suite and prints a table: dense and sparse
kernels (dot, axpy, gather dot, scatter axpy) at several sizes on every
SIMD tier this CPU runs, one averaged-perceptron epoch over a generated
sparse text-like corpus on one core and on all, and RBF kernel rows. Each
figure is the median, with min and max, of -reps repetitions of about
-ms milliseconds each, taken in turns (the first of every figure, then
the second, ...) so that each figure's spread covers the whole run. -o
writes the report as JSON: every repetition of every figure and the time
one repetition took, the number of repetitions, the run's duration, the
CPU (brand, vendor, family/model, feature flags, caches, core counts),
the tiers, and the build (commit, Go version, OS, GOAMD64; the commit is
there when go build recorded it, which -buildvcs=false prevents). -quick
runs a smaller suite, under its own suite name.

Bench compare prints reports side by side, each figure as median and
min–max over its repetitions, and each figure's ratio to the first
report's. A ratio whose two min–max ranges overlap is marked noise: the
difference is within the run-to-run spread. Across CPUs, the figures
measured on the best tier only (training epochs, kernel rows) compare
whatever each CPU's best tier is, the all-cores epoch compares with the
other report's all-cores epoch, and a figure [1] lacks (a tier its CPU
does not run) is listed without a ratio. Reports written by older
versions (without repetitions) compare by their median, min and max. With
-plot compare draws each ratio with the range the two reports' min–max
allow, against a line at 1 (SVG or PNG by the file's extension).`,
		Run: o.run,
	}
	fs := &c.Flag
	o.flags = fs
	fs.StringVar(&o.out, "o", "", "write the report as JSON to this `file`")
	fs.IntVar(&o.reps, "reps", 7, "repetitions of each figure")
	fs.IntVar(&o.ms, "ms", 40, "milliseconds per repetition")
	fs.BoolVar(&o.quick, "quick", false, "a smaller corpus and fewer repetitions (for a smoke test)")
	fs.StringVar(&o.plot, "plot", "", "compare: draw the ratios to this `file` (.svg or .png)")
	return c
}

// benchOptions holds bench's flags.
type benchOptions struct {
	flags *flag.FlagSet // to tell the flags set on the command line
	out   string        // -o, the JSON report
	reps  int
	ms    int
	quick bool
	plot  string
}

// run runs the suite, or with the argument compare compares reports.
func (o *benchOptions) run(ctx context.Context, env *Env, args []string) error {
	if len(args) > 0 && args[0] == "compare" {
		// (run has parsed flags after compare and between the reports
		// too.)
		return o.compare(env.Stdout, args[1:])
	}
	if len(args) > 0 {
		return usageError("bench takes no file (did you mean bench compare?)")
	}
	if o.plot != "" {
		return usageError("-plot draws a comparison: bench compare -plot FILE A.json B.json")
	}
	if o.reps < 1 || o.ms < 1 {
		return usageError("-reps and -ms must be positive")
	}
	if o.quick {
		o.reps, o.ms = min(o.reps, 3), min(o.ms, 5)
	}
	stdout := env.Stdout
	var outArgs []arg
	if len(setAmong(o.flags, "o")) > 0 {
		outArgs = append(outArgs, arg{"-o", o.out})
	}
	w, err := prepareOutputs(stdout, nil, outArgs...)
	if err != nil {
		return err
	}
	defer w.cleanup()
	table := stdout
	if o.out != "" && writesStdout(stdout, o.out) {
		table = env.Stderr // standard output carries the JSON report
	}
	r, err := runBench(ctx, table, o.reps, time.Duration(o.ms)*time.Millisecond, o.quick)
	if err != nil {
		return err
	}
	if o.out != "" {
		if err := printJSON(w.writer(o.out), r); err != nil {
			return err
		}
		return w.commit()
	}
	return nil
}

// compare checks bench compare's flags and compares the reports files.
func (o *benchOptions) compare(stdout io.Writer, files []string) error {
	if runOnly := setAmong(o.flags, "o", "reps", "ms", "quick"); len(runOnly) > 0 {
		return usageError("%s apply to a run of the suite, not to compare", strings.Join(runOnly, ", "))
	}
	if len(files) < 2 {
		return usageError("bench compare needs at least two reports")
	}
	if len(setAmong(o.flags, "plot")) > 0 {
		var ins []arg
		for _, f := range files {
			ins = append(ins, arg{"report", f})
		}
		// The plot is drawn last; its file is checked first.
		w, err := prepareOutputs(stdout, ins, arg{"-plot", o.plot})
		if err != nil {
			return err
		}
		w.cleanup()
	}
	return benchCompare(stdout, files, o.plot)
}

// benchReport is the JSON report of one run of the suite. Fields after
// the first six were added with suite version 2; compare reads reports
// without them.
type benchReport struct {
	Suite     string        `json:"suite"`
	Time      string        `json:"time"`
	GoVersion string        `json:"go_version"`
	GOMAXPROC int           `json:"gomaxprocs"`
	CPU       asm.CPUInfo   `json:"cpu"`
	Results   []benchFigure `json:"results"`

	// Quick is set for a -quick run.
	Quick bool `json:"quick,omitempty"`
	// Repetitions and RepMillis are -reps and -ms as the run used them.
	Repetitions int `json:"repetitions,omitempty"`
	RepMillis   int `json:"rep_ms,omitempty"`
	// DurationSeconds is the wall time of the whole run.
	DurationSeconds float64 `json:"duration_seconds,omitempty"`
	// Commit, CommitTime and Modified say which source the binary was
	// built from (empty where the build recorded no VCS information).
	Commit     string `json:"commit,omitempty"`
	CommitTime string `json:"commit_time,omitempty"`
	Modified   bool   `json:"modified,omitempty"`
	OS         string `json:"os,omitempty"`
	// GOAMD64 is the amd64 microarchitecture level the Go code was
	// compiled for (empty on other architectures).
	GOAMD64 string `json:"goamd64,omitempty"`
}

// benchFigure is one figure: higher is better in every unit used.
type benchFigure struct {
	Name   string  `json:"name"`
	Tier   string  `json:"tier"`
	Unit   string  `json:"unit"`
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	// Reps holds the figure of each repetition, in Unit, in the order
	// measured; Median, Min and Max summarize it.
	Reps []float64 `json:"reps,omitempty"`
	// RepSeconds is the mean wall time of one repetition (for the epoch
	// figures, of one timed epoch).
	RepSeconds float64 `json:"rep_seconds,omitempty"`
}

func (f benchFigure) key() string { return f.Name + " [" + f.Tier + "]" }

// bestTierFigure reports whether the suite measures the figure named name
// on the best tier only (the training epochs and the kernel rows), not on
// every tier the CPU runs.
func bestTierFigure(name string) bool {
	return strings.HasPrefix(name, "averaged epoch") || strings.HasPrefix(name, "RBF kernel row")
}

// compareKeys gives each of r's figures the key compare matches it by
// across reports, and the label it prints. A kernel figure is measured on
// every tier the CPU runs and keeps its tier in both. A figure measured on
// the best tier only matches by name alone, so that two CPUs with
// different best tiers still compare it, and its label names the tier
// ("best: avx512"). A figure named for workers=N where N is the report's
// GOMAXPROCS is the all-cores figure: it matches the other report's
// all-cores figure whatever their core counts.
func compareKeys(r *benchReport) (keys, labels []string) {
	all := ""
	if r.GOMAXPROC > 1 {
		all = fmt.Sprintf("workers=%d", r.GOMAXPROC)
	}
	for _, f := range r.Results {
		name := f.Name
		if all != "" && strings.HasSuffix(name, all) {
			name = strings.TrimSuffix(name, all) + "workers=all"
		}
		if bestTierFigure(f.Name) {
			keys = append(keys, name+" [best tier]")
			labels = append(labels, name+" [best: "+f.Tier+"]")
		} else {
			keys = append(keys, name+" ["+f.Tier+"]")
			labels = append(labels, name+" ["+f.Tier+"]")
		}
	}
	return keys, labels
}

// A benchJob is one figure of the suite. calibrate runs once, before any
// repetition; rep runs one repetition and returns its values (in the
// figure's unit) and how long it took. The suite runs the first
// repetition of every figure, then the second of every figure, and so on,
// so that each figure's min–max spans the whole run: on a machine whose
// speed drifts (other work, clocks, heat) a drift shows up as spread, not
// as a difference between figures or between runs.
type benchJob struct {
	name, unit string
	tier       asm.Tier
	calibrate  func()
	rep        func() ([]float64, time.Duration, error)
}

// timedJob is a benchJob that runs op (which does work units of work)
// about d at a time and reports the rate per second scaled by scale (for
// example 1e-9 for G-units per second).
func timedJob(name, unit string, tier asm.Tier, op func(), work, scale float64, d time.Duration) benchJob {
	n := 1
	return benchJob{name: name, unit: unit, tier: tier,
		calibrate: func() {
			op() // warm up
			for {
				t0 := time.Now()
				for range n {
					op()
				}
				if el := time.Since(t0); el >= d/4 || n >= 1<<30 {
					n = max(1, int(float64(n)*float64(d)/float64(max(el, 1))))
					return
				}
				n *= 4
			}
		},
		rep: func() ([]float64, time.Duration, error) {
			t0 := time.Now()
			for range n {
				op()
			}
			el := time.Since(t0)
			return []float64{work * float64(n) / el.Seconds() * scale}, el, nil
		}}
}

// summarize returns the median, min and max of rates.
func summarize(rates []float64) (med, lo, hi float64) {
	s := slices.Sorted(slices.Values(rates))
	return s[len(s)/2], s[0], s[len(s)-1]
}

var benchSinkF float32

// runBench runs the suite, reps repetitions of about d for each figure
// (a smaller corpus with quick), prints each figure's line on stdout and
// returns the report.
func runBench(ctx context.Context, stdout io.Writer, reps int, d time.Duration, quick bool) (*benchReport, error) {
	start := time.Now()
	rep := newBenchReport(start, reps, d, quick)
	fmt.Fprintf(stdout, "%s\n\n", reportHeader(rep))
	v := benchVectors{rand.New(rand.NewPCG(1, 2))}
	best := asm.Active()
	defer asm.SetTier(best)
	jobs := simdJobs(v, d)
	epochs, err := epochJobs(ctx, best, quick)
	if err != nil {
		return nil, err
	}
	jobs = append(jobs, epochs...)
	jobs = append(jobs, kernelRowJob(v, best, d))
	values, took, err := runJobs(ctx, jobs, reps)
	if err != nil {
		return nil, err
	}
	for i, j := range jobs {
		med, lo, hi := summarize(values[i])
		f := benchFigure{Name: j.name, Tier: j.tier.String(), Unit: j.unit, Median: med, Min: lo, Max: hi,
			Reps: values[i], RepSeconds: took[i].Seconds() / float64(reps)}
		rep.Results = append(rep.Results, f)
		fmt.Fprintf(stdout, "%-50s %-8s %10.3f %-10s (min %.3f, max %.3f)\n", f.Name, f.Tier, med, f.Unit, lo, hi)
	}
	rep.DurationSeconds = time.Since(start).Seconds()
	// The kernels' sums went to benchSinkF so that no call could be
	// optimized away; reading it keeps it.
	runtime.KeepAlive(benchSinkF)
	return rep, nil
}

// newBenchReport returns the report of a run started at start, with what
// it records of the machine and the build, and no figures yet.
func newBenchReport(start time.Time, reps int, d time.Duration, quick bool) *benchReport {
	rep := &benchReport{Suite: benchSuite, Time: start.UTC().Format(time.RFC3339), GoVersion: runtime.Version(),
		GOMAXPROC: runtime.GOMAXPROCS(0), CPU: asm.CPU(), Quick: quick, Repetitions: reps,
		RepMillis: int(d / time.Millisecond), OS: runtime.GOOS}
	if quick {
		rep.Suite += benchQuickSuffix
	}
	v := buildVersion()
	rep.Commit, rep.CommitTime, rep.Modified, rep.GOAMD64 = v.Revision, v.Time, v.Modified, v.GOAMD64
	return rep
}

// benchVectors makes the suite's inputs, all drawn from one seeded
// source, so that every run measures the same values.
type benchVectors struct{ r *rand.Rand }

// vec returns n values uniform in [-0.5, 0.5).
func (b benchVectors) vec(n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = b.r.Float32() - 0.5
	}
	return v
}

// sparseRow returns a row of nnz distinct indices below dim, in order,
// and their values.
func (b benchVectors) sparseRow(nnz, dim int) ([]int32, []float32) {
	set := map[int32]bool{}
	for len(set) < nnz {
		set[int32(b.r.IntN(dim))] = true
	}
	ind := make([]int32, 0, nnz)
	for j := range set {
		ind = append(ind, j)
	}
	slices.Sort(ind)
	return ind, b.vec(nnz)
}

// simdJobs returns the kernel figures on every tier the CPU runs: dense
// dot and axpy at two lengths, and the sparse gather dot and scatter
// axpy at two row sizes against a weight vector of 2^20.
func simdJobs(v benchVectors, d time.Duration) []benchJob {
	const wdim = 1 << 20
	w := v.vec(wdim)
	var jobs []benchJob
	for _, t := range asm.Tiers() {
		for _, n := range []int{256, 65536} {
			x, y := v.vec(n), v.vec(n)
			jobs = append(jobs,
				timedJob(fmt.Sprintf("dense dot f32, n=%d", n), "GFLOP/s", t, func() { benchSinkF += asm.DotF32(x, y) }, float64(2*n), 1e-9, d),
				timedJob(fmt.Sprintf("dense axpy f32, n=%d", n), "GFLOP/s", t, func() { asm.AxpyF32(1e-9, x, y) }, float64(2*n), 1e-9, d))
		}
		for _, nnz := range []int{32, 512} {
			ind, val := v.sparseRow(nnz, wdim)
			jobs = append(jobs,
				timedJob(fmt.Sprintf("sparse dot (gather) f32, nnz=%d", nnz), "Mnnz/s", t, func() { benchSinkF += asm.DotIndF32(val, ind, w) }, float64(nnz), 1e-6, d),
				timedJob(fmt.Sprintf("sparse axpy (scatter) f32, nnz=%d", nnz), "Mnnz/s", t, func() { asm.AxpyIndF32(1e-9, val, ind, w) }, float64(nnz), 1e-6, d))
		}
	}
	return jobs
}

// epochJobs returns the training figures, on the best tier: averaged
// perceptron epochs over a generated corpus, on one core and on all. A
// repetition is one fit of three epochs, the first a warm-up, the other
// two one value each.
func epochJobs(ctx context.Context, best asm.Tier, quick bool) ([]benchJob, error) {
	rows := 100_000
	if quick {
		rows = 5000
	}
	ds, err := synth.Text{Rows: rows, Dim: 1 << 18, Noise: 0.1, Seed: 1}.Generate()
	if err != nil {
		return nil, err
	}
	nnz := float64(ds.X.NNZ())
	counts := []int{1}
	if n := runtime.GOMAXPROCS(0); n > 1 {
		counts = append(counts, n)
	}
	var jobs []benchJob
	for _, workers := range counts {
		jobs = append(jobs, benchJob{name: fmt.Sprintf("averaged epoch, %dk rows × 75 nnz, workers=%d", rows/1000, workers),
			unit: "Mnnz/s", tier: best, calibrate: func() {},
			rep: func() ([]float64, time.Duration, error) {
				var last time.Time
				var rates []float64
				var total time.Duration
				cfg := engine.Config{Epochs: 3, Workers: workers, OnEpoch: func(s engine.EpochStats) error {
					if s.Epoch > 1 {
						t := time.Since(last)
						rates = append(rates, nnz/t.Seconds()*1e-6)
						total += t
					}
					last = time.Now()
					return nil
				}}
				_, _, err := engine.Fit(ctx, ds.X, ds.Y, cfg)
				return rates, total / time.Duration(max(1, len(rates))), err
			}})
	}
	return jobs, nil
}

// kernelRowJob returns the kernel figure, on the best tier: one RBF row
// against 4000 dense rows of 16 features.
func kernelRowJob(v benchVectors, best asm.Tier, d time.Duration) benchJob {
	const kn, kd = 4000, 16
	kd0 := kernels.NewDenseData(v.vec(kn*kd), kn, kd)
	x := v.vec(kd)
	dst, buf := make([]float32, kn), make([]float32, kn)
	k := kernels.RBF{Gamma: 0.5}
	return timedJob("RBF kernel row, 4000 × 16 dense", "Mentries/s", best, func() { kd0.EvalDense(k, x, dst, buf) }, kn, 1e-6, d)
}

// runJobs calibrates every job, then runs reps rounds of one repetition
// of every job in turn (see benchJob), each on its tier, and returns
// each job's values and the time its repetitions took in all.
func runJobs(ctx context.Context, jobs []benchJob, reps int) ([][]float64, []time.Duration, error) {
	for _, j := range jobs {
		if err := asm.SetTier(j.tier); err != nil {
			return nil, nil, err
		}
		j.calibrate()
	}
	values := make([][]float64, len(jobs))
	took := make([]time.Duration, len(jobs))
	for range reps {
		for i, j := range jobs {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
			if err := asm.SetTier(j.tier); err != nil {
				return nil, nil, err
			}
			v, el, err := j.rep()
			if err != nil {
				return nil, nil, err
			}
			values[i] = append(values[i], v...)
			took[i] += el
		}
	}
	return values, took, nil
}

// reportHeader describes a report's run in one line: suite, CPU, cores
// (as cpu prints them), build and repetitions, with "unknown" for what an
// older report did not record.
func reportHeader(r *benchReport) string {
	unknown := func(s string) string {
		if s == "" {
			return "unknown"
		}
		return s
	}
	commit := unknown(r.Commit)
	if len(commit) > 12 {
		commit = commit[:12]
	}
	if r.Modified {
		commit += " (modified)"
	}
	goamd64 := ""
	if r.CPU.Arch == "amd64" || r.GOAMD64 != "" {
		goamd64 = ", GOAMD64 " + unknown(r.GOAMD64)
	}
	reps := "repetitions unknown"
	if r.Repetitions > 0 {
		reps = fmt.Sprintf("%d reps × %d ms", r.Repetitions, r.RepMillis)
		if r.DurationSeconds > 0 {
			reps += fmt.Sprintf(", %.1f s in all", r.DurationSeconds)
		}
	}
	return fmt.Sprintf("%s on %s (%s); cores: %s; commit %s, %s, %s/%s%s; %s; %s",
		r.Suite, unknown(r.CPU.Brand), unknown(r.CPU.Vendor), coresLine(r.CPU, r.GOMAXPROC), commit, unknown(r.GoVersion),
		unknown(r.OS), unknown(r.CPU.Arch), goamd64, reps, r.Time)
}

// span formats a figure's min–max range.
func span(f benchFigure) string { return fmt.Sprintf("%9.3f–%-9.3f", f.Min, f.Max) }

// rangesOverlap reports whether two figures' min–max ranges overlap: their
// ratio is then within the spread of the repetitions, noise.
func rangesOverlap(a, b benchFigure) bool {
	return a.Min <= b.Max && b.Min <= a.Max
}

// benchCompare prints the reports at paths side by side, each figure's
// ratio to the first report's, and with plotPath draws the ratios there.
func benchCompare(stdout io.Writer, paths []string, plotPath string) error {
	reps := make([]*benchReport, len(paths))
	for i, p := range paths {
		r, err := readBenchReport(p)
		if err != nil {
			return err
		}
		reps[i] = r
	}
	for i, r := range reps {
		fmt.Fprintf(stdout, "[%d] %s: %s\n", i+1, paths[i], reportHeader(r))
	}
	for i, r := range reps[1:] {
		if r.Suite != reps[0].Suite {
			fmt.Fprintf(stdout, "warning: [%d] is suite %s and [1] is %s: different suites measure different work, compare figures of one suite\n",
				i+2, r.Suite, reps[0].Suite)
		}
	}
	c := newBenchComparison(stdout, reps)
	for fi := range reps[0].Results {
		c.figureRow(fi)
	}
	c.missingRows()
	if err := c.tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\n%d of %d ratios are noise: the two min–max ranges overlap, so the difference is within the spread\n"+
		"of the repetitions. Only a ratio not marked noise is a difference; more -reps or a quieter machine narrow the ranges.\n",
		c.noisy, c.compared)
	if c.unjudged > 0 {
		fmt.Fprintf(stdout, "%d ratios rest on a single repetition on one side and cannot be judged: run with -reps 3 or more.\n", c.unjudged)
	}
	if plotPath == "" {
		return nil
	}
	return c.plot(plotPath)
}

// readBenchReport reads the report at path, each figure summarized by
// its repetitions, or by its median alone where an older report gave no
// range.
func readBenchReport(path string) (*benchReport, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r benchReport
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: not a bench report: %v", path, err)
	}
	if !strings.HasPrefix(r.Suite, "hyperplane-bench/") {
		return nil, fmt.Errorf("%s: suite %q is not a hyperplane bench report", path, r.Suite)
	}
	for j, f := range r.Results {
		// A figure with repetitions summarizes them; an older one has
		// only its median, min and max.
		if len(f.Reps) > 0 {
			r.Results[j].Median, r.Results[j].Min, r.Results[j].Max = summarize(f.Reps)
		}
		if f.Min == 0 && f.Max == 0 {
			r.Results[j].Min, r.Results[j].Max = f.Median, f.Median
		}
	}
	return &r, nil
}

// ratioPoint is one ratio of a figure for the plot: x its figure's
// place, y the ratio, and [lo, hi] the range the two reports' min–max
// ranges allow, [min/max₁, max/min₁], which spans 1 exactly when the
// ranges overlap.
type ratioPoint struct{ x, y, lo, hi float64 }

// benchComparison is bench compare's table as it is written: the
// reports, each figure's key and label in each (see compareKeys), the
// labels of the rows written so far, the ratio points of each report
// after the first, and the counts the closing lines give.
type benchComparison struct {
	reps                      []*benchReport
	keys, labels              [][]string
	tw                        *tabwriter.Writer
	names                     []string
	points                    [][]ratioPoint
	compared, noisy, unjudged int
}

// newBenchComparison returns the comparison of reps with its table's
// header written.
func newBenchComparison(stdout io.Writer, reps []*benchReport) *benchComparison {
	c := &benchComparison{reps: reps, tw: tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0),
		keys: make([][]string, len(reps)), labels: make([][]string, len(reps)), points: make([][]ratioPoint, len(reps)-1)}
	for i, r := range reps {
		c.keys[i], c.labels[i] = compareKeys(r)
	}
	fmt.Fprintf(c.tw, "\nfigure\tunit\t")
	for i := range reps {
		fmt.Fprintf(c.tw, "[%d] median\tmin–max\t", i+1)
	}
	for i := 1; i < len(reps); i++ {
		fmt.Fprintf(c.tw, "[%d]/[1]\t\t", i+1)
	}
	fmt.Fprintln(c.tw)
	return c
}

// find returns the figure of report i whose key is k and unit unit, or
// nil.
func (c *benchComparison) find(i int, k, unit string) *benchFigure {
	var h *benchFigure
	for m, x := range c.reps[i].Results {
		if c.keys[i][m] == k && x.Unit == unit {
			h = &c.reps[i].Results[m]
		}
	}
	return h
}

// cells writes a figure's median and range, or a dash where the report
// lacks it.
func (c *benchComparison) cells(g *benchFigure) {
	if g == nil {
		fmt.Fprintf(c.tw, "—\t\t")
	} else {
		fmt.Fprintf(c.tw, "%10.3f\t%s\t", g.Median, span(*g))
	}
}

// figureRow writes the row of the first report's figure fi: its value in
// every report, and each later report's ratio to it, marked noise when
// the two ranges overlap.
func (c *benchComparison) figureRow(fi int) {
	f := c.reps[0].Results[fi]
	others := make([]*benchFigure, len(c.reps)-1)
	label := c.labels[0][fi]
	for i := range others {
		others[i] = c.find(i+1, c.keys[0][fi], f.Unit)
		if g := others[i]; g != nil && g.Tier != f.Tier {
			label += " / " + g.Tier
		}
	}
	fmt.Fprintf(c.tw, "%s\t%s\t%10.3f\t%s\t", label, f.Unit, f.Median, span(f))
	for _, g := range others {
		c.cells(g)
	}
	for i, g := range others {
		if g == nil || f.Median <= 0 {
			fmt.Fprintf(c.tw, "—\t\t")
			continue
		}
		ratio := g.Median / f.Median
		mark := ""
		c.compared++
		switch {
		case len(f.Reps) == 1 || len(g.Reps) == 1:
			// One repetition has no spread to judge by.
			mark = "one rep: spread unknown"
			c.unjudged++
		case rangesOverlap(f, *g):
			mark = "noise"
			c.noisy++
		}
		fmt.Fprintf(c.tw, "%7.2fx\t%s\t", ratio, mark)
		q := ratioPoint{x: float64(len(c.names)), y: ratio, lo: ratio, hi: ratio}
		if f.Min > 0 && f.Max > 0 {
			q.lo, q.hi = g.Min/f.Max, g.Max/f.Min
		}
		c.points[i] = append(c.points[i], q)
	}
	fmt.Fprintln(c.tw)
	c.names = append(c.names, label)
}

// missingRows writes the figures the first report lacks (a tier its CPU
// does not run, say), once each, with the reports that have them; they
// have no ratio.
func (c *benchComparison) missingRows() {
	seen := map[string]bool{}
	for _, k := range c.keys[0] {
		seen[k] = true
	}
	for i, r := range c.reps[1:] {
		for j, g := range r.Results {
			k := c.keys[i+1][j]
			if seen[k] {
				continue
			}
			seen[k] = true
			fmt.Fprintf(c.tw, "%s\t%s\t—\t\t", c.labels[i+1][j], g.Unit)
			for l := range c.reps[1:] {
				c.cells(c.find(l+1, k, g.Unit))
			}
			fmt.Fprintf(c.tw, "%s\n", strings.Repeat("—\t\t", len(c.reps)-1))
		}
	}
}

// plot draws each later report's ratios with their ranges, against a
// line at 1, to path (SVG or PNG by its extension).
func (c *benchComparison) plot(path string) error {
	p := plot.New()
	p.Title.Text = "Throughput relative to [1] " + c.reps[0].CPU.Brand
	p.Y.Label.Text = "ratio: median, bar from min to max (higher is faster; a bar across 1 is noise)"
	p.X.Tick.Label.Rotation = 1.2
	p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = -1, -0.5
	one := plotter.NewFunction(func(float64) float64 { return 1 })
	one.Dashes = []vg.Length{vg.Points(4), vg.Points(4)}
	p.Add(one)
	type errPoints struct {
		plotter.XYs
		plotter.YErrors
	}
	for i, pts := range c.points {
		if len(pts) == 0 {
			continue
		}
		shift := (float64(i) - float64(len(c.points)-1)/2) * 0.8 / float64(len(c.points))
		d := errPoints{XYs: make(plotter.XYs, len(pts)), YErrors: make(plotter.YErrors, len(pts))}
		for j, q := range pts {
			d.XYs[j] = plotter.XY{X: q.x + shift, Y: q.y}
			d.YErrors[j].Low, d.YErrors[j].High = q.y-q.lo, q.hi-q.y
		}
		bars, err := plotter.NewYErrorBars(d)
		if err != nil {
			return err
		}
		dots, err := plotter.NewScatter(d)
		if err != nil {
			return err
		}
		bars.LineStyle.Color = plotutil.Color(i)
		dots.GlyphStyle.Color = plotutil.Color(i)
		dots.GlyphStyle.Shape = draw.CircleGlyph{}
		p.Add(bars, dots)
		p.Legend.Add(fmt.Sprintf("[%d] %s", i+2, c.reps[i+1].CPU.Brand), dots)
	}
	p.Legend.Top = true
	p.NominalX(c.names...)
	wdt := vg.Length(len(c.names)) * vg.Points(14) * vg.Length(max(1, len(c.points)))
	w, err := p.WriterTo(max(wdt, 8*vg.Inch), 7*vg.Inch, strings.TrimPrefix(plotExt(path), "."))
	if err != nil {
		return err
	}
	return atomicfile.Write(path, func(out io.Writer) error { _, err := w.WriteTo(out); return err })
}

func plotExt(p string) string {
	if strings.HasSuffix(p, ".png") {
		return ".png"
	}
	return ".svg"
}
