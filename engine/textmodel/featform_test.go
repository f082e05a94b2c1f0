package textmodel

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

// A model from FitFeatures writes the featurizer's form made while it
// trained: the file is the one a model made afterwards from the same
// featurizer and classifier writes.
func TestFeaturizerFormMadeAheadWritesTheSameFile(t *testing.T) {
	var docs, labels []string
	for i := range 400 {
		docs = append(docs, fmt.Sprintf("word%d and word%d with pair%d of words", i%37, i%11, i%5))
		labels = append(labels, []string{"a", "b", "c"}[i%3])
	}
	c := &text.Corpus{}
	for i := range docs {
		c.Docs = append(c.Docs, text.Doc{Label: labels[i], Text: docs[i]})
	}
	f, d, err := text.FitVectorize(context.Background(), c, text.Config{NGrams: 2, Vocabulary: true, IDF: true, TF: text.Log})
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := FitFeatures(context.Background(), f, d, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if m.featForm == nil {
		t.Fatal("the featurizer's form was not made while the model trained")
	}
	after, err := New(f, m.classifier)
	if err != nil {
		t.Fatal(err)
	}
	after.calib = m.calib
	var a, b bytes.Buffer
	if _, err := m.WriteTo(&a); err != nil {
		t.Fatal(err)
	}
	if _, err := after.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatalf("the files differ: %d and %d bytes", a.Len(), b.Len())
	}
}
