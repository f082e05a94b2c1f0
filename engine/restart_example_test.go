package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/hpc"
)

// A worker of iterative parameter mixing that keeps its shard in memory:
// every epoch it restarts its learner from the mixed weights and learns
// the shard's cache file again, which the learner read once, on the
// first pass. Each delta is the one a new learner would return.
func ExampleLearner_Restart() {
	// The shard: label 1 where x0 > x1.
	X := sparse.FromDense([][]float32{
		{2, 1, 0}, {0, 1, 1}, {3, 0, 0}, {1, 2, 0}, {1, 0, 1}, {0, 3, 0},
	})
	y := []float64{1, 0, 1, 0, 1, 0}
	dir, err := os.MkdirTemp("", "restart")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "shard.hpc")
	f, err := os.Create(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	w := hpc.NewWriter(f, hpc.WriterOptions{Dim: X.Cols})
	for i := range X.Rows {
		r := X.Row(i)
		w.Add(y[i], r.Ind, r.Val)
	}
	if err := w.Close(); err != nil {
		fmt.Println(err)
		return
	}
	f.Close()
	c, err := hpc.Open(path, hpc.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()

	state := &engine.Mix{Classes: []float64{0, 1}, Dim: X.Cols, W: make([]float32, X.Cols), B: make([]float32, 1)}
	var l *engine.Learner
	for epoch := 1; epoch <= 3; epoch++ {
		start := &engine.Mix{Classes: state.Classes, Dim: state.Dim, W: state.W, B: state.B}
		cfg := engine.Config{Seed: uint64(epoch)}
		if l == nil {
			l, err = engine.NewLearnerFrom(start, cfg)
		} else {
			err = l.Restart(start, cfg)
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		es, err := l.PartialFitCache(context.Background(), c)
		if err != nil {
			fmt.Println(err)
			return
		}
		d, _ := l.Delta()
		if err := state.Merge([]*engine.Mix{d}); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("epoch %d: %d mistakes\n", epoch, es.Mistakes)
	}
	m, _ := state.Model(engine.Config{})
	fmt.Println("predictions:", m.PredictBatch(X, nil))
	// Output:
	// epoch 1: 4 mistakes
	// epoch 2: 0 mistakes
	// epoch 3: 0 mistakes
	// predictions: [1 0 1 0 1 0]
}
