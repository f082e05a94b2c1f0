package engine

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/hyperplane-ml/hyperplane/asm"
	"github.com/hyperplane-ml/hyperplane/engine/calibrate"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
)

// MultiLabelConfig sets up FitMultiLabel. Its zero value is the default:
// one-vs-rest averaged perceptrons, 10 epochs, shuffled with seed 0,
// thresholds and probabilities fitted on a fifth of the rows held out.
type MultiLabelConfig struct {
	// Rule is each class's binary update rule: Perceptron (the zero
	// value), PA, PA1 or PA2 (with C). The SGD rules (Rule.SGD) are
	// refused: their steps depend on a regularization that one-vs-rest
	// would share across classes of very different sizes.
	Rule Rule
	// C is the PA rules' aggressiveness; 0 means 1.
	C float64
	// Epochs is the number of passes; 0 means 10.
	Epochs int
	// Seed draws the order of the rows in each epoch and the held-out
	// rows.
	Seed uint64
	// Ranking trains the ranking perceptron of Crammer and Singer (2003)
	// instead of one binary learner per class: a row moves the relevant
	// classes scored below an irrelevant one up and those irrelevant
	// classes down, each by its share of the mistake. A row with no
	// label moves every class scored above 0 down.
	Ranking bool
	// Holdout is the fraction of the rows the thresholds and the
	// probabilities are fitted on, by a model trained on the others,
	// before the final model is trained on all of them; 0 means 0.2. A
	// negative Holdout fits none: every threshold is 0 and Proba is the
	// logistic of the score.
	Holdout float64
}

// ThresholdFloor is the lowest threshold FitMultiLabel fits: half way
// from the decision point 0 to the -1 that the PA rules train an
// irrelevant class's score toward. On Reuters-21578 it measured best of
// the floors tried (-0.3, -0.5, none): with no floor the held-out cuts of
// rare classes let in so many false positives that micro-F1 fell below
// that of threshold 0.
const ThresholdFloor = -0.5

// MultiLabelModel is a linear multi-label classifier: one weight vector
// and bias per class, a class predicted when its score reaches its
// threshold. It is safe for concurrent use.
type MultiLabelModel struct {
	classes, dim int
	w            []float32 // feature-major: w[j*classes+c], as asm.AddScoresF32 reads it
	bias         []float32
	thresholds   []float32
	plattA       []float64 // per-class Platt scaling; nil: logistic of the score
	plattB       []float64
}

// Classes returns the number of classes.
func (m *MultiLabelModel) Classes() int { return m.classes }

// Dim returns the number of features.
func (m *MultiLabelModel) Dim() int { return m.dim }

// Thresholds returns a copy of the per-class thresholds.
func (m *MultiLabelModel) Thresholds() []float32 { return slices.Clone(m.thresholds) }

// SetThresholds replaces the per-class thresholds (nil: all 0). It
// returns an error wrapping ErrConfig if the count is not Classes() or a
// threshold is not finite.
func (m *MultiLabelModel) SetThresholds(t []float32) error {
	if t == nil {
		t = make([]float32, m.classes)
	}
	if len(t) != m.classes {
		return fmt.Errorf("%w: %d thresholds for %d classes", ErrConfig, len(t), m.classes)
	}
	for c, v := range t {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("%w: threshold of class %d is %v", ErrConfig, c, v)
		}
	}
	m.thresholds = slices.Clone(t)
	return nil
}

// Weight returns the weight of feature j for class c (0 for j out of
// range).
func (m *MultiLabelModel) Weight(c, j int) float32 {
	if j < 0 || j >= m.dim || c < 0 || c >= m.classes {
		return 0
	}
	return m.w[j*m.classes+c]
}

// Bias returns the bias of class c.
func (m *MultiLabelModel) Bias(c int) float32 { return m.bias[c] }

// Scores writes the score of every class for x into dst (grown to
// Classes()) and returns it. Features at or beyond Dim() are ignored.
func (m *MultiLabelModel) Scores(x sparse.Vector, dst []float32) []float32 {
	if cap(dst) < m.classes {
		dst = make([]float32, m.classes)
	}
	dst = dst[:m.classes]
	copy(dst, m.bias)
	ind, val := x.Ind, x.Val
	if n := sort.Search(len(ind), func(k int) bool { return int(ind[k]) >= m.dim }); n < len(ind) {
		ind, val = ind[:n], val[:n]
	}
	asm.AddScoresF32(m.w, ind, val, dst)
	return dst
}

