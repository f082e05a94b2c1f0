package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"

	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/hpc"
)

// Learner trains a perceptron one example at a time, for streams that do
// not fit in memory or keep arriving. It follows its Config as Fit does,
// except that it never stops by itself and never holds rows out; the
// Batch algorithm is not online and is refused.
//
// A Learner grows to the width of the rows it sees (up to Config.MaxDim),
// at least doubling each time it grows, so its Model can be wider than the
// widest row; features it has not seen weigh zero. It is not safe for
// concurrent use; Model returns a snapshot that is.
type Learner struct {
	st     *state
	rng    *rand.Rand
	err    error // sticky ErrDiverged
	passes int   // PartialFit and LearnFrom calls, for EpochStats.Epoch
	// updates counts the examples that changed the weights (Mix.Updates).
	updates int64
	// base is the state the learner started from (Config.Warm), nil for
	// zero weights or, with random, for InitScale's: Delta compares with
	// it.
	base   *Mix
	random bool
	// cf runs PartialFitCache's passes over the cache it last read, whose
	// block order each pass shuffles further, as FitCache's epochs do.
	cf *cacheFitter
}

// RowSource is a stream of labelled sparse rows, such as *libsvm.Scanner:
// Scan advances to the next row and reports whether there is one, Row
// returns it (valid until the next Scan), Err the error that ended the
// stream, if any.
type RowSource interface {
	Scan() bool
	Row() (label float64, x sparse.Vector)
	Err() error
}

// NewLearner returns a learner for the given class labels (at least two,
// any finite values) and initial width dim.
func NewLearner(classes []float64, dim int, cfg Config) (*Learner, error) {
	return newLearner(classes, dim, cfg, nil)
}

// newLearner is NewLearner taking over the arrays of spare, the state of
// a learner of no further use (see newStateFrom). Nothing fails once it
// has written to them.
func newLearner(classes []float64, dim int, cfg Config, spare *state) (*Learner, error) {
	s, err := cfg.settle()
	if err == nil {
		err = s.fitOnly("a Learner")
	}
	if err != nil {
		return nil, err
	}
	if s.Algorithm == Batch {
		return nil, fmt.Errorf("%w: the batch perceptron cannot learn online", ErrConfig)
	}
	if s.Validation != 0 || s.SampleWeight != nil || s.Balanced {
		return nil, fmt.Errorf("%w: Validation, SampleWeight and Balanced need a whole data set; use Fit, or LearnWeighted", ErrConfig)
	}
	c, err := checkClasses(classes, s.maxClass)
	if err != nil {
		return nil, err
	}
	if err := checkClassWeights(s.ClassWeight, c); err != nil {
		return nil, err
	}
	if w := s.Warm; w != nil {
		if err := s.checkWarm(w); err != nil {
			return nil, err
		}
		if !slices.Equal(c, w.Classes) {
			return nil, fmt.Errorf("%w: classes %v differ from the warm start's %v", ErrLabels, c, w.Classes)
		}
		if dim > w.Dim {
			return nil, fmt.Errorf("%w: width %d is wider than the warm start's %d", ErrDim, dim, w.Dim)
		}
		dim = w.Dim
	}
	if dim < 0 || dim > s.maxDim {
		return nil, fmt.Errorf("%w: width %d is outside [0, %d]", ErrDim, dim, s.maxDim)
	}
	if err := checkWeights(s, dim, c, 1); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(s.Seed, 0x9e3779b97f4a7c15))
	st := newStateFrom(s, c, dim, rng, spare)
	if s.Warm != nil {
		st.start(s.Warm)
	}
	st.spareSum = nil
	st.classWeights(nil)
	st.touched = reuse(st.touched, (dim+63)/64)
	return &Learner{st: st, rng: rng, base: s.Warm, random: s.Warm == nil && s.InitScale > 0}, nil
}

