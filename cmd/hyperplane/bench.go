package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/hyperplane-ml/hyperplane/asm"
	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/kernels"
	"github.com/hyperplane-ml/hyperplane/sparse/atomicfile"
	"github.com/hyperplane-ml/hyperplane/sparse/synth"
)

// benchSuite names the fixed benchmark suite; a report from another
// version is compared figure by figure, by name.
const benchSuite = "hyperplane-bench/1"

func newBenchCmd() *Command {
	c := &Command{
		UsageLine: "bench [compare A.json B.json ...]",
		Short:     "run the fixed benchmark suite (every SIMD tier), or compare reports across CPUs",
		Long: `Bench runs a fixed, versioned suite and prints a table: dense and sparse
kernels (dot, axpy, gather dot, scatter axpy) at several sizes on every
SIMD tier this CPU runs, one averaged-perceptron epoch over a generated
sparse text-like corpus on one core and on all, and RBF kernel rows. Each
figure is the median, with min and max, of -reps repetitions of about
-ms milliseconds each. -o writes the report as JSON with the CPU (brand,
vendor, family/model, feature flags, caches, cores), the Go version and
the tiers.

Bench compare prints reports side by side, each figure's ratio to the
first report's, and with -plot draws the ratios as a bar chart (SVG or
PNG by the file's extension).`,
	}
	fs := &c.Flag
	out := fs.String("o", "", "write the report as JSON to this `file`")
	reps := fs.Int("reps", 7, "repetitions of each figure")
	ms := fs.Int("ms", 40, "milliseconds per repetition")
	quick := fs.Bool("quick", false, "a smaller corpus and fewer repetitions (for a smoke test)")
	plotPath := fs.String("plot", "", "compare: draw the ratios to this `file` (.svg or .png)")
	c.Run = func(ctx context.Context, env *Env, args []string) error {
		stdout := env.Stdout
		if len(args) > 0 && args[0] == "compare" {
			// (run has parsed flags after compare and between the
			// reports too.)
			files := args[1:]
			if runOnly := setAmong(fs, "o", "reps", "ms", "quick"); len(runOnly) > 0 {
				return usageError("%s apply to a run of the suite, not to compare", strings.Join(runOnly, ", "))
			}
			if len(files) < 2 {
				return usageError("bench compare needs at least two reports")
			}
			if len(setAmong(fs, "plot")) > 0 {
				var ins []arg
				for _, f := range files {
					ins = append(ins, arg{"report", f})
				}
				// The plot is drawn last; its file is checked first.
				w, err := prepareOutputs(stdout, ins, arg{"-plot", *plotPath})
				if err != nil {
					return err
				}
				w.cleanup()
			}
			return benchCompare(stdout, files, *plotPath)
		}
		if len(args) > 0 {
			return usageError("bench takes no file (did you mean bench compare?)")
		}
		if *plotPath != "" {
			return usageError("-plot draws a comparison: bench compare -plot FILE A.json B.json")
		}
		if *reps < 1 || *ms < 1 {
			return usageError("-reps and -ms must be positive")
		}
		if *quick {
			*reps, *ms = min(*reps, 3), min(*ms, 5)
		}
		var outArgs []arg
		if len(setAmong(fs, "o")) > 0 {
			outArgs = append(outArgs, arg{"-o", *out})
		}
		w, err := prepareOutputs(stdout, nil, outArgs...)
		if err != nil {
			return err
		}
		defer w.cleanup()
		r, err := runBench(ctx, stdout, *reps, time.Duration(*ms)*time.Millisecond, *quick)
		if err != nil {
			return err
		}
		if *out != "" {
			if err := printJSON(w.writer(*out), r); err != nil {
				return err
			}
			return w.commit()
		}
		return nil
	}
	return c
}

// benchReport is the JSON report of one run of the suite.
type benchReport struct {
	Suite     string        `json:"suite"`
	Time      string        `json:"time"`
	GoVersion string        `json:"go_version"`
	GOMAXPROC int           `json:"gomaxprocs"`
	CPU       asm.CPUInfo   `json:"cpu"`
	Results   []benchFigure `json:"results"`
}

