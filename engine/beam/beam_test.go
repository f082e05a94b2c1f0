package beam

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/hyperplane-ml/hyperplane/engine"
)

// TestMain starts Beam as a pipeline binary must (a runner may start this
// test binary again as its worker).
func TestMain(m *testing.M) { ptest.MainWithDefault(m, "prism") }

// learners are the configurations the pipeline supports.
var learners = []struct {
	name string
	cfg  engine.Config
}{
	{"averaged", engine.Config{Algorithm: engine.Averaged}},
	{"plain", engine.Config{Algorithm: engine.Plain}},
	{"averaged-pa2-normalized", engine.Config{Algorithm: engine.Averaged, Rule: engine.PA2, Normalize: true}},
}

// TestPrismMatchesInProcessMix runs the pipeline on Prism over generated
// shards and checks its model against the same mixing done in this
// process without Beam, for binary and multiclass data and each learner.
func TestPrismMatchesInProcessMix(t *testing.T) {
	for _, classes := range []int{2, 4} {
		dir := t.TempDir()
		glob, _, _ := writeShards(t, dir, 4, 150, 300, classes, uint64(classes))
		for _, l := range learners {
			t.Run(fmt.Sprintf("%s/%dclasses", l.name, classes), func(t *testing.T) {
				cfg := l.cfg
				cfg.Epochs, cfg.Seed = 4, 7
				opt := Options{Shards: []string{glob}, Workdir: t.TempDir(), Config: cfg}
				got, figs, err := Train(context.Background(), opt)
				if err != nil {
					t.Fatal(err)
				}
				if len(figs) != cfg.Epochs || figs[0].Shards != 4 || figs[0].Updates == 0 {
					t.Fatalf("epochs recorded: %+v", figs)
				}
				sameWeights(t, "Prism against in-process mixing", got, mixInProcess(t, glob, opt), 0)
			})
		}
	}
}

// TestPrismMatchesFitWorkers checks the pipeline against engine.Fit with
// Workers as many as the shards: without shuffling, Fit's workers learn
// the same contiguous shards in the same order, so the models agree.
func TestPrismMatchesFitWorkers(t *testing.T) {
	for _, classes := range []int{2, 3} {
		dir := t.TempDir()
		glob, X, y := writeShards(t, dir, 3, 100, 200, classes, 10+uint64(classes))
		for _, l := range learners {
			t.Run(fmt.Sprintf("%s/%dclasses", l.name, classes), func(t *testing.T) {
				cfg := l.cfg
				cfg.Epochs, cfg.NoShuffle = 3, true
				got, _, err := Train(context.Background(), Options{Shards: []string{glob}, Workdir: t.TempDir(), Config: cfg})
				if err != nil {
					t.Fatal(err)
				}
				cfg.Workers = 3
				want, _, err := engine.Fit(context.Background(), X, y, cfg)
				if err != nil {
					t.Fatal(err)
				}
				sameWeights(t, "Prism against Fit with Workers", got, want, 0)
			})
		}
	}
}

