package beam

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/hpc"
)

// writeShards writes n shards of rowsPer rows each in dir, drawn from a
// hidden linear rule over `classes` classes (labels −1/+1 for two, else
// 0..classes−1) with up to about 12 of width features a row, and returns
// the shards' glob and all their rows in shard order.
func writeShards(t *testing.T, dir string, n, rowsPer, width, classes int, seed uint64) (string, *sparse.CSR, []float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	hidden := make([][]float32, classes)
	for k := range hidden {
		hidden[k] = make([]float32, width)
		for j := range hidden[k] {
			hidden[k][j] = float32(rng.NormFloat64())
		}
	}
	b := sparse.NewBuilder(width)
	var y []float64
	for s := range n {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("shard-%03d.hpc", s)))
		if err != nil {
			t.Fatal(err)
		}
		w := hpc.NewWriter(f, hpc.WriterOptions{})
		for range rowsPer {
			var ind []int32
			var val []float32
			for j := range width {
				if rng.IntN(width) < 12 || j == width-1 {
					ind = append(ind, int32(j))
					val = append(val, float32(rng.Float64()*2-1))
				}
			}
			best, bs := 0, float32(math.Inf(-1))
			for k := range classes {
				var sc float32
				for p, j := range ind {
					sc += hidden[k][j] * val[p]
				}
				if sc > bs {
					best, bs = k, sc
				}
			}
			label := float64(best)
			if classes == 2 {
				label = float64(2*best - 1)
			}
			if err := w.Add(label, ind, val); err != nil {
				t.Fatal(err)
			}
			if err := b.Add(ind, val); err != nil {
				t.Fatal(err)
			}
			y = append(y, label)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "shard-*.hpc"), b.Build(), y
}

// mixInProcess is the pipeline's arithmetic without Beam and without its
// sparse files, the plain way: every epoch, every shard learns from all
// the mixed weights in this process, with a learner of the model's width
// over the shard's own file, and the shards' dense states are merged in
// shard order into a dense state.
func mixInProcess(t *testing.T, glob string, opt Options) *engine.Model {
	t.Helper()
	ctx := context.Background()
	st, err := settle(opt)
	if err != nil {
		t.Fatal(err)
	}
	shards, err := expand(ctx, []string{glob})
	if err != nil {
		t.Fatal(err)
	}
	hd, err := readHeaders(ctx, shards)
	if err != nil {
		t.Fatal(err)
	}
	l, err := engine.NewLearner(hd.Labels, hd.Cols, st.config())
	if err != nil {
		t.Fatal(err)
	}
	state, err := l.Mix()
	if err != nil {
		t.Fatal(err)
	}
	for e := range st.Epochs {
		start := &engine.Mix{Classes: state.Classes, Dim: state.Dim, W: state.W, B: state.B}
		mixes := make([]*engine.Mix, len(shards))
		for i, s := range shards {
			c, err := hpc.Open(s, hpc.Options{})
			if err != nil {
				t.Fatal(err)
			}
			cfg := st.config()
			cfg.Seed = shardSeed(st.Seed, e, i)
			l, err := engine.NewLearnerFrom(start, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := l.PartialFitCache(ctx, c); err != nil {
				t.Fatal(err)
			}
			c.Close()
			if mixes[i], err = l.Mix(); err != nil {
				t.Fatal(err)
			}
		}
		if err := state.Merge(mixes); err != nil {
			t.Fatal(err)
		}
		if state.Updates == 0 {
			break
		}
	}
	m, err := state.Model(st.config())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// writeWideShards writes n shards of rowsPer rows each in dir, of about
// 8 features each drawn from width (wide, so that the shards touch a
// small part of it and a learner of the whole width lays its weights out
// as a wide one does), labelled −1/+1 by a hidden linear rule, and
// returns the shards' glob.
func writeWideShards(t *testing.T, dir string, n, rowsPer, width int, seed uint64) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 2))
	hidden := func(j int32) float32 { return float32(int64(uint32(j)*2654435761)%7 - 3) }
	for s := range n {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("wide-%03d.hpc", s)))
		if err != nil {
			t.Fatal(err)
		}
		w := hpc.NewWriter(f, hpc.WriterOptions{Dim: width, BlockSize: 2048})
		for range rowsPer {
			// Features from a pool of 4000, spread over the width.
			set := map[int32]bool{}
			for range 8 {
				set[int32(rng.IntN(4000))*int32(width/4000)] = true
			}
			var ind []int32
			for j := range set {
				ind = append(ind, j)
			}
			slices.Sort(ind)
			val := make([]float32, len(ind))
			var sc float32
			for p, j := range ind {
				val[p] = float32(rng.IntN(3) + 1)
				sc += hidden(j) * val[p]
			}
			label := 1.0
			if sc < 0 {
				label = -1
			}
			if err := w.Add(label, ind, val); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "wide-*.hpc")
}

// sameWeights fails t unless a and b have the same classes and every
// weight and bias within tol (relative to the larger magnitude, at least
// 1); tol 0 asks for the same bits.
func sameWeights(t *testing.T, what string, a, b *engine.Model, tol float64) {
	t.Helper()
	if fmt.Sprint(a.Classes) != fmt.Sprint(b.Classes) || a.NumRows() != b.NumRows() {
		t.Fatalf("%s: classes %v and %v", what, a.Classes, b.Classes)
	}
	dim := max(a.Dim, b.Dim)
	worst := 0.0
	nonzero := 0
	for k := range a.NumRows() {
		for j := range dim {
			x, y := float64(a.Weight(k, j)), float64(b.Weight(k, j))
			if x != 0 {
				nonzero++
			}
			if tol == 0 && math.Float32bits(a.Weight(k, j)) != math.Float32bits(b.Weight(k, j)) {
				t.Fatalf("%s: weight of feature %d, row %d: %g and %g differ in their bits", what, j, k, x, y)
			}
			d := math.Abs(x-y) / max(1, math.Abs(x), math.Abs(y))
			if !(d <= tol) {
				t.Fatalf("%s: weight of feature %d, row %d: %g and %g", what, j, k, x, y)
			}
			worst = max(worst, d)
		}
		x, y := float64(a.B[k]), float64(b.B[k])
		if tol == 0 && math.Float32bits(a.B[k]) != math.Float32bits(b.B[k]) {
			t.Fatalf("%s: bias of row %d: %g and %g differ in their bits", what, k, x, y)
		}
		if d := math.Abs(x-y) / max(1, math.Abs(x), math.Abs(y)); !(d <= tol) {
			t.Fatalf("%s: bias of row %d: %g and %g", what, k, x, y)
		}
	}
	if nonzero == 0 {
		t.Fatalf("%s: every weight is zero", what)
	}
	t.Logf("%s: %d nonzero weights, largest relative difference %.3g", what, nonzero, worst)
}
