package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/hyperplane-ml/hyperplane/asm"
	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// trainKernel is train for the kernel perceptron.
func trainKernel(stdout io.Writer, path string, cfg engine.KernelConfig, o trainOpts) error {
	t0 := time.Now()
	d, err := sparse.ReadFile(path, sparse.ReadOptions{})
	if err != nil {
		return err
	}
	te, err := readTest(o)
	if err != nil {
		return err
	}
	r := trainResult{Train: path, Test: o.test, Tier: asm.Active().String(), Algorithm: cfg.Algorithm.String(), Rule: cfg.Rule.String(),
		Rows: d.X.Rows, Features: d.X.Cols, NNZ: d.X.NNZ(), ReadSeconds: time.Since(t0).Seconds()}
	r.announce(stdout, o, distinct(d.Y))
	endProgress := func() {}
	if o.verbose {
		cfg.OnEpoch = func(s engine.KernelEpochStats) error {
			fmt.Fprintf(os.Stderr, "epoch %d: %d mistakes, %d updates, loss %.4g, %d support vectors (%d removed), Gram %d hits %d misses\n",
				s.Epoch, s.Mistakes, s.Updates, s.Loss, s.SupportVectors, s.Removed, s.Gram.Hits, s.Gram.Misses)
			return nil
		}
	} else if line, end := progressLine(os.Stderr, cfg.Epochs); line != nil {
		endProgress = end
		cfg.OnEpoch = func(s engine.KernelEpochStats) error {
			line(s.EpochStats, fmt.Sprintf(", %d support vectors", s.SupportVectors))
			return nil
		}
	}
	t1 := time.Now()
	m, stats, err := engine.FitKernel(ctx, d.X, d.Y, cfg)
	endProgress()
	r.TrainSeconds = time.Since(t1).Seconds()
	if err := fitFailed(path, err, m != nil); err != nil {
		return err
	}
	interrupted := err
	r.Epochs, r.Classes, r.Kernel, r.SupportVectors = len(stats), len(m.Classes), m.Kernel.String(), m.NumSV()
	for _, s := range stats {
		r.Mistakes = append(r.Mistakes, s.Mistakes)
	}
	if n := len(stats); n > 0 {
		g := stats[n-1].Gram
		r.Gram = &g
		r.EpochSeconds = r.TrainSeconds / float64(n)
	}
	return r.finish(stdout, m, m, te, o, nil, interrupted)
}
