package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

// TestPreconditionsNamed: every prediction method of both kinds of model
// given a row with more indices than values, a nil matrix or a matrix
// whose row pointers run past its entries panics with a message that
// names the method and what is wrong, not with a bare runtime error.
func TestPreconditionsNamed(t *testing.T) {
	X := &sparse.CSR{Rows: 2, Cols: 3, Indptr: []int64{0, 1, 2}, Ind: []int32{0, 1}, Val: []float32{1, 1}}
	y := []float64{-1, 1}
	lin, _, err := Fit(context.Background(), X, y, Config{Epochs: 1})
	if err != nil {
		t.Fatal(err)
	}
	ker, _, err := FitKernel(context.Background(), X, y, KernelConfig{})
	if err != nil {
		t.Fatal(err)
	}
	bad := sparse.Vector{Ind: []int32{0, 1, 2}, Val: []float32{1}}
	badX := &sparse.CSR{Rows: 2, Cols: 3, Indptr: []int64{0, 5, 2}, Ind: []int32{0, 1}, Val: []float32{1, 1}}
	panics := func(name, want string, f func()) {
		t.Helper()
		defer func() {
			r := recover()
			msg := fmt.Sprint(r)
			if r == nil || !strings.Contains(msg, name) || !strings.Contains(msg, want) {
				t.Errorf("%s: panic %q, want one naming %s and %q", name, msg, name, want)
			}
		}()
		f()
	}
	for _, c := range []struct {
		kind string
		m    Classifier
	}{{"Model", lin}, {"KernelModel", ker}} {
		k, m := c.kind, c.m
		panics(k+".Predict", "3 indices and 1 values", func() { m.Predict(bad) })
		panics(k+".Decision", "3 indices and 1 values", func() { m.Decision(bad) })
		panics(k+".Scores", "3 indices and 1 values", func() { m.Scores(bad, nil) })
		panics(k+".PredictBatch", "nil matrix", func() { m.PredictBatch(nil, nil) })
		panics(k+".DecisionBatch", "nil matrix", func() { m.DecisionBatch(nil, nil) })
		panics(k+".ScoresBatch", "nil matrix", func() { m.ScoresBatch(nil, nil) })
		panics(k+".PredictBatch", "Indptr", func() { m.PredictBatch(badX, nil) })
		panics(k+".DecisionBatch", "Indptr", func() { m.DecisionBatch(badX, nil) })
		panics(k+".ScoresBatch", "Indptr", func() { m.ScoresBatch(badX, nil) })
		// Valid rows still predict.
		if got := m.PredictBatch(X, nil); len(got) != 2 {
			t.Errorf("%s.PredictBatch of a valid X: %v", k, got)
		}
	}
	if g := ScaleGamma(nil); g != 1 {
		t.Errorf("ScaleGamma(nil) = %v, want 1", g)
	}
}
