package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/hyperplane-ml/hyperplane/asm"
	"github.com/hyperplane-ml/hyperplane/dense"
	"github.com/hyperplane-ml/hyperplane/engine/internal/kern"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
)

// prefetchAhead is how many rows ahead of the one being learned a shuffled
// epoch prefetches: nearer leaves the miss exposed, further evicts rows
// before their turn and keeps more misses in flight than the core tracks.
// Text rows of about a hundred nonzeros were the guide; on both an AMD Zen 3
// and an Intel Xeon with AVX-512, four rows was as fast as six or faster.
const prefetchAhead = 4

// gatherAhead is how many rows ahead a learner whose weights outgrow the
// caches prefetches the weights of a row: that row's indices must already
// be in cache (prefetchAhead brought them), and its weights must arrive in
// time.
const gatherAhead = 2

// maxWeights is the most weights (features × weight rows) a model holds.
const maxWeights = 1 << 31

// checkEvery is how many rows pass between checks of ctx inside an epoch.
const checkEvery = 1 << 16

// Fit trains a perceptron of the kind cfg names on the rows of X with
// labels y. Two distinct labels give a binary model (the larger label is
// the positive class), more give a multiclass one; labels can be any
// finite numbers.
//
// Training stops after cfg.Epochs epochs, after an epoch without updates,
// or by early stopping (cfg.Validation). Fit checks ctx between epochs and
// every 65536 rows; if ctx is done, or cfg.OnEpoch returns an error, Fit
// returns the model as it stood then together with that error, so a caller
// can keep it. The statistics of every finished epoch are returned too.
//
// With cfg.Workers at most 1 the learning is sequential; Fit still checks a
// large X on all cores and draws the next epoch's order on a goroutine of
// its own while an epoch runs, which changes no result.
func Fit(ctx context.Context, X *sparse.CSR, y []float64, cfg Config) (*Model, []EpochStats, error) {
	s, err := cfg.settle()
	if err != nil {
		return nil, nil, err
	}
	if err := checkLabeledRows(X, y); err != nil {
		return nil, nil, err
	}
	// The kernels panic on an index outside the weights: the rows are
	// checked before anything reads them, so that bad data is an error.
	// Here only the shape: fit checks the rows themselves where it first
	// reads them, which for a learner that packs them is as it packs
	// (one pass over the matrix instead of two). A check as the first
	// epoch reached each row cost more than a pass in storage order.
	if err := X.ValidateShape(); err != nil {
		return nil, nil, dataErr(err)
	}
	if s.scaled() {
		return fitScaled(ctx, X, y, s)
	}
	return fit(ctx, X, nil, y, s, false)
}

