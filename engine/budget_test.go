package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
)

// wideRows returns two rows, one touching the first feature and one the
// last of width cols: a tiny file that asks for cols weights.
func wideRows(t *testing.T, cols int) (*sparse.CSR, []float64) {
	t.Helper()
	b := sparse.NewBuilder(cols)
	if err := b.Add([]int32{0}, []float32{1}); err != nil {
		t.Fatal(err)
	}
	if err := b.Add([]int32{int32(cols - 1)}, []float32{1}); err != nil {
		t.Fatal(err)
	}
	return b.Build(), []float64{-1, 1}
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// Width, classes and workers come from the data and the config; their
// product must be checked against the budget before anything is
// allocated.
func TestFitRefusesOverBudgetBeforeAllocating(t *testing.T) {
	// (The voted perceptron keeps every column; the other learners would
	// train these two rows on the two columns they use.)
	X, y := wideRows(t, 1<<30)
	var err error
	got := allocated(func() {
		_, _, err = Fit(context.Background(), X, y, Config{Epochs: 1, Algorithm: Voted, MemoryBudget: 64 << 20})
	})
	if !errors.Is(err, ErrMemory) || !errors.Is(err, budget.ErrExceeded) {
		t.Fatalf("Fit of width 2^30 under a 64 MiB budget: %v", err)
	}
	if !strings.Contains(err.Error(), "1073741824 features") || !strings.Contains(err.Error(), "64.0 MiB") {
		t.Errorf("the error should say what needed how much: %v", err)
	}
	if got > 1<<20 {
		t.Errorf("Fit allocated %d bytes before refusing", got)
	}
	// The default budget (half of the machine) refuses the widest index
	// LIBSVM allows for dense weights.
	X, y = wideRows(t, 1<<31-1)
	if _, _, err := Fit(context.Background(), X, y, Config{Epochs: 1, Algorithm: Voted}); !errors.Is(err, ErrMemory) {
		t.Fatalf("voted Fit of width 2^31-1: %v", err)
	}
}

// Two rows whose largest index is 2^31-2 use two columns: Fit trains on
// those, in a few KiB, and the model lists them.
func TestFitWideSparseRowsTrainCompact(t *testing.T) {
	X, y := wideRows(t, 1<<31-1)
	for _, cfg := range []Config{{}, {Algorithm: Plain, Rule: PA2, Normalize: true}, {Algorithm: Batch}, {Workers: 2}} {
		t.Run(fmt.Sprintf("%v/%v/normalize=%v/workers=%d", cfg.Algorithm, cfg.Rule, cfg.Normalize, cfg.Workers), func(t *testing.T) {
			cfg.MemoryBudget = 1 << 20
			var m *Model
			var err error
			got := allocated(func() { m, _, err = Fit(context.Background(), X, y, cfg) })
			if err != nil {
				t.Fatalf("%+v: %v", cfg, err)
			}
			if got > 1<<20 {
				t.Errorf("%+v: Fit allocated %d bytes", cfg, got)
			}
			if m.Dim != 1<<31-1 || len(m.Cols) != 2 || len(m.W) != 2 {
				t.Fatalf("%+v: dim %d, cols %v, %d weights", cfg, m.Dim, m.Cols, len(m.W))
			}
			for i, want := range y {
				if p := m.Predict(X.Row(i)); p != want {
					t.Errorf("%+v: row %d predicted %v, want %v", cfg, i, p, want)
				}
			}
		})
	}
}

// Parameter mixing never needs more workers than rows: 128 workers on two
// rows hold two copies of the weights, not 128.
func TestFitWorkersCappedByRows(t *testing.T) {
	X, y := wideRows(t, 100_000)
	cfg := Config{Epochs: 2, Workers: 128, Algorithm: Plain, MemoryBudget: 8 << 20}
	m, _, err := Fit(context.Background(), X, y, cfg)
	if err != nil {
		t.Fatalf("128 workers on 2 rows of width 1e5 under 8 MiB: %v", err)
	}
	cfg.Workers = 2
	m2, _, err := Fit(context.Background(), X, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if m.Predict(sparse.Vector{Ind: []int32{99_999}, Val: []float32{1}}) != m2.Predict(sparse.Vector{Ind: []int32{99_999}, Val: []float32{1}}) {
		t.Error("128 workers on 2 rows should train as 2")
	}
}

func TestBudgetCoversEveryLearner(t *testing.T) {
	X, y := wideRows(t, 1<<24)
	small := int64(16 << 20)
	if _, err := NewLearner([]float64{-1, 1}, 1<<24, Config{MemoryBudget: small}); !errors.Is(err, ErrMemory) {
		t.Errorf("NewLearner of width 2^24 under 16 MiB: %v", err)
	}
	// A learner grows with the rows it sees; a row past the budget is an
	// error and leaves it as it was.
	l, err := NewLearner([]float64{-1, 1}, 4, Config{MemoryBudget: small})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Learn(sparse.Vector{Dim: 1<<24 + 1, Ind: []int32{1 << 24}, Val: []float32{1}}, 1); !errors.Is(err, ErrMemory) {
		t.Errorf("Learn of feature 2^24 under 16 MiB: %v", err)
	}
	if _, err := l.Learn(sparse.Vector{Dim: 100_001, Ind: []int32{100_000}, Val: []float32{1}}, 1); err != nil {
		t.Errorf("Learn of feature 1e5 under 16 MiB: %v", err)
	}
	if _, _, err := FitKernel(context.Background(), X, y, KernelConfig{Config: Config{MemoryBudget: 1 << 20}}); !errors.Is(err, ErrMemory) {
		t.Errorf("FitKernel with a Gram budget over the memory budget: %v", err)
	}
	if _, err := (Config{MemoryBudget: -1}).settle(); !errors.Is(err, ErrConfig) {
		t.Errorf("a negative budget: %v", err)
	}
}
