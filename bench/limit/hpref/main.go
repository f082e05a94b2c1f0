// Command hpref times hyperplane's side of bench/compare_c.sh in one
// process, parsing excluded: the averaged perceptron's Fit (engine.Config's
// zero value, which is what train -algo averaged -normalize=false runs)
// and the bare pass, one w·x per row in storage order through
// asm.DotRowsF32, the kernel the engine's passes use.
//
// With -p it also fits averaged PA-II (Config{Rule: engine.PA2}, C = 1)
// in every repetition, alternating which of the two goes first, and
// reports its epoch and its ratio to the perceptron's in the same
// repetition; with -n both learners normalize rows (Config.Normalize).
// bench/limit/ref.c's -p and -n do the same in C.
//
// Usage: hpref [-c] [-p] [-n] [-r reps] [-e epochs] TRAIN [TEST]
//
// -c times by the process's CPU time (user and system, all threads, as
// getrusage reports it) instead of the wall clock: on a shared machine it
// leaves out the time spent waiting for a core.
//
// A fit's time includes what Fit does once before its first epoch
// (checking the rows, packing them); epochs 2..E are the steady state,
// timed from the end of the first epoch (Config.OnEpoch) to the end of
// the last: their mean is the figure ref.c's ref.epoch2_ms gives, and the
// median of their times, epoch by epoch, the one pe.c's "median epoch
// 2..E" gives (one slow epoch moves a mean, not a median, so each is
// compared with its like).
//
// Output, one figure a line, times in ms as median [min-max] over reps:
//
//	hp.epoch_ms  M [LO-HI]   (a fit's time divided by its epochs)
//	hp.epoch2_ms M [LO-HI]   (the mean of epochs 2..E, with E > 1)
//	hp.epoch2med_ms M [LO-HI] (the median epoch of epochs 2..E, with E > 1)
//	hp.bare_ms   M [LO-HI]
//	hp.test_acc  A           (with TEST)
//	hp.mistakes  first last
//
// and with -p:
//
//	pa2.epoch_ms M [LO-HI]
//	pa2.ratio    M [LO-HI]   (PA-II epoch ÷ perceptron epoch, per repetition)
//	pa2.updates  first last
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
	pa := flag.Bool("p", false, "also fit averaged PA-II and report its ratio to the perceptron")
	norm := flag.Bool("n", false, "normalize rows in both learners")
	flag.Parse()
	if *cpu {
		clock = cpuTime
	}
	if flag.NArg() < 1 || flag.NArg() > 2 || *reps < 1 || *epochs < 1 {
		fmt.Fprintln(os.Stderr, "usage: hpref [-c] [-p] [-n] [-r reps] [-e epochs] TRAIN [TEST]")
		os.Exit(2)
	}
	if err := run(*reps, *epochs, *pa, *norm, flag.Args()); err != nil {
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

// run reads the training set (and the test set) of files and times reps
// fits of epochs epochs each, alternating with PA-II fits when pa is set,
// and the bare dot products, then prints the figures.
func run(reps, epochs int, pa, norm bool, files []string) error {
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
	b := newTimings(tr, reps, epochs, norm)
	for r := range reps {
		// PA-II before the perceptron on odd repetitions, after it on
		// even ones.
		if pa && r%2 == 1 {
			if err := b.fitPA(r); err != nil {
				return err
			}
		}
		if err := b.fitPerceptron(r); err != nil {
			return err
		}
		if pa && r%2 == 0 {
			if err := b.fitPA(r); err != nil {
				return err
			}
		}
		b.ratio[r] = b.pfit[r] / b.fit[r]
		t0 := clock()
		asm.DotRowsF32(b.x.Indptr, b.x.Ind, b.x.Val, b.w, b.out)
		b.bare[r] = float64(clock()-t0) / 1e6
	}
	b.report(te, pa)
	return nil
}

// timings holds the figures of run's repetitions, in ms: a fit's time per
// epoch (fit), per epoch after the first (fit2) and its median epoch
// after the first (med2), PA-II's time per epoch (pfit) and its ratio to
// the perceptron's, and the bare dot products of all rows (bare).
type timings struct {
	x                     *sparse.CSR
	y                     []float64
	epochs                int
	norm                  bool
	fit, bare, fit2, med2 []float64
	pfit, ratio           []float64
	ep                    []float64 // the epochs after the first, of the last fit
	model                 *engine.Model
	stats, pstats         []engine.EpochStats
	out, w                []float32 // for the bare dot products
}

func newTimings(tr *sparse.Dataset, reps, epochs int, norm bool) *timings {
	x := tr.X
	b := &timings{
		x: x, y: tr.Y, epochs: epochs, norm: norm,
		fit: make([]float64, reps), bare: make([]float64, reps), fit2: make([]float64, reps),
		med2: make([]float64, reps), pfit: make([]float64, reps), ratio: make([]float64, reps),
		ep:  make([]float64, 0, epochs),
		out: make([]float32, x.Rows), w: make([]float32, x.Cols),
	}
	for j := range b.w {
		b.w[j] = float32(j%7) - 3
	}
	asm.DotRowsF32(x.Indptr, x.Ind, x.Val, b.w, b.out) // warm-up
	return b
}

// fitPA times repetition r's fit of averaged PA-II.
func (b *timings) fitPA(r int) error {
	t0 := clock()
	var err error
	_, b.pstats, err = engine.Fit(context.Background(), b.x, b.y, engine.Config{Epochs: b.epochs, Rule: engine.PA2, Normalize: b.norm})
	b.pfit[r] = float64(clock()-t0) / 1e6 / float64(b.epochs)
	return err
}

// fitPerceptron times repetition r's fit of the averaged perceptron, as
// a whole and epoch by epoch.
func (b *timings) fitPerceptron(r int) error {
	var t1, tE int64
	b.ep = b.ep[:0]
	onEpoch := func(es engine.EpochStats) error {
		now := clock()
		if es.Epoch == 1 {
			t1 = now
		} else {
			b.ep = append(b.ep, float64(now-tE)/1e6)
		}
		tE = now
		return nil
	}
	t0 := clock()
	var err error
	b.model, b.stats, err = engine.Fit(context.Background(), b.x, b.y, engine.Config{Epochs: b.epochs, Normalize: b.norm, OnEpoch: onEpoch})
	if err != nil {
		return err
	}
	b.fit[r] = float64(clock()-t0) / 1e6 / float64(b.epochs)
	if b.epochs > 1 {
		b.fit2[r] = float64(tE-t1) / 1e6 / float64(b.epochs-1)
		// pe.c's median: the middle epoch, or the mean of the middle
		// two for an even count.
		ep := b.ep
		slices.Sort(ep)
		b.med2[r] = ep[len(ep)/2]
		if len(ep)%2 == 0 {
			b.med2[r] = (ep[len(ep)/2-1] + ep[len(ep)/2]) / 2
		}
	}
	return nil
}

// report prints the medians and ranges of the figures, the last model's
// accuracy on te when there is one, and its mistakes.
func (b *timings) report(te *sparse.Dataset, pa bool) {
	summary := func(name string, v []float64) {
		slices.Sort(v)
		fmt.Printf("%-14s %.3f [%.3f-%.3f]\n", name, v[len(v)/2], v[0], v[len(v)-1])
	}
	summary("hp.epoch_ms", b.fit)
	if b.epochs > 1 {
		summary("hp.epoch2_ms", b.fit2)
		summary("hp.epoch2med_ms", b.med2)
	}
	summary("hp.bare_ms", b.bare)
	if te != nil {
		pred := b.model.PredictBatch(te.X, nil)
		ok := 0
		for i, p := range pred {
			if p == te.Y[i] {
				ok++
			}
		}
		fmt.Printf("hp.test_acc    %.5f\n", float64(ok)/float64(len(pred)))
	}
	fmt.Printf("hp.mistakes    %d %d\n", b.stats[0].Mistakes, b.stats[len(b.stats)-1].Mistakes)
	if pa {
		summary("pa2.epoch_ms", b.pfit)
		summary("pa2.ratio", b.ratio)
		fmt.Printf("pa2.updates    %d %d\n", b.pstats[0].Updates, b.pstats[len(b.pstats)-1].Updates)
	}
}