// fit is Fit and FitDense after their checks of the data: it trains on
// the rows of X, or of D when X is nil. Unless checked is set, X's rows
// (not its shape) are still to be validated, which fit does before it
// first reads them.
func fit(ctx context.Context, X *sparse.CSR, D *dense.Matrix[float32], y []float64, s settings, checked bool) (*Model, []EpochStats, error) {
	nrows, ncols, rowCols := 0, 0, 0
	if X != nil {
		nrows, ncols, rowCols = X.Rows, X.Cols, X.Cols
	} else {
		nrows, ncols = D.Rows, D.Cols
	}
	if err := checkSampleWeights(s.SampleWeight, nrows); err != nil {
		return nil, nil, err
	}
	classes, err := fitClasses(y, &s)
	if err != nil {
		return nil, nil, err
	}
	if warm := s.Warm; warm != nil {
		if ncols > warm.Dim {
			return nil, nil, fmt.Errorf("%w: rows of %d features are wider than the warm start's %d", ErrDim, ncols, warm.Dim)
		}
		ncols = warm.Dim
		if X != nil && X.Cols != ncols {
			wide := *X
			wide.Cols = ncols
			X = &wide
		}
	}
	if err := checkClassWeights(s.ClassWeight, classes); err != nil {
		return nil, nil, err
	}
	cls := make([]int32, nrows)
	for i, v := range y {
		cls[i] = int32(classIndex(classes, v+0)) // +0 folds −0 into 0
	}
	rng := newPCGRand(s.Seed, 0x9e3779b97f4a7c15)
	train, valid, err := holdOut(nrows, s.Validation, rng)
	if err != nil {
		return nil, nil, err
	}
	if s.Workers > len(train) {
		// Parameter mixing never needs more shards than rows, and each
		// worker holds a copy of the weights.
		s.Workers = len(train)
	}
	// Train on the used columns, in order of frequency, when the weights
	// of a wide feature space outgrow the caches.
	dim := ncols
	rn, err := renumberFit(ctx, X, classes, &s, rowCols, checked)
	if err != nil {
		return nil, nil, err
	}
	if X, checked = rn.X, rn.checked; X != nil {
		ncols = X.Cols
	}
	if err := checkWeights(s, ncols, classes, s.Workers); err != nil {
		return nil, nil, err
	}
	f := fitter{X: X, cls: cls, train: train, valid: valid, y: y, rng: rng, rowCols: rowCols}
	f.st = f.newState(s, classes, ncols, nrows)
	f.st.hotCols = rn.hot
	if D != nil {
		f.D, f.all = D, denseIndices(D.Cols)
	}
	// Packing the rows (or not) checks them where they are not checked.
	if err := f.packRows(&s, !checked); err != nil {
		return nil, nil, err
	}
	// The passes, the workers' included, are over when run returns.
	defer f.releaseRows()
	if s.Normalize {
		if D != nil {
			f.scale = denseScales(D)
		} else {
			f.scale = rowScales(X)
		}
	}
	if s.Workers > 1 && s.Algorithm != Batch {
		f.startWorkers(s.Workers)
	}
	m, stats, err := f.run(ctx)
	return inOrder(m, rn, dim), stats, err
}

// checkSampleWeights checks Config.SampleWeight, if set, against rows
// rows: one finite weight ≥ 0 per row.
func checkSampleWeights(sw []float64, rows int) error {
	if sw == nil {
		return nil
	}
	if len(sw) != rows {
		return fmt.Errorf("%w: %d sample weights for %d rows", ErrConfig, len(sw), rows)
	}
	for i, w := range sw {
		if !(w >= 0) || w > 1e30 {
			return fmt.Errorf("%w: sample weight %v of row %d", ErrConfig, w, i)
		}
	}
	return nil
}

// holdOut returns the rows to train on and those held out for early
// stopping (a fraction validation of nrows, drawn by rng), each sorted.
func holdOut(nrows int, validation float64, rng pcgRand) (train, valid []int32, err error) {
	if validation <= 0 {
		train = make([]int32, nrows)
		for i := range train {
			train[i] = int32(i)
		}
		return train, nil, nil
	}
	perm := make([]int32, nrows)
	for i := range perm {
		perm[i] = int32(i)
	}
	rng.shuffle(perm)
	nv := int(math.Ceil(validation * float64(nrows)))
	if nv >= nrows {
		return nil, nil, fmt.Errorf("%w: Validation %v leaves no row to train on", ErrConfig, validation)
	}
	valid, train = perm[:nv], perm[nv:]
	slices.Sort(valid)
	slices.Sort(train)
	return train, valid, nil
}

// newState returns the learner of a fit of s on f's rows (nrows of them,
// of classes and ncols features): started from the warm start if any,
// with the class weights of the training rows and, for the voted
// perceptron, the map from training rows to logged rows.
func (f *fitter) newState(s settings, classes []float64, ncols, nrows int) *state {
	trainCls := make([]int32, len(f.train))
	for k, i := range f.train {
		trainCls[k] = f.cls[i]
	}
	st := newState(s, classes, ncols, f.rng.Rand)
	if s.Warm != nil {
		st.start(s.Warm)
	}
	st.classWeights(trainCls)
	if st.votes != nil {
		st.votes.rowOf = make([]int32, nrows)
		for i := range st.votes.rowOf {
			st.votes.rowOf[i] = -1
		}
	}
	return st
}

