package beam

import (
	"context"
	"fmt"
	"sync"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/hpc"
)

// defaultKeepBytes is Options.KeepBytes's default: the bytes of shards,
// with their learners, that a worker process keeps from one epoch to the
// next.
const defaultKeepBytes = 1 << 30

// shardWorker is what a worker holds of a shard between epochs: its
// renumbered copy, open, the list of its features, and the learner of
// its last epoch, which holds the copy's rows (engine.Learner.Restart).
type shardWorker struct {
	c       *hpc.File
	feat    []int32
	l       *engine.Learner
	cleanup func() // removes a local copy of a remote file
	// resident: the learner keeps the copy's rows in memory, bytes of
	// them and of its weights, about.
	resident bool
	bytes    int64
}

// learnerBytes is about the memory of a learner of the shard's rows
// (held resident) and of weights of k rows for its features.
func (w *shardWorker) learnerBytes(k int) int64 {
	return w.c.NNZ()*8 + w.c.Rows()*24 + int64(len(w.feat))*int64(k)*16
}

// close closes the copy and removes it where it is a local copy.
func (w *shardWorker) close() {
	w.c.Close()
	w.cleanup()
}

// workerCache holds the shard workers of the job's run that this process
// learned last, within Options.KeepBytes: Prism gives every epoch's tasks
// to the one process, and another runner that gives a worker the same
// shard again finds it here. A task takes its shard's worker out while
// it learns, so a retry of the task running at the same time opens the
// shard afresh.
var workerCache struct {
	sync.Mutex
	run   string
	bytes int64
	w     map[int]*shardWorker
}

// takeWorker takes the worker of shard index of the job's run out of
// workerCache, or returns nil.
func takeWorker(run string, index int) *shardWorker {
	workerCache.Lock()
	defer workerCache.Unlock()
	if run == "" || workerCache.run != run {
		return nil
	}
	w := workerCache.w[index]
	if w != nil {
		delete(workerCache.w, index)
		workerCache.bytes -= w.bytes
	}
	return w
}

// keepWorker puts w, the worker of shard index of the job's run, in
// workerCache if it fits within keep bytes, and closes it otherwise. The
// workers of another run are closed first: a process learns one run at a
// time.
func keepWorker(run string, index int, w *shardWorker, keep int64) {
	workerCache.Lock()
	defer workerCache.Unlock()
	if workerCache.run != run {
		closeWorkers()
		workerCache.run = run
	}
	if run == "" || w.l == nil || !w.resident || workerCache.w[index] != nil || workerCache.bytes+w.bytes > keep {
		w.close()
		return
	}
	if workerCache.w == nil {
		workerCache.w = map[int]*shardWorker{}
	}
	workerCache.w[index] = w
	workerCache.bytes += w.bytes
}

// dropWorkers closes the workers of the job's run that this process keeps.
func dropWorkers(run string) {
	workerCache.Lock()
	defer workerCache.Unlock()
	if workerCache.run == run {
		closeWorkers()
	}
}

// closeWorkers closes every worker of workerCache, whose lock the caller
// holds.
func closeWorkers() {
	for _, w := range workerCache.w {
		w.close()
	}
	workerCache.w, workerCache.bytes, workerCache.run = nil, 0, ""
}

// openShard returns the worker of shard t for an epoch after the first:
// its renumbered copy from the work directory, open, and the list of its
// features, with the bytes read of the list; its learner is nil.
// (A variable so that tests can count the opens.)
var openShard = func(ctx context.Context, f *trainFn, t task) (*shardWorker, int64, error) {
	name := renumberedPath(f.Workdir, t.Index)
	local, cleanup, err := localCopy(ctx, name)
	if err != nil {
		return nil, 0, err
	}
	c, err := hpc.Open(local, hpc.Options{ReadOptions: sparse.ReadOptions{Name: name}, Map: true})
	if err != nil {
		cleanup()
		return nil, 0, err
	}
	w := &shardWorker{c: c, cleanup: cleanup}
	var read int64
	if w.feat, read, err = shardFeaturesOf(ctx, f.Run, f.Workdir, t.Index, f.Dim); err != nil {
		w.close()
		return nil, read, err
	}
	if c.Cols() != len(w.feat) {
		w.close()
		return nil, read, fmt.Errorf("%w: %s holds %d features, %s %d (files of another run?)", ErrWeights, name, c.Cols(), featuresPath(f.Workdir, t.Index), len(w.feat))
	}
	// A file of one window or less is what the learner keeps resident;
	// a larger one streams every epoch, and keeping it would only hold
	// the learner's buffers.
	w.resident = c.NumBlocks() <= engine.CacheWindow
	return w, read, nil
}
