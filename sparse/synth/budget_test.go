package synth

import (
	"errors"
	"io"
	"runtime"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse/budget"
)

// allocated returns the bytes fn allocates on the heap.
func allocated(fn func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	fn()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// TestSeparableOverBudget: one point of 10^8 dimensions (gen -kind
// separable -rows 1 -dim 100000000) needs gigabytes, for the separator
// and scratch alone; Generate refuses it with budget.ErrExceeded before
// allocating any of it, and Memory says how much it would take.
func TestSeparableOverBudget(t *testing.T) {
	defer budget.Set(budget.Set(256 << 20))
	for _, s := range []Separable{{N: 1, Dim: 20_000_000}, {N: 1, Dim: 100_000_000}, {N: 100_000, Dim: 1000}} {
		need, err := s.Memory()
		if err != nil || need < int64(12*s.N*s.Dim) {
			t.Fatalf("%+v: Memory %d, %v", s, need, err)
		}
		if n := allocated(func() { _, err = s.Generate() }); !errors.Is(err, budget.ErrExceeded) || n > 1<<20 {
			t.Errorf("%+v: Generate allocated %d bytes: %v", s, n, err)
		}
	}
	s := Separable{N: 300, Dim: 1000, Workers: 2}
	need, _ := s.Memory()
	budget.Set(need)
	if _, err := s.Generate(); err != nil {
		t.Errorf("%+v in a budget of %d bytes, what Memory says: %v", s, need, err)
	}
}

// TestTextOverBudget: a text corpus whose rows, nonzeros, scratch or
// planted weights would not fit in the budget is refused with
// budget.ErrExceeded before they are allocated, by Generate, Planted,
// Stream and WriteLIBSVM.
func TestTextOverBudget(t *testing.T) {
	// (Every configuration takes a few MiB of fixed-size tables.)
	defer budget.Set(budget.Set(16 << 20))
	for _, cfg := range []Text{
		{Rows: 10_000_000},                   // 80 MB of row pointers
		{Rows: 200_000, Dim: 1 << 16},        // 120 MB of nonzeros
		{Rows: 10, MeanNNZ: 1_000_000},       // 90 MB of scratch for a row
		{Rows: 10, Dim: 1 << 30, Classes: 3}, // Planted: 12 GiB of weights
	} {
		var err error
		if n := allocated(func() { _, err = cfg.Generate() }); !errors.Is(err, budget.ErrExceeded) && cfg.Classes == 0 || n > 8<<20 {
			t.Errorf("%+v: Generate allocated %d bytes: %v", cfg, n, err)
		}
		if n := allocated(func() { _, err = cfg.Planted() }); cfg.Classes == 3 && !errors.Is(err, budget.ErrExceeded) || n > 8<<20 {
			t.Errorf("%+v: Planted allocated %d bytes: %v", cfg, n, err)
		}
	}
	long := Text{Rows: 10, MeanNNZ: 1_000_000}
	if s := long.Stream(); s.Scan() || !errors.Is(s.Err(), budget.ErrExceeded) {
		t.Errorf("Stream: %v", s.Err())
	}
	if err := long.WriteLIBSVM(io.Discard); !errors.Is(err, budget.ErrExceeded) {
		t.Errorf("WriteLIBSVM, long rows: %v", err)
	}
	// Rows that fit, in blocks that do not.
	wide := Text{Rows: 5000, MeanNNZ: 1000, FixedLength: true, Workers: 2}
	if err := wide.WriteLIBSVM(io.Discard); !errors.Is(err, budget.ErrExceeded) {
		t.Errorf("WriteLIBSVM, big blocks: %v", err)
	}
	// The same rows in a budget that holds them are written: the refusal
	// above was the budget's. Writing their 5 million nonzeros is most of
	// the test's time.
	if testing.Short() {
		t.Log("-short: the write of the same rows in a large budget is left out")
		return
	}
	budget.Set(1 << 30)
	if err := wide.WriteLIBSVM(io.Discard); err != nil {
		t.Errorf("WriteLIBSVM in a large budget: %v", err)
	}
}
