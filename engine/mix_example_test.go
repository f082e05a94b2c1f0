package engine_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// Iterative parameter mixing across processes, simulated in one: every
// epoch two workers start from the mixed weights, learn their shard, and
// send a sparse delta of their state as bytes; the driver merges the
// deltas in shard order. The result is Fit's with Workers: 2.
func ExampleMix_Merge() {
	// Label 1 where x0 > x1 (features 2 and 3 are noise).
	X := sparse.FromDense([][]float32{
		{2, 1, 0, 1}, {0, 1, 1, 0}, {3, 0, 0, 0}, {1, 2, 0, 1},
		{1, 0, 1, 1}, {0, 3, 0, 0}, {2, 0, 1, 0}, {1, 3, 1, 1},
	})
	y := []float64{1, 0, 1, 0, 1, 0, 1, 0}
	cfg := engine.Config{NoShuffle: true} // workers visit their rows in order

	// The driver's state: zero weights, one row of them for two classes.
	state := &engine.Mix{Classes: []float64{0, 1}, Dim: 4, W: make([]float32, 4), B: make([]float32, 1)}
	shards := [][2]int{{0, 4}, {4, 8}}
	for epoch := 1; epoch <= 2; epoch++ {
		// What a worker needs: the classes, width, weights and biases.
		start := &engine.Mix{Classes: state.Classes, Dim: state.Dim, W: state.W, B: state.B}
		var sent [][]byte
		for _, s := range shards {
			l, err := engine.NewLearnerFrom(start, cfg)
			if err != nil {
				fmt.Println(err)
				return
			}
			if _, err := l.PartialFit(context.Background(), X.Slice(s[0], s[1]), y[s[0]:s[1]]); err != nil {
				fmt.Println(err)
				return
			}
			m, _ := l.Mix()
			d, _ := m.Delta(start) // only the features this shard changed
			b, _ := d.MarshalBinary()
			sent = append(sent, b)
		}
		var got []*engine.Mix
		for _, b := range sent {
			var d engine.Mix
			if err := d.UnmarshalBinary(b); err != nil {
				fmt.Println(err)
				return
			}
			got = append(got, &d)
		}
		if err := state.Merge(got); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("epoch %d: %d updates\n", epoch, state.Updates)
	}
	m, err := state.Model(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg.Workers, cfg.Epochs = 2, 2
	want, _, _ := engine.Fit(context.Background(), X, y, cfg)
	fmt.Println("predictions:", m.PredictBatch(X, nil))
	fmt.Println("same weights as Fit with Workers 2:", slices.Equal(m.W, want.W) && slices.Equal(m.B, want.B))

	// The state is a file too: the driver can stop and resume.
	var file bytes.Buffer
	state.WriteTo(&file)
	back, _ := engine.ReadMix(&file, 0)
	fmt.Println("state read back:", back.SumN, "examples averaged")
	// Output:
	// epoch 1: 5 updates
	// epoch 2: 2 updates
	// predictions: [1 0 1 0 1 0 1 0]
	// same weights as Fit with Workers 2: true
	// state read back: 16 examples averaged
}
