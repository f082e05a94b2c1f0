package engine

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/hyperplane-ml/hyperplane/asm"
	"github.com/hyperplane-ml/hyperplane/kernels"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
)

// KernelConfig sets up FitKernel, the dual (kernel) perceptron. Its zero
// value is the documented default: the averaged kernel perceptron with an
// RBF kernel of γ = 1/(Dim·Var(X)) (scikit-learn's gamma="scale"), 10
// epochs, learning rate 1, a separate bias, rows shuffled every epoch
// with seed 0, an update only on a mistake, no cap on support vectors,
// and a Gram matrix of up to kernels.DefaultBudget bytes.
type KernelConfig struct {
	// Config holds the settings every learner shares, which mean what
	// they mean for Fit: Algorithm is Averaged, Plain or Voted in their
	// dual forms (Batch has none here); Rule is Perceptron or, with
	// Averaged or Plain, the passive-aggressive PA, PA1 and PA2 in their
	// dual forms, where ‖x‖² is the kernel's K(x, x) plus the bias's
	// BiasScale² (the SGD rules have none here); BiasAugmented adds
	// BiasScale² to every kernel value, which is the same as learning b
	// with that gain;
	// Epochs, C, LearningRate, Margin, NoShuffle, Seed, ClassWeight,
	// Balanced, MaxClasses and MemoryBudget as in Fit. OnEpoch is called
	// after every epoch with its EpochStats (OnKernelEpoch has the kernel
	// counters too). The options of the primal learners only (Normalize,
	// InitScale, Validation, SampleWeight, TrainLoss, Workers > 1 and Warm) are
	// refused with ErrConfig; Patience and MaxDim, which do nothing
	// without them, are ignored as Fit ignores them.
	Config
	// Kernel is the kernel function; nil means the RBF kernel above.
	Kernel kernels.Kernel
	// MaxSupportVectors, when > 0, caps the number of support vectors,
	// for long streams; it needs Algorithm Plain. When an update would
	// add one more, the support vector whose removal can change the
	// function least is removed first: removing x_j changes f(x) by
	// α_j·K(x_j, x), at most ‖α_j‖·√K(x_j,x_j)·√K(x,x) (Cauchy–Schwarz in
	// feature space), so the smallest ‖α_j‖·√K(x_j,x_j) goes, the oldest
	// on ties. Unlike the Forgetron's oldest-first rule it keeps the
	// vectors that mistakes have piled weight on. What a removed vector
	// added to the bias stays.
	MaxSupportVectors int
	// Gram bounds the memory of the kernel matrix (Gram.Budget, in bytes;
	// 0 means kernels.DefaultBudget). By default a row is computed when an
	// update first needs it, which is only for support vectors, and kept
	// while it fits (least recently used out first); Gram.Precompute
	// computes the whole matrix first, which pays when most rows become
	// support vectors.
	Gram kernels.Options
	// OnKernelEpoch, when not nil, is called after every epoch with its
	// KernelEpochStats, before Config.OnEpoch; a non-nil error stops
	// training and FitKernel returns it. It serves progress reports that
	// show the support vectors and the Gram matrix's use.
	OnKernelEpoch func(KernelEpochStats) error
}

// KernelEpochStats reports one epoch of FitKernel: the fields of
// EpochStats (TrainLoss and ValidAccuracy are NaN, TrainMistakes −1), the
// number of support vectors after it, and the Gram matrix's counters.
type KernelEpochStats struct {
	EpochStats
	SupportVectors int
	Removed        int // support vectors removed by the budget in the epoch
	Gram           kernels.Stats
}

// ScaleGamma returns scikit-learn's gamma="scale" for X: 1/(Dim·Var),
// the variance over every entry of X, zeros included (1 if that is 0).
// The variance is computed in two passes (the mean first), which keeps it
// exact for constant data and accurate when the values vary little
// around a large mean. A nil X has no entries, and gives 1.
func ScaleGamma(X *sparse.CSR) float64 {
	if X == nil {
		return 1
	}
	cells := float64(X.Rows) * float64(X.Cols)
	if cells == 0 {
		return 1
	}
	var s float64
	for _, v := range X.Val {
		s += float64(v)
	}
	mean := s / cells
	zeros := cells - float64(len(X.Val))
	ss := zeros * mean * mean
	for _, v := range X.Val {
		d := float64(v) - mean
		ss += d * d
	}
	v := ss / cells
	if !(v > 0) {
		return 1
	}
	return 1 / (float64(X.Cols) * v)
}

