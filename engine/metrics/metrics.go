package metrics

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Sentinel errors. The errors returned by this package wrap one of them
// with the details, so callers test with errors.Is.
var (
	// ErrLength: the true labels and the predictions differ in length, or
	// there are none.
	ErrLength = errors.New("metrics: truth and predictions differ in length or are empty")
	// ErrLabel: a true or predicted label is NaN or infinite.
	ErrLabel = errors.New("metrics: label is NaN or infinite")
)

// checkInputs returns an error wrapping ErrLength unless truth and pred
// have the same, nonzero, length.
func checkInputs(truth, pred []float64) error {
	if len(truth) != len(pred) {
		return fmt.Errorf("%w: %d true labels, %d predictions", ErrLength, len(truth), len(pred))
	}
	if len(truth) == 0 {
		return fmt.Errorf("%w: no rows", ErrLength)
	}
	return nil
}

// checkLabel returns an error wrapping ErrLabel if v, element i of the
// slice called name, is not a finite number.
func checkLabel(name string, i int, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("%w: %s[%d] = %v", ErrLabel, name, i, v)
	}
	return nil
}

// Accuracy returns the fraction of rows whose predicted label equals the
// true label, truth[i] == pred[i]. The two slices must have the same,
// nonzero, length (else the error wraps ErrLength) and hold only finite
// labels (else it wraps ErrLabel). It equals the Accuracy of the
// Confusion built from the same slices, without allocating.
func Accuracy(truth, pred []float64) (float64, error) {
	if err := checkInputs(truth, pred); err != nil {
		return 0, err
	}
	var correct int
	for i, t := range truth {
		p := pred[i]
		if err := checkLabel("truth", i, t); err != nil {
			return 0, err
		}
		if err := checkLabel("pred", i, p); err != nil {
			return 0, err
		}
		if t == p {
			correct++
		}
	}
	return float64(correct) / float64(len(truth)), nil
}

// Confusion is a confusion matrix: how many rows of each true label were
// given each predicted label.
//
// Labels holds every label that occurs in the truth or in the
// predictions, once each, in ascending order. Counts is square, one row
// and one column per label: Counts[i][j] is the number of rows whose true
// label is Labels[i] and whose predicted label is Labels[j]. The diagonal
// counts the correct predictions, row i sums to the support of Labels[i]
// and column j to the number of rows predicted as Labels[j].
//
// NewConfusion builds one; the methods assume that shape and sorted
// Labels, and only read the matrix, so a Confusion may be used from
// several goroutines at once as long as nothing modifies it.
type Confusion struct {
	Labels []float64
	Counts [][]int64
}

// NewConfusion counts the confusion matrix of the predictions pred
// against the true labels truth. The slices must have the same, nonzero,
// length (else the error wraps ErrLength) and hold only finite labels
// (else it wraps ErrLabel); -0 is counted as the label 0.
//
// It takes O(n log k) time for n rows and k distinct labels (expected,
// as it uses a hash set when k is large), and allocates little: the k
// labels, the k×k counts in one block, and the set of k labels when k is
// over 16.
func NewConfusion(truth, pred []float64) (*Confusion, error) {
	if err := checkInputs(truth, pred); err != nil {
		return nil, err
	}
	// Pass 1: collect the distinct labels, checking each on first sight
	// (NaN equals nothing, so it is always checked). While they are few a
	// linear scan finds them fastest; past smallLabels a set takes over.
	// Both compare with ==, so -0 and 0 are one label, stored as +0.
	const smallLabels = 16
	var labels []float64
	var set map[float64]struct{}
	add := func(name string, s []float64) error {
		for i, v := range s {
			if set == nil {
				if slices.Contains(labels, v) {
					continue
				}
			} else if _, ok := set[v]; ok {
				continue
			}
			if err := checkLabel(name, i, v); err != nil {
				return err
			}
			if v == 0 {
				v = 0 // drop the sign of -0
			}
			labels = append(labels, v)
			if set != nil {
				set[v] = struct{}{}
			} else if len(labels) > smallLabels {
				set = make(map[float64]struct{}, 2*len(labels))
				for _, l := range labels {
					set[l] = struct{}{}
				}
			}
		}
		return nil
	}
	if err := add("truth", truth); err != nil {
		return nil, err
	}
	if err := add("pred", pred); err != nil {
		return nil, err
	}
	slices.Sort(labels)

	// Pass 2: count, finding each label by binary search, with the
	// row-major k×k counts in one allocation.
	k := len(labels)
	cells := make([]int64, k*k)
	counts := make([][]int64, k)
	for i := range counts {
		counts[i] = cells[i*k : (i+1)*k : (i+1)*k]
	}
	for i, t := range truth {
		counts[search(labels, t)][search(labels, pred[i])]++
	}
	return &Confusion{Labels: labels, Counts: counts}, nil
}

// Total returns the number of rows counted, the sum of all the counts.
func (c *Confusion) Total() int64 {
	var n int64
	for _, row := range c.Counts {
		for _, v := range row {
			n += v
		}
	}
	return n
}

