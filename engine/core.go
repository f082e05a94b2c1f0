package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"unsafe"

	"github.com/hyperplane-ml/hyperplane/asm"
	"github.com/hyperplane-ml/hyperplane/engine/internal/kern"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// state is the weights of an online learner while it trains, shared by
// Fit and Learner.
//
// Averaging uses the lazy trick (Daumé 2006): with c the number of
// examples seen before the current one, u accumulates c·Δw over all
// updates; after T examples the average of the T weight vectors that
// followed each example is w − u/T. No example costs O(dim), and u is
// float64 so that the average stays exact over millions of updates.
type state struct {
	s       settings
	classes []float64
	K       int // weight rows: 1 for binary
	dim     int
	w       []float32 // dim×K, feature-major
	b       []float32 // K, effective bias (constant feature folded in)
	u       []float64 // averaging accumulator, nil when not averaging
	ub      []float64
	c       float64 // examples seen
	// h is Σ_{t≤c} 1/(t+t0), the harmonic number H_c shifted by
	// the SGD rules' offset t0: their averaging clock (see clock).
	h float64
	// c0 is the number of examples seen when an SGD rule's average
	// restarted (see restartAverage): the model averages the weights
	// after examples c0+1…c. 0 when it never restarted.
	c0 float64
	// grad is the softmax rule's scratch: a step per class.
	grad   []float32
	bb     float32 // biasScale², the bias gain of an update
	cw     []float32
	scores []float32 // K scratch
	votes  *voteLog
	// With parameter mixing (Config.Workers > 1) and averaging, sum holds
	// the sum of every weight vector the workers went through and sumN
	// their number; the model is sum/sumN instead of w − u/c.
	sum, sumB []float64
	sumN      float64
	// hist: sum, sumB and sumN hold the history of a warm start
	// (Config.Warm), weight vectors that w, u and c do not count, for a
	// learner that is not mixing; the model is then
	// (sum + c·w − u)/(sumN + c).
	hist bool
	// batch is a pass's rows in visiting order (see learnPass).
	batch rowBatch
	// wu holds w and u interleaved during a pass of a binary averaged
	// learner with large weights (see interleaved): feature j's weight is
	// wu[4j] and its accumulator wu64[2j+1], one 16-byte slot. wu is a
	// float32 view of wu64.
	wu64 []float64
	wu   []float32
	// hotCols, when > 0, is how many of the first columns, in order of
	// frequency, hold most of the rows' values (see cachedBytes).
	hotCols int
	// touched, when not nil, has bit j set once a row with feature j has
	// been learned (or visited by a pass): a Learner keeps it so that its
	// Delta lists those features without a scan of the weights.
	touched []uint64
	// quiet says that the last pass updated fewer than a quarter of its
	// rows (see cachedBytes); a new state is not.
	quiet bool
	// spareSum is an array of a state of no further use that start may
	// take for sum (see newStateFrom).
	spareSum []float64
}

// reuse returns spare[:n] cleared when spare has n values, else a new
// slice of n zeros.
func reuse[T any](spare []T, n int) []T {
	if len(spare) != n || n == 0 {
		return make([]T, n)
	}
	clear(spare)
	return spare
}

// markTouched sets the bits of the features ind in st.touched, if kept.
func (st *state) markTouched(ind []int32) {
	if t := st.touched; t != nil {
		for _, j := range ind {
			t[j>>6] |= 1 << (uint(j) & 63)
		}
	}
}

// voteLog records the voted perceptron's mistakes while it trains.
type voteLog struct {
	rowOf  []int32 // training row → SV row, −1 if none (Fit only)
	indptr []int64
	ind    []int32
	val    []float32
	steps  []VoteStep
	count0 int64
	w0, b0 []float32
}

// weightRows is the number of weight vectors a model of classes keeps: one
// for two classes, one per class for more.
func weightRows(classes []float64) int {
	if len(classes) == 2 {
		return 1
	}
	return len(classes)
}

// newState allocates the weights for classes and dim.
func newState(s settings, classes []float64, dim int, rng *rand.Rand) *state {
	return newStateFrom(s, classes, dim, rng, nil)
}

