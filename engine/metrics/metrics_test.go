package metrics

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const tol = 1e-12

func near(a, b float64) bool { return math.Abs(a-b) <= tol }

// checkStats compares got with the expected label, ratios and counts.
func checkStats(t *testing.T, name string, got ClassStats, label, p, r, f1 float64, support, predicted int64) {
	t.Helper()
	if got.Label != label || !near(got.Precision, p) || !near(got.Recall, r) || !near(got.F1, f1) ||
		got.Support != support || got.Predicted != predicted {
		t.Errorf("%s: got %+v, want {Label:%v Precision:%v Recall:%v F1:%v Support:%d Predicted:%d}",
			name, got, label, p, r, f1, support, predicted)
	}
}

func mustConfusion(t *testing.T, truth, pred []float64) *Confusion {
	t.Helper()
	c, err := NewConfusion(truth, pred)
	if err != nil {
		t.Fatalf("NewConfusion: %v", err)
	}
	return c
}

// Binary case, labels -1 and 1. For class 1: TP=3, FN=1, FP=2, TN=4.
//
//	class  1: support 4, predicted 5: P = 3/5, R = 3/4, F1 = 2·3/(4+5) = 2/3
//	class -1: support 6, predicted 5: P = 4/5, R = 4/6, F1 = 2·4/(6+5) = 8/11
//	accuracy = (3+4)/10 = 0.7
//	macro:    P = (0.8+0.6)/2 = 0.7, R = (2/3+3/4)/2 = 17/24,
//	          F1 = (8/11+2/3)/2 = 23/33
//	weighted: P = (6·0.8+4·0.6)/10 = 0.72, R = (4+3)/10 = 0.7,
//	          F1 = (6·8/11+4·2/3)/10 = 116/165
var (
	binTruth = []float64{1, 1, 1, 1, -1, -1, -1, -1, -1, -1}
	binPred  = []float64{1, 1, 1, -1, 1, 1, -1, -1, -1, -1}
)

func TestBinary(t *testing.T) {
	c := mustConfusion(t, binTruth, binPred)
	if !slices.Equal(c.Labels, []float64{-1, 1}) {
		t.Fatalf("Labels = %v, want [-1 1]", c.Labels)
	}
	want := [][]int64{{4, 2}, {1, 3}}
	for i := range want {
		if !slices.Equal(c.Counts[i], want[i]) {
			t.Fatalf("Counts = %v, want %v", c.Counts, want)
		}
	}
	if c.Total() != 10 || c.Correct() != 7 || !near(c.Accuracy(), 0.7) {
		t.Errorf("Total, Correct, Accuracy = %d, %d, %v; want 10, 7, 0.7", c.Total(), c.Correct(), c.Accuracy())
	}
	pos, ok := c.Class(1)
	if !ok {
		t.Fatal("Class(1) not found")
	}
	checkStats(t, "class 1", pos, 1, 3.0/5, 3.0/4, 2.0/3, 4, 5)
	neg, ok := c.Class(-1)
	if !ok {
		t.Fatal("Class(-1) not found")
	}
	checkStats(t, "class -1", neg, -1, 4.0/5, 4.0/6, 8.0/11, 6, 5)
	per := c.PerClass()
	if len(per) != 2 || per[0] != neg || per[1] != pos {
		t.Errorf("PerClass = %+v, want [%+v %+v]", per, neg, pos)
	}
	checkStats(t, "macro", c.Macro(), 0, 0.7, 17.0/24, 23.0/33, 10, 10)
	checkStats(t, "weighted", c.Weighted(), 0, 0.72, 0.7, 116.0/165, 10, 10)
	checkStats(t, "micro", c.Micro(), 0, 0.7, 0.7, 0.7, 10, 10)

	a, err := Accuracy(binTruth, binPred)
	if err != nil || !near(a, 0.7) {
		t.Errorf("Accuracy = %v, %v; want 0.7, nil", a, err)
	}
}

