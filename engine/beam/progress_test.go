package beam

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/hyperplane-ml/hyperplane/engine"
)

// TestProgressReportsEveryEpoch checks that Options.Progress sees every
// epoch's figures once, in order, as Train returns them, with one job for
// all epochs and with a job per epoch, in a work directory that an
// earlier job left its figures in.
func TestProgressReportsEveryEpoch(t *testing.T) {
	glob, _, _ := writeShards(t, t.TempDir(), 3, 80, 100, 3, 21)
	ctx := context.Background()
	workdir := t.TempDir()
	if _, _, err := Train(ctx, Options{Shards: []string{glob}, Workdir: workdir, Config: engine.Config{Epochs: 2, Seed: 9}}); err != nil {
		t.Fatal(err)
	}
	for _, perEpoch := range []bool{false, true} {
		var seen []Epoch
		_, figs, err := Train(ctx, Options{Shards: []string{glob}, Workdir: workdir, Config: engine.Config{Epochs: 4, Seed: 3},
			PerEpochJobs: perEpoch, ProgressPoll: time.Millisecond, Progress: func(f Epoch) { seen = append(seen, f) }})
		if err != nil {
			t.Fatal(err)
		}
		if len(figs) != 4 || !reflect.DeepEqual(seen, figs) {
			t.Errorf("per-epoch jobs %v: Progress saw %+v, Train returned %+v", perEpoch, seen, figs)
		}
	}
}

// TestWatchSkipsOtherRuns checks that the watch of a running job reports
// an epoch only from the figures its own run recorded, not from a file of
// the same name that another job left, and then goes on from there.
func TestWatchSkipsOtherRuns(t *testing.T) {
	dir := t.TempDir()
	var seen []int
	j := &trainJob{ctx: context.Background(), st: settings{Epochs: 2}, runID: "mine",
		opt: Options{Workdir: dir, Progress: func(f Epoch) { seen = append(seen, f.Epoch) }}}
	record := func(e int, run string) {
		b, err := json.Marshal(figures{Epoch: Epoch{Epoch: e, Updates: 7}, Run: run})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(statsPath(dir, e), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	record(1, "another")
	record(2, "mine")
	if last := j.reportFrom(0); last != 0 || len(seen) != 0 {
		t.Fatalf("reported epochs %v (up to %d) from another run's figures", seen, last)
	}
	record(1, "mine")
	if last := j.reportFrom(0); last != 2 || !slices.Equal(seen, []int{1, 2}) {
		t.Fatalf("reported %v up to epoch %d, want [1 2] up to 2", seen, last)
	}
	if last := j.reportFrom(2); last != 2 || len(seen) != 2 {
		t.Fatalf("reported %v up to epoch %d after the last epoch", seen, last)
	}
}