// newStateFrom is newState taking over the arrays of spare, a state of
// no further use, where they are as long as wanted (cleared), instead of
// allocating them: a learner restarted every epoch (Learner.Restart)
// would otherwise allocate and clear its weights, accumulators, history
// and interleaved slots each time, and leave as much to the collector.
func newStateFrom(s settings, classes []float64, dim int, rng *rand.Rand, spare *state) *state {
	K := weightRows(classes)
	if spare == nil {
		spare = new(state)
	}
	st := &state{
		s: s, classes: classes, K: K, dim: dim,
		w:      reuse(spare.w, dim*K),
		b:      make([]float32, K),
		scores: make([]float32, K),
		bb:     s.biasScale * s.biasScale,
	}
	if len(spare.wu64) == 2*dim*K && dim*K > 0 {
		clear(spare.wu64)
		st.wu64, st.wu = spare.wu64, spare.wu
	}
	st.spareSum, st.touched = spare.sum, spare.touched
	if s.InitScale > 0 {
		r := float32(s.InitScale)
		for i := range st.w {
			st.w[i] = (2*rng.Float32() - 1) * r
		}
		if s.Bias != NoBias {
			for i := range st.b {
				st.b[i] = (2*rng.Float32() - 1) * r * s.biasScale
			}
		}
	}
	if s.Algorithm == Averaged || s.Algorithm == Voted {
		st.u = reuse(spare.u, dim*K)
		st.ub = make([]float64, K)
	}
	if s.Algorithm == Voted {
		st.votes = &voteLog{indptr: []int64{0}}
		if s.InitScale > 0 {
			st.votes.w0 = append([]float32(nil), st.w...)
			st.votes.b0 = append([]float32(nil), st.b...)
		}
	}
	return st
}

// classWeights fills st.cw from the config and, for Balanced, the class
// counts of the training labels (cls, one class index per row).
func (st *state) classWeights(cls []int32) {
	s := st.s
	if len(s.ClassWeight) == 0 && !s.Balanced {
		return
	}
	st.cw = make([]float32, len(st.classes))
	var n []int
	if s.Balanced {
		n = make([]int, len(st.classes))
		for _, c := range cls {
			n[c]++
		}
	}
	for i, label := range st.classes {
		w := 1.0
		if v, ok := s.ClassWeight[label]; ok {
			w = v
		}
		if s.Balanced && n[i] > 0 {
			w *= float64(len(cls)) / float64(len(st.classes)*n[i])
		}
		st.cw[i] = float32(w)
	}
}

// traceMistake, when set (by tests in this package only), is called with
// the training row of every mistake, by the primal and the dual learners
// alike, so that a test can compare their sequences.
var traceMistake func(row int)

// outcome is what one example did.
type outcome struct {
	mistake, update bool
	loss            float32
}

