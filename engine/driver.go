package engine

import (
	"context"
	"math"
)

// method is what a training method (Fit, FitCache, FitKernel) supplies to
// drive: its pass over the rows and a few hooks. Everything around the
// passes — the epoch counter, cancellation between epochs, the statistics
// the pass does not fill, the finite check, the training loss and early
// stopping, OnEpoch, the convergence rule and the epochs left after it —
// is drive's, so that every method stops, reports and counts alike.
//
// drive calls each hook at most once per epoch: the inner loops stay in
// the methods, free of indirect calls per row.
type method[M any] interface {
	// epoch makes pass e over the training rows; more says another pass
	// may follow (so its order can be drawn meanwhile). It fills the
	// statistics of the pass (Rows, Mistakes, Updates, Loss) and returns
	// ctx's error if ctx ended during the pass.
	epoch(ctx context.Context, e int, more bool) (EpochStats, error)
	// check returns an error wrapping ErrDiverged if the learner's
	// weights are not all finite after epoch e.
	check(e int) error
	// model returns the model of this moment.
	model() M
	// evaluate fills es.TrainLoss, es.TrainMistakes and es.ValidAccuracy
	// where the method computes them, and returns the model it measured
	// and whether es.ValidAccuracy holds a held-out accuracy.
	evaluate(es *EpochStats) (m M, validated bool)
	// record takes the statistics of a finished epoch before OnEpoch sees
	// them (a method with statistics of its own keeps and reports them).
	record(es EpochStats) error
	// countLeft counts the examples of the epochs left after convergence
	// as seen (see drive).
	countLeft(examples int64)
}

// drive runs up to s.epochs epochs of t and returns the model, the
// statistics of every finished epoch and the error that ended training.
//
// Before every epoch it checks ctx. After one it checks that the weights
// are finite (if not, it returns no model, since it would be useless),
// lets t evaluate the model and record the statistics, and calls
// s.OnEpoch. Training stops after an epoch without updates (see
// settings.converged): the epochs left would change nothing but the
// average, which would lean further towards the final vector, so t counts
// their examples as seen and stopping changes nothing but the time taken.
// With a held-out set it stops too when the held-out accuracy has not
// improved for s.patience epochs, and returns the best model then.
//
// On ctx's end, a pass's error or an OnEpoch error, it returns the model
// as it stood (the best one, with a held-out set) with that error.
func drive[M any](ctx context.Context, s *settings, t method[M]) (M, []EpochStats, error) {
	var stats []EpochStats
	var best M
	haveBest, bestAcc, since := false, -1.0, 0
	result := func() M {
		if haveBest {
			return best
		}
		return t.model()
	}
	for e := 1; e <= s.epochs; e++ {
		if err := ctx.Err(); err != nil {
			return result(), stats, err
		}
		es, err := t.epoch(ctx, e, e < s.epochs)
		es = numbered(es, e)
		if err != nil {
			return result(), stats, err
		}
		if err := t.check(e); err != nil {
			var none M
			return none, stats, err
		}
		m, validated := t.evaluate(&es)
		conv := s.converged(es)
		stop := conv
		if validated {
			if es.ValidAccuracy > bestAcc {
				best, haveBest, bestAcc, since = m, true, es.ValidAccuracy, 0
			} else if since++; since >= s.patience {
				stop = true
			}
		}
		stats = append(stats, es)
		if err := t.record(es); err != nil {
			return result(), stats, err
		}
		if s.OnEpoch != nil {
			if err := s.OnEpoch(es); err != nil {
				return result(), stats, err
			}
		}
		if stop {
			if left := s.epochs - e; conv && left > 0 {
				t.countLeft(examplesLeft(left, es.Rows))
			}
			break
		}
	}
	return result(), stats, nil
}

// passStats is what a learner's pass over some rows did.
type passStats struct {
	rows, mistakes, updates int
	loss                    float64 // summed over the mistakes
}

// add counts one example's outcome.
func (p *passStats) add(o outcome) {
	p.rows++
	if o.mistake {
		p.mistakes++
		p.loss += float64(o.loss)
	}
	if o.update {
		p.updates++
	}
}

// stats returns the pass's statistics as those of an epoch of rows rows
// (the fields drive fills are left zero).
func (p passStats) stats(rows int) EpochStats {
	return EpochStats{Rows: rows, Mistakes: p.mistakes, Updates: p.updates, Loss: p.loss / float64(max(1, rows))}
}

// numbered returns the statistics of a pass as those of epoch e: the
// measures that evaluate may fill are NaN (TrainMistakes −1) until it
// does.
func numbered(es EpochStats, e int) EpochStats {
	es.Epoch = e
	es.TrainLoss, es.TrainMistakes, es.ValidAccuracy = math.NaN(), -1, math.NaN()
	return es
}

// maxLeft bounds the examples that the epochs left after convergence
// count for: Epochs may be huge (math.MaxInt, to mean "until it
// converges"), and the counts are int64. At 2^62 the final vector
// outweighs every earlier one by far more than float64 can tell.
const maxLeft = 1 << 62

// examplesLeft returns left epochs × rows examples, saturated at maxLeft.
func examplesLeft(left, rows int) int64 {
	if left <= 0 || rows <= 0 {
		return 0
	}
	if int64(left) > maxLeft/int64(rows) {
		return maxLeft
	}
	return int64(left) * int64(rows)
}

// cancelledAt returns ctx's error every checkEvery rows of a pass (p
// counts the rows from 0), nil otherwise: a pass checks ctx between rows
// at that rate, so that a cancelled fit stops within a fraction of an
// epoch without paying for a check per row.
func cancelledAt(ctx context.Context, p int) error {
	if p%checkEvery == checkEvery-1 {
		return ctx.Err()
	}
	return nil
}
