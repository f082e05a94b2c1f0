package engine

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"sync"
	"unsafe"

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
	// probabilities are fitted on; 0 means 0.2. With a PA rule they are
	// the last rows of the first epoch's shuffled order, scored by the
	// averaged model of the rows before them, before they are learned
	// in their turn: one training gives the thresholds and the model,
	// trained on all the rows. The perceptron's and the ranking
	// perceptron's scores grow with the epochs, so theirs are scored by
	// a model trained with every epoch on the other rows, before the
	// final model is trained on all of them. A negative Holdout fits
	// none: every threshold is 0 and Proba is the logistic of the score.
	Holdout float64
	// Threads is the most goroutines one-vs-rest training runs on, each
	// learning its share of the classes (at least 16 of them) on the
	// same orders of the rows; 0 means GOMAXPROCS. The model does not
	// depend on it. The ranking perceptron runs on one.
	Threads int
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
	// w holds the weights in blocks of classes, each feature-major as
	// asm.AddScoresF32 reads it: the classes [c0, c1) of a block from
	// w[dim·c0] on, class c of feature j at w[dim·c0 + j·(c1-c0) + c-c0].
	// split lists the blocks' bounds (0, ..., classes); nil is one
	// block, w[j·classes+c]. Training in parts leaves one block a part.
	w          []float32
	split      []int
	bias       []float32
	thresholds []float32
	plattA     []float64 // per-class Platt scaling; nil: logistic of the score
	plattB     []float64
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
	c0, c1 := 0, m.classes
	for b := 1; b < len(m.split); b++ {
		if c < m.split[b] {
			c0, c1 = m.split[b-1], m.split[b]
			break
		}
	}
	return m.w[m.dim*c0+j*(c1-c0)+c-c0]
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
	if m.split == nil {
		asm.AddScoresF32(m.w, ind, val, dst)
		return dst
	}
	for b := 1; b < len(m.split); b++ {
		c0, c1 := m.split[b-1], m.split[b]
		asm.AddScoresF32(m.w[m.dim*c0:m.dim*c1], ind, val, dst[c0:c1])
	}
	return dst
}

// ScoresBatch writes Scores of every row of X into dst (grown if
// needed), Classes() values a row, row after row, and returns it, on
// GOMAXPROCS goroutines. X must be valid (see sparse.CSR.ValidateShape).
func (m *MultiLabelModel) ScoresBatch(X *sparse.CSR, dst []float32) []float32 {
	K := m.classes
	dst = rowsOut("MultiLabelModel.ScoresBatch", X, K, dst)
	parallelRows(X.Rows, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			m.Scores(X.Row(i), dst[i*K:(i+1)*K:(i+1)*K])
		}
	})
	return dst
}

// Predict appends to dst the classes of x whose score reaches their
// threshold, in increasing order, and returns it.
func (m *MultiLabelModel) Predict(x sparse.Vector, dst []int) []int {
	var buf [64]float32
	s := m.Scores(x, buf[:0])
	return m.Decide(s, 0, dst)
}

// TopK appends to dst the k classes of x with the highest scores, best
// first (ties by class), and returns it.
func (m *MultiLabelModel) TopK(x sparse.Vector, k int, dst []int) []int {
	s := m.Scores(x, nil)
	return appendTopK(s, k, dst)
}

// Decide appends to dst the classes that the scores s (from Scores)
// give, and returns it: with k > 0 the k of the highest scores, best
// first (ties by class), as TopK; else those whose scores reach their
// thresholds, by class, as Predict.
func (m *MultiLabelModel) Decide(s []float32, k int, dst []int) []int {
	if k > 0 {
		return appendTopK(s, k, dst)
	}
	for c, v := range s {
		if v >= m.thresholds[c] {
			dst = append(dst, c)
		}
	}
	return dst
}