// step learns one example: row (ind, val) of class index cls with weight
// weight. sc is the row's scale, 1/‖x‖ (0 for a row of norm 0), which
// only a learner with Normalize reads: it learns x·sc without a copy of
// the row, scaling the row's score and its step the way Model scales a
// row's score. svRow identifies the training row for the voted log (−1
// when rows have no identity, as in a stream).
func (st *state) step(ind []int32, val []float32, sc float32, cls int, weight float32, svRow int) outcome {
	if st.cw != nil {
		weight *= st.cw[cls]
	}
	var o outcome
	if st.K == 1 {
		var a float32
		dot := asm.DotIndF32(val, ind, st.w)
		if st.s.Normalize {
			dot *= sc
		}
		o, a = st.judge(dot, val, sc, cls, weight, svRow)
		if o.update {
			st.update1(ind, val, a, st.rowStep(a, sc), svRow)
		}
	} else {
		K := st.K
		s := st.scores
		if st.s.Normalize {
			// As Model.scores: W·x from zero, scaled, then the biases.
			clear(s)
			addScores(st.w, ind, val, s)
			for k := range s {
				s[k] = s[k]*sc + st.b[k]
			}
		} else {
			copy(s, st.b)
			addScores(st.w, ind, val, s)
		}
		r := bestOther(s, cls)
		var a float32
		switch {
		case st.s.Rule == Perceptron:
			o = st.decide(s[cls]-s[r], weight, svRow)
			a = st.s.eta * weight
		case st.s.spec.softmax:
			o = st.softmaxStep(ind, val, sc, cls, r, weight, svRow)
		default:
			o, a = st.hinge(s[cls]-s[r], val, sc, 2, weight, svRow)
		}
		if o.update && !st.s.spec.softmax {
			// Class cls gains a·x and class r loses it: one pass over the
			// row moves both classes' weights and accumulators, whose
			// elements for a feature lie side by side. The biases move by
			// a, the weights by ax (a·sc when rows are normalized).
			ax := st.rowStep(a, sc)
			var ca, cax float64
			if st.u != nil {
				ca = st.clock() * float64(a)
				cax = st.clock() * float64(ax)
			}
			kern.AxpyAvgPairF32(ax, cax, val, ind, K, cls, r, st.w, st.u)
			st.b[cls] += a * st.bb
			st.b[r] -= a * st.bb
			if st.u != nil {
				st.ub[cls] += ca * float64(st.bb)
				st.ub[r] -= ca * float64(st.bb)
			}
			st.logVote(ind, val, svRow, cls, r, a)
		}
	}
	st.tick()
	return o
}

// softmaxStep learns a multiclass example by the multinomial log loss,
// for an SGD rule with softmax: st.scores holds the row's scores in v's
// units (see hinge), r is the best other class. Every class k gains
// weight·([k = cls] − p_k)·x in v, p the softmax of the real scores (the
// scores over λ(c+t0)), with the averaging accumulators moved as step
// moves them.
func (st *state) softmaxStep(ind []int32, val []float32, sc float32, cls, r int, weight float32, svRow int) outcome {
	var o outcome
	s := st.scores
	d := st.s.lambda * (st.c + st.s.t0)
	if m := s[cls] - s[r]; m <= 0 {
		o.mistake, o.loss = true, float32(-float64(m)/d)
		if traceMistake != nil {
			traceMistake(svRow)
		}
	}
	if !(weight > 0) {
		return o
	}
	K := st.K
	if len(st.grad) != 2*K {
		st.grad = make([]float32, 2*K)
	}
	a, ax := st.grad[:K], st.grad[K:]
	softmaxGrad(s, d, cls, weight, a)
	for k := range a {
		ax[k] = st.rowStep(a[k], sc)
	}
	clk := st.clock()
	ind = ind[:len(val)]
	if st.u == nil {
		for i, x := range val {
			j := int(ind[i]) * K
			w := st.w[j : j+K]
			for k := range w {
				w[k] += ax[k] * x
			}
		}
	} else {
		for i, x := range val {
			j := int(ind[i]) * K
			w, u := st.w[j:j+K], st.u[j:j+K]
			for k := range w {
				w[k] += ax[k] * x
				u[k] += clk * float64(ax[k]) * float64(x)
			}
		}
	}
	for k := range a {
		st.b[k] += a[k] * st.bb
		if st.u != nil {
			st.ub[k] += clk * float64(a[k]) * float64(st.bb)
		}
	}
	o.update = true
	return o
}

// softmaxGrad writes into a the step of every class for an example of
// class cls and weight weight whose scores are s/d: weight·([k = cls] −
// p_k), p = softmax(s/d), computed in float64 from the largest score so
// that no exponential overflows.
func softmaxGrad(s []float32, d float64, cls int, weight float32, a []float32) {
	hi := s[0]
	for _, v := range s[1:] {
		hi = max(hi, v)
	}
	var z float64
	for k, v := range s {
		e := math.Exp((float64(v) - float64(hi)) / d)
		a[k] = float32(e)
		z += e
	}
	for k := range a {
		p := float64(a[k]) / z
		if k == cls {
			p--
		}
		a[k] = float32(-float64(weight) * p)
	}
}

