package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hyperplane-ml/hyperplane/engine/metrics"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// mlToy returns rows whose label set is a random subset of K classes
// (often empty): feature c is 1 when class c is relevant, and a few noise
// features in [K, K+noise) are set too, so that every class is separable
// from the rest.
func mlToy(seed uint64, rows, K, noise int) (*sparse.CSR, [][]int) {
	r := rand.New(rand.NewPCG(seed, 7))
	X := &sparse.CSR{Rows: rows, Cols: K + noise, Indptr: []int64{0}}
	Y := make([][]int, rows)
	for i := range rows {
		Y[i] = []int{}
		for c := range K {
			if r.IntN(3) == 0 {
				Y[i] = append(Y[i], c)
				X.Ind = append(X.Ind, int32(c))
				X.Val = append(X.Val, 1)
			}
		}
		for j := K; j < K+noise; j++ {
			if r.IntN(4) == 0 {
				X.Ind = append(X.Ind, int32(j))
				X.Val = append(X.Val, 0.5)
			}
		}
		X.Indptr = append(X.Indptr, int64(len(X.Ind)))
	}
	return X, Y
}

func mlPredictAll(m *MultiLabelModel, X *sparse.CSR) [][]int {
	out := make([][]int, X.Rows)
	for i := range out {
		out[i] = m.Predict(X.Row(i), []int{})
	}
	return out
}

func TestFitMultiLabelSeparable(t *testing.T) {
	X, Y := mlToy(1, 400, 5, 10)
	for _, cfg := range []MultiLabelConfig{
		{}, {Rule: PA}, {Rule: PA1}, {Rule: PA2}, {Rule: PA1, Holdout: -1},
	} {
		m, err := FitMultiLabel(context.Background(), X, Y, 5, cfg)
		if err != nil {
			t.Fatalf("%+v: %v", cfg, err)
		}
		r, err := metrics.NewMultiLabel(Y, mlPredictAll(m, X), 5)
		if err != nil {
			t.Fatal(err)
		}
		if r.Subset != 1 {
			t.Errorf("%+v: subset accuracy %v on separable rows, want 1", cfg, r.Subset)
		}
	}
}