// TestPerEpochJobs checks that one job per epoch learns what the unrolled
// job learns, that OnEpoch sees every epoch, and that ErrStop stops early
// with the model of the epochs run.
func TestPerEpochJobs(t *testing.T) {
	glob, _, _ := writeShards(t, t.TempDir(), 3, 80, 100, 3, 21)
	cfg := engine.Config{Epochs: 3, Seed: 3}
	ctx := context.Background()
	unrolled, _, err := Train(ctx, Options{Shards: []string{glob}, Workdir: t.TempDir(), Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	var seen []int
	perEpoch, figs, err := Train(ctx, Options{Shards: []string{glob}, Workdir: t.TempDir(), Config: cfg, PerEpochJobs: true,
		OnEpoch: func(e int, m *engine.Model) error { seen = append(seen, e); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(seen) != "[1 2 3]" || len(figs) != 3 {
		t.Fatalf("OnEpoch saw epochs %v, %d recorded", seen, len(figs))
	}
	sameWeights(t, "per-epoch jobs against one job", perEpoch, unrolled, 0)

	cfg.Epochs = 2
	two, _, err := Train(ctx, Options{Shards: []string{glob}, Workdir: t.TempDir(), Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Epochs = 5
	stopped, figs, err := Train(ctx, Options{Shards: []string{glob}, Workdir: t.TempDir(), Config: cfg, PerEpochJobs: true,
		OnEpoch: func(e int, m *engine.Model) error {
			if e == 2 {
				return ErrStop
			}
			return nil
		}})
	if err != nil || len(figs) != 2 {
		t.Fatalf("stopped after epoch 2: %d epochs recorded, error %v", len(figs), err)
	}
	sameWeights(t, "stopped after 2 epochs against 2 epochs", stopped, two, 0)
}

// TestConvergedCarriesOver checks that an unrolled job stops learning
// after an epoch without updates, as Fit does: the epochs left carry the
// state over, and the model is Fit's.
func TestConvergedCarriesOver(t *testing.T) {
	dir := t.TempDir()
	// Separable by feature 0 with a wide margin: the perceptron converges
	// in an epoch or two.
	glob, X, y := writeShards(t, dir, 2, 40, 1, 2, 5)
	cfg := engine.Config{Algorithm: engine.Averaged, Epochs: 8, NoShuffle: true}
	got, figs, err := Train(context.Background(), Options{Shards: []string{glob}, Workdir: t.TempDir(), Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	last := len(figs) - 1
	if len(figs) != 8 || figs[last].Shards != 0 || figs[last].Updates != 0 || figs[0].Shards != 2 {
		t.Fatalf("epochs recorded: %+v", figs)
	}
	perEpoch, figs, err := Train(context.Background(), Options{Shards: []string{glob}, Workdir: t.TempDir(), Config: cfg, PerEpochJobs: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(figs) >= 8 || figs[len(figs)-1].Updates != 0 {
		t.Fatalf("per-epoch jobs did not stop when converged: %+v", figs)
	}
	cfg.Workers = 2
	want, stats, err := engine.Fit(context.Background(), X, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(stats) >= 8 {
		t.Fatalf("Fit did not converge early: %d epochs", len(stats))
	}
	sameWeights(t, "converged against Fit", got, want, 0)
	sameWeights(t, "converged per-epoch jobs against Fit", perEpoch, want, 0)
}

// TestBadOptions checks that bad options and files are refused with
// errors that say what is wrong.
func TestBadOptions(t *testing.T) {
	glob, _, _ := writeShards(t, t.TempDir(), 2, 10, 20, 2, 1)
	ctx := context.Background()
	for _, c := range []struct {
		name string
		opt  Options
	}{
		{"voted", Options{Shards: []string{glob}, Workdir: t.TempDir(), Config: engine.Config{Algorithm: engine.Voted}}},
		{"workers", Options{Shards: []string{glob}, Workdir: t.TempDir(), Config: engine.Config{Workers: 2}}},
		{"validation", Options{Shards: []string{glob}, Workdir: t.TempDir(), Config: engine.Config{Validation: 0.1}}},
		{"no workdir", Options{Shards: []string{glob}}},
		{"no shards", Options{Workdir: t.TempDir()}},
		{"OnEpoch unrolled", Options{Shards: []string{glob}, Workdir: t.TempDir(), OnEpoch: func(int, *engine.Model) error { return nil }}},
		{"no match", Options{Shards: []string{glob + ".none"}, Workdir: t.TempDir()}},
	} {
		if _, _, err := Train(ctx, c.opt); !errors.Is(err, ErrOptions) {
			t.Errorf("%s: error %v, want ErrOptions", c.name, err)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.hpc")
	if err := os.WriteFile(bad, []byte("not a cache"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := Train(ctx, Options{Shards: []string{glob, bad}, Workdir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), bad) {
		t.Fatalf("a shard that is not a cache: error %v, want one naming it", err)
	}
}

// TestOrderParts checks that the mixing step sorts an epoch's deltas into
// shard order and refuses an epoch that lacks a shard or has one twice.
func TestOrderParts(t *testing.T) {
	got, err := orderParts([]part{{Index: 2}, {Index: 0}, {Index: 1}}, 3)
	if err != nil || got[0].Index != 0 || got[1].Index != 1 || got[2].Index != 2 {
		t.Fatalf("%v, %v", got, err)
	}
	if got, err := orderParts([]part{{Index: -1}}, 3); err != nil || len(got) != 1 {
		t.Fatalf("a carried epoch: %v, %v", got, err)
	}
	for _, parts := range [][]part{nil, {{Index: 0}, {Index: 1}}, {{Index: 0}, {Index: 1}, {Index: 1}}, {{Index: 0}, {Index: 2}, {Index: 3}}} {
		if _, err := orderParts(parts, 3); err == nil {
			t.Errorf("%v for 3 shards: no error", parts)
		}
	}
}

// On a wide model of which the shards touch a small part, shuffled, the
// pipeline's sparse state, sparse weights and renumbered shards give the
// bits of dense mixing with learners of the whole width (whose weights
// take the interleaved layout of a wide binary averaged learner); and the
// figures of an epoch are the sizes of the files it read and wrote, which
// grow with the features touched, far below the dense state.
func TestPrismWideSparse(t *testing.T) {
	const width = 1 << 20
	glob := writeWideShards(t, t.TempDir(), 3, 400, width, 9)
	for _, l := range learners {
		t.Run(l.name, func(t *testing.T) {
			cfg := l.cfg
			cfg.Epochs, cfg.Seed = 3, 5
			work := t.TempDir()
			opt := Options{Shards: []string{glob}, Workdir: work, Config: cfg}
			got, figs, err := Train(context.Background(), opt)
			if err != nil {
				t.Fatal(err)
			}
			sameWeights(t, "Prism against dense mixing", got, mixInProcess(t, glob, opt), 0)
			size := func(pattern string) int64 {
				names, err := filepath.Glob(filepath.Join(work, pattern))
				if err != nil || len(names) == 0 {
					t.Fatalf("%s: %v, %v", pattern, names, err)
				}
				var n int64
				for _, name := range names {
					fi, err := os.Stat(name)
					if err != nil {
						t.Fatal(err)
					}
					n += fi.Size()
				}
				return n
			}
			// The files of the last two epochs are kept.
			last := figs[len(figs)-1]
			E := len(figs)
			want := Epoch{
				Epoch: E, Updates: last.Updates, Shards: 3,
				DeltaBytes:   size(fmt.Sprintf("delta-%04d-shard-*.hpmix", E-1)),
				WeightsBytes: size(fmt.Sprintf("weights-%04d-shard-*.hpmix", E-1)),
				// The mixing step took the state it wrote the epoch
				// before from memory: on Prism, every step runs in
				// this process.
				StateBytes:     0,
				StateWritten:   size(fmt.Sprintf("state-%04d.hpmix", E)),
				WeightsWritten: size(fmt.Sprintf("weights-%04d-shard-*.hpmix", E)),
			}
			want.ShardSeconds, want.MixSeconds = last.ShardSeconds, last.MixSeconds
			if last != want {
				t.Fatalf("figures of the last epoch %+v, files %+v", last, want)
			}
			dense := int64(width) * 4
			if last.StateWritten > dense/20 || last.WeightsBytes > dense/20 || last.DeltaBytes > dense/10 {
				t.Fatalf("an epoch moved %+v; dense weights are %d bytes", last, dense)
			}
		})
	}
}

// oneShard writes a shard of 50 rows of 30 features and returns it, a
// work directory and the settings of a run on it.
func oneShard(t *testing.T) (shard, work string, st settings) {
	t.Helper()
	dir, work := t.TempDir(), t.TempDir()
	glob, _, _ := writeShards(t, dir, 1, 50, 30, 2, 4)
	shards, err := expand(context.Background(), []string{glob})
	if err != nil {
		t.Fatal(err)
	}
	if st, err = settle(Options{Shards: []string{glob}, Workdir: work}); err != nil {
		t.Fatal(err)
	}
	return shards[0], work, st
}

// A shard's later epochs learn the copy with renumbered features that the
// first left in the work directory, from the values of its features'
// weights; a weights file of another number of features (files of another
// run, say) is refused with ErrWeights, naming the file, whether the
// shard's features come from memory or from their file.
func TestWeightsMustMatchShard(t *testing.T) {
	shard, work, st := oneShard(t)
	f := &trainFn{Workdir: work, Settings: st, Run: "weights-must-match", Dim: 30}
	state := &engine.Mix{Classes: []float64{-1, 1}, Dim: 30, Features: []int32{}, Sparse: true, W: []float32{}, B: []float32{0}}
	d, _, err := trainShard(context.Background(), f, state, task{Epoch: 0, Index: 0, Shard: shard})
	if err != nil {
		t.Fatal(err)
	}
	all, _, err := shardFeaturesOf(context.Background(), f.Run, work, 0, 30)
	if err != nil || len(all) != 30 || d.Seen != nil || len(d.Features) == 0 {
		t.Fatalf("the shard has %d features (%v), the delta lists %d changed and %d seen; want 30, and none seen (the mixing step has them)", len(all), err, len(d.Features), len(d.Seen))
	}
	valuesAt := func(feat []int32) *engine.Mix {
		w, err := state.WeightsAt(feat)
		if err != nil {
			t.Fatal(err)
		}
		w.Dim, w.Features, w.Sparse = len(w.Features), nil, false
		return w
	}
	for _, run := range []string{f.Run, "another process"} {
		f.Run = run // another run's features are read from the file
		_, read, err := trainShard(context.Background(), f, valuesAt([]int32{0, 1}), task{Epoch: 1, Index: 0, Shard: shard})
		if !errors.Is(err, ErrWeights) || !strings.Contains(err.Error(), renumberedPath(work, 0)) {
			t.Fatalf("run %q: weights of 2 of the shard's 30 features: %v", run, err)
		}
		if (read > 0) != (run != "weights-must-match") {
			t.Errorf("run %q: %d bytes of features read", run, read)
		}
		if _, _, err := trainShard(context.Background(), f, valuesAt(all), task{Epoch: 1, Index: 0, Shard: shard}); err != nil {
			t.Fatal(err)
		}
	}
}

// The mixing step writes each shard the weights of all its features, from
// the list the shard's first epoch wrote (the delta lists only those it
// changed): taken from memory in the process that holds it, else read
// from its file and counted; the same weights either way.
func TestMixWritesShardFeatures(t *testing.T) {
	shard, work, st := oneShard(t)
	ctx := context.Background()
	tf := &trainFn{Workdir: work, Settings: st, Run: "mix-features", Dim: 30}
	zero := &engine.Mix{Classes: []float64{-1, 1}, Dim: 30, Features: []int32{}, Sparse: true, W: []float32{}, B: []float32{0}}
	d, _, err := trainShard(ctx, tf, zero, task{Epoch: 0, Index: 0, Shard: shard})
	if err != nil {
		t.Fatal(err)
	}
	var written [][]byte
	for _, run := range []string{tf.Run, "another process"} {
		state := &engine.Mix{Classes: zero.Classes, Dim: 30, Features: []int32{}, Sparse: true, W: []float32{}, B: []float32{0}}
		if err := state.Merge([]*engine.Mix{d}); err != nil {
			t.Fatal(err)
		}
		f := &advanceFn{Epoch: 0, Workdir: work, Run: run, Shards: 1, Settings: st, Every: 100, Last: 100}
		var fig Epoch
		if err := f.write(ctx, 1, state, []*engine.Mix{d}, &fig, time.Time{}); err != nil {
			t.Fatal(err)
		}
		if (fig.FeaturesBytes > 0) != (run != tf.Run) {
			t.Errorf("run %q: %d bytes of features read", run, fig.FeaturesBytes)
		}
		w, _, err := readMix(ctx, shardWeightsPath(work, 1, 0))
		if err != nil {
			t.Fatal(err)
		}
		if w.Dim != 30 || len(w.W) != 30 {
			t.Fatalf("run %q: the weights of %d features (%d values), want all 30", run, w.Dim, len(w.W))
		}
		b, err := os.ReadFile(shardWeightsPath(work, 1, 0))
		if err != nil {
			t.Fatal(err)
		}
		written = append(written, b)
	}
	if !bytes.Equal(written[0], written[1]) {
		t.Fatal("the weights written differ with the features from memory and from their file")
	}
}