// NewLearnerFrom returns a learner that starts from the state start: its
// classes, width, weights and, for the averaged perceptron, the weight
// vectors it has averaged so far. It is NewLearner(start.Classes,
// start.Dim, cfg) with cfg.Warm = start.
func NewLearnerFrom(start *Mix, cfg Config) (*Learner, error) {
	return newLearnerFrom(start, cfg, nil)
}

// newLearnerFrom is NewLearnerFrom taking over the arrays of spare (see
// newLearner).
func newLearnerFrom(start *Mix, cfg Config, spare *state) (*Learner, error) {
	if start == nil {
		return nil, fmt.Errorf("%w: nil start state", ErrConfig)
	}
	cfg.Warm = start
	return newLearner(start.Classes, start.Dim, cfg, spare)
}

// Restart makes l the learner that NewLearnerFrom(start, cfg) returns,
// but for the rows it holds of the cache it last learned from: the
// blocks of a file of one window or less, which PartialFitCache keeps.
// Its next PartialFitCache on that same File does not read them again,
// and makes the pass a new learner's would. A driver of parameter mixing
// that starts a shard's learner from the mixed state every epoch keeps
// the shard in memory this way. On an error l is unchanged.
func (l *Learner) Restart(start *Mix, cfg Config) error {
	// The new learner takes over the old one's arrays (see newLearner),
	// which its errors leave as they were.
	n, err := newLearnerFrom(start, cfg, l.st)
	if err != nil {
		return err
	}
	if cf := l.cf; cf != nil && cf.resident != nil {
		if n.cf, err = newCacheFitterWith(n.st, cf.c, n.rng, cf); err != nil {
			return err
		}
	}
	*l = *n
	return nil
}

// Mix returns the learner's state (copies of its weights, accumulators
// and history), to be merged with other learners' (Mix.Merge) or to
// start another learner or fit from (Config.Warm). Its N counts the
// examples learned since the learner started (and Updates their updates).
// The voted perceptron and the SGD rules (Rule.SGD) keep state that a
// Mix does not hold, and are refused.
func (l *Learner) Mix() (*Mix, error) {
	if err := l.mixable(); err != nil {
		return nil, err
	}
	return l.st.mixOf(l.updates), nil
}

// mixable returns the error of Mix and Delta for a learner whose state a
// Mix does not hold, or the learner's own error.
func (l *Learner) mixable() error {
	if s := &l.st.s; s.Algorithm == Voted || s.Rule.SGD() {
		return fmt.Errorf("%w: %v %v keeps state that a Mix does not hold", ErrConfig, s.Rule, s.Algorithm)
	}
	return l.err
}

// Delta returns what the learner learned since it started, as a sparse
// delta (see Mix) against the state it started from (NewLearnerFrom's
// start, or zero weights): its biases, counts and accumulators; the
// weights and accumulators of the features of the rows it learned whose
// weights differ from the start's bits or whose accumulators are not
// zero; and, in Seen, the other features of those rows. Merge reads it as
// it reads the learner's Mix, bit for bit, and a driver learns from
// Features and Seen together which features the learner saw. It takes
// time proportional to those features (and a scan of one bit per feature
// of the width), where Mix.Delta compares all the weights. A learner
// started from InitScale's random weights lists every feature it saw as
// changed. The voted perceptron and the SGD rules are refused, as Mix
// refuses them.
func (l *Learner) Delta() (*Mix, error) {
	if err := l.mixable(); err != nil {
		return nil, err
	}
	st := l.st
	K := st.K
	// The touched features bound the lists, so they grow without copies;
	// they are filled as locals (no write barriers) and set at the end.
	n := 0
	for _, t := range st.touched {
		n += bits.OnesCount64(t)
	}
	feat, w := make([]int32, 0, n), make([]float32, 0, n*K)
	var seen []int32
	var acc []float64
	if st.u != nil {
		acc = make([]float64, 0, n*K)
	}
	if K == 1 {
		feat, w, acc, seen = l.deltaBinary(feat, w, acc, n)
	} else {
		feat, w, acc, seen = l.deltaRows(feat, w, acc, n)
	}
	d := &Mix{
		Classes: slices.Clone(st.classes), Dim: st.dim, Features: feat, Seen: seen,
		W: w, B: slices.Clone(st.b), N: st.c, Updates: l.updates,
	}
	if st.u != nil {
		d.U, d.UB = acc, slices.Clone(st.ub)
	}
	return d, nil
}

