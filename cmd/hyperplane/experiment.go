package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"image/color"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/atomicfile"
	"github.com/hyperplane-ml/hyperplane/sparse/libsvm"
	"github.com/hyperplane-ml/hyperplane/sparse/synth"
)

// experimentLong is experiment's help; the verbs name the margins
// experiment's rule of stochastic gradient descent and its epochs.
const experimentLong = `Experiment convergence generates linearly separable data with a known unit
separator u and margin γ (points in the ball of radius R; see 'gen -kind
separable'), trains the plain perceptron through the origin until an
epoch makes no mistake, and records the mistakes made, the bound (R/γ)²
of Novikoff's theorem, the epochs, and the cosine between the learned w
and u. It sweeps the number of points n, the dimension d and the margin
γ, with several seeds each, and writes results.csv and, for each sweep,
the mean mistakes and epochs with the bound on the same axes as SVG and
PNG. A run whose mistakes exceed the bound is a bug: the command fails.

Experiment variants trains the plain, averaged, voted and batch
perceptrons on a data set (the embedded Subjectivity corpus unless
-train and -test are given) and writes the test accuracy after every
epoch as learning curves (variants.csv, variants.svg, variants.png).

Experiment margins sets the large-margin learners (PA, PA-I, PA-II with
C = 1, %[1]s) beside the perceptron on generated data: separable data
of margin γ, each learner until an epoch without updates (at most 2000;
%[1]s %[2]d), and one pass
over the same points with a share of their labels flipped. It records
each learner's mistakes, its mistake bound (Freund and Schapire's for the
perceptron, Crammer et al.'s for the PA family, least over the multiples
of the true separator) and the geometric margin of its final weights, in
margins.csv and margins_{separable,noisy}.{svg,png}. A run whose
mistakes exceed its bound is a bug: the command fails.`

// experimentOptions holds experiment's flags.
type experimentOptions struct {
	out         string // -o, the directory of the results
	seeds       int
	quick       bool
	epochs      int
	train, test string
}

func newExperimentCmd() *Command {
	o := new(experimentOptions)
	c := &Command{
		UsageLine: "experiment convergence|variants|margins",
		Short:     "measure the perceptron against its theory (mistake bound) and its variants against each other, with plots",
		Long:      fmt.Sprintf(experimentLong, ruleTitle(marginSGDRule().String()), marginSGDEpochs),
		Run:       o.run,
	}
	fs := &c.Flag
	fs.StringVar(&o.out, "o", "experiment", "write the CSV and the plots into this `dir`")
	fs.IntVar(&o.seeds, "seeds", 5, "convergence, margins: seeds per setting")
	fs.BoolVar(&o.quick, "quick", false, "convergence, margins: a small sweep (seconds)")
	fs.IntVar(&o.epochs, "epochs", 15, "variants: epochs")
	fs.StringVar(&o.train, "train", "", "variants: training `file` (default: the embedded Subjectivity data, 80/20 split)")
	fs.StringVar(&o.test, "test", "", "variants: test `file`")
	return c
}

// run runs the experiment args names.
func (o *experimentOptions) run(ctx context.Context, env *Env, args []string) error {
	stdout := env.Stdout
	if len(args) != 1 {
		return usageError("experiment takes convergence, variants or margins")
	}
	// The arguments are checked before -o is made, so that a misuse
	// leaves nothing behind.
	if o.out == "" {
		return usageError("-o: the directory name is empty")
	}
	mkdir := func() error { return outDir(o.out) }
	switch args[0] {
	case "convergence", "margins":
		if o.seeds < 1 {
			return usageError("-seeds must be at least 1")
		}
		if err := mkdir(); err != nil {
			return err
		}
		if args[0] == "margins" {
			return marginsExperiment(ctx, stdout, o.out, o.seeds, o.quick)
		}
		return convergence(ctx, stdout, o.out, o.seeds, o.quick)
	case "variants":
		if (o.train == "") != (o.test == "") || o.epochs < 1 {
			return usageError("variants needs both -train and -test or neither, and -epochs ≥ 1")
		}
		return variants(ctx, stdout, o.out, o.train, o.test, o.epochs, mkdir)
	}
	return usageError("unknown experiment %q (want convergence, variants or margins)", args[0])
}

