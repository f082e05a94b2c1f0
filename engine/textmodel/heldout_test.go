package textmodel

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

// HeldOut sets aside a fortieth of the documents (250 to 5,000), by class,
// from 4,000 documents up; none below, nor with Refit; every class keeps
// a document to train on; the two parts are disjoint, ascending and whole.
func TestHeldOutSizes(t *testing.T) {
	labels := func(n int) []float64 {
		y := make([]float64, n)
		for i := range y {
			y[i] = float64(i % 3)
		}
		y[n-1] = 7 // a class of one document
		return y
	}
	for _, c := range []struct {
		n        int
		cfg      Config
		min, max int
	}{
		{3999, Config{}, 0, 0},
		{4000, Config{}, 240, 260},
		{25000, Config{}, 600, 650},
		{400000, Config{}, 4900, 5100},
		{25000, Config{Refit: true}, 0, 0},
		{25000, Config{Holdout: 0.1}, 2400, 2600},
	} {
		y := labels(c.n)
		train, held, err := HeldOut(y, c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if len(held) < c.min || len(held) > c.max {
			t.Errorf("%d documents, %+v: %d held out, want %d to %d", c.n, c.cfg, len(held), c.min, c.max)
		}
		if len(train)+len(held) != c.n || !slices.IsSorted(train) || !slices.IsSorted(held) {
			t.Fatalf("%d documents: %d + %d, or not ascending", c.n, len(train), len(held))
		}
		all := append(slices.Clone(train), held...)
		slices.Sort(all)
		for i, v := range all {
			if v != i {
				t.Fatalf("%d documents: the parts are not the documents once each", c.n)
			}
		}
		if !slices.Contains(train, c.n-1) {
			t.Errorf("%d documents: the only document of its class is held out", c.n)
		}
		per := map[float64]int{}
		for _, i := range held {
			per[y[i]]++
		}
		if len(held) > 0 && (per[0] == 0 || per[1] == 0 || per[2] == 0) {
			t.Errorf("%d documents: held out by class %v, want every class", c.n, per)
		}
	}
	if _, _, err := HeldOut([]float64{1, 2}, Config{Holdout: 0.7}); err == nil {
		t.Error("Holdout 0.7 accepted")
	}
}

// From 4,000 documents up, FitFeatures trains the model on all but the
// held-out documents and calibrates it on its own scores of those: the
// same model, bit for bit, as training on the other documents alone and
// calling Calibrate on the held-out ones. With Refit the model learns
// from every document.
func TestFitFeaturesHoldsOut(t *testing.T) {
	docs, labels := corpus(4500)
	c := &text.Corpus{}
	for i := range docs {
		c.Docs = append(c.Docs, text.Doc{Label: labels[i], Text: docs[i]})
	}
	f, err := text.Fit(c, text.Config{Bits: 12})
	if err != nil {
		t.Fatal(err)
	}
	d, err := f.Vectorize(c)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Learner: engine.Config{Epochs: 3}}
	m, _, err := FitFeatures(context.Background(), f, d, cfg)
	if err != nil {
		t.Fatal(err)
	}
	train, held, err := HeldOut(d.Y, cfg)
	if err != nil || len(held) == 0 {
		t.Fatalf("%d held out: %v", len(held), err)
	}
	lm, _, err := engine.Fit(context.Background(), d.X.SelectRows(train), pick(d.Y, train), cfg.Learner)
	if err != nil {
		t.Fatal(err)
	}
	want, err := New(f, lm)
	if err != nil {
		t.Fatal(err)
	}
	if err := want.Calibrate(d.X.SelectRows(held), pick(d.Y, held)); err != nil {
		t.Fatal(err)
	}
	if !sameModelBytes(t, m, want) {
		t.Error("FitFeatures differs from a model of the other documents calibrated on the held-out ones")
	}
	all, _, err := engine.Fit(context.Background(), d.X, d.Y, cfg.Learner)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Refit = true
	r, _, err := FitFeatures(context.Background(), f, d, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Classifier().(*engine.Model).W, all.W) {
		t.Error("with Refit, the model is not the one of every document")
	}
	if _, ok := r.Calibration(); !ok {
		t.Error("with Refit, no calibration")
	}
}

func sameModelBytes(t *testing.T, a, b *Model) bool {
	t.Helper()
	var x, y bytes.Buffer
	if _, err := a.WriteTo(&x); err != nil {
		t.Fatal(err)
	}
	if _, err := b.WriteTo(&y); err != nil {
		t.Fatal(err)
	}
	return bytes.Equal(x.Bytes(), y.Bytes())
}