func TestFitMultiLabelRanking(t *testing.T) {
	// The ranking perceptron orders the classes of each row: every
	// relevant class above every irrelevant one, on separable rows.
	X, Y := mlToy(1, 400, 5, 10)
	m, err := FitMultiLabel(context.Background(), X, Y, 5, MultiLabelConfig{Ranking: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range X.Rows {
		s := m.Scores(X.Row(i), nil)
		for _, r := range Y[i] {
			for c := range 5 {
				if !slices.Contains(Y[i], c) && s[c] >= s[r] {
					t.Fatalf("row %d: irrelevant class %d scores %v, relevant %d %v", i, c, s[c], r, s[r])
				}
			}
		}
	}
}

func TestFitMultiLabelErrors(t *testing.T) {
	X, Y := mlToy(1, 50, 3, 4)
	ctx := context.Background()
	if _, err := FitMultiLabel(ctx, X, Y[:10], 3, MultiLabelConfig{}); !errors.Is(err, ErrLabels) {
		t.Errorf("short Y: %v", err)
	}
	bad := slices.Clone(Y)
	bad[3] = []int{3}
	if _, err := FitMultiLabel(ctx, X, bad, 3, MultiLabelConfig{}); !errors.Is(err, ErrLabels) {
		t.Errorf("class out of range: %v", err)
	}
	if _, err := FitMultiLabel(ctx, X, Y, 3, MultiLabelConfig{Rule: Pegasos}); !errors.Is(err, ErrConfig) {
		t.Errorf("Pegasos: %v", err)
	}
	if _, err := FitMultiLabel(ctx, X, Y, 3, MultiLabelConfig{Holdout: 0.5}); !errors.Is(err, ErrConfig) {
		t.Errorf("Holdout 0.5: %v", err)
	}
	if _, err := FitMultiLabel(ctx, &sparse.CSR{}, nil, 3, MultiLabelConfig{}); !errors.Is(err, ErrNoData) {
		t.Errorf("no rows: %v", err)
	}
	c, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := FitMultiLabel(c, X, Y, 3, MultiLabelConfig{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestBestF1Threshold(t *testing.T) {
	s := []float32{3, 2, 1, 0, -1}
	pos := []bool{true, false, true, false, false}
	// Cuts: top 1: F1 2/3; top 3: 2·2/(3+2) = 4/5, the best; so between
	// 1 and 0.
	if got := bestF1Threshold(s, pos); got != 0.5 {
		t.Errorf("threshold %v, want 0.5", got)
	}
	if got := bestF1Threshold(s, make([]bool, 5)); got != 0 {
		t.Errorf("no positive: threshold %v, want 0", got)
	}
	// Ties are not split.
	if got := bestF1Threshold([]float32{1, 1, 0}, []bool{true, false, false}); got != 0.5 {
		t.Errorf("tied: threshold %v, want 0.5", got)
	}
}

func TestRankingSteps(t *testing.T) {
	tau := make([]float64, 4)
	// Relevant 0 and 1; 1 scores below irrelevant 2: 1 up by 1, 2 down
	// by 1 (3 is below every relevant class).
	if !rankingSteps([]float32{2, 0, 1, -1}, []bool{true, true, false, false}, tau) {
		t.Fatal("no step on a mis-ranked row")
	}
	if want := []float64{0, 1, -1, 0}; !slices.Equal(tau, want) {
		t.Errorf("steps %v, want %v", tau, want)
	}
	if rankingSteps([]float32{2, 1, 0, -1}, []bool{true, true, false, false}, tau) {
		t.Errorf("a step on a well-ranked row: %v", tau)
	}
	// No relevant class: those at or above 0 go down.
	rankingSteps([]float32{1, -1, 0, -2}, []bool{false, false, false, false}, tau)
	if want := []float64{-0.5, 0, -0.5, 0}; !slices.Equal(tau, want) {
		t.Errorf("steps %v, want %v", tau, want)
	}
}

func TestMultiLabelModelRoundTrip(t *testing.T) {
	X, Y := mlToy(2, 200, 4, 6)
	m, err := FitMultiLabel(context.Background(), X, Y, 4, MultiLabelConfig{Rule: PA1})
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	m2, err := UnmarshalMultiLabel(b)
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := m2.MarshalBinary()
	if !bytes.Equal(b, b2) {
		t.Error("a model read back encodes differently")
	}
	for i := range X.Rows {
		if !slices.Equal(m.Scores(X.Row(i), nil), m2.Scores(X.Row(i), nil)) ||
			!slices.Equal(m.Proba(X.Row(i), nil), m2.Proba(X.Row(i), nil)) {
			t.Fatalf("row %d: scores or probabilities differ after a round trip", i)
		}
	}
	path := t.TempDir() + "/m.hpml"
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	if m3, err := LoadMultiLabel(path); err != nil || !slices.Equal(m3.Thresholds(), m.Thresholds()) {
		t.Fatalf("Load: %v", err)
	}
	// Every cut and every flipped byte is refused, never a panic.
	for n := range len(b) {
		if _, err := UnmarshalMultiLabel(b[:n]); !errors.Is(err, ErrFormat) {
			t.Fatalf("cut at %d: %v", n, err)
		}
	}
	for i := range len(b) {
		c := slices.Clone(b)
		c[i] ^= 0x40
		if _, err := UnmarshalMultiLabel(c); !errors.Is(err, ErrFormat) {
			t.Fatalf("byte %d flipped: %v", i, err)
		}
	}
}

func TestMultiLabelHugeClaimRefused(t *testing.T) {
	// A header claiming 2^31 classes of 2^31 features over a few bytes
	// is refused before anything is sized by it.
	X, Y := mlToy(3, 20, 2, 2)
	m, _ := FitMultiLabel(context.Background(), X, Y, 2, MultiLabelConfig{Holdout: -1})
	b, _ := m.MarshalBinary()
	for _, off := range []int{8, 16} {
		c := slices.Clone(b)
		c[off+3] = 0x80
		if _, err := UnmarshalMultiLabel(c); !errors.Is(err, ErrFormat) {
			t.Errorf("huge count at %d: %v", off, err)
		}
	}
}

func TestMultiLabelProbaOrder(t *testing.T) {
	X, Y := mlToy(4, 300, 3, 5)
	m, _ := FitMultiLabel(context.Background(), X, Y, 3, MultiLabelConfig{Rule: PA1})
	// A relevant class's probability is above an irrelevant one's on
	// separable rows.
	for i := range 20 {
		p := m.Proba(X.Row(i), nil)
		for c := range 3 {
			if rel := slices.Contains(Y[i], c); rel != (p[c] > 0.5) {
				t.Errorf("row %d class %d: relevant %v, probability %v", i, c, rel, p[c])
			}
		}
	}
}

func ExampleFitMultiLabel() {
	// Four rows over three features; a row has any number of the two
	// classes, or none.
	X := &sparse.CSR{Rows: 4, Cols: 3,
		Indptr: []int64{0, 1, 2, 4, 5},
		Ind:    []int32{0, 1, 0, 1, 2},
		Val:    []float32{1, 1, 1, 1, 1}}
	Y := [][]int{{0}, {1}, {0, 1}, {}}
	m, err := FitMultiLabel(context.Background(), X, Y, 2, MultiLabelConfig{Rule: PA1, Holdout: -1})
	if err != nil {
		panic(err)
	}
	for i := range X.Rows {
		fmt.Println(m.Predict(X.Row(i), nil))
	}
	// Output:
	// [0]
	// [1]
	// [0 1]
	// []
}

func TestFitThresholdsBounds(t *testing.T) {
	// One feature, rows of values 2, 2, 1, 1, the first two positive
	// for classes 0 and 1. Class 0 (weight 1) scores them 2, 2, 1, 1:
	// its F1-best cut is 1.5, above 0, kept at 0. Class 1 (weight -1,
	// bias -2) scores them -4, -4, -3, -3: its best cut takes every
	// row, at -4, below the floor, raised to it. Class 2 has no
	// held-out positive: 0.
	m := &MultiLabelModel{classes: 3, dim: 1, w: []float32{1, -1, 1}, bias: []float32{0, -2, 0}, thresholds: make([]float32, 3)}
	vals := []float32{2, 2, 1, 1}
	X := &sparse.CSR{Rows: 4, Cols: 1, Indptr: []int64{0, 1, 2, 3, 4}, Ind: []int32{0, 0, 0, 0}, Val: vals}
	Y := [][]int{{0, 1}, {0, 1}, {}, {}}
	var scores []float32
	for i := range X.Rows {
		scores = append(scores, m.Scores(X.Row(i), nil)...)
	}
	thr, _, _ := fitThresholds(scores, []int{0, 1, 2, 3}, Y, 3)
	if want := []float32{0, ThresholdFloor, 0}; !slices.Equal(thr, want) {
		t.Errorf("thresholds %v, want %v", thr, want)
	}
}
