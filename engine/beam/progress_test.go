package beam

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"sync"
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
// the same name that another job left.
func TestWatchSkipsOtherRuns(t *testing.T) {
	dir := t.TempDir()
	var mu sync.Mutex
	var seen []int
	reported := func() []int {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(seen)
	}
	j := &trainJob{ctx: context.Background(), st: settings{Epochs: 2}, runID: "mine",
		opt: Options{Workdir: dir, ProgressPoll: time.Millisecond, Progress: func(f Epoch) {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, f.Epoch)
		}}}
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
	stop := j.watch()
	time.Sleep(50 * time.Millisecond)
	if r := reported(); len(r) != 0 {
		stop()
		t.Fatalf("reported epochs %v from another run's figures", r)
	}
	record(1, "mine")
	for deadline := time.Now().Add(10 * time.Second); len(reported()) < 2 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if last, r := stop(), reported(); last != 2 || !slices.Equal(r, []int{1, 2}) {
		t.Fatalf("reported %v up to epoch %d, want [1 2] up to 2", r, last)
	}
}
