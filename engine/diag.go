package engine

import (
	"fmt"
	"math"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

// MarginStats describes the geometry of a data set as a model sees it:
// the quantities of the perceptron convergence theorem (Block 1962,
// Novikoff 1962). If some unit vector u separates the data with margin γ
// (y·u·x ≥ γ for every row) and every row has norm at most R, the
// perceptron started at zero makes at most (R/γ)² mistakes, however long it
// runs and in whatever order it sees the rows.
type MarginStats struct {
	// Functional is the smallest functional margin over the rows:
	// min y·(w·x+b) for a binary model; for a multiclass one, the smallest
	// lead of the true class's score over the best other class.
	Functional float64
	// Geometric is Functional divided by the norm of the weights (the
	// Frobenius norm for multiclass, which is how Kesler's construction
	// measures it). With a separate bias the norm is ‖w‖ alone and
	// Geometric is the distance of the closest row to the hyperplane; with
	// BiasAugmented or NoBias the bias counts as a weight, as in the
	// theorem.
	Geometric float64
	// Radius R is the largest norm of a row; with BiasAugmented the
	// constant feature counts.
	Radius float64
	// Separable reports whether the model classifies every row correctly
	// with Functional > 0.
	Separable bool
	// Bound is the theorem's bound on mistakes with this model's direction
	// as the separator: (R/γ)² for binary, 2(R/γ)² for multiclass (the
	// Kesler construction doubles the row norm squared); +Inf when the
	// model does not separate the rows. A learned bias is a weight on a
	// constant feature (of value 1 for BiasSeparate), so for the bound γ
	// and R are taken in that augmented space whatever the bias mode.
	Bound float64
	// Errors counts the rows the model misclassifies (margin ≤ 0).
	Errors int
	// Rows is the number of rows measured.
	Rows int
}

// Margins measures m's margins and the radius of the rows of X with
// labels y. The labels must be among m's classes.
func Margins(m *Model, X *sparse.CSR, y []float64) (MarginStats, error) {
	if X == nil || X.Rows == 0 {
		return MarginStats{}, ErrNoData
	}
	if len(y) != X.Rows {
		return MarginStats{}, fmt.Errorf("%w: %d labels for %d rows", ErrLabels, len(y), X.Rows)
	}
	if m.Votes != nil {
		return MarginStats{}, fmt.Errorf("%w: a voted model has no single hyperplane; use its averaged weights", ErrConfig)
	}
	K := m.NumRows()
	var norm2 float64
	for _, w := range m.W {
		norm2 += float64(w) * float64(w)
	}
	// The bias as the weight of a constant feature of value A: the stored
	// bias is b·A. NoBias has A = 0 and b = 0.
	var a2, bnorm2 float64
	if A := float64(biasScale(m.BiasScale)); m.Bias != NoBias {
		a2 = A * A
		for _, b := range m.B {
			wb := float64(b) / A
			bnorm2 += wb * wb
		}
	}
	aug := 0.0 // what the constant feature adds to the reported radius
	normG := norm2
	if m.Bias == BiasAugmented {
		aug, normG = a2, norm2+bnorm2
	}
	var rAug float64 // radius in the augmented space, for the bound
	st := MarginStats{Functional: math.Inf(1), Rows: X.Rows}
	s := make([]float32, K)
	for i := 0; i < X.Rows; i++ {
		x := X.Row(i)
		c := classIndex(m.Classes, y[i]+0)
		if c < 0 {
			return MarginStats{}, fmt.Errorf("%w: row %d has label %v, not one of the model's classes %v", ErrUnknownLabel, i, y[i], m.Classes)
		}
		var r2 float64
		for _, v := range x.Val {
			r2 += float64(v) * float64(v)
		}
		if m.Normalize && r2 > 0 {
			r2 = 1 // the model sees x/‖x‖
		}
		st.Radius = math.Max(st.Radius, math.Sqrt(r2+aug))
		rAug = math.Max(rAug, math.Sqrt(r2+a2))
		m.scores(x, s)
		var mg float64
		if K == 1 {
			mg = float64(s[0])
			if c == 0 {
				mg = -mg
			}
		} else {
			mg = float64(s[c]) - float64(s[bestOther(s, c)])
		}
		if mg <= 0 {
			st.Errors++
		}
		st.Functional = math.Min(st.Functional, mg)
	}
	st.Geometric = ratio(st.Functional, math.Sqrt(normG))
	st.Separable = st.Errors == 0 && st.Functional > 0
	st.Bound = math.Inf(1)
	if g := ratio(st.Functional, math.Sqrt(norm2+bnorm2)); st.Separable && g > 0 && !math.IsInf(g, 0) {
		st.Bound = (rAug / g) * (rAug / g)
		if K > 1 {
			st.Bound *= 2
		}
	}
	return st, nil
}

// ratio is f/n with a zero norm giving ±Inf by the sign of f.
func ratio(f, n float64) float64 {
	if n == 0 {
		if f > 0 {
			return math.Inf(1)
		}
		return math.Inf(-1)
	}
	return f / n
}
