package calibrate

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Sentinel errors. The errors returned by this package wrap one of them
// with the details, so callers test with errors.Is.
var (
	// ErrNoData: there are no rows to fit on.
	ErrNoData = errors.New("calibrate: no rows")
	// ErrLength: the scores and the truth do not describe the same rows.
	ErrLength = errors.New("calibrate: scores and truth differ in length")
	// ErrClass: fewer than two classes, or a true class outside 0..k-1.
	ErrClass = errors.New("calibrate: class out of range")
	// ErrScore: a score is NaN or infinite.
	ErrScore = errors.New("calibrate: score is NaN or infinite")
	// ErrParam: a parameter given to NewPlatt or NewTemperature is not
	// finite, or a temperature is not positive.
	ErrParam = errors.New("calibrate: parameter out of range")
	// ErrFormat: the data is not a binary calibration this build reads.
	ErrFormat = errors.New("calibrate: malformed binary calibration")
)

// Kind says which map a Calibration applies.
type Kind uint8

const (
	// Uncalibrated is the zero value's kind: the logistic of a single
	// score, the softmax of two or more.
	Uncalibrated Kind = iota
	// PlattScaling maps one score s to p(second) = 1/(1+exp(A·s+B)).
	PlattScaling
	// TemperatureScaling maps k ≥ 2 scores s to softmax(s/T).
	TemperatureScaling
)

