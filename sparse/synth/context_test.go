package synth

import (
	"context"
	"errors"
	"testing"
)

// TestGenerateContext: the generators stop when their context is done and
// say so; not cancelled, they give what Generate gives.
func TestGenerateContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tx := Text{Rows: 50000, Seed: 3, Workers: 2}
	if _, err := tx.GenerateContext(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Text: %v", err)
	}
	sp := Separable{N: 20000, Dim: 20, Seed: 3, Workers: 2}
	if _, err := sp.GenerateContext(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Separable: %v", err)
	}
	a, err := Text{Rows: 3000, Seed: 3}.GenerateContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b, err := Text{Rows: 3000, Seed: 3}.Generate()
	if err != nil || a.X.NNZ() != b.X.NNZ() || a.Y[2999] != b.Y[2999] {
		t.Errorf("GenerateContext differs from Generate: %v", err)
	}
}