// benchFigure is one figure: higher is better in every unit used.
type benchFigure struct {
	Name   string  `json:"name"`
	Tier   string  `json:"tier"`
	Unit   string  `json:"unit"`
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

func (f benchFigure) key() string { return f.Name + " [" + f.Tier + "]" }

// measure runs op (which does work units of work) repeatedly for about d,
// reps times, and returns the rate per second of each repetition scaled by
// scale (for example 1e-9 for G-units per second).
func measure(op func(), work, scale float64, reps int, d time.Duration) (med, lo, hi float64) {
	op() // warm up
	n := 1
	for {
		t0 := time.Now()
		for range n {
			op()
		}
		if el := time.Since(t0); el >= d/4 || n >= 1<<30 {
			n = max(1, int(float64(n)*float64(d)/float64(max(el, 1))))
			break
		}
		n *= 4
	}
	rates := make([]float64, reps)
	for r := range reps {
		t0 := time.Now()
		for range n {
			op()
		}
		rates[r] = work * float64(n) / time.Since(t0).Seconds() * scale
	}
	slices.Sort(rates)
	return rates[reps/2], rates[0], rates[reps-1]
}

var benchSinkF float32

func runBench(ctx context.Context, stdout io.Writer, reps int, d time.Duration, quick bool) (*benchReport, error) {
	rep := &benchReport{Suite: benchSuite, Time: time.Now().UTC().Format(time.RFC3339), GoVersion: runtime.Version(),
		GOMAXPROC: runtime.GOMAXPROCS(0), CPU: asm.CPU()}
	add := func(name, tier, unit string, med, lo, hi float64) {
		f := benchFigure{Name: name, Tier: tier, Unit: unit, Median: med, Min: lo, Max: hi}
		rep.Results = append(rep.Results, f)
		fmt.Fprintf(stdout, "%-36s %-8s %10.3f %-10s (min %.3f, max %.3f)\n", name, tier, med, unit, lo, hi)
	}
	fmt.Fprintf(stdout, "%s on %s, %s, %d cores\n\n", benchSuite, rep.CPU.Brand, rep.GoVersion, rep.GOMAXPROC)
	r := rand.New(rand.NewPCG(1, 2))
	vec := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = r.Float32() - 0.5
		}
		return v
	}
	const wdim = 1 << 20
	w := vec(wdim)
	sparseRow := func(nnz int) ([]int32, []float32) {
		set := map[int32]bool{}
		for len(set) < nnz {
			set[int32(r.IntN(wdim))] = true
		}
		ind := make([]int32, 0, nnz)
		for j := range set {
			ind = append(ind, j)
		}
		slices.Sort(ind)
		return ind, vec(nnz)
	}
	best := asm.Active()
	defer asm.SetTier(best)
	for _, t := range asm.Tiers() {
		if err := asm.SetTier(t); err != nil {
			return nil, err
		}
		tn := t.String()
		for _, n := range []int{256, 65536} {
			x, y := vec(n), vec(n)
			med, lo, hi := measure(func() { benchSinkF += asm.DotF32(x, y) }, float64(2*n), 1e-9, reps, d)
			add(fmt.Sprintf("dense dot f32, n=%d", n), tn, "GFLOP/s", med, lo, hi)
			med, lo, hi = measure(func() { asm.AxpyF32(1e-9, x, y) }, float64(2*n), 1e-9, reps, d)
			add(fmt.Sprintf("dense axpy f32, n=%d", n), tn, "GFLOP/s", med, lo, hi)
		}
		for _, nnz := range []int{32, 512} {
			ind, val := sparseRow(nnz)
			med, lo, hi := measure(func() { benchSinkF += asm.DotIndF32(val, ind, w) }, float64(nnz), 1e-6, reps, d)
			add(fmt.Sprintf("sparse dot (gather) f32, nnz=%d", nnz), tn, "Mnnz/s", med, lo, hi)
			med, lo, hi = measure(func() { asm.AxpyIndF32(1e-9, val, ind, w) }, float64(nnz), 1e-6, reps, d)
			add(fmt.Sprintf("sparse axpy (scatter) f32, nnz=%d", nnz), tn, "Mnnz/s", med, lo, hi)
		}
	}
	if err := asm.SetTier(best); err != nil {
		return nil, err
	}
	tn := best.String()

	// Training: averaged-perceptron epochs over a generated corpus.
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
	for _, workers := range counts {
		var rates []float64
		for range reps {
			var last time.Time
			var times []time.Duration
			cfg := engine.Config{Epochs: 3, Workers: workers, OnEpoch: func(s engine.EpochStats) error {
				if s.Epoch > 1 {
					times = append(times, time.Since(last))
				}
				last = time.Now()
				return nil
			}}
			if _, _, err := engine.Fit(ctx, ds.X, ds.Y, cfg); err != nil {
				return nil, err
			}
			for _, t := range times {
				rates = append(rates, nnz/t.Seconds()*1e-6)
			}
		}
		slices.Sort(rates)
		add(fmt.Sprintf("averaged epoch, %dk rows × 75 nnz, workers=%d", rows/1000, workers), tn, "Mnnz/s", rates[len(rates)/2], rates[0], rates[len(rates)-1])
	}

	// Kernel rows: one RBF row against 4000 dense rows of 16 features.
	const kn, kd = 4000, 16
	kd0 := kernels.NewDenseData(vec(kn*kd), kn, kd)
	x := vec(kd)
	dst, buf := make([]float32, kn), make([]float32, kn)
	k := kernels.RBF{Gamma: 0.5}
	med, lo, hi := measure(func() { kd0.EvalDense(k, x, dst, buf) }, kn, 1e-6, reps, d)
	add("RBF kernel row, 4000 × 16 dense", tn, "Mentries/s", med, lo, hi)
	return rep, nil
}