// dual is the state of the dual perceptron while it trains. Row i of the
// data has coefficients alpha[i*K:(i+1)*K] (signed: the weight vector of
// class c is Σ_i alpha[i*K+c]·φ(x_i)), and F holds the current function
// values f_c(x_j) = Σ_i alpha[i*K+c]·K(x_i, x_j) of every training row,
// class-major, so that judging a row costs O(K) and an update O(n·2) —
// one axpy of a Gram row per class it touches.
type dual struct {
	s       settings
	kern    kernels.Kernel
	gram    kernels.Gram
	n, K    int
	cls     []int32
	cw      []float32
	alpha   []float32
	F       []float32 // K×n
	b       []float32
	u       []float64 // averaging accumulators, n×K (nil for Plain)
	ub      []float64
	c       float64
	bb      float32
	scores  []float32
	isSV    []bool
	born    []int64 // when each support vector entered, for the budget's ties
	nsv     int
	budget  int
	removed int
	steps   []VoteStep
	count0  int64
}

// Check reports whether FitKernel accepts cfg, before any data: nil, or
// an error wrapping ErrConfig that names the option. FitKernel calls it
// first itself.
func (cfg KernelConfig) Check() error {
	_, err := cfg.settle()
	return err
}

// settle is Config.settle with the kernel learners' own refusals.
func (cfg KernelConfig) settle() (settings, error) {
	s, err := cfg.Config.settle()
	if err != nil {
		return settings{}, err
	}
	switch {
	case cfg.Normalize, cfg.InitScale != 0, cfg.Validation != 0, cfg.SampleWeight != nil, cfg.TrainLoss, cfg.Workers > 1, cfg.Warm != nil, s.scaled():
		return settings{}, fmt.Errorf("%w: Normalize, InitScale, Validation, SampleWeight, TrainLoss, Workers, Warm and Scale have no kernel form here", ErrConfig)
	case cfg.Algorithm == Batch:
		return settings{}, fmt.Errorf("%w: the batch perceptron has no kernel form here", ErrConfig)
	case cfg.Rule.SGD():
		return settings{}, fmt.Errorf("%w: rule %v has no kernel form here; use PA1 or PA2", ErrConfig, cfg.Rule)
	case cfg.MaxSupportVectors < 0:
		return settings{}, fmt.Errorf("%w: MaxSupportVectors %d < 0 (the most support vectors to keep; 0 for no cap)", ErrConfig, cfg.MaxSupportVectors)
	case cfg.MaxSupportVectors > 0 && cfg.Algorithm != Plain:
		// The voted perceptron votes with every vector it had. The
		// averaged one has no good form either: its average either keeps
		// every removed vector (no cap on the model) or averages only the
		// vectors that remain, each over the short time it was present,
		// against a bias averaged over the whole run; on 3000 rows of a8a
		// with a budget of 500 that model put every row in one class.
		return settings{}, fmt.Errorf("%w: MaxSupportVectors needs Algorithm Plain (an averaged or voted model would have to keep the vectors it removes)", ErrConfig)
	}
	return s, nil
}

