package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/hyperplane-ml/hyperplane/asm"
	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/engine/textmodel"
	"github.com/hyperplane-ml/hyperplane/internal/iox"
	"github.com/hyperplane-ml/hyperplane/kernels"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/hpc"
)

// trainOpts is what train does besides fitting: its context and streams,
// the files it reads and writes, and what it reports.
type trainOpts struct {
	ctx                                    context.Context
	env                                    *Env
	test, out                              string
	margins, report, verbose, json, stream bool
	cv                                     int              // -cv folds, 0 without
	labelCol                               string           // -label-col: a CSV table's label column
	outs                                   *outputs         // -o, created before the data are read
	text                                   *textmodel.Model // the text model trained, for its probabilities
	scale                                  scaleOpts        // -scale
	warm                                   *warmStart       // -i, nil without
}

// kernelOpts are train's kernel flags: with them it fits a kernel
// perceptron on the learner the other flags set.
type kernelOpts struct {
	kernel kernels.Kernel // nil: the default RBF kernel
	budget int            // most support vectors, 0 for no cap
	gram   kernels.Options
}

// kernelConfig returns the kernel learner that cfg and k describe:
// engine.KernelConfig embeds engine.Config, so every setting the two share
// reaches both. (train refuses the flags of the primal-only options with
// -kernel.)
func kernelConfig(cfg engine.Config, k kernelOpts) engine.KernelConfig {
	return engine.KernelConfig{Config: cfg, Kernel: k.kernel, MaxSupportVectors: k.budget, Gram: k.gram}
}

// configError returns the library's refusal of the learner cfg (and k,
// for a kernel one) before any data are read, so that a bad option fails
// at once, in the library's words, and train need not repeat the
// library's checks. nil means the options are taken.
func configError(cfg engine.Config, k *kernelOpts) error {
	if k != nil {
		return kernelConfig(cfg, *k).Check()
	}
	return cfg.Check()
}

// fitted is what one fit gave, whatever the learner.
type fitted struct {
	model engine.Classifier
	saved io.WriterTo
	stats []engine.EpochStats
}

// trainModel is train for LIBSVM and cache files, one flow for the linear
// learners and (k not nil) the kernel ones: read the data, and the test
// data before the training time is spent; announce them; -cv; fit with
// progress on the standard error; then what follows (see finish).
func trainModel(path string, cfg engine.Config, k *kernelOpts, o trainOpts) error {
	t0 := time.Now()
	d, c, err := openTrain(o, path)
	if err != nil {
		return err
	}
	if c != nil {
		defer c.Close()
	}
	te, err := readTest(o, path)
	if err != nil {
		return err
	}
	var scaled string
	if k == nil {
		cfg, scaled = o.scale.decide(cfg, d)
	}
	r := trainResult{Train: path, Test: o.test, Tier: asm.Active().String(), Algorithm: cfg.Algorithm.String(), Rule: cfg.Rule.String(),
		Normalize: cfg.Normalize, Scale: scaled, ReadSeconds: time.Since(t0).Seconds()}
	if o.warm != nil {
		r.Continued = o.warm.describe()
	}
	classes := 0
	if c != nil {
		r.Rows, r.Features, r.NNZ, r.Streamed = int(c.Rows()), c.Cols(), c.NNZ(), true
		classes = len(c.Labels())
	} else {
		r.Rows, r.Features, r.NNZ = d.X.Rows, d.X.Cols, d.X.NNZ()
		classes = distinct(d.Y)
	}
	cfg = widen(cfg, r.Features) // -i: features the model's data lacked
	if k == nil {
		// Parameter mixing runs no more workers than rows.
		r.Workers = max(1, min(cfg.Workers, r.Rows))
	}
	r.announce(o.env.Stdout, o, classes)
	if done, err := r.crossValidate(d, cfg, o); done || err != nil {
		return err
	}
	show, endProgress := progress(o.env.Stderr, o.verbose, iox.IsTerminal(o.env.Stderr), cfg.Epochs)
	var f fitted
	t1 := time.Now()
	if k != nil {
		f, err = r.fitKernel(d, kernelConfig(cfg, *k), o, show)
	} else {
		f, err = fitLinear(d, c, cfg, o, show)
	}
	endProgress()
	r.TrainSeconds = time.Since(t1).Seconds()
	if err != nil && o.ctx.Err() == nil && f.model != nil {
		r.fromStats(f.stats, cfg)
		return r.failed(f.saved, o, inFile(path, warmMismatch(o.warm, err)))
	}
	if err := fitFailed(o.ctx, path, warmMismatch(o.warm, err), f.model != nil); err != nil {
		return err
	}
	interrupted := err
	r.Classes = len(f.model.ClassValues())
	r.fromStats(f.stats, cfg)
	if k != nil {
		r.NsPerNNZ = 0 // a kernel model's time goes by support vectors, not nonzeros
	}
	var margins func() (engine.MarginStats, error)
	if o.margins {
		margins = func() (engine.MarginStats, error) { return engine.Margins(f.model.(*engine.Model), d.X, d.Y) }
	}
	return r.finish(f.model, f.saved, te, o, margins, interrupted)
}

