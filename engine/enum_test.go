package engine

import (
	"errors"
	"strings"
	"testing"
)

// TestEnumNames: every enumeration's String and Parse agree for each
// named value, a value past the names prints as its type and number, and
// an unknown name fails with ErrConfig and the message that lists the
// names wanted.
func TestEnumNames(t *testing.T) {
	for _, c := range []struct {
		names  []string
		str    func(int) string
		parse  func(string) (int, error)
		past   string
		refuse string
	}{
		{algorithmNames[:], func(i int) string { return Algorithm(i).String() },
			func(s string) (int, error) { v, err := ParseAlgorithm(s); return int(v), err },
			"Algorithm(4)", `engine: bad config: unknown algorithm "x" (want averaged, plain, voted or batch)`},
		{ruleNames[:], func(i int) string { return Rule(i).String() },
			func(s string) (int, error) { v, err := ParseRule(s); return int(v), err },
			"Rule(7)", `engine: bad config: unknown rule "x" (want perceptron, pa, pa1, pa2, pegasos, logistic, modified_huber)`},
		{biasNames[:], func(i int) string { return BiasMode(i).String() },
			func(s string) (int, error) { v, err := ParseBiasMode(s); return int(v), err },
			"BiasMode(3)", `engine: bad config: unknown bias mode "x" (want separate, augmented or none)`},
		{scaleNames[:], func(i int) string { return Scale(i).String() },
			func(s string) (int, error) { v, err := ParseScale(s); return int(v), err },
			"Scale(3)", `engine: bad config: unknown scaling "x" (want none, standard or maxabs)`},
	} {
		for i, n := range c.names {
			if got := c.str(i); got != n {
				t.Errorf("value %d prints as %q, want %q", i, got, n)
			}
			if got, err := c.parse(n); got != i || err != nil {
				t.Errorf("parse %q = %d, %v; want %d", n, got, err, i)
			}
		}
		if got := c.str(len(c.names)); got != c.past {
			t.Errorf("value past the names prints as %q, want %q", got, c.past)
		}
		if _, err := c.parse("x"); !errors.Is(err, ErrConfig) || err.Error() != c.refuse {
			t.Errorf("unknown name: %v, want %s", err, c.refuse)
		}
	}
}

// TestParseLearner: every algorithm learns by the perceptron rule, every
// other rule runs averaged, and "perceptron", a rule that needs an
// algorithm to name it, is refused.
func TestParseLearner(t *testing.T) {
	for i, name := range algorithmNames {
		if alg, rule, err := ParseLearner(name); err != nil || alg != Algorithm(i) || rule != Perceptron {
			t.Errorf("%s: %v %v %v", name, alg, rule, err)
		}
	}
	for i, name := range ruleNames[1:] {
		if alg, rule, err := ParseLearner(strings.ToUpper(name)); err != nil || alg != Averaged || rule != Rule(i+1) {
			t.Errorf("%s: %v %v %v", name, alg, rule, err)
		}
	}
	for _, name := range []string{"perceptron", "", "svm"} {
		if _, _, err := ParseLearner(name); !errors.Is(err, ErrConfig) {
			t.Errorf("%q: %v, want an error wrapping ErrConfig", name, err)
		}
	}
}
