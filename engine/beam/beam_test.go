package beam

import (
	"context"
	"fmt"
	"testing"

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
				sameWeights(t, "Prism against in-process mixing", got, mixInProcess(t, glob, opt), 1e-5)
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
				sameWeights(t, "Prism against Fit with Workers", got, want, 1e-5)
			})
		}
	}
}
