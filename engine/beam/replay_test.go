package beam

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/hyperplane-ml/hyperplane/engine"
)

// TestStateReplayed checks that a job of several epochs writes the state
// as a file only every stateEvery epochs and after the last, and that a
// mixing step that does not hold the state in memory and finds no file
// of it makes it from the last file and the deltas since, bit for bit:
// after epochs that learned, and after convergence, where the averaged
// learner still counts the epochs without updates; in a work directory
// whose name reads as a glob.
func TestStateReplayed(t *testing.T) {
	defer func(n int) { stateEvery = n }(stateEvery)
	stateEvery = 3
	for _, tc := range []struct {
		name        string
		width       int
		epochs      int
		cfg         engine.Config
		wantCarried bool
	}{
		{"learning", 100, 7, engine.Config{Seed: 3}, false},
		// Separable by feature 0 with a wide margin: converged after an
		// epoch or two, and the later epochs carry the state over.
		{"converged", 1, 8, engine.Config{Algorithm: engine.Averaged, NoShuffle: true}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			glob, _, _ := writeShards(t, t.TempDir(), 3, 60, tc.width, 2, 5)
			// A work directory whose name reads as a glob: the files are
			// found by their names all the same.
			work := filepath.Join(t.TempDir(), "work[1]")
			if err := os.Mkdir(work, 0o755); err != nil {
				t.Fatal(err)
			}
			cfg := tc.cfg
			cfg.Epochs = tc.epochs
			j, err := newTrainJob(context.Background(), Options{Shards: []string{glob}, Workdir: work, Config: cfg}, false)
			if err != nil {
				t.Fatal(err)
			}
			if err := j.run(0, tc.epochs); err != nil {
				t.Fatal(err)
			}
			E := tc.epochs
			// Written after epochs 3, 6 and the last; the one after 3
			// removed once the one after 6 makes it of no use.
			for e := 0; e <= E; e++ {
				_, err := os.Stat(statePath(work, e))
				if want := e == E || e == (E-1)/stateEvery*stateEvery; (err == nil) != want {
					t.Errorf("state file after epoch %d: %v, want one: %v", e, err, want)
				}
			}
			fig, err := readFigures(context.Background(), work, E)
			if err != nil {
				t.Fatal(err)
			}
			if carried := fig.Shards == 0; carried != tc.wantCarried {
				t.Fatalf("last epoch carried over: %v, want %v", carried, tc.wantCarried)
			}
			want, err := os.ReadFile(statePath(work, E))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(statePath(work, E)); err != nil {
				t.Fatal(err)
			}
			f := &advanceFn{Epoch: E, Workdir: work, Run: "another process", Shards: len(j.shards), Rows: j.hd.ShardRows,
				Settings: j.st, Every: stateEvery, Last: E}
			st, read, err := f.loadState(context.Background(), E)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if _, err := st.WriteTo(&got); err != nil {
				t.Fatal(err)
			}
			if read == 0 || !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("the state after epoch %d made from an earlier file (%d bytes read) differs from the one written", E, read)
			}
		})
	}
}
