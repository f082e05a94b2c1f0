package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/hyperplane-ml/hyperplane/engine/internal/folds"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// Folds assigns each of the rows labelled y to one of k folds, stratified:
// the rows of each class are shuffled (by seed) and dealt to the folds in
// turn, the next class starting where the last one stopped, so that every
// fold holds each class in nearly its share of the data and the folds'
// sizes differ by at most one. It returns the fold of every row.
func Folds(y []float64, k int, seed uint64) ([]int, error) {
	if k < 2 || k > len(y) {
		return nil, fmt.Errorf("%w: %d folds of %d rows (want 2 to the number of rows)", ErrConfig, k, len(y))
	}
	byClass := map[float64][]int{}
	for i, v := range y {
		byClass[v+0] = append(byClass[v+0], i)
	}
	classes := make([]float64, 0, len(byClass))
	for c := range byClass {
		classes = append(classes, c)
	}
	slices.Sort(classes)
	rng := rand.New(rand.NewPCG(seed, 0x5851f42d4c957f2d))
	fold := make([]int, len(y))
	next := 0
	for _, c := range classes {
		rows := byClass[c]
		rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
		for _, r := range rows {
			fold[r] = next
			next = (next + 1) % k
		}
	}
	return fold, nil
}

// FoldResult is what CrossValidate measured on one fold.
type FoldResult struct {
	// Rows is the number of held-out rows, Correct how many of them the
	// model trained on the other folds predicted right.
	Rows, Correct int
	// Epochs is the number of epochs the fold's training ran.
	Epochs int
}

// Accuracy returns Correct/Rows.
func (r FoldResult) Accuracy() float64 { return float64(r.Correct) / float64(r.Rows) }

// CrossValidate runs k-fold cross-validation of cfg on X and y: for each
// fold of Folds(y, k, cfg.Seed) it trains on the other folds and predicts
// the fold's rows. Folds train concurrently, up to GOMAXPROCS at a time
// (each with cfg.Workers), so cfg.OnEpoch, when set, is called for the
// epochs of every fold from their goroutines at once: it must be safe
// for concurrent use (EpochStats.Epoch counts within a fold). A fold
// whose training rows hold a single class is an error, as Fit gives it.
func CrossValidate(ctx context.Context, X *sparse.CSR, y []float64, cfg Config, k int) ([]FoldResult, error) {
	if X == nil || X.Rows == 0 {
		return nil, ErrNoData
	}
	if len(y) != X.Rows {
		return nil, fmt.Errorf("%w: %d labels for %d rows", ErrLabels, len(y), X.Rows)
	}
	fold, err := Folds(y, k, cfg.Seed)
	if err != nil {
		return nil, err
	}
	return folds.Run(k, cfg.Workers, func(f int) (FoldResult, error) {
		in, out := folds.Split(fold, f)
		yin := make([]float64, len(in))
		for j, i := range in {
			yin[j] = y[i]
		}
		m, stats, err := Fit(ctx, X.SelectRows(in), yin, cfg)
		if err != nil {
			return FoldResult{}, err
		}
		pred := m.PredictBatch(X.SelectRows(out), nil)
		r := FoldResult{Rows: len(out), Epochs: len(stats)}
		for j, i := range out {
			if pred[j] == y[i] {
				r.Correct++
			}
		}
		return r, nil
	})
}