// deltaRows is Delta's walk over the touched features for K weight rows:
// feat, w and acc come empty with room for the n touched features.
func (l *Learner) deltaRows(feat []int32, w []float32, acc []float64, n int) ([]int32, []float32, []float64, []int32) {
	st := l.st
	K := st.K
	var seen []int32
	b := baseWalk{m: l.base, K: K}
	for i, t := range st.touched {
		for t != 0 {
			j := i*64 + bits.TrailingZeros64(t)
			t &= t - 1
			wj, bw := st.w[j*K:j*K+K], b.at(j)
			changed := l.random
			for c := range wj {
				if math.Float32bits(wj[c]) != math.Float32bits(bw[c]) {
					changed = true
				}
			}
			if st.u != nil && !changed {
				for _, x := range st.u[j*K : j*K+K] {
					if math.Float64bits(x) != 0 {
						changed = true
					}
				}
			}
			if !changed {
				if seen == nil {
					seen = make([]int32, 0, n-len(feat))
				}
				seen = append(seen, int32(j))
				continue
			}
			feat = append(feat, int32(j))
			w = append(w, wj...)
			if st.u != nil {
				acc = append(acc, st.u[j*K:j*K+K]...)
			}
		}
	}
	return feat, w, acc, seen
}

// deltaBinary is Delta's walk over the touched features for one weight a
// feature: the same lists, without the loops over classes, with the
// start's weights read in place when it is dense, and without a branch on
// whether a feature changed (every feature is written to both lists, and
// the list it belongs to keeps it). feat, w and acc come empty with room
// for the n touched features.
func (l *Learner) deltaBinary(feat []int32, w []float32, acc []float64, n int) ([]int32, []float32, []float64, []int32) {
	st := l.st
	var base []float32
	dense := l.base == nil || l.base.Features == nil
	if l.base != nil && dense {
		base = l.base.W[:l.base.Dim]
	}
	b := baseWalk{m: l.base, K: 1}
	sw, su := st.w, st.u
	feat, w = feat[:n], w[:n]
	if su != nil {
		acc = acc[:n]
	}
	seen := make([]int32, n)
	nf, ns := 0, 0
	for i, t := range st.touched {
		for t != 0 {
			j := i*64 + bits.TrailingZeros64(t)
			t &= t - 1
			var bw float32
			switch {
			case !dense:
				bw = b.at(j)[0]
			case j < len(base):
				bw = base[j]
			}
			wj := sw[j]
			diff := math.Float32bits(wj) ^ math.Float32bits(bw)
			if su != nil {
				diff |= uint32(math.Float64bits(su[j])) | uint32(math.Float64bits(su[j])>>32)
				acc[nf] = su[j]
			}
			c := 0
			if diff != 0 || l.random {
				c = 1
			}
			feat[nf], w[nf], seen[ns] = int32(j), wj, int32(j)
			nf += c
			ns += 1 - c
		}
	}
	if su != nil {
		acc = acc[:nf]
	}
	if ns == 0 {
		seen = nil
	}
	return feat[:nf], w[:nf], acc, seen[:ns]
}

// baseWalk gives Learner.Delta the weights of the state a learner
// started from, feature after increasing feature: a sparse start is
// walked once.
type baseWalk struct {
	m    *Mix
	K    int
	p    int       // the next listed feature of a sparse m
	zero []float32 // K zeros, for the features m does not hold
}