func benchCompare(stdout io.Writer, paths []string, plotPath string) error {
	reps := make([]*benchReport, len(paths))
	for i, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var r benchReport
		if err := json.Unmarshal(b, &r); err != nil {
			return fmt.Errorf("%s: not a bench report: %v", p, err)
		}
		if !strings.HasPrefix(r.Suite, "hyperplane-bench/") {
			return fmt.Errorf("%s: suite %q is not a hyperplane bench report", p, r.Suite)
		}
		reps[i] = &r
	}
	for i, r := range reps {
		fmt.Fprintf(stdout, "[%d] %s: %s (%s, %d cores, %s), %s\n", i+1, paths[i], r.CPU.Brand, r.CPU.Arch, r.GOMAXPROC, r.GoVersion, r.Suite)
	}
	fmt.Fprintf(stdout, "\n%-52s", "figure")
	for i := range reps {
		fmt.Fprintf(stdout, " %12s", fmt.Sprintf("[%d]", i+1))
	}
	for i := 1; i < len(reps); i++ {
		fmt.Fprintf(stdout, " %9s", fmt.Sprintf("[%d]/[1]", i+1))
	}
	fmt.Fprintln(stdout)
	var names []string
	ratios := make([][]float64, len(reps)-1)
	for _, f := range reps[0].Results {
		fmt.Fprintf(stdout, "%-52s %12.3f", f.key()+" "+f.Unit, f.Median)
		others := make([]float64, len(reps)-1)
		for i, r := range reps[1:] {
			others[i] = -1
			for _, g := range r.Results {
				if g.key() == f.key() && g.Unit == f.Unit {
					others[i] = g.Median
				}
			}
		}
		for _, v := range others {
			if v < 0 {
				fmt.Fprintf(stdout, " %12s", "—")
			} else {
				fmt.Fprintf(stdout, " %12.3f", v)
			}
		}
		for i, v := range others {
			ratio := 0.0
			if v >= 0 && f.Median > 0 {
				ratio = v / f.Median
				fmt.Fprintf(stdout, " %8.2fx", ratio)
			} else {
				fmt.Fprintf(stdout, " %9s", "—")
			}
			ratios[i] = append(ratios[i], ratio)
		}
		fmt.Fprintln(stdout)
		names = append(names, f.key())
	}
	if plotPath == "" {
		return nil
	}
	p := plot.New()
	p.Title.Text = "Throughput relative to " + reps[0].CPU.Brand
	p.Y.Label.Text = "ratio (higher is faster)"
	p.X.Tick.Label.Rotation = 1.2
	p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = -1, -0.5
	width := vg.Points(8)
	for i, rs := range ratios {
		bars, err := plotter.NewBarChart(plotter.Values(rs), width)
		if err != nil {
			return err
		}
		bars.Color = plotutil.Color(i)
		bars.LineStyle.Width = 0
		bars.Offset = vg.Length(i-len(ratios)/2) * width
		p.Add(bars)
		p.Legend.Add(fmt.Sprintf("[%d] %s", i+2, reps[i+1].CPU.Brand), bars)
	}
	p.Legend.Top = true
	p.NominalX(names...)
	wdt := vg.Length(len(names)) * vg.Points(14) * vg.Length(max(1, len(ratios)))
	w, err := p.WriterTo(max(wdt, 8*vg.Inch), 7*vg.Inch, strings.TrimPrefix(plotExt(plotPath), "."))
	if err != nil {
		return err
	}
	return atomicfile.Write(plotPath, func(out io.Writer) error { _, err := w.WriteTo(out); return err })
}

func plotExt(p string) string {
	if strings.HasSuffix(p, ".png") {
		return ".png"
	}
	return ".svg"
}