// Predict appends to dst the classes of x whose score reaches their
// threshold, in increasing order, and returns it.
func (m *MultiLabelModel) Predict(x sparse.Vector, dst []int) []int {
	var buf [64]float32
	s := m.Scores(x, buf[:0])
	return m.decide(s, dst)
}

func (m *MultiLabelModel) decide(s []float32, dst []int) []int {
	for c, v := range s {
		if v >= m.thresholds[c] {
			dst = append(dst, c)
		}
	}
	return dst
}

// TopK appends to dst the k classes of x with the highest scores, best
// first (ties by class), and returns it.
func (m *MultiLabelModel) TopK(x sparse.Vector, k int, dst []int) []int {
	s := m.Scores(x, nil)
	return appendTopK(s, k, dst)
}

func appendTopK(s []float32, k int, dst []int) []int {
	k = min(max(k, 0), len(s))
	idx := make([]int, len(s))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return s[idx[a]] > s[idx[b]] })
	return append(dst, idx[:k]...)
}

// Proba writes into dst (grown to Classes()) the probability of each
// class for x, each on its own (they need not sum to 1): the per-class
// Platt scaling fitted on held-out rows, or the logistic of the score
// if none was fitted.
func (m *MultiLabelModel) Proba(x sparse.Vector, dst []float64) []float64 {
	s := m.Scores(x, nil)
	return m.ProbaOfScores(s, dst)
}

// ProbaOfScores is Proba from scores Scores gave.
func (m *MultiLabelModel) ProbaOfScores(s []float32, dst []float64) []float64 {
	if cap(dst) < len(s) {
		dst = make([]float64, len(s))
	}
	dst = dst[:len(s)]
	for c, v := range s {
		a, b := -1.0, 0.0
		if m.plattA != nil {
			a, b = m.plattA[c], m.plattB[c]
		}
		// Platt's form: P(positive) = 1 / (1 + exp(a·s + b)).
		f := a*float64(v) + b
		dst[c] = 1 / (1 + math.Exp(f))
	}
	return dst
}

// FitMultiLabel trains a multi-label model on the rows of X, Y[i] being
// the classes of row i, each in [0, classes); an empty Y[i] is a row with
// no label, a negative for every class. Each class is learned one
// against the rest by cfg.Rule on the same pass over the rows (every
// class scored at once), or all together by the ranking perceptron.
// Then, unless cfg.Holdout is negative, a model trained the same way on
// all but a held-out part of the rows fits each class's threshold (the
// one that maximizes its F1 on the held-out rows; 0 for a class with no
// held-out row), kept where it is below 0 but not below ThresholdFloor,
// and its Platt scaling, which the final model, trained
// on all rows, keeps.
//
// Errors wrap ErrNoData, ErrLabels (a class out of range), ErrConfig or
// ErrMemory.
func FitMultiLabel(ctx context.Context, X *sparse.CSR, Y [][]int, classes int, cfg MultiLabelConfig) (*MultiLabelModel, error) {
	switch {
	case X == nil || X.Rows == 0:
		return nil, ErrNoData
	case len(Y) != X.Rows:
		return nil, fmt.Errorf("%w: %d label lists for %d rows", ErrLabels, len(Y), X.Rows)
	case classes < 1:
		return nil, fmt.Errorf("%w: %d classes", ErrLabels, classes)
	case cfg.Rule != Perceptron && cfg.Rule != PA && cfg.Rule != PA1 && cfg.Rule != PA2:
		return nil, fmt.Errorf("%w: multi-label training takes the perceptron or a PA rule, not %v", ErrConfig, cfg.Rule)
	case cfg.Epochs < 0 || cfg.C < 0 || math.IsNaN(cfg.C) || cfg.Holdout >= 0.5 || math.IsNaN(cfg.Holdout):
		return nil, fmt.Errorf("%w: Epochs %d, C %v, Holdout %v", ErrConfig, cfg.Epochs, cfg.C, cfg.Holdout)
	}
	for i, y := range Y {
		for _, c := range y {
			if c < 0 || c >= classes {
				return nil, fmt.Errorf("%w: row %d has class %d, not in [0, %d)", ErrLabels, i, c, classes)
			}
		}
	}
	if err := budget.Check(0, budget.Mul(2*4, int64(X.Cols), int64(classes)), "a multi-label model's weights"); err != nil {
		return nil, err
	}
	if cfg.Epochs == 0 {
		cfg.Epochs = 10
	}
	if cfg.C == 0 {
		cfg.C = 1
	}
	if cfg.Holdout == 0 {
		cfg.Holdout = 0.2
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x6d6c))
	all := make([]int, X.Rows)
	for i := range all {
		all[i] = i
	}
	var thr []float32
	var pa, pb []float64
	if cfg.Holdout > 0 && X.Rows >= 10 {
		perm := slices.Clone(all)
		rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		nh := max(1, int(cfg.Holdout*float64(X.Rows)))
		held, rest := perm[:nh], perm[nh:]
		slices.Sort(rest)
		m, err := trainMultiLabel(ctx, X, Y, classes, rest, cfg, rng)
		if err != nil {
			return nil, err
		}
		thr, pa, pb = fitThresholds(m, X, Y, held)
	}
	m, err := trainMultiLabel(ctx, X, Y, classes, all, cfg, rng)
	if err != nil {
		return nil, err
	}
	if thr != nil {
		m.thresholds, m.plattA, m.plattB = thr, pa, pb
	}
	return m, nil
}

