package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

// scribbleSource is a RowSource that hands out every row in one buffer,
// which it overwrites with garbage before the next row: a row is valid
// only until the next Scan, as the interface says.
type scribbleSource struct {
	X   *sparse.CSR
	y   []float64
	i   int
	ind []int32
	val []float32
	bad int // the row (from 0) whose label is 99, −1 for none
}

func (s *scribbleSource) Scan() bool {
	for k := range s.ind {
		s.ind[k], s.val[k] = -7, float32(math.NaN())
	}
	s.i++
	return s.i < s.X.Rows
}

func (s *scribbleSource) Row() (float64, sparse.Vector) {
	r := s.X.Row(s.i)
	s.ind = append(s.ind[:0], r.Ind...)
	s.val = append(s.val[:0], r.Val...)
	y := s.y[s.i]
	if s.i == s.bad {
		y = 99
	}
	return y, sparse.Vector{Dim: r.Dim, Ind: s.ind, Val: s.val}
}

func (s *scribbleSource) Err() error { return nil }

// TestLearnFromBatchesCopyRows: LearnFrom reads a stream a batch of rows
// ahead of the learner, so it must copy each row before the next Scan; a
// stream that reuses its buffer trains the model that Learn trains row by
// row, across several batches, for every rule.
func TestLearnFromBatchesCopyRows(t *testing.T) {
	X, y := fxIntMulti(5, 2*passBatch+300, 400, 12, 3, 0.1)
	for _, cfg := range []Config{{}, {Rule: PA1, Normalize: true}, {Rule: Pegasos}, {Algorithm: Voted}, {Rule: Logistic}} {
		a, err := NewLearner([]float64{0, 1, 2}, 10, cfg)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := NewLearner([]float64{0, 1, 2}, 10, cfg)
		s, err := a.LearnFrom(context.Background(), &scribbleSource{X: X, y: y, i: -1, bad: -1})
		if err != nil {
			t.Fatalf("%v: LearnFrom: %v", cfg.Rule, err)
		}
		mistakes := 0
		for i := range X.Rows {
			m, err := b.Learn(X.Row(i), y[i])
			if err != nil {
				t.Fatal(err)
			}
			if m {
				mistakes++
			}
		}
		if s.Rows != X.Rows || s.Mistakes != mistakes {
			t.Fatalf("%v: LearnFrom saw %d rows, %d mistakes; Learn %d, %d", cfg.Rule, s.Rows, s.Mistakes, X.Rows, mistakes)
		}
		fxSameModel(t, "LearnFrom vs Learn", a.Model(), b.Model())
	}
}

// TestLearnFromStopsAtBadRowPastABatch: a bad label past the first batch
// ends LearnFrom with an error naming its row, the rows before it learned
// and none after.
func TestLearnFromStopsAtBadRowPastABatch(t *testing.T) {
	X, y := fxIntBinary(6, passBatch+200, 300, 10, 0.1)
	bad := passBatch + 57
	l, err := NewLearner([]float64{-1, 1}, 10, Config{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := l.LearnFrom(context.Background(), &scribbleSource{X: X, y: y, i: -1, bad: bad})
	if !errors.Is(err, ErrUnknownLabel) || !strings.Contains(err.Error(), fmt.Sprintf("row %d of the stream", bad+1)) {
		t.Fatalf("error %v, want ErrUnknownLabel naming row %d of the stream", err, bad+1)
	}
	if s.Rows != bad || l.Seen() != int64(bad) {
		t.Fatalf("learned %d rows (Seen %d) before the bad one, want %d", s.Rows, l.Seen(), bad)
	}
	ref, _ := NewLearner([]float64{-1, 1}, 10, Config{})
	for i := range bad {
		if _, err := ref.Learn(X.Row(i), y[i]); err != nil {
			t.Fatal(err)
		}
	}
	fxSameModel(t, "LearnFrom up to the bad row", l.Model(), ref.Model())
}

// TestPartialFitDivergesNamingTheRow: an update that makes a weight
// infinite ends PartialFit with ErrDiverged naming the row, and every
// later call returns it.
func TestPartialFitDivergesNamingTheRow(t *testing.T) {
	var b sparse.Builder
	n := passBatch + 10
	y := make([]float64, n)
	for i := range n {
		v := float32(1)
		if i == n-3 {
			v = math.MaxFloat32
		}
		if err := b.Add([]int32{int32(i % 5)}, []float32{v}); err != nil {
			t.Fatal(err)
		}
		y[i] = float64(1 - 2*(i%2))
	}
	X := b.Build()
	l, err := NewLearner([]float64{-1, 1}, 5, Config{Algorithm: Plain, NoShuffle: true, LearningRate: 1e30})
	if err != nil {
		t.Fatal(err)
	}
	_, err = l.PartialFit(context.Background(), X, y)
	if !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), "row ") {
		t.Fatalf("PartialFit: %v, want ErrDiverged naming a row", err)
	}
	if _, err2 := l.Learn(X.Row(0), y[0]); !errors.Is(err2, ErrDiverged) {
		t.Fatalf("Learn after divergence: %v, want ErrDiverged", err2)
	}
}
