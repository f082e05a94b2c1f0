package beam

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/hyperplane-ml/hyperplane/engine"
)

// TestWorkersKept checks that a worker keeps its shards from epoch to
// epoch within Options.KeepBytes, reading each once after the first
// epoch, that keeping none reads them every epoch, that the model does
// not change, and that nothing stays open after Train.
func TestWorkersKept(t *testing.T) {
	defer func(f func(context.Context, *trainFn, task) (*shardWorker, int64, error)) { openShard = f }(openShard)
	var opens atomic.Int64
	open := openShard
	openShard = func(ctx context.Context, f *trainFn, t task) (*shardWorker, int64, error) {
		opens.Add(1)
		return open(ctx, f, t)
	}
	glob, _, _ := writeShards(t, t.TempDir(), 3, 80, 200, 3, 5)
	const epochs = 5
	var models []*engine.Model
	for _, tc := range []struct {
		keep  int64
		opens int64
	}{
		{0, 3},                 // the default: opened once, for the second epoch
		{-1, 3 * (epochs - 1)}, // none kept
		{1, 3 * (epochs - 1)},  // none fits
	} {
		opens.Store(0)
		opt := Options{Shards: []string{glob}, Workdir: t.TempDir(), KeepBytes: tc.keep,
			Config: engine.Config{Epochs: epochs, Seed: 2}}
		m, _, err := Train(context.Background(), opt)
		if err != nil {
			t.Fatal(err)
		}
		if got := opens.Load(); got != tc.opens {
			t.Errorf("KeepBytes %d: the shards were opened %d times after the first epoch, want %d", tc.keep, got, tc.opens)
		}
		workerCache.Lock()
		left := len(workerCache.w)
		workerCache.Unlock()
		if left != 0 {
			t.Errorf("KeepBytes %d: %d shards still kept after Train", tc.keep, left)
		}
		models = append(models, m)
	}
	for _, m := range models[1:] {
		sameWeights(t, "kept against read every epoch", m, models[0], 0)
	}
}
