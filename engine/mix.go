package engine

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/hyperplane-ml/hyperplane/asm"
)

// Mix is the state of a linear learner between epochs of iterative
// parameter mixing (Config.Workers), in a form that can leave the
// process: the last weights and biases, the examples learned, and, for
// the averaged perceptron, the sums that make the average. Fit's own
// Workers path mixes through the same arithmetic (Merge), so a driver
// that runs the shards elsewhere (other processes or machines) and
// merges their Mix values gets the model Fit would.
//
// One round of mixing: every worker starts a learner from the mixed state
// (Config.Warm; a worker needs only Classes, Dim, W and B of it), learns
// its shard for one epoch (Learner.PartialFit or PartialFitCache), and
// returns Learner.Mix, or its Delta against the state it started from;
// the driver calls Merge on the state with every shard's Mix, in shard
// order, and Model turns the result into a model. Give every worker's
// Config a Seed of its own (drawn from the shard and the epoch), or all
// of them shuffle alike.
//
// A learner counts its averaging lazily: after N examples from an
// accumulator of zero, the sum of the N weight vectors that followed
// each example is N·W − U. Sum holds the weight vectors of earlier
// epochs that these do not count, SumN of them. The model of an averaged
// learner is (Sum + N·W − U) / (SumN + N); that of a plain one W.
//
// Weights are feature-major, as in Model: W[j*K+k] is the weight of
// feature j in row k, K = 1 for two classes and len(Classes) for more.
type Mix struct {
	// Classes are the labels, ascending (as Model.Classes).
	Classes []float64
	// Dim is the number of features.
	Dim int
	// Features, when not nil, makes the Mix sparse: W and U (and Sum, for
	// a sparse state) hold the values of these features only, in this
	// order (strictly increasing). Unless Sparse is set, the Mix is a
	// delta (see Delta): every other feature has the weights of the state
	// the learner started from, with U zero. Nil means W holds all Dim×K
	// weights.
	Features []int32
	// Seen, for a delta, lists features that the learner saw and left as
	// they were (weights of the base's bits, accumulators zero), strictly
	// increasing and apart from Features: Merge reads them as features
	// not listed, and a driver learns from them which features a shard
	// holds at 4 bytes each (see Learner.Delta). Nil otherwise.
	Seen []int32
	// Sparse, with Features, makes the Mix a sparse state instead of a
	// delta: every feature not listed has zero weights, accumulators and
	// sums (bit for bit +0). A wide model of which the shards touch a few
	// features keeps its state so between epochs (Compact; Merge of
	// deltas into a sparse state stays sparse, in time proportional to
	// the features listed), and a worker starts from the weights of its
	// shard's features only (WeightsAt).
	Sparse bool
	// W holds the weights and B the K biases.
	W []float32
	B []float32
	// N is the number of examples learned since U and UB were zero.
	N float64
	// U and UB are the averaging accumulators (see the type's comment),
	// nil when the learner does not average.
	U, UB []float64
	// Sum and SumB are the sums of SumN weight vectors of earlier epochs,
	// nil when there are none or the learner does not average.
	Sum, SumB []float64
	SumN      float64
	// Updates counts the examples that changed the weights since N was 0
	// (after Merge, those of the epoch merged): an epoch without any
	// means training has converged.
	Updates int64
}

// NumRows returns the number of weight rows K: 1 for two classes, else
// the number of classes.
func (m *Mix) NumRows() int { return weightRows(m.Classes) }

// averaging reports whether m holds averaging state.
func (m *Mix) averaging() bool { return m.U != nil || m.Sum != nil }

// check verifies m's shape and values: classes sorted, distinct and
// finite, arrays of the lengths Dim, K and Features ask, counts finite
// and not negative, weights finite, and the features seen sound. Errors
// wrap ErrConfig, or ErrDiverged for a value that is not finite.
func (m *Mix) check() error { return m.checkSeen(true) }