func appendTopK(s []float32, k int, dst []int) []int {
	k = min(max(k, 0), len(s))
	if k <= topKSelect && !slices.ContainsFunc(s, func(v float32) bool { return v != v }) {
		// The k best by insertion into a list kept sorted: a class
		// goes in only ahead of a lower score, so ties stay in class
		// order, as the stable sort leaves them.
		at := len(dst)
		for c, v := range s {
			n := len(dst) - at
			if n == k && (k == 0 || v <= s[dst[len(dst)-1]]) {
				continue
			}
			if n < k {
				dst = append(dst, c)
			}
			q := len(dst) - 1
			for ; q > at && v > s[dst[q-1]]; q-- {
				dst[q] = dst[q-1]
			}
			dst[q] = c
		}
		return dst
	}
	idx := make([]int, len(s))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return s[idx[a]] > s[idx[b]] })
	return append(dst, idx[:k]...)
}

// topKSelect is the largest k appendTopK selects by insertion rather
// than by sorting every class.
const topKSelect = 16

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
// Unless cfg.Holdout is negative, a part of the rows is held out (see
// MultiLabelConfig.Holdout) and each class's threshold
// fitted on their scores (the one that maximizes its F1 on them; 0 for a
// class with no held-out positive), kept where it is below 0 but not
// below ThresholdFloor, and its Platt scaling, which the model keeps.
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
	case cfg.Epochs < 0 || cfg.C < 0 || math.IsNaN(cfg.C) || cfg.Holdout >= 0.5 || math.IsNaN(cfg.Holdout) || cfg.Threads < 0:
		return nil, fmt.Errorf("%w: Epochs %d, C %v, Holdout %v, Threads %d", ErrConfig, cfg.Epochs, cfg.C, cfg.Holdout, cfg.Threads)
	}
	for i, y := range Y {
		for _, c := range y {
			if c < 0 || c >= classes {
				return nil, fmt.Errorf("%w: row %d has class %d, not in [0, %d)", ErrLabels, i, c, classes)
			}
		}
	}
	if X.Rows > math.MaxInt32 {
		return nil, fmt.Errorf("%w: %d rows, more than multi-label training takes (%d)", ErrConfig, X.Rows, math.MaxInt32)
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
	src := rand.NewPCG(cfg.Seed, 0x6d6c)
	rng := rand.New(src)
	nh := 0
	if cfg.Holdout > 0 && X.Rows >= 10 {
		nh = max(1, int(cfg.Holdout*float64(X.Rows)))
	}
	all := make([]int, X.Rows)
	for i := range all {
		all[i] = i
	}
	if nh > 0 && (cfg.Ranking || cfg.Rule == Perceptron) {
		// The perceptrons' scores grow with the epochs (nothing ties
		// them to a margin), so a first epoch's scores would put the
		// thresholds on another scale than the model's: a model
		// trained with every epoch on the other rows scores the
		// held-out ones, and the model is trained again on all.
		perm := slices.Clone(all)
		rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		held, rest := perm[:nh], perm[nh:]
		slices.Sort(rest)
		m, _, err := trainMultiLabel(ctx, X, Y, classes, rest, cfg, 0, src)
		if err != nil {
			return nil, err
		}
		scores := make([]float32, nh*classes)
		for k, i := range held {
			m.Scores(X.Row(i), scores[k*classes:(k+1)*classes])
		}
		thr, pa, pb := fitThresholds(scores, held, Y, classes, mlWorkers(classes, cfg))
		if m, _, err = trainMultiLabel(ctx, X, Y, classes, all, cfg, 0, src); err != nil {
			return nil, err
		}
		m.thresholds, m.plattA, m.plattB = thr, pa, pb
		return m, nil
	}
	m, held, err := trainMultiLabel(ctx, X, Y, classes, all, cfg, nh, src)
	if err != nil {
		return nil, err
	}
	if held != nil {
		m.thresholds, m.plattA, m.plattB = fitThresholds(held.scores, held.rows, Y, classes, mlWorkers(classes, cfg))
	}
	return m, nil
}

// heldOut holds the scores of the rows thresholds are fitted on:
// scores[k*K+c] is class c's score of row rows[k].
type heldOut struct {
	rows   []int
	scores []float32
}