// openTrain opens the training data at path: with -stream the cache
// file c, which the caller closes, else the rows d read into memory.
func openTrain(o trainOpts, path string) (d *sparse.Dataset, c *hpc.File, err error) {
	if !o.stream {
		d, err = readTrain(o, path)
		return d, nil, err
	}
	c, err = hpc.Open(path, hpc.Options{Map: true})
	if err != nil {
		if f, _ := sparse.SniffFile(path); f != hpc.Name {
			return nil, nil, usageError("-stream trains from a cache file; make one with 'hyperplane convert %s DATA.hpc'", path)
		}
		return nil, nil, err
	}
	return nil, c, nil
}

// fitKernel fits the kernel learner kc on d, showing its epochs with
// show (nil: not shown), and records the kernel's figures in r.
func (r *trainResult) fitKernel(d *sparse.Dataset, kc engine.KernelConfig, o trainOpts, show func(engine.EpochStats, string)) (fitted, error) {
	if show != nil {
		kc.OnKernelEpoch = func(s engine.KernelEpochStats) error {
			extra := ", " + commas(int64(s.SupportVectors)) + " support vectors"
			if o.verbose {
				extra += fmt.Sprintf(" (%s removed), Gram %s hits %s misses", commas(int64(s.Removed)), commas(s.Gram.Hits), commas(s.Gram.Misses))
			}
			show(s.EpochStats, extra)
			return nil
		}
	}
	var f fitted
	m, ks, err := engine.FitKernel(o.ctx, d.X, d.Y, kc)
	if m != nil {
		f.model, f.saved = m, m
		for _, w := range kernelWarnings(m, d.X) {
			o.env.warn("%s", w)
		}
	}
	f.stats = r.kernelFitted(m, ks)
	return f, err
}

// kernelFitted records in r what a kernel fit gave, the model m (nil
// when the fit gave none) and the epochs' statistics ks: its kernel and
// support vectors, and the Gram matrix's figures as of the last epoch.
// It returns the epochs' statistics without the kernel's.
func (r *trainResult) kernelFitted(m *engine.KernelModel, ks []engine.KernelEpochStats) []engine.EpochStats {
	if m != nil {
		r.Kernel, r.SupportVectors = m.Kernel.String(), m.NumSV()
	}
	var stats []engine.EpochStats
	for _, s := range ks {
		stats = append(stats, s.EpochStats)
	}
	if n := len(ks); n > 0 {
		g := ks[n-1].Gram
		r.Gram = &g
	}
	return stats
}