// rowStep is the step of the weights for a step a of the bias: a·sc for
// a learner with Normalize, a otherwise.
func (st *state) rowStep(a, sc float32) float32 {
	if st.s.Normalize {
		return a * sc
	}
	return a
}

// labelSign is a binary learner's label for class index c: +1 for class
// 1 and −1 for any other. It selects the bits of the two floats with an
// integer conditional move rather than a branch: in shuffled order the
// labels are as good as random, and a branch on them is mispredicted for
// about as many rows as the smaller class has, each time discarding the
// work begun on the row's dot product.
func labelSign(c int32) float32 {
	b := uint32(0xbf800000) // −1
	if c == 1 {
		b = 0x3f800000 // +1
	}
	return math.Float32frombits(b)
}

// judge is the binary learner's decision on an example of class index cls
// whose row has values val and dot product dot with w: whether it is a
// mistake, whether to update, and the update's step a (signed by the
// label).
func (st *state) judge(dot float32, val []float32, sc float32, cls int, weight float32, svRow int) (outcome, float32) {
	y := labelSign(int32(cls))
	if st.s.Rule != Perceptron {
		o, a := st.hinge(y*(dot+st.b[0]), val, sc, 1, weight, svRow)
		return o, a * y
	}
	o := st.decide(y*(dot+st.b[0]), weight, svRow)
	if !o.update {
		return o, 0
	}
	return o, st.s.eta * weight * y
}

// hinge is the decision of the large-margin rules on an example of margin
// m (in the units of st.w) whose row has values val and scale sc (see
// step), and the step τ ≥ 0 of its update along n copies of the row (1
// for a binary learner; 2 for a multiclass one, where one class gains τ·x
// and another loses it).
func (st *state) hinge(m float32, val []float32, sc float32, n float32, weight float32, svRow int) (outcome, float32) {
	var o outcome
	s := &st.s
	// The SGD rules keep w = v/(λ(c+t0)) in st.w as v: the margin of w
	// is m/d. (Before the first example w = v = 0.)
	var d float64
	if s.spec.sgd {
		d = s.lambda * (st.c + s.t0)
	}
	if m <= 0 {
		o.mistake, o.loss = true, -m
		if thr := float32(d); thr > 0 {
			o.loss = -m / thr
		}
		if traceMistake != nil {
			traceMistake(svRow)
		}
	}
	if s.spec.sgd {
		// v gains the loss's gain at the margin of w times y·x (the step
		// 1/(λt) is in the scale).
		if !(weight > 0) {
			return o, 0
		}
		var g float32
		if s.spec.gain == nil {
			g = hingeGain(m, d)
		} else {
			g = s.spec.gain(m, d)
		}
		a := weight * g
		o.update = a > 0
		return o, a
	}
	if !(m <= 1 && weight > 0) {
		return o, 0
	}
	l := 1 - m
	var xx float32 // ‖x‖² of the row the learner sees
	switch {
	case !s.Normalize:
		xx = asm.SumSqF32(val)
	case sc > 0:
		xx = 1
	}
	q := n * (xx + st.bb)
	if !(q > 0) || !(l > 0) {
		// An empty row without a bias moves nothing.
		return o, 0
	}
	tau := paStep(s.Rule, l, q, s.cAgg*weight)
	if s.Rule == PA {
		// PA has no C for the weight to scale: it scales the step.
		tau *= weight
	}
	o.update = tau > 0
	return o, tau
}

// paStep is the step of a passive-aggressive rule on an example with
// hinge loss l > 0 and squared norm q > 0 (of its feature-map difference)
// with aggressiveness c: l/q for PA, min(c, l/q) for PA-I, l/(q + 1/(2c))
// for PA-II (Crammer et al. 2006). The primal and the dual learners share
// it.
func paStep(rule Rule, l, q, c float32) float32 {
	switch rule {
	case PA1:
		return min(c, l/q)
	case PA2:
		return l / (q + 1/(2*c))
	}
	return l / q
}

