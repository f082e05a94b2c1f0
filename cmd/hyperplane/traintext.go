package main

import (
	"fmt"
	"os"
	"time"

	"github.com/hyperplane-ml/hyperplane/asm"
	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/engine/textmodel"
	"github.com/hyperplane-ml/hyperplane/internal/colorder"
	"github.com/hyperplane-ml/hyperplane/internal/iox"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

// trainTextDefaults is how train featurizes raw text unless told
// otherwise: words and pairs of words, log-dampened counts and IDF, the
// setting that measured best on the shared text sets (sentiment and
// topics alike) with every learner; and a vocabulary of the terms found
// in at least two training documents rather than hashing, which gave the
// same accuracy or better on them with a model of a third of the size
// (a term seen once teaches nothing about other documents).
var trainTextDefaults = text.Config{NGrams: 2, TF: text.Log, IDF: true, Vocabulary: true, MinDF: 2}

// planColumns says whether a fit on hashed text takes its numbering of
// the columns from the featurizer's counts (a variable so that tests can
// compare a fit that counts them itself).
var planColumns = true

// namesPerLabel is how many terms toward and against each label a text
// model keeps names for (see textmodel.Model.NameFeatures).
const namesPerLabel = 10

// textTrain is what train needs to learn from raw text.
type textTrain struct {
	cfg     text.Config
	read    func(name string) text.ReadOptions
	noCalib bool
	refit   bool // train on every document and calibrate a second model
	holdout float64
	kernel  *kernelOpts // -kernel: a kernel model instead of a linear one
}

// trainText fits a featurizer on the labelled text at path, trains and
// calibrates a model on its output and saves both as one text model (-o):
// train's path for raw text. The -test file must be labelled text too,
// featurized by the same featurizer.
func trainText(path string, cfg engine.Config, tt textTrain, o trainOpts) error {
	t0 := time.Now()
	ro, rec := recording(o, tt)
	f, d, corpus, err := readTrainText(ro, path, tt)
	if err != nil {
		return err
	}
	te, err := readTextTest(o, f, tt, path)
	if err != nil {
		return err
	}
	r := trainResult{Train: path, Test: o.test, Tier: asm.Active().String(), Algorithm: cfg.Algorithm.String(), Rule: cfg.Rule.String(), Normalize: cfg.Normalize,
		Workers: max(1, min(cfg.Workers, d.X.Rows)), ReadSeconds: time.Since(t0).Seconds(), Labels: f.Labels()}
	r.Rows, r.Features, r.NNZ = d.X.Rows, d.X.Cols, d.X.NNZ()
	r.Text = featurizerLine(f)
	if o.warm != nil {
		r.Continued = o.warm.describe()
	}
	r.announce(o.env.Stdout, o, distinct(d.Y))
	cv := func() (*cvJSON, error) {
		c := corpus
		if c == nil {
			if c, err = text.ReadFile(path, tt.read(path)); err != nil {
				return nil, err
			}
		}
		return crossValidateText(c, tt.cfg, cfg, o)
	}
	if done, err := r.crossValidateWith(o, cv); done || err != nil {
		return err
	}
	show, endProgress := progress(o.env.Stderr, o.verbose, iox.IsTerminal(o.env.Stderr), cfg.Epochs)
	if show != nil {
		cfg.OnEpoch = func(s engine.EpochStats) error { show(s, ""); return nil }
	}
	// The model learns from all but the documents held out to calibrate
	// it on (unless -no-calibrate or -refit); its rows go to -margins all
	// the same.
	tc := textmodel.Config{Learner: cfg, NoCalibration: true, Holdout: tt.holdout}
	kept, held, err := heldOut(d, tt, &tc)
	if err != nil {
		return err
	}
	r.CalibrationRows = len(held)
	// Unless -margins reads all of d again, the rows kept are moved to
	// the front of d's own arrays: a copy would be most of the corpus.
	indptr := d.X.Indptr
	rows, heldRows := splitRows(d, kept, held, !o.margins)
	t1 := time.Now()
	m, stats, err := r.fitText(f, rows, cfg, &tc, tt, withPlan(o, rec, indptr, kept, rows, heldRows))
	endProgress()
	r.TrainSeconds = time.Since(t1).Seconds()
	err = warmMismatch(o.warm, err)
	if err == nil && !tt.noCalib {
		err = r.calibrateText(m, d, heldRows, tc, o)
	}
	if err := fitFailed(o.ctx, path, err, m != nil); err != nil {
		return err
	}
	interrupted := err
	if err == nil {
		if err := nameTextFeatures(m, f, corpus, path, tt); err != nil {
			return err
		}
	}
	r.fromStats(stats, cfg)
	if c, ok := m.Calibration(); ok {
		r.Calibration = c.String()
	}
	var margins func() (engine.MarginStats, error)
	if o.margins {
		lm := m.Classifier().(*engine.Model)
		margins = func() (engine.MarginStats, error) { return engine.Margins(lm, d.X, d.Y) }
	}
	o.text = m
	return r.finish(m.Classifier(), m, te, o, margins, interrupted)
}

// recording returns o asking, for a fresh linear fit on hashed text, the
// featurizer to record what it counts (colorder), so that the fit numbers
// its columns by those counts rather than by a count of its own; and the
// recorder, nil when not asked.
func recording(o trainOpts, tt textTrain) (trainOpts, *colorder.Recorder) {
	if !planColumns || tt.cfg.Vocabulary || o.warm != nil || tt.kernel != nil {
		return o, nil
	}
	var rec *colorder.Recorder
	o.ctx, rec = colorder.WithRecorder(o.ctx)
	return o, rec
}

// withPlan returns o whose context gives the fit of rows the numbering
// of their columns that rec recorded (colorder), where it has one: rows
// are those listed in kept of the rows counted, whose row pointers were
// indptr, and held those held out of them.
func withPlan(o trainOpts, rec *colorder.Recorder, indptr []int64, kept []int, rows, held *sparse.Dataset) trainOpts {
	var heldX *sparse.CSR
	if held != nil {
		heldX = held.X
	}
	if p := rec.NewPlan(indptr, kept, heldX); p != nil {
		o.ctx = colorder.WithPlan(o.ctx, rows.X, p)
	}
	return o
}

// calibrateText calibrates m on the rows held out of its training
// (held), or with none held out by a second training on part of d
// (Refit).
func (r *trainResult) calibrateText(m *textmodel.Model, d, held *sparse.Dataset, tc textmodel.Config, o trainOpts) error {
	t0 := time.Now()
	defer func() { r.CalibrationSeconds = time.Since(t0).Seconds() }()
	if held != nil {
		return m.Calibrate(held.X, held.Y)
	}
	tc.NoCalibration, tc.Refit = false, true
	return m.CalibrateHoldout(o.ctx, d.X, d.Y, tc)
}

// heldOut returns, unless -no-calibrate or -refit, the rows of d the
// model learns from and those held out of it to calibrate it on
// (textmodel.HeldOut), both nil when none are held. It sets tc's Refit
// from -refit.
func heldOut(d *sparse.Dataset, tt textTrain, tc *textmodel.Config) (kept, held []int, err error) {
	if tt.noCalib {
		return nil, nil, nil
	}
	tc.Refit = tt.refit
	kept, held, err = textmodel.HeldOut(d.Y, *tc)
	if err != nil || held == nil {
		return nil, nil, err
	}
	return kept, held, nil
}

// splitRows returns the rows of d listed in kept, all of d where held is
// nil, and those listed in held (nil where none are). With inPlace, the
// rows kept are moved to the front of d.X's own arrays (see
// keepInPlace), and d.X is set to nil: its rows are no longer there.
func splitRows(d *sparse.Dataset, kept, held []int, inPlace bool) (rows, heldRows *sparse.Dataset) {
	if held == nil {
		return &sparse.Dataset{X: d.X, Y: d.Y}, nil
	}
	heldRows = &sparse.Dataset{X: d.X.SelectRows(held), Y: pick(d.Y, held)}
	if !inPlace || !increasing(kept) {
		return &sparse.Dataset{X: d.X.SelectRows(kept), Y: pick(d.Y, kept)}, heldRows
	}
	rows = &sparse.Dataset{X: keepInPlace(d.X, kept), Y: pick(d.Y, kept)}
	d.X = nil
	return rows, heldRows
}

// increasing reports whether each of rows is greater than the one before.
func increasing(rows []int) bool {
	for k := 1; k < len(rows); k++ {
		if rows[k] <= rows[k-1] {
			return false
		}
	}
	return true
}

// keepInPlace returns the rows of X listed in kept, increasing, as a
// matrix that holds their values at the front of X's Ind and Val: X's
// rows are then overwritten. Each row moves to or before its place, so
// no row is overwritten before it has moved.
func keepInPlace(X *sparse.CSR, kept []int) *sparse.CSR {
	out := &sparse.CSR{Rows: len(kept), Cols: X.Cols, Indptr: make([]int64, 1, len(kept)+1)}
	ind, val := X.Ind[:0], X.Val[:0]
	for _, i := range kept {
		a, b := X.Indptr[i], X.Indptr[i+1]
		ind = append(ind, X.Ind[a:b]...)
		val = append(val, X.Val[a:b]...)
		out.Indptr = append(out.Indptr, int64(len(ind)))
	}
	out.Ind, out.Val = ind, val
	return out
}

// readTrainText reads the labelled text at path and featurizes it: with
// the -i model's featurizer, or one fitted on it. corpus is the text,
// kept when it was read from a stream (which cannot be read twice) and
// will be wanted again: for the names of a hashed model's features, or
// for -cv.
func readTrainText(o trainOpts, path string, tt textTrain) (f *text.Featurizer, d *sparse.Dataset, corpus *text.Corpus, err error) {
	src, name, closeIn, err := openInput(o.ctx, o.env, path)
	if err != nil {
		return nil, nil, nil, err
	}
	// (The file's kind is told by a Stat of its own, so that err is the
	// reading's, not the Stat's.)
	if o.warm != nil {
		// -i: the model's own featurizer, as it was fitted.
		f = o.warm.text.Featurizer()
		d, err = f.VectorizeReader(iox.Reader(o.ctx, src), tt.read(name))
	} else if fi, serr := os.Stat(path); (serr == nil && fi.Mode().IsRegular() && path != "-") || (tt.cfg.Vocabulary && o.cv == 0) {
		f, d, err = fitText(o.ctx, src, path, tt.read(name), tt.cfg)
	} else if corpus, err = text.Read(src, tt.read(name)); err == nil {
		if f, err = text.FitContext(o.ctx, corpus, tt.cfg); err == nil {
			d, err = f.VectorizeContext(o.ctx, corpus)
		}
	}
	closeIn()
	if err != nil {
		return nil, nil, nil, interrupted(o.ctx, err)
	}
	return f, d, corpus, nil
}

// fitText fits the learner on rows, the featurizer f's, into a text
// model: a linear one by tc, or with -kernel a kernel one, whose figures
// go to r.
func (r *trainResult) fitText(f *text.Featurizer, rows *sparse.Dataset, cfg engine.Config, tc *textmodel.Config, tt textTrain, o trainOpts) (*textmodel.Model, []engine.EpochStats, error) {
	if tt.kernel == nil {
		return textmodel.FitFeatures(o.ctx, f, rows, *tc)
	}
	kc := kernelConfig(cfg, *tt.kernel)
	tc.Kernel = &kc
	km, ks, err := engine.FitKernel(o.ctx, rows.X, rows.Y, kc)
	var m *textmodel.Model
	if km != nil {
		var err2 error
		if m, err2 = textmodel.New(f, km); err2 != nil {
			return nil, nil, err2
		}
	}
	return m, r.kernelFitted(km, ks), err
}

// nameTextFeatures names the heaviest features of a linear text model,
// for inspect and -explain, by their terms in the training text: a
// second read of the text at path unless a vocabulary names them or the
// text was kept (corpus). A kernel model has no weights of features to
// name.
func nameTextFeatures(m *textmodel.Model, f *text.Featurizer, corpus *text.Corpus, path string, tt textTrain) error {
	if _, linear := m.Classifier().(*engine.Model); !linear {
		return nil
	}
	if corpus == nil && !f.Config().Vocabulary {
		var err error
		if corpus, err = text.ReadFile(path, tt.read(path)); err != nil {
			return err
		}
	}
	return m.NameFeatures(corpus, namesPerLabel, 3)
}

// featurizerLine describes f's settings in a few words.
func featurizerLine(f *text.Featurizer) string {
	c := f.Config()
	s := fmt.Sprintf("%d-grams", c.NGrams)
	if c.NGrams == 1 {
		s = "words"
	}
	if c.Vocabulary {
		s += fmt.Sprintf(", a vocabulary of %s terms", commas(int64(f.Dim())))
		if c.MinDF > 1 {
			s += fmt.Sprintf(" (in ≥ %d documents)", c.MinDF)
		}
	} else {
		s += fmt.Sprintf(", hashed into 2^%d buckets", c.Bits)
	}
	s += ", tf " + c.TF.String()
	if c.IDF {
		s += ", idf"
	}
	if !c.NoNormalize {
		s += ", unit rows"
	}
	return s
}

// readTextTest reads train's -test file, if any, as eval reads it: by
// the same reader, with the fields of the training text, featurized by f.
func readTextTest(o trainOpts, f *text.Featurizer, tt textTrain, path string) (*sparse.Dataset, error) {
	if o.test == "" {
		return nil, nil
	}
	in, err := openData(o.ctx, o.env, o.test)
	if err != nil {
		return nil, inFile(o.test, err)
	}
	opt := tt.read(in.name)
	opt.Format = textFormat(o.test, "")
	te, err := readLabelledText(in, f, opt)
	in.close()
	if err != nil {
		return nil, interrupted(o.ctx, notText(inFile(o.test, err), "the model of "+path))
	}
	return te, nil
}
