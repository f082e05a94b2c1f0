package beam

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hyperplane-ml/hyperplane/engine"
)

// runBundle passes tasks through one bundle of a trainFn whose tasks
// learn with learn, and returns the parts emitted and FinishBundle's
// error.
func runBundle(t *testing.T, tasks []task, learn func(*trainFn, context.Context, task) (part, error)) ([]part, error) {
	t.Helper()
	defer func(f func(*trainFn, context.Context, task) (part, error)) { learnTask = f }(learnTask)
	learnTask = learn
	f := &trainFn{}
	f.StartBundle(nil)
	for _, tk := range tasks {
		f.ProcessElement(context.Background(), tk, nil)
	}
	var got []part
	err := f.FinishBundle(func(p part) { got = append(got, p) })
	return got, err
}

// TestBundleLearnsShardsTogether checks that the shards of a bundle are
// learned at the same time, GOMAXPROCS of them at most, and that every
// shard's part is emitted once.
func TestBundleLearnsShardsTogether(t *testing.T) {
	const limit = 3
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(limit))
	var mu sync.Mutex
	running, most := 0, 0
	// Each of the first tasks waits for the others to start: learned
	// one after the other, the first would wait in vain.
	all := make(chan struct{})
	var once sync.Once
	learn := func(_ *trainFn, _ context.Context, tk task) (part, error) {
		mu.Lock()
		running++
		most = max(most, running)
		if running == limit {
			once.Do(func() { close(all) })
		}
		mu.Unlock()
		defer func() { mu.Lock(); running--; mu.Unlock() }()
		select {
		case <-all:
		case <-time.After(20 * time.Second):
			return part{}, errors.New("the bundle's shards were not learned together")
		}
		return part{Index: tk.Index}, nil
	}
	tasks := make([]task, 2*limit)
	for i := range tasks {
		tasks[i] = task{Index: i}
	}
	got, err := runBundle(t, tasks, learn)
	if err != nil {
		t.Fatal(err)
	}
	if most != limit {
		t.Errorf("%d shards learned at once, want %d", most, limit)
	}
	var idx []int
	for _, p := range got {
		idx = append(idx, p.Index)
	}
	slices.Sort(idx)
	if want := []int{0, 1, 2, 3, 4, 5}; !slices.Equal(idx, want) {
		t.Errorf("parts of shards %v, want %v", idx, want)
	}
}

// TestBundleFails checks that a shard's error or panic fails the bundle,
// which then emits nothing.
func TestBundleFails(t *testing.T) {
	learn := func(_ *trainFn, _ context.Context, tk task) (part, error) {
		switch tk.Index {
		case 1:
			return part{}, errors.New("shard 1 failed")
		case 2:
			panic("shard 2 panicked")
		}
		return part{Index: tk.Index}, nil
	}
	// The panic is caught in trainTask, which the test's learn replaces:
	// wrap learn as trainTask wraps the real work.
	got, err := runBundle(t, []task{{Index: 0}, {Index: 1}, {Index: 2}}, func(f *trainFn, ctx context.Context, tk task) (p part, err error) {
		defer recoverTask(tk, &err)
		return learn(f, ctx, tk)
	})
	if err == nil || !strings.Contains(err.Error(), "shard 1 failed") || !strings.Contains(err.Error(), "shard 2 panicked") {
		t.Fatalf("error %v, want both shards' failures", err)
	}
	if len(got) != 0 {
		t.Errorf("a failed bundle emitted %d parts", len(got))
	}
}

// TestInitStateSparse checks that the starting state, taken from a
// learner of no feature, is the one the learner of the whole width gives,
// byte for byte, for both algorithms, binary and multiclass.
func TestInitStateSparse(t *testing.T) {
	for _, alg := range []engine.Algorithm{engine.Averaged, engine.Plain} {
		for _, labels := range [][]float64{{-1, 1}, {0, 1, 2}} {
			st, err := settle(Options{Workdir: "w", Config: engine.Config{Algorithm: alg, Bias: engine.BiasAugmented}})
			if err != nil {
				t.Fatal(err)
			}
			h := header{Labels: labels, Cols: 1000}
			got, err := initState(st, h)
			if err != nil {
				t.Fatal(err)
			}
			l, err := engine.NewLearner(labels, h.Cols, st.config())
			if err != nil {
				t.Fatal(err)
			}
			dense, err := l.Mix()
			if err != nil {
				t.Fatal(err)
			}
			want, err := dense.Compact()
			if err != nil {
				t.Fatal(err)
			}
			a, err := got.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			b, err := want.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a, b) {
				t.Errorf("%v, %d classes: the starting state differs from the whole learner's", alg, len(labels))
			}
		}
	}
}

// TestStateCache checks that the mixing step takes from memory only the
// state its own run wrote to the same file, once, and reads the file
// otherwise.
func TestStateCache(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := settle(Options{Workdir: dir, Config: engine.Config{Algorithm: engine.Averaged}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := initState(st, header{Labels: []float64{-1, 1}, Cols: 10})
	if err != nil {
		t.Fatal(err)
	}
	if err := writeState(ctx, dir, "run-a", 0, m); err != nil {
		t.Fatal(err)
	}
	name := statePath(dir, 0)
	got, n, err := readState(ctx, "run-b", name)
	if err != nil || got == m || n == 0 {
		t.Fatalf("another run's read: %p (kept %p), %d bytes, %v; want the file", got, m, n, err)
	}
	if got, n, err = readState(ctx, "run-a", statePath(dir, 1)); err == nil {
		t.Fatalf("another file's read: %p, %d bytes, no error; want the missing file's error", got, n)
	}
	if got, n, err = readState(ctx, "run-a", name); err != nil || got != m || n != 0 {
		t.Fatalf("the run's read: %p (kept %p), %d bytes, %v; want the kept state", got, m, n, err)
	}
	if got, n, err = readState(ctx, "run-a", name); err != nil || got == m || n == 0 {
		t.Fatalf("a second read: %p (kept %p), %d bytes, %v; want the file", got, m, n, err)
	}
}