// String returns "uncalibrated", "platt" or "temperature".
func (k Kind) String() string {
	switch k {
	case Uncalibrated:
		return "uncalibrated"
	case PlattScaling:
		return "platt"
	case TemperatureScaling:
		return "temperature"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Calibration maps a model's raw scores to class probabilities; see the
// package comment for the two kinds. FitPlatt and FitTemperature fit one
// on held-out scores, NewPlatt and NewTemperature build one from known
// parameters.
//
// The zero value is ready to use and uncalibrated: the logistic of a
// single score, p(second) = 1/(1+exp(−s)), which is Platt scaling with
// A = −1 and B = 0; and the softmax of two or more scores at T = 1.
//
// A Calibration is a small value that is never modified once made, so it
// may be copied and used from several goroutines at once.
type Calibration struct {
	kind Kind
	a, b float64 // PlattScaling
	t    float64 // TemperatureScaling; > 0
}

// NewPlatt returns the Platt calibration with parameters a and b, which
// must be finite (else the error wraps ErrParam).
func NewPlatt(a, b float64) (Calibration, error) {
	if !finite(a) || !finite(b) {
		return Calibration{}, fmt.Errorf("%w: Platt A=%v, B=%v", ErrParam, a, b)
	}
	return Calibration{kind: PlattScaling, a: a, b: b}, nil
}

// NewTemperature returns the temperature calibration with temperature t,
// which must be finite and positive (else the error wraps ErrParam).
func NewTemperature(t float64) (Calibration, error) {
	if !finite(t) || t <= 0 {
		return Calibration{}, fmt.Errorf("%w: temperature %v", ErrParam, t)
	}
	return Calibration{kind: TemperatureScaling, t: t}, nil
}

// Kind returns the kind of map c applies.
func (c Calibration) Kind() Kind { return c.kind }

// Platt returns the parameters A and B that c applies to a single score,
// and true: those fitted for a Platt calibration, −1 and 0 for the zero
// value. For a temperature calibration, which takes no single score, it
// returns 0, 0 and false.
func (c Calibration) Platt() (a, b float64, ok bool) {
	switch c.kind {
	case PlattScaling:
		return c.a, c.b, true
	case Uncalibrated:
		return -1, 0, true
	}
	return 0, 0, false
}

// Temperature returns the temperature T that c applies to two or more
// scores, and true: the one fitted for a temperature calibration, 1 for
// the zero value. For a Platt calibration, which takes a single score, it
// returns 0 and false.
func (c Calibration) Temperature() (t float64, ok bool) {
	switch c.kind {
	case TemperatureScaling:
		return c.t, true
	case Uncalibrated:
		return 1, true
	}
	return 0, false
}

// Proba writes the probability of every class for one row's scores into
// dst, grown only if its capacity is too small, and returns it; it
// allocates nothing when dst has the capacity.
//
// A single score s, as a binary model gives, yields two values,
// [p(first), p(second)], where s > 0 favours the second class. A Platt
// calibration takes exactly one score, a temperature calibration two or
// more, and the zero value either; any other length panics, as it is a
// mistake in the caller, not in the data. Two or more scores yield one
// probability per score, in the same order, summing to 1 (up to
// rounding).
//
// Scores of any size, infinite ones included, give probabilities in
// [0, 1], never NaN: the computation is done in float64 and shifted so
// that no exponential overflows. Where some scores are +Inf they share
// the probability equally. A NaN score gives NaN probabilities.
func (c Calibration) Proba(scores []float32, dst []float64) []float64 {
	switch {
	case len(scores) == 1 && c.kind != TemperatureScaling:
		dst = grow(dst, 2)
		a, b, _ := c.Platt()
		dst[0], dst[1] = logistic(a, b, float64(scores[0]))
		return dst
	case len(scores) >= 2 && c.kind != PlattScaling:
		t, _ := c.Temperature()
		dst = grow(dst, len(scores))
		softmax(scores, t, dst)
		return dst
	}
	panic(fmt.Sprintf("calibrate: %s calibration given %d scores", c.kind, len(scores)))
}

// String describes c with its parameters to three significant digits,
// as "platt(A=-3.21, B=0.05)", "temperature(T=0.42)" or "uncalibrated".
// It is for people; MarshalBinary keeps the exact values.
func (c Calibration) String() string {
	switch c.kind {
	case PlattScaling:
		return "platt(A=" + short(c.a) + ", B=" + short(c.b) + ")"
	case TemperatureScaling:
		return "temperature(T=" + short(c.t) + ")"
	}
	return c.kind.String()
}

func short(v float64) string { return strconv.FormatFloat(v, 'g', 3, 64) }

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// grow returns dst resliced to length n, reallocated only if its capacity
// is less than n.
func grow(dst []float64, n int) []float64 {
	if cap(dst) < n {
		return make([]float64, n)
	}
	return dst[:n]
}

// logistic returns 1−p and p for p = 1/(1+exp(f)), f = a·s+b. Each is
// computed from exp(−|f|), which cannot overflow, rather than one from
// the other, so that a probability near 0 keeps its relative precision.
func logistic(a, b, s float64) (p0, p1 float64) {
	f := b
	if a != 0 { // 0·Inf would be NaN; a zero slope ignores the score
		f += a * s
	}
	if f >= 0 {
		e := math.Exp(-f)
		return 1 / (1 + e), e / (1 + e)
	}
	e := math.Exp(f)
	return e / (1 + e), 1 / (1 + e)
}

// softmax writes softmax(s/t) into dst, len(dst) == len(s), t > 0. The
// scores are shifted by their maximum, so that the exponentials lie in
// [0, 1] and the largest is 1; they are divided by t rather than
// multiplied by 1/t, which overflows for the smallest t. Where the maximum is infinite, the
// scores equal to it share the probability and the others get none.
func softmax(s []float32, t float64, dst []float64) {
	m := math.Inf(-1)
	for _, v := range s {
		m = max(m, float64(v)) // NaN if any score is NaN
	}
	if math.IsInf(m, 0) {
		var ties float64
		for i, v := range s {
			dst[i] = 0
			if float64(v) == m {
				dst[i] = 1
				ties++
			}
		}
		for i := range dst {
			dst[i] /= ties
		}
		return
	}
	var sum float64
	for i, v := range s {
		e := math.Exp((float64(v) - m) / t)
		dst[i] = e
		sum += e
	}
	for i := range dst {
		dst[i] /= sum
	}
}
