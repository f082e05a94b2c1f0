// Command hpref times hyperplane's side of bench/compare_c.sh in one
// process, parsing excluded: the averaged perceptron's Fit (engine.Config's
// zero value, which is what train -algo averaged -normalize=false runs)
// and the bare pass, one w·x per row in storage order through
// asm.DotRowsF32, the kernel the engine's passes use.
//
// Usage: hpref [-c] [-r reps] [-e epochs] TRAIN [TEST]
//
// -c times by the process's CPU time (user and system, all threads, as
// getrusage reports it) instead of the wall clock: on a shared machine it
// leaves out the time spent waiting for a core.
//
// Output, one figure a line, times in ms as median [min-max] over reps:
//
//	hp.epoch_ms  M [LO-HI]   (a fit's time divided by its epochs)
//	hp.bare_ms   M [LO-HI]
//	hp.test_acc  A           (with TEST)
//	hp.mistakes  first last
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"syscall"
	"time"

	"github.com/hyperplane-ml/hyperplane/asm"
	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

func main() {
	reps := flag.Int("r", 5, "fits and bare passes timed")
	epochs := flag.Int("e", 10, "epochs per fit")
	cpu := flag.Bool("c", false, "time by the process's CPU time, not the wall clock")
	flag.Parse()
	if *cpu {
		clock = cpuTime
	}
	if flag.NArg() < 1 || flag.NArg() > 2 || *reps < 1 || *epochs < 1 {
		fmt.Fprintln(os.Stderr, "usage: hpref [-c] [-r reps] [-e epochs] TRAIN [TEST]")
		os.Exit(2)
	}
	if err := run(*reps, *epochs, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "hpref:", err)
		os.Exit(1)
	}
}

// clock returns the time in ns by which figures are taken.
var clock = func() int64 { return time.Now().UnixNano() }

// cpuTime is the process's user and system CPU time in ns.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func run(reps, epochs int, files []string) error {
	tr, err := sparse.ReadFile(files[0], sparse.ReadOptions{})
	if err != nil {
		return err
	}
	var te *sparse.Dataset
	if len(files) == 2 {
		if te, err = sparse.ReadFile(files[1], sparse.ReadOptions{}); err != nil {
			return err
		}
	}
	x := tr.X
	fit, bare := make([]float64, reps), make([]float64, reps)
	var model *engine.Model
	var stats []engine.EpochStats
	out := make([]float32, x.Rows)
	w := make([]float32, x.Cols)
	for j := range w {
		w[j] = float32(j%7) - 3
	}
	asm.DotRowsF32(x.Indptr, x.Ind, x.Val, w, out) // warm-up
	for r := range reps {
		t0 := clock()
		model, stats, err = engine.Fit(context.Background(), x, tr.Y, engine.Config{Epochs: epochs})
		if err != nil {
			return err
		}
		fit[r] = float64(clock()-t0) / 1e6 / float64(epochs)
		t0 = clock()
		asm.DotRowsF32(x.Indptr, x.Ind, x.Val, w, out)
		bare[r] = float64(clock()-t0) / 1e6
	}
	summary := func(name string, v []float64) {
		slices.Sort(v)
		fmt.Printf("%-14s %.3f [%.3f-%.3f]\n", name, v[len(v)/2], v[0], v[len(v)-1])
	}
	summary("hp.epoch_ms", fit)
	summary("hp.bare_ms", bare)
	if te != nil {
		pred := model.PredictBatch(te.X, nil)
		ok := 0
		for i, p := range pred {
			if p == te.Y[i] {
				ok++
			}
		}
		fmt.Printf("hp.test_acc    %.5f\n", float64(ok)/float64(len(pred)))
	}
	fmt.Printf("hp.mistakes    %d %d\n", stats[0].Mistakes, stats[len(stats)-1].Mistakes)
	return nil
}
