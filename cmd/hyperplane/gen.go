package main

import (
	"context"
	"fmt"
	"time"

	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/synth"
)

func newGenCmd() *Command {
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
	}
	fs := &c.Flag
	kind := fs.String("kind", "text", "what to generate: text or separable")
	rows := fs.Int("rows", 100000, "rows (points)")
	dim := fs.Int("dim", 0, "features (0: 2^20 for text, 100 for separable)")
	nnz := fs.Float64("nnz", synth.DefaultMeanNNZ, "text: mean nonzeros per row")
	zipf := fs.Float64("zipf", synth.DefaultZipf, "text: Zipf exponent of feature popularity")
	classes := fs.Int("classes", 2, "text: number of classes")
	noise := fs.Float64("noise", 0, "text: probability of a label flip")
	margin := fs.Float64("margin", 0.1, "separable: margin γ")
	radius := fs.Float64("radius", 1, "separable: radius R of the ball")
	seed := fs.Uint64("seed", 0, "seed")
	threads := fs.Int("threads", 0, "goroutines (0: all cores); the data do not depend on it")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	showProgress := progressFlag(fs)
	c.Run = func(ctx context.Context, env *Env, args []string) error {
		stdout := env.Stdout
		if len(args) != 1 {
			return usageError("gen takes one OUT file")
		}
		// Gen holds the whole data set in memory before writing it:
		// refuse what cannot fit, as the readers do (sparse.MaxNNZ).
		if *kind == "text" && (!(*nnz > 0) || !(*zipf > 0) || *classes < 1) {
			// The library reads 0 as its default; a flag written as
			// 0 asks for something else.
			return usageError("-nnz, -zipf and -classes must be positive")
		}
		per := *nnz
		if *kind == "separable" {
			per = float64(*dim) // dense rows
			if per == 0 {
				per = 100 // the default width
			}
		}
		if per > sparse.DefaultMaxRowNNZ/2 {
			// (A text row's nonzeros vary about -nnz.)
			return usageError("rows of %s features (-dim for -kind separable, whose rows are dense; -nnz for text) pass the %s a row may hold: the readers would refuse the file", commas(int64(per)), commas(sparse.DefaultMaxRowNNZ))
		}
		if est := float64(*rows) * per; est > sparse.DefaultMaxNNZ {
			return usageError("-rows %s would make about %s nonzeros, more than the %s that fit in memory", commas(int64(*rows)), commas(int64(est)), commas(sparse.DefaultMaxNNZ))
		}
		w, err := prepareOutputs(stdout, nil, arg{"OUT", args[0]})
		if err != nil {
			return err
		}
		defer w.cleanup()
		t0 := time.Now()
		var d *sparse.Dataset
		res := map[string]any{"kind": *kind, "out": args[0]}
		switch *kind {
		case "text":
			d, err = synth.Text{Rows: *rows, MeanNNZ: *nnz, Dim: *dim, Zipf: *zipf, Classes: *classes,
				Noise: *noise, Seed: *seed, Workers: *threads}.GenerateContext(ctx)
			if err != nil {
				return interrupted(ctx, err)
			}
		case "separable":
			if *dim == 0 {
				*dim = 100
			}
			if !(*margin > 0) || !(*radius > 0) {
				// The library reads 0 as its default; a flag written
				// as 0 asks for something else.
				return usageError("-margin and -radius must be positive")
			}
			s, err := synth.Separable{N: *rows, Dim: *dim, Radius: *radius, Margin: *margin, Seed: *seed, Workers: *threads}.GenerateContext(ctx)
			if err != nil {
				return interrupted(ctx, err)
			}
			d = s.Data
			res["radius"], res["margin"], res["mistake_bound"] = s.R, s.Gamma, s.MistakeBound()
		default:
			return usageError("-kind %q (want text or separable)", *kind)
		}
		genSecs := time.Since(t0).Seconds()
		// The rows are generated in one library call; their writing,
		// the longer part for a big file, shows its progress in bytes.
		m := newMeter(env, *showProgress, "writing "+args[0], "bytes", 0)
		err = writeData(meterWriter{ctxWriter{ctx, w.writer(args[0])}, m}, args[0], d)
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
		if writesStdout(env.Stdout, args[0]) {
			stdout = env.Stderr // standard output carries the data
		}
		if *asJSON {
			return printJSON(stdout, res)
		}
		fmt.Fprintf(stdout, "%s: %s rows, %s features, %s nonzeros (%s; generated in %.2f s, written in %.2f s)\n",
			args[0], commas(int64(d.X.Rows)), commas(int64(d.X.Cols)), commas(d.X.NNZ()), *kind, genSecs, res["seconds"].(float64)-genSecs)
		if *kind == "separable" {
			fmt.Fprintf(stdout, "radius R %.6g, margin γ %.6g, mistake bound (R/γ)² %.6g\n", res["radius"], res["margin"], res["mistake_bound"])
		}
		return nil
	}
	return c
}