// startWorkers gives f n parameter-mixing workers (Config.Workers).
func (f *fitter) startWorkers(n int) {
	st := f.st
	f.workers = make([]*state, n)
	for k := range f.workers {
		f.workers[k] = st.worker()
	}
	if st.u != nil {
		// The mixed sum starts from a warm start's history, if any.
		if st.sum == nil {
			st.sum = make([]float64, len(st.w))
			st.sumB = make([]float64, len(st.b))
		}
		st.hist = false
	}
}

// fitClasses returns the classes of a fit on labels y: those of the
// labels, or with a warm start those of the start, of which every label
// must be one.
func fitClasses(y []float64, s *settings) ([]float64, error) {
	if s.Warm == nil {
		return classesOf(y, s.maxClass)
	}
	if err := s.checkWarm(s.Warm); err != nil {
		return nil, err
	}
	classes := slices.Clone(s.Warm.Classes)
	for i, v := range y {
		if classIndex(classes, v+0) < 0 {
			return nil, fmt.Errorf("%w: label %v of row %d is none of the warm start's classes %v", ErrLabels, v, i, classes)
		}
	}
	return classes, nil
}

// fitter runs the epochs of Fit.
type fitter struct {
	st *state
	// X holds the rows, or with FitDense D does, and X is nil: the
	// passes give the step a dense row with the indices all, 0 to
	// D.Cols−1, as a sparse row of every value.
	X   *sparse.CSR
	D   *dense.Matrix[float32]
	all []int32
	// scale holds 1/‖x‖ of every row (0 for rows of norm 0) with
	// Config.Normalize, nil otherwise.
	scale        []float32
	cls          []int32
	y            []float64
	train, valid []int32
	rng          pcgRand
	// The batch step's buffers, kept from epoch to epoch.
	grad, gb, dec []float32
	// workers are the parameter-mixing learners (Config.Workers > 1).
	workers []*state
	// primed: the last mix left every worker's weights equal to the
	// mixed ones and its accumulator zero.
	primed bool
	// order is this epoch's visiting order and next the coming one's,
	// drawn while this epoch runs (drawn is closed when it is ready): on
	// a goroutine of its own, on the core a sequential fit leaves idle, or
	// by the first parameter-mixing worker done with its shard.
	order, next []int32
	drawn       chan struct{}
	// p32 holds X's rows packed with p32Shift index bits, or is nil (see
	// packRows).
	p32      []uint32
	p32Shift uint
	// freeP32 gives back p32's memory (see releaseRows).
	freeP32 func()
	// rowCols is the number of columns X's indices must be below: X's
	// own, before a warm start widens it.
	rowCols int
}

func (f *fitter) run(ctx context.Context) (*Model, []EpochStats, error) {
	defer f.waitOrder()
	return drive(ctx, &f.st.s, f)
}

// epoch is one epoch of Fit: a step of the batch perceptron, or a pass
// of the online learner (see onlineEpoch).
func (f *fitter) epoch(ctx context.Context, e int, more bool) (EpochStats, error) {
	f.st.startEpoch(e)
	if f.st.s.Algorithm == Batch {
		return f.batchEpoch(ctx)
	}
	return f.onlineEpoch(ctx, more)
}

func (f *fitter) check(e int) error {
	return f.st.check(e)
}

func (f *fitter) model() *Model { return f.st.model() }

// evaluate measures the model of this moment on the training rows
// (Config.TrainLoss) and on the held-out ones (Config.Validation).
func (f *fitter) evaluate(es *EpochStats) (*Model, bool) {
	s := &f.st.s
	if !s.TrainLoss && f.valid == nil {
		return nil, false
	}
	m := f.st.model()
	if s.TrainLoss {
		es.TrainLoss, es.TrainMistakes = f.loss(m, f.train)
	}
	if f.valid == nil {
		return m, false
	}
	es.ValidAccuracy = f.accuracy(m, f.valid)
	return m, true
}

func (f *fitter) record(EpochStats) error { return nil }

func (f *fitter) countLeft(examples int64) { f.st.countLeft(examples) }