// checkSeen is check, which looks at the features seen only with seen:
// Merge does not read them.
func (m *Mix) checkSeen(seen bool) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: mix: "+format, append([]any{ErrConfig}, a...)...)
	}
	if m == nil {
		return bad("nil")
	}
	if len(m.Classes) < 2 {
		return bad("%d classes", len(m.Classes))
	}
	for i, c := range m.Classes {
		if math.IsNaN(c) || math.IsInf(c, 0) || (i > 0 && !(c > m.Classes[i-1])) {
			return bad("classes %v are not finite and strictly increasing", m.Classes)
		}
	}
	K := m.NumRows()
	if m.Dim < 0 || int64(m.Dim)*int64(K) > maxWeights {
		return bad("dim %d × %d weight rows", m.Dim, K)
	}
	rows := m.Dim
	if m.Sparse && m.Features == nil {
		return bad("a sparse state without its features")
	}
	if m.Features != nil {
		rows = len(m.Features)
		if !increasing(m.Features, m.Dim) {
			return bad("features are not strictly increasing in [0, %d)", m.Dim)
		}
		if !m.Sparse && (m.Sum != nil || m.SumB != nil) {
			return bad("a sparse delta carries no Sum")
		}
	}
	if m.Seen != nil && seen {
		if m.Features == nil || m.Sparse {
			return bad("features seen without a change are listed for deltas only")
		}
		if !increasing(m.Seen, m.Dim) {
			return bad("features seen are not strictly increasing in [0, %d)", m.Dim)
		}
		if j, ok := common(m.Features, m.Seen); ok {
			return bad("feature %d is listed as changed and as seen", j)
		}
	}
	n := rows * K
	switch {
	case len(m.W) != n || len(m.B) != K:
		return bad("%d weights and %d biases, want %d and %d", len(m.W), len(m.B), n, K)
	case (m.U == nil) != (m.UB == nil) || (m.U != nil && (len(m.U) != n || len(m.UB) != K)):
		return bad("accumulators of %d and %d values, want %d and %d", len(m.U), len(m.UB), n, K)
	case (m.Sum == nil) != (m.SumB == nil) || (m.Sum != nil && (len(m.Sum) != n || len(m.SumB) != K)):
		return bad("sums of %d and %d values, want %d and %d", len(m.Sum), len(m.SumB), n, K)
	case !(m.N >= 0) || m.N > maxCount || !(m.SumN >= 0) || m.SumN > maxCount || m.Updates < 0:
		return bad("counts N %v, SumN %v, Updates %d", m.N, m.SumN, m.Updates)
	case m.U != nil && m.N == 0 && !allZero64(m.U, m.UB):
		return bad("accumulators are not zero after no example")
	}
	if !finite32s(m.W) || !finite32s(m.B) || !finite64s(m.U) || !finite64s(m.UB) || !finite64s(m.Sum) || !finite64s(m.SumB) {
		return fmt.Errorf("%w: mix: a weight or sum is not finite", ErrDiverged)
	}
	return nil
}

// increasing reports whether the values of list are strictly increasing
// and in [0, dim). It looks at every value without a branch on it: each
// difference from the one before must be negative, and the signs of all
// the differences are ANDed.
func increasing(list []int32, dim int) bool {
	if len(list) == 0 {
		return true
	}
	all := ^uint64(0)
	prev := int64(-1)
	for _, j := range list {
		all &= uint64(prev - int64(j))
		prev = int64(j)
	}
	return all>>63 == 1 && int(list[len(list)-1]) < dim
}

// common returns a value that the strictly increasing lists a and b
// both hold, if any. For each value of the shorter list it finds the
// first of the longer one not below it, eight values at a time: a count
// of compares that wait on no branch, as WeightsAt steps.
func common(a, b []int32) (int32, bool) {
	if len(a) < len(b) {
		a, b = b, a
	}
	p := 0
	for _, j := range b {
		for p+8 <= len(a) {
			c := below8((*[8]int32)(a[p:]), j)
			p += c
			if c < 8 {
				break
			}
		}
		for p < len(a) && a[p] < j {
			p++
		}
		if p == len(a) {
			break
		}
		if a[p] == j {
			return j, true
		}
	}
	return 0, false
}

// maxCount bounds N and SumN: counts of examples, exact in float64.
const maxCount = 1 << 62

func finite64s(x []float64) bool {
	for _, v := range x {
		if v-v != 0 {
			return false
		}
	}
	return true
}

func allZero64(xs ...[]float64) bool {
	for _, x := range xs {
		for _, v := range x {
			if v != 0 {
				return false
			}
		}
	}
	return true
}

