// Package textmodel holds a text classifier as one value and one file:
// the fitted featurizer that turns a string into features (tokenizer
// settings, n-grams, hashing or vocabulary, IDF, label names) and the
// model that classifies them, linear or kernel. A service loads one file
// and classifies strings, with no featurizer and model to keep paired.
//
// Classify, Scores and Proba are safe for concurrent use and, once warm,
// allocate nothing: each call borrows a reusable encoder from a pool.
//
// Fit also calibrates the model: a perceptron's score is a margin, not a
// probability, so Fit holds out a part of the training documents, trains
// on the rest, and fits on the held-out scores Platt scaling (binary) or
// a softmax temperature (multiclass) that Proba then applies to the model
// trained on all documents. Classify and ClassifyBatch follow the scores,
// with or without calibration, and the label they give is always the most
// probable one: a temperature keeps the scores' order, and the Platt
// scaling Fit fits passes through even odds at score 0
// (calibrate.FitPlattOrigin), so a label's probability is never below one
// half. (A model saved before Fit fitted it so may hold a Platt scaling
// whose even odds lie off 0; its labels near score 0 can then have a
// probability just under one half.)
package textmodel

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/engine/calibrate"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

// ErrMismatch: the classifier was not trained on the featurizer's output
// (a class that is none of its labels, or more features than it makes).
var ErrMismatch = errors.New("textmodel: classifier and featurizer do not belong together")

// Model is a featurizer and the classifier trained on its output.
type Model struct {
	featurizer *text.Featurizer
	classifier engine.Classifier
	classes    []float64              // the classifier's labels, ascending
	names      []string               // the featurizer's name of each class
	calib      *calibrate.Calibration // nil: not calibrated
	featNames  *text.Names            // names of the strongest features; nil: none
	workers    sync.Pool              // of *worker
	// featForm, when not nil, is the featurizer's binary form, made on a
	// goroutine of its own while the learner trained (see encodeAhead).
	featForm *featForm
}

// worker is what one call borrows: an encoder and room for the scores.
type worker struct {
	enc    *text.Encoder
	scores []float32
}

// Config sets up Fit. Its zero value is the documented default: the
// featurizer's and the learner's own defaults, the model trained on all
// but a fortieth of the training documents (250 to 5,000 of them) and
// calibrated on its own scores of those.
//
// The command line's train chooses otherwise, by measurement on the
// shared text sets: words and pairs of words indexed by a vocabulary of
// the terms in at least two documents, log tf and IDF (text.Config{NGrams:
// 2, TF: text.Log, IDF: true, Vocabulary: true, MinDF: 2}), learned by
// the averaged PA-II on unit rows (engine.Config{Rule: engine.PA2,
// Normalize: true}). Set Text and Learner so for its models; the zero
// values stay the library's own simplest defaults.
type Config struct {
	// Text fits the featurizer; Learner trains the linear model.
	Text    text.Config
	Learner engine.Config
	// Kernel, when not nil, trains a kernel model with it instead of
	// Learner's linear one (Learner.Seed still draws the calibration's
	// held-out documents). A kernel model costs a kernel evaluation per
	// support vector for each document it classifies; on text it
	// measured no more accurate than the linear model.
	Kernel *engine.KernelConfig
	// NoCalibration skips the calibration: Proba then gives the logistic
	// (binary) or softmax (multiclass) of the raw scores.
	NoCalibration bool
	// Holdout is the fraction of the training documents (stratified by
	// label, drawn with Learner.Seed) that the calibration is fitted on,
	// in (0, 0.5]. 0 means a fortieth, 250 to 5,000 documents. From
	// 4,000 training documents up (see HeldOut) the model is trained on
	// the others and calibrated on its own scores of these, so
	// calibrating costs no second training; on the shared text sets this
	// cost at most 0.3 points of accuracy against a model of all the
	// documents. Below that, Fit calibrates as with Refit.
	Holdout float64
	// Refit trains the model on all the training documents and fits the
	// calibration on the scores of a second model, trained as the first
	// on all but the held-out documents (Holdout; 0 means a tenth): every
	// document is learned from, at the cost of a second training. It is
	// how text models were calibrated before held-out documents were
	// left out of the model.
	Refit bool
}

// The default Holdout sets aside a fortieth of the documents, at least
// minHeldOut and at most maxHeldOut: the calibrations fit one parameter,
// which a few hundred scores fix well, and every document held out is
// one the model does not learn from.
const (
	minHeldOut = 250
	maxHeldOut = 5000
)

// minHeldOutDocs is the fewest training documents from which Fit holds
// documents out of the model to calibrate it: below it the second
// training of Refit is cheap, and the documents are too few to spare.
const minHeldOutDocs = 4000

