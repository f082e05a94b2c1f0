package engine

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/hyperplane-ml/hyperplane/engine/metrics"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/budget/budgettest"
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
	if _, err := FitMultiLabel(ctx, X, Y, 3, MultiLabelConfig{Threads: -1}); !errors.Is(err, ErrConfig) {
		t.Errorf("Threads -1: %v", err)
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
	thr, _, _ := fitThresholds(scores, []int{0, 1, 2, 3}, Y, 3, 2)
	if want := []float32{0, ThresholdFloor, 0}; !slices.Equal(thr, want) {
		t.Errorf("thresholds %v, want %v", thr, want)
	}
}

// marshalV1 encodes m as version 1 of the file stored it, every weight
// in full.
func marshalV1(m *MultiLabelModel) []byte {
	var b []byte
	b = append(b, mlMagic[:]...)
	b = binary.LittleEndian.AppendUint16(b, 1)
	flags := uint16(0)
	if m.plattA != nil {
		flags = 1
	}
	b = binary.LittleEndian.AppendUint16(b, flags)
	b = binary.LittleEndian.AppendUint64(b, uint64(m.classes))
	b = binary.LittleEndian.AppendUint64(b, uint64(m.dim))
	for _, s := range [][]float32{m.w, m.bias, m.thresholds} {
		for _, v := range s {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
		}
	}
	for c := range m.plattA {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(m.plattA[c]))
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(m.plattB[c]))
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// sameModel reports whether a and b hold the same classifier, bit for
// bit.
func sameModel(a, b *MultiLabelModel) bool {
	return a.classes == b.classes && a.dim == b.dim && sameBits(a.w, b.w) && sameBits(a.bias, b.bias) &&
		sameBits(a.thresholds, b.thresholds) && slices.Equal(a.plattA, b.plattA) && slices.Equal(a.plattB, b.plattB)
}

// sparseToy returns a model of D features and K classes whose weights
// are mostly 0, with a -0, a subnormal, features with no weight and a
// feature with every weight.
func sparseToy(K, D int, platt bool) *MultiLabelModel {
	r := rand.New(rand.NewPCG(uint64(K), uint64(D)))
	m := &MultiLabelModel{classes: K, dim: D, w: make([]float32, D*K), bias: make([]float32, K), thresholds: make([]float32, K)}
	for k := range m.w {
		if r.IntN(5) == 0 {
			m.w[k] = float32(r.NormFloat64())
		}
	}
	m.w[0] = float32(math.Copysign(0, -1))
	m.w[1] = math.Float32frombits(1)
	clear(m.w[K : 2*K])
	for c := range K {
		m.w[(D-1)*K+c] = float32(c + 1)
		m.bias[c], m.thresholds[c] = float32(c)/3, -float32(c)/7
	}
	if platt {
		m.plattA, m.plattB = make([]float64, K), make([]float64, K)
		for c := range K {
			m.plattA[c], m.plattB[c] = -1-float64(c), float64(c)/5
		}
	}
	return m
}

// TestMultiLabelSparseFile: the weights are stored sparse, a -0 and
// subnormals kept to the bit, whatever the number of classes against
// the bitmaps' bytes; the file is a fraction of version 1's, which is
// still read, to the same model.
func TestMultiLabelSparseFile(t *testing.T) {
	for _, K := range []int{1, 7, 8, 9, 16, 115} {
		for _, platt := range []bool{false, true} {
			m := sparseToy(K, 50, platt)
			b, err := m.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if binary.LittleEndian.Uint16(b[4:]) != 2 {
				t.Fatalf("K %d: version %d written, want 2", K, binary.LittleEndian.Uint16(b[4:]))
			}
			got, err := UnmarshalMultiLabel(b)
			if err != nil || !sameModel(got, m) {
				t.Fatalf("K %d, Platt %v: %v, or the model read back differs", K, platt, err)
			}
			v1 := marshalV1(m)
			if K >= 8 && len(b) >= len(v1)/2 {
				t.Errorf("K %d: %d bytes, version 1 takes %d", K, len(b), len(v1))
			}
			got, err = UnmarshalMultiLabel(v1)
			if err != nil || !sameModel(got, m) {
				t.Fatalf("K %d, Platt %v: version 1: %v, or the model read differs", K, platt, err)
			}
			for n := range len(v1) {
				if _, err := UnmarshalMultiLabel(v1[:n]); !errors.Is(err, ErrFormat) {
					t.Fatalf("version 1 cut at %d: %v", n, err)
				}
			}
		}
	}
}