// trainMultiLabel runs cfg.Epochs shuffled epochs over the rows rows of
// X, in the orders the generator src draws (which it leaves past them),
// and returns the averaged model, thresholds 0. With nh > 0 the last
// nh rows of the first epoch's order are held out until the rest of
// that epoch has been learned: the averaged model at that point, the one
// a first epoch over the other rows gives, scores them (these scores are
// returned for the thresholds), and then they are learned like the
// others, in that epoch and the next. So the thresholds come from the
// one training, at the cost of scoring a fifth of the rows once more.
//
// The classes are learned in blocks (see mlBlocks), each through every
// epoch before the next, on cfg.Threads goroutines (0: GOMAXPROCS) that
// take the blocks in turn, each block in weights of its own and drawing
// the same orders of the rows from a copy of src: one-vs-rest classes do
// not depend on one another, so the model is the same whatever the
// number of goroutines. A block's weights stay in the last-level cache
// through its epochs where all the classes' would not (a text model's
// run to tens of megabytes), and every feature's weights of a block
// start a cache line. The ranking perceptron moves the classes
// together: one block.
func trainMultiLabel(ctx context.Context, X *sparse.CSR, Y [][]int, K int, rows []int, cfg MultiLabelConfig, nh int, src *rand.PCG) (*MultiLabelModel, *heldOut, error) {
	D := X.Cols
	bounds := mlBlocks(K, cfg)
	m := &MultiLabelModel{classes: K, dim: D, w: make([]float32, D*K), bias: make([]float32, K), thresholds: make([]float32, K)}
	if len(bounds) > 2 {
		m.split = bounds
	}
	first := *src
	var held *heldOut
	order := slices.Clone(rows)
	rng := rand.New(src)
	for ep := range cfg.Epochs {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		if ep == 0 && nh > 0 {
			held = &heldOut{rows: slices.Clone(order[len(order)-nh:]), scores: make([]float32, nh*K)}
		}
	}
	sq := rowSquares(X, cfg)
	t := 1 + float64(cfg.Epochs*len(rows))
	workers := mlWorkers(len(bounds)-1, cfg)
	bufs := make([]mlBuffers, workers)
	defer func() {
		for k := range bufs {
			bufs[k].free()
		}
	}()
	err := eachBlock(bounds, workers, func(wk, c0, c1 int) error {
		p := newMLPart(D, c0, c1, &bufs[wk])
		gen := first
		rng := rand.New(&gen)
		order := slices.Clone(rows)
		for ep := range cfg.Epochs {
			if err := ctx.Err(); err != nil {
				return err
			}
			rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
			p.epoch(X, Y, sq, order, 1+float64(ep*len(order)), ep == 0 && held != nil, held, K, cfg)
		}
		p.average(X, m.bias, t)
		if !finite32s(p.w) {
			return ErrDiverged
		}
		copy(m.w[D*c0:D*c1], p.w)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return m, held, nil
}

// mlBlock is the number of classes in a block of the training: a
// feature's weights of a block are then two cache lines, which the
// scoring kernel takes at once (32 classes). On Reuters-21578 ModApte
// (140,454 features, 115 classes) blocks of 32 took less time than
// blocks of 16 (twice the passes over each row), of 64, and than all the
// classes in one block or in one part per thread, whose weights
// outgrow the last-level cache.
const mlBlock = 32

// mlBlocks returns the bounds of the blocks of classes the training
// learns (0, ..., K): mlBlock classes each, the last fewer, or half as
// many where blocks of mlBlock would leave a thread idle (fewer of them
// than threads, at most cfg.Threads, 0: GOMAXPROCS); for the ranking
// perceptron, one of all K.
func mlBlocks(K int, cfg MultiLabelConfig) []int {
	if cfg.Ranking {
		return []int{0, K}
	}
	width := mlBlock
	if (K+mlBlock-1)/mlBlock < mlThreads(cfg) {
		width = mlBlock / 2
	}
	b := []int{0}
	for c := width; c < K; c += width {
		b = append(b, c)
	}
	return append(b, K)
}

// mlThreads returns cfg.Threads, or GOMAXPROCS for 0.
func mlThreads(cfg MultiLabelConfig) int {
	if cfg.Threads == 0 {
		return runtime.GOMAXPROCS(0)
	}
	return cfg.Threads
}

// mlWorkers returns the number of goroutines that learn n blocks: at
// most mlThreads.
func mlWorkers(n int, cfg MultiLabelConfig) int {
	return max(1, min(mlThreads(cfg), n))
}

// eachBlock calls f for every block of bounds (its classes [c0, c1)) on
// workers goroutines, which take the blocks in order, and returns once
// all have returned: nil, or the first error, after which no block
// starts. f's first argument is the goroutine's number, in
// [0, workers).
func eachBlock(bounds []int, workers int, f func(wk, c0, c1 int) error) error {
	var (
		mu   sync.Mutex
		next int
		err  error
		wg   sync.WaitGroup
	)
	take := func(prev error) int {
		mu.Lock()
		defer mu.Unlock()
		if err == nil {
			err = prev
		}
		if err != nil || next == len(bounds)-1 {
			return -1
		}
		next++
		return next - 1
	}
	work := func(wk int) {
		var e error
		for b := take(nil); b >= 0; b = take(e) {
			e = f(wk, bounds[b], bounds[b+1])
		}
	}
	for wk := 1; wk < workers; wk++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work(wk)
		}()
	}
	work(0)
	wg.Wait()
	return err
}