// at returns the K weights of feature j in the start, zeros where it has
// none; j must not decrease from one call to the next.
func (b *baseWalk) at(j int) []float32 {
	m, K := b.m, b.K
	if m != nil && j < m.Dim {
		if m.Features == nil {
			return m.W[j*K : j*K+K]
		}
		for b.p < len(m.Features) && int(m.Features[b.p]) < j {
			b.p++
		}
		if b.p < len(m.Features) && int(m.Features[b.p]) == j {
			return m.W[b.p*K : b.p*K+K]
		}
	}
	if b.zero == nil {
		b.zero = make([]float32, K)
	}
	return b.zero
}

// PartialFitCache makes one pass over the rows of the cache c, streamed
// and shuffled as an epoch of FitCache streams and shuffles them (blocks
// in a random order, the rows of CacheWindow blocks interleaved; in file
// order with NoShuffle), drawn from the learner's generator: calls on the
// same File make the epochs FitCache makes with the same seed. The
// learner holds at most 2·CacheWindow blocks of the file, so a shard
// larger than memory streams; it keeps them (the whole file, when that
// is one window or less) for its next call on the same File, which must
// not be closed before the learner is done with it. Every row's label must be one of the
// learner's classes; a cache wider than the learner widens it (up to
// MaxDim). It checks ctx every 65536 rows; on an error, the rows learned
// before it stay learned, and a corrupt block is reported as FitCache
// reports it.
func (l *Learner) PartialFitCache(ctx context.Context, c *hpc.File) (EpochStats, error) {
	if l.err != nil {
		return EpochStats{}, l.err
	}
	if err := oneLabelCache(c); err != nil {
		return EpochStats{}, err
	}
	if err := l.widen(c.Cols()); err != nil {
		return EpochStats{}, fmt.Errorf("%s: %w", c.Name(), err)
	}
	l.passes++
	var es EpochStats
	err := func() error {
		if l.cf == nil || l.cf.c != c {
			cf, err := newCacheFitter(l.st, c, l.rng)
			if err != nil {
				return err
			}
			l.cf = cf
		}
		var err error
		es, err = l.cf.epoch(ctx, l.passes, false)
		return err
	}()
	l.updates += int64(es.Updates)
	if cerr := l.st.check(l.passes); cerr != nil {
		l.err = fmt.Errorf("%w; the learner is unusable", cerr)
		return numbered(es, l.passes), l.err
	}
	return numbered(es, l.passes), err
}

// Learn learns one example and reports whether the learner got it wrong
// before the update (its progressive validation error). The row must be
// valid (sparse.Vector.Validate); a label outside the learner's classes or
// a row wider than MaxDim is an error and changes nothing. An update that
// makes a weight NaN or infinite returns ErrDiverged, and so does every
// later call.
func (l *Learner) Learn(x sparse.Vector, y float64) (mistake bool, err error) {
	return l.LearnWeighted(x, y, 1)
}

// LearnWeighted is Learn with a sample weight ≥ 0 that multiplies the
// update.
func (l *Learner) LearnWeighted(x sparse.Vector, y float64, weight float64) (bool, error) {
	o, err := l.learn(x, y, weight, false)
	return o.mistake, err
}

// learn learns one row; valid says the caller has validated it already.
func (l *Learner) learn(x sparse.Vector, y float64, weight float64, valid bool) (outcome, error) {
	if l.err != nil {
		return outcome{}, l.err
	}
	if !(weight >= 0) || weight > 1e30 {
		return outcome{}, fmt.Errorf("%w: sample weight %v", ErrConfig, weight)
	}
	c, sc, err := l.admit(x, y, valid)
	if err != nil {
		return outcome{}, err
	}
	st := l.st
	o := st.step(x.Ind, x.Val, sc, c, float32(weight), -1)
	if o.update {
		l.updates++
		if !st.finiteAt(x.Ind) {
			// A NaN weight would make every later comparison false, and the
			// learner would silently stop learning: stop it loudly instead.
			l.err = st.divergedAt()
			return o, l.err
		}
	}
	return o, nil
}

