package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hyperplane-ml/hyperplane/asm"
	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/engine/textmodel"
	"github.com/hyperplane-ml/hyperplane/internal/iox"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
	"github.com/hyperplane-ml/hyperplane/sparse/hpc"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

// streamHeldOut picks the documents train -stream holds out of the model
// to calibrate it on: every 40th, at most 5,000 (the number of documents
// is not known until the end, so the share is fixed rather than sized).
func streamHeldOut(doc int64) bool { return doc%40 == 39 && doc < 40*5000 }

// autoStreamBytes is the size of text (uncompressed) from which train
// streams it by default: held in memory its rows and term counts take
// five to eight times the text.
var autoStreamBytes int64 = 256 << 20 // a variable that tests lower

// textSize estimates the bytes of text in the file at path: its size, or
// four times that for a compressed file; 0 for anything but a regular
// file.
func textSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return 0
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".gz", ".zst":
		return 4 * fi.Size()
	}
	return fi.Size()
}

// streamsByDefault reports whether train should stream the text at path
// without being asked: a big file, and nothing asked for that streaming
// cannot do.
func streamsByDefault(path string, cfg engine.Config, tt textTrain, o trainOpts, initial string) bool {
	if path == "-" || textSize(path) < autoStreamBytes {
		return false
	}
	linear := cfg.Algorithm == engine.Averaged || cfg.Algorithm == engine.Plain
	inMemory := tt.kernel != nil || initial != "" || tt.refit || o.cv != 0 || o.margins || cfg.Workers > 1 ||
		cfg.Validation != 0 || cfg.Balanced || cfg.SampleWeight != nil || cfg.TrainLoss
	return linear && !inMemory
}

// cacheDir is where train -stream keeps its working files: beside the
// model it writes (a folder the user chose and can write, and on a disk
// rather than in memory more often than TMPDIR), else TMPDIR.
func cacheDir(out string) string {
	if out == "" || out == "-" || isDevice(out) {
		return os.TempDir()
	}
	return filepath.Dir(out)
}

// isDevice reports whether path names something other than a regular
// file or nothing (the standard output, a FIFO).
func isDevice(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.Mode().IsRegular()
}

// trainTextStream is train -stream on raw text: the featurizer is fitted
// on a first read of the text, its rows are written to a cache file
// beside the model (see cacheDir) on a second (from the first read's raw
// counts when the text is a stream), and the learner's epochs read that cache a
// block at a time, so that neither the corpus nor its rows need fit in
// memory. The cache is removed however the command ends.
func trainTextStream(path string, cfg engine.Config, tt textTrain, o trainOpts) error {
	t0 := time.Now()
	src, name, closeIn, err := openInput(o.ctx, o.env, path)
	if err != nil {
		return err
	}
	dir := cacheDir(o.out)
	cf, err := os.CreateTemp(dir, ".hyperplane-cache-*.hpc")
	if err != nil {
		closeIn()
		return err
	}
	defer os.Remove(cf.Name())
	res, err := writeTextCache(o, src, name, tt, cf, dir, rereader(o.ctx, o.env, path))
	closeIn()
	if err != nil {
		return err
	}
	f := res.Featurizer
	c, err := hpc.Open(cf.Name(), hpc.Options{SkipValueChecks: true})
	if err != nil {
		return err
	}
	defer c.Close()
	te, err := readTextTest(o, f, tt, path)
	if err != nil {
		return err
	}
	r := trainResult{Train: path, Test: o.test, Tier: asm.Active().String(), Algorithm: cfg.Algorithm.String(), Rule: cfg.Rule.String(), Normalize: cfg.Normalize,
		Workers: 1, ReadSeconds: time.Since(t0).Seconds(), Labels: f.Labels(), Streamed: true}
	r.Rows, r.Features, r.NNZ = int(c.Rows()), c.Cols(), c.NNZ()
	r.VocabPruned = res.Pruned
	r.Text = featurizerLine(f)
	classes := len(f.Labels())
	r.announce(o.env.Stdout, o, classes)
	show, endProgress := progress(o.env.Stderr, o.verbose, iox.IsTerminal(o.env.Stderr), cfg.Epochs)
	if show != nil {
		cfg.OnEpoch = func(s engine.EpochStats) error { show(s, ""); return nil }
	}
	t1 := time.Now()
	lm, stats, err := engine.FitCache(o.ctx, c, cfg)
	endProgress()
	r.TrainSeconds = time.Since(t1).Seconds()
	if errors.Is(err, engine.ErrConfig) {
		return usageError("-stream trains the averaged or plain perceptron on one core; -threads, -validation, -balanced and the other learners need the data in memory (drop -stream)")
	}
	var m *textmodel.Model
	if lm != nil {
		var err2 error
		if m, err2 = textmodel.New(f, lm); err2 != nil {
			return err2
		}
	}
	if err := fitFailed(o.ctx, path, err, m != nil); err != nil {
		return err
	}
	interrupted := err
	if err == nil {
		if err := r.finishStreamed(m, res); err != nil {
			return err
		}
	}
	r.fromStats(stats, cfg)
	if cal, ok := m.Calibration(); ok {
		r.Calibration = cal.String()
	}
	o.text = m
	return r.finish(m.Classifier(), m, te, o, nil, interrupted)
}

