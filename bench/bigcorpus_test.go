package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/hpc"
	"github.com/hyperplane-ml/hyperplane/sparse/synth"
)

// scaleRows is the size of the synthetic corpus of the Scale benchmarks:
// HYPERPLANE_SCALE_ROWS rows (10000000 is the large-corpus figure), else 200000
// so that a one-iteration CI pass over every benchmark stays quick.
func scaleRows() int {
	if s := os.Getenv("HYPERPLANE_SCALE_ROWS"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			return n
		}
	}
	return 200_000
}

var (
	scaleOnce sync.Once
	scaleData *sparse.Dataset
	scaleErr  error
)

// scaleCorpus is a text-like corpus: ~75 nonzeros a row over 2^20 hashed
// features with Zipf popularity, term counts as values, labels from a
// planted separator with 10% of them flipped (so that every epoch keeps
// making updates, as on real text).
func scaleCorpus(b *testing.B) *sparse.Dataset {
	scaleOnce.Do(func() {
		scaleData, scaleErr = synth.Text{Rows: scaleRows(), Noise: 0.1, Seed: 1}.Generate()
	})
	if scaleErr != nil {
		b.Fatal(scaleErr)
	}
	return scaleData
}

var bareSink float32

// barePass computes w·x for every row of X, in storage order, with a
// plain Go loop: the least any epoch has to do.
func barePass(X *sparse.CSR, w []float32) {
	var total float32
	for i := range X.Rows {
		lo, hi := X.Indptr[i], X.Indptr[i+1]
		ind, val := X.Ind[lo:hi], X.Val[lo:hi]
		var s float32
		for k, j := range ind {
			s += val[k] * w[j]
		}
		total += s
	}
	bareSink = total
}

// epochTimes runs fit with an OnEpoch hook and returns the duration of
// every epoch after the first (the first also pays Fit's setup) and, when
// bare is not nil, the duration of a bare pass run right after each of
// those epochs, so that the two are measured side by side on a machine
// whose speed drifts.
func epochTimes(b *testing.B, fit func(cfg engine.Config) ([]engine.EpochStats, error), cfg engine.Config, bare func()) (epochs, bares []time.Duration, st []engine.EpochStats) {
	last := time.Now()
	cfg.OnEpoch = func(s engine.EpochStats) error {
		now := time.Now()
		if s.Epoch > 1 {
			epochs = append(epochs, now.Sub(last))
			if bare != nil {
				bare()
				bares = append(bares, time.Since(now))
			}
		}
		last = time.Now()
		return nil
	}
	st, err := fit(cfg)
	if err != nil {
		b.Fatal(err)
	}
	return epochs, bares, st
}

func medianDur(d []time.Duration) time.Duration {
	d = slices.Clone(d)
	slices.Sort(d)
	return d[len(d)/2]
}

// BenchmarkBigCorpus: one averaged-perceptron epoch over the synthetic
// corpus from memory (1 worker and 2 by parameter mixing, and 1 worker in
// file order without shuffling) and out of core from a cache file, each
// against a bare pass over the same CSR measured in the same run (the
// ratios to watch: an epoch against the bare pass, and from the cache
// against the in-memory epoch). Run the large size with
//
//	HYPERPLANE_SCALE_ROWS=10000000 go test -run '^$' -bench BigCorpus -benchtime 1x ./bench/
func BenchmarkBigCorpus(b *testing.B) {
	d := scaleCorpus(b)
	X := d.X
	nnz := float64(X.NNZ())
	w := make([]float32, X.Cols)
	r := rand.New(rand.NewPCG(3, 4))
	for j := range w {
		w[j] = r.Float32() - 0.5
	}
	bare := func() { barePass(X, w) }
	report := func(b *testing.B, epoch, ref time.Duration, st []engine.EpochStats) {
		b.ReportMetric(float64(epoch.Microseconds())/1e3, "ms/epoch")
		b.ReportMetric(float64(epoch.Nanoseconds())/nnz, "ns/nnz")
		b.ReportMetric(float64(ref.Microseconds())/1e3, "ms/bare")
		b.ReportMetric(float64(epoch)/float64(ref), "epoch/bare")
		b.ReportMetric(float64(st[len(st)-1].Mistakes)/float64(X.Rows), "mistake-rate")
	}
	const epochs = 5
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("memory/workers=%d", workers), func(b *testing.B) {
			for b.Loop() {
				ts, bs, st := epochTimes(b, func(cfg engine.Config) ([]engine.EpochStats, error) {
					_, st, err := engine.Fit(context.Background(), X, d.Y, cfg)
					return st, err
				}, engine.Config{Epochs: epochs, Workers: workers}, bare)
				report(b, medianDur(ts), medianDur(bs), st)
			}
		})
	}
	// In file order, as the bare pass reads it (and as Vowpal Wabbit's
	// passes go): the generated rows are independent draws, so the order
	// they were written in is already a random one.
	b.Run("memory/noshuffle", func(b *testing.B) {
		for b.Loop() {
			ts, bs, st := epochTimes(b, func(cfg engine.Config) ([]engine.EpochStats, error) {
				_, st, err := engine.Fit(context.Background(), X, d.Y, cfg)
				return st, err
			}, engine.Config{Epochs: epochs, NoShuffle: true}, bare)
			report(b, medianDur(ts), medianDur(bs), st)
		}
	})
	b.Run("bare", func(b *testing.B) {
		for b.Loop() {
			barePass(X, w)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/nnz, "ns/nnz")
	})

	// Out of core: the same rows from a cache file, a window of blocks in
	// training and the next read ahead. The file was just written, so it
	// is in the page cache: this measures reading blocks, not the disk.
	path := filepath.Join(b.TempDir(), "scale.hpc")
	if err := sparse.WriteFile(path, d); err != nil {
		b.Fatal(err)
	}
	for _, mapped := range []bool{false, true} {
		b.Run(fmt.Sprintf("cache/mmap=%v", mapped), func(b *testing.B) {
			c, err := hpc.Open(path, hpc.Options{Map: mapped})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			for b.Loop() {
				// In-memory and cache epochs alternate: an in-memory fit
				// (its epochs timed), then a cache fit, twice.
				var mem, cache, bs []time.Duration
				var st []engine.EpochStats
				for range 2 {
					m, _, _ := epochTimes(b, func(cfg engine.Config) ([]engine.EpochStats, error) {
						_, st, err := engine.Fit(context.Background(), X, d.Y, cfg)
						return st, err
					}, engine.Config{Epochs: 3}, nil)
					ts, b2, s2 := epochTimes(b, func(cfg engine.Config) ([]engine.EpochStats, error) {
						_, st, err := engine.FitCache(context.Background(), c, cfg)
						return st, err
					}, engine.Config{Epochs: 3}, bare)
					mem, cache, bs, st = append(mem, m...), append(cache, ts...), append(bs, b2...), s2
				}
				report(b, medianDur(cache), medianDur(bs), st)
				b.ReportMetric(float64(medianDur(cache))/float64(medianDur(mem)), "cache/memory")
			}
		})
	}
}