// checkWeights refuses a model of cols features and these classes with
// more than maxWeights weights (a binary model keeps one vector), or one
// whose training would need more memory than the budget: the width and
// the classes come from the data, and their product sizes every
// allocation that follows.
func checkWeights(s settings, cols int, classes []float64, workers int) error {
	K := weightRows(classes)
	if int64(cols)*int64(K) > maxWeights {
		return fmt.Errorf("%w: %d features × %d classes is more weights than a model holds", ErrDim, cols, len(classes))
	}
	per := s.bytesPerWeight(cols*K, workers)
	need := budget.Mul(int64(cols), int64(K), per)
	what := fmt.Sprintf("training %d features × %d weight vectors (%d bytes a weight", cols, K, per)
	if workers > 1 {
		what += fmt.Sprintf(", %d workers", workers)
	}
	if err := budget.Check(s.MemoryBudget, need, what+")"); err != nil {
		return fmt.Errorf("%w: %w", ErrMemory, err)
	}
	return nil
}

// bytesPerWeight is what training holds for each of n weights: the
// weights; the averaging sums; the interleaved copy of both; the model it
// returns (and with early stopping the best one, or with TrainLoss the
// one of each epoch); the batch gradient; and with parameter mixing every
// worker's weights and sums, and the sum of theirs.
func (s *settings) bytesPerWeight(n, workers int) int64 {
	avg := s.Algorithm == Averaged || s.Algorithm == Voted
	b := int64(4 + 4)
	if avg {
		b += 8
		if n*4 > interleaveBytes && workers <= 1 {
			b += 16
		}
	}
	if w := s.Warm; avg && workers <= 1 && w != nil && w.N+w.SumN > 0 {
		b += 8 // the warm start's history
	}
	if s.Validation > 0 {
		b += 8
	} else if s.TrainLoss {
		b += 4
	}
	if s.Algorithm == Batch {
		b += 4
	} else if workers > 1 {
		per := int64(4)
		if avg {
			per += 8
			b += 8
		}
		b += int64(workers) * per
	}
	return b
}

// countLeft counts examples more as seen by a learner whose weights will
// not move again (see drive): the averaged and voted models count them
// for the final vector; the others are what they are.
func (st *state) countLeft(extra int64) {
	if st.s.Algorithm == Plain || st.s.Algorithm == Batch {
		return
	}
	st.c += float64(extra)
	if st.sum != nil && !st.hist {
		// The mixed weights did not move: they count once per row left.
		for i, w := range st.w {
			st.sum[i] += float64(extra) * float64(w)
		}
		for i, b := range st.b {
			st.sumB[i] += float64(extra) * float64(b)
		}
		st.sumN += float64(extra)
	}
	if v := st.votes; v != nil {
		if n := len(v.steps); n > 0 {
			v.steps[n-1].Count += extra
		} else {
			v.count0 += extra
		}
	}
}

// onlineEpoch is one pass of the online learners over the training rows,
// in a fresh random order unless NoShuffle: by st alone, or by the
// parameter-mixing workers. With more, another epoch may follow, and its
// order is drawn while this one runs.
func (f *fitter) onlineEpoch(ctx context.Context, more bool) (EpochStats, error) {
	order := f.epochOrder()
	if f.workers != nil {
		return f.mixedEpoch(ctx, order, more)
	}
	if more {
		f.drawNext()
	}
	p, err := f.pass(ctx, f.st, order)
	return p.stats(len(order)), err
}

// epochOrder returns this epoch's visiting order: the rows as they are
// with NoShuffle, else the order drawNext drew during the last epoch, or
// one drawn now.
func (f *fitter) epochOrder() []int32 {
	if f.st.s.NoShuffle {
		return f.train
	}
	if f.drawn != nil {
		f.waitOrder()
	} else {
		f.next = f.drawOrder(f.next)
	}
	f.order, f.next = f.next, f.order
	if f.nnz() <= windowedNNZ {
		// The rows in their latest order, as shuffling them in place left
		// them before orders were drawn ahead (the training loss sums in
		// this order).
		f.train = f.order
	}
	return f.order
}

