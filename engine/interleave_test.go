package engine

import (
	"context"
	"fmt"
	"testing"
)

// TestInterleavedSameModel: the interleaved layout (forced on small data by
// lowering interleaveBytes) trains the same model bit for bit as the
// separate arrays, with every option a binary averaged learner takes, and
// leaves the other learners alone.
func TestInterleavedSameModel(t *testing.T) {
	X, y := fxIntBinary(31, 600, 900, 25, 0.1)
	sw := make([]float64, X.Rows)
	for i := range sw {
		sw[i] = float64(i%4) / 2
	}
	cfgs := map[string]Config{
		"default":        {},
		"seeded":         {Seed: 7, Epochs: 7},
		"margin, lr":     {Margin: 0.5, LearningRate: 0.3},
		"init":           {InitScale: 0.1, Seed: 3},
		"augmented":      {Bias: BiasAugmented, BiasScale: 2},
		"no bias":        {Bias: NoBias},
		"class weights":  {ClassWeight: map[float64]float64{1: 3}},
		"balanced":       {Balanced: true},
		"sample weights": {SampleWeight: sw},
		"validation":     {Validation: 0.2, Patience: 2, Epochs: 12},
		"no shuffle":     {NoShuffle: true},
		"train loss":     {TrainLoss: true},
		"2 workers":      {Workers: 2},
		"3 workers":      {Workers: 3, Seed: 5},
		"plain":          {Algorithm: Plain},
		"voted":          {Algorithm: Voted, Epochs: 3},
	}
	old := interleaveBytes
	defer func() { interleaveBytes = old }()
	for name, cfg := range cfgs {
		t.Run(name, func(t *testing.T) {
			interleaveBytes = 1 << 62
			sep, sepStats := fxFit(t, X, y, cfg)
			interleaveBytes = 0
			ilv, ilvStats := fxFit(t, X, y, cfg)
			fxSameModel(t, name, sep, ilv)
			if len(sepStats) != len(ilvStats) {
				t.Fatalf("%s: %d epochs vs %d", name, len(sepStats), len(ilvStats))
			}
			for e := range sepStats {
				if a, b := sepStats[e], ilvStats[e]; a.Mistakes != b.Mistakes || a.Updates != b.Updates {
					t.Fatalf("%s epoch %d: %+v vs %+v", name, e+1, a, b)
				}
			}
		})
	}
}

// TestInterleavedUsed: with the threshold lowered, the binary averaged
// learner takes the interleaved layout and the plain one does not.
func TestInterleavedUsed(t *testing.T) {
	old := interleaveBytes
	defer func() { interleaveBytes = old }()
	interleaveBytes = 0
	X, _ := fxIntBinary(32, 50, 40, 5, 0)
	for _, a := range []Algorithm{Averaged, Plain} {
		t.Run(a.String(), func(t *testing.T) {
			st := newState(settings{Config: Config{Algorithm: a}}, []float64{-1, 1}, X.Cols, fxRNG(1))
			if got, want := st.interleaved(), a == Averaged; got != want {
				t.Fatalf("%v: interleaved %v, want %v", a, got, want)
			}
		})
	}
}

// TestInterleavedFitCache: out of core, both layouts train the same model,
// in file order and shuffled, from a streamed file and a resident one.
func TestInterleavedFitCache(t *testing.T) {
	X, y := fxIntBinary(33, 700, 60, 7, 0.1)
	old := interleaveBytes
	defer func() { interleaveBytes = old }()
	for _, blockBytes := range []int{1000, 1 << 20} {
		t.Run(fmt.Sprintf("block=%d", blockBytes), func(t *testing.T) {
			c, _ := fxCache(t, X, y, blockBytes)
			for _, cfg := range []Config{{NoShuffle: true, Epochs: 4}, {Seed: 9, Epochs: 4, Margin: 0.25}} {
				interleaveBytes = 1 << 62
				sep, _, err := FitCache(context.Background(), c, cfg)
				if err != nil {
					t.Fatal(err)
				}
				interleaveBytes = 0
				ilv, _, err := FitCache(context.Background(), c, cfg)
				if err != nil {
					t.Fatal(err)
				}
				fxSameModel(t, fmt.Sprintf("%d blocks, %+v", c.NumBlocks(), cfg), sep, ilv)
			}
		})
	}
}
