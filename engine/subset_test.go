package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

// subsetModel builds a valid model of dim features and K weight rows
// (binary when K is 1) whose weights are zero with probability zeros,
// holding the features cols only when cols is not nil.
func subsetModel(t *testing.T, rng *rand.Rand, dim, K int, zeros float64, cols []int32, norm bool) *Model {
	t.Helper()
	nc := max(K, 2)
	m := &Model{Algorithm: Averaged, BiasScale: 1, Normalize: norm, Dim: dim, Cols: cols, B: make([]float32, K)}
	for c := range nc {
		m.Classes = append(m.Classes, float64(c))
	}
	n := dim
	if cols != nil {
		n = len(cols)
	}
	m.W = make([]float32, n*K)
	for i := range m.W {
		if rng.Float64() >= zeros {
			m.W[i] = float32(rng.NormFloat64())
		}
	}
	for k := range m.B {
		m.B[k] = float32(rng.NormFloat64())
	}
	if err := m.Check(); err != nil {
		t.Fatal(err)
	}
	m.index()
	return m
}

// TestReadClassifierFeaturesScores reads models for a subset of their
// features and checks that rows of those features, renumbered, score as
// the whole model scores them, to the bit: binary and multiclass models,
// weights stored dense and sparse, with and without Cols, normalizing or
// not.
func TestReadClassifierFeaturesScores(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const dim = 5000
	eachSubsetModel(t, rng, dim, []float64{0, 0.8}, func(name string, m *Model, data []byte, cols []int32) {
		// The features of a few rows, renumbered in order.
		var keep []int32
		pos := map[int32]int32{}
		rows := make([][]int32, 20)
		for r := range rows {
			for range 1 + rng.IntN(30) {
				rows[r] = append(rows[r], int32(rng.IntN(dim)))
			}
		}
		seen := make([]bool, dim)
		for _, row := range rows {
			for _, j := range row {
				seen[j] = true
			}
		}
		for j, ok := range seen {
			if ok {
				pos[int32(j)] = int32(len(keep))
				keep = append(keep, int32(j))
			}
		}
		sub, err := ReadClassifierFeatures(bytes.NewReader(data), keep)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if sub.Dim != len(keep) {
			t.Fatalf("subset of dim %d, want %d", sub.Dim, len(keep))
		}
		for _, row := range rows {
			ind := sortedUnique(row)
			val := make([]float32, len(ind))
			for i := range val {
				val[i] = float32(rng.IntN(5)+1) * 0.37
			}
			re := make([]int32, len(ind))
			for i, j := range ind {
				re[i] = pos[j]
			}
			want := m.Scores(sparse.Vector{Ind: ind, Val: val}, nil)
			got := sub.Scores(sparse.Vector{Ind: re, Val: val}, nil)
			for k := range want {
				if math.Float32bits(want[k]) != math.Float32bits(got[k]) {
					t.Fatalf("%s: score %d is %v, whole model %v", name, k, got[k], want[k])
				}
			}
		}
	})
}

func sortedUnique(a []int32) []int32 {
	seen := map[int32]bool{}
	var out []int32
	for _, j := range a {
		if !seen[j] {
			seen[j] = true
			out = append(out, j)
		}
	}
	for i := 1; i < len(out); i++ {
		for k := i; k > 0 && out[k] < out[k-1]; k-- {
			out[k], out[k-1] = out[k-1], out[k]
		}
	}
	return out
}

