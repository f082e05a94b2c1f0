package gather

import (
	"slices"
	"testing"
)

// TestFn: every part added to any accumulator comes out once, whatever
// the runner's split into accumulators and order of merging.
func TestFn(t *testing.T) {
	var f Fn
	a, b := f.CreateAccumulator(), f.CreateAccumulator()
	a = f.AddInput(a, Part{Index: 2, Read: 10})
	b = f.AddInput(b, Part{Index: 0, Seconds: 1.5})
	b = f.AddInput(b, Part{Index: -1})
	got := f.ExtractOutput(f.MergeAccumulators(a, b))
	want := []Part{{Index: 2, Read: 10}, {Index: 0, Seconds: 1.5}, {Index: -1}}
	if !slices.Equal(got.Parts, want) {
		t.Fatalf("gathered %v, want %v", got.Parts, want)
	}
	if e := f.ExtractOutput(f.CreateAccumulator()); len(e.Parts) != 0 {
		t.Fatalf("an empty accumulator gathered %v", e.Parts)
	}
}
