package textmodel

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

// Each fold's featurizer is fitted on that fold's training documents
// only: a term found in one document is in the vocabulary of every fold
// that trains on it and of none that holds it out, and gives the held-out
// document no feature.
func TestCrossValidateRefitsPerFold(t *testing.T) {
	docs, labels := corpus(300)
	docs[17] += " zzonlyhere"
	var mu sync.Mutex
	with, without := 0, 0
	fitFold = func(ctx context.Context, c *text.Corpus, cfg Config) (*Model, []engine.EpochStats, error) {
		m, stats, err := fitCorpus(ctx, c, cfg)
		if err != nil {
			return m, stats, err
		}
		trained := slices.ContainsFunc(c.Docs, func(d text.Doc) bool { return strings.Contains(d.Text, "zzonlyhere") })
		_, inVocab := slices.BinarySearch(m.Featurizer().Vocabulary(), "zzonlyhere")
		mu.Lock()
		defer mu.Unlock()
		switch {
		case trained && inVocab:
			with++
		case !trained && !inVocab:
			without++
			// The held-out document's row is that of the document
			// without the term.
			f := m.Featurizer()
			a, b := f.Transform(docs[17]), f.Transform(strings.TrimSuffix(docs[17], " zzonlyhere"))
			if !slices.Equal(a.Ind, b.Ind) || !slices.Equal(a.Val, b.Val) {
				t.Errorf("the held-out term changes the held-out row: %v vs %v", a, b)
			}
		default:
			t.Errorf("a fold that trained on the term: %v; has it in its vocabulary: %v", trained, inVocab)
		}
		return m, stats, err
	}
	defer func() { fitFold = fitCorpus }()
	cfg := Config{Text: text.Config{Vocabulary: true, IDF: true}, Learner: engine.Config{Rule: engine.PA2, Normalize: true}}
	res, err := CrossValidate(context.Background(), docs, labels, cfg, 5)
	if err != nil {
		t.Fatal(err)
	}
	if with != 4 || without != 1 {
		t.Errorf("folds with the term in the vocabulary: %d, without: %d; want 4 and 1", with, without)
	}
	rows := 0
	for _, r := range res {
		rows += r.Rows
		if r.Accuracy() < 0.9 {
			t.Errorf("fold accuracy %v on separable topics", r.Accuracy())
		}
	}
	if rows != len(docs) {
		t.Errorf("%d held-out rows in all, want %d", rows, len(docs))
	}
	if _, err := CrossValidate(context.Background(), docs, labels[:5], cfg, 5); !errors.Is(err, engine.ErrLabels) {
		t.Errorf("mismatched labels: %v", err)
	}
	if _, err := CrossValidate(context.Background(), docs, labels, cfg, 1); !errors.Is(err, engine.ErrConfig) {
		t.Errorf("one fold: %v", err)
	}
}

// Config.Kernel trains a kernel model, calibrated as a linear one is.
func TestFitKernel(t *testing.T) {
	docs, labels := corpus(300)
	kc := engine.KernelConfig{Config: engine.Config{Epochs: 3}}
	m, _, err := Fit(context.Background(), docs, labels, Config{Text: text.Config{NGrams: 2, IDF: true}, Kernel: &kc})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m.Classifier().(*engine.KernelModel); !ok {
		t.Fatalf("Config.Kernel gave a %T", m.Classifier())
	}
	if _, ok := m.Calibration(); !ok {
		t.Error("not calibrated")
	}
	test, want := corpus(60)
	if got := m.ClassifyBatch(test, nil); !slices.Equal(got, want) {
		t.Errorf("a kernel model misclassifies separable topics: %d of %d right", countEqual(got, want), len(want))
	}
}

func countEqual(a, b []string) (n int) {
	for i := range a {
		if a[i] == b[i] {
			n++
		}
	}
	return n
}
