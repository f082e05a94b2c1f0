package textmodel

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

// ErrUnknownLabel: a label asked for is not one of the model's.
var ErrUnknownLabel = errors.New("textmodel: not one of the model's labels")

// placeholder is the one label of a multi-label model's featurizer: the
// featurizer maps single labels to classes, which a multi-label model
// keeps itself.
const placeholder = "_"

// MultiLabel is a featurizer and the multi-label classifier trained on
// its output: a document may have any number of the labels, each
// predicted when its score reaches its threshold. Its methods are safe
// for concurrent use.
type MultiLabel struct {
	featurizer *text.Featurizer
	model      *engine.MultiLabelModel
	names      []string // label of each class, sorted
	encoders   sync.Pool
}

// MultiLabelConfig sets up FitMultiLabel. Its zero value is the default:
// the featurizer's and the learner's own defaults.
type MultiLabelConfig struct {
	Text    text.Config
	Learner engine.MultiLabelConfig
}

// FitMultiLabel fits a featurizer on docs and trains a multi-label model
// on its output, labels[i] holding the labels of docs[i] (none for a
// document with no label, a negative for every label). The labels are
// the distinct ones of labels, sorted.
func FitMultiLabel(ctx context.Context, docs []string, labels [][]string, cfg MultiLabelConfig) (*MultiLabel, error) {
	if len(docs) != len(labels) {
		return nil, fmt.Errorf("%w: %d documents, %d label lists", engine.ErrLabels, len(docs), len(labels))
	}
	c := &text.Corpus{Docs: make([]text.Doc, len(docs)), Labels: labels}
	for i := range docs {
		c.Docs[i] = text.Doc{Text: docs[i]}
	}
	return FitMultiLabelCorpus(ctx, c, cfg)
}

// FitMultiLabelCorpus is FitMultiLabel on a corpus read with
// text.ReadOptions.MultiLabel: c.Labels[i] are the labels of c.Docs[i].
func FitMultiLabelCorpus(ctx context.Context, c *text.Corpus, cfg MultiLabelConfig) (*MultiLabel, error) {
	if c == nil || len(c.Docs) == 0 {
		return nil, engine.ErrNoData
	}
	if len(c.Labels) != len(c.Docs) {
		return nil, fmt.Errorf("%w: %d documents, %d label lists (read the corpus with text.ReadOptions.MultiLabel)", engine.ErrLabels, len(c.Docs), len(c.Labels))
	}
	names, Y := labelIndex(c.Labels)
	if len(names) == 0 {
		return nil, fmt.Errorf("%w: no document has a label", engine.ErrLabels)
	}
	fc := *c
	fc.Docs = make([]text.Doc, len(c.Docs))
	for i, d := range c.Docs {
		fc.Docs[i] = text.Doc{Text: d.Text, Label: placeholder, Line: d.Line}
	}
	f, d, err := text.FitVectorize(ctx, &fc, cfg.Text)
	if err != nil {
		return nil, err
	}
	lm, err := engine.FitMultiLabel(ctx, d.X, Y, len(names), cfg.Learner)
	if err != nil {
		return nil, err
	}
	return NewMultiLabel(f, lm, names)
}

// labelIndex returns the sorted distinct labels and each document's
// classes.
func labelIndex(labels [][]string) ([]string, [][]int) {
	seen := map[string]bool{}
	for _, ls := range labels {
		for _, l := range ls {
			seen[l] = true
		}
	}
	names := make([]string, 0, len(seen))
	for l := range seen {
		names = append(names, l)
	}
	slices.Sort(names)
	Y := make([][]int, len(labels))
	for i, ls := range labels {
		for _, l := range ls {
			k, _ := slices.BinarySearch(names, l)
			if !slices.Contains(Y[i], k) {
				Y[i] = append(Y[i], k)
			}
		}
	}
	return names, Y
}

// NewMultiLabel pairs f with m, trained on f's output, names[c] being the
// label of class c. It returns an error wrapping ErrMismatch if m has
// more features than f makes or not one name per class.
func NewMultiLabel(f *text.Featurizer, m *engine.MultiLabelModel, names []string) (*MultiLabel, error) {
	if m.Dim() > f.Dim() || len(names) != m.Classes() {
		return nil, fmt.Errorf("%w: %d features and %d classes, against %d features and %d names", ErrMismatch, m.Dim(), m.Classes(), f.Dim(), len(names))
	}
	ml := &MultiLabel{featurizer: f, model: m, names: slices.Clone(names)}
	ml.encoders.New = func() any { return f.NewEncoder() }
	return ml, nil
}

// Labels returns the model's labels, in class order.
func (m *MultiLabel) Labels() []string { return slices.Clone(m.names) }

// Featurizer returns the featurizer; Model the classifier.
func (m *MultiLabel) Featurizer() *text.Featurizer { return m.featurizer }

// Model returns the multi-label classifier over the featurizer's
// features.
func (m *MultiLabel) Model() *engine.MultiLabelModel { return m.model }

// Scores writes into dst (grown if needed) and returns the score of every
// label, in the order of Labels.
func (m *MultiLabel) Scores(doc string, dst []float32) []float32 {
	e := m.encoders.Get().(*text.Encoder)
	dst = m.model.Scores(e.Transform(doc), dst)
	m.encoders.Put(e)
	return dst
}

// Vector returns doc's features, as the model sees them.
func (m *MultiLabel) Vector(doc string) sparse.Vector {
	e := m.featurizer.NewEncoder()
	v := e.Transform(doc)
	return sparse.Vector{Dim: v.Dim, Ind: slices.Clone(v.Ind), Val: slices.Clone(v.Val)}
}

// Predict returns the labels of doc whose scores reach their thresholds,
// in the order of Labels (none for a document the model tags with none).
func (m *MultiLabel) Predict(doc string) []string {
	s := m.Scores(doc, nil)
	var out []string
	for _, c := range m.model.Decide(s, 0, nil) {
		out = append(out, m.names[c])
	}
	return out
}

// TopK returns the k labels of doc with the highest scores, best first.
func (m *MultiLabel) TopK(doc string, k int) []string {
	out := []string{}
	if k <= 0 {
		return out
	}
	for _, c := range m.model.Decide(m.Scores(doc, nil), k, nil) {
		out = append(out, m.names[c])
	}
	return out
}

// Proba writes into dst (grown if needed) and returns each label's
// probability for doc, in the order of Labels, each on its own (see
// engine.MultiLabelModel.Proba).
func (m *MultiLabel) Proba(doc string, dst []float64) []float64 {
	return m.model.ProbaOfScores(m.Scores(doc, nil), dst)
}

// Explain returns the bias of label's score for doc and the n terms of
// doc whose contributions to that score are largest in size, largest
// first (all of them with n < 0); the contributions and the bias add up
// to the score. An unknown label is an error wrapping ErrUnknownLabel.
func (m *MultiLabel) Explain(doc, label string, n int) (bias float64, terms []Contribution, err error) {
	c := slices.Index(m.names, label)
	if c < 0 {
		return 0, nil, fmt.Errorf("%w: %q", ErrUnknownLabel, label)
	}
	e := m.featurizer.NewEncoder()
	x := e.Transform(doc)
	terms = contributions(e, doc, x, n, func(j int32) float64 { return float64(m.model.Weight(c, int(j))) })
	return float64(m.model.Bias(c)), terms, nil
}
