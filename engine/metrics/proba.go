package metrics

import (
	"errors"
	"fmt"
	"math"
)

// Sentinel errors of the probability metrics, LogLoss and ECE, beside
// ErrLength for rows of the wrong count.
var (
	// ErrClass: fewer than two classes, or a true class index outside
	// 0..k-1.
	ErrClass = errors.New("metrics: class index out of range")
	// ErrProba: a probability is NaN or outside [0, 1].
	ErrProba = errors.New("metrics: probability is NaN or outside [0, 1]")
)

// minProba is the least probability LogLoss takes the logarithm of.
const minProba = 1e-15

// checkProba checks the shape of the probabilities: k ≥ 2 (else
// ErrClass), n = len(truth) > 0 rows of k values (else ErrLength), every
// truth in 0..k-1 (ErrClass) and every probability in [0, 1] (ErrProba).
func checkProba(proba []float64, k int, truth []int) error {
	if k < 2 {
		return fmt.Errorf("%w: %d classes, at least 2 needed", ErrClass, k)
	}
	if len(truth) == 0 {
		return fmt.Errorf("%w: no rows", ErrLength)
	}
	if len(proba)%k != 0 || len(proba)/k != len(truth) {
		return fmt.Errorf("%w: %d probabilities for %d rows of %d classes", ErrLength, len(proba), len(truth), k)
	}
	for i, y := range truth {
		if y < 0 || y >= k {
			return fmt.Errorf("%w: truth[%d] = %d, want 0..%d", ErrClass, i, y, k-1)
		}
	}
	for i, p := range proba {
		if !(p >= 0 && p <= 1) {
			return fmt.Errorf("%w: proba[%d] = %v", ErrProba, i, p)
		}
	}
	return nil
}

// LogLoss returns the log loss (cross-entropy) of predicted class
// probabilities: the mean over the rows of −ln p(true class). proba holds
// n rows of k probabilities each, row after row, and truth[i] is the
// index in 0..k-1 of row i's true class, so row i's loss is
// −ln proba[i*k+truth[i]].
//
// Each probability is clamped to [1e-15, 1] before its logarithm is
// taken, as scikit-learn's log_loss did with its long-standing eps=1e-15,
// so that a certain but wrong prediction costs −ln 1e-15 ≈ 34.5 rather
// than +Inf. The rows are taken as given, not renormalized to sum to 1.
//
// k must be at least 2 and every truth in range (else the error wraps
// ErrClass), proba must hold len(truth) > 0 rows of k (ErrLength), and
// every probability must lie in [0, 1] (ErrProba).
func LogLoss(proba []float64, k int, truth []int) (float64, error) {
	if err := checkProba(proba, k, truth); err != nil {
		return 0, err
	}
	var sum float64
	for i, y := range truth {
		sum -= math.Log(max(proba[i*k+y], minProba))
	}
	return sum / float64(len(truth)), nil
}

// ECE returns the expected calibration error of the top-label confidence
// (Guo et al. 2017, "On calibration of modern neural networks"). Each row
// is predicted as its most probable class, the lowest index among ties,
// with confidence c, that class's probability. The rows are put in bins
// equal-width bins over [0, 1] by their confidence, and
//
//	ECE = Σ_b (n_b/n)·|acc_b − conf_b|
//
// where n_b is the number of rows in bin b, acc_b the fraction of them
// predicted right and conf_b their mean confidence; empty bins count
// nothing. ECE lies in [0, 1] and is 0 for a model whose confidence
// matches its accuracy in every bin.
//
// Bin b, 0 ≤ b < bins, holds the confidences in (b/bins, (b+1)/bins],
// open below and closed above as in Guo et al.; a confidence of exactly
// 0 goes in the first bin. A confidence on an edge thus falls in the bin
// below it: with 10 bins, 0.5 is in the fifth, (0.4, 0.5]. The edges are
// the float64 values of b/bins, so that 0.28 is the top of bin 27 of 100
// although 0.28·100 rounds to more than 28. bins ≤ 0 means 10.
//
// proba and truth are laid out and checked as for LogLoss, with the same
// errors.
func ECE(proba []float64, k int, truth []int, bins int) (float64, error) {
	if err := checkProba(proba, k, truth); err != nil {
		return 0, err
	}
	if bins <= 0 {
		bins = 10
	}
	// Per bin, the number of rows, of right predictions, and the sum of
	// the confidences. Σ_b (n_b/n)·|acc_b − conf_b| = Σ_b |right_b −
	// sum_b| / n.
	count := make([]int, bins)
	right := make([]int, bins)
	sum := make([]float64, bins)
	for i, y := range truth {
		row := proba[i*k : (i+1)*k]
		top := 0
		for j, p := range row {
			if p > row[top] {
				top = j
			}
		}
		c := row[top]
		b := binOf(c, bins)
		count[b]++
		sum[b] += c
		if top == y {
			right[b]++
		}
	}
	var ece float64
	for b := range count {
		ece += math.Abs(float64(right[b]) - sum[b])
	}
	return ece / float64(len(truth)), nil
}

// binOf returns the bin of confidence c among bins equal-width bins,
// following the edge rule of ECE: the b with b/bins < c ≤ (b+1)/bins,
// where each edge is the float64 quotient, and 0 for c = 0. ⌈c·bins⌉−1
// can be one off where the product rounds across an integer, so it is
// corrected against the edges themselves.
func binOf(c float64, bins int) int {
	n := float64(bins)
	b := min(max(int(math.Ceil(c*n))-1, 0), bins-1)
	if b > 0 && c <= float64(b)/n {
		b--
	} else if b < bins-1 && c > float64(b+1)/n {
		b++
	}
	return b
}