// isZero reports whether m is the state of a learner that has learned
// nothing from zero weights: every weight, bias and sum has the bits of 0.
func (m *Mix) isZero() bool {
	if m.N != 0 || m.SumN != 0 {
		return false
	}
	for _, v := range m.W {
		if math.Float32bits(v) != 0 {
			return false
		}
	}
	for _, v := range m.B {
		if math.Float32bits(v) != 0 {
			return false
		}
	}
	for _, x := range [][]float64{m.U, m.UB, m.Sum, m.SumB} {
		for _, v := range x {
			if math.Float64bits(v) != 0 {
				return false
			}
		}
	}
	return true
}

// checkWarm checks that training with settings s can start from m: m is
// valid and dense, the algorithm keeps no state but the weights and
// sums, and an averaging learner has the accumulators of its counts.
func (s *settings) checkWarm(m *Mix) error {
	if err := m.check(); err != nil {
		return err
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: Warm: "+format, append([]any{ErrConfig}, a...)...)
	}
	switch {
	case m.Features != nil && !m.Sparse:
		return bad("a sparse delta is no state to start from; Merge it into the state it was taken against")
	case s.Algorithm == Voted || s.Rule.SGD():
		return bad("%v %v keeps state that a Mix does not hold", s.Rule, s.Algorithm)
	case s.InitScale != 0:
		return bad("InitScale draws the start weights, Warm gives them: set one")
	case s.Scaling != nil && len(s.Scaling.Factor) != m.Dim:
		return bad("%d features, the scaling %d", m.Dim, len(s.Scaling.Factor))
	case len(m.Classes) > s.maxClass:
		return fmt.Errorf("%w: %d classes, more than MaxClasses %d", ErrLabels, len(m.Classes), s.maxClass)
	}
	if s.Algorithm == Averaged {
		if m.N > 0 && m.U == nil {
			return bad("%v examples without their averaging accumulators", m.N)
		}
		if m.SumN > 0 && m.Sum == nil {
			return bad("%v earlier vectors without their sum", m.SumN)
		}
	}
	return nil
}

// start sets st, fresh from newState for m's classes and width (at
// least m.Dim), to start from m: its weights and biases, and, for an
// averaging learner, the history of m's weight vectors, with its own
// accumulators at zero. m's own examples (N·W − U) are folded into the
// history, as Merge folds them, so a learner started from m and the
// driver that merges its result into m agree.
func (st *state) start(m *Mix) {
	copy(st.b, m.B)
	if m.Features == nil {
		copy(st.w, m.W)
	} else {
		scatter(st.w, m.W, m.Features, st.K)
	}
	if st.u == nil || m.SumN+m.N == 0 {
		return
	}
	if m.Features == nil {
		st.sum, st.sumB = foldSum(m, len(st.w), st.spareSum)
		st.spareSum = nil
	} else {
		sum, sumB := foldSum(m, len(m.W), nil)
		st.sum, st.sumB = make([]float64, len(st.w)), sumB
		scatter(st.sum, sum, m.Features, st.K)
	}
	st.sumN = m.SumN + m.N
	st.hist = true
}

// scatter copies the K values of every feature of feat from src, where
// they follow one another, to their places in the feature-major dst.
func scatter[T float32 | float64](dst, src []T, feat []int32, K int) {
	for p, j := range feat {
		copy(dst[int(j)*K:int(j)*K+K], src[p*K:p*K+K])
	}
}

// gather returns the K values of every feature of feat in the
// feature-major src, one feature after another.
func gather[T float32 | float64](src []T, feat []int32, K int) []T {
	out := make([]T, 0, len(feat)*K)
	for _, j := range feat {
		out = append(out, src[int(j)*K:int(j)*K+K]...)
	}
	return out
}

// foldSum returns m's history with its own examples folded in:
// Sum + N·W − U (biases likewise), n values (n ≥ len(m.W), the rest 0),
// in spare's array when it holds n values.
func foldSum(m *Mix, n int, spare []float64) (sum, sumB []float64) {
	sum = reuse(spare, n)
	sumB = make([]float64, len(m.B))
	copy(sum, m.Sum)
	copy(sumB, m.SumB)
	if m.N > 0 {
		for i, w := range m.W {
			sum[i] += m.N*float64(w) - m.U[i]
		}
		for i, b := range m.B {
			sumB[i] += m.N*float64(b) - m.UB[i]
		}
	}
	return sum, sumB
}

