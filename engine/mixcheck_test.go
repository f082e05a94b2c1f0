package engine

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// increasing and common against plain loops, on random lists with runs,
// gaps of every size, and the ends of the int32 range.
func TestMixListChecks(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	naiveIncreasing := func(l []int32, dim int) bool {
		for i, j := range l {
			if j < 0 || int(j) >= dim || (i > 0 && j <= l[i-1]) {
				return false
			}
		}
		return true
	}
	naiveCommon := func(a, b []int32) bool {
		for _, j := range b {
			if slices.Contains(a, j) {
				return true
			}
		}
		return false
	}
	list := func(n int, spread int32) []int32 {
		out := make([]int32, 0, n)
		for range n {
			out = append(out, r.Int32N(spread))
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	for trial := range 3000 {
		spread := []int32{20, 300, math.MaxInt32}[trial%3]
		a, b := list(r.IntN(40), spread), list(r.IntN(40), spread)
		if trial%11 == 0 {
			a = append([]int32{0}, append(a, math.MaxInt32-1)...)
			a = slices.Compact(a)
		}
		if trial%5 == 0 && len(a) > 1 {
			// Out of order, repeated or negative.
			i := r.IntN(len(a) - 1)
			switch trial % 3 {
			case 0:
				a[i], a[i+1] = a[i+1], a[i]
			case 1:
				a[i+1] = a[i]
			default:
				a[i] = -1 - a[i]
			}
		}
		dim := int(spread)
		if trial%7 == 0 {
			dim = int(spread / 2)
		}
		if got, want := increasing(a, dim), naiveIncreasing(a, dim); got != want {
			t.Fatalf("increasing(%v, %d) = %v, want %v", a, dim, got, want)
		}
		if !naiveIncreasing(a, math.MaxInt32) {
			continue
		}
		j, got := common(a, b)
		if want := naiveCommon(a, b); got != want || (got && !slices.Contains(a, j)) {
			t.Fatalf("common(%v, %v) = %d, %v; want %v", a, b, j, got, want)
		}
	}
}

// check refuses a delta whose lists are out of order, out of range or
// share a feature; Merge, which does not read Seen, merges such a delta
// as it merges the delta without it.
func TestMixSeenChecked(t *testing.T) {
	base := func() *Mix {
		return &Mix{Classes: []float64{-1, 1}, Dim: 100, Features: []int32{4, 50, 70}, Seen: []int32{3, 5, 99},
			W: []float32{1, 2, 3}, B: []float32{0}, N: 3, U: []float64{1, 0, 2}, UB: []float64{0}, Updates: 1}
	}
	if err := base().check(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		bend func(m *Mix)
	}{
		{"features out of order", func(m *Mix) { m.Features[0], m.Features[1] = 50, 4 }},
		{"features repeated", func(m *Mix) { m.Features[1] = 4 }},
		{"feature negative", func(m *Mix) { m.Features[0] = -4 }},
		{"feature past Dim", func(m *Mix) { m.Features[2] = 100 }},
		{"seen out of order", func(m *Mix) { m.Seen[0], m.Seen[1] = 5, 3 }},
		{"seen past Dim", func(m *Mix) { m.Seen[2] = 100 }},
		{"changed and seen, first", func(m *Mix) { m.Seen[0] = 4 }},
		{"changed and seen, last", func(m *Mix) { m.Seen = []int32{3, 5, 70} }},
		{"changed and seen, middle", func(m *Mix) { m.Seen = []int32{50} }},
	} {
		m := base()
		tc.bend(m)
		if err := m.check(); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: check gave %v", tc.name, err)
		}
	}
	state := func() *Mix {
		return &Mix{Classes: []float64{-1, 1}, Dim: 100, Features: []int32{4, 9}, Sparse: true,
			W: []float32{1, -2}, B: []float32{0.5}, Sum: []float64{3, -7}, SumB: []float64{2}, SumN: 40}
	}
	clean, dirty := base(), base()
	clean.Seen = nil
	dirty.Seen = []int32{99, 50, 4}
	a, b := state(), state()
	if err := a.Merge([]*Mix{clean}); err != nil {
		t.Fatal(err)
	}
	if err := b.Merge([]*Mix{dirty}); err != nil {
		t.Fatalf("Merge read the delta's Seen: %v", err)
	}
	fxSameMixBits(t, "Seen left out", a, b)
}