// Three classes, rows given out of label order so that the labels have to
// be sorted. The matrix (rows true, columns predicted, labels 0 1 2):
//
//	0: 2 1 0   support 3
//	1: 0 1 1   support 2
//	2: 0 0 4   support 4
//	predicted: 2 2 5, correct 7 of 9
//
//	class 0: P = 2/2 = 1,   R = 2/3, F1 = 2·2/(3+2) = 4/5
//	class 1: P = 1/2,       R = 1/2, F1 = 2·1/(2+2) = 1/2
//	class 2: P = 4/5,       R = 4/4, F1 = 2·4/(4+5) = 8/9
//	macro:    P = (1+1/2+4/5)/3 = 23/30, R = (2/3+1/2+1)/3 = 13/18,
//	          F1 = (4/5+1/2+8/9)/3 = 197/270
//	weighted: P = (3·1+2·1/2+4·4/5)/9 = 0.8, R = 7/9,
//	          F1 = (3·4/5+2·1/2+4·8/9)/9 = 313/405
func TestThreeClass(t *testing.T) {
	truth := []float64{2, 0, 1, 2, 0, 1, 2, 0, 2}
	pred := []float64{2, 0, 2, 2, 1, 1, 2, 0, 2}
	c := mustConfusion(t, truth, pred)
	if !slices.Equal(c.Labels, []float64{0, 1, 2}) {
		t.Fatalf("Labels = %v, want [0 1 2]", c.Labels)
	}
	want := [][]int64{{2, 1, 0}, {0, 1, 1}, {0, 0, 4}}
	for i := range want {
		if !slices.Equal(c.Counts[i], want[i]) {
			t.Fatalf("Counts = %v, want %v", c.Counts, want)
		}
	}
	if c.Total() != 9 || c.Correct() != 7 || !near(c.Accuracy(), 7.0/9) {
		t.Errorf("Total, Correct, Accuracy = %d, %d, %v; want 9, 7, 7/9", c.Total(), c.Correct(), c.Accuracy())
	}
	per := c.PerClass()
	checkStats(t, "class 0", per[0], 0, 1, 2.0/3, 4.0/5, 3, 2)
	checkStats(t, "class 1", per[1], 1, 0.5, 0.5, 0.5, 2, 2)
	checkStats(t, "class 2", per[2], 2, 4.0/5, 1, 8.0/9, 4, 5)
	checkStats(t, "macro", c.Macro(), 0, 23.0/30, 13.0/18, 197.0/270, 9, 9)
	checkStats(t, "weighted", c.Weighted(), 0, 0.8, 7.0/9, 313.0/405, 9, 9)
	checkStats(t, "micro", c.Micro(), 0, 7.0/9, 7.0/9, 7.0/9, 9, 9)
	// The weighted recall is always the accuracy.
	if !near(c.Weighted().Recall, c.Accuracy()) {
		t.Errorf("weighted recall %v != accuracy %v", c.Weighted().Recall, c.Accuracy())
	}
	if _, ok := c.Class(3); ok {
		t.Error("Class(3) found, want not found")
	}
	if _, ok := c.Class(math.NaN()); ok {
		t.Error("Class(NaN) found, want not found")
	}
}

// Label 3 is only ever predicted. Labels 1 2 3:
//
//	1: 1 0 1   support 2
//	2: 0 2 0   support 2
//	3: 0 0 0   support 0
//	predicted: 1 2 1
//
//	class 1: P = 1/1, R = 1/2, F1 = 2/3
//	class 2: P = 1,   R = 1,   F1 = 1
//	class 3: P = 0/1 = 0, R = 0 (no true rows), F1 = 0
//	macro F1 = (2/3+1+0)/3 = 5/9, macro P = 2/3, macro R = 1/2
//	weighted F1 = (2·2/3+2·1)/4 = 5/6 (class 3 weighs nothing)
func TestLabelOnlyInPred(t *testing.T) {
	c := mustConfusion(t, []float64{1, 1, 2, 2}, []float64{1, 3, 2, 2})
	if !slices.Equal(c.Labels, []float64{1, 2, 3}) {
		t.Fatalf("Labels = %v, want [1 2 3]", c.Labels)
	}
	s, ok := c.Class(3)
	if !ok {
		t.Fatal("Class(3) not found")
	}
	checkStats(t, "class 3", s, 3, 0, 0, 0, 0, 1)
	s, _ = c.Class(1)
	checkStats(t, "class 1", s, 1, 1, 0.5, 2.0/3, 2, 1)
	checkStats(t, "macro", c.Macro(), 0, 2.0/3, 0.5, 5.0/9, 4, 4)
	checkStats(t, "weighted", c.Weighted(), 0, 1, 0.75, 5.0/6, 4, 4)
}

