package metrics

import (
	"errors"
	"math"
	"testing"
)

func TestLogLoss(t *testing.T) {
	for _, c := range []struct {
		name  string
		proba []float64
		k     int
		truth []int
		want  float64
	}{
		// A zero probability for the true class is clamped to 1e-15.
		{"binary", []float64{0.8, 0.2, 0.3, 0.7, 1, 0}, 2, []int{0, 1, 1},
			(-math.Log(0.8) - math.Log(0.7) - math.Log(1e-15)) / 3},
		{"three classes", []float64{0.2, 0.5, 0.3, 0.1, 0.1, 0.8}, 3, []int{1, 2},
			(math.Ln2 - math.Log(0.8)) / 2},
		{"certain and right", []float64{0, 1, 0, 1, 0, 0}, 3, []int{1, 0}, 0},
		{"below the clamp", []float64{1e-20, 1, 0.5, 0.5}, 2, []int{0, 1},
			(-math.Log(1e-15) + math.Ln2) / 2},
	} {
		got, err := LogLoss(c.proba, c.k, c.truth)
		if err != nil || !near(got, c.want) {
			t.Errorf("%s: LogLoss = %v, %v; want %v", c.name, got, err, c.want)
		}
	}
}

// TestECE works through small cases by hand.
func TestECE(t *testing.T) {
	// Two classes, 10 bins:
	//	[0.9 0.1]   true 0: confidence 0.9,  bin (0.8, 0.9], right
	//	[0.2 0.8]   true 0: confidence 0.8,  bin (0.7, 0.8], wrong
	//	[0.15 0.85] true 1: confidence 0.85, bin (0.8, 0.9], right
	//	[0.5 0.5]   true 1: tie, predicted 0, bin (0.4, 0.5], wrong
	//	[0.6 0.4]   true 0: confidence 0.6,  bin (0.5, 0.6], right
	// ECE = (|2 − 1.75| + |0 − 0.8| + |0 − 0.5| + |1 − 0.6|)/5 = 0.39.
	binProba := []float64{0.9, 0.1, 0.2, 0.8, 0.15, 0.85, 0.5, 0.5, 0.6, 0.4}
	binTruth := []int{0, 0, 1, 1, 0}
	for _, bins := range []int{10, 0, -3} {
		got, err := ECE(binProba, 2, binTruth, bins)
		if err != nil || !near(got, 0.39) {
			t.Errorf("bins %d: ECE = %v, %v; want 0.39", bins, got, err)
		}
	}
	// One bin: |accuracy − mean confidence| = |3/5 − 3.65/5| = 0.13.
	if got, err := ECE(binProba, 2, binTruth, 1); err != nil || !near(got, 0.13) {
		t.Errorf("1 bin: ECE = %v, %v; want 0.13", got, err)
	}

	// Three classes, ties broken toward the lowest index, 10 bins:
	//	[0.4 0.4 0.2]   true 1: predicted 0, wrong, bin (0.3, 0.4]
	//	[0.3 0.3 0.4]   true 2: right, bin (0.3, 0.4]
	//	[0.1 0.45 0.45] true 1: predicted 1, right, bin (0.4, 0.5]
	// ECE = (|1 − 0.8| + |1 − 0.45|)/3 = 0.75/3 = 0.25.
	tieProba := []float64{0.4, 0.4, 0.2, 0.3, 0.3, 0.4, 0.1, 0.45, 0.45}
	if got, err := ECE(tieProba, 3, []int{1, 2, 1}, 10); err != nil || !near(got, 0.25) {
		t.Errorf("ties: ECE = %v, %v; want 0.25", got, err)
	}
	// With true classes 0, 2, 2 the first row is right and the third
	// wrong: (|2 − 0.8| + |0 − 0.45|)/3 = 1.65/3 = 0.55.
	if got, err := ECE(tieProba, 3, []int{0, 2, 2}, 10); err != nil || !near(got, 0.55) {
		t.Errorf("ties, truth 0 2 2: ECE = %v, %v; want 0.55", got, err)
	}

	// Confidence matching accuracy in its bin gives 0: 0.75, 3 of 4 right.
	cal := []float64{0.75, 0.25, 0.25, 0.75, 0.75, 0.25, 0.25, 0.75}
	if got, err := ECE(cal, 2, []int{0, 1, 0, 0}, 10); err != nil || !near(got, 0) {
		t.Errorf("calibrated: ECE = %v, %v; want 0", got, err)
	}
}

// TestBinEdges: a confidence on an edge goes in the bin below it,
// whatever the rounding of confidence·bins.
func TestBinEdges(t *testing.T) {
	for _, c := range []struct {
		conf       float64
		bins, want int
	}{
		{0, 10, 0}, {1e-300, 10, 0}, {0.1, 10, 0}, {0.5, 10, 4}, {math.Nextafter(0.5, 1), 10, 5},
		{1, 10, 9}, {0.28, 100, 27}, {math.Nextafter(0.28, 1), 100, 28}, {0.07, 100, 6},
		{0.3, 1, 0}, {1, 1, 0},
	} {
		if got := binOf(c.conf, c.bins); got != c.want {
			t.Errorf("binOf(%v, %d) = %d, want %d", c.conf, c.bins, got, c.want)
		}
	}
	for bins := 1; bins <= 300; bins++ {
		for j := 1; j <= bins; j++ {
			e := float64(j) / float64(bins)
			if binOf(e, bins) != j-1 || (j < bins && binOf(math.Nextafter(e, 2), bins) != j) {
				t.Fatalf("%d bins: edge %d/%d misplaced", bins, j, bins)
			}
		}
	}
}

func TestProbaErrors(t *testing.T) {
	for _, c := range []struct {
		proba []float64
		k     int
		truth []int
		want  error
	}{
		{[]float64{1, 0}, 1, []int{0, 0}, ErrClass},
		{nil, 0, nil, ErrClass},
		{nil, 2, nil, ErrLength},
		{[]float64{1, 0}, 2, nil, ErrLength},
		{[]float64{1, 0, 1}, 2, []int{0, 0}, ErrLength},
		{[]float64{1, 0}, 2, []int{0, 1}, ErrLength},
		{[]float64{1, 0}, 2, []int{2}, ErrClass},
		{[]float64{1, 0}, 2, []int{-1}, ErrClass},
		{[]float64{math.NaN(), 0}, 2, []int{0}, ErrProba},
		{[]float64{1, -0.1}, 2, []int{0}, ErrProba},
		{[]float64{1.5, 0}, 2, []int{0}, ErrProba},
		{[]float64{math.Inf(1), 0}, 2, []int{0}, ErrProba},
	} {
		if _, err := LogLoss(c.proba, c.k, c.truth); !errors.Is(err, c.want) {
			t.Errorf("LogLoss(%v, %d, %v) = %v, want %v", c.proba, c.k, c.truth, err, c.want)
		}
		if _, err := ECE(c.proba, c.k, c.truth, 10); !errors.Is(err, c.want) {
			t.Errorf("ECE(%v, %d, %v) = %v, want %v", c.proba, c.k, c.truth, err, c.want)
		}
	}
}
