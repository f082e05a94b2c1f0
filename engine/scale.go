package engine

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
)

// Scale is a per-feature scaling that Fit applies to the training rows
// before learning (Config.Scale), so that features measured in very
// different units weigh alike in the margin of the large-margin rules.
type Scale uint8

const (
	// NoScale learns from the values as given. It is the default.
	NoScale Scale = iota
	// Standardize maps feature j to (x_j − mean_j)/sd_j over the training
	// rows (scikit-learn's StandardScaler): what dense numeric data with
	// columns in different units needs. Centering makes every value of a
	// row nonzero, so the rows Fit learns from are dense: a copy of
	// rows × features values, within MemoryBudget.
	Standardize
	// MaxAbs maps feature j to x_j/max|x_j| over the training rows
	// (scikit-learn's MaxAbsScaler): every feature in [−1, 1], zeros kept
	// zero, so sparse rows stay sparse.
	MaxAbs
)

var scaleNames = [...]string{"none", "standard", "maxabs"}

// String returns the name ParseScale reads.
func (s Scale) String() string { return enumString(s, scaleNames[:], "Scale") }

// ParseScale reads "none", "standard" or "maxabs".
func ParseScale(s string) (Scale, error) {
	return parseEnum[Scale](s, scaleNames[:], "scaling", "none, standard or maxabs")
}

// Scaling is the per-feature map a model's learner saw its rows through:
// feature j entered training as (x_j − Center[j])·Factor[j]. A model
// holds it (Model.Scaling) as a record, for continuing its training
// (Model.Warm) and for people: its weights and biases already include
// it, so that it scores raw rows with the same arithmetic as any other
// model.
type Scaling struct {
	Kind Scale
	// Factor holds one positive finite factor per feature (Dim of them);
	// Center one finite value per feature for Standardize, nil for MaxAbs.
	Factor, Center []float32
}

// check verifies that s can scale dim features.
func (s *Scaling) check(dim int) error {
	switch {
	case s.Kind != Standardize && s.Kind != MaxAbs:
		return fmt.Errorf("unknown scaling %d", s.Kind)
	case len(s.Factor) != dim:
		return fmt.Errorf("%d scaling factors for %d features", len(s.Factor), dim)
	case (s.Kind == Standardize) != (s.Center != nil):
		return fmt.Errorf("centers present only and always for standard scaling")
	case s.Center != nil && len(s.Center) != dim:
		return fmt.Errorf("%d scaling centers for %d features", len(s.Center), dim)
	}
	for j, f := range s.Factor {
		if !(f > 0) || math.IsInf(float64(f), 0) {
			return fmt.Errorf("scaling factor %v of feature %d is not positive and finite", f, j)
		}
	}
	for j, c := range s.Center {
		if math.IsNaN(float64(c)) || math.IsInf(float64(c), 0) {
			return fmt.Errorf("scaling center %v of feature %d is not finite", c, j)
		}
	}
	return nil
}

// fitScaling measures the scaling kind of the dim first features of X's
// rows. A feature that is constant (or absent) keeps the factor 1.
func fitScaling(X *sparse.CSR, kind Scale, dim int, limit int64) (*Scaling, error) {
	// Two float64 sums and two float32 values a feature at most: the
	// width is only the largest index the rows name, so it is checked.
	if err := budget.Check(limit, budget.Mul(int64(dim), 24), "the feature scaling (features × 24 bytes)"); err != nil {
		return nil, err
	}
	s := &Scaling{Kind: kind, Factor: make([]float32, dim)}
	n := float64(X.Rows)
	switch kind {
	case MaxAbs:
		mx := make([]float64, dim)
		for i, j := range X.Ind {
			if int(j) < dim {
				mx[j] = max(mx[j], math.Abs(float64(X.Val[i])))
			}
		}
		for j, v := range mx {
			s.Factor[j] = scaleFactor(1 / v)
		}
	case Standardize:
		sum, sq := make([]float64, dim), make([]float64, dim)
		for i, j := range X.Ind {
			if int(j) < dim {
				v := float64(X.Val[i])
				sum[j] += v
				sq[j] += v * v
			}
		}
		s.Center = make([]float32, dim)
		for j := range dim {
			mean := sum[j] / n
			// (Σx² − n·mean²)/n, the population variance as
			// scikit-learn's StandardScaler takes it; a value that
			// rounding takes below 0 is a constant feature.
			v := (sq[j] - n*mean*mean) / n
			s.Center[j] = float32(mean)
			s.Factor[j] = scaleFactor(1 / math.Sqrt(max(v, 0)))
		}
	default:
		return nil, fmt.Errorf("%w: unknown scaling %d", ErrConfig, kind)
	}
	for j, c := range s.Center {
		if math.IsNaN(float64(c)) || math.IsInf(float64(c), 0) {
			return nil, fmt.Errorf("%w: feature %d: values whose mean is not finite", ErrDiverged, j)
		}
	}
	return s, nil
}

// scaleFactor returns f as a float32 factor, or 1 where the feature has
// no spread to scale (f infinite: a constant or absent feature) or f
// leaves float32's range.
func scaleFactor(f float64) float32 {
	if g := float32(f); g > 0 && !math.IsInf(float64(g), 0) && !math.IsNaN(f) {
		return g
	}
	return 1
}

