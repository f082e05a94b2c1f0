package engine

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse/budget/budgettest"
)

// A model file whose sparse weights expand to more than the memory budget
// (a bitmap of 512 KiB stands for 16 MiB of weights) is refused for the
// budget, before the weights are allocated, and not as a bad file.
func TestModelWeightsCountedAgainstBudget(t *testing.T) {
	m := &Model{Classes: []float64{-1, 1}, Dim: 1 << 22, W: make([]float32, 1<<22), B: []float32{0.5}, BiasScale: 1}
	m.W[7] = 1
	b, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.hpm")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	const limit = 4 << 20
	var lerr, rerr, uerr error
	budgettest.Run(t, limit, func() {
		_, lerr = Load(path)
		_, rerr = ReadModel(bytes.NewReader(b))
		uerr = new(Model).UnmarshalBinary(b)
	})
	for what, err := range map[string]error{"Load": lerr, "ReadModel": rerr, "UnmarshalBinary": uerr} {
		if !errors.Is(err, ErrMemory) || errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "weights") {
			t.Errorf("%s of %d bytes under a budget of %d: %v", what, len(b), limit, err)
		}
	}
	if _, err := Load(path); err != nil {
		t.Fatalf("under the default budget: %v", err)
	}
}