// FitKernel trains a kernel perceptron on the rows of X with labels y:
// binary for two labels, one function per class (argmax) for more. Rows
// of the Gram matrix are computed as updates need them and cached within
// cfg.Gram.Budget (see KernelConfig.Gram). Cancellation
// and errors behave as in Fit: on ctx's end or an OnEpoch or OnKernelEpoch error, the model
// so far is returned with the error.
func FitKernel(ctx context.Context, X *sparse.CSR, y []float64, cfg KernelConfig) (*KernelModel, []KernelEpochStats, error) {
	s, err := cfg.settle()
	if err != nil {
		return nil, nil, err
	}
	if err := checkLabeledRows(X, y); err != nil {
		return nil, nil, err
	}
	if X.Rows > math.MaxInt32 {
		return nil, nil, fmt.Errorf("%w: %d rows", ErrDim, X.Rows)
	}
	if err := checkData(X); err != nil {
		return nil, nil, err
	}
	k, err := cfg.kernelFor(X)
	if err != nil {
		return nil, nil, err
	}
	classes, err := classesOf(y, s.maxClass)
	if err != nil {
		return nil, nil, err
	}
	if err := checkClassWeights(s.ClassWeight, classes); err != nil {
		return nil, nil, err
	}
	n := X.Rows
	cls := make([]int32, n)
	for i, v := range y {
		cls[i] = int32(classIndex(classes, v+0))
	}
	d, err := newDual(s, cfg, k, X, classes, cls)
	if err != nil {
		return nil, nil, err
	}
	kf := &kernelFitter{d: d, X: X, classes: classes, onEpoch: cfg.OnKernelEpoch,
		rng: rand.New(rand.NewPCG(s.Seed, 0x9e3779b97f4a7c15)), order: make([]int32, n)}
	for i := range kf.order {
		kf.order[i] = int32(i)
	}
	m, _, err := drive(ctx, &d.s, kf)
	return m, kf.stats, err
}

// checkLabeledRows checks that X has rows and y a label for each.
func checkLabeledRows(X *sparse.CSR, y []float64) error {
	if X == nil || X.Rows == 0 {
		return ErrNoData
	}
	if len(y) != X.Rows {
		return fmt.Errorf("%w: %d labels for %d rows", ErrLabels, len(y), X.Rows)
	}
	return nil
}

// kernelFor returns the kernel to train with on X: cfg.Kernel, or by
// default the RBF kernel of gamma ScaleGamma(X), checked.
func (cfg KernelConfig) kernelFor(X *sparse.CSR) (kernels.Kernel, error) {
	k := cfg.Kernel
	if k == nil {
		g := ScaleGamma(X)
		if !(g <= kernels.MaxParam) {
			// The default kernel is the data's doing, not the caller's:
			// say so, rather than report a gamma nobody set.
			return nil, fmt.Errorf("%w: the default RBF gamma 1/(features·variance) is %.3g for these rows, past kernels.MaxParam = %g: their values are too small (variance %.3g); scale the features or set Kernel", ErrConfig, g, kernels.MaxParam, 1/(g*float64(X.Cols)))
		}
		k = kernels.RBF{Gamma: g}
	}
	if err := kernels.Check(k); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return k, nil
}

// newDual returns the zero dual of the kernel learner of s for the rows
// of X with class indices cls of classes: its Gram matrix, its
// coefficients and scores, with averaging their sums, and the class
// weights, after checking their memory against the budget.
func newDual(s settings, cfg KernelConfig, k kernels.Kernel, X *sparse.CSR, classes []float64, cls []int32) (*dual, error) {
	// The dual holds, per row and weight vector, α, the scores F and
	// with averaging their sums, beside the Gram matrix's own budget.
	n, K := X.Rows, weightRows(classes)
	gb := cfg.Gram.Budget
	if gb <= 0 {
		gb = kernels.DefaultBudget
	}
	need := budget.Add(budget.Mul(int64(n), int64(K), 16), budget.Mul(int64(n), 8), gb)
	if err := budget.Check(s.MemoryBudget, need, fmt.Sprintf("the dual of %d rows × %d weight vectors and a Gram matrix of %s", n, K, budget.Format(gb))); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMemory, err)
	}
	gram, err := kernels.NewGram(k, kernels.NewData(X), cfg.Gram)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	d := &dual{
		s: s, kern: k, gram: gram, n: n, K: K, cls: cls,
		alpha:  make([]float32, n*K),
		F:      make([]float32, K*n),
		b:      make([]float32, K),
		scores: make([]float32, K),
		isSV:   make([]bool, n),
		born:   make([]int64, n),
		bb:     s.biasScale * s.biasScale,
		budget: cfg.MaxSupportVectors,
	}
	// Class weights as the primal learner computes them.
	st := &state{s: s, classes: classes}
	st.classWeights(cls)
	d.cw = st.cw
	if s.Algorithm != Plain {
		d.u = make([]float64, n*K)
		d.ub = make([]float64, K)
	}
	return d, nil
}

// kernelFitter runs the epochs of FitKernel.
type kernelFitter struct {
	d       *dual
	X       *sparse.CSR
	classes []float64
	rng     *rand.Rand
	order   []int32
	stats   []KernelEpochStats
	onEpoch func(KernelEpochStats) error
}

