package textmodel

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

// The strongest features of a label are named by the n-grams that land in
// them, also when they are hashed; the names survive a file round trip.
func TestTopNamesHashed(t *testing.T) {
	docs, labels := corpus(300)
	m, _, err := Fit(context.Background(), docs, labels, Config{Text: text.Config{Bits: 18}})
	if err != nil {
		t.Fatal(err)
	}
	c := &text.Corpus{}
	for i := range docs {
		c.Docs = append(c.Docs, text.Doc{Label: labels[i], Text: docs[i]})
	}
	if err := m.NameFeatures(c, 5, 3); err != nil {
		t.Fatal(err)
	}
	sport := slices.Index(m.Labels(), "sport")
	var buf bytes.Buffer
	if _, err := m.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := Read(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	for _, mm := range []*Model{m, back} {
		pos, neg, err := mm.Top(sport, 5)
		if err != nil {
			t.Fatal(err)
		}
		if len(pos) < 3 || len(pos) > 5 || len(neg) < 3 || len(neg) > 5 {
			t.Fatalf("Top: %d and %d features", len(pos), len(neg))
		}
		sportWords := []string{"match", "goal", "team", "season", "coach", "league"}
		for k, f := range pos {
			if k > 0 && f.Weight > pos[k-1].Weight {
				t.Errorf("Top: not strongest first: %v", pos)
			}
			if !slices.Contains(sportWords, f.Term) {
				t.Errorf("term %q (feature %d, weight %v) toward sport, want a sport word", f.Term, f.Feature, f.Weight)
			}
		}
		for _, f := range neg {
			if !(f.Weight < 0) || f.Term == "" || slices.Contains(sportWords, f.Term) {
				t.Errorf("term %q (feature %d) against sport: weight %v", f.Term, f.Feature, f.Weight)
			}
		}
	}
}

// Explain's contributions and bias add up to the score of the label it
// gives, which is Classify's; a binary model's first label is explained
// by the negated score.
func TestExplainSumsToScore(t *testing.T) {
	docs, topics := corpus(300)
	binLabels := make([]string, len(docs))
	for i, l := range topics {
		binLabels[i] = map[bool]string{true: "sport", false: "other"}[l == "sport"]
	}
	multi, _, err := Fit(context.Background(), docs, topics, Config{Text: text.Config{NGrams: 2, IDF: true}, Learner: engine.Config{Normalize: true}})
	if err != nil {
		t.Fatal(err)
	}
	bin, _, err := Fit(context.Background(), docs, binLabels, Config{Text: text.Config{Vocabulary: true}})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []*Model{multi, bin} {
		for _, d := range append(docs[:20:20], "the goal of the market", "") {
			label, bias, terms, err := m.Explain(d, -1)
			if err != nil {
				t.Fatal(err)
			}
			if label != m.Classify(d) {
				t.Fatalf("Explain(%q) gives %q, Classify %q", d, label, m.Classify(d))
			}
			i := slices.Index(m.Labels(), label)
			s := m.Scores(d, nil)
			want := float64(s[0])
			if len(s) == 1 && i == 0 {
				want = -want
			} else if len(s) > 1 {
				want = float64(s[i])
			}
			sum := bias
			for k, c := range terms {
				sum += c.Value
				if k > 0 && math.Abs(c.Value) > math.Abs(terms[k-1].Value) {
					t.Errorf("Explain(%q): not largest first", d)
				}
			}
			if math.Abs(sum-want) > 1e-4*(1+math.Abs(want)) {
				t.Errorf("Explain(%q): contributions and bias sum to %v, the score is %v", d, sum, want)
			}
		}
		_, _, top, _ := m.Explain(docs[0], 2)
		if len(top) > 2 {
			t.Errorf("Explain(n=2) gave %d terms", len(top))
		}
	}
	// A vocabulary names its features without a corpus.
	if err := bin.NameFeatures(nil, 3, 1); err != nil {
		t.Fatal(err)
	}
	pos, _, _ := bin.Top(slices.Index(bin.Labels(), "sport"), 3)
	for _, f := range pos {
		if f.Term == "" || bin.Featurizer().Vocabulary()[f.Feature] != f.Term {
			t.Errorf("vocabulary feature %d: named %q", f.Feature, f.Term)
		}
	}
	if _, _, err := bin.Top(7, 3); !errors.Is(err, engine.ErrConfig) {
		t.Errorf("Top of a label out of range: %v", err)
	}
}

// TestEachWeightVisitsStoredColumns: a model that stores few columns of a
// wide hashed space is walked over those columns only, with the weights
// Weight gives, binary and multiclass; the strongest features found that
// way are those a walk over every feature finds.
func TestEachWeightVisitsStoredColumns(t *testing.T) {
	cols := []int32{3, 70, 4096, 1 << 20, 1<<24 - 1}
	for _, classes := range [][]float64{{0, 1}, {0, 1, 2}} {
		rows := len(classes)
		if rows == 2 {
			rows = 1
		}
		lm := &engine.Model{Classes: classes, Dim: 1 << 24, Cols: cols, B: make([]float32, rows)}
		for p := range len(cols) * rows {
			lm.W = append(lm.W, float32(p%5)-2) // some zeros, both signs
		}
		for i := range len(classes) {
			calls := 0
			eachWeight(lm, i, lm.Dim, func(j int32, w float32) {
				calls++
				if want := weight(lm, i, int(j)); w != want {
					t.Errorf("%d classes, label %d, feature %d: weight %v, want %v", len(classes), i, j, w, want)
				}
			})
			if calls != len(cols) {
				t.Errorf("%d classes, label %d: %d features visited, want the %d stored", len(classes), i, calls, len(cols))
			}
			// Below a narrower dim the last columns are left out.
			calls = 0
			eachWeight(lm, i, 1<<20, func(int32, float32) { calls++ })
			if calls != 3 {
				t.Errorf("dim 2^20: %d features visited, want 3", calls)
			}
			// The same strongest features as every feature weighed one by one.
			var want []feature
			for _, j := range cols {
				if w := weight(lm, i, int(j)); w > 0 {
					want = append(want, feature{j, w})
				}
			}
			for _, j := range cols {
				if w := weight(lm, i, int(j)); w < 0 {
					want = append(want, feature{j, w})
				}
			}
			m := &Model{featurizer: hashedFeaturizer(t, 24)}
			got := m.top(lm, i, len(cols))
			slices.SortStableFunc(want[:countPos(want)], func(a, b feature) int { return cmp.Compare(b.weight, a.weight) })
			slices.SortStableFunc(want[countPos(want):], func(a, b feature) int { return cmp.Compare(a.weight, b.weight) })
			if !slices.Equal(got, want) {
				t.Errorf("%d classes, label %d: top %v, want %v", len(classes), i, got, want)
			}
		}
	}
}

func countPos(f []feature) int {
	n := 0
	for _, x := range f {
		if x.weight > 0 {
			n++
		}
	}
	return n
}

// hashedFeaturizer fits a featurizer hashing into 2^bits buckets on two
// documents.
func hashedFeaturizer(t *testing.T, bits int) *text.Featurizer {
	t.Helper()
	f, err := text.Fit(&text.Corpus{Docs: []text.Doc{{Label: "a", Text: "x y"}, {Label: "b", Text: "y z"}}}, text.Config{Bits: bits})
	if err != nil {
		t.Fatal(err)
	}
	return f
}