// drawOrder draws the order that follows f.order into dst: a uniform
// shuffle of it, or a windowed order of the rows (windowShuffle) above
// windowedNNZ nonzeros. The permutations, and the generator's draws, are
// those of shuffling the rows in place epoch after epoch.
func (f *fitter) drawOrder(dst []int32) []int32 {
	if f.nnz() > windowedNNZ {
		return windowShuffle(f.train, f.rng, dst)
	}
	prev := f.order
	if prev == nil {
		prev = f.train
	}
	dst = append(dst[:0], prev...)
	f.rng.shuffle(dst)
	return dst
}

// drawNext starts drawing the next epoch's order (into f.next) on its own
// goroutine. Until waitOrder returns, only that goroutine touches f.rng
// and f.next; f.order and f.train are only read.
func (f *fitter) drawNext() {
	if f.st.s.NoShuffle {
		return
	}
	done := make(chan struct{})
	f.drawn = done
	next := f.next
	go func() {
		defer close(done)
		f.next = f.drawOrder(next)
	}()
}

// orderReady is a closed channel: f.drawn set to it says that f.next
// already holds the next order.
var orderReady = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// waitOrder waits for the order drawNext is drawing, if any.
func (f *fitter) waitOrder() {
	if f.drawn != nil {
		<-f.drawn
		f.drawn = nil
	}
}

// Above windowedNNZ nonzeros (256 MiB of CSR) an epoch visits the rows in
// windowed order (windowShuffle) instead of a uniform permutation. (A
// variable so that tests can lower it.)
var windowedNNZ int64 = 32 << 20

// Rows per chunk and chunks per window of windowShuffle.
const (
	shuffleChunk  = 256
	shuffleWindow = 64
)

// windowShuffle returns a random order of rows (ascending row numbers)
// with locality: rows are cut into chunks of 256 consecutive rows, the
// chunks are put in random order, and every window of 64 chunks is
// visited in one random order of its rows. On a matrix far larger than
// the caches a uniform permutation makes every row a miss in the TLB as
// well as in the caches, and the epoch waits on page walks; a window's
// rows lie in 64 contiguous stretches that the TLB holds. Every row is
// visited once per epoch, and rows from anywhere in the data meet in a
// window, so a file sorted by label still alternates classes.
func windowShuffle(rows []int32, rng pcgRand, dst []int32) []int32 {
	n := len(rows)
	nc := (n + shuffleChunk - 1) / shuffleChunk
	chunks := rng.Perm(nc)
	dst = dst[:0]
	for w := 0; w < nc; w += shuffleWindow {
		start := len(dst)
		for _, c := range chunks[w:min(w+shuffleWindow, nc)] {
			dst = append(dst, rows[c*shuffleChunk:min((c+1)*shuffleChunk, n)]...)
		}
		seg := dst[start:]
		rng.shuffle(seg)
	}
	return dst
}

// pass runs st's online learner over the training rows in order.
func (f *fitter) pass(ctx context.Context, st *state, order []int32) (passStats, error) {
	src := &fitRows{f: f, order: order, weights: st.s.SampleWeight}
	var m passMode
	switch {
	case f.D != nil:
		m.dense = true
	case f.p32 != nil && st.packedBinary(src.weights):
		src.packed = true
		m.kp = kern.NewP32(f.p32Shift)
		m.fused = st.plainBinary(src.weights)
		p32Passes.Add(1)
	default:
		m.gw, m.stride, m.ilv = st.passLayout()
		if m.ilv {
			defer st.unpackWU()
		}
		m.gather = st.gatherWeights()
		m.fused = st.plainBinary(src.weights)
	}
	return st.learnPass(ctx, src, m)
}

// fitRows is the source of a pass of Fit: the rows of f.X (packed, with
// packed set), or of f.D, in the order order.
type fitRows struct {
	f       *fitter
	order   []int32
	weights []float64
	packed  bool
}