// Correct returns the number of rows predicted correctly, the sum of the
// diagonal.
func (c *Confusion) Correct() int64 {
	var n int64
	for i, row := range c.Counts {
		n += row[i]
	}
	return n
}

// Accuracy returns Correct()/Total(), the fraction of rows predicted
// correctly; 0 for a matrix with no rows.
func (c *Confusion) Accuracy() float64 {
	total := c.Total()
	if total == 0 {
		return 0
	}
	return float64(c.Correct()) / float64(total)
}

// ClassStats holds the precision, recall and F1 score of one class, or an
// average of them over the classes (see Confusion.Macro, Weighted and
// Micro, which leave Label at 0).
//
// Precision is the fraction of the rows predicted as the class that truly
// belong to it, TP/Predicted, and 0 when Predicted is 0. Recall is the
// fraction of the rows of the class that were predicted as it,
// TP/Support, and 0 when Support is 0. F1 is their harmonic mean,
// 2·P·R/(P+R) = 2·TP/(Support+Predicted), and 0 when P+R is 0.
type ClassStats struct {
	// Label is the class; 0 in an average.
	Label float64
	// Precision, Recall and F1 lie in [0, 1].
	Precision, Recall, F1 float64
	// Support is the number of rows whose true label is the class; in an
	// average, the total number of rows.
	Support int64
	// Predicted is the number of rows predicted as the class; in an
	// average, the total number of rows.
	Predicted int64
}

// stats computes the ClassStats of Labels[i].
func (c *Confusion) stats(i int) ClassStats {
	s := ClassStats{Label: c.Labels[i]}
	tp := c.Counts[i][i]
	for j, row := range c.Counts {
		s.Support += c.Counts[i][j]
		s.Predicted += row[i]
	}
	if s.Predicted > 0 {
		s.Precision = float64(tp) / float64(s.Predicted)
	}
	if s.Support > 0 {
		s.Recall = float64(tp) / float64(s.Support)
	}
	// tp > 0 exactly when P+R > 0, and then Support+Predicted > 0.
	if tp > 0 {
		s.F1 = 2 * float64(tp) / float64(s.Support+s.Predicted)
	}
	return s
}

// Class returns the statistics of the class label, and false if label is
// not among c.Labels.
func (c *Confusion) Class(label float64) (ClassStats, bool) {
	i, ok := slices.BinarySearch(c.Labels, label)
	if !ok {
		return ClassStats{}, false
	}
	return c.stats(i), true
}

// PerClass returns the statistics of every class, one per label in the
// order of c.Labels, including labels that occur only in the predictions
// (their Support, Recall and F1 are 0).
func (c *Confusion) PerClass() []ClassStats {
	out := make([]ClassStats, len(c.Labels))
	for i := range c.Labels {
		out[i] = c.stats(i)
	}
	return out
}

// Macro returns the unweighted mean of the per-class precision, recall
// and F1 over all the labels, so that every class counts the same however
// rare it is; a label that only occurs in the predictions counts too, with
// recall and F1 of 0. F1 is the mean of the per-class F1 scores, not the
// harmonic mean of the averaged precision and recall. Support and
// Predicted are the total number of rows.
func (c *Confusion) Macro() ClassStats {
	return c.average(false)
}

// Weighted returns the means of the per-class precision, recall and F1
// weighted by each class's support, so that every row counts the same.
// Labels that only occur in the predictions weigh nothing. The weighted
// recall equals the accuracy. Support and Predicted are the total number
// of rows.
func (c *Confusion) Weighted() ClassStats {
	return c.average(true)
}

// average computes Macro (weighted false) or Weighted.
func (c *Confusion) average(weighted bool) ClassStats {
	total := c.Total()
	out := ClassStats{Support: total, Predicted: total}
	var wsum float64
	for i := range c.Labels {
		s := c.stats(i)
		w := 1.0
		if weighted {
			w = float64(s.Support)
		}
		out.Precision += w * s.Precision
		out.Recall += w * s.Recall
		out.F1 += w * s.F1
		wsum += w
	}
	if wsum > 0 {
		out.Precision /= wsum
		out.Recall /= wsum
		out.F1 /= wsum
	}
	return out
}

// Micro returns the micro-averaged statistics, computed from the true
// positives, false positives and false negatives summed over the classes.
// With one label per row every wrong prediction is a false positive of one
// class and a false negative of another, so micro precision, recall and
// F1 are all equal to the accuracy. Support and Predicted are the total
// number of rows.
func (c *Confusion) Micro() ClassStats {
	total := c.Total()
	a := c.Accuracy()
	return ClassStats{Precision: a, Recall: a, F1: a, Support: total, Predicted: total}
}

// search returns the index of v in the ascending labels, which hold it.
func search(labels []float64, v float64) int {
	lo, hi := 0, len(labels)
	for hi-lo > 1 {
		mid := int(uint(lo+hi) >> 1)
		if labels[mid] <= v {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}