// clock is the weight of an update in the averaging accumulator u: the
// examples seen before it, c, for the rules whose weights are st.w; h for
// the SGD rules, whose weights after example t are v/(λ(t+t0)), so that
// the sum of the weights after examples 1…T is (h_T·v − u)/λ.
func (st *state) clock() float64 {
	if st.s.spec.sgd {
		return st.h
	}
	return st.c
}

// decide is what an example with margin m (the true class's score less
// the best other's) does: a mistake when m ≤ 0, an update when m ≤ τ.
func (st *state) decide(m, weight float32, svRow int) outcome {
	var o outcome
	if m <= 0 {
		o.mistake, o.loss = true, -m
		if traceMistake != nil {
			traceMistake(svRow)
		}
	}
	o.update = m <= st.s.tau && weight > 0
	return o
}

// update1 adds ax·x to a binary learner's weights and a·bb to its bias
// (and their multiples by the clock to the averaging accumulators); ax is
// a but for a learner with Normalize (see rowStep).
func (st *state) update1(ind []int32, val []float32, a, ax float32, svRow int) {
	st.b[0] += a * st.bb
	if st.u != nil {
		// One pass updates w and u together: both are indexed by the same
		// features, so the second scatter would re-read the row for
		// nothing. The kernel is the Go loop's arithmetic, its index
		// check folded into the loop.
		ca := st.clock() * float64(ax)
		asm.AxpyAvgF32(ax, ca, val, ind, st.w, st.u)
		st.ub[0] += st.clock() * float64(a) * float64(st.bb)
	} else {
		asm.AxpyIndF32(ax, val, ind, st.w)
	}
	st.logVote(ind, val, svRow, 0, -1, a)
}

// startEpoch readies st for epoch e of a fit. An SGD rule with
// suffixAverage restarts its average before epoch ⌊E/2⌋+1 of E, so that
// the model averages the weights of the last ⌈E/2⌉ epochs only: with the
// step 1/(λ(t+t0)) and λ small, the steps barely shrink over a fit's
// epochs, and the weights of its first half, still far from the
// optimum, would pull the average back towards where training began
// (α-suffix averaging, Rakhlin, Shamir and Sridharan 2012, with α = 1/2).
func (st *state) startEpoch(e int) {
	if st.s.spec.suffixAverage && st.u != nil && e > 1 && e == st.s.epochs/2+1 {
		st.restartAverage()
	}
}

// restartAverage makes an SGD rule's average start afresh, from the
// weights after the next example on. With Δ_s what example s adds to v and
// h_s the clock after it, the weights after example t are
// v_t/(λ(t+t0)), v_t = Σ_{s≤t} Δ_s, so the sum of those after examples
// c0+1…T is
//
//	Σ_{t>c0} v_t/(λ(t+t0)) = (Σ_{s≤c0} Δ_s·(h_T − h_c0) + Σ_{s>c0} Δ_s·(h_T − h_{s−1}))/λ
//	                        = (h_T·v_T − h_c0·v_c0 − Σ_{s>c0} h_{s−1}·Δ_s)/λ,
//
// which is (h_T·v_T − u_T)/λ if u is set to h_c0·v_c0 now and goes on
// gaining h_{s−1}·Δ_s with every update, as it does. The mean divides by
// T − c0 (see sgdModel). The weights must not be on the interleaved
// layout (see passLayout): it runs between passes.
func (st *state) restartAverage() {
	st.c0 = st.c
	for j, v := range st.w {
		st.u[j] = st.h * float64(v)
	}
	for k, v := range st.b {
		st.ub[k] = st.h * float64(v)
	}
}

// tick counts an example seen.
func (st *state) tick() {
	st.c++
	if st.s.spec.sgd {
		st.h += 1 / (st.c + st.s.t0)
	}
	if v := st.votes; v != nil {
		// The example counts for the vector in force after it: the new
		// one if it made an update.
		if len(v.steps) > 0 {
			v.steps[len(v.steps)-1].Count++
		} else {
			v.count0++
		}
	}
}

