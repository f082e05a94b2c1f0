// Package calibrate turns a linear classifier's raw scores into class
// probabilities that can be trusted as such. A perceptron's scores rank
// the classes but are not probabilities: their scale is arbitrary and
// grows with training. A Calibration is a one- or two-parameter map from
// scores to probabilities fitted on held-out data, never on the rows the
// model was trained on, whose scores are overconfident.
//
// # Kinds
//
// Platt scaling serves a binary model, which has one score s per row, the
// second class (engine.Model's Classes[1]) when s > 0. It maps s to
//
//	p(second) = 1 / (1 + exp(A·s + B)),   p(first) = 1 − p(second),
//
// with A and B fitted by FitPlatt: the Newton method with backtracking
// line search of Lin, Lin and Weng (2007), "A note on Platt's
// probabilistic outputs for support vector machines", on the regularized
// targets of Platt (1999), (N₊+1)/(N₊+2) for the second class and
// 1/(N₋+2) for the first. A fitted A is negative when larger scores mean
// the second class is more likely.
//
// Temperature scaling (Guo et al. 2017, "On calibration of modern neural
// networks") serves a multiclass model, which has one score per class. It
// maps the k scores of a row to
//
//	p = softmax(s / T),
//
// with the temperature T > 0 fitted by FitTemperature to minimize the
// negative log-likelihood. It divides every score by the same positive
// number, so it never changes which class has the highest probability.
//
// The zero Calibration is uncalibrated: the logistic of the score for one
// score (A = −1, B = 0) and the softmax at T = 1 for two or more.
//
// # Use
//
// Proba writes a row's probabilities into a caller's slice and allocates
// nothing when it is large enough; a Calibration is a small value, safe
// for concurrent use. MarshalBinary and UnmarshalBinary give a compact,
// versioned binary form (see AppendBinary for the layout), and String a
// short description for logs. Package metrics scores the result with
// LogLoss and ECE.
//
// # Errors
//
// Errors wrap one of the sentinels (ErrNoData, ErrLength, ErrClass,
// ErrScore, ErrParam, ErrFormat), to be tested with errors.Is.
package calibrate