// trainMultiLabel runs the epochs over the rows rows of X and returns
// the averaged model, thresholds 0.
func trainMultiLabel(ctx context.Context, X *sparse.CSR, Y [][]int, K int, rows []int, cfg MultiLabelConfig, rng *rand.Rand) (*MultiLabelModel, error) {
	D := X.Cols
	w := make([]float32, D*K)
	u := make([]float32, D*K) // Σ t·Δw: the average is w - u/t
	b := make([]float64, K)
	ub := make([]float64, K)
	order := slices.Clone(rows)
	s := make([]float32, K)
	tau := make([]float64, K) // each class's signed step on this row
	tau32 := make([]float32, K)
	active := make([]int, 0, K)
	rel := make([]bool, K)
	t := 1.0
	for ep := 0; ep < cfg.Epochs; ep++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, i := range order {
			lo, hi := X.Indptr[i], X.Indptr[i+1]
			ind, val := X.Ind[lo:hi], X.Val[lo:hi]
			for c := range s {
				s[c] = float32(b[c])
			}
			asm.AddScoresF32(w, ind, val, s)
			for c := range rel {
				rel[c] = false
			}
			for _, c := range Y[i] {
				rel[c] = true
			}
			moved := false
			if cfg.Ranking {
				moved = rankingSteps(s, rel, tau)
			} else {
				var sq float64
				if cfg.Rule != Perceptron {
					sq = 1 // the bias's feature
					for _, v := range val {
						sq += float64(v) * float64(v)
					}
				}
				for c := range s {
					y := -1.0
					if rel[c] {
						y = 1
					}
					tau[c] = 0
					m := y * float64(s[c])
					switch cfg.Rule {
					case Perceptron:
						if m <= 0 {
							tau[c] = y
						}
					default:
						if loss := 1 - m; loss > 0 && sq > 0 {
							step := loss / sq
							switch cfg.Rule {
							case PA1:
								step = min(cfg.C, step)
							case PA2:
								step = loss / (sq + 1/(2*cfg.C))
							}
							tau[c] = y * step
						}
					}
					if tau[c] != 0 {
						moved = true
					}
				}
			}
			if moved {
				active = active[:0]
				for c, a := range tau {
					tau32[c] = float32(a)
					if a != 0 {
						active = append(active, c)
					}
				}
				// Each feature's K weights lie together: with many
				// classes to move, two dense axpys over them; with few,
				// those classes alone.
				dense := 4*len(active) >= K
				for k, j := range ind {
					row := w[int(j)*K : int(j)*K+K]
					urow := u[int(j)*K : int(j)*K+K]
					v := val[k]
					if dense {
						asm.AxpyF32(v, tau32, row)
						asm.AxpyF32(float32(t)*v, tau32, urow)
						continue
					}
					for _, c := range active {
						d := tau32[c] * v
						row[c] += d
						urow[c] += float32(t) * d
					}
				}
				for c, a := range tau {
					b[c] += a
					ub[c] += t * a
				}
			}
			t++
		}
	}
	m := &MultiLabelModel{classes: K, dim: D, w: w, bias: make([]float32, K), thresholds: make([]float32, K)}
	for k := range w {
		w[k] -= float32(float64(u[k]) / t)
	}
	for c := range b {
		m.bias[c] = float32(b[c] - ub[c]/t)
	}
	for _, v := range w {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return nil, ErrDiverged
		}
	}
	return m, nil
}

