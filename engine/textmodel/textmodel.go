// Package textmodel holds a text classifier as one value and one file:
// the fitted featurizer that turns a string into features (tokenizer
// settings, n-grams, hashing or vocabulary, IDF, label names) and the
// model that classifies them, linear or kernel. A service loads one file
// and classifies strings, with no featurizer and model to keep paired.
//
// Classify and Scores are safe for concurrent use and, once warm,
// allocate nothing: each call borrows a reusable encoder from a pool.
package textmodel

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/hyperplane-ml/hyperplane/engine"
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
	classes    []float64 // the classifier's labels, ascending
	names      []string  // the featurizer's name of each class
	encoders   sync.Pool
}

// scorer is what both model kinds offer beside engine.Classifier.
type scorer interface {
	Scores(sparse.Vector, []float32) []float32
}

// New pairs f with c, a *engine.Model or *engine.KernelModel trained on
// f's output: every class of c must be one of f's labels, and c may not
// be wider than f's features (ErrMismatch otherwise).
func New(f *text.Featurizer, c engine.Classifier) (*Model, error) {
	var classes []float64
	var dim int
	switch c := c.(type) {
	case *engine.Model:
		classes, dim = c.Classes, c.Dim
	case *engine.KernelModel:
		classes, dim = c.Classes, c.Dim
	default:
		return nil, fmt.Errorf("%w: a classifier of type %T", ErrMismatch, c)
	}
	if f == nil {
		return nil, fmt.Errorf("%w: no featurizer", ErrMismatch)
	}
	if dim > f.Dim() {
		return nil, fmt.Errorf("%w: the classifier has %d features, the featurizer makes %d", ErrMismatch, dim, f.Dim())
	}
	m := &Model{featurizer: f, classifier: c, classes: slices.Clone(classes)}
	for _, v := range classes {
		name := f.Name(v)
		if back, err := f.Label(name); err != nil || back != v {
			return nil, fmt.Errorf("%w: class %v is none of the featurizer's labels %q", ErrMismatch, v, f.Labels())
		}
		m.names = append(m.names, name)
	}
	m.encoders.New = func() any { return f.NewEncoder() }
	return m, nil
}

// Fit fits a featurizer with tcfg on docs and their labels (label names,
// as in a JSONL file) and trains a linear model with cfg on its output.
// The statistics of every epoch are returned as engine.Fit returns them.
func Fit(ctx context.Context, docs, labels []string, tcfg text.Config, cfg engine.Config) (*Model, []engine.EpochStats, error) {
	if len(docs) != len(labels) {
		return nil, nil, fmt.Errorf("textmodel: %d documents and %d labels", len(docs), len(labels))
	}
	c := &text.Corpus{Docs: make([]text.Doc, len(docs))}
	for i := range docs {
		c.Docs[i] = text.Doc{Label: labels[i], Text: docs[i]}
	}
	f, err := text.Fit(c, tcfg)
	if err != nil {
		return nil, nil, err
	}
	d, err := f.Vectorize(c)
	if err != nil {
		return nil, nil, err
	}
	lm, stats, err := engine.Fit(ctx, d.X, d.Y, cfg)
	if err != nil {
		return nil, stats, err
	}
	m, err := New(f, lm)
	return m, stats, err
}

// Featurizer returns the featurizer; Classifier the model behind it.
func (m *Model) Featurizer() *text.Featurizer  { return m.featurizer }
func (m *Model) Classifier() engine.Classifier { return m.classifier }

// Labels returns the label names, in the order of Scores.
func (m *Model) Labels() []string { return slices.Clone(m.names) }

// Classify returns the label name the model gives doc.
func (m *Model) Classify(doc string) string {
	e := m.encoders.Get().(*text.Encoder)
	p := m.classifier.Predict(e.Transform(doc))
	m.encoders.Put(e)
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
	e := m.encoders.Get().(*text.Encoder)
	dst = m.classifier.(scorer).Scores(e.Transform(doc), dst)
	m.encoders.Put(e)
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