// apply returns X's rows scaled by s, X.Cols wide (at least len(s.Factor)):
// for MaxAbs the same nonzeros, for Standardize every one of the scaled
// features (their centered value is not zero), within limit bytes. X is
// not changed.
func (s *Scaling) apply(X *sparse.CSR, limit int64) (*sparse.CSR, error) {
	dim := len(s.Factor)
	cols := max(X.Cols, dim)
	if s.Center == nil {
		out := &sparse.CSR{Rows: X.Rows, Cols: cols, Indptr: X.Indptr, Ind: X.Ind, Val: make([]float32, len(X.Val))}
		for i, j := range X.Ind {
			out.Val[i] = X.Val[i]
			if int(j) < dim {
				out.Val[i] *= s.Factor[j]
			}
		}
		return out, nil
	}
	// A row's features below dim, all of them, then those past dim as
	// they are (they weigh zero in the model, but Normalize and the
	// margins count them).
	var past int64
	for _, j := range X.Ind {
		if int(j) >= dim {
			past++
		}
	}
	nnz := budget.Add(budget.Mul(int64(X.Rows), int64(dim)), past)
	if err := budget.Check(limit, budget.Mul(nnz, 8), "the standardized rows (rows × features × 8 bytes)"); err != nil {
		return nil, err
	}
	out := &sparse.CSR{Rows: X.Rows, Cols: cols, Indptr: make([]int64, X.Rows+1), Ind: make([]int32, 0, nnz), Val: make([]float32, 0, nnz)}
	row := make([]float32, dim)
	for r := range X.Rows {
		for j := range row {
			row[j] = 0
		}
		lo, hi := X.Indptr[r], X.Indptr[r+1]
		for p := lo; p < hi; p++ {
			if j := X.Ind[p]; int(j) < dim {
				row[j] = X.Val[p]
			}
		}
		for j, v := range row {
			out.Ind = append(out.Ind, int32(j))
			out.Val = append(out.Val, (v-s.Center[j])*s.Factor[j])
		}
		for p := lo; p < hi; p++ {
			if j := X.Ind[p]; int(j) >= dim {
				out.Ind = append(out.Ind, j)
				out.Val = append(out.Val, X.Val[p])
			}
		}
		out.Indptr[r+1] = int64(len(out.Ind))
	}
	return out, nil
}

// fold turns m, trained on rows scaled by s, into the model of raw rows:
// the weight of feature j becomes w_j·Factor[j] and each bias loses
// Σ_j w_j·Factor[j]·Center[j]; m then records s.
func (s *Scaling) fold(m *Model) {
	K := m.NumRows()
	shift := make([]float64, K)
	for p := range m.stored() {
		j := p
		if m.Cols != nil {
			j = int(m.Cols[p])
		}
		if j >= len(s.Factor) {
			continue
		}
		for k := range K {
			w := m.W[p*K+k] * s.Factor[j]
			m.W[p*K+k] = w
			if s.Center != nil {
				shift[k] += float64(w) * float64(s.Center[j])
			}
		}
	}
	for k := range K {
		m.B[k] = float32(float64(m.B[k]) - shift[k])
	}
	m.Scaling = s
}

// Warm returns m as a state that Config.Warm can start training from,
// with Config.Scaling set to m.Scaling: its weights and biases as its
// learner saw them (before a scaling was folded in), all Dim features of
// them, and no averaging history (a model keeps the average, not the
// vectors it averaged, so the new epochs average from it afresh). A voted
// model has no such state (ErrConfig).
func (m *Model) Warm() (*Mix, error) {
	if m.Votes != nil {
		return nil, fmt.Errorf("%w: a voted model keeps its mistakes, not a state to continue from", ErrConfig)
	}
	K := m.NumRows()
	if err := budget.Check(0, budget.Mul(int64(m.Dim), int64(K), 4), "the warm start's weights"); err != nil {
		return nil, err
	}
	mix := &Mix{Classes: slices.Clone(m.Classes), Dim: m.Dim, W: make([]float32, m.Dim*K), B: slices.Clone(m.B)}
	s := m.Scaling
	shift := make([]float64, K)
	for p := range m.stored() {
		j := p
		if m.Cols != nil {
			j = int(m.Cols[p])
		}
		for k := range K {
			w := m.W[p*K+k]
			if s != nil {
				if s.Center != nil {
					shift[k] += float64(w) * float64(s.Center[j])
				}
				w /= s.Factor[j]
			}
			mix.W[j*K+k] = w
		}
	}
	for k := range K {
		mix.B[k] = float32(float64(mix.B[k]) + shift[k])
	}
	return mix, nil
}

// fitScaled is Fit with Config.Scale or Config.Scaling: it scales X's rows
// (by Scaling, or by a scaling of Scale measured on them), trains on them
// and folds the scaling into the model.
func fitScaled(ctx context.Context, X *sparse.CSR, y []float64, s settings) (*Model, []EpochStats, error) {
	sc := s.Scaling
	if sc != nil && X.Cols > len(sc.Factor) {
		return nil, nil, fmt.Errorf("%w: rows of %d features are wider than the scaling's %d", ErrDim, X.Cols, len(sc.Factor))
	}
	if sc == nil {
		dim := X.Cols
		if s.Warm != nil {
			dim = max(dim, s.Warm.Dim)
		}
		var err error
		if sc, err = fitScaling(X, s.Scale, dim, s.MemoryBudget); err != nil {
			return nil, nil, err
		}
	}
	if err := X.Validate(); err != nil {
		return nil, nil, dataErr(err)
	}
	Xs, err := sc.apply(X, s.MemoryBudget)
	if err != nil {
		return nil, nil, err
	}
	m, stats, err := fit(ctx, Xs, nil, y, s, true)
	if m != nil {
		sc.fold(m)
	}
	return m, stats, err
}