// Label 1 is never predicted: its precision is 0/0, taken as 0, and its
// recall 0/1 = 0, so F1 is 0. Class 0: P = 2/3, R = 1, F1 = 2·2/(2+3) = 4/5.
// Then a case with no correct prediction at all: every P, R and F1 is 0.
func TestZeroDivision(t *testing.T) {
	c := mustConfusion(t, []float64{0, 0, 1}, []float64{0, 0, 0})
	per := c.PerClass()
	checkStats(t, "class 0", per[0], 0, 2.0/3, 1, 4.0/5, 2, 3)
	checkStats(t, "class 1", per[1], 1, 0, 0, 0, 1, 0)
	checkStats(t, "macro", c.Macro(), 0, 1.0/3, 0.5, 2.0/5, 3, 3)

	c = mustConfusion(t, []float64{0, 1}, []float64{1, 0})
	for _, s := range append(c.PerClass(), c.Macro(), c.Weighted(), c.Micro()) {
		if s.Precision != 0 || s.Recall != 0 || s.F1 != 0 {
			t.Errorf("all wrong: got %+v, want zero ratios", s)
		}
	}

	// One class, all right.
	c = mustConfusion(t, []float64{5, 5}, []float64{5, 5})
	checkStats(t, "single class", c.PerClass()[0], 5, 1, 1, 1, 2, 2)

	// The zero Confusion has no rows: nothing panics and nothing is NaN.
	var z Confusion
	if z.Total() != 0 || z.Accuracy() != 0 || z.Macro() != (ClassStats{}) || z.Weighted() != (ClassStats{}) ||
		z.Micro() != (ClassStats{}) || len(z.PerClass()) != 0 {
		t.Errorf("zero Confusion: unexpected stats")
	}
	if err := z.WriteReport(&bytes.Buffer{}); err != nil {
		t.Errorf("zero Confusion WriteReport: %v", err)
	}
	if _, err := z.MarshalJSON(); err != nil {
		t.Errorf("zero Confusion MarshalJSON: %v", err)
	}
}

func TestNegativeZero(t *testing.T) {
	negZero := math.Copysign(0, -1)
	c := mustConfusion(t, []float64{negZero, 0, 1}, []float64{0, negZero, 1})
	if len(c.Labels) != 2 || math.Signbit(c.Labels[0]) || c.Labels[1] != 1 {
		t.Fatalf("Labels = %v, want [0 1] with +0", c.Labels)
	}
	if c.Accuracy() != 1 {
		t.Errorf("Accuracy = %v, want 1", c.Accuracy())
	}
	if _, ok := c.Class(negZero); !ok {
		t.Error("Class(-0) not found")
	}
}

func TestErrLength(t *testing.T) {
	cases := []struct {
		name        string
		truth, pred []float64
	}{
		{"nil", nil, nil},
		{"empty", []float64{}, []float64{}},
		{"short pred", []float64{1, 2, 3}, []float64{1, 2}},
		{"short truth", []float64{1}, []float64{1, 2}},
		{"empty pred", []float64{1}, nil},
	}
	for _, tc := range cases {
		if _, err := Accuracy(tc.truth, tc.pred); !errors.Is(err, ErrLength) {
			t.Errorf("%s: Accuracy error = %v, want ErrLength", tc.name, err)
		}
		c, err := NewConfusion(tc.truth, tc.pred)
		if !errors.Is(err, ErrLength) || c != nil {
			t.Errorf("%s: NewConfusion = %v, %v; want nil, ErrLength", tc.name, c, err)
		}
	}
	_, err := NewConfusion([]float64{1, 2, 3}, []float64{1, 2})
	if msg := err.Error(); !strings.Contains(msg, "3") || !strings.Contains(msg, "2") {
		t.Errorf("error %q does not give the lengths", msg)
	}
}

func TestErrLabel(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		name        string
		truth, pred []float64
	}{
		{"NaN in truth", []float64{1, nan}, []float64{1, 1}},
		{"NaN in pred", []float64{1, 1}, []float64{nan, 1}},
		{"NaN in both", []float64{nan}, []float64{nan}},
		{"+Inf in pred", []float64{1, 0}, []float64{1, inf}},
		{"-Inf in truth", []float64{-inf, 0}, []float64{1, 0}},
	}
	for _, tc := range cases {
		_, err := Accuracy(tc.truth, tc.pred)
		if !errors.Is(err, ErrLabel) || errors.Is(err, ErrLength) {
			t.Errorf("%s: Accuracy error = %v, want ErrLabel", tc.name, err)
		}
		c, err := NewConfusion(tc.truth, tc.pred)
		if !errors.Is(err, ErrLabel) || errors.Is(err, ErrLength) || c != nil {
			t.Errorf("%s: NewConfusion = %v, %v; want nil, ErrLabel", tc.name, c, err)
		}
	}
}