// writeTextCache reads the text src (named name), fitting the featurizer
// and writing its rows to cf (closed on return), all but those held out
// to calibrate on (res.Held, unless -no-calibrate), reading it again with
// reread if not nil, else with its raw counts in a file in dir; and warns when the vocabulary's counts had
// to be pruned to stay within the memory budget.
func writeTextCache(o trainOpts, src io.Reader, name string, tt textTrain, cf *os.File, dir string, reread func() (io.ReadCloser, error)) (text.CacheResult, error) {
	co := text.CacheOptions{TempDir: dir, Reread: reread}
	if !tt.noCalib {
		co.Hold = streamHeldOut
	}
	res, err := text.FitCache(o.ctx, src, tt.read(name), tt.cfg, cf, co)
	if cerr := cf.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return res, interrupted(o.ctx, err)
	}
	if res.Pruned > 0 {
		docs := "one document"
		if res.Pruned > 1 {
			docs = fmt.Sprintf("up to %d documents", res.Pruned)
		}
		o.env.warn("the vocabulary's term counts reached a tenth of the memory budget (-mem %s): terms counted in %s were dropped while the text was read, and the vocabulary keeps only terms counted in more documents than were dropped (hashing, -vocab=false, counts nothing)", budget.Format(budget.Resolve(0)), docs)
	}
	return res, nil
}

// finishStreamed calibrates the model m of a whole training on the
// documents held out of it (res.Held), if any, and names its heaviest
// features where a vocabulary names them: hashed buckets would need a
// second read of the text, which a stream may not allow.
func (r *trainResult) finishStreamed(m *textmodel.Model, res text.CacheResult) error {
	if res.Held != nil {
		t2 := time.Now()
		if err := m.Calibrate(res.Held.X, res.Held.Y); err != nil {
			return err
		}
		r.CalibrationSeconds = time.Since(t2).Seconds()
		r.CalibrationRows = res.Held.X.Rows
	}
	if res.Featurizer.Config().Vocabulary {
		return m.NameFeatures(nil, namesPerLabel, 3)
	}
	return nil
}

// rereader returns, for the text input path, a function that opens it
// again for the second pass of text.FitCache, which then featurizes the
// text a second time rather than write its raw counts to a temporary
// file several times its size; nil for standard input or another stream,
// which can be read only once.
func rereader(ctx context.Context, env *Env, path string) func() (io.ReadCloser, error) {
	if path == "-" || isDevice(path) {
		return nil
	}
	return func() (io.ReadCloser, error) {
		src, _, closeIn, err := openInput(ctx, env, path)
		if err != nil {
			return nil, err
		}
		return readCloser{src, closeIn}, nil
	}
}

// readCloser is a reader with the function that closes it.
type readCloser struct {
	io.Reader
	close func()
}

func (rc readCloser) Close() error { rc.close(); return nil }