// epoch is one pass of the dual learner over the rows.
func (f *kernelFitter) epoch(ctx context.Context, e int, more bool) (EpochStats, error) {
	d := f.d
	if !d.s.NoShuffle {
		shuffle(f.rng, f.order)
	}
	d.removed = 0
	var ps passStats
	for p, i := range f.order {
		if err := cancelledAt(ctx, p); err != nil {
			return ps.stats(d.n), err
		}
		ps.add(d.step(int(i)))
	}
	return ps.stats(d.n), nil
}

func (f *kernelFitter) check(e int) error {
	if !finite32s(f.d.F) || !finite32s(f.d.b) {
		return fmt.Errorf("%w: kernel function values overflowed in epoch %d (lower the polynomial degree or γ, or scale the features; a user kernel may have returned NaN or Inf)", ErrDiverged, e)
	}
	return nil
}

func (f *kernelFitter) model() *KernelModel { return f.d.model(f.X, f.classes) }

// evaluate measures nothing more (KernelConfig has no TrainLoss or
// Validation).
func (f *kernelFitter) evaluate(*EpochStats) (*KernelModel, bool) { return nil, false }

// record keeps the epoch's statistics with the dual's counters and hands
// them to KernelConfig.OnKernelEpoch.
func (f *kernelFitter) record(es EpochStats) error {
	d := f.d
	ks := KernelEpochStats{EpochStats: es, SupportVectors: d.nsv, Removed: d.removed, Gram: d.gram.Stats()}
	f.stats = append(f.stats, ks)
	if f.onEpoch != nil {
		return f.onEpoch(ks)
	}
	return nil
}

// countLeft counts the examples of the epochs left after convergence for
// the final vector, as Fit does for the averaged and voted models.
func (f *kernelFitter) countLeft(extra int64) {
	d := f.d
	d.c += float64(extra)
	if len(d.steps) > 0 {
		d.steps[len(d.steps)-1].Count += extra
	} else {
		d.count0 += extra
	}
}

// step learns training row i and returns what it did.
func (d *dual) step(i int) (o outcome) {
	K, n, c := d.K, d.n, int(d.cls[i])
	weight := float32(1)
	if d.cw != nil {
		weight = d.cw[c]
	}
	var m float32
	up, down := 0, -1
	var a float32
	y := float32(1)
	if K == 1 {
		if c == 0 {
			y = -1
		}
		m = y * (d.F[i] + d.b[0])
		a = d.s.eta * weight * y
	} else {
		s := d.scores
		for k := range K {
			s[k] = d.F[k*n+i] + d.b[k]
		}
		r := bestOther(s, c)
		m = s[c] - s[r]
		up, down = c, r
		a = d.s.eta * weight
	}
	if m <= 0 {
		o.mistake, o.loss = true, -m
		if traceMistake != nil {
			traceMistake(i)
		}
	}
	if d.s.Rule != Perceptron {
		// The passive-aggressive step, with K(x_i, x_i) for ‖x‖².
		a = 0
		if l := 1 - m; l > 0 && weight > 0 {
			q := (d.gram.Diag(i) + d.bb)
			if K > 1 {
				q *= 2
			}
			if q > 0 {
				a = paStep(d.s.Rule, l, q, d.s.cAgg*weight)
				if d.s.Rule == PA {
					a *= weight // PA has no C for the weight to scale
				}
				a *= y
			}
		}
		if a != 0 {
			o.update = true
			d.update(i, up, down, a)
		}
	} else if m <= d.s.tau && weight > 0 {
		o.update = true
		d.update(i, up, down, a)
	}
	d.c++
	if d.s.Algorithm == Voted {
		if len(d.steps) > 0 {
			d.steps[len(d.steps)-1].Count++
		} else {
			d.count0++
		}
	}
	return o
}