// Accuracy and Confusion.Accuracy agree on a larger pseudo-random case.
func TestAccuracyAgrees(t *testing.T) {
	const n = 1000
	truth, pred := make([]float64, n), make([]float64, n)
	x := uint32(12345)
	for i := range truth {
		x = x*1664525 + 1013904223
		truth[i] = float64(x>>29) - 3 // labels -3..4
		x = x*1664525 + 1013904223
		if x>>30 == 0 {
			pred[i] = float64(x>>27&7) - 3
		} else {
			pred[i] = truth[i]
		}
	}
	c := mustConfusion(t, truth, pred)
	a, err := Accuracy(truth, pred)
	if err != nil || a != c.Accuracy() || c.Micro().F1 != a {
		t.Errorf("Accuracy = %v, %v; Confusion.Accuracy = %v, Micro F1 = %v", a, err, c.Accuracy(), c.Micro().F1)
	}
	if c.Total() != n || !slices.IsSorted(c.Labels) {
		t.Errorf("Total = %d, Labels = %v", c.Total(), c.Labels)
	}
	var support, predicted int64
	for _, s := range c.PerClass() {
		support += s.Support
		predicted += s.Predicted
	}
	if support != n || predicted != n {
		t.Errorf("supports sum to %d, predictions to %d; want %d", support, predicted, n)
	}
}

// More labels than the linear scan handles, so that the hash set takes
// over, checked against a naive count; with -0 and NaN past the switch.
func TestManyLabels(t *testing.T) {
	const n, k = 500, 40
	truth, pred := make([]float64, n), make([]float64, n)
	for i := range truth {
		truth[i] = float64((i*7)%k) - 10 // labels -10..29 in scrambled order
		pred[i] = float64((i*11)%(k+3)) - 10
	}
	truth[n-1] = math.Copysign(0, -1)
	c := mustConfusion(t, truth, pred)
	want := map[float64]bool{}
	for i := range truth {
		want[truth[i]] = true
		want[pred[i]] = true
	}
	if len(c.Labels) != len(want) || !slices.IsSorted(c.Labels) {
		t.Fatalf("Labels = %v, want the %d distinct labels sorted", c.Labels, len(want))
	}
	for i, l := range c.Labels {
		if !want[l] || (i > 0 && c.Labels[i-1] == l) || math.Signbit(l) && l == 0 {
			t.Fatalf("Labels = %v, bad label %v", c.Labels, l)
		}
	}
	for i, lt := range c.Labels {
		for j, lp := range c.Labels {
			var naive int64
			for r := range truth {
				if truth[r] == lt && pred[r] == lp {
					naive++
				}
			}
			if c.Counts[i][j] != naive {
				t.Fatalf("Counts[%v][%v] = %d, want %d", lt, lp, c.Counts[i][j], naive)
			}
		}
	}
	a, _ := Accuracy(truth, pred)
	if a != c.Accuracy() {
		t.Errorf("Accuracy %v != Confusion.Accuracy %v", a, c.Accuracy())
	}

	pred[n-1] = math.NaN()
	if _, err := NewConfusion(truth, pred); !errors.Is(err, ErrLabel) {
		t.Errorf("NaN past the switch: error = %v, want ErrLabel", err)
	}
}

