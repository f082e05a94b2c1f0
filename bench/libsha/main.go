// Command libsha prints the SHA-256 of models fitted through every
// training path of the engine's library API — Fit on sparse rows (packed,
// interleaved, gathered, mixed by workers), FitDense, FitCache and the
// online Learner's PartialFit, LearnFrom and PartialFitCache — over every
// rule and algorithm, on generated data, with the statistics of every
// epoch folded into each hash. A refactor of the learners must leave its
// output unchanged: run it before and after and diff.
//
//	go run ./bench/libsha > before.txt
package main

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/hyperplane-ml/hyperplane/dense"
	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/hpc"
)

// data is a generated training set: rows of small integer counts (so
// that the packed passes take them) labelled by a planted linear rule
// with a tenth of the labels flipped.
type data struct {
	name string
	X    *sparse.CSR
	y    []float64
}

func generate(name string, rows, dim, classes int, seed uint64) data {
	rng := rand.New(rand.NewPCG(seed, 7))
	truth := make([]float64, dim*classes)
	for i := range truth {
		truth[i] = rng.NormFloat64()
	}
	var b sparse.Builder
	y := make([]float64, rows)
	for i := range rows {
		n := 5 + rng.IntN(40)
		seen := map[int32]bool{}
		var ind []int32
		for len(ind) < n {
			j := int32(rng.IntN(min(dim, 1+rng.IntN(dim))))
			if !seen[j] {
				seen[j] = true
				ind = append(ind, j)
			}
		}
		sortInts(ind)
		val := make([]float32, len(ind))
		score := make([]float64, classes)
		for k, j := range ind {
			val[k] = float32(1 + rng.IntN(4))
			for c := range classes {
				score[c] += truth[int(j)*classes+c] * float64(val[k])
			}
		}
		best := 0
		for c := range score {
			if score[c] > score[best] {
				best = c
			}
		}
		if rng.IntN(10) == 0 {
			best = rng.IntN(classes)
		}
		if classes == 2 {
			y[i] = float64(2*best - 1)
		} else {
			y[i] = float64(best)
		}
		if err := b.Add(ind, val); err != nil {
			panic(err)
		}
	}
	return data{name, b.Build(), y}
}

func sortInts(a []int32) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// sum folds a model and its epochs' statistics into one hash.
func sum(m *engine.Model, stats []engine.EpochStats, err error) string {
	h := sha256.New()
	if err != nil {
		fmt.Fprintf(h, "error %v", err)
	}
	if m != nil {
		b, merr := m.MarshalBinary()
		if merr != nil {
			return "marshal: " + merr.Error()
		}
		h.Write(b)
	}
	for _, s := range stats {
		foldStats(h, s)
	}
	return fmt.Sprintf("%x", h.Sum(nil)[:8])
}

func foldStats(h hash.Hash, s engine.EpochStats) {
	var buf [8]byte
	for _, v := range []uint64{uint64(s.Epoch), uint64(s.Mistakes), uint64(s.Updates), uint64(s.Rows), math.Float64bits(s.Loss)} {
		binary.LittleEndian.PutUint64(buf[:], v)
		h.Write(buf[:])
	}
}

type variant struct {
	name string
	cfg  engine.Config
}

func variants(sw []float64) []variant {
	v := []variant{
		{"averaged", engine.Config{Epochs: 5}},
		{"averaged-2ep", engine.Config{Epochs: 2}},
		{"plain", engine.Config{Algorithm: engine.Plain, Epochs: 5}},
		{"voted", engine.Config{Algorithm: engine.Voted, Epochs: 3}},
		{"batch", engine.Config{Algorithm: engine.Batch, Epochs: 5}},
		{"averaged-norm", engine.Config{Epochs: 5, Normalize: true}},
		{"averaged-margin-init", engine.Config{Epochs: 5, Margin: 0.5, InitScale: 0.01, Bias: engine.BiasAugmented}},
		{"averaged-noshuffle", engine.Config{Epochs: 4, NoShuffle: true}},
		{"averaged-nobias", engine.Config{Epochs: 4, Bias: engine.NoBias}},
		{"averaged-sw", engine.Config{Epochs: 4, SampleWeight: sw}},
		{"averaged-balanced", engine.Config{Epochs: 4, Balanced: true}},
		{"averaged-workers2", engine.Config{Epochs: 4, Workers: 2}},
		{"plain-workers2", engine.Config{Algorithm: engine.Plain, Epochs: 4, Workers: 2}},
		{"averaged-valid", engine.Config{Epochs: 6, Validation: 0.2, Patience: 2, TrainLoss: true}},
		{"pa", engine.Config{Rule: engine.PA, Epochs: 4}},
		{"pa-norm", engine.Config{Rule: engine.PA, Epochs: 4, Normalize: true}},
		{"pa1-norm", engine.Config{Rule: engine.PA1, Epochs: 4, Normalize: true}},
		{"pa2", engine.Config{Rule: engine.PA2, Epochs: 4, C: 0.5}},
		{"pa1-plain-norm", engine.Config{Rule: engine.PA1, Algorithm: engine.Plain, Epochs: 4, Normalize: true}},
		{"pa1-sw", engine.Config{Rule: engine.PA1, Epochs: 4, SampleWeight: sw, Normalize: true}},
		{"pegasos", engine.Config{Rule: engine.Pegasos, Epochs: 4, Normalize: true}},
		{"pegasos-plain", engine.Config{Rule: engine.Pegasos, Algorithm: engine.Plain, Epochs: 4}},
		{"logistic", engine.Config{Rule: engine.Logistic, Epochs: 4, Normalize: true}},
		{"modhuber", engine.Config{Rule: engine.ModifiedHuber, Epochs: 4, Normalize: true}},
		{"logistic-workers2", engine.Config{Rule: engine.Logistic, Epochs: 3, Workers: 2, Normalize: true}},
		{"voted-pa1", engine.Config{Rule: engine.PA1, Algorithm: engine.Voted, Epochs: 3}},
	}
	return v
}