// admit readies the learner for row x of label y before it is learned:
// it returns the label's class index and the row's scale (see
// state.step), having checked the row (unless valid says the caller has),
// widened the learner to it and marked its features touched. A label
// outside the classes, a bad row or a row too wide is an error, and
// changes nothing.
func (l *Learner) admit(x sparse.Vector, y float64, valid bool) (int, float32, error) {
	st := l.st
	c := classIndex(st.classes, y+0)
	if c < 0 {
		return 0, 0, fmt.Errorf("%w: %v (classes %v)", ErrUnknownLabel, y, st.classes)
	}
	if !valid {
		if err := x.Validate(); err != nil {
			return 0, 0, dataErr(err)
		}
	}
	if n := len(x.Ind); n > 0 && int(x.Ind[n-1]) >= st.dim {
		if err := l.widen(int(x.Ind[n-1]) + 1); err != nil {
			return 0, 0, err
		}
	}
	sc := float32(1)
	if st.s.Normalize {
		sc = invNorm(x.Val)
	}
	st.markTouched(x.Ind)
	return c, sc, nil
}

// widen grows the learner to need features if it is narrower.
func (l *Learner) widen(need int) error {
	st := l.st
	if need > st.dim {
		if need > st.s.maxDim {
			return fmt.Errorf("%w: feature %d is past MaxDim %d", ErrDim, need-1, st.s.maxDim)
		}
		// As Fit refuses a matrix too wide for its classes, so the learner
		// refuses a row that would grow it past what a model holds,
		// before allocating (one row of a hostile stream must not exhaust
		// memory).
		most := maxWeights / int64(st.K) // int64: 2^31 overflows a 32-bit int
		if int64(need) > most {
			return fmt.Errorf("%w: feature %d × %d classes is more weights than a model holds", ErrDim, need-1, len(st.classes))
		}
		grow := int(min(int64(st.s.maxDim), most, int64(max(need, 2*st.dim))))
		if grow > need && checkWeights(st.s, grow, st.classes, 1) != nil {
			// Doubling would pass the budget: grow only as far as the row.
			grow = need
		}
		if err := checkWeights(st.s, grow, st.classes, 1); err != nil {
			return err
		}
		st.grow(grow)
	}
	return nil
}

// PartialFit makes one pass over the rows of X with labels y, in a random
// order drawn from the learner's seed unless NoShuffle, and returns its
// statistics (their Epoch counts the learner's passes, PartialFit and
// LearnFrom calls alike). Each call shuffles the rows' own order afresh,
// where Fit shuffles the order of its previous epoch, so shuffled calls
// after the first do not repeat Fit's epochs; with NoShuffle they do. It
// checks ctx every 65536 rows; on an error the rows before it have been
// learned.
func (l *Learner) PartialFit(ctx context.Context, X *sparse.CSR, y []float64) (EpochStats, error) {
	if X == nil || len(y) != X.Rows {
		return EpochStats{}, fmt.Errorf("%w: labels and rows differ in number", ErrLabels)
	}
	if err := X.Validate(); err != nil {
		return EpochStats{}, dataErr(err)
	}
	order := make([]int, X.Rows)
	for i := range order {
		order[i] = i
	}
	if !l.st.s.NoShuffle {
		shuffle(l.rng, order)
	}
	return l.pass(ctx, &matrixRows{l: l, X: X, y: y, order: order}, func(k int) string { return fmt.Sprintf("row %d", order[k]) })
}

// LearnFrom learns every row of src, in stream order, and returns the
// statistics of the pass. Memory stays bounded by the model, whatever the
// length of the stream. It checks ctx every 65536 rows.
func (l *Learner) LearnFrom(ctx context.Context, src RowSource) (EpochStats, error) {
	return l.pass(ctx, &streamRows{l: l, src: src}, func(k int) string { return fmt.Sprintf("row %d of the stream", k+1) })
}

