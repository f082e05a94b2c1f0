package textmodel

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

// corpus returns short documents of three topics.
func corpus(n int) (docs, labels []string) {
	words := map[string][]string{
		"sport":   {"match", "goal", "team", "season", "coach", "league"},
		"finance": {"market", "stock", "bank", "rates", "profit", "shares"},
		"science": {"cell", "study", "energy", "physics", "genes", "lab"},
	}
	topics := []string{"finance", "science", "sport"}
	for i := range n {
		t := topics[i%3]
		w := words[t]
		docs = append(docs, fmt.Sprintf("the %s and the %s of a %s, %d", w[i%6], w[(i/3)%6], w[(i/7)%6], i%5))
		labels = append(labels, t)
	}
	return docs, labels
}

func fit(t testing.TB) *Model {
	t.Helper()
	docs, labels := corpus(300)
	m, _, err := Fit(context.Background(), docs, labels, text.Config{NGrams: 2, IDF: true}, engine.Config{Rule: engine.PA2, Normalize: true})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestFitClassify(t *testing.T) {
	m := fit(t)
	if got := m.Labels(); !slices.Equal(got, []string{"finance", "science", "sport"}) {
		t.Fatalf("labels %q", got)
	}
	for doc, want := range map[string]string{
		"the goal of the team this season": "sport",
		"bank shares and market rates":     "finance",
		"a lab study of genes and cells":   "science",
	} {
		if got := m.Classify(doc); got != want {
			t.Errorf("Classify(%q) = %q, want %q", doc, got, want)
		}
		s := m.Scores(doc, nil)
		if len(s) != 3 || m.Labels()[slices.Index(s, slices.Max(s))] != want {
			t.Errorf("Scores(%q) = %v", doc, s)
		}
	}
	docs, _ := corpus(500)
	batch := m.ClassifyBatch(docs, nil)
	for i, d := range docs {
		if batch[i] != m.Classify(d) {
			t.Fatalf("ClassifyBatch differs from Classify at %d", i)
		}
	}
}

// Classify allocates nothing once its encoder pool is warm.
func TestClassifyAllocs(t *testing.T) {
	m := fit(t)
	doc := "the goal of the team this season, and the market"
	m.Classify(doc)
	var s []float32
	s = m.Scores(doc, s)
	if raceOn {
		return // (the allocation counts are checked without -race)
	}
	if n := testing.AllocsPerRun(200, func() { m.Classify(doc) }); n != 0 {
		t.Errorf("Classify: %v allocations a call", n)
	}
	if n := testing.AllocsPerRun(200, func() { s = m.Scores(doc, s) }); n != 0 {
		t.Errorf("Scores: %v allocations a call", n)
	}
}

// One file holds both parts; it reads back to a model that classifies
// alike, and anything else is refused.
func TestFileRoundTrip(t *testing.T) {
	m := fit(t)
	path := filepath.Join(t.TempDir(), "m.hptm")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	back, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	docs, _ := corpus(200)
	if !slices.Equal(back.ClassifyBatch(docs, nil), m.ClassifyBatch(docs, nil)) {
		t.Error("the model read back classifies differently")
	}
	var buf bytes.Buffer
	n, err := m.WriteTo(&buf)
	if err != nil || n != int64(buf.Len()) {
		t.Fatalf("WriteTo: %d reported, %d written, %v", n, buf.Len(), err)
	}
	data := buf.Bytes()
	for name, bad := range map[string][]byte{
		"empty":     nil,
		"magic":     append([]byte("HPXX"), data[4:]...),
		"truncated": data[:len(data)/2],
		"flipped":   append(append(slices.Clone(data[:40]), data[40]^1), data[41:]...),
		"huge part": append(append(slices.Clone(data[:8]), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0), data[16:]...),
	} {
		if _, err := Read(bytes.NewReader(bad)); err == nil {
			t.Errorf("%s: read without error", name)
		} else if !errors.Is(err, ErrFormat) && !strings.Contains(err.Error(), "budget") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// A classifier is paired only with the featurizer whose output it was
// trained on.
func TestNewRefusesMismatch(t *testing.T) {
	m := fit(t)
	docs, _ := corpus(60)
	other := make([]string, len(docs))
	for i := range other {
		other[i] = []string{"x", "y"}[i%2]
	}
	g, _, err := Fit(context.Background(), docs, other, text.Config{Bits: 10}, engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(g.Featurizer(), m.Classifier()); !errors.Is(err, ErrMismatch) {
		t.Errorf("a model of other labels and a wider space: %v", err)
	}
	if _, err := New(m.Featurizer(), m.Classifier()); err != nil {
		t.Errorf("its own featurizer: %v", err)
	}
}

func BenchmarkClassify200Words(b *testing.B) {
	m := fit(b)
	docs, _ := corpus(300)
	doc := strings.Repeat(strings.Join(docs[:10], " ")+" ", 3)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		m.Classify(doc)
	}
}
