package main

import (
	"context"
	"fmt"
	"time"

	"github.com/hyperplane-ml/hyperplane/internal/iox"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/synth"
)

func newGenCmd() *Command {
	o := new(genOptions)
	c := &Command{
		UsageLine: "gen [-kind text|separable] OUT",
		Short:     "generate a synthetic data set (text-like Zipf corpus, or separable with a known margin)",
		Long: `Gen writes a synthetic data set to OUT: a cache file when OUT ends in .hpc,
else LIBSVM (gzip-compressed when it ends in .gz). The same flags give the
same data on any machine of the same architecture, whatever -threads.

-kind text (the default): rows of term counts over -dim features whose
popularity follows Zipf's law with exponent -zipf, scattered over the
index range as hashing would; about -nnz distinct features a row; labels
from a planted linear rule (-classes of them; ±1 for two), each replaced
by another with probability -noise. A corpus for a scale test:
'gen -rows 10000000 big.hpc'.

-kind separable: -rows points uniform in the ball of radius -radius in
-dim dimensions, labelled ±1 by a random unit separator u through the
origin, every point at distance at least -margin from its hyperplane, so
the perceptron makes at most (R/γ)² mistakes on it. The exact R and γ are
printed.

OUT - is standard output (LIBSVM), the report then going to standard
error.`,
		Run: o.run,
	}
	fs := &c.Flag
	fs.StringVar(&o.kind, "kind", "text", "what to generate: text or separable")
	fs.IntVar(&o.rows, "rows", 100000, "rows (points)")
	fs.IntVar(&o.dim, "dim", 0, "features (0: 2^20 for text, 100 for separable)")
	fs.Float64Var(&o.nnz, "nnz", synth.DefaultMeanNNZ, "text: mean nonzeros per row")
	fs.Float64Var(&o.zipf, "zipf", synth.DefaultZipf, "text: Zipf exponent of feature popularity")
	fs.IntVar(&o.classes, "classes", 2, "text: number of classes")
	fs.Float64Var(&o.noise, "noise", 0, "text: probability of a label flip")
	fs.Float64Var(&o.margin, "margin", 0.1, "separable: margin γ")
	fs.Float64Var(&o.radius, "radius", 1, "separable: radius R of the ball")
	fs.Uint64Var(&o.seed, "seed", 0, "seed")
	fs.IntVar(&o.threads, "threads", 0, "goroutines (0: all cores); the data do not depend on it")
	fs.BoolVar(&o.json, "json", false, "print the result as JSON")
	o.progress = progressFlag(fs)
	return c
}

// genOptions holds gen's flags.
type genOptions struct {
	kind           string
	rows, dim      int
	nnz, zipf      float64
	classes        int
	noise          float64
	margin, radius float64
	seed           uint64
	threads        int
	json           bool
	progress       *bool
}

// run generates the data set and writes it to OUT, args[0].
func (o *genOptions) run(ctx context.Context, env *Env, args []string) error {
	if len(args) != 1 {
		return usageError("gen takes one OUT file")
	}
	if err := o.check(); err != nil {
		return err
	}
	w, err := prepareOutputs(env.Stdout, nil, arg{"OUT", args[0]})
	if err != nil {
		return err
	}
	defer w.cleanup()
	t0 := time.Now()
	res := map[string]any{"kind": o.kind, "out": args[0]}
	d, err := o.generate(ctx, res)
	if err != nil {
		return err
	}
	genSecs := time.Since(t0).Seconds()
	// The rows are generated in one library call; their writing, the
	// longer part for a big file, shows its progress in bytes.
	m := newMeter(env, *o.progress, "writing "+args[0], "bytes", 0)
	err = writeData(meterWriter{iox.Writer(ctx, w.writer(args[0])), m}, args[0], d)
	m.end()
	if err != nil {
		return interrupted(ctx, err)
	}
	if err := ctx.Err(); err != nil {
		return interrupted(ctx, err)
	}
	if err := w.commit(); err != nil {
		return err
	}
	res["rows"], res["cols"], res["nnz"] = d.X.Rows, d.X.Cols, d.X.NNZ()
	res["generate_seconds"], res["seconds"] = genSecs, time.Since(t0).Seconds()
	stdout := env.Stdout
	if writesStdout(env.Stdout, args[0]) {
		stdout = env.Stderr // standard output carries the data
	}
	if o.json {
		return printJSON(stdout, res)
	}
	fmt.Fprintf(stdout, "%s: %s rows, %s features, %s nonzeros (%s; generated in %.2f s, written in %.2f s)\n",
		args[0], commas(int64(d.X.Rows)), commas(int64(d.X.Cols)), commas(d.X.NNZ()), o.kind, genSecs, res["seconds"].(float64)-genSecs)
	if o.kind == "separable" {
		fmt.Fprintf(stdout, "radius R %.6g, margin γ %.6g, mistake bound (R/γ)² %.6g\n", res["radius"], res["margin"], res["mistake_bound"])
	}
	return nil
}

// check refuses, before anything is written, flags the library would
// read as its defaults and data sets too large to hold: gen holds the
// whole data set in memory before writing it, and refuses what cannot
// fit, as the readers do (sparse.MaxNNZ).
func (o *genOptions) check() error {
	if o.kind == "text" && (!(o.nnz > 0) || !(o.zipf > 0) || o.classes < 1) {
		// The library reads 0 as its default; a flag written as 0 asks
		// for something else.
		return usageError("-nnz, -zipf and -classes must be positive")
	}
	per := o.nnz
	if o.kind == "separable" {
		per = float64(o.dim) // dense rows
		if per == 0 {
			per = 100 // the default width
		}
	}
	if per > sparse.DefaultMaxRowNNZ/2 {
		// (A text row's nonzeros vary about -nnz.)
		return usageError("rows of %s features (-dim for -kind separable, whose rows are dense; -nnz for text) pass the %s a row may hold: the readers would refuse the file", commas(int64(per)), commas(sparse.DefaultMaxRowNNZ))
	}
	if est := float64(o.rows) * per; est > sparse.DefaultMaxNNZ {
		return usageError("-rows %s would make about %s nonzeros, more than the %s that fit in memory", commas(int64(o.rows)), commas(int64(est)), commas(sparse.DefaultMaxNNZ))
	}
	return nil
}

// generate makes the data set -kind asks for; for separable data it puts
// the exact radius, margin and mistake bound in res.
func (o *genOptions) generate(ctx context.Context, res map[string]any) (*sparse.Dataset, error) {
	switch o.kind {
	case "text":
		d, err := synth.Text{Rows: o.rows, MeanNNZ: o.nnz, Dim: o.dim, Zipf: o.zipf, Classes: o.classes,
			Noise: o.noise, Seed: o.seed, Workers: o.threads}.GenerateContext(ctx)
		return d, interrupted(ctx, err)
	case "separable":
		if o.dim == 0 {
			o.dim = 100
		}
		if !(o.margin > 0) || !(o.radius > 0) {
			// The library reads 0 as its default; a flag written as 0
			// asks for something else.
			return nil, usageError("-margin and -radius must be positive")
		}
		s, err := synth.Separable{N: o.rows, Dim: o.dim, Radius: o.radius, Margin: o.margin, Seed: o.seed, Workers: o.threads}.GenerateContext(ctx)
		if err != nil {
			return nil, interrupted(ctx, err)
		}
		res["radius"], res["margin"], res["mistake_bound"] = s.R, s.Gamma, s.MistakeBound()
		return s.Data, nil
	}
	return nil, usageError("-kind %q (want text or separable)", o.kind)
}