// fitLinear fits the linear learner cfg on d, or a block at a time on
// the cache c, showing its epochs with show (nil: not shown).
func fitLinear(d *sparse.Dataset, c *hpc.File, cfg engine.Config, o trainOpts, show func(engine.EpochStats, string)) (fitted, error) {
	if show != nil {
		cfg.OnEpoch = func(s engine.EpochStats) error { show(s, ""); return nil }
	}
	var f fitted
	var m *engine.Model
	var err error
	if c != nil {
		m, f.stats, err = engine.FitCache(o.ctx, c, cfg)
		inMemory := cfg.Workers > 1 || cfg.Validation > 0 || cfg.Balanced || (cfg.Algorithm != engine.Averaged && cfg.Algorithm != engine.Plain)
		if errors.Is(err, engine.ErrConfig) && inMemory {
			// The library's message names its own API (Fit); the command
			// line's user needs the flags.
			err = usageError("-stream trains the averaged or plain perceptron on one core; -threads, -validation, -balanced and the other learners need the data in memory (drop -stream)")
		}
	} else {
		m, f.stats, err = engine.Fit(o.ctx, d.X, d.Y, cfg)
	}
	if m != nil {
		f.model, f.saved = m, m
	}
	return f, err
}

// readTest reads o's test file, if any, before training starts, so that a
// wrong path or a bad file stops the command before the training time is
// spent and before -o replaces a model.
// Raw text is refused: the model of the numbered features of train (the
// training file) cannot read it.
func readTest(o trainOpts, train string) (*sparse.Dataset, error) {
	if o.test == "" {
		return nil, nil
	}
	in, err := openData(o.ctx, o.env, o.test)
	if err != nil {
		return nil, inFile(o.test, err)
	}
	defer in.close()
	if in.isText() {
		return nil, in.notNumbered("the model of " + train)
	}
	d, err := readData(in, o.labelCol)
	return d, interrupted(o.ctx, err)
}

// readTrain reads the LIBSVM or cache file at path for training, through
// the reader that stops when the command is interrupted.
func readTrain(o trainOpts, path string) (*sparse.Dataset, error) {
	in, err := openData(o.ctx, o.env, path)
	if err != nil {
		return nil, interrupted(o.ctx, err)
	}
	defer in.close()
	d, err := readData(in, o.labelCol)
	if err == nil {
		err = o.ctx.Err() // (the parse may have read ahead of a signal)
	}
	return d, interrupted(o.ctx, err)
}

// fitFailed returns what train reports when fitting returned err: nil
// when it succeeded, or was interrupted with a model so far to save
// (haveModel); else err, naming the data file (see inFile).
func fitFailed(ctx context.Context, path string, err error, haveModel bool) error {
	if err == nil || (haveModel && ctx.Err() != nil) {
		return nil
	}
	if ctx.Err() != nil {
		return interrupted(ctx, err)
	}
	return inFile(path, err)
}

// crossValidate runs -cv, if asked, into r; done says that it was all
// that was asked (no final model), the report then printed.
func (r *trainResult) crossValidate(d *sparse.Dataset, cfg engine.Config, o trainOpts) (done bool, err error) {
	return r.crossValidateWith(o, func() (*cvJSON, error) { return crossValidate(d, cfg, o) })
}

// crossValidateWith is crossValidate with the folds run by cv.
func (r *trainResult) crossValidateWith(o trainOpts, cv func() (*cvJSON, error)) (done bool, err error) {
	if o.cv == 0 {
		return false, nil
	}
	if r.CV, err = cv(); err != nil {
		return true, err
	}
	if o.final() {
		return false, nil
	}
	return true, r.print(o.env.Stdout, o)
}

