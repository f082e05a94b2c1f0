package textmodel_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/engine/textmodel"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

var mlDocs = []string{
	"the team won the match", "a late goal for the team", "the coach praised the player",
	"the senate passed the law", "a vote on the new policy", "the minister and the party",
	"the team owner met the minister", "the player ran for the senate",
	"the weather was mild", "nothing much happened today",
}

var mlLabels = [][]string{
	{"sports"}, {"sports"}, {"sports"},
	{"politics"}, {"politics"}, {"politics"},
	{"sports", "politics"}, {"politics", "sports"},
	{}, {},
}

func fitML(t *testing.T) *textmodel.MultiLabel {
	t.Helper()
	cfg := textmodel.MultiLabelConfig{Text: text.Config{Bits: 12}, Learner: engine.MultiLabelConfig{Rule: engine.PA1, Holdout: -1}}
	m, err := textmodel.FitMultiLabel(context.Background(), mlDocs, mlLabels, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestMultiLabelTextFit(t *testing.T) {
	m := fitML(t)
	if got := m.Labels(); !slices.Equal(got, []string{"politics", "sports"}) {
		t.Fatalf("labels %q", got)
	}
	for i, d := range mlDocs {
		got := m.Predict(d)
		want := slices.Clone(mlLabels[i])
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%q: %q, want %q", d, got, want)
		}
	}
	if got := m.TopK("the team won the match", 1); !slices.Equal(got, []string{"sports"}) {
		t.Errorf("top 1 %q", got)
	}
}

func TestMultiLabelTextExplainAddsUp(t *testing.T) {
	m := fitML(t)
	doc := "the team owner met the minister"
	s := m.Scores(doc, nil)
	for c, l := range m.Labels() {
		bias, terms, err := m.Explain(doc, l, -1)
		if err != nil {
			t.Fatal(err)
		}
		sum := bias
		for _, tm := range terms {
			sum += tm.Value
		}
		if math.Abs(sum-float64(s[c])) > 1e-4 {
			t.Errorf("%s: bias and contributions add to %v, score %v", l, sum, s[c])
		}
	}
	if _, _, err := m.Explain(doc, "weather", 3); !errors.Is(err, textmodel.ErrUnknownLabel) {
		t.Errorf("unknown label: %v", err)
	}
}

func TestMultiLabelTextFile(t *testing.T) {
	m := fitML(t)
	path := t.TempDir() + "/m.hptl"
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	if !textmodel.IsMultiLabelFile(path) {
		t.Fatal("IsMultiLabelFile: false for a saved model")
	}
	m2, err := textmodel.LoadMultiLabel(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range mlDocs {
		if !slices.Equal(m.Scores(d, nil), m2.Scores(d, nil)) || !slices.Equal(m.Proba(d, nil), m2.Proba(d, nil)) {
			t.Fatalf("%q: the loaded model scores differently", d)
		}
	}
	b, _ := m.MarshalBinary()
	for _, n := range []int{0, 4, 11, len(b) / 2, len(b) - 1} {
		if _, err := textmodel.UnmarshalMultiLabel(b[:n]); !errors.Is(err, engine.ErrFormat) {
			t.Errorf("cut at %d: %v", n, err)
		}
	}
	c := bytes.Clone(b)
	c[len(c)/2] ^= 1
	if _, err := textmodel.UnmarshalMultiLabel(c); !errors.Is(err, engine.ErrFormat) {
		t.Errorf("flipped byte: %v", err)
	}
}

func TestMultiLabelTextCorpus(t *testing.T) {
	// A corpus read with MultiLabel trains the model FitMultiLabel does.
	var b strings.Builder
	for i, d := range mlDocs {
		fmt.Fprintf(&b, `{"label":[%s],"text":%q}`+"\n", quoteAll(mlLabels[i]), d)
	}
	c, err := text.Read(strings.NewReader(b.String()), text.ReadOptions{MultiLabel: true})
	if err != nil {
		t.Fatal(err)
	}
	cfg := textmodel.MultiLabelConfig{Text: text.Config{Bits: 12}, Learner: engine.MultiLabelConfig{Rule: engine.PA1, Holdout: -1}}
	m, err := textmodel.FitMultiLabelCorpus(context.Background(), c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := m.MarshalBinary()
	want, _ := fitML(t).MarshalBinary()
	if !bytes.Equal(a, want) {
		t.Error("the JSONL corpus trains another model than the same documents given as slices")
	}
	// A corpus read without MultiLabel has no label lists.
	c.Labels = nil
	if _, err := textmodel.FitMultiLabelCorpus(context.Background(), c, cfg); !errors.Is(err, engine.ErrLabels) {
		t.Errorf("no label lists: %v", err)
	}
}

func quoteAll(ls []string) string {
	q := make([]string, len(ls))
	for i, l := range ls {
		q[i] = fmt.Sprintf("%q", l)
	}
	return strings.Join(q, ",")
}

func ExampleFitMultiLabel() {
	docs := []string{
		"the team won the match", "a late goal for the team",
		"the senate passed the law", "a vote on the new policy",
		"the team owner met the minister", "the weather was mild",
	}
	labels := [][]string{{"sports"}, {"sports"}, {"politics"}, {"politics"}, {"sports", "politics"}, {}}
	cfg := textmodel.MultiLabelConfig{Text: text.Config{Bits: 12}, Learner: engine.MultiLabelConfig{Rule: engine.PA1, Holdout: -1}}
	m, err := textmodel.FitMultiLabel(context.Background(), docs, labels, cfg)
	if err != nil {
		panic(err)
	}
	fmt.Println(m.Predict("the team met the minister"))
	fmt.Println(m.Predict("the weather"))
	// Output:
	// [politics sports]
	// []
}