// mixOf returns st's state as a Mix: copies of its weights, biases,
// accumulators and history.
func (st *state) mixOf(updates int64) *Mix {
	m := &Mix{
		Classes: slices.Clone(st.classes), Dim: st.dim,
		W: slices.Clone(st.w), B: slices.Clone(st.b),
		N: st.c, Updates: updates,
	}
	if st.u != nil {
		m.U, m.UB = slices.Clone(st.u), slices.Clone(st.ub)
	}
	if st.hist {
		m.Sum, m.SumB, m.SumN = slices.Clone(st.sum), slices.Clone(st.sumB), st.sumN
	}
	return m
}

// Model returns the model of state m for the settings it was trained
// with (cfg): for the averaged perceptron the average of every weight
// vector m counts, (Sum + N·W − U) / (SumN + N), otherwise W. For the
// state Fit's Workers path reaches, it is the model Fit returns, bit for
// bit. m must be a state, dense or sparse (not a delta). The model of a
// sparse state that lists at most half of its width lists its columns
// (Model.Cols), as Fit's model of a wide feature space does; its weights
// are those of the dense state's model.
func (m *Mix) Model(cfg Config) (*Model, error) {
	s, err := cfg.settle()
	if err == nil {
		err = s.fitOnly("Mix.Model")
	}
	if err != nil {
		return nil, err
	}
	s.Warm = nil
	// A sparse state gives the model of its listed features, mapped back
	// to its width as Fit maps a renumbered fit (inOrder): every weight
	// is computed from that feature's values alone, so the weights are
	// those of the dense state, without a learner's arrays as wide as the
	// model (a state of a million features in 2^24 would take gigabytes).
	var rn renumbered
	dim := 0
	if m != nil && m.Sparse && len(m.Features) > 0 {
		if err := m.check(); err != nil {
			return nil, err
		}
		c := *m
		dim, rn = m.Dim, renumbered{cols: m.Features, byCol: make([]int32, len(m.Features)), listed: 2*len(m.Features) <= m.Dim}
		for p := range rn.byCol {
			rn.byCol[p] = int32(p)
		}
		c.Features, c.Sparse, c.Dim = nil, false, len(m.Features)
		m = &c
	} else if m != nil && m.Sparse {
		if m, err = m.Dense(); err != nil {
			return nil, err
		}
	}
	if err := s.checkWarm(m); err != nil {
		return nil, err
	}
	st := newState(s, slices.Clone(m.Classes), m.Dim, nil)
	copy(st.w, m.W)
	copy(st.b, m.B)
	st.c = m.N
	if st.u != nil {
		if m.U != nil {
			copy(st.u, m.U)
			copy(st.ub, m.UB)
		}
		if m.Sum != nil {
			st.sum, st.sumB, st.sumN, st.hist = m.Sum, m.SumB, m.SumN, true
		}
	}
	return inOrder(st.model(), rn, dim), nil
}

// Delta returns the part of m that learning from base changed, as a
// sparse delta: the features whose weights differ from base's (bit for
// bit) or whose accumulators are not zero, with m's biases, counts and
// accumulators of those features. A worker that learned a few of the
// features of a wide model sends its Delta instead of all its weights;
// Merge into base reads it as m. m and base must be dense, of the same
// classes and width; the delta carries no history (Sum).
func (m *Mix) Delta(base *Mix) (*Mix, error) {
	if err := m.check(); err != nil {
		return nil, err
	}
	if err := base.check(); err != nil {
		return nil, err
	}
	if m.Features != nil || base.Features != nil {
		return nil, fmt.Errorf("%w: mix: Delta of a delta", ErrConfig)
	}
	if err := sameShape(base, m); err != nil {
		return nil, err
	}
	K := m.NumRows()
	d := &Mix{
		Classes: slices.Clone(m.Classes), Dim: m.Dim, Features: []int32{},
		B: slices.Clone(m.B), N: m.N, Updates: m.Updates,
	}
	if m.U != nil {
		d.U, d.UB = []float64{}, slices.Clone(m.UB)
	}
	for j := range m.Dim {
		w, bw := m.W[j*K:j*K+K], base.W[j*K:j*K+K]
		changed := false
		for k := range w {
			if math.Float32bits(w[k]) != math.Float32bits(bw[k]) || (m.U != nil && math.Float64bits(m.U[j*K+k]) != 0) {
				changed = true
				break
			}
		}
		if changed {
			d.Features = append(d.Features, int32(j))
			d.W = append(d.W, w...)
			if m.U != nil {
				d.U = append(d.U, m.U[j*K:j*K+K]...)
			}
		}
	}
	if d.W == nil {
		d.W = []float32{}
	}
	return d, nil
}

