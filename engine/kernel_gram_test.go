package engine

import (
	"testing"

	"github.com/hyperplane-ml/hyperplane/kernels"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// ---------------------------------------------------------------------
// 6. The Gram matrix: full or cached rows, the same training.

// TestKernelGramCacheIdentical: training with the full Gram matrix and
// (Precompute) and with an LRU cache of a few rows (a budget below the
// full matrix) gives bit-identical models, and the statistics say which
// ran and that the cache missed.
func TestKernelGramCacheIdentical(t *testing.T) {
	Xd, yd := ktFloatData(81, 180, 10, 1, 2, 0.1)
	Xs, ys := ktFloatData(82, 180, 120, 0.12, 3, 0.1)
	Xi, yi := ktIntData(83, 180, 30, 5, 4, 0.1, 0)
	for _, c := range []struct {
		name string
		X    *sparse.CSR
		y    []float64
		cfg  KernelConfig
	}{
		{"dense-rbf-averaged", Xd, yd, KernelConfig{Config: Config{Epochs: 4, Seed: 1}, Kernel: kernels.RBF{Gamma: 0.5}}},
		{"dense-rbf-voted", Xd, yd, KernelConfig{Config: Config{Algorithm: Voted, Epochs: 3, Seed: 1}, Kernel: kernels.RBF{Gamma: 0.5}}},
		{"sparse-poly-K3", Xs, ys, KernelConfig{Config: Config{Epochs: 4, Seed: 2}, Kernel: kernels.Poly{Degree: 2, Gamma: 0.5, Coef0: 1}}},
		{"sparse-rbf-K3-budget", Xs, ys, KernelConfig{Config: Config{Algorithm: Plain, Epochs: 4, Seed: 3}, Kernel: kernels.RBF{Gamma: 0.2}, MaxSupportVectors: 20}},
		{"int-sigmoid-K4-plain", Xi, yi, KernelConfig{Config: Config{Algorithm: Plain, Epochs: 4, Seed: 4}, Kernel: kernels.Sigmoid{Gamma: 0.01}}},
		{"int-linear-K4-budget", Xi, yi, KernelConfig{Config: Config{Algorithm: Plain, Epochs: 4, Seed: 5}, Kernel: kernels.Linear{}, MaxSupportVectors: 15}},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := int64(c.X.Rows)
			full := c.cfg
			full.Gram = kernels.Options{Precompute: true}
			mf, sf := ktFit(t, c.X, c.y, full)
			over := 4 * n // what a cache holds beside its rows
			if kernels.NewData(c.X).IsDense() {
				over += 4 * n * int64(c.X.Cols)
			}
			for _, g := range []struct {
				name string
				opt  kernels.Options
				rows int
			}{
				{"3-rows", kernels.Options{Budget: 3*4*n + over}, 3},
				{"2-rows", kernels.Options{Budget: 2*4*n + over + 5}, 2},
				{"10-rows-precompute-too-big", kernels.Options{Budget: 10*4*n + over, Precompute: true}, 10},
				{"all-rows-lazy", kernels.Options{}, int(n)},
			} {
				what := c.name + "/" + g.name
				cached := c.cfg
				cached.Gram = g.opt
				mc, sc := ktFit(t, c.X, c.y, cached)
				ktSameModel(t, what+": cache vs full", mc, mf)
				if len(sc) != len(sf) {
					t.Fatalf("%s: %d epochs with the cache, %d with the full matrix", what, len(sc), len(sf))
				}
				for e := range sc {
					a, b := sc[e], sf[e]
					if a.Mistakes != b.Mistakes || a.Updates != b.Updates || a.SupportVectors != b.SupportVectors || a.Removed != b.Removed {
						t.Fatalf("%s: epoch %d: cache %+v, full %+v", what, e+1, a, b)
					}
					if !b.Gram.Full || b.Gram.Misses != 0 || b.Gram.Rows != c.X.Rows {
						t.Fatalf("%s: epoch %d: the default Gram stats %+v do not describe a full matrix", what, e+1, b.Gram)
					}
					if a.Gram.Full || a.Gram.Rows != g.rows {
						t.Fatalf("%s: epoch %d: Gram stats %+v, want a cache of %d rows", what, e+1, a.Gram, g.rows)
					}
					if e > 0 && (a.Gram.Misses < sc[e-1].Gram.Misses || a.Gram.Hits < sc[e-1].Gram.Hits) {
						t.Fatalf("%s: cache counters went down: %+v after %+v", what, a.Gram, sc[e-1].Gram)
					}
				}
				last := sc[len(sc)-1].Gram
				if last.Misses <= 0 {
					t.Errorf("%s: the cache reports %d misses", what, last.Misses)
				}
				if updates := ktUpdates(sc); last.Hits+last.Misses < int64(updates) {
					t.Errorf("%s: %d hits + %d misses for %d updates", what, last.Hits, last.Misses, updates)
				}
			}
		})
	}
}

// ktUpdates sums Updates over the epochs.
func ktUpdates(stats []KernelEpochStats) int {
	n := 0
	for _, s := range stats {
		n += s.Updates
	}
	return n
}
