package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

// separable returns n sparse rows in dim dimensions labelled by the sign of
// a hidden separator, keeping only points with margin at least gamma.
func separable(n, dim int, gamma float64, seed uint64) (*sparse.CSR, []float64, []float64) {
	r := rand.New(rand.NewPCG(seed, 1))
	u := make([]float64, dim)
	var norm float64
	for j := range u {
		u[j] = r.NormFloat64()
		norm += u[j] * u[j]
	}
	for j := range u {
		u[j] /= math.Sqrt(norm)
	}
	b := sparse.NewBuilder(dim)
	var y []float64
	for len(y) < n {
		var ind []int32
		var val []float32
		var s, sq float64
		for j := 0; j < dim; j++ {
			if r.IntN(3) == 0 {
				v := float32(r.NormFloat64())
				ind, val = append(ind, int32(j)), append(val, v)
				s += float64(v) * u[j]
				sq += float64(v) * float64(v)
			}
		}
		if sq == 0 || math.Abs(s)/math.Sqrt(sq) < gamma {
			continue
		}
		if err := b.Add(ind, val); err != nil {
			panic(err)
		}
		if s > 0 {
			y = append(y, 1)
		} else {
			y = append(y, 0)
		}
	}
	return b.Build(), y, u
}

func TestPlainPerceptronSeparatesSeparableData(t *testing.T) {
	X, y, _ := separable(400, 30, 0.1, 1)
	m, stats, err := Fit(context.Background(), X, y, Config{Plain: true, Epochs: 1000})
	if err != nil {
		t.Fatal(err)
	}
	// Novikoff: on separable data the perceptron stops making mistakes.
	if last := stats[len(stats)-1]; last.Mistakes != 0 {
		t.Fatalf("still %d mistakes after %d epochs on separable data", last.Mistakes, last.Epoch)
	}
	if acc := m.Accuracy(X, y); acc != 1 {
		t.Fatalf("training accuracy %v after a mistake-free epoch", acc)
	}
	if m.Pos != 1 || m.Neg != 0 {
		t.Fatalf("classes %v/%v, want 1/0", m.Pos, m.Neg)
	}
}

// TestAveragedMatchesExplicitAverage checks the lazy-averaging trick
// against averaging every intermediate weight vector explicitly.
func TestAveragedMatchesExplicitAverage(t *testing.T) {
	X, y, _ := separable(60, 12, 0, 2)
	cfg := Config{Epochs: 3, Seed: 7}
	m, _, err := Fit(context.Background(), X, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Replay the same visiting order with explicit sums.
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x9e3779b97f4a7c15))
	order := make([]int, X.Rows)
	for i := range order {
		order[i] = i
	}
	w := make([]float64, X.Cols)
	var b float64
	sum := make([]float64, X.Cols)
	var sumB float64
	steps := 0
	for e := 0; e < cfg.Epochs; e++ {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, i := range order {
			x := X.Row(i)
			s := b
			for k, j := range x.Ind {
				s += float64(x.Val[k]) * w[j]
			}
			sg := -1.0
			if y[i] == 1 {
				sg = 1
			}
			if sg*s <= 0 {
				for k, j := range x.Ind {
					w[j] += sg * float64(x.Val[k])
				}
				b += sg
			}
			for j := range w {
				sum[j] += w[j]
			}
			sumB += b
			steps++
		}
	}
	for j := range w {
		if want := sum[j] / float64(steps); math.Abs(float64(m.W[j])-want) > 1e-4*(1+math.Abs(want)) {
			t.Fatalf("w[%d] = %v, explicit average %v", j, m.W[j], want)
		}
	}
	if want := sumB / float64(steps); math.Abs(float64(m.B)-want) > 1e-4*(1+math.Abs(want)) {
		t.Fatalf("b = %v, explicit average %v", m.B, want)
	}
}

func TestFitIsDeterministic(t *testing.T) {
	X, y, _ := separable(200, 20, 0, 3)
	a, _, _ := Fit(context.Background(), X, y, Config{Seed: 11})
	b, _, _ := Fit(context.Background(), X, y, Config{Seed: 11})
	for j := range a.W {
		if math.Float32bits(a.W[j]) != math.Float32bits(b.W[j]) {
			t.Fatalf("same seed, different w[%d]: %v vs %v", j, a.W[j], b.W[j])
		}
	}
}

func TestFitErrors(t *testing.T) {
	X, y, _ := separable(10, 5, 0, 4)
	ctx := context.Background()
	if _, _, err := Fit(ctx, &sparse.CSR{}, nil, Config{}); !errors.Is(err, ErrNoData) {
		t.Fatalf("empty: %v", err)
	}
	if _, _, err := Fit(ctx, X, y[:3], Config{}); !errors.Is(err, ErrLabels) {
		t.Fatalf("short labels: %v", err)
	}
	three := append([]float64(nil), y...)
	three[0], three[1], three[2] = 0, 1, 2
	if _, _, err := Fit(ctx, X, three, Config{}); !errors.Is(err, ErrLabels) {
		t.Fatalf("three classes: %v", err)
	}
	one := make([]float64, len(y))
	if _, _, err := Fit(ctx, X, one, Config{}); !errors.Is(err, ErrLabels) {
		t.Fatalf("one class: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := Fit(cctx, X, y, Config{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}

func TestDecisionIgnoresUnseenFeatures(t *testing.T) {
	m := &Linear{W: []float32{1, 2}, B: 0.5, Pos: 1, Neg: -1}
	x := sparse.Vector{Dim: 10, Ind: []int32{1, 9}, Val: []float32{1, 100}}
	if got := m.Decision(x); got != 2.5 {
		t.Fatalf("Decision = %v, want 2.5", got)
	}
}

func ExampleFit() {
	data := "+1 1:1 2:1\n-1 3:1\n+1 1:1\n-1 2:1 3:1\n"
	d, err := sparse.ReadLIBSVM(strings.NewReader(data), sparse.ReadOptions{})
	if err != nil {
		panic(err)
	}
	m, _, err := Fit(context.Background(), d.X, d.Y, Config{})
	if err != nil {
		panic(err)
	}
	fmt.Println(m.Accuracy(d.X, d.Y))
	// Output: 1
}