// rowSquares returns, for the PA rules, each row's squared norm with the
// bias's feature, 1 + Σ v², which their step divides by; nil for the
// perceptrons, whose steps do not depend on it.
func rowSquares(X *sparse.CSR, cfg MultiLabelConfig) []float64 {
	if cfg.Ranking || cfg.Rule == Perceptron {
		return nil
	}
	sq := make([]float64, X.Rows)
	for i := range sq {
		s := 1.0
		for _, v := range X.Val[X.Indptr[i]:X.Indptr[i+1]] {
			s += float64(v) * float64(v)
		}
		sq[i] = s
	}
	return sq
}

// mlPart learns the classes [c0, c0+K) of a multi-label model: their
// weights, feature-major (w[j·K+c], as asm.AddScoresF32 reads them, so
// that a row reads only these classes' weights of each of its features),
// and biases. The running sums behind the average (w - u/t, u = Σ t·Δw)
// are not kept beside the weights, where adding to them would miss the
// cache at a feature of every row that moves, but logged (class, row,
// step, step size) and replayed class by class into u, class-major, each
// class's sums a dense array of D that the caches hold (see flush). Each
// sum receives the same terms in the same order as it would beside the
// weights, so the average is the same to the bit.
type mlPart struct {
	c0, K int
	D     int
	w     []float32
	b, ub []float64
	s     []float32
	tau   []float64 // each class's signed step on a row
	rel   []bool
	log   []mlEntry
	u     []float32 // u[c·D+j], taken from bufs at the first flush
	bufs  *mlBuffers
}

// mlBuffers are the weights and the running sums of the blocks one
// goroutine learns in turn, each block's cleared where the last block's
// were, so that only the first block's come from the system (whose fresh
// pages cost more to fault in than clearing them costs). They are on
// huge pages where the system gives them (see hugeFloats): a shuffled
// epoch reads a feature's weights on a different page at almost every
// row. The model's weights, on the heap, are copied from them.
type mlBuffers struct {
	w, u    []float32
	release []func()
}

// take returns the first n float32 of *s, zeroed: cleared after the
// block before, or allocated when *s is shorter.
func (b *mlBuffers) take(s *[]float32, n int) []float32 {
	if len(*s) >= n {
		clear((*s)[:n])
		return (*s)[:n]
	}
	var f func()
	*s, f = hugeFloats(n)
	b.release = append(b.release, f)
	return *s
}

// free releases the buffers' memory.
func (b *mlBuffers) free() {
	for _, f := range b.release {
		f()
	}
	*b = mlBuffers{}
}

type mlEntry struct {
	class, row int32
	t, a       float32
}

// mlLogCap is the number of updates a part logs before it replays them
// into its running sums. (A variable so that tests can lower it.)
var mlLogCap = 1 << 20

// newMLPart returns the part learning the classes [c0, c1) of a model
// of D features, its weights (D of each class, feature-major) and
// running sums in bufs.
func newMLPart(D, c0, c1 int, bufs *mlBuffers) *mlPart {
	K := c1 - c0
	return &mlPart{c0: c0, K: K, D: D, w: bufs.take(&bufs.w, D*K), b: make([]float64, K), ub: make([]float64, K),
		s: make([]float32, K), tau: make([]float64, K), rel: make([]bool, K), bufs: bufs}
}