// logVote records an update for the voted perceptron.
func (st *state) logVote(ind []int32, val []float32, svRow, up, down int, a float32) {
	v := st.votes
	if v == nil {
		return
	}
	row := int32(-1)
	if svRow >= 0 && v.rowOf != nil {
		row = v.rowOf[svRow]
	}
	if row < 0 {
		row = int32(len(v.indptr) - 1)
		v.ind = append(v.ind, ind...)
		v.val = append(v.val, val...)
		v.indptr = append(v.indptr, int64(len(v.ind)))
		if svRow >= 0 && v.rowOf != nil {
			v.rowOf[svRow] = row
		}
	}
	v.steps = append(v.steps, VoteStep{Row: row, Up: int32(up), Down: int32(down), A: a})
}

// model returns the model of this moment: the last weights for Plain and
// Batch, their running average for Averaged and Voted (the voted model
// carries its votes too). The state can go on training afterwards.
func (st *state) model() *Model {
	m := &Model{
		Algorithm: st.s.Algorithm,
		Rule:      st.s.Rule,
		Normalize: st.s.Normalize,
		Bias:      st.s.Bias,
		BiasScale: st.s.biasScale,
		Classes:   append([]float64(nil), st.classes...),
		Dim:       st.dim,
		W:         make([]float32, len(st.w)),
		B:         make([]float32, len(st.b)),
	}
	// The averages divide once per weight; the kernels divide 4 or 8 at
	// a time, with the same bits (the scalar loop is bound by the
	// divider). They write every weight,
	// so only a model that is not averaged copies w.
	switch {
	case st.s.spec.sgd:
		st.sgdModel(m)
	case st.hist && st.c > 0:
		st.histModel(m)
	case st.sum != nil && st.sumN > 0:
		asm.QuotientF32(m.W, st.sum, st.sumN)
		asm.QuotientF32(m.B, st.sumB, st.sumN)
	case st.sum == nil && st.u != nil && st.c > 0:
		asm.AverageF32(m.W, st.w, st.u, st.c)
		asm.AverageF32(m.B, st.b, st.ub, st.c)
	default:
		copy(m.W, st.w)
		copy(m.B, st.b)
	}
	if v := st.votes; v != nil {
		sv := &sparse.CSR{
			Rows:   len(v.indptr) - 1,
			Cols:   st.dim,
			Indptr: append([]int64(nil), v.indptr...),
			Ind:    append([]int32(nil), v.ind...),
			Val:    append([]float32(nil), v.val...),
		}
		m.Votes = &Votes{SV: sv, Steps: append([]VoteStep(nil), v.steps...), Count0: v.count0}
		if v.w0 != nil {
			m.Votes.W0 = append([]float32(nil), v.w0...)
			m.Votes.B0 = append([]float32(nil), v.b0...)
			// W0 was drawn at the learner's first width; pad it if the
			// learner has grown since.
			for len(m.Votes.W0) < len(m.W) {
				m.Votes.W0 = append(m.Votes.W0, 0)
			}
		}
	}
	return m
}

// sgdModel sets m's weights from an SGD rule's state: w = v/(λ(c+t0))
// after c examples, or with averaging the mean of the weights after each
// example, (h·v − u)/(λc) (see clock). Before any example they are 0.
func (st *state) sgdModel(m *Model) {
	if st.c == 0 {
		return
	}
	d := st.s.lambda * (st.c + st.s.t0)
	set := func(dst, v []float32, u []float64) {
		if u == nil || st.c == st.c0 {
			// Not averaging, or no example since the average restarted:
			// the weights of this moment.
			for j, x := range v {
				dst[j] = float32(float64(x) / d)
			}
			return
		}
		u = u[:len(v)]
		for j, x := range v {
			dst[j] = float32((st.h*float64(x) - u[j]) / (st.s.lambda * (st.c - st.c0)))
		}
	}
	set(m.W, st.w, st.u)
	set(m.B, st.b, st.ub)
}

