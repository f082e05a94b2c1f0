package calibrate

import (
	"fmt"
	"math"
)

// FitPlatt fits Platt scaling, p(second) = 1/(1+exp(A·s+B)), to the
// scores of a binary model on held-out rows: scores[i] is row i's score,
// positive[i] whether its true class is the second one (the class a
// score > 0 predicts). The slices must have the same length (ErrLength),
// not zero (ErrNoData), and the scores must be finite (ErrScore).
//
// A and B minimize the cross-entropy against Platt's regularized targets,
// (N₊+1)/(N₊+2) for the N₊ positive rows and 1/(N₋+2) for the N₋
// negative ones, rather than 1 and 0: with separable scores plain
// maximum likelihood would send A to −∞, and the targets keep it finite.
// For the same reason rows of a single class are not an error: the fit
// is then A = 0 and p(second) = (N₊+1)/(N₊+2), or 1/(N₋+2).
//
// The minimization is Newton's method with a backtracking line search
// (Lin, Lin and Weng 2007), on the scores divided by their root mean
// square so that the result does not depend on their scale.
func FitPlatt(scores []float32, positive []bool) (Calibration, error) {
	p, err := newPlattProblem(scores, positive)
	if err != nil {
		return Calibration{}, err
	}
	npos, nneg := p.count()
	a, b := p.fit(0, math.Log(float64(nneg+1)/float64(npos+1)))
	return Calibration{kind: PlattScaling, a: a / p.scale, b: b}, nil
}

// FitPlattOrigin fits Platt scaling as FitPlatt does, but with B = 0:
// the curve passes through 1/2 at score 0, so the class a binary model
// predicts (the second for a score > 0, the first otherwise) is never
// given a probability below 1/2, and the probability and the decision
// cannot disagree. It costs the fit its intercept, which matters where
// the scores of held-out rows are biased to one side of 0; the model's
// decisions are then what they are, and its probabilities stay on the
// side of 1/2 they imply. A is also kept at or below 0: where higher
// scores make the second class less likely on these rows (a model worse
// than chance there), a positive A would give the predicted class a
// probability below 1/2 again; the fit is then A = 0, the probability
// 1/2 everywhere. The arguments and errors are FitPlatt's; rows of a
// single class give A = 0 and the probability 1/2 everywhere.
func FitPlattOrigin(scores []float32, positive []bool) (Calibration, error) {
	p, err := newPlattProblem(scores, positive)
	if err != nil {
		return Calibration{}, err
	}
	p.origin = true
	a, _ := p.fit(0, 0)
	// The loss is convex in A, so its minimum over A ≤ 0 is the
	// unconstrained one or, when that is positive, 0.
	return Calibration{kind: PlattScaling, a: min(a, 0) / p.scale, b: 0}, nil
}

// plattProblem is the cross-entropy of Platt scaling on scaled scores
// x = s/scale, with target hi for a positive row and lo for a negative;
// with origin, b stays at 0.
type plattProblem struct {
	scores   []float32
	positive []bool
	scale    float64
	hi, lo   float64
	origin   bool
}

// newPlattProblem checks the scores and labels of FitPlatt and sets up
// its problem: the scale and the regularized targets.
func newPlattProblem(scores []float32, positive []bool) (*plattProblem, error) {
	if len(scores) != len(positive) {
		return nil, fmt.Errorf("%w: %d scores, %d classes", ErrLength, len(scores), len(positive))
	}
	if len(scores) == 0 {
		return nil, ErrNoData
	}
	var npos, nneg int
	var sumsq float64
	for i, s := range scores {
		if err := checkScore(i, s); err != nil {
			return nil, err
		}
		if positive[i] {
			npos++
		} else {
			nneg++
		}
		sumsq += float64(s) * float64(s)
	}
	scale := math.Sqrt(sumsq / float64(len(scores)))
	if scale == 0 {
		scale = 1
	}
	return &plattProblem{
		scores: scores, positive: positive, scale: scale,
		hi: float64(npos+1) / float64(npos+2),
		lo: 1 / float64(nneg+2),
	}, nil
}

// count returns the numbers of positive and negative rows.
func (p *plattProblem) count() (npos, nneg int) {
	for _, v := range p.positive {
		if v {
			npos++
		}
	}
	return npos, len(p.positive) - npos
}

// Settings of the Newton method, those of Lin, Lin and Weng: at most
// maxIter steps; stop when both gradient components are below gradTol;
// sigma is added to the Hessian's diagonal so that it stays invertible
// when the scores are all equal; a step is halved until it decreases the
// loss by at least armijo times the decrease the gradient predicts, and
// the search gives up below minStep.
const (
	plattMaxIter = 100
	plattGradTol = 1e-5
	plattSigma   = 1e-12
	plattArmijo  = 1e-4
	plattMinStep = 1e-10
)

