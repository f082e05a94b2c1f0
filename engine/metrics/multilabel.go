package metrics

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// MultiLabelStats are the counts of one class over a multi-label set and
// the precision, recall and F1 they give (0 where a denominator is 0, as
// scikit-learn's zero_division=0).
type MultiLabelStats struct {
	TP, FP, FN            int64
	Precision, Recall, F1 float64
}

func (s *MultiLabelStats) finish() {
	s.Precision = ratio(s.TP, s.TP+s.FP)
	s.Recall = ratio(s.TP, s.TP+s.FN)
	s.F1 = ratio(2*s.TP, 2*s.TP+s.FP+s.FN)
}

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// MultiLabel holds the metrics of multi-label predictions over K classes,
// defined as scikit-learn defines them (f1_score, hamming_loss,
// accuracy_score on label indicator matrices, zero_division=0).
type MultiLabel struct {
	// Rows and Classes are the number of rows and of classes.
	Rows, Classes int
	// PerClass holds each class's counts; Micro pools them; Macro is the
	// unweighted mean of the classes' precision, recall and F1.
	PerClass     []MultiLabelStats
	Micro, Macro MultiLabelStats
	// Hamming is the fraction of (row, class) pairs predicted wrong;
	// Subset the fraction of rows whose predicted set is exactly their
	// true set.
	Hamming, Subset float64
}

// NewMultiLabel compares the predicted classes of each row with its true
// ones, each a class index in [0, classes) (repeats count once). Lists
// of different lengths, or no rows, are an error wrapping ErrLength; a
// class out of range one wrapping ErrClass.
func NewMultiLabel(truth, pred [][]int, classes int) (*MultiLabel, error) {
	if len(truth) != len(pred) || len(truth) == 0 {
		return nil, fmt.Errorf("%w: %d true and %d predicted label lists", ErrLength, len(truth), len(pred))
	}
	if classes < 1 {
		return nil, fmt.Errorf("%w: %d classes", ErrClass, classes)
	}
	m := &MultiLabel{Rows: len(truth), Classes: classes, PerClass: make([]MultiLabelStats, classes)}
	inT := make([]int, classes) // row+1 where the class is true
	inP := make([]int, classes)
	var wrong, exact int64
	for i := range truth {
		for _, lists := range [2]struct {
			l    []int
			mark []int
		}{{truth[i], inT}, {pred[i], inP}} {
			for _, c := range lists.l {
				if c < 0 || c >= classes {
					return nil, fmt.Errorf("%w: row %d has class %d, not in [0, %d)", ErrClass, i, c, classes)
				}
				lists.mark[c] = i + 1
			}
		}
		diff := int64(0)
		for _, c := range truth[i] {
			if inT[c] != -(i + 1) { // count each class once
				if inP[c] == i+1 {
					m.PerClass[c].TP++
				} else {
					m.PerClass[c].FN++
					diff++
				}
				inT[c] = -(i + 1)
			}
		}
		for _, c := range pred[i] {
			if inT[c] != -(i+1) && inP[c] == i+1 {
				m.PerClass[c].FP++
				diff++
				inP[c] = -(i + 1)
			}
		}
		wrong += diff
		if diff == 0 {
			exact++
		}
	}
	for c := range m.PerClass {
		s := &m.PerClass[c]
		s.finish()
		m.Micro.TP += s.TP
		m.Micro.FP += s.FP
		m.Micro.FN += s.FN
		m.Macro.Precision += s.Precision / float64(classes)
		m.Macro.Recall += s.Recall / float64(classes)
		m.Macro.F1 += s.F1 / float64(classes)
	}
	m.Micro.finish()
	m.Hamming = float64(wrong) / (float64(m.Rows) * float64(classes))
	m.Subset = float64(exact) / float64(m.Rows)
	return m, nil
}

// PrecisionRecallAtK returns the mean over rows of the fraction of the k
// top-ranked classes that are true (P@k) and of the true classes found
// among them (R@k, over rows with a true class only). ranked[i] lists
// row i's classes best first; only its first k count.
func PrecisionRecallAtK(truth, ranked [][]int, k int) (p, r float64, err error) {
	if len(truth) != len(ranked) || len(truth) == 0 || k < 1 {
		return 0, 0, fmt.Errorf("%w: %d true and %d ranked lists, k = %d", ErrLength, len(truth), len(ranked), k)
	}
	var nr int
	for i := range truth {
		top := ranked[i][:min(k, len(ranked[i]))]
		hit := 0
		for _, c := range top {
			for _, t := range truth[i] {
				if t == c {
					hit++
					break
				}
			}
		}
		p += float64(hit) / float64(k)
		if len(truth[i]) > 0 {
			r += float64(hit) / float64(len(truth[i]))
			nr++
		}
	}
	p /= float64(len(truth))
	if nr > 0 {
		r /= float64(nr)
	}
	return p, r, nil
}

// WriteReport writes a table of every class's precision, recall, F1 and
// support (names[c] naming class c, or its index if names is short),
// then the micro and macro averages.
func (m *MultiLabel) WriteReport(w io.Writer, names []string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "label\tprecision\trecall\tf1\tsupport\tpredicted\t\n")
	row := func(name string, s MultiLabelStats) {
		fmt.Fprintf(tw, "%s\t%.4f\t%.4f\t%.4f\t%d\t%d\t\n", name, s.Precision, s.Recall, s.F1, s.TP+s.FN, s.TP+s.FP)
	}
	for c, s := range m.PerClass {
		name := fmt.Sprint(c)
		if c < len(names) {
			name = names[c]
		}
		row(name, s)
	}
	row("micro avg", m.Micro)
	fmt.Fprintf(tw, "%s\t%.4f\t%.4f\t%.4f\t\t\t\n", "macro avg", m.Macro.Precision, m.Macro.Recall, m.Macro.F1)
	return tw.Flush()
}