// pass makes one of the learner's passes over the rows of src: rows whose
// label, values or width the learner refuses end it with that error, as
// does an update that makes a weight not finite; the rows before either
// stay learned. name names the pass's row k in an error.
func (l *Learner) pass(ctx context.Context, src rowSource, name func(k int) string) (EpochStats, error) {
	if l.err != nil {
		return EpochStats{}, l.err
	}
	l.passes++
	t, err := l.st.learnPass(ctx, src, passMode{guard: true})
	l.updates += int64(t.updates)
	if errors.Is(err, ErrDiverged) {
		// The row that diverged is the last one counted.
		l.err = err
		err = fmt.Errorf("%s: %w", name(t.rows-1), err)
	}
	return l.stats(t), err
}

// matrixRows is the source of Learner.PartialFit: the rows of X with
// labels y, in the order order.
type matrixRows struct {
	l     *Learner
	X     *sparse.CSR
	y     []float64
	order []int
	next  int // the position in order of the next row
}

func (r *matrixRows) fill(b *rowBatch) (bool, error) {
	b.reset(false, r.l.st.s.Normalize, false)
	for ; r.next < len(r.order) && len(b.cls) < passBatch; r.next++ {
		i := r.order[r.next]
		x := r.X.Row(i)
		c, sc, err := r.l.admit(x, r.y[i], true)
		if err != nil {
			return false, fmt.Errorf("row %d: %w", i, err)
		}
		b.add(x, c, sc)
	}
	return r.next < len(r.order), nil
}

// streamRows is the source of Learner.LearnFrom: the rows of src, copied
// (src's row is valid only until its next Scan).
type streamRows struct {
	l    *Learner
	src  RowSource
	n    int // rows read
	ind  []int32
	val  []float32
	ends []int // where each row of the batch ends in ind and val
	done bool
}

func (r *streamRows) fill(b *rowBatch) (bool, error) {
	b.reset(false, r.l.st.s.Normalize, false)
	if r.done {
		return false, nil
	}
	// The rows of a batch are copied into one buffer, in place of the
	// last batch's, and sliced out of it once it has stopped growing.
	r.ind, r.val = r.ind[:0], r.val[:0]
	ends := r.ends[:0]
	defer func() { r.ends = ends[:0] }()
	for len(b.cls) < passBatch {
		if !r.src.Scan() {
			r.done = true
			break
		}
		y, x := r.src.Row()
		r.n++
		c, sc, err := r.l.admit(x, y, false)
		if err != nil {
			r.done = true
			r.cut(b, ends)
			return false, fmt.Errorf("row %d of the stream: %w", r.n, err)
		}
		r.ind = append(r.ind, x.Ind...)
		r.val = append(r.val, x.Val...)
		ends = append(ends, len(r.ind))
		b.cls = append(b.cls, int32(c))
		if b.scale != nil {
			b.scale = append(b.scale, sc)
		}
	}
	r.cut(b, ends)
	if r.done {
		return false, r.src.Err()
	}
	return true, nil
}

// cut slices the batch's rows out of the buffer, row k ending at ends[k].
func (r *streamRows) cut(b *rowBatch, ends []int) {
	lo := 0
	for _, hi := range ends {
		b.ind = append(b.ind, r.ind[lo:hi:hi])
		b.val = append(b.val, r.val[lo:hi:hi])
		lo = hi
	}
}

// Model returns a snapshot of the model so far (averaged, or with its
// votes, as the algorithm asks). The learner can go on afterwards.
func (l *Learner) Model() *Model { return l.st.model() }

// Seen returns the number of examples learned.
func (l *Learner) Seen() int64 { return int64(l.st.c) }

// stats returns the statistics of the pass t as those of the learner's
// latest pass, numbered as drive numbers epochs.
func (l *Learner) stats(t passStats) EpochStats {
	return numbered(t.stats(t.rows), l.passes)
}