// HeldOut returns the documents, by index into y (their class values),
// that Fit trains on and those it calibrates on (cfg.Holdout,
// stratified by class, drawn with cfg.Learner.Seed), both ascending.
// Every class keeps a document to train on. With Refit, or fewer than
// 4,000 documents, held is nil and train holds them all: Fit then
// calibrates as with Refit.
func HeldOut(y []float64, cfg Config) (train, held []int, err error) {
	h := cfg.Holdout
	if !(h >= 0 && h <= 0.5) {
		return nil, nil, fmt.Errorf("%w: Holdout = %v, want 0 to 0.5", engine.ErrConfig, cfg.Holdout)
	}
	if cfg.Refit || len(y) < minHeldOutDocs {
		train = make([]int, len(y))
		for i := range train {
			train[i] = i
		}
		return train, nil, nil
	}
	var k int
	if h > 0 {
		k = int(math.Round(1 / h))
	} else {
		held := min(max(len(y)/40, minHeldOut), maxHeldOut)
		k = int(math.Round(float64(len(y)) / float64(held)))
	}
	fold, err := engine.Folds(y, k, cfg.Learner.Seed)
	if err != nil {
		return nil, nil, err
	}
	// A class all of whose documents fell in the held-out fold stays in
	// training: a model that never saw a class could not predict it.
	trained := map[float64]bool{}
	for i, g := range fold {
		if g != 0 {
			trained[y[i]] = true
		}
	}
	for i, g := range fold {
		if g == 0 && trained[y[i]] {
			held = append(held, i)
		} else {
			train = append(train, i)
		}
	}
	return train, held, nil
}

// pick returns y at the indices idx.
func pick(y []float64, idx []int) []float64 {
	out := make([]float64, len(idx))
	for j, i := range idx {
		out[j] = y[i]
	}
	return out
}

// New pairs f with c, a *engine.Model or *engine.KernelModel trained on
// f's output: every class of c must be one of f's labels, and c may not
// be wider than f's features (ErrMismatch otherwise).
func New(f *text.Featurizer, c engine.Classifier) (*Model, error) {
	if c == nil {
		return nil, fmt.Errorf("%w: no classifier", ErrMismatch)
	}
	classes, dim := c.ClassValues(), c.NumFeatures()
	if f == nil {
		return nil, fmt.Errorf("%w: no featurizer", ErrMismatch)
	}
	if dim > f.Dim() {
		return nil, fmt.Errorf("%w: the classifier has %d features, the featurizer makes %d", ErrMismatch, dim, f.Dim())
	}
	m := &Model{featurizer: f, classifier: c, classes: classes}
	for _, v := range classes {
		name := f.Name(v)
		if back, err := f.Label(name); err != nil || back != v {
			return nil, fmt.Errorf("%w: class %v is none of the featurizer's labels %q", ErrMismatch, v, f.Labels())
		}
		m.names = append(m.names, name)
	}
	m.workers.New = func() any { return &worker{enc: f.NewEncoder()} }
	return m, nil
}

// Fit fits a featurizer with cfg.Text on docs and their labels (label
// names, as in a JSONL file), trains a linear model with cfg.Learner on
// its output and calibrates it (see Config). The statistics of every epoch
// of the final training are returned as engine.Fit returns them. Docs and
// labels of different lengths are an error wrapping engine.ErrLabels.
func Fit(ctx context.Context, docs, labels []string, cfg Config) (*Model, []engine.EpochStats, error) {
	if len(docs) != len(labels) {
		return nil, nil, fmt.Errorf("%w: %d documents and %d labels", engine.ErrLabels, len(docs), len(labels))
	}
	c := &text.Corpus{Docs: make([]text.Doc, len(docs))}
	for i := range docs {
		c.Docs[i] = text.Doc{Label: labels[i], Text: docs[i]}
	}
	return fitCorpus(ctx, c, cfg)
}

