package metrics

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

// The example worked by hand (and checked against scikit-learn's
// f1_score, precision_score, recall_score, hamming_loss and
// accuracy_score on the binarized lists, zero_division=0):
//
//	row  truth   predicted
//	0    {0,1}   {0}
//	1    {2}     {1,2}
//	2    {}      {}
//	3    {0}     {0,2}
//
// class 0: TP 2, FP 0, FN 0: P 1, R 1, F1 1
// class 1: TP 0, FP 1, FN 1: P 0, R 0, F1 0
// class 2: TP 1, FP 1, FN 0: P 1/2, R 1, F1 2/3
// micro: TP 3, FP 2, FN 1: P 3/5, R 3/4, F1 6/9
// macro: P 1/2, R 2/3, F1 5/9
// Hamming: 3 wrong pairs of 12; subset accuracy: row 2 alone, 1/4.
var (
	mlTruth = [][]int{{0, 1}, {2}, {}, {0}}
	mlPred  = [][]int{{0}, {1, 2}, {}, {0, 2}}
)

func nearML(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestMultiLabelHandComputed(t *testing.T) {
	m, err := NewMultiLabel(mlTruth, mlPred, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"micro P", m.Micro.Precision, 3.0 / 5}, {"micro R", m.Micro.Recall, 3.0 / 4}, {"micro F1", m.Micro.F1, 6.0 / 9},
		{"macro P", m.Macro.Precision, 1.0 / 2}, {"macro R", m.Macro.Recall, 2.0 / 3}, {"macro F1", m.Macro.F1, 5.0 / 9},
		{"class 2 F1", m.PerClass[2].F1, 2.0 / 3}, {"class 1 F1", m.PerClass[1].F1, 0},
		{"Hamming", m.Hamming, 3.0 / 12}, {"subset", m.Subset, 1.0 / 4},
	} {
		if !nearML(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if s := m.PerClass[0]; s.TP != 2 || s.FP != 0 || s.FN != 0 {
		t.Errorf("class 0 counts %+v", s)
	}
}

func TestMultiLabelRepeatsCountOnce(t *testing.T) {
	m, err := NewMultiLabel([][]int{{0, 0}, {1}}, [][]int{{0, 0, 1}, {1, 1}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if s := m.PerClass[0]; s.TP != 1 || s.FP != 0 || s.FN != 0 {
		t.Errorf("class 0 %+v, want TP 1", s)
	}
	if s := m.PerClass[1]; s.TP != 1 || s.FP != 1 {
		t.Errorf("class 1 %+v, want TP 1, FP 1", s)
	}
}

func TestMultiLabelErrors(t *testing.T) {
	if _, err := NewMultiLabel(mlTruth, mlPred[:3], 3); !errors.Is(err, ErrLength) {
		t.Errorf("lengths: %v", err)
	}
	if _, err := NewMultiLabel(nil, nil, 3); !errors.Is(err, ErrLength) {
		t.Errorf("empty: %v", err)
	}
	if _, err := NewMultiLabel([][]int{{3}}, [][]int{{}}, 3); !errors.Is(err, ErrClass) {
		t.Errorf("class out of range: %v", err)
	}
	if _, err := NewMultiLabel([][]int{{}}, [][]int{{-1}}, 3); !errors.Is(err, ErrClass) {
		t.Errorf("negative class: %v", err)
	}
}

func TestPrecisionRecallAtK(t *testing.T) {
	ranked := [][]int{{1, 0}, {2, 1}, {0}, {0, 2}}
	p, r, err := PrecisionRecallAtK(mlTruth, ranked, 1)
	// Hits at 1: rows 0, 1, 3. R@1 over the rows with a true class:
	// (1/2 + 1 + 1)/3.
	if err != nil || !nearML(p, 3.0/4) || !nearML(r, 2.5/3) {
		t.Errorf("P@1 %v R@1 %v (%v), want 0.75, 0.8333", p, r, err)
	}
	p, r, _ = PrecisionRecallAtK(mlTruth, ranked, 2)
	// Hits at 2: row 0 two, row 1 one, row 3 one: P (1+1/2+0+1/2)/4.
	if !nearML(p, 2.0/4) || !nearML(r, 1) {
		t.Errorf("P@2 %v R@2 %v, want 0.5, 1", p, r)
	}
	if _, _, err := PrecisionRecallAtK(mlTruth, ranked, 0); !errors.Is(err, ErrLength) {
		t.Errorf("k 0: %v", err)
	}
}

func TestMultiLabelReport(t *testing.T) {
	m, _ := NewMultiLabel(mlTruth, mlPred, 3)
	var b strings.Builder
	if err := m.WriteReport(&b, []string{"earn", "acq"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"earn", "acq", "2 ", "micro avg", "0.6667", "macro avg", "0.5556"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
}

func ExampleNewMultiLabel() {
	truth := [][]int{{0, 1}, {2}, {}, {0}}
	pred := [][]int{{0}, {1, 2}, {}, {0, 2}}
	m, _ := NewMultiLabel(truth, pred, 3)
	fmt.Printf("micro-F1 %.3f macro-F1 %.3f Hamming %.2f subset %.2f\n", m.Micro.F1, m.Macro.F1, m.Hamming, m.Subset)
	// Output: micro-F1 0.667 macro-F1 0.556 Hamming 0.25 subset 0.25
}