// epoch learns the rows of X in the order order, the first at step t,
// sq being their squared norms (see rowSquares). With scoreHeld, the
// last len(held.rows) of them are scored into held (its row k, class c
// at held.scores[k·K+c], K the model's classes) by the averaged model
// before they are learned.
func (p *mlPart) epoch(X *sparse.CSR, Y [][]int, sq []float64, order []int, t float64, scoreHeld bool, held *heldOut, K int, cfg MultiLabelConfig) {
	for q, i := range order {
		if scoreHeld && q == len(order)-len(held.rows) {
			p.scoreAveraged(X, held, K, t)
		}
		p.learn(X, sq, i, Y[i], t, cfg)
		t++
	}
}

// learn learns row i, of classes y, at step t.
func (p *mlPart) learn(X *sparse.CSR, sq []float64, i int, y []int, t float64, cfg MultiLabelConfig) {
	lo, hi := X.Indptr[i], X.Indptr[i+1]
	ind, val := X.Ind[lo:hi], X.Val[lo:hi]
	s, rel, K := p.s, p.rel, p.K
	for c := range s {
		s[c] = float32(p.b[c])
	}
	asm.AddScoresF32(p.w, ind, val, s)
	clear(rel)
	for _, c := range y {
		if c -= p.c0; c >= 0 && c < K {
			rel[c] = true
		}
	}
	var moved bool
	if cfg.Ranking {
		moved = rankingSteps(s, rel, p.tau)
	} else {
		moved = oneVsRestSteps(s, rel, sq, i, cfg, p.tau)
	}
	if !moved {
		return
	}
	tt := float32(t)
	for c, a := range p.tau {
		if a == 0 {
			continue
		}
		// Every product is rounded before it is added (the
		// conversion keeps the compiler from fusing them), so that
		// the weights are the same on every CPU.
		a32 := float32(a)
		for k, j := range ind {
			p.w[int(j)*K+c] += float32(a32 * val[k])
		}
		p.b[c] += a
		p.ub[c] += t * a
		if len(p.log) >= mlLogCap {
			p.flush(X)
		}
		p.log = append(p.log, mlEntry{class: int32(c), row: int32(i), t: tt, a: a32})
	}
}

// flush adds the logged updates to the running sums u and empties the
// log: grouped by class, in the order of the steps within each class,
// so that the sums of one class, D of them, stay in the caches while
// its updates are added.
func (p *mlPart) flush(X *sparse.CSR) {
	if p.u == nil {
		p.u = p.bufs.take(&p.bufs.u, p.D*p.K)
	}
	start := make([]int, p.K+1)
	for _, e := range p.log {
		start[e.class+1]++
	}
	for c := range p.K {
		start[c+1] += start[c]
	}
	es := make([]mlEntry, len(p.log))
	next := slices.Clone(start[:p.K])
	for _, e := range p.log {
		es[next[e.class]] = e
		next[e.class]++
	}
	for c := range p.K {
		sums := p.u[c*p.D : (c+1)*p.D]
		for _, e := range es[start[c]:start[c+1]] {
			lo, hi := X.Indptr[e.row], X.Indptr[e.row+1]
			val := X.Val[lo:hi]
			for k, j := range X.Ind[lo:hi] {
				d := float32(e.a * val[k])
				sums[j] += float32(e.t * d)
			}
		}
	}
	p.log = p.log[:0]
}

// average turns the part's weights into the averaged ones, w - u/t,
// and writes its averaged biases into the model's biases bias. The sums
// are read a block of features at a time, the weights of the block
// staying in the caches while every class's sums for it are subtracted.
func (p *mlPart) average(X *sparse.CSR, bias []float32, t float64) {
	p.flush(X)
	const block = 256
	for j0 := 0; j0 < p.D; j0 += block {
		j1 := min(j0+block, p.D)
		for c := range p.K {
			for j, v := range p.u[c*p.D+j0 : c*p.D+j1] {
				if v != 0 {
					p.w[(j0+j)*p.K+c] -= float32(float64(v) / t)
				}
			}
		}
	}
	for c := range p.K {
		bias[p.c0+c] = float32(p.b[c] - p.ub[c]/t)
	}
}