// failed reports err, which stopped training after r.Epochs epochs
// with saved the model of that moment (a cache that changed or went bad
// under -stream, a read error). What the epochs learned is kept as an
// interrupt keeps it: with -o the model so far is saved, atomically, and
// the error says so; then the command fails. A model of no finished
// epoch is not saved: it would replace the file -o names with one that
// learned next to nothing.
func (r *trainResult) failed(saved io.WriterTo, o trainOpts, err error) error {
	switch {
	case o.out == "":
		return err
	case r.Epochs == 0:
		return fmt.Errorf("%w\ntraining stopped before its first epoch ended: no model saved (%s is left as it was)", err, o.out)
	}
	if serr := o.save(saved); serr != nil {
		return fmt.Errorf("%w\nsaving the partial model: %v", err, serr)
	}
	return fmt.Errorf("%w\ntraining stopped in epoch %d: the partial model (as of the end of epoch %d, plus what epoch %d had learned) was saved to %s", err, r.Epochs+1, r.Epochs, r.Epochs+1, o.out)
}

// finish does what follows training: the margins (with -margins), the
// test, then the model saved with -o, last, so that a command that fails
// leaves the file that was there; an interrupted training saves what it
// has and stops there.
func (r *trainResult) finish(m engine.Classifier, saved io.WriterTo, te *sparse.Dataset, o trainOpts, margins func() (engine.MarginStats, error), interrupted error) error {
	if interrupted != nil {
		if err := o.save(saved); err != nil {
			return err
		}
		if o.out == "" {
			return stopped{fmt.Sprintf("interrupted after %d epochs (no -o: nothing saved)", r.Epochs), interrupted}
		}
		return stopped{fmt.Sprintf("interrupted after %d epochs: the model so far was saved to %s", r.Epochs, o.out), interrupted}
	}
	if margins != nil {
		ms, err := margins()
		if err != nil {
			return err
		}
		r.Margins = newMarginsJSON(ms)
	}
	if err := r.evaluate(m, te, o); err != nil {
		return err
	}
	if err := o.save(saved); err != nil {
		return err
	}
	return r.print(o.env.Stdout, o)
}

// progress returns how train shows its epochs on w: with verbose a line
// per epoch; otherwise, when w is a terminal (tty), one line rewritten in
// place (epoch, mistakes, rows/s, loss) and ended after the last epoch;
// nil when w is a file or pipe, so that scripts see nothing there. extra is
// added to the epoch's line. end ends a line left open by training that
// stopped before its last epoch (early stopping, an interrupt), so that
// what follows starts on a line of its own.
func progress(w io.Writer, verbose, tty bool, epochs int) (show func(s engine.EpochStats, extra string), end func()) {
	if verbose {
		return func(s engine.EpochStats, extra string) {
			held := ""
			if s.ValidAccuracy == s.ValidAccuracy {
				held = fmt.Sprintf(", held-out accuracy %.4f", s.ValidAccuracy)
			}
			fmt.Fprintf(w, "epoch %d: %s mistakes, %s updates, loss %.4g%s%s\n", s.Epoch, commas(int64(s.Mistakes)), commas(int64(s.Updates)), s.Loss, held, extra)
		}, func() {}
	}
	if !tty {
		return nil, func() {}
	}
	if epochs <= 0 {
		epochs = 10
	}
	last := time.Now()
	open := false
	return func(s engine.EpochStats, extra string) {
			now := time.Now()
			rate := float64(s.Rows) / max(now.Sub(last).Seconds(), 1e-9)
			last = now
			fmt.Fprintf(w, "\repoch %d/%d: %s mistakes, %s rows/s, loss %.4g%s   ", s.Epoch, epochs, commas(int64(s.Mistakes)), commas(int64(rate+0.5)), s.Loss, extra)
			open = true
			if s.Epoch == epochs || s.Updates == 0 {
				fmt.Fprintln(w)
				open = false
			}
		}, func() {
			if open {
				fmt.Fprintln(w)
				open = false
			}
		}
}

// stopped is the error of an interrupted training: its message says what
// was kept in the user's words, without the "context canceled" of the
// cause, which it still wraps so that errors.Is sees the interrupt.
type stopped struct {
	msg   string
	cause error
}

func (e stopped) Error() string { return e.msg }
func (e stopped) Unwrap() error { return e.cause }