// TestReadClassifierFeaturesRefuses checks the models and feature lists
// ReadClassifierFeatures refuses, and that a corrupt model is still
// refused when read for a subset (its checksum covers what is skipped).
func TestReadClassifierFeaturesRefuses(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	m := subsetModel(t, rng, 50, 3, 0.8, nil, false)
	var buf bytes.Buffer
	if _, err := m.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadClassifierFeatures(bytes.NewReader(buf.Bytes()), []int32{3, 3}); !errors.Is(err, ErrDim) {
		t.Errorf("repeated feature: %v, want ErrDim", err)
	}
	if sub, err := ReadClassifierFeatures(bytes.NewReader(buf.Bytes()), []int32{3, 49, 50, 70}); err != nil || sub.Dim != 2 {
		t.Errorf("features past Dim: %v, want them left out", err)
	}
	bad := bytes.Clone(buf.Bytes())
	bad[len(bad)-10] ^= 1 // a value of the last rows, not kept
	if _, err := ReadClassifierFeatures(bytes.NewReader(bad), []int32{0, 1}); !errors.Is(err, ErrFormat) {
		t.Errorf("corrupt model: %v, want ErrFormat", err)
	}
	checkNoSubset(t, rng, func(data []byte, keep []int32) error {
		_, err := ReadClassifierFeatures(bytes.NewReader(data), keep)
		return err
	})
}

// checkNoSubset checks that read, which reads the model file data for the
// features keep, gives ErrNoSubset for a compact model that holds none of
// them and for kernel and voted models.
func checkNoSubset(t *testing.T, rng *rand.Rand, read func(data []byte, keep []int32) error) {
	t.Helper()
	var buf bytes.Buffer
	c := subsetModel(t, rng, 50, 3, 0.2, []int32{10, 20}, false)
	if _, err := c.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	if err := read(buf.Bytes(), []int32{1, 2}); !errors.Is(err, ErrNoSubset) {
		t.Errorf("compact model holding none of the features: %v, want ErrNoSubset", err)
	}
	X, y := subsetRows(rng, 40, 30)
	km, _, err := FitKernel(context.Background(), X, y, KernelConfig{})
	if err != nil {
		t.Fatal(err)
	}
	vm, _, err := Fit(context.Background(), X, y, Config{Algorithm: Voted})
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]interface {
		WriteTo(io.Writer) (int64, error)
	}{"kernel": km, "voted": vm} {
		buf.Reset()
		if _, err := c.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		if err := read(buf.Bytes(), []int32{1, 2}); !errors.Is(err, ErrNoSubset) {
			t.Errorf("%s model: %v, want ErrNoSubset", name, err)
		}
	}
}

// eachSubsetModel calls f with each model of a grid, with its name and
// encoding: binary and 5-class, with the shares zeros of zero weights,
// with and without Cols (about a third of dim), normalizing or not.
func eachSubsetModel(t *testing.T, rng *rand.Rand, dim int, zeros []float64, f func(name string, m *Model, data []byte, cols []int32)) {
	t.Helper()
	for _, K := range []int{1, 5} {
		for _, z := range zeros {
			for _, compact := range []bool{false, true} {
				for _, norm := range []bool{false, true} {
					var cols []int32
					if compact {
						for j := range dim {
							if rng.IntN(3) == 0 {
								cols = append(cols, int32(j))
							}
						}
					}
					m := subsetModel(t, rng, dim, K, z, cols, norm)
					var buf bytes.Buffer
					if _, err := m.WriteTo(&buf); err != nil {
						t.Fatal(err)
					}
					f(fmt.Sprintf("K %d zeros %v compact %v normalize %v", K, z, compact, norm), m, buf.Bytes(), cols)
				}
			}
		}
	}
}

// subsetRows returns n random sparse rows of dim features with labels ±1.
func subsetRows(rng *rand.Rand, n, dim int) (*sparse.CSR, []float64) {
	b := sparse.NewBuilder(dim)
	y := make([]float64, n)
	for i := range n {
		ind := sortedUnique([]int32{int32(rng.IntN(dim)), int32(rng.IntN(dim)), int32(rng.IntN(dim))})
		val := make([]float32, len(ind))
		for k := range val {
			val[k] = 1
		}
		if err := b.Add(ind, val); err != nil {
			panic(err)
		}
		y[i] = float64(2*(i%2) - 1)
	}
	return b.Build(), y
}