// convRun is one training run of the convergence experiment.
type convRun struct {
	sweep            string
	n, d             int
	gamma            float64 // the margin asked for
	seed             uint64
	R, g, bound      float64 // measured radius and margin, (R/γ)²
	mistakes, epochs int
	converged        bool
	cosine           float64
}

// convSetting is one setting of a convergence sweep.
type convSetting struct {
	sweep string // "n", "d" or "gamma": what the sweep varies
	n, d  int
	gamma float64
}

// convergenceSettings returns the settings of the three sweeps, of n, d
// and γ, each varying one of them from the others' middle values.
func convergenceSettings(quick bool) []convSetting {
	ns, ds, gs := []int{100, 300, 1000, 3000, 10000}, []int{5, 20, 100, 500, 2000}, []float64{0.3, 0.2, 0.1, 0.05, 0.025}
	if quick {
		ns, ds, gs = []int{50, 200, 800}, []int{5, 20, 80}, []float64{0.3, 0.15, 0.075}
	}
	var sets []convSetting
	for _, n := range ns {
		sets = append(sets, convSetting{"n", n, 20, 0.1})
	}
	for _, d := range ds {
		sets = append(sets, convSetting{"d", 1000, d, 0.1})
	}
	for _, g := range gs {
		sets = append(sets, convSetting{"gamma", 1000, 20, g})
	}
	if quick {
		for i := range sets {
			sets[i].n = min(sets[i].n, 800)
		}
	}
	return sets
}

// convergence runs the convergence experiment, seeds runs of each
// setting, checks every run against its bound, and writes results.csv
// and a table and plots for each sweep into dir.
func convergence(ctx context.Context, stdout io.Writer, dir string, seeds int, quick bool) error {
	var runs []convRun
	for _, s := range convergenceSettings(quick) {
		for seed := 1; seed <= seeds; seed++ {
			r, err := convergenceRun(ctx, s.sweep, s.n, s.d, s.gamma, uint64(seed))
			if err != nil {
				return err
			}
			if float64(r.mistakes) > r.bound {
				return fmt.Errorf("BUG: n=%d d=%d γ=%g seed %d: %d mistakes exceed the bound (R/γ)² = %.2f", r.n, r.d, r.g, r.seed, r.mistakes, r.bound)
			}
			runs = append(runs, r)
		}
	}
	if err := writeConvCSV(filepath.Join(dir, "results.csv"), runs); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%-6s %6s %5s %7s %9s %9s %9s %8s %7s\n", "sweep", "n", "d", "γ", "bound", "mistakes", "max", "epochs", "cos")
	for _, sw := range []string{"n", "d", "gamma"} {
		if err := reportConvSweep(stdout, dir, runs, sw); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "\n%d runs, every one within its bound; results.csv and convergence_{n,d,gamma}.{svg,png} in %s\n", len(runs), dir)
	return nil
}