// worker returns a state for one parameter-mixing worker: the same
// settings, classes and class weights, weights of its own (set from st's
// at the start of each epoch), and no vote log.
func (st *state) worker() *state {
	n := len(st.w)
	w := &paddedState{state: state{
		s: st.s, classes: st.classes, K: st.K, dim: st.dim, cw: st.cw, bb: st.bb,
		w:      make([]float32, n),
		b:      lineF32(st.K),
		scores: lineF32(st.K),
	}}
	if st.u != nil {
		w.u = make([]float64, n)
		w.ub = lineF64(st.K)
	}
	return &w.state
}

// paddedState keeps a worker's state, which it writes on every example
// (the count c) and reads on every example (b), off the cache lines of
// anything another worker writes.
type paddedState struct {
	_ [64]byte
	state
	_ [64]byte
}

// lineF32 and lineF64 allocate n values in at least a whole cache line of
// their own. A binary learner's bias is one float32, which Go's allocator
// packs into a 16-byte block with other tiny allocations: the workers'
// biases and accumulators, allocated one after the other, could share a
// line, and each worker reads its bias on every row while another writes
// its own on every update. (A precaution: where that sharing does not
// happen the padding costs a few bytes.)
func lineF32(n int) []float32 { return make([]float32, n, max(n, 16)) }
func lineF64(n int) []float64 { return make([]float64, n, max(n, 8)) }

// finiteAt reports whether the biases and the weights of features ind are
// all finite: after an update, those are the only ones that changed.
func (st *state) finiteAt(ind []int32) bool {
	if !finite32s(st.b) {
		return false
	}
	K := st.K
	for _, j := range ind {
		if !finite32s(st.w[int(j)*K : int(j)*K+K]) {
			return false
		}
	}
	return true
}

// divergedAt is the online Learner's error once an update has made a
// weight or bias not finite (see finiteAt).
func (st *state) divergedAt() error {
	return fmt.Errorf("%w: after example %d (lower the learning rate or scale the features); the learner is unusable", ErrDiverged, int64(st.c))
}

// check returns ErrDiverged if a weight or bias is not finite after
// epoch e.
func (st *state) check(e int) error {
	if !finite32s(st.w) || !finite32s(st.b) {
		return fmt.Errorf("%w: after epoch %d (lower the learning rate or scale the features)", ErrDiverged, e)
	}
	return nil
}

// gatherWeights reports whether a pass prefetches the weights of the rows
// ahead: for a binary learner whose weights are too large for the caches
// to hold (hashed text features); below that the extra pass over the
// indices costs more than it saves. A multiclass learner does not: its
// vector scores (AddScoresF32) keep enough loads of a row's weight blocks
// in flight by themselves, and the hints for every line of every block
// cost more than they saved, on 20 Newsgroups with 20 classes by
// vocabulary or hashed to 2^20 and on R52's 52 classes alike.
func (st *state) gatherWeights() bool { return st.K == 1 && st.cachedBytes() > 2<<20 }

// endPass notes whether the pass that did ps was quiet: whether it
// updated fewer than a quarter of its rows (see cachedBytes).
func (st *state) endPass(ps passStats) { st.quiet = ps.updates*4 < ps.rows }

// cachedBytes is the size of the weights that decides their layout and
// prefetching: all of w, or with the columns in order of frequency (see
// renumberColumns) and a pass that updates few of its rows (quiet) those
// of the columns that hold most of the values (hotCols), the part the
// rows keep reading. A pass that updates many rows writes the rare
// columns past them too, each update a miss in w and another in its
// accumulator: there the interleaved layout and the prefetch of every
// weight pay, where in the later, quiet epochs they cost more than they
// save (imdb hashed to 2^20, 786k columns, 430k of them hot: the epochs of
// a ten-epoch fit, which update 73% of the rows at first and 19% at the
// end, ran faster with them, and those of a thirty-epoch fit slower).
func (st *state) cachedBytes() int {
	if st.hotCols > 0 && st.quiet {
		return min(len(st.w), st.hotCols*st.K) * 4
	}
	return len(st.w) * 4
}

// interleaveBytes is the size of w above which a binary averaged learner
// trains on the interleaved layout. (A variable so that tests can lower it.)
var interleaveBytes = 2 << 20