// fitCorpus is Fit on a corpus.
func fitCorpus(ctx context.Context, c *text.Corpus, cfg Config) (*Model, []engine.EpochStats, error) {
	f, err := text.FitContext(ctx, c, cfg.Text)
	if err != nil {
		return nil, nil, err
	}
	d, err := f.VectorizeContext(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	return FitFeatures(ctx, f, d, cfg)
}

// FitFeatures trains and calibrates a model as Fit does on d, the rows f
// made of the training documents (f.Vectorize, f.VectorizeFile or
// text.FitFile); cfg.Text is not used. If ctx is done or
// cfg.Learner.OnEpoch fails during the training, it returns the model so
// far, uncalibrated, with that error, as engine.Fit does.
func FitFeatures(ctx context.Context, f *text.Featurizer, d *sparse.Dataset, cfg Config) (*Model, []engine.EpochStats, error) {
	if !cfg.NoCalibration && !(cfg.Holdout >= 0 && cfg.Holdout <= 0.5) {
		return nil, nil, fmt.Errorf("%w: Holdout = %v, want 0 to 0.5", engine.ErrConfig, cfg.Holdout)
	}
	ff := encodeAhead(f)
	m, stats, err := fitFeatures(ctx, f, d, cfg)
	if m != nil {
		m.featForm = ff
	}
	return m, stats, err
}

// fitFeatures is FitFeatures after its check of cfg.
func fitFeatures(ctx context.Context, f *text.Featurizer, d *sparse.Dataset, cfg Config) (*Model, []engine.EpochStats, error) {
	if !cfg.NoCalibration {
		train, held, err := HeldOut(d.Y, cfg)
		if err != nil {
			return nil, nil, err
		}
		if held != nil {
			return fitHeldOut(ctx, f, d, train, held, cfg)
		}
	}
	lm, stats, err := learn(ctx, d.X, d.Y, cfg)
	if err != nil {
		if lm != nil {
			// Interrupted: the model so far, uncalibrated, with the error.
			if m, err2 := New(f, lm); err2 == nil {
				return m, stats, err
			}
		}
		return nil, stats, err
	}
	m, err := New(f, lm)
	if err != nil || cfg.NoCalibration {
		return m, stats, err
	}
	return m, stats, m.CalibrateHoldout(ctx, d.X, d.Y, cfg)
}

// fitHeldOut trains a model on the rows train of d and calibrates it on
// its scores of the rows held.
func fitHeldOut(ctx context.Context, f *text.Featurizer, d *sparse.Dataset, train, held []int, cfg Config) (*Model, []engine.EpochStats, error) {
	lm, stats, err := learn(ctx, d.X.SelectRows(train), pick(d.Y, train), cfg)
	if lm == nil {
		return nil, stats, err
	}
	m, err2 := New(f, lm)
	if err2 != nil {
		return nil, stats, err2
	}
	if err != nil {
		return m, stats, err // interrupted: the model so far, uncalibrated
	}
	return m, stats, m.Calibrate(d.X.SelectRows(held), pick(d.Y, held))
}

// CalibrateHoldout fits m's calibration as Fit does with Refit, on X and y, the rows
// m's featurizer made of the training documents and their class values:
// it trains a model with cfg.Learner on all but a held-out part of the
// rows (cfg.Holdout, stratified), fits the calibration on that model's
// scores of the held-out rows, and gives it to m. With too few rows to
// hold any out (fewer than 2/cfg.Holdout) m stays as it was. It must not
// run concurrently with other calls on m.
func (m *Model) CalibrateHoldout(ctx context.Context, X *sparse.CSR, y []float64, cfg Config) error {
	h := cfg.Holdout
	if h == 0 {
		h = 0.1
	}
	if !(h > 0 && h <= 0.5) {
		return fmt.Errorf("%w: Holdout = %v, want 0 to 0.5", engine.ErrConfig, cfg.Holdout)
	}
	if X == nil || len(y) != X.Rows {
		return fmt.Errorf("%w: no rows, or not as many labels as rows", engine.ErrLabels)
	}
	k := int(math.Round(1 / h))
	if X.Rows < 2*k {
		return nil // too few rows to hold any out
	}
	fold, err := engine.Folds(y, k, cfg.Learner.Seed)
	if err != nil {
		return err
	}
	var in, out []int
	for i, g := range fold {
		if g == 0 {
			out = append(out, i)
		} else {
			in = append(in, i)
		}
	}
	yin := make([]float64, len(in))
	yout := make([]float64, len(out))
	for j, i := range in {
		yin[j] = y[i]
	}
	for j, i := range out {
		yout[j] = y[i]
	}
	cfg.Learner.OnEpoch = nil
	if cfg.Kernel != nil {
		kc := *cfg.Kernel
		kc.OnEpoch, kc.OnKernelEpoch = nil, nil
		cfg.Kernel = &kc
	}
	part, _, err := learn(ctx, X.SelectRows(in), yin, cfg)
	if err != nil {
		return err
	}
	c, err := fitCalibration(part, m.classes, X.SelectRows(out), yout)
	if err != nil {
		return err
	}
	m.calib = &c
	return nil
}

// fitCalibration fits the calibration of c's scores on the labelled rows
// X, y; classes are the model's classes, ascending. Rows whose label is
// none of the classes (a class the held-out part has but the training
// part lacks) are left out.
func fitCalibration(c engine.Classifier, classes []float64, X *sparse.CSR, y []float64) (calibrate.Calibration, error) {
	binary := len(classes) == 2
	var scores []float32
	var truth []int
	var positive []bool
	var buf []float32
	for i := range X.Rows {
		t, found := slices.BinarySearch(classes, y[i])
		if !found {
			continue
		}
		buf = c.Scores(X.Row(i), buf)
		if binary {
			scores = append(scores, buf[0])
			positive = append(positive, t == 1)
		} else {
			if len(buf) != len(classes) {
				return calibrate.Calibration{}, fmt.Errorf("%w: %d scores for %d classes", ErrMismatch, len(buf), len(classes))
			}
			scores = append(scores, buf...)
			truth = append(truth, t)
		}
	}
	if binary {
		return calibrate.FitPlattOrigin(scores, positive)
	}
	return calibrate.FitTemperature(scores, len(classes), truth)
}

// Calibrate fits m's calibration on held-out labelled rows: X made by m's
// featurizer, y their class values (Featurizer().Label of their names),
// replacing the calibration m had. Rows of a class m does not know are
// left out. It must not run concurrently with other calls on m.
func (m *Model) Calibrate(X *sparse.CSR, y []float64) error {
	if X == nil || len(y) != X.Rows {
		return fmt.Errorf("%w: no rows, or as many labels as rows", engine.ErrLabels)
	}
	c, err := fitCalibration(m.classifier, m.classes, X, y)
	if err != nil {
		return err
	}
	m.calib = &c
	return nil
}

// Calibration returns m's calibration and whether it has one; without
// one, Proba uses the zero Calibration.
func (m *Model) Calibration() (calibrate.Calibration, bool) {
	if m.calib == nil {
		return calibrate.Calibration{}, false
	}
	return *m.calib, true
}

// Featurizer returns the featurizer; Classifier the model behind it.
func (m *Model) Featurizer() *text.Featurizer  { return m.featurizer }
func (m *Model) Classifier() engine.Classifier { return m.classifier }

// Classes returns the class values of the labels, in the order of Labels
// (the values the featurizer gives their names).
func (m *Model) Classes() []float64 { return slices.Clone(m.classes) }

// Labels returns the label names, in the order of Scores.
func (m *Model) Labels() []string { return slices.Clone(m.names) }

// Classify returns the label name the model gives doc.
func (m *Model) Classify(doc string) string {
	w := m.workers.Get().(*worker)
	p := m.classifier.Predict(w.enc.Transform(doc))
	m.workers.Put(w)
	return m.name(p)
}

// name returns the label name of class value v.
func (m *Model) name(v float64) string {
	i, _ := slices.BinarySearch(m.classes, v)
	return m.names[i]
}

// Scores writes into dst (grown if needed) and returns the score of every
// label, in the order of Labels, for a multiclass model; for a binary
// model the one score, > 0 meaning the second label.
func (m *Model) Scores(doc string, dst []float32) []float32 {
	w := m.workers.Get().(*worker)
	dst = m.classifier.Scores(w.enc.Transform(doc), dst)
	m.workers.Put(w)
	return dst
}

// Proba writes into dst (grown if needed) and returns the probability of
// every label, in the order of Labels (for a binary model too: two
// values), by m's calibration (see Calibration).
func (m *Model) Proba(doc string, dst []float64) []float64 {
	w := m.workers.Get().(*worker)
	w.scores = m.classifier.Scores(w.enc.Transform(doc), w.scores)
	var c calibrate.Calibration
	if m.calib != nil {
		c = *m.calib
	}
	dst = c.Proba(w.scores, dst)
	m.workers.Put(w)
	return dst
}

// ClassifyBatch writes the label of every document into dst (grown if
// needed) and returns it, on GOMAXPROCS goroutines.
func (m *Model) ClassifyBatch(docs []string, dst []string) []string {
	if cap(dst) < len(docs) {
		dst = make([]string, len(docs))
	}
	dst = dst[:len(docs)]
	p := min(runtime.GOMAXPROCS(0), max(1, len(docs)/64))
	var wg sync.WaitGroup
	for t := range p {
		lo, hi := len(docs)*t/p, len(docs)*(t+1)/p
		wg.Add(1)
		go func() {
			defer wg.Done()
			e := m.featurizer.NewEncoder()
			for i := lo; i < hi; i++ {
				dst[i] = m.name(m.classifier.Predict(e.Transform(docs[i])))
			}
		}()
	}
	wg.Wait()
	return dst
}

// learn trains cfg's classifier, linear or kernel, on X and y; a kernel
// model's epoch figures come back without their kernel part.
func learn(ctx context.Context, X *sparse.CSR, y []float64, cfg Config) (engine.Classifier, []engine.EpochStats, error) {
	if cfg.Kernel == nil {
		m, stats, err := engine.Fit(ctx, X, y, cfg.Learner)
		if m == nil {
			return nil, stats, err
		}
		return m, stats, err
	}
	km, ks, err := engine.FitKernel(ctx, X, y, *cfg.Kernel)
	stats := make([]engine.EpochStats, len(ks))
	for i, s := range ks {
		stats[i] = s.EpochStats
	}
	if km == nil {
		return nil, stats, err
	}
	return km, stats, err
}