func (p *plattProblem) target(i int) float64 {
	if p.positive[i] {
		return p.hi
	}
	return p.lo
}

// loss returns the cross-entropy at (a, b). With f = a·x+b and
// p = 1/(1+exp(f)), the loss of a row with target t is
// −t·ln p − (1−t)·ln(1−p) = ln(1+exp(f)) − (1−t)·f, evaluated as
// t·f + ln(1+exp(−f)) for f ≥ 0 and (t−1)·f + ln(1+exp(f)) otherwise, so
// that the exponential never exceeds 1.
func (p *plattProblem) loss(a, b float64) float64 {
	var sum float64
	for i, s := range p.scores {
		t := p.target(i)
		f := a*float64(s)/p.scale + b
		if f >= 0 {
			sum += t*f + math.Log1p(math.Exp(-f))
		} else {
			sum += (t-1)*f + math.Log1p(math.Exp(f))
		}
	}
	return sum
}

// fit minimizes the loss from (a, b) and returns the minimizer. The loss
// is convex, and each step either decreases it or ends the search, so
// what fit returns is never worse than where it started.
func (p *plattProblem) fit(a, b float64) (float64, float64) {
	fval := p.loss(a, b)
	for range plattMaxIter {
		// Gradient and Hessian in (a, b): a row's loss has derivative
		// t − p in f = a·x+b and second derivative p·(1−p), and
		// df/da = x, df/db = 1.
		h11, h22, h21 := plattSigma, plattSigma, 0.0
		var g1, g2 float64
		for i, s := range p.scores {
			x := float64(s) / p.scale
			f := a*x + b
			var pr, q float64 // p and 1−p
			if f >= 0 {
				e := math.Exp(-f)
				pr, q = e/(1+e), 1/(1+e)
			} else {
				e := math.Exp(f)
				pr, q = 1/(1+e), e/(1+e)
			}
			d2 := pr * q
			h11 += x * x * d2
			h22 += d2
			h21 += x * d2
			d1 := p.target(i) - pr
			g1 += x * d1
			g2 += d1
		}
		if math.Abs(g1) < plattGradTol && math.Abs(g2) < plattGradTol {
			break
		}
		// Newton direction −H⁻¹g; det > 0 as H is positive definite.
		var da, db float64
		if p.origin {
			if math.Abs(g1) < plattGradTol {
				break
			}
			da = -g1 / h11
		} else {
			det := h11*h22 - h21*h21
			da = -(h22*g1 - h21*g2) / det
			db = -(-h21*g1 + h11*g2) / det
		}
		slope := g1*da + g2*db // < 0: a descent direction
		step := 1.0
		for ; step >= plattMinStep; step /= 2 {
			na, nb := a+step*da, b+step*db
			nf := p.loss(na, nb)
			if nf < fval+plattArmijo*step*slope {
				a, b, fval = na, nb, nf
				break
			}
		}
		if step < plattMinStep {
			break // no step decreases the loss: as good as it gets in float64
		}
	}
	return a, b
}

// FitTemperature fits temperature scaling, p = softmax(s/T), to the
// scores of a k-class model on held-out rows. scores holds n rows of k
// scores each, row after row, and truth[i] is the index in 0..k-1 of row
// i's true class, so that scores[i*k+truth[i]] is the true class's score.
// k must be at least 2 and every truth in range (ErrClass), there must be
// rows (ErrNoData) and exactly k scores each (ErrLength), and the scores
// must be finite (ErrScore).
//
// T minimizes the negative log-likelihood Σ −ln p(truth[i]) over the
// rows. In β = 1/T this is convex, and its derivative is found to a
// relative precision of about 1e-12 by Newton's method safeguarded by a
// bisection bracket. T is searched within [D·1e-12, D·1e12], D the widest
// difference between two scores of a row. Where the likelihood has no
// maximum inside, the fit goes to the end it keeps growing towards: T
// tends to 0 when the highest score always belongs to the true class, and
// the search stops at the first T it tries (by factors of 4 from 1) where
// the likelihood is 1 in double precision, or at D·1e-12; T is D·1e12 when
// the scores favour the true class no more than chance. When every row's
// scores are all equal the likelihood does not depend on T, and T is 1.
func FitTemperature(scores []float32, k int, truth []int) (Calibration, error) {
	if k < 2 {
		return Calibration{}, fmt.Errorf("%w: %d classes, at least 2 needed", ErrClass, k)
	}
	if len(truth) == 0 {
		if len(scores) != 0 {
			return Calibration{}, fmt.Errorf("%w: %d scores, no true classes", ErrLength, len(scores))
		}
		return Calibration{}, ErrNoData
	}
	if len(scores)%k != 0 || len(scores)/k != len(truth) {
		return Calibration{}, fmt.Errorf("%w: %d scores for %d rows of %d classes", ErrLength, len(scores), len(truth), k)
	}
	var spread float64
	for i, y := range truth {
		if y < 0 || y >= k {
			return Calibration{}, fmt.Errorf("%w: truth[%d] = %d, want 0..%d", ErrClass, i, y, k-1)
		}
		row := scores[i*k : (i+1)*k]
		lo, hi := math.Inf(1), math.Inf(-1)
		for j, s := range row {
			if err := checkScore(i*k+j, s); err != nil {
				return Calibration{}, err
			}
			lo, hi = min(lo, float64(s)), max(hi, float64(s))
		}
		spread = max(spread, hi-lo)
	}
	if spread == 0 {
		return Calibration{kind: TemperatureScaling, t: 1}, nil
	}
	p := tempProblem{scores: scores, k: k, truth: truth}
	beta := p.fit(1e-12/spread, 1e12/spread)
	return Calibration{kind: TemperatureScaling, t: 1 / beta}, nil
}