// sameShape checks that shard has m's classes and width.
func sameShape(m, shard *Mix) error {
	if shard.Dim != m.Dim || !slices.Equal(shard.Classes, m.Classes) {
		return fmt.Errorf("%w: mix: a state of classes %v and width %d does not mix with one of %v and %d",
			ErrDim, shard.Classes, shard.Dim, m.Classes, m.Dim)
	}
	return nil
}

// Merge mixes into m one epoch of the shards, each the state a learner
// reached by learning its shard from m's weights and biases (with its
// accumulators from zero, as a learner started from m has them): dense,
// or a Delta against m. The new weights are the shards' average weighted
// by their examples (N), Σ_k (N_k/n)·W_k over the n examples of all
// shards; with averaging, every weight vector the shards went through,
// Σ_k (N_k·W_k − U_k), joins m's history. Updates becomes the shards'
// total. The shards' order matters to the last bit, as the order of
// Fit's workers does: in the order of Fit's shards, merging gives Fit's
// weights exactly. m's own examples, if it has any, are first folded into
// its history, as a learner started from m folds them. On an error m is
// unchanged.
//
// Into a sparse state (Sparse), every shard must be a delta, and the
// merge takes time proportional to the features the state and the
// deltas list, not to the width; its bits are those of Merge into the
// state's Dense form, which it stays in step with feature by feature (a
// feature that neither lists is +0 before and after). The result is
// sparse, listing the features with a weight or sum not +0. A delta's
// Seen is not read.
func (m *Mix) Merge(shards []*Mix) error {
	// The state and the shards are checked at the same time, each on its
	// own: the checks read every value, a visible part of a merge.
	errs := make([]error, len(shards)+1)
	inParallel(len(shards)+1, func(i int) {
		if i == 0 {
			errs[0] = m.check()
		} else {
			errs[i] = shards[i-1].checkSeen(false)
		}
	})
	if errs[0] != nil {
		return errs[0]
	}
	if m.Features != nil && !m.Sparse {
		return fmt.Errorf("%w: mix: Merge into a delta", ErrConfig)
	}
	if len(shards) == 0 {
		return fmt.Errorf("%w: mix: no shard to merge", ErrNoData)
	}
	avg, n, updates, err := m.checkShards(shards, errs[1:])
	if err != nil {
		return err
	}
	var sum, sumB []float64
	switch {
	case avg && m.Sparse && m.N == 0 && m.Sum != nil:
		// Nothing to fold, and the sparse merge only reads the history:
		// it need not be copied.
		sum, sumB = m.Sum, slices.Clone(m.SumB)
	case avg:
		sum, sumB = foldSum(m, len(m.W), nil)
	}
	views := make([]shardView, len(shards))
	for k, sh := range shards {
		views[k] = shardView{w: sh.W, b: sh.B, u: sh.U, ub: sh.UB, n: sh.N, feat: sh.Features}
	}
	frac := shardFracs(views, n)
	var feat []int32
	var w []float32
	if m.Sparse {
		feat, w, sum = m.mergeSparse(views, frac, n, sum)
	} else {
		w = m.mergeDense(views, frac, n, sum)
	}
	b := slices.Clone(m.B)
	mixBiases(b, sumB, frac, n, views)
	m.Features, m.W, m.B = feat, w, b
	if avg {
		m.Sum, m.SumB = sum, sumB
	}
	m.SumN += m.N + n
	m.N, m.U, m.UB = 0, nil, nil
	m.Updates = updates
	return nil
}

// checkShards checks that the shards can merge into m: each sound (errs
// are their checks, Mix.check), of m's shape,
// averaging as m does (as the first shard does when m has no history
// yet), and a delta when m is a sparse state; and that they learned some
// example. It returns whether the merge averages, the shards' examples
// and their updates.
func (m *Mix) checkShards(shards []*Mix, errs []error) (avg bool, n float64, updates int64, err error) {
	avg = m.averaging()
	for k, sh := range shards {
		if err := errs[k]; err != nil {
			return false, 0, 0, fmt.Errorf("shard %d: %w", k, err)
		}
		if err := sameShape(m, sh); err != nil {
			return false, 0, 0, fmt.Errorf("shard %d: %w", k, err)
		}
		if k == 0 && m.Sum == nil && m.U == nil {
			avg = sh.U != nil
		}
		if (sh.U != nil) != avg {
			return false, 0, 0, fmt.Errorf("%w: mix: shard %d averages and the state does not, or the other way round", ErrConfig, k)
		}
		if m.Sparse && (sh.Features == nil || sh.Sparse) {
			return false, 0, 0, fmt.Errorf("%w: mix: shard %d is no delta to merge into a sparse state (Dense makes the state dense)", ErrConfig, k)
		}
		if sh.Sparse {
			return false, 0, 0, fmt.Errorf("%w: mix: shard %d is a sparse state, not a delta or a learner's state", ErrConfig, k)
		}
		n += sh.N
		updates += sh.Updates
	}
	if n == 0 {
		return false, 0, 0, fmt.Errorf("%w: mix: the shards learned no example", ErrNoData)
	}
	return avg, n, updates, nil
}