// reportConvSweep prints a line for each setting of the sweep sw, the
// means over its runs, and plots them against the swept value into
// convergence_SW.{svg,png} in dir.
func reportConvSweep(stdout io.Writer, dir string, runs []convRun, sw string) error {
	var xs, mist, maxm, eps, bnd []float64
	for _, g := range groupRuns(runs, sw) {
		m, mx, e, b, c := 0.0, 0.0, 0.0, 0.0, 0.0
		for _, r := range g {
			m += float64(r.mistakes)
			mx = math.Max(mx, float64(r.mistakes))
			e += float64(r.epochs)
			b += r.bound
			c += r.cosine
		}
		k := float64(len(g))
		r0 := g[0]
		fmt.Fprintf(stdout, "%-6s %6d %5d %7.3f %9.1f %9.1f %9.0f %8.1f %7.3f\n", sw, r0.n, r0.d, r0.gamma, b/k, m/k, mx, e/k, c/k)
		switch sw {
		case "n":
			xs = append(xs, float64(r0.n))
		case "d":
			xs = append(xs, float64(r0.d))
		default:
			xs = append(xs, 1/(r0.gamma*r0.gamma))
		}
		mist, maxm, eps, bnd = append(mist, m/k), append(maxm, mx), append(eps, e/k), append(bnd, b/k)
	}
	xlabel := map[string]string{"n": "points n", "d": "dimension d", "gamma": "1/γ²"}[sw]
	g0 := groupRuns(runs, sw)[0][0]
	title := map[string]string{
		"n":     fmt.Sprintf("Perceptron mistakes vs n (d = %d, γ = %g)", g0.d, g0.gamma),
		"d":     fmt.Sprintf("Perceptron mistakes vs d (n = %d, γ = %g)", g0.n, g0.gamma),
		"gamma": fmt.Sprintf("Perceptron mistakes vs 1/γ² (n = %d, d = %d)", g0.n, g0.d),
	}[sw]
	return plotSweep(filepath.Join(dir, "convergence_"+sw), title, xlabel, xs, map[string][]float64{
		"bound (R/γ)²": bnd, "mistakes (mean)": mist, "mistakes (max)": maxm, "epochs (mean)": eps,
	})
}

func convergenceRun(ctx context.Context, sweep string, n, d int, gamma float64, seed uint64) (convRun, error) {
	s, err := synth.Separable{N: n, Dim: d, Margin: gamma, Radius: 1, Seed: seed}.Generate()
	if err != nil {
		return convRun{}, err
	}
	const maxEpochs = 100000
	m, stats, err := engine.Fit(ctx, s.Data.X, s.Data.Y, engine.Config{
		Algorithm: engine.Plain, Bias: engine.NoBias, Epochs: maxEpochs, Seed: seed,
	})
	if err != nil {
		return convRun{}, err
	}
	r := convRun{sweep: sweep, n: n, d: d, gamma: gamma, seed: seed, R: s.R, g: s.Gamma, bound: s.MistakeBound(), epochs: len(stats)}
	for _, e := range stats {
		r.mistakes += e.Mistakes
	}
	r.converged = stats[len(stats)-1].Mistakes == 0
	// The learned w points the way of the positive class (Classes[1]).
	var dot, ww, uu float64
	for j, u := range s.U {
		w := float64(m.Weight(0, j))
		dot, ww, uu = dot+w*u, ww+w*w, uu+u*u
	}
	if m.Classes[1] < m.Classes[0] {
		dot = -dot
	}
	r.cosine = dot / math.Sqrt(ww*uu)
	return r, nil
}

// groupRuns returns the runs of a sweep grouped by setting, in order.
func groupRuns(runs []convRun, sweep string) [][]convRun {
	var out [][]convRun
	for _, r := range runs {
		if r.sweep != sweep {
			continue
		}
		if k := len(out); k > 0 && out[k-1][0].n == r.n && out[k-1][0].d == r.d && out[k-1][0].gamma == r.gamma {
			out[k-1] = append(out[k-1], r)
		} else {
			out = append(out, []convRun{r})
		}
	}
	return out
}

func writeConvCSV(path string, runs []convRun) error {
	rows := make([][]string, len(runs))
	f := csvFloat
	for i, r := range runs {
		rows[i] = []string{r.sweep, strconv.Itoa(r.n), strconv.Itoa(r.d), f(r.gamma), strconv.FormatUint(r.seed, 10),
			f(r.R), f(r.g), f(r.bound), strconv.Itoa(r.mistakes), strconv.Itoa(r.epochs), strconv.FormatBool(r.converged), f(r.cosine)}
	}
	return writeCSV(path, []string{"sweep", "n", "d", "gamma", "seed", "radius", "measured_gamma", "bound", "mistakes", "epochs", "converged", "cosine"}, rows)
}

// The experiments' files: the results of each run as CSV, and plots.

// writeCSV writes the header and rows to the CSV file path, replacing it
// atomically (see atomicfile.Write).
func writeCSV(path string, header []string, rows [][]string) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		cw := csv.NewWriter(w)
		cw.Write(header)
		return cw.WriteAll(rows)
	})
}

