package textmodel

import (
	"bytes"
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
