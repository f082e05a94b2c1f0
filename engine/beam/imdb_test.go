package beam

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/engine/metrics"
	"github.com/hyperplane-ml/hyperplane/sparse"
	_ "github.com/hyperplane-ml/hyperplane/sparse/libsvm"
)

// sharedData is the project's shared real data: ../shared/data beside the
// repository, or $HYPERPLANE_DATA.
func sharedData(t *testing.T, sub string) string {
	t.Helper()
	dir := os.Getenv("HYPERPLANE_DATA")
	if dir == "" {
		dir = "../../../shared/data"
	}
	dir = filepath.Join(dir, sub)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("the shared data %s is not here (%v); CI has it", dir, err)
	}
	return dir
}

// writeShuffledShards deals d's rows, shuffled with seed, into n shards
// of contiguous runs of the shuffled order, and returns their glob.
func writeShuffledShards(t *testing.T, d *sparse.Dataset, n int, seed uint64) string {
	t.Helper()
	order := rand.New(rand.NewPCG(seed, 2)).Perm(d.Len())
	dir := t.TempDir()
	for s := range n {
		rows := order[s*len(order)/n : (s+1)*len(order)/n]
		b := sparse.NewBuilder(d.X.Cols)
		y := make([]float64, len(rows))
		for p, i := range rows {
			x := d.X.Row(i)
			if err := b.Add(x.Ind, x.Val); err != nil {
				t.Fatal(err)
			}
			y[p] = d.Y[i]
		}
		name := filepath.Join(dir, fmt.Sprintf("shard-%03d.hpc", s))
		if err := sparse.WriteFile(name, &sparse.Dataset{X: b.Build(), Y: y}); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "shard-*.hpc")
}

func accuracy(t *testing.T, m *engine.Model, d *sparse.Dataset) float64 {
	t.Helper()
	a, err := metrics.Accuracy(d.Y, m.PredictBatch(d.X, nil))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestIMDBShards trains on 4 shuffled shards of the real imdb training set
// on Prism, with the command line's default learner (averaged PA-II on
// normalized rows), and checks test accuracy against Fit with 4 workers.
func TestIMDBShards(t *testing.T) {
	dir := sharedData(t, "text/imdb")
	train, err := sparse.ReadFile(filepath.Join(dir, "imdb.train.svm.gz"), sparse.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	test, err := sparse.ReadFile(filepath.Join(dir, "imdb.test.svm.gz"), sparse.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := engine.Config{Algorithm: engine.Averaged, Rule: engine.PA2, Normalize: true, Epochs: 10}
	glob := writeShuffledShards(t, train, 4, 1)
	m, figs, err := Train(context.Background(), Options{Shards: []string{glob}, Workdir: t.TempDir(), Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	if err := SaveModel(context.Background(), m, filepath.Join(t.TempDir(), "m.hpm")); err != nil {
		t.Fatal(err)
	}
	got := accuracy(t, m, test)
	cfg.Workers = 4
	fit, _, err := engine.Fit(context.Background(), train.X, train.Y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := accuracy(t, fit, test)
	t.Logf("imdb, 4 shards, %d epochs: Prism %.4f, Fit with 4 workers %.4f; epoch 1 moved %d bytes of deltas", len(figs), got, want, figs[0].DeltaBytes)
	if got < 0.87 || math.Abs(got-want) > 0.002 {
		t.Fatalf("imdb test accuracy %.4f on Prism, %.4f with Fit's 4 workers: want at least 0.87 and within 0.2 points", got, want)
	}
}