func (r *fitRows) fill(b *rowBatch) (bool, error) {
	f := r.f
	n := min(passBatch, len(r.order))
	rows := r.order[:n]
	r.order = r.order[n:]
	// Only the voted log and the mistake trace read a row's id.
	ids := f.st.votes != nil || traceMistake != nil
	b.size(n, r.packed, r.weights != nil, f.scale != nil, ids)
	// The rows' extents in visiting order first: in shuffled order every
	// lookup of the row pointers is a cache miss (and, on a large matrix,
	// a TLB miss), and here the misses overlap instead of each stalling
	// the learner.
	cls, fcls := b.cls[:len(rows)], f.cls
	for k, i := range rows {
		cls[k] = fcls[i]
	}
	switch {
	case f.D != nil:
		ind, val := b.ind[:len(rows)], b.val[:len(rows)]
		for k, i := range rows {
			ind[k], val[k] = f.all, f.D.Row(int(i))
		}
	case r.packed:
		dst, indptr, p32 := b.p32[:len(rows)], f.X.Indptr, f.p32
		for k, i := range rows {
			dst[k] = p32[indptr[i]:indptr[i+1]]
		}
	default:
		Xind, Xval, indptr := f.X.Ind, f.X.Val, f.X.Indptr
		ind, val := b.ind[:len(rows)], b.val[:len(rows)]
		for k, i := range rows {
			lo, hi := indptr[i], indptr[i+1]
			ind[k], val[k] = Xind[lo:hi], Xval[lo:hi]
		}
	}
	if ids {
		copy(b.id, rows)
	}
	if b.weight != nil {
		for k, i := range rows {
			b.weight[k] = float32(r.weights[i])
		}
	}
	if b.scale != nil {
		sc := b.scale[:len(rows)]
		for k, i := range rows {
			sc[k] = f.scale[i]
		}
	}
	return len(r.order) > 0, nil
}

// mixedEpoch is one epoch of iterative parameter mixing: the shuffled rows
// are cut into one contiguous shard per worker, every worker learns its
// shard from the current weights, and the new weights are the workers'
// average weighted by shard size. With averaging, each worker's lazy
// accumulator gives the sum of the vectors it went through (n·w − u after
// n examples from u = 0), which adds to st.sum.
func (f *fitter) mixedEpoch(ctx context.Context, order []int32, more bool) (EpochStats, error) {
	st, ws := f.st, f.workers
	P := len(ws)
	shard := func(k int) []int32 { return order[k*len(order)/P : (k+1)*len(order)/P] }
	total, err := f.workerPasses(ctx, shard, more)
	if err != nil {
		// Cancelled mid-epoch: keep the weights of the last finished epoch.
		return total.stats(len(order)), ctx.Err()
	}
	n := float64(len(order))
	views := make([]shardView, P)
	for k, w := range ws {
		views[k] = shardView{w: w.w, b: w.b, u: w.u, ub: w.ub, n: float64(len(shard(k)))}
	}
	frac := shardFracs(views, n)
	f.mixWeights(frac, n)
	mixBiases(st.b, st.sumB, frac, n, views)
	st.c += n
	st.sumN += n
	f.primed = true
	return total.stats(len(order)), nil
}

// workerPasses has every worker learn its shard (shard(k) for worker k)
// from the current weights, all at once, and returns their statistics
// together and the first error. The first worker to finish its shard
// draws the next epoch's order (when more) while the others finish
// theirs, so that the mix has the cores to itself. (Drawn beside the
// mix, it held up half of the mix on one of two cores; drawn beside the
// passes, it would hold up a worker.)
func (f *fitter) workerPasses(ctx context.Context, shard func(k int) []int32, more bool) (passStats, error) {
	st, ws := f.st, f.workers
	P := len(ws)
	res := make([]passStats, P)
	errs := make([]error, P)
	draw := more && !st.s.NoShuffle
	var drew atomic.Bool
	var wg sync.WaitGroup
	for k, w := range ws {
		wg.Go(func() {
			if !f.primed {
				// Later epochs find the workers set up by the last mix.
				copy(w.w, st.w)
				clear(w.u)
			}
			copy(w.b, st.b)
			clear(w.ub)
			w.c = 0
			res[k], errs[k] = f.pass(ctx, w, shard(k))
			if draw && drew.CompareAndSwap(false, true) {
				// Only this goroutine touches f.rng and f.next until
				// wg.Wait returns; f.order and f.train are only read.
				f.next = f.drawOrder(f.next)
			}
		})
	}
	wg.Wait()
	if draw {
		f.drawn = orderReady
	}
	f.primed = false
	var total passStats
	for k := range P {
		total.mistakes += res[k].mistakes
		total.updates += res[k].updates
		total.loss += res[k].loss
	}
	return total, errors.Join(errs...)
}