func TestWriteReport(t *testing.T) {
	c := mustConfusion(t, binTruth, binPred)
	var buf bytes.Buffer
	if err := c.WriteReport(&buf); err != nil {
		t.Fatalf("WriteReport: %v", err)
	}
	out := buf.String()
	for _, want := range []string{
		"precision     recall   f1-score    support",
		"          -1     0.8000     0.6667     0.7273          6\n",
		"           1     0.6000     0.7500     0.6667          4\n",
		"    accuracy                           0.7000         10\n",
		"   macro avg     0.7000     0.7083     0.6970         10\n",
		"weighted avg     0.7200     0.7000     0.7030         10\n",
		"confusion matrix (rows: true label, columns: predicted label)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}

	// The matrix rows: label then counts, summing to the class's support.
	_, matrix, ok := strings.Cut(out, "confusion matrix")
	if !ok {
		t.Fatalf("no matrix in report:\n%s", out)
	}
	lines := strings.Split(strings.TrimSpace(matrix), "\n")[1:] // drop the title
	if got := strings.Fields(lines[0]); !slices.Equal(got, []string{"-1", "1"}) {
		t.Errorf("matrix header = %q, want [-1 1]", got)
	}
	rows := lines[1:]
	if len(rows) != len(c.Labels) {
		t.Fatalf("matrix has %d rows, want %d:\n%s", len(rows), len(c.Labels), matrix)
	}
	for i, line := range rows {
		f := strings.Fields(line)
		s := c.PerClass()[i]
		if len(f) != 1+len(c.Labels) || f[0] != strconv.FormatFloat(s.Label, 'g', -1, 64) {
			t.Errorf("matrix row %q: want label %v and %d counts", line, s.Label, len(c.Labels))
			continue
		}
		var sum int64
		for _, v := range f[1:] {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatalf("matrix row %q: %v", line, err)
			}
			sum += n
		}
		if sum != s.Support {
			t.Errorf("matrix row %q sums to %d, want support %d", line, sum, s.Support)
		}
	}

	if err := c.WriteReport(failWriter{}); !errors.Is(err, errWrite) {
		t.Errorf("WriteReport to a failing writer = %v, want its error", err)
	}
}

var errWrite = errors.New("write failed")

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errWrite }

func TestMarshalJSON(t *testing.T) {
	c := mustConfusion(t, binTruth, binPred)
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatalf("json.Marshal: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("json.Unmarshal: %v\n%s", err, data)
	}
	for _, key := range []string{"labels", "counts", "accuracy", "per_class", "macro", "weighted"} {
		if _, ok := m[key]; !ok {
			t.Errorf("JSON lacks %q: %s", key, data)
		}
	}
	if a, _ := m["accuracy"].(float64); a != 0.7 {
		t.Errorf("accuracy = %v, want 0.7", m["accuracy"])
	}
	if labels, _ := m["labels"].([]any); len(labels) != 2 || labels[0] != -1.0 || labels[1] != 1.0 {
		t.Errorf("labels = %v, want [-1 1]", m["labels"])
	}
	counts, _ := m["counts"].([]any)
	if len(counts) != 2 {
		t.Fatalf("counts = %v", m["counts"])
	}
	if row, _ := counts[0].([]any); len(row) != 2 || row[0] != 4.0 || row[1] != 2.0 {
		t.Errorf("counts[0] = %v, want [4 2]", counts[0])
	}
	per, _ := m["per_class"].([]any)
	if len(per) != 2 {
		t.Fatalf("per_class = %v", m["per_class"])
	}
	pos, _ := per[1].(map[string]any)
	if pos["label"] != 1.0 || pos["precision"] != 0.6 || pos["recall"] != 0.75 ||
		!near(pos["f1"].(float64), 2.0/3) || pos["support"] != 4.0 || pos["predicted"] != 5.0 {
		t.Errorf("per_class[1] = %v", pos)
	}
	macro, _ := m["macro"].(map[string]any)
	if _, ok := macro["label"]; ok {
		t.Errorf("macro has a label: %v", macro)
	}
	if macro["precision"] != 0.7 || macro["support"] != 10.0 {
		t.Errorf("macro = %v", macro)
	}
	weighted, _ := m["weighted"].(map[string]any)
	if !near(weighted["precision"].(float64), 0.72) || !near(weighted["recall"].(float64), 0.7) {
		t.Errorf("weighted = %v", weighted)
	}

	// A nil *Confusion encodes as null, inside a struct too.
	var nilC *Confusion
	if b, err := nilC.MarshalJSON(); err != nil || string(b) != "null" {
		t.Errorf("nil MarshalJSON = %s, %v", b, err)
	}
	if b, err := json.Marshal(struct{ C *Confusion }{}); err != nil || string(b) != `{"C":null}` {
		t.Errorf("struct with nil Confusion = %s, %v", b, err)
	}
}

func BenchmarkNewConfusion(b *testing.B) {
	const n = 1 << 16
	truth, pred := make([]float64, n), make([]float64, n)
	for i := range truth {
		truth[i] = float64(i % 10)
		pred[i] = float64(i * 7 % 10)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NewConfusion(truth, pred); err != nil {
			b.Fatal(err)
		}
	}
}