// update adds a·φ(x_i) to class up's function and, for multiclass,
// subtracts it from class down's.
func (d *dual) update(i, up, down int, a float32) {
	K, n := d.K, d.n
	if !d.isSV[i] {
		if d.budget > 0 && d.nsv >= d.budget {
			d.evict(i)
		}
		d.isSV[i], d.born[i] = true, int64(d.c)
		d.nsv++
	}
	row := d.gram.Row(i)
	ca := d.c * float64(a)
	d.alpha[i*K+up] += a
	asm.AxpyF32(a, row, d.F[up*n:(up+1)*n])
	d.b[up] += a * d.bb
	if d.u != nil {
		d.u[i*K+up] += ca
		d.ub[up] += ca * float64(d.bb)
	}
	if down >= 0 {
		d.alpha[i*K+down] -= a
		asm.AxpyF32(-a, row, d.F[down*n:(down+1)*n])
		d.b[down] -= a * d.bb
		if d.u != nil {
			d.u[i*K+down] -= ca
			d.ub[down] -= ca * float64(d.bb)
		}
	}
	if d.s.Algorithm == Voted {
		d.steps = append(d.steps, VoteStep{Row: int32(i), Up: int32(up), Down: int32(down), A: a})
	}
}

// evict removes the support vector whose removal moves the function
// least: f changes by α_j·K(x_j, ·), whose value at any x is at most
// ‖α_j‖·√K(x_j,x_j)·√K(x,x) (Cauchy–Schwarz in the feature space), so the
// smallest ‖α_j‖·√K(x_j,x_j) goes, the oldest on ties. Row keep is about
// to become one and is not a candidate. (Only Plain has a budget, so there
// is no average to mend.)
func (d *dual) evict(keep int) {
	K, n := d.K, d.n
	best, bestScore, bestBorn := -1, math.Inf(1), int64(math.MaxInt64)
	for j, sv := range d.isSV {
		if !sv || j == keep {
			continue
		}
		var a2 float64
		for _, v := range d.alpha[j*K : (j+1)*K] {
			a2 += float64(v) * float64(v)
		}
		sc := math.Sqrt(a2 * max(float64(d.gram.Diag(j)), 0))
		if sc < bestScore || (sc == bestScore && d.born[j] < bestBorn) {
			best, bestScore, bestBorn = j, sc, d.born[j]
		}
	}
	if best < 0 {
		return
	}
	j := best
	row := d.gram.Row(j)
	for k := range K {
		if a := d.alpha[j*K+k]; a != 0 {
			asm.AxpyF32(-a, row, d.F[k*n:(k+1)*n])
		}
		d.alpha[j*K+k] = 0
	}
	d.isSV[j] = false
	d.nsv--
	d.removed++
}

// model builds the model of this moment: the support vectors with their
// last coefficients (Plain) or their averages (Averaged and Voted; the
// voted model also carries its steps).
func (d *dual) model(X *sparse.CSR, classes []float64) *KernelModel {
	K := d.K
	coef := func(i, k int) float32 {
		a := d.alpha[i*K+k]
		if d.u != nil && d.c > 0 {
			return float32(float64(a) - d.u[i*K+k]/d.c)
		}
		return a
	}
	svOf := make([]int32, d.n)
	var rows []int
	for i := range d.n {
		svOf[i] = -1
		keep := false
		for k := range K {
			if coef(i, k) != 0 {
				keep = true
			}
		}
		if d.s.Algorithm == Voted && d.isSV[i] {
			keep = true
		}
		if keep {
			svOf[i] = int32(len(rows))
			rows = append(rows, i)
		}
	}
	m := &KernelModel{
		Kernel: d.kern, Algorithm: d.s.Algorithm, Rule: d.s.Rule, Bias: d.s.Bias, BiasScale: d.s.biasScale,
		Classes: classes, Dim: X.Cols,
		SV:   X.SelectRows(rows),
		Coef: make([]float32, len(rows)*K),
		B:    make([]float32, K),
	}
	for r, i := range rows {
		for k := range K {
			m.Coef[r*K+k] = coef(i, k)
		}
	}
	for k := range K {
		m.B[k] = d.b[k]
		if d.u != nil && d.c > 0 {
			m.B[k] = float32(float64(d.b[k]) - d.ub[k]/d.c)
		}
	}
	if d.s.Algorithm == Voted {
		v := &Votes{SV: m.SV, Steps: make([]VoteStep, len(d.steps)), Count0: d.count0}
		for t, st := range d.steps {
			st.Row = svOf[st.Row]
			v.Steps[t] = st
		}
		m.Votes = v
	}
	return m
}