// csvFloat formats a measurement for the CSV files, to 8 digits.
func csvFloat(x float64) string { return strconv.FormatFloat(x, 'g', 8, 64) }

// newPlot returns a plot with a title and axis labels.
func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	return p
}

// linePoints returns a line through pts and its points, both in the i'th
// colour of plotutil's palette, the points in its i'th shape.
func linePoints(pts plotter.XYs, i int) (*plotter.Line, *plotter.Scatter, error) {
	line, points, err := plotter.NewLinePoints(pts)
	if err != nil {
		return nil, nil, err
	}
	line.Color, points.Color, points.Shape = plotutil.Color(i), plotutil.Color(i), plotutil.Shape(i)
	return line, points, nil
}

// plotSweep draws the named series against xs on one set of log-log axes
// and saves base.svg and base.png.
func plotSweep(base, title, xlabel string, xs []float64, series map[string][]float64) error {
	p := newPlot(title, xlabel, "count")
	p.Legend.Top = true
	p.Legend.Left = true
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{}
	p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{}
	names := []string{"bound (R/γ)²", "mistakes (max)", "mistakes (mean)", "epochs (mean)"}
	for i, name := range names {
		ys, ok := series[name]
		if !ok {
			continue
		}
		pts := make(plotter.XYs, len(xs))
		for k := range xs {
			pts[k].X, pts[k].Y = xs[k], math.Max(ys[k], 0.5) // log axes: keep zeros drawable
		}
		line, points, err := linePoints(pts, i)
		if err != nil {
			return err
		}
		if name == "bound (R/γ)²" {
			line.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
			line.Color = color.Black
			points.Color = color.Black
		}
		p.Add(line, points)
		p.Legend.Add(name, line, points)
	}
	return savePlot(p, base)
}

func savePlot(p *plot.Plot, base string) error {
	for _, ext := range []string{".svg", ".png"} {
		w, err := p.WriterTo(7*vg.Inch, 4.5*vg.Inch, ext[1:])
		if err != nil {
			return err
		}
		if err := atomicfile.Write(base+ext, func(out io.Writer) error { _, err := w.WriteTo(out); return err }); err != nil {
			return err
		}
	}
	return nil
}

// variants runs the variants experiment: the learning curve of each
// perceptron algorithm over epochs epochs, on trainPath and testPath or
// the embedded data, written into dir (made by mkdir once the data are
// read) as variants.csv and plots, and printed as a table.
func variants(ctx context.Context, stdout io.Writer, dir, trainPath, testPath string, epochs int, mkdir func() error) error {
	tr, te, name, err := variantsData(ctx, trainPath, testPath)
	if err != nil {
		return err
	}
	if err := mkdir(); err != nil {
		return err
	}
	algos := []engine.Algorithm{engine.Plain, engine.Averaged, engine.Voted, engine.Batch}
	acc, err := learningCurves(ctx, tr, te, algos, epochs)
	if err != nil {
		return err
	}
	header := []string{"epoch"}
	for _, alg := range algos {
		header = append(header, alg.String())
	}
	rows := make([][]string, epochs)
	for e := range rows {
		rows[e] = []string{strconv.Itoa(e + 1)}
		for a := range algos {
			rows[e] = append(rows[e], strconv.FormatFloat(acc[a][e], 'f', 4, 64))
		}
	}
	if err := writeCSV(filepath.Join(dir, "variants.csv"), header, rows); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s\n%-6s %8s %8s %8s %8s\n", name, "epoch", "plain", "averaged", "voted", "batch")
	for e := range epochs {
		fmt.Fprintf(stdout, "%-6d %8.4f %8.4f %8.4f %8.4f\n", e+1, acc[0][e], acc[1][e], acc[2][e], acc[3][e])
	}
	if err := plotCurves(filepath.Join(dir, "variants"), "Test accuracy per epoch: "+name, algos, acc); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nvariants.csv and variants.{svg,png} in %s\n", dir)
	return nil
}