// interleaved reports whether passes use the interleaved layout: the
// averaged binary learner with more weights than the caches hold, on rows
// that are not packed (packRows). Each
// update adds to u[j] right after w[j], and with w and u in separate
// arrays every u[j] is a cache miss of its own (u is twice w's size and
// touched only on updates); in one 16-byte slot the gather that computed
// the margin has already brought it in. On a million rows of 2^20 hashed
// features, a prototype of the loop ran an epoch clearly faster so.
func (st *state) interleaved() bool {
	return st.u != nil && st.K == 1 && st.votes == nil && st.cachedBytes() > interleaveBytes
}

// passLayout readies st for a pass and returns the weights and stride that
// PrefetchGather reads for it, and whether the pass steps with stepWU. On
// the interleaved layout it fills the slots; the caller then calls
// unpackWU when the pass ends.
func (st *state) passLayout() (gw []float32, stride int, ilv bool) {
	if st.interleaved() {
		st.packWU()
		return st.wu, 4, true
	}
	return st.w, st.K, false
}

// packWU copies w and u into the interleaved slots.
func (st *state) packWU() {
	n := len(st.w)
	if len(st.wu64) != 2*n {
		st.wu64 = make([]float64, 2*n)
		st.wu = unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(st.wu64))), 4*n)
	}
	wu, wu64, w, u := st.wu, st.wu64, st.w, st.u[:n]
	// On every core: the layout is for weights past the caches, and the
	// copy runs at the speed of memory.
	parallelRows(n, func(lo, hi int) {
		for j := lo; j < hi; j++ {
			wu[4*j] = w[j]
			wu64[2*j+1] = u[j]
		}
	})
}

// unpackWU copies the interleaved slots back into w and u.
func (st *state) unpackWU() {
	wu, wu64, w := st.wu, st.wu64, st.w
	u := st.u[:len(w)]
	parallelRows(len(w), func(lo, hi int) {
		for j := lo; j < hi; j++ {
			w[j] = wu[4*j]
			u[j] = wu64[2*j+1]
		}
	})
}

// stepWU is step for a learner on the interleaved layout (a binary
// averaged one; see interleaved), with the same arithmetic in the same
// order, so the same model.
func (st *state) stepWU(ind []int32, val []float32, sc float32, cls int, weight float32, svRow int) outcome {
	if st.cw != nil {
		weight *= st.cw[cls]
	}
	dot := kern.DotInd4F32(val, ind, st.wu)
	if st.s.Normalize {
		dot *= sc
	}
	o, a := st.judge(dot, val, sc, cls, weight, svRow)
	if o.update {
		st.b[0] += a * st.bb
		ax := st.rowStep(a, sc)
		kern.AxpyAvg4F32(ax, st.clock()*float64(ax), val, ind, st.wu64)
		st.ub[0] += st.clock() * float64(a) * float64(st.bb)
	}
	st.tick()
	return o
}

// grow widens the state to dim features (feature-major storage makes it
// an append).
func (st *state) grow(dim int) {
	n := dim * st.K
	st.w = append(st.w, make([]float32, n-len(st.w))...)
	if st.u != nil {
		st.u = append(st.u, make([]float64, n-len(st.u))...)
	}
	if st.sum != nil {
		st.sum = append(st.sum, make([]float64, n-len(st.sum))...)
	}
	if st.touched != nil {
		st.touched = append(st.touched, make([]uint64, (dim+63)/64-len(st.touched))...)
	}
	st.dim = dim
}

// bestOther returns the index of the highest score other than c's, the
// first on ties.
func bestOther(s []float32, c int) int {
	r := -1
	for k, v := range s {
		if k != c && (r < 0 || v > s[r]) {
			r = k
		}
	}
	return r
}

// addScores adds W_k·x to s[k] for every row k of the feature-major
// weights W (len(s) rows) and the sparse row (ind, val), whose indices
// must be below len(W)/len(s). Training and prediction share it.
func addScores(W []float32, ind []int32, val []float32, s []float32) {
	asm.AddScoresF32(W, ind, val, s)
}
