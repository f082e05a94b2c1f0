package engine

import (
	"context"

	"github.com/hyperplane-ml/hyperplane/asm"
	"github.com/hyperplane-ml/hyperplane/engine/internal/kern"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// A pass of an online learner reads its rows from a rowSource, a batch
// at a time, and learns each batch with one of two row loops: ruleRows,
// which takes every rule's step, or binaryRows, the plain binary
// perceptron fused into the loop. Whatever holds the rows — a matrix in
// memory (Fit, Learner.PartialFit), packed rows (packRows), dense rows
// (FitDense), a cache's blocks (FitCache, Learner.PartialFitCache) or a
// stream (Learner.LearnFrom) — is a source, so the loops, and the rules
// behind them, are written once.

// passBatch is the most rows a source puts in one batch: enough that the
// indirect call per batch and the rows left unprefetched at its end are
// nothing, few enough that a batch's row headers stay in the L2 cache
// beside the weights.
const passBatch = 2048

// rowBatch is a stretch of a pass's rows in visiting order. Row p is
// (ind[p], val[p]), or the packed row p32[p] when the source packs its
// rows (see packRows); its class index is cls[p], its sample weight
// weight[p] (1 when weight is nil), its scale scale[p] (see state.step;
// 1 when scale is nil) and its training row id[p] (the voted log's
// identity; −1 when id is nil).
type rowBatch struct {
	ind    [][]int32
	val    [][]float32
	p32    [][]uint32
	cls    []int32
	weight []float32
	scale  []float32
	id     []int32
}

// reset empties b, keeping its memory, for a source that appends its
// rows (add), with or without sample weights, scales and ids.
func (b *rowBatch) reset(weights, scales, ids bool) {
	b.ind, b.val, b.p32, b.cls = b.ind[:0], b.val[:0], b.p32[:0], b.cls[:0]
	b.weight = batchSlice(b.weight, 0, weights)
	b.scale = batchSlice(b.scale, 0, scales)
	b.id = batchSlice(b.id, 0, ids)
}

// size readies b for a source that writes its n rows in place: the rows
// (packed or not), classes, and the weights, scales and ids asked for,
// each of length n; the slices not asked for are empty or nil.
func (b *rowBatch) size(n int, packed, weights, scales, ids bool) {
	b.ind, b.val, b.p32 = batchSlice(b.ind, n, !packed), batchSlice(b.val, n, !packed), batchSlice(b.p32, n, packed)
	b.cls = batchSlice(b.cls, n, true)
	b.weight = batchSlice(b.weight, n, weights)
	b.scale = batchSlice(b.scale, n, scales)
	b.id = batchSlice(b.id, n, ids)
}

// batchSlice returns s with length n, grown to passBatch at least when it
// must grow, or nil when on is false: the loops read a nil weight, scale
// or id slice as every row's default, and no rows of a kind (packed or
// not) from an empty one.
func batchSlice[T any](s []T, n int, on bool) []T {
	if !on {
		return nil
	}
	if cap(s) < n || s == nil {
		s = make([]T, max(n, passBatch))
	}
	return s[:n]
}

// add appends row x of class index c and scale sc to b (the scale kept
// only where b keeps scales).
func (b *rowBatch) add(x sparse.Vector, c int, sc float32) {
	b.ind = append(b.ind, x.Ind)
	b.val = append(b.val, x.Val)
	b.cls = append(b.cls, int32(c))
	if b.scale != nil {
		b.scale = append(b.scale, sc)
	}
}

// rowSource gives a pass its rows.
type rowSource interface {
	// fill puts the pass's next rows in b (emptied first, at most
	// passBatch of them) and reports whether rows may be left after
	// them. An error ends the pass once the rows put in b before it are
	// learned: a source that meets a bad row stops there.
	fill(b *rowBatch) (more bool, err error)
}

// passMode is how a pass learns its rows, set by the caller for the whole
// pass.
type passMode struct {
	// fused: the learner's steps are the plain binary perceptron's (see
	// plainBinary), which binaryRows takes without calling step.
	fused bool
	// ilv: the weights are on the interleaved layout (see passLayout).
	ilv bool
	// gw and stride are what the weight prefetch reads (PrefetchGather),
	// when gather is set.
	gw     []float32
	stride int
	gather bool
	// kp reads packed rows.
	kp kern.P32
	// dense: the rows are dense, of the learner's width (their ind is 0
	// to width−1), learned by the dense kernels (stepDense).
	dense bool
	// guard: after each update, check that the weights the row touched
	// are finite, and stop the pass if not (the online Learner's check,
	// see divergedAt).
	guard bool
}

// learnPass learns every row of src with st and returns the statistics of
// the pass. It checks ctx every checkEvery rows.
func (st *state) learnPass(ctx context.Context, src rowSource, m passMode) (passStats, error) {
	b := &st.batch
	var ps passStats
	for {
		more, ferr := src.fill(b)
		if len(b.cls) > 0 {
			var err error
			if m.fused {
				err = st.binaryRows(ctx, b, m, &ps)
			} else {
				err = st.ruleRows(ctx, b, m, &ps)
			}
			if err != nil {
				return ps, err
			}
		}
		if ferr != nil || !more {
			st.endPass(ps)
			return ps, ferr
		}
	}
}

// ruleRows learns the rows of b by st's rule, adding what they did to
// ps: the packed rows by stepP32, dense rows by stepDense (binary) or
// step, the others by step (stepWU on the interleaved layout).
func (st *state) ruleRows(ctx context.Context, b *rowBatch, m passMode, ps *passStats) error {
	n, base := len(b.cls), ps.rows
	packed := len(b.p32) > 0
	ahead := prefetchAhead
	if m.dense {
		ahead = densePrefetchAhead
	}
	for p := range n {
		// The prefetches and the check of ctx are written out here and in
		// binaryRows rather than called: a call per row costs a few
		// percent of an epoch over short rows.
		if q := p + ahead; q < n {
			if packed {
				kern.PrefetchP32(b.p32[q])
			} else {
				kern.PrefetchRow(b.ind[q], b.val[q])
			}
		}
		if q := p + gatherAhead; m.gather && q < n {
			kern.PrefetchGather(b.ind[q], m.gw, m.stride)
		}
		if err := cancelledAt(ctx, base+p); err != nil {
			return err
		}
		weight, sc, id := float32(1), float32(1), -1
		if b.weight != nil {
			weight = b.weight[p]
		}
		if b.scale != nil {
			sc = b.scale[p]
		}
		if b.id != nil {
			id = int(b.id[p])
		}
		cls := int(b.cls[p])
		var o outcome
		switch {
		case packed:
			o = st.stepP32(m.kp, b.p32[p], sc, cls, id)
		case m.dense && st.K == 1:
			o = st.stepDense(b.ind[p], b.val[p], sc, cls, weight, id)
		case m.ilv:
			o = st.stepWU(b.ind[p], b.val[p], sc, cls, weight, id)
		default:
			o = st.step(b.ind[p], b.val[p], sc, cls, weight, id)
		}
		ps.add(o)
		if m.guard && o.update && !st.finiteAt(b.ind[p]) {
			return st.divergedAt()
		}
	}
	return nil
}

// binaryRows is ruleRows for a learner whose steps are the plain binary
// perceptron's (see plainBinary): the margin, the decision, the update
// and the clock in the loop, without the per-example calls of step (or
// of stepWU on the interleaved layout, or of stepP32 on packed rows).
// Every example does the arithmetic step does, in the same order (with
// weight 1, step's eta·weight·y is eta·y exactly), so the model is
// bit-identical.
func (st *state) binaryRows(ctx context.Context, b *rowBatch, m passMode, ps *passStats) error {
	n, base := len(b.cls), ps.rows
	packed := len(b.p32) > 0
	w, u, kp := st.w, st.u, m.kp
	eta, tau, bb := st.s.eta, st.s.tau, st.bb
	bias := st.b[0]
	// The bias lives in a local for the loop and goes back on every exit.
	defer func() { st.b[0] = bias }()
	for p := range n {
		if q := p + prefetchAhead; q < n {
			if packed {
				kern.PrefetchP32(b.p32[q])
			} else {
				kern.PrefetchRow(b.ind[q], b.val[q])
			}
		}
		if q := p + gatherAhead; m.gather && q < n {
			kern.PrefetchGather(b.ind[q], m.gw, m.stride)
		}
		if err := cancelledAt(ctx, base+p); err != nil {
			ps.rows = base + p
			return err
		}
		y := labelSign(b.cls[p])
		var dot float32
		switch {
		case packed:
			dot = kp.Dot(b.p32[p], w)
		case m.ilv:
			dot = kern.DotInd4F32(b.val[p], b.ind[p], m.gw)
		default:
			dot = asm.DotIndF32(b.val[p], b.ind[p], w)
		}
		mg := y * (dot + bias)
		if mg <= 0 {
			ps.mistakes++
			ps.loss += float64(-mg)
		}
		if mg <= tau {
			a := eta * y
			bias += a * bb
			c := st.c
			switch {
			case packed && u != nil:
				kp.AxpyAvg(a, c*float64(a), b.p32[p], w, u)
			case packed:
				kp.Axpy(a, b.p32[p], w)
			case m.ilv:
				kern.AxpyAvg4F32(a, c*float64(a), b.val[p], b.ind[p], st.wu64)
			case u != nil:
				asm.AxpyAvgF32(a, c*float64(a), b.val[p], b.ind[p], w, u)
			default:
				asm.AxpyIndF32(a, b.val[p], b.ind[p], w)
			}
			if u != nil {
				st.ub[0] += c * float64(a) * float64(bb)
			}
			ps.updates++
		}
		st.c++
	}
	ps.rows = base + n
	return nil
}

// stepP32 is step for a packed row (see packRows) of a learner for which
// packedBinary holds: step's and update1's arithmetic for a binary
// learner, in their order, with the row's values read through the packed
// kernels.
func (st *state) stepP32(kp kern.P32, row []uint32, sc float32, cls, id int) outcome {
	dot := kp.Dot(row, st.w)
	if st.s.Normalize {
		dot *= sc
	}
	// judge reads the values only to sum their squares, which a
	// normalized learner does not.
	o, a := st.judge(dot, nil, sc, cls, 1, id)
	if o.update {
		st.b[0] += a * st.bb
		ax := st.rowStep(a, sc)
		if st.u != nil {
			ca := st.clock() * float64(ax)
			kp.AxpyAvg(ax, ca, row, st.w, st.u)
			st.ub[0] += st.clock() * float64(a) * float64(st.bb)
		} else {
			kp.Axpy(ax, row, st.w)
		}
	}
	st.tick()
	return o
}
