package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/engine/textmodel"
)

// warmStart is train -i: the saved model that training continues from,
// as Vowpal Wabbit's -i and scikit-learn's partial_fit do. A linear model
// continues on LIBSVM rows or a cache; a text model on raw text, through
// its own featurizer (vocabulary, hashing and IDF as they were), and is
// calibrated again. Kernel and voted models keep no state to continue.
type warmStart struct {
	path   string
	linear *engine.Model    // the linear model, or a text model's
	text   *textmodel.Model // the text model, for raw text
}

// loadWarm reads the -i model for training on text (isText) or on rows.
func loadWarm(path string, isText bool) (*warmStart, error) {
	w := &warmStart{path: path}
	if isText {
		tm, err := textmodel.Load(path)
		if err != nil {
			if _, lerr := engine.LoadClassifier(path); lerr == nil {
				return nil, usageError("-i %s: a model of LIBSVM rows, without a featurizer: it continues on LIBSVM rows, not raw text", path)
			}
			return nil, err
		}
		lm, ok := tm.Classifier().(*engine.Model)
		if !ok {
			return nil, usageError("-i %s: a text model with a kernel classifier; the kernel perceptron's training does not continue (train it again on all the text)", path)
		}
		w.text, w.linear = tm, lm
		return w, nil
	}
	c, err := engine.LoadClassifier(path)
	if err != nil {
		if _, terr := textmodel.Load(path); terr == nil {
			return nil, usageError("-i %s: a text model: it continues on labelled raw text (a .jsonl, .tsv or .txt TRAIN, or -from text), through its featurizer", path)
		}
		return nil, err
	}
	switch m := c.(type) {
	case *engine.Model:
		w.linear = m
	default:
		return nil, usageError("-i %s: a kernel model; the kernel perceptron's training does not continue (train it again on all the data)", path)
	}
	return w, nil
}

// config sets cfg to continue w's model: its learner, bias and row
// normalization unless the flags set them, its scaling, and its weights
// as the start (Config.Warm). Flags that contradict the model are usage
// errors that say what the model has.
func (w *warmStart) config(fs *flag.FlagSet, cfg engine.Config) (engine.Config, error) {
	m := w.linear
	if m.Votes != nil {
		return cfg, usageError("-i %s: a voted perceptron keeps its mistakes, not weights to continue from", w.path)
	}
	if len(setAmong(fs, "algo", "no-average")) == 0 {
		cfg.Algorithm, cfg.Rule = m.Algorithm, m.Rule
		if m.Rule != engine.Perceptron {
			cfg.LearningRate = 0
		}
	}
	if cfg.Rule.SGD() {
		return cfg, usageError("-i %s: %s's steps follow the number of examples seen, which a model does not keep; -algo pa2 or averaged continues from its weights", w.path, cfg.Rule)
	}
	if len(setAmong(fs, "bias", "bias-scale")) == 0 {
		cfg.Bias, cfg.BiasScale = m.Bias, float64(m.BiasScale)
	} else if cfg.Bias != m.Bias {
		return cfg, usageError("-bias %v: the model in %s has bias %v", cfg.Bias, w.path, m.Bias)
	}
	if len(setAmong(fs, "normalize")) > 0 && cfg.Normalize != m.Normalize {
		return cfg, usageError("-normalize=%v: the model in %s was trained on rows %s; leave -normalize out to continue it", cfg.Normalize, w.path, map[bool]string{true: "scaled to unit length", false: "as they are"}[m.Normalize])
	}
	if len(setAmong(fs, "scale")) > 0 {
		return cfg, usageError("-scale: -i continues with the scaling of the model in %s", w.path)
	}
	if len(setAmong(fs, "init")) > 0 {
		return cfg, usageError("-init: -i starts from the weights of the model in %s", w.path)
	}
	cfg.Normalize, cfg.Scaling = m.Normalize, m.Scaling
	mix, err := m.Warm()
	if err != nil {
		return cfg, fmt.Errorf("-i %s: %w", w.path, err)
	}
	cfg.Warm = mix
	return cfg, nil
}

// widen makes cfg's warm start cols features wide when the data have
// more than the model: a LIBSVM file has no width of its own, and a
// feature the model's data never had weighs zero in it, as it would in
// a model trained on both. Such features keep their values (a scaling
// factor of 1, a center of 0).
func widen(cfg engine.Config, cols int) engine.Config {
	w := cfg.Warm
	if w == nil || cols <= w.Dim {
		return cfg
	}
	K := w.NumRows()
	wide := *w
	wide.W = make([]float32, cols*K)
	copy(wide.W, w.W)
	wide.Dim = cols
	cfg.Warm = &wide
	if sc := cfg.Scaling; sc != nil {
		ws := &engine.Scaling{Kind: sc.Kind, Factor: make([]float32, cols)}
		copy(ws.Factor, sc.Factor)
		for j := len(sc.Factor); j < cols; j++ {
			ws.Factor[j] = 1
		}
		if sc.Center != nil {
			ws.Center = make([]float32, cols)
			copy(ws.Center, sc.Center)
		}
		cfg.Scaling = ws
	}
	return cfg
}

// describe says what the model holds, for the report.
func (w *warmStart) describe() string {
	m := w.linear
	s := fmt.Sprintf("%s: %s, %d classes, %s features", w.path, learnerName(m.Algorithm.String(), m.Rule.String()), len(m.Classes), commas(int64(m.Dim)))
	if m.Scaling != nil {
		s += ", " + m.Scaling.Kind.String() + " scaling"
	}
	return s
}

// warmMismatch adds to err, from training on path from w, what the
// data and the model disagree on, when that is the trouble.
func warmMismatch(w *warmStart, err error) error {
	switch {
	case w == nil || err == nil:
		return err
	case errors.Is(err, engine.ErrLabels):
		return fmt.Errorf("%w\nhint: -i continues the model in %s on its own classes %v; a new class needs a new model", err, w.path, w.linear.Classes)
	}
	return err
}
