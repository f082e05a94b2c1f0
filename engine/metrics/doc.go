// Package metrics scores a classifier's predictions against the true
// labels: accuracy, a confusion matrix, and per-class and averaged
// precision, recall and F1, with a plain-text report and a JSON form for
// the command-line tool and other programs; and predicted probabilities
// by their log loss and calibration error.
//
// Labels are float64 values, as everywhere in hyperplane; any finite value
// is a label, and -0 is the same label as 0. Inputs are checked, not
// trusted: slices of different lengths or with no rows give an error
// wrapping ErrLength, and a NaN or infinite label one wrapping ErrLabel.
//
// Where a ratio has a zero denominator it is taken as 0, as scikit-learn
// does with zero_division=0: the precision of a class that was never
// predicted, the recall of a class that never occurs in the truth, and the
// F1 of a class whose precision and recall are both 0. None of the numbers
// this package returns is ever NaN.
//
// For class probabilities, such as package engine/calibrate gives,
// LogLoss and ECE score the probabilities themselves: the log loss and
// the expected calibration error. They take k probabilities per row, row
// after row, and each row's true class as an index in 0..k-1; a class
// count below 2 or an index out of range gives an error wrapping
// ErrClass, and a probability that is NaN or outside [0, 1] one wrapping
// ErrProba.
package metrics
