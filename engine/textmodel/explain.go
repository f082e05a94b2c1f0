package textmodel

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

// Weighted is a term of a linear model with its weight toward a label:
// the weight of the feature it lands in, times its sign there (a hashed
// term's sign is ±1; a vocabulary's terms have +1). Term is "" for a
// feature the model keeps no names for (Weight is then the feature's).
type Weighted struct {
	Term    string
	Feature int32
	Weight  float32
	// DF is the number of documents holding the term where the names
	// were taken from (with a vocabulary, the training document
	// frequency if the featurizer keeps IDF; else 0).
	DF int
}

// ErrNotLinear: the explanation needs a linear model's weights.
var ErrNotLinear = errors.New("textmodel: the classifier is not linear")

// linear returns m's linear model, or ErrNotLinear.
func (m *Model) linear() (*engine.Model, error) {
	lm, ok := m.classifier.(*engine.Model)
	if !ok || lm.Votes != nil {
		return nil, fmt.Errorf("%w (a %T)", ErrNotLinear, m.classifier)
	}
	return lm, nil
}

// weight returns the weight of feature j toward label i of lm: for a
// binary model the one row of weights toward the second label, negated
// for the first.
func weight(lm *engine.Model, i, j int) float32 {
	if lm.Binary() {
		w := lm.Weight(0, j)
		if i == 0 {
			return -w
		}
		return w
	}
	return lm.Weight(i, j)
}

// NameFeatures keeps, in m, names for the features that weigh most: for
// every label the 20·perLabel features of largest positive weight and the
// 20·perLabel of most negative (enough for Top to show perLabel terms
// toward and against it, whatever their hash signs), each named by up to perFeature of the terms that land in
// it in the documents of c (the training documents, say), as Vowpal
// Wabbit's --invert_hash does for all. With a vocabulary the names are
// its terms and c may be nil. The names replace those m had and are
// saved with it; Top shows them. It must not run concurrently with other
// calls on m.
func (m *Model) NameFeatures(c *text.Corpus, perLabel, perFeature int) error {
	lm, err := m.linear()
	if err != nil {
		return err
	}
	if perLabel < 1 || perFeature < 1 {
		return fmt.Errorf("%w: %d features a label and %d names a feature, want at least 1", engine.ErrConfig, perLabel, perFeature)
	}
	// Each label's scan of the weights is independent of the others':
	// they run on all cores, and the union is sorted below.
	tops := make([][]feature, len(m.names))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(tops)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(tops); i = int(next.Add(1) - 1) {
				tops[i] = m.top(lm, i, 20*perLabel)
			}
		})
	}
	wg.Wait()
	var want []int32
	for _, top := range tops {
		for _, f := range top {
			want = append(want, f.index)
		}
	}
	slices.Sort(want)
	want = slices.Compact(want)
	n, err := m.featurizer.FeatureNames(c, want, perFeature)
	if err != nil {
		return err
	}
	m.featNames = n
	return nil
}

// feature is a feature's index and weight toward a label.
type feature struct {
	index  int32
	weight float32
}

// top returns the n features of largest weight toward label i and the n
// of most negative weight, each list largest in size first. With signed
// hashing a feature's terms weigh toward or against the label by their
// sign, so both kinds are candidates for either side.
func (m *Model) top(lm *engine.Model, i, n int) []feature {
	dim := min(lm.Dim, m.featurizer.Dim())
	var pos, neg []feature
	order := func(a, b feature) int { return cmp.Compare(math.Abs(float64(b.weight)), math.Abs(float64(a.weight))) }
	add := func(s []feature, f feature) []feature {
		if len(s) == n && order(f, s[n-1]) >= 0 {
			return s
		}
		k, _ := slices.BinarySearchFunc(s, f, order)
		s = slices.Insert(s, k, f)
		if len(s) > n {
			s = s[:n]
		}
		return s
	}
	eachWeight(lm, i, dim, func(j int32, w float32) {
		if w > 0 {
			pos = add(pos, feature{j, w})
		} else if w < 0 {
			neg = add(neg, feature{j, w})
		}
	})
	return append(pos, neg...)
}

// eachWeight calls fn with every feature j below dim that lm stores
// weights for, in increasing order, and its weight toward label i (as
// weight gives it). A model with Cols stores only the features its
// training data used; the others weigh zero and are skipped, so the cost
// follows the data, not 2^Bits of a hashed featurizer times the labels.
func eachWeight(lm *engine.Model, i, dim int, fn func(j int32, w float32)) {
	if lm.Cols == nil {
		for j := range dim {
			fn(int32(j), weight(lm, i, j))
		}
		return
	}
	k, sign := i, float32(1)
	if lm.Binary() {
		k = 0
		if i == 0 {
			sign = -1
		}
	}
	rows := lm.NumRows()
	for p, j := range lm.Cols {
		if int(j) >= dim {
			break
		}
		fn(j, sign*lm.W[p*rows+k])
	}
}

