package main

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"time"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/engine/metrics"
	"github.com/hyperplane-ml/hyperplane/engine/textmodel"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

// cvJSON is what train -cv measured.
type cvJSON struct {
	Folds    int       `json:"folds"`
	Accuracy []float64 `json:"accuracy"` // of each fold
	Mean     float64   `json:"mean"`
	SD       float64   `json:"sd"` // the sample standard deviation over the folds
	Seconds  float64   `json:"seconds"`
}

// crossValidate runs train -cv on d and prints its figures (unless -json,
// which prints them with the rest). Each fold trains on one core unless
// -threads asks for more; the folds run side by side on the cores.
func crossValidate(d *sparse.Dataset, cfg engine.Config, o trainOpts) (*cvJSON, error) {
	var end func()
	cfg.OnEpoch, end = foldProgress(o, cfg.Epochs)
	defer end()
	return runFolds(o, func() ([]engine.FoldResult, error) { return engine.CrossValidate(o.ctx, d.X, d.Y, cfg, o.cv) })
}

// foldProgress returns what -cv's folds call after each epoch to show
// how far they are, the epochs of all folds together (an upper bound: a
// fold may stop early), and what ends the meter's line; or nil and a
// no-op off a terminal without -progress.
func foldProgress(o trainOpts, epochs int) (func(engine.EpochStats) error, func()) {
	m := newMeter(o.env, o.env.progress, fmt.Sprintf("cross-validating, %d folds", o.cv), "epochs", int64(o.cv*max(epochs, 1)))
	if m == nil {
		return nil, func() {}
	}
	var mu sync.Mutex
	return func(engine.EpochStats) error {
		mu.Lock()
		m.add(1)
		mu.Unlock()
		return nil
	}, m.end
}

// crossValidateText runs train -cv on raw labelled text: each fold fits
// its own featurizer on its training documents, so that the held-out
// text shapes neither the vocabulary nor the IDF.
func crossValidateText(c *text.Corpus, tcfg text.Config, cfg engine.Config, o trainOpts) (*cvJSON, error) {
	docs, labels := make([]string, len(c.Docs)), make([]string, len(c.Docs))
	for i, d := range c.Docs {
		docs[i], labels[i] = d.Text, d.Label
	}
	var end func()
	cfg.OnEpoch, end = foldProgress(o, cfg.Epochs)
	defer end()
	return runFolds(o, func() ([]engine.FoldResult, error) {
		return textmodel.CrossValidate(o.ctx, docs, labels, textmodel.Config{Text: tcfg, Learner: cfg}, o.cv)
	})
}

// runFolds times run, the folds, and prints their figures.
func runFolds(o trainOpts, run func() ([]engine.FoldResult, error)) (*cvJSON, error) {
	stdout := o.env.Stdout
	t0 := time.Now()
	res, err := run()
	if err != nil {
		return nil, interrupted(o.ctx, err)
	}
	cv := &cvJSON{Folds: o.cv, Seconds: time.Since(t0).Seconds()}
	for _, r := range res {
		cv.Accuracy = append(cv.Accuracy, r.Accuracy())
		cv.Mean += r.Accuracy() / float64(len(res))
	}
	for _, a := range cv.Accuracy {
		cv.SD += (a - cv.Mean) * (a - cv.Mean) / float64(len(res)-1)
	}
	cv.SD = math.Sqrt(cv.SD)
	if !o.json {
		fmt.Fprintf(stdout, "cv:       %d stratified folds: accuracy %.4f ± %.4f (sd); folds", cv.Folds, cv.Mean, cv.SD)
		for _, a := range cv.Accuracy {
			fmt.Fprintf(stdout, " %.4f", a)
		}
		fmt.Fprintf(stdout, " (%.1f s on %d cores)\n", cv.Seconds, runtime.GOMAXPROCS(0))
	}
	return cv, nil
}

// probaMetrics returns the log loss and the expected calibration error
// (10 bins) of m's probabilities on te, labelled rows m's featurizer made.
func probaMetrics(m *textmodel.Model, te *sparse.Dataset) (logLoss, ece float64, err error) {
	cal, _ := m.Calibration()
	sc := m.Classifier()
	classes := m.Classes()
	k := len(classes)
	proba := make([]float64, 0, te.X.Rows*k)
	truth := make([]int, 0, te.X.Rows)
	var s []float32
	var p []float64
	for i := range te.X.Rows {
		t := -1
		for j, c := range classes {
			if c == te.Y[i] {
				t = j
			}
		}
		if t < 0 {
			continue // a label the model has no class for: see labelWarning
		}
		s = sc.Scores(te.X.Row(i), s)
		p = cal.Proba(s, p)
		proba = append(proba, p...)
		truth = append(truth, t)
	}
	if len(truth) == 0 {
		return math.NaN(), math.NaN(), nil
	}
	if logLoss, err = metrics.LogLoss(proba, k, truth); err != nil {
		return 0, 0, err
	}
	ece, err = metrics.ECE(proba, k, truth, 10)
	return logLoss, ece, err
}