// TestMultiLabelSparseFileBad: a bitmap that sets a bit past the
// classes, or names more weights than the file holds, and a weight that
// is not finite are refused even under a valid checksum.
func TestMultiLabelSparseFileBad(t *testing.T) {
	m := sparseToy(9, 3, false)
	b, _ := m.MarshalBinary()
	resum := func(c []byte) []byte {
		return binary.LittleEndian.AppendUint32(c[:len(c)-4], crc32.Checksum(c[:len(c)-4], castagnoli))
	}
	// The first feature's bitmap: bytes 24 and 25, classes 8 and past.
	// Class 0's weight (-0) is stored: its bit moved past the classes
	// names as many weights as the file holds.
	c := slices.Clone(b)
	c[24] &^= 1
	c[25] |= 2
	if _, err := UnmarshalMultiLabel(resum(c)); !errors.Is(err, ErrFormat) {
		t.Errorf("a bit past the classes: %v", err)
	}
	c = slices.Clone(b)
	c[24] = 0xff
	c[25] = 1
	if _, err := UnmarshalMultiLabel(resum(c)); !errors.Is(err, ErrFormat) {
		t.Errorf("more weights named than stored: %v", err)
	}
	// A stored weight that is not finite, in either version: the
	// first feature's first weight follows its bitmap, at 26, or
	// starts version 1's weights, at 24.
	for _, bits := range []uint32{0x7fc00000, 0xff800000} {
		for _, f := range []struct {
			b  []byte
			at int
		}{{b, 26}, {marshalV1(m), 24}} {
			c = slices.Clone(f.b)
			binary.LittleEndian.PutUint32(c[f.at:], bits)
			if _, err := UnmarshalMultiLabel(resum(c)); !errors.Is(err, ErrFormat) {
				t.Errorf("weight %#x at %d: %v", bits, f.at, err)
			}
		}
	}
}

// FuzzUnmarshalMultiLabel: whatever the bytes (their checksum made
// right or not), decoding returns a model or an error wrapping ErrFormat,
// never panics, and a model it returns encodes to a file that decodes to
// it again.
//
//	go test -run '^$' -fuzz '^FuzzUnmarshalMultiLabel$' -fuzztime 60s ./engine/
func FuzzUnmarshalMultiLabel(f *testing.F) {
	for _, m := range []*MultiLabelModel{sparseToy(3, 4, false), sparseToy(9, 2, true)} {
		b, _ := m.MarshalBinary()
		f.Add(b, true)
		f.Add(marshalV1(m), true)
	}
	f.Fuzz(func(t *testing.T, b []byte, resum bool) {
		defer budgettest.Within(t, 64<<20)()
		if resum && len(b) >= 4 {
			b = binary.LittleEndian.AppendUint32(slices.Clone(b[:len(b)-4]), crc32.Checksum(b[:len(b)-4], castagnoli))
		}
		m, err := UnmarshalMultiLabel(b)
		if err != nil {
			if !errors.Is(err, ErrFormat) && !errors.Is(err, ErrMemory) {
				t.Fatalf("error %v wraps neither ErrFormat nor ErrMemory", err)
			}
			return
		}
		b2, err := m.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		m2, err := UnmarshalMultiLabel(b2)
		if err != nil || !sameModel(m, m2) {
			t.Fatalf("a decoded model encodes to a file that does not decode to it: %v", err)
		}
	})
}

// TestMultiLabelScoresBatch: the batch scores are each row's Scores,
// bit for bit, a model trained in blocks of classes or read from a file,
// features past the model's ignored.
func TestMultiLabelScoresBatch(t *testing.T) {
	const K = mlBlock + 7
	X, Y := mlNoisy(4, 700, 30, K)
	m, err := FitMultiLabel(context.Background(), X, Y, K, MultiLabelConfig{Epochs: 2, Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	if m.split == nil {
		t.Fatal("the model is not in blocks")
	}
	b, _ := m.MarshalBinary()
	read, err := UnmarshalMultiLabel(b)
	if err != nil {
		t.Fatal(err)
	}
	wide := *X
	wide.Cols += 5
	wide.Ind = slices.Clone(X.Ind)
	wide.Ind[len(wide.Ind)-1] = int32(wide.Cols - 1)
	for _, mm := range []*MultiLabelModel{m, read} {
		for _, x := range []*sparse.CSR{X, &wide} {
			got := mm.ScoresBatch(x, make([]float32, 3))
			if len(got) != x.Rows*K {
				t.Fatalf("%d scores for %d rows of %d classes", len(got), x.Rows, K)
			}
			for i := range x.Rows {
				if want := mm.Scores(x.Row(i), nil); !sameBits(got[i*K:(i+1)*K], want) {
					t.Fatalf("row %d: batch scores %v, Scores %v", i, got[i*K:(i+1)*K], want)
				}
			}
		}
	}
}

// TestAppendTopKMatchesSort: the k best classes by insertion are those
// a stable sort of every class gives, ties in class order, for every k,
// with many ties, and with a NaN (which falls back to the sort).
func TestAppendTopKMatchesSort(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	byStableSort := func(s []float32, k int) []int {
		idx := make([]int, len(s))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return s[idx[a]] > s[idx[b]] })
		return idx[:min(max(k, 0), len(s))]
	}
	for trial := range 300 {
		s := make([]float32, 1+r.IntN(40))
		for c := range s {
			s[c] = float32(r.IntN(6)) - 2.5 // many ties
		}
		if trial%10 == 0 {
			s[r.IntN(len(s))] = float32(math.NaN())
		}
		if trial%7 == 0 {
			s[r.IntN(len(s))] = float32(math.Inf(-1))
		}
		for k := -1; k <= len(s)+1; k++ {
			got := appendTopK(s, k, []int{-7})
			if want := byStableSort(s, k); got[0] != -7 || !slices.Equal(got[1:], want) {
				t.Fatalf("scores %v, k %d: %v, the stable sort gives %v", s, k, got[1:], want)
			}
		}
	}
}