// inParallel calls do(0) to do(n−1) on up to GOMAXPROCS goroutines and
// returns when all have returned.
func inParallel(n int, do func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(n, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				do(i)
			}
		})
	}
	wg.Wait()
}

// mergeDense is Merge's mix of a dense state's weights: it returns the
// new weights and adds to sum, when not nil, the shards' history. The
// weights are cut into parts mixed in parallel.
func (m *Mix) mergeDense(views []shardView, frac []float64, n float64, sum []float64) []float32 {
	K := m.NumRows()
	w := slices.Clone(m.W)
	parts := min(runtime.GOMAXPROCS(0), max(1, len(w)/mixSplitMin))
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := p*len(w)/parts, (p+1)*len(w)/parts
		wg.Go(func() {
			r := shardRanges{base: m.W, K: K, cur: make([]int, len(views))}
			for k, v := range views {
				if v.feat != nil {
					r.cur[k], _ = slices.BinarySearch(v.feat, int32(lo/K))
				}
			}
			mixRange(lo, hi, frac, n, w, sum, func(k, a, b int) ([]float32, []float64) {
				return r.get(&views[k], k, a, b)
			}, nil)
		})
	}
	wg.Wait()
	return w
}

// shardRanges gives mixRange the shards' weights and accumulators of
// one part of a dense merge, range after increasing range.
type shardRanges struct {
	base     []float32 // the state's weights
	K        int       // weight rows
	cur      []int     // per shard, its first listed feature not yet passed
	scratch  []float32
	uscratch []float64
}

// get returns shard k's weights and accumulators (nil without averaging)
// of [a, b): a dense shard's own, a delta's expanded into the state's
// weights and zero accumulators but where it lists a feature.
func (r *shardRanges) get(v *shardView, k, a, b int) ([]float32, []float64) {
	if v.feat == nil {
		if v.u == nil {
			return v.w[a:b], nil
		}
		return v.w[a:b], v.u[a:b]
	}
	K := r.K
	r.scratch = append(r.scratch[:0], r.base[a:b]...)
	if v.u != nil {
		r.uscratch = append(r.uscratch[:0], make([]float64, b-a)...)
	}
	for p := r.cur[k]; p < len(v.feat) && int(v.feat[p])*K < b; p++ {
		j := int(v.feat[p])
		for c := range K {
			if i := j*K + c; i >= a && i < b {
				r.scratch[i-a] = v.w[p*K+c]
				if v.u != nil {
					r.uscratch[i-a] = v.u[p*K+c]
				}
			}
		}
		if (j+1)*K <= b {
			r.cur[k] = p + 1
		}
	}
	if v.u == nil {
		return r.scratch, nil
	}
	return r.scratch, r.uscratch
}

// shardView is what mixing reads of one shard's state: weights (of the
// features feat only when feat is not nil), biases, accumulators (nil
// without averaging) and examples.
type shardView struct {
	w, b  []float32
	u, ub []float64
	n     float64
	feat  []int32
}

// shardFracs returns every shard's share of the n examples, N_k/n.
func shardFracs(views []shardView, n float64) []float64 {
	frac := make([]float64, len(views))
	for k, v := range views {
		frac[k] = v.n / n
	}
	return frac
}

// mixBlock is how many weights the parameter mix sums at a time.
const mixBlock = 512

// mixSplitMin is the fewest weights per goroutine that Merge splits its
// work into. (A variable so that tests can lower it.)
var mixSplitMin = 64 * mixBlock