// mixWeights sets the weights (and, with averaging, the mixed sum) to
// the workers' average, weighted by frac over n examples: Mix.Merge's
// arithmetic (mixRange), on the workers' own arrays, split over the
// workers. It sets every worker up for the next epoch as it goes.
func (f *fitter) mixWeights(frac []float64, n float64) {
	st, ws := f.st, f.workers
	P := len(ws)
	src := func(k, a, b int) ([]float32, []float64) {
		w := ws[k]
		if w.u == nil {
			return w.w[a:b], nil
		}
		return w.w[a:b], w.u[a:b]
	}
	// Set the workers up for the next epoch while a block's lines are in
	// cache: a separate copy and clear would stream all their weights
	// through memory once more.
	setup := func(a, b int) {
		for _, w := range ws {
			copy(w.w[a:b], st.w[a:b])
			if w.u != nil {
				clear(w.u[a:b])
			}
		}
	}
	// Two workers, the common case, mix in one loop per weight (mixPair).
	pair := P == 2 && (st.sum == nil) == (ws[0].u == nil) && (st.sum == nil) == (ws[1].u == nil)
	var wg sync.WaitGroup
	for k := range P {
		lo, hi := k*len(st.w)/P, (k+1)*len(st.w)/P
		if pair {
			wg.Go(func() { mixPair(lo, hi, frac, n, st.w, st.sum, ws[0].w, ws[1].w, ws[0].u, ws[1].u) })
			continue
		}
		wg.Go(func() { mixRange(lo, hi, frac, n, st.w, st.sum, src, setup) })
	}
	wg.Wait()
}

// batchEpoch is one step of the batch perceptron: the scores of all
// training rows under the current weights, then one move along the sum of
// y·x over the rows within the margin.
func (f *fitter) batchEpoch(ctx context.Context) (EpochStats, error) {
	st, X := f.st, f.X
	K := st.K
	cur := &Model{Classes: st.classes, Dim: st.dim, W: st.w, B: st.b, Normalize: st.s.Normalize}
	if f.grad == nil {
		f.grad, f.gb = make([]float32, len(st.w)), make([]float32, K)
	}
	grad, gb := f.grad, f.gb
	clear(grad)
	clear(gb)
	es := EpochStats{Rows: len(f.train)}
	var loss float64
	sw := st.s.SampleWeight
	var dec []float32
	if K == 1 {
		f.dec = cur.DecisionBatch(X, f.dec)
		dec = f.dec
	}
	s := st.scores
	for p, i := range f.train {
		if err := cancelledAt(ctx, p); err != nil {
			// The step is not taken: the weights stay those of the last
			// finished epoch.
			return es, err
		}
		row := X.Row(int(i))
		c := int(f.cls[i])
		weight := float32(1)
		if sw != nil {
			weight = float32(sw[i])
		}
		if st.cw != nil {
			weight *= st.cw[c]
		}
		wx := weight // the weight of the row's values in the gradient
		if f.scale != nil {
			wx *= f.scale[i]
		}
		if K == 1 {
			y := labelSign(f.cls[i])
			m := y * dec[i]
			if m <= 0 {
				es.Mistakes++
				loss += float64(-m)
			}
			if m <= st.s.tau && weight > 0 {
				es.Updates++
				asm.AxpyIndF32(wx*y, row.Val, row.Ind, grad)
				gb[0] += weight * y
			}
			continue
		}
		cur.scores(row, s)
		r := bestOther(s, c)
		m := s[c] - s[r]
		if m <= 0 {
			es.Mistakes++
			loss += float64(-m)
		}
		if m <= st.s.tau && weight > 0 {
			es.Updates++
			for k, j := range row.Ind {
				d := wx * row.Val[k]
				grad[int(j)*K+c] += d
				grad[int(j)*K+r] -= d
			}
			gb[c] += weight
			gb[r] -= weight
		}
	}
	if es.Updates > 0 {
		asm.AxpyF32(st.s.eta, grad, st.w)
		for k := range gb {
			st.b[k] += st.s.eta * gb[k] * st.bb
		}
	}
	st.c += float64(len(f.train))
	es.Loss = loss / float64(max(1, len(f.train)))
	return es, nil
}

