package text

import (
	"errors"
	"slices"
	"testing"
)

func TestWithLabels(t *testing.T) {
	c := &Corpus{Docs: []Doc{{Label: "_", Text: "the cat sat"}, {Label: "_", Text: "the dog sat"}}}
	f, err := Fit(c, Config{Bits: 10})
	if err != nil {
		t.Fatal(err)
	}
	g, err := f.WithLabels([]string{"zeta", "alpha", "mid", "alpha"})
	if err != nil {
		t.Fatal(err)
	}
	if got := g.Labels(); !slices.Equal(got, []string{"alpha", "mid", "zeta"}) {
		t.Errorf("labels %v", got)
	}
	if got := f.Labels(); !slices.Equal(got, []string{"_"}) {
		t.Errorf("the original's labels changed: %v", got)
	}
	if a, b := f.Transform("the cat"), g.Transform("the cat"); !slices.Equal(a.Ind, b.Ind) || !slices.Equal(a.Val, b.Val) {
		t.Errorf("features differ: %v, %v", a, b)
	}
	n, err := f.WithLabels([]string{"10", "9"})
	if err != nil || !slices.Equal(n.Labels(), []string{"9", "10"}) {
		t.Errorf("numeric labels %v, %v", n.Labels(), err)
	}
	for _, bad := range [][]string{nil, {""}, {"a\x01"}} {
		if _, err := f.WithLabels(bad); !errors.Is(err, ErrLabel) {
			t.Errorf("WithLabels(%q): %v", bad, err)
		}
	}
}