// tempProblem is the negative log-likelihood of softmax(β·s) as a
// function of the inverse temperature β.
type tempProblem struct {
	scores []float32
	k      int
	truth  []int
}

// derivs returns the first and second derivative of the NLL in β. For a
// row with scores s and true class y, the NLL is lse(β·s) − β·s_y, whose
// derivative is E[s] − s_y and second derivative Var[s], both under
// p = softmax(β·s). The scores are shifted by the row's maximum, which
// changes neither and keeps every exponential in [0, 1].
func (p *tempProblem) derivs(beta float64) (g, h float64) {
	k := p.k
	for i, y := range p.truth {
		row := p.scores[i*k : (i+1)*k]
		m := math.Inf(-1)
		for _, s := range row {
			m = max(m, float64(s))
		}
		var s0, s1, s2 float64
		for _, s := range row {
			d := float64(s) - m
			e := math.Exp(beta * d)
			s0 += e
			s1 += e * d
			s2 += e * d * d
		}
		mean := s1 / s0
		g += mean - (float64(row[y]) - m)
		h += max(s2/s0-mean*mean, 0)
	}
	return g, h
}

// tempMaxIter bounds the safeguarded Newton iterations; bisection alone
// needs about 40 to bring the bracket to the tolerance.
const tempMaxIter = 100

// fit returns the β in [bmin, bmax] where the NLL's derivative changes
// sign, or the end of the interval towards which the NLL keeps falling.
func (p *tempProblem) fit(bmin, bmax float64) float64 {
	// Bracket the root: from β = 1 (T = 1, the raw scores), step by
	// factors of 4 until the derivative changes sign. lo and hi are 0
	// until a point with g < 0, respectively g > 0, is found. The
	// derivative is exactly 0 only at the root or, for separable rows,
	// where every probability but the true class's has underflowed: the
	// likelihood is 1 and cannot grow further.
	beta := min(max(1, bmin), bmax)
	var lo, hi float64
	var g, h float64
	for {
		g, h = p.derivs(beta)
		switch {
		case g == 0:
			return beta
		case g < 0:
			lo = beta
			if hi > 0 {
				goto refine
			}
			if beta == bmax {
				return bmax
			}
			beta = min(4*beta, bmax)
		default:
			hi = beta
			if lo > 0 {
				goto refine
			}
			if beta == bmin {
				return bmin
			}
			beta = max(beta/4, bmin)
		}
	}
refine:
	// Newton steps from the latest point while they land inside the
	// bracket and shrink it at least by half; a geometric bisection
	// otherwise. The derivative is monotone, so its sign at each new
	// point tells which end to move.
	width := math.Inf(1) // the bracket's width before the last step
	for range tempMaxIter {
		if hi-lo <= 1e-12*hi {
			break
		}
		next := beta - g/h
		if !(h > 0) || !(next > lo && next < hi) || hi-lo > width/2 {
			next = math.Sqrt(lo * hi)
		}
		width = hi - lo
		if math.Abs(next-beta) <= 1e-12*beta {
			break
		}
		beta = next
		g, h = p.derivs(beta)
		if g == 0 {
			break
		}
		if g < 0 {
			lo = beta
		} else {
			hi = beta
		}
	}
	return beta
}

// checkScore returns an error wrapping ErrScore if s, scores[i], is not
// finite.
func checkScore(i int, s float32) error {
	if math.IsNaN(float64(s)) || math.IsInf(float64(s), 0) {
		return fmt.Errorf("%w: scores[%d] = %v", ErrScore, i, s)
	}
	return nil
}