// mixRange mixes weights [lo, hi) of the shards into w and, with
// averaging (sum not nil), sum: w = Σ_k frac_k·W_k and
// sum += Σ_k (frac_k·n·W_k − U_k), summed over the shards in order.
// shard(k, a, b) returns shard k's weights and accumulators of [a, b);
// done(a, b), when not nil, runs once block [a, b) of w is written.
func mixRange(lo, hi int, frac []float64, n float64, w []float32, sum []float64,
	shard func(k, a, b int) ([]float32, []float64), done func(a, b int)) {
	// Block by block, shard by shard: the same sums in the same order as
	// a loop over the shards for every weight, without its per-weight
	// overhead, which was a visible part of a two-worker epoch.
	var vb, sb [mixBlock]float64
	for a := lo; a < hi; a += mixBlock {
		b := min(a+mixBlock, hi)
		v, s := vb[:b-a], sb[:b-a]
		clear(v)
		clear(s)
		for k := range frac {
			fk, fn := frac[k], frac[k]*n
			wk, uk := shard(k, a, b)
			wk = wk[:len(v)]
			for i, x := range wk {
				v[i] += fk * float64(x)
			}
			if sum != nil {
				uk = uk[:len(wk)]
				for i, x := range wk {
					s[i] += fn*float64(x) - uk[i]
				}
			}
		}
		sw := w[a:b]
		for i := range sw {
			sw[i] = float32(v[i])
		}
		if sum != nil {
			ss := sum[a:b]
			for i := range ss {
				ss[i] += s[i]
			}
		}
		if done != nil {
			done(a, b)
		}
	}
}

// mixPair is mixRange over two shards, the mix of a two-worker epoch,
// with the workers' setup for the next epoch folded in: it mixes weights
// [lo, hi) of (w0, u0) and (w1, u1) into w and, with averaging (sum, u0
// and u1 not nil), sum, then leaves both shards' weights of [lo, hi)
// equal to the mixed ones and their accumulators zero. Its sums are
// mixRange's in mixRange's order, each from +0 as mixRange's cleared
// blocks start (so a −0 product gives +0 here too), so its bits are the
// same; one loop per weight reads and writes every array once, where
// mixRange and a separate setup pass over each block several times.
func mixPair(lo, hi int, frac []float64, n float64, w []float32, sum []float64, w0, w1 []float32, u0, u1 []float64) {
	f0, f1 := frac[0], frac[1]
	n0, n1 := f0*n, f1*n
	w = w[lo:hi]
	w0, w1 = w0[lo:hi], w1[lo:hi]
	w0, w1 = w0[:len(w)], w1[:len(w)]
	if sum == nil {
		for i := range w {
			v := 0.0
			v += f0 * float64(w0[i])
			v += f1 * float64(w1[i])
			x := float32(v)
			w[i], w0[i], w1[i] = x, x, x
		}
		return
	}
	sum = sum[lo:hi]
	u0, u1 = u0[lo:hi], u1[lo:hi]
	sum, u0, u1 = sum[:len(w)], u0[:len(w)], u1[:len(w)]
	for i := range w {
		x0, x1 := float64(w0[i]), float64(w1[i])
		v := 0.0
		v += f0 * x0
		v += f1 * x1
		s := 0.0
		s += n0*x0 - u0[i]
		s += n1*x1 - u1[i]
		sum[i] += s
		x := float32(v)
		w[i], w0[i], w1[i] = x, x, x
		u0[i], u1[i] = 0, 0
	}
}

// mixBiases mixes the shards' biases into b and, with averaging, sumB,
// as mixRange mixes the weights.
func mixBiases(b []float32, sumB []float64, frac []float64, n float64, views []shardView) {
	for j := range b {
		var v, sum float64
		for k, sh := range views {
			v += frac[k] * float64(sh.b[j])
			if sumB != nil {
				sum += frac[k]*n*float64(sh.b[j]) - sh.ub[j]
			}
		}
		b[j] = float32(v)
		if sumB != nil {
			sumB[j] += sum
		}
	}
}

// histModel sets m's weights to the average of a learner with a history
// (see state.hist): (sum + c·w − u) / (sumN + c).
func (st *state) histModel(m *Model) {
	t := make([]float64, len(st.w))
	for i, w := range st.w {
		t[i] = st.sum[i] + st.c*float64(w) - st.u[i]
	}
	asm.QuotientF32(m.W, t, st.sumN+st.c)
	tb := make([]float64, len(st.b))
	for i, b := range st.b {
		tb[i] = st.sumB[i] + st.c*float64(b) - st.ub[i]
	}
	asm.QuotientF32(m.B, tb, st.sumN+st.c)
}