// Top returns the n terms of largest weight toward label i (in the order
// of Labels) and the n of largest weight against it, strongest first:
// the terms of the features that weigh most in size, by the names m keeps
// (see NameFeatures), each with its sign, leaving out those found in
// fewer than a quarter of the documents of its feature's most frequent
// term (collisions that barely moved the weight). Features without kept
// names are left out, unless m keeps none at all: each then counts as one
// unnamed term. Against a label of a multiclass model weigh mostly the
// terms of other labels, whose weights are smaller than the label's own
// terms': they show among the 20·n heaviest features on each side.
func (m *Model) Top(i, n int) (toward, against []Weighted, err error) {
	lm, err := m.linear()
	if err != nil {
		return nil, nil, err
	}
	if i < 0 || i >= len(m.names) || n < 0 {
		return nil, nil, fmt.Errorf("%w: label %d of %d, %d terms", engine.ErrConfig, i, len(m.names), n)
	}
	var all []Weighted
	for _, f := range m.top(lm, i, 20*n) {
		terms := m.termsOf(f.index)
		if len(terms) == 0 && m.featNames == nil {
			all = append(all, Weighted{Feature: f.index, Weight: f.weight})
		}
		for k, t := range terms {
			// A term far rarer than the feature's most frequent one
			// (terms come most frequent first) is a collision that
			// barely moved the weight: showing it with that weight, and
			// a sign of its own, would mislead.
			if k > 0 && 4*t.DF < terms[0].DF {
				break
			}
			all = append(all, Weighted{Term: t.Text, Feature: f.index, Weight: t.Sign * f.weight, DF: t.DF})
		}
	}
	slices.SortStableFunc(all, func(a, b Weighted) int { return cmp.Compare(math.Abs(float64(b.Weight)), math.Abs(float64(a.Weight))) })
	for _, w := range all {
		if w.Weight > 0 && len(toward) < n {
			toward = append(toward, w)
		} else if w.Weight < 0 && len(against) < n {
			against = append(against, w)
		}
	}
	return toward, against, nil
}

// termsOf returns the names m keeps for feature j; with a vocabulary its
// term.
func (m *Model) termsOf(j int32) []text.NamedTerm {
	if m.featurizer.Config().Vocabulary {
		if t, ok := m.featurizer.Term(int(j)); ok {
			return []text.NamedTerm{{Text: t, Sign: 1}}
		}
		return nil
	}
	if m.featNames == nil {
		return nil
	}
	return m.featNames.Lookup(j)
}

// Contribution is what one term of a document adds to the score of a
// label: the term's share of its feature's value, times the feature's
// weight toward the label.
type Contribution struct {
	Term    string
	Feature int32
	Value   float64
}

// Explain returns the label Classify gives doc, the bias of that label's
// score, and the n terms of doc whose contributions to that score are
// largest in size, largest first (all of them with n < 0). The
// contributions and the bias add up to the label's score; for a binary
// model that is the score toward the label (the model's score for the
// second label, its negation for the first). Terms that share a hashed
// feature share its contribution in proportion to their signed counts.
// It allocates; use it to look at documents, not in a hot path.
func (m *Model) Explain(doc string, n int) (label string, bias float64, terms []Contribution, err error) {
	lm, err := m.linear()
	if err != nil {
		return "", 0, nil, err
	}
	e := m.featurizer.NewEncoder()
	x := e.Transform(doc)
	p := lm.Predict(x)
	i, _ := slices.BinarySearch(m.classes, p)
	label = m.names[i]
	scale := 1.0
	if lm.Normalize {
		ss := 0.0
		for _, v := range x.Val {
			ss += float64(v) * float64(v)
		}
		if ss > 0 {
			scale = 1 / math.Sqrt(ss)
		}
	}
	terms = contributions(e, doc, x, n, func(j int32) float64 { return scale * float64(weight(lm, i, int(j))) })
	bias = float64(lm.B[0])
	if lm.Binary() && i == 0 {
		bias = -bias
	} else if !lm.Binary() {
		bias = float64(lm.B[i])
	}
	return label, bias, terms, nil
}

// contributions returns the n terms of doc (all with n < 0) that weigh
// most in a score whose weight for feature j is w(j), x being e's vector
// of doc, largest first: each feature's value times its weight, shared
// among the terms that land in it in proportion to their signed counts.
func contributions(e *text.Encoder, doc string, x sparse.Vector, n int, w func(j int32) float64) []Contribution {
	value := make(map[int32]float64, len(x.Ind))
	for k, j := range x.Ind {
		value[j] = float64(x.Val[k]) * w(j)
	}
	ts := e.Terms(doc, nil)
	share := make(map[int32]float64, len(ts))
	for _, t := range ts {
		share[t.Feature] += float64(t.Sign) * float64(t.Count)
	}
	var terms []Contribution
	for _, t := range ts {
		if s := share[t.Feature]; s != 0 && value[t.Feature] != 0 {
			terms = append(terms, Contribution{Term: t.Text, Feature: t.Feature, Value: value[t.Feature] * float64(t.Sign) * float64(t.Count) / s})
		}
	}
	slices.SortStableFunc(terms, func(a, b Contribution) int { return cmp.Compare(math.Abs(b.Value), math.Abs(a.Value)) })
	if n >= 0 && len(terms) > n {
		terms = terms[:n]
	}
	return terms
}