// loss returns the mean perceptron loss and the mistakes of m over rows.
func (f *fitter) loss(m *Model, rows []int32) (float64, int) {
	var sum float64
	mistakes := 0
	K := m.NumRows()
	s := make([]float32, K)
	var dec []float32
	if K == 1 && m.Votes == nil && f.X != nil {
		dec = m.DecisionBatch(f.X, nil)
	}
	for _, i := range rows {
		c := int(f.cls[i])
		var mg float32
		if K == 1 {
			d := float32(0)
			if dec != nil {
				d = dec[i]
			} else {
				d = m.Decision(f.row(i))
			}
			mg = d
			if c == 0 {
				mg = -d
			}
		} else {
			m.Scores(f.row(i), s)
			mg = s[c] - s[bestOther(s, c)]
		}
		if mg <= 0 {
			mistakes++
			sum += float64(-mg)
		}
	}
	return sum / float64(max(1, len(rows))), mistakes
}

// rowScales returns 1/‖x‖ for every row of X (0 for a row of norm 0),
// the scale a learner with Normalize gives each row: a pass over the
// values, where a normalized copy of them would cost their size again.
func rowScales(X *sparse.CSR) []float32 {
	sc := make([]float32, X.Rows)
	parallelRows(X.Rows, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			sc[i] = invNorm(X.Val[X.Indptr[i]:X.Indptr[i+1]])
		}
	})
	return sc
}

// accuracyOn returns the fraction of rows m labels as y does.
func accuracyOn(m *Model, X *sparse.CSR, y []float64, rows []int32) float64 {
	right := 0
	for _, i := range rows {
		if m.Predict(X.Row(int(i))) == y[i] {
			right++
		}
	}
	return float64(right) / float64(max(1, len(rows)))
}

// accuracy is accuracyOn for the fitter's rows.
func (f *fitter) accuracy(m *Model, rows []int32) float64 {
	right := 0
	for _, i := range rows {
		if m.Predict(f.row(i)) == f.y[i] {
			right++
		}
	}
	return float64(right) / float64(max(1, len(rows)))
}

func finite32s(x []float32) bool {
	// Long slices go through the SIMD sum of squares a block at a time:
	// it is finite when every value is, and a block whose sum is not (a
	// non-finite value, or huge ones that overflow it) is looked at value
	// by value. A scalar loop was a visible part of an epoch for models
	// of millions of weights.
	const block = 4096
	for len(x) >= 32 {
		n := min(block, len(x))
		if s := asm.SumSqF32(x[:n]); s-s != 0 && !finiteLoop(x[:n]) {
			return false
		}
		x = x[n:]
	}
	return finiteLoop(x)
}

// finiteLoop is finite32s value by value.
func finiteLoop(x []float32) bool {
	for _, v := range x {
		if v-v != 0 { // NaN or ±Inf
			return false
		}
	}
	return true
}

// checkData validates X (the kernels read unchecked indices) and wraps the
// error in the engine's sentinel as well as sparse's: a non-finite value
// is ErrDiverged (a NaN makes every comparison false, so its row would
// silently never count as a mistake), anything else ErrDim.
func checkData(X *sparse.CSR) error {
	return dataErr(X.Validate())
}

// dataErr maps a sparse validation error to the engine's sentinels: a
// value that is not finite is ErrDiverged (as it would make the weights),
// anything else about the rows ErrDim.
func dataErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, sparse.ErrValue):
		return fmt.Errorf("%w: %w", ErrDiverged, err)
	default:
		return fmt.Errorf("%w: %w", ErrDim, err)
	}
}