// variantsData returns the training and test rows of the variants
// experiment and their name: the files' (both given), or the embedded
// Subjectivity data's split 80/20.
func variantsData(ctx context.Context, trainPath, testPath string) (tr, te *sparse.Dataset, name string, err error) {
	if trainPath == "" {
		d, err := libsvm.Read(bytes.NewReader(subjectivity), sparse.ReadOptions{Name: "subjectivity.svm.gz"})
		if err != nil {
			return nil, nil, "", err
		}
		perm := rand.New(rand.NewPCG(1, 2)).Perm(d.Len())
		nTest := d.Len() / 5
		tr = &sparse.Dataset{X: d.X.SelectRows(perm[nTest:]), Y: pick(d.Y, perm[nTest:])}
		te = &sparse.Dataset{X: d.X.SelectRows(perm[:nTest]), Y: pick(d.Y, perm[:nTest])}
		return tr, te, "Subjectivity (embedded), 80/20 split", nil
	}
	if tr, err = readDataPath(ctx, trainPath); err != nil {
		return nil, nil, "", err
	}
	if te, err = readDataPath(ctx, testPath); err != nil {
		return nil, nil, "", err
	}
	if te.X.Rows == 0 {
		// Accuracy on no rows is NaN: nothing to plot, and an existing
		// variants.csv would be replaced by NaN.
		return nil, nil, "", usageError("%s has no rows to test on", testPath)
	}
	return tr, te, trainPath + " → " + testPath, nil
}

// learningCurves returns, for each algorithm of algos, the accuracy on te
// of its model trained on tr after each of epochs epochs.
func learningCurves(ctx context.Context, tr, te *sparse.Dataset, algos []engine.Algorithm, epochs int) ([][]float64, error) {
	acc := make([][]float64, len(algos))
	for a, alg := range algos {
		// The model after e epochs is what Fit with Epochs e returns (the
		// same seed gives the same first e epochs).
		for e := 1; e <= epochs; e++ {
			cfg := engine.Config{Algorithm: alg, Epochs: e, Seed: 1}
			if alg == engine.Batch {
				cfg.LearningRate = 0.1
			}
			m, _, err := engine.Fit(ctx, tr.X, tr.Y, cfg)
			if err != nil {
				return nil, err
			}
			right := 0
			for i, p := range m.PredictBatch(te.X, nil) {
				if p == te.Y[i] {
					right++
				}
			}
			acc[a] = append(acc[a], float64(right)/float64(te.X.Rows))
		}
	}
	return acc, nil
}

// plotCurves draws each algorithm's accuracies acc against the epochs
// and saves base.svg and base.png.
func plotCurves(base, title string, algos []engine.Algorithm, acc [][]float64) error {
	p := newPlot(title, "epoch", "test accuracy")
	p.Legend.Left = false
	for a, alg := range algos {
		pts := make(plotter.XYs, len(acc[a]))
		for e := range pts {
			pts[e].X, pts[e].Y = float64(e+1), acc[a][e]
		}
		line, points, err := linePoints(pts, a)
		if err != nil {
			return err
		}
		p.Add(line, points)
		p.Legend.Add(alg.String(), line, points)
	}
	return savePlot(p, base)
}

// outDir makes dir, where an experiment writes its files, and checks that
// a file can be created in it, before the experiment runs.
func outDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	p, err := atomicfile.Create(filepath.Join(dir, "results"))
	if err != nil {
		return fmt.Errorf("-o %s: %w", dir, err)
	}
	return p.Cleanup()
}

// readDataPath reads the LIBSVM or cache file at path as sparse.ReadFile
// does, but through ctx, so that a signal stops a long parse.
func readDataPath(ctx context.Context, path string) (*sparse.Dataset, error) {
	in, err := openData(ctx, &Env{Stdin: os.Stdin}, path)
	if err != nil {
		return nil, interrupted(ctx, err)
	}
	defer in.close()
	d, err := readData(in, "")
	if err == nil {
		err = ctx.Err()
	}
	return d, interrupted(ctx, err)
}
