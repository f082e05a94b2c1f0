package textmodel

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/engine/calibrate"
)

// mixed returns n documents of words drawn from two topics in random
// proportions, labelled by the topic of most of their words but flipped
// for one in five, and with "yes" four times as often as "no": scores
// then spread over both sides of 0 and an intercept would pull even odds
// off score 0.
func mixed(n int, seed uint64) (docs, labels []string) {
	r := rand.New(rand.NewPCG(seed, 1))
	a := []string{"match", "goal", "team", "season", "coach", "league"}
	b := []string{"market", "stock", "bank", "rates", "profit", "shares"}
	for range n {
		frac := r.Float64()
		var w []string
		na := 0
		for range 8 {
			if r.Float64() < frac {
				w = append(w, a[r.IntN(len(a))])
				na++
			} else {
				w = append(w, b[r.IntN(len(b))])
			}
		}
		yes := na >= 2 // mostly "yes"
		if r.IntN(5) == 0 {
			yes = !yes
		}
		docs = append(docs, strings.Join(w, " "))
		labels = append(labels, map[bool]string{true: "yes", false: "no"}[yes])
	}
	return docs, labels
}

// The label a model gives a document is the most probable one by its
// calibrated probabilities, for a binary model (Platt scaling) as for a
// multiclass one (temperature, see TestCalibration): Classify,
// ClassifyBatch and Proba never disagree.
func TestClassifyIsMostProbable(t *testing.T) {
	docs, labels := mixed(2000, 1)
	m, _, err := Fit(context.Background(), docs, labels, Config{})
	if err != nil {
		t.Fatal(err)
	}
	c, ok := m.Calibration()
	a, b, _ := c.Platt()
	if !ok || c.Kind() != calibrate.PlattScaling || !(a < 0) || b != 0 {
		t.Fatalf("calibration %v (A=%v, B=%v); want Platt with A < 0 and B = 0", c, a, b)
	}
	test, _ := mixed(5000, 2)
	batch := m.ClassifyBatch(test, nil)
	near := 0 // documents whose probabilities are within 0.1 of even
	for i, d := range test {
		p := m.Proba(d, nil)
		got := slices.Index(m.Labels(), m.Classify(d))
		if p[got] < p[1-got] || batch[i] != m.Labels()[got] {
			t.Fatalf("%q: Classify %q, ClassifyBatch %q, probabilities %v of %q", d, m.Classify(d), batch[i], p, m.Labels())
		}
		if p[0] > 0.4 && p[0] < 0.6 {
			near++
		}
	}
	if near < 50 {
		t.Fatalf("only %d of %d documents near even odds: the test does not test", near, len(test))
	}
}