func main() {
	ctx := context.Background()
	sets := []data{
		generate("bin-small", 3000, 3000, 2, 1),
		generate("bin-wide", 3000, 1<<21, 2, 2),
		generate("multi5", 3000, 3000, 5, 3),
		generate("multi5-wide", 2000, 1<<18, 5, 4),
	}
	tmp, err := os.MkdirTemp("", "libsha")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(tmp)
	for _, d := range sets {
		sw := make([]float64, d.X.Rows)
		for i := range sw {
			sw[i] = float64(1 + i%3)
		}
		for _, v := range variants(sw) {
			cfg := v.cfg
			cfg.Seed = 11
			m, st, err := engine.Fit(ctx, d.X, d.y, cfg)
			fmt.Printf("%s  Fit %s %s\n", sum(m, st, err), d.name, v.name)
		}
		if d.X.Cols <= 4096 {
			D := densify(d.X)
			for _, v := range variants(sw) {
				cfg := v.cfg
				cfg.Seed = 11
				m, st, err := engine.FitDense(ctx, D, d.y, cfg)
				fmt.Printf("%s  FitDense %s %s\n", sum(m, st, err), d.name, v.name)
			}
		}
		path := filepath.Join(tmp, d.name+".hpc")
		writeCache(path, d)
		c, err := hpc.Open(path, hpc.Options{})
		if err != nil {
			fail(err)
		}
		for _, v := range variants(sw) {
			cfg := v.cfg
			cfg.Seed = 11
			if cfg.Algorithm == engine.Batch || cfg.Validation > 0 || cfg.SampleWeight != nil || cfg.Workers > 1 {
				continue
			}
			m, st, err := engine.FitCache(ctx, c, cfg)
			fmt.Printf("%s  FitCache %s %s\n", sum(m, st, err), d.name, v.name)
			online(ctx, d, c, v)
		}
		c.Close()
	}
}

// online trains a Learner by every online call and hashes its model.
func online(ctx context.Context, d data, c *hpc.File, v variant) {
	cfg := v.cfg
	cfg.Seed = 11
	if cfg.Balanced {
		return
	}
	classes := uniq(d.y)
	l, err := engine.NewLearner(classes, 16, cfg)
	if err != nil {
		fmt.Printf("%s  Learner %s %s\n", sum(nil, nil, err), d.name, v.name)
		return
	}
	var stats []engine.EpochStats
	for range 2 {
		es, err := l.PartialFit(ctx, d.X, d.y)
		if err != nil {
			fail(err)
		}
		stats = append(stats, es)
	}
	es, err := l.LearnFrom(ctx, &csrSource{X: d.X, y: d.y, i: -1})
	if err != nil {
		fail(err)
	}
	stats = append(stats, es)
	for range 2 {
		es, err := l.PartialFitCache(ctx, c)
		if err != nil {
			fail(err)
		}
		stats = append(stats, es)
	}
	for i := range 50 {
		if _, err := l.LearnWeighted(d.X.Row(i), d.y[i], 0.5); err != nil {
			fail(err)
		}
	}
	fmt.Printf("%s  Learner %s %s\n", sum(l.Model(), stats, nil), d.name, v.name)
}

type csrSource struct {
	X *sparse.CSR
	y []float64
	i int
}

func (s *csrSource) Scan() bool { s.i++; return s.i < s.X.Rows }
func (s *csrSource) Row() (float64, sparse.Vector) {
	return s.y[s.i], s.X.Row(s.i)
}
func (s *csrSource) Err() error { return nil }

func uniq(y []float64) []float64 {
	seen := map[float64]bool{}
	var out []float64
	for _, v := range y {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func densify(X *sparse.CSR) *dense.Matrix[float32] {
	D, err := dense.New[float32](X.Rows, X.Cols)
	if err != nil {
		fail(err)
	}
	for i := range X.Rows {
		r := X.Row(i)
		row := D.Row(i)
		for k, j := range r.Ind {
			row[j] = r.Val[k]
		}
	}
	return D
}

func writeCache(path string, d data) {
	f, err := os.Create(path)
	if err != nil {
		fail(err)
	}
	// Small blocks, so that the epochs stream several windows.
	w := hpc.NewWriter(f, hpc.WriterOptions{BlockSize: 16 << 10})
	for i := range d.X.Rows {
		r := d.X.Row(i)
		if err := w.Add(d.y[i], r.Ind, r.Val); err != nil {
			fail(err)
		}
	}
	if err := w.Close(); err != nil {
		fail(err)
	}
	if err := f.Close(); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "libsha:", err)
	os.Exit(1)
}
