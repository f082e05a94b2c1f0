package beam_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/engine/beam"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// Two shards of a small data set, trained on Prism in this process for
// three epochs, then saved as an ordinary model file.
func ExampleTrain() {
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	for s := range 2 {
		b := sparse.NewBuilder(3)
		var y []float64
		for i := range 50 {
			sign := float32(1 - 2*((i+s)%2)) // +1, −1, ...
			b.Add([]int32{0, 1 + int32(i%2)}, []float32{sign * float32(1+i%3), 1})
			y = append(y, float64(sign))
		}
		name := filepath.Join(dir, fmt.Sprintf("shard-%d.hpc", s))
		if err := sparse.WriteFile(name, &sparse.Dataset{X: b.Build(), Y: y}); err != nil {
			log.Fatal(err)
		}
	}
	m, epochs, err := beam.Train(context.Background(), beam.Options{
		Shards:  []string{filepath.Join(dir, "shard-*.hpc")},
		Workdir: filepath.Join(dir, "work"),
		Config:  engine.Config{Epochs: 3},
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := beam.SaveModel(context.Background(), m, filepath.Join(dir, "m.hpm")); err != nil {
		log.Fatal(err)
	}
	fmt.Println("epochs:", len(epochs), "shards:", epochs[0].Shards)
	fmt.Println("feature 0 weighs more than 0:", m.Weight(0, 0) > 0)
	fmt.Println("predicts:", m.Predict(sparse.Vector{Dim: 3, Ind: []int32{0}, Val: []float32{2}}))
	// Output:
	// epochs: 3 shards: 2
	// feature 0 weighs more than 0: true
	// predicts: 1
}