// rankingSteps sets tau to the ranking perceptron's steps for one row:
// each relevant class scored at or below the highest irrelevant one gets
// +1/r and each irrelevant class scored at or above the lowest relevant
// one -1/n, r and n their counts. With no relevant class, every class
// scored at or above 0 goes down; with every class relevant, every one
// below 0 goes up. It reports whether any step is not 0.
func rankingSteps(s []float32, rel []bool, tau []float64) bool {
	minRel, maxIrr := float32(math.Inf(1)), float32(math.Inf(-1))
	var nr, ni int
	for c, v := range s {
		if rel[c] {
			minRel = min(minRel, v)
			nr++
		} else {
			maxIrr = max(maxIrr, v)
			ni++
		}
	}
	if nr == 0 {
		minRel = 0
	}
	if ni == 0 {
		maxIrr = 0
	}
	var r, n int
	for c, v := range s {
		tau[c] = 0
		if rel[c] && v <= maxIrr {
			r++
		} else if !rel[c] && v >= minRel {
			n++
		}
	}
	if r+n == 0 {
		return false
	}
	for c, v := range s {
		if rel[c] && v <= maxIrr {
			tau[c] = 1 / float64(r)
		} else if !rel[c] && v >= minRel {
			tau[c] = -1 / float64(n)
		}
	}
	return true
}

// fitThresholds scores the held-out rows with m and returns each class's
// F1-maximizing threshold and Platt scaling (a, b).
func fitThresholds(m *MultiLabelModel, X *sparse.CSR, Y [][]int, held []int) ([]float32, []float64, []float64) {
	K := m.classes
	scores := make([][]float32, K)
	pos := make([][]bool, K)
	s := make([]float32, K)
	rel := make([]bool, K)
	for _, i := range held {
		s = m.Scores(X.Row(i), s)
		for c := range rel {
			rel[c] = false
		}
		for _, c := range Y[i] {
			rel[c] = true
		}
		for c := range s {
			scores[c] = append(scores[c], s[c])
			pos[c] = append(pos[c], rel[c])
		}
	}
	thr := make([]float32, K)
	pa, pb := make([]float64, K), make([]float64, K)
	for c := range K {
		// A fitted threshold only ever lowers a class's bar from the
		// score's own 0, and at most to ThresholdFloor: lowering it
		// lets rare classes, whose scores seldom reach 0, be predicted
		// at all, but the F1-best cut on a few held-out positives
		// often falls far among the negatives, and such cuts cost
		// more on new rows (many false positives of that class) than
		// they gain.
		thr[c] = max(min(bestF1Threshold(scores[c], pos[c]), 0), ThresholdFloor)
		pa[c], pb[c] = -1, 0
		if cal, err := calibrate.FitPlatt(scores[c], pos[c]); err == nil {
			if a, b, ok := cal.Platt(); ok {
				pa[c], pb[c] = a, b
			}
		}
	}
	return thr, pa, pb
}

// bestF1Threshold returns the threshold on scores that maximizes the F1
// of the rows it puts at or above it, against positive: the midpoint
// between the lowest score taken and the next below it. With no
// positive row it is 0, the score's own decision.
func bestF1Threshold(scores []float32, positive []bool) float32 {
	n := len(scores)
	var npos int
	for _, p := range positive {
		if p {
			npos++
		}
	}
	if npos == 0 {
		return 0
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return scores[idx[a]] > scores[idx[b]] })
	best, bestK := -1.0, 0
	tp := 0
	for k := 0; k < n; k++ {
		if positive[idx[k]] {
			tp++
		}
		// Cut only between distinct scores.
		if k+1 < n && scores[idx[k+1]] == scores[idx[k]] {
			continue
		}
		f1 := 2 * float64(tp) / float64(k+1+npos)
		if f1 > best {
			best, bestK = f1, k
		}
	}
	if bestK+1 < n {
		return (scores[idx[bestK]] + scores[idx[bestK+1]]) / 2
	}
	return scores[idx[bestK]]
}