// scoreAveraged writes into held the scores of its rows for the part's
// classes by the averaged model at step t (the model's K classes per
// row).
func (p *mlPart) scoreAveraged(X *sparse.CSR, held *heldOut, K int, t float64) {
	p.flush(X)
	s := make([]float32, p.K)
	for k, i := range held.rows {
		lo, hi := X.Indptr[i], X.Indptr[i+1]
		clear(s)
		asm.AddScoresF32(p.w, X.Ind[lo:hi], X.Val[lo:hi], s)
		copy(held.scores[k*K+p.c0:], s)
	}
	for c := range p.K {
		sums := p.u[c*p.D : (c+1)*p.D]
		bias := float32(p.b[c] - p.ub[c]/t)
		for k, i := range held.rows {
			var su float32
			lo, hi := X.Indptr[i], X.Indptr[i+1]
			val := X.Val[lo:hi]
			for q, j := range X.Ind[lo:hi] {
				su += float32(val[q] * sums[j])
			}
			held.scores[k*K+p.c0+c] += bias - float32(float64(su)/t)
		}
	}
}

// hugeFloats returns n zeroed float32 on huge pages where the system
// gives them (see hugeAlloc), else on the heap, and the function that
// releases them, to be called once nothing reads them any more.
func hugeFloats(n int) ([]float32, func()) {
	p, free := hugeAlloc(n)
	if p == nil {
		return make([]float32, n), func() {}
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(p))), n), free
}

// oneVsRestSteps sets tau to each class's step on row i (scores s,
// relevant classes rel) by its own binary rule, cfg.Rule, and reports
// whether any step is not 0; sq are the rows' squared norms the PA rules
// take (see rowSquares).
func oneVsRestSteps(s []float32, rel []bool, sq []float64, i int, cfg MultiLabelConfig, tau []float64) bool {
	moved := false
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
			if loss := 1 - m; loss > 0 {
				step := loss / sq[i]
				switch cfg.Rule {
				case PA1:
					step = min(cfg.C, step)
				case PA2:
					step = loss / (sq[i] + 1/(2*cfg.C))
				}
				tau[c] = y * step
			}
		}
		if tau[c] != 0 {
			moved = true
		}
	}
	return moved
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

// fitThresholds returns each class's F1-maximizing threshold and Platt
// scaling (a, b) from the scores of the held-out rows, the classes
// fitted on up to workers goroutines.
func fitThresholds(scores []float32, held []int, Y [][]int, K, workers int) ([]float32, []float64, []float64) {
	byClass := make([][]float32, K)
	pos := make([][]bool, K)
	rel := make([]bool, K)
	for k, i := range held {
		for c := range rel {
			rel[c] = false
		}
		for _, c := range Y[i] {
			rel[c] = true
		}
		for c := range K {
			byClass[c] = append(byClass[c], scores[k*K+c])
			pos[c] = append(pos[c], rel[c])
		}
	}
	thr := make([]float32, K)
	pa, pb := make([]float64, K), make([]float64, K)
	each := make([]int, K+1)
	for c := range each {
		each[c] = c
	}
	_ = eachBlock(each, min(workers, K), func(_, c, _ int) error {
		// A fitted threshold only ever lowers a class's bar from the
		// score's own 0, and at most to ThresholdFloor: lowering it
		// lets rare classes, whose scores seldom reach 0, be predicted
		// at all, but the F1-best cut on a few held-out positives
		// often falls far among the negatives, and such cuts cost
		// more on new rows (many false positives of that class) than
		// they gain.
		thr[c] = max(min(bestF1Threshold(byClass[c], pos[c]), 0), ThresholdFloor)
		pa[c], pb[c] = -1, 0
		if cal, err := calibrate.FitPlatt(byClass[c], pos[c]); err == nil {
			if a, b, ok := cal.Platt(); ok {
				pa[c], pb[c] = a, b
			}
		}
		return nil
	})
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
