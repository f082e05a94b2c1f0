package engine

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hyperplane-ml/hyperplane/kernels"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// clfCase is a trained model of either kind and rows to score with it.
type clfCase struct {
	name string
	c    Classifier
	X    *sparse.CSR
}

// clfCases trains every kind of model the Classifier interface covers:
// linear and kernel, binary and multiclass, voted and not, one linear
// model over listed columns, and scores 300 rows with each (enough to use
// several goroutines in the batch methods).
func clfCases(t *testing.T) []clfCase {
	t.Helper()
	var cases []clfCase
	for i, nc := range []int{2, 4} {
		X, y := kmioData(uint64(70+i), 300, 12, nc, 0.5)
		for _, alg := range []Algorithm{Averaged, Voted} {
			m, _, err := Fit(context.Background(), X, y, Config{Algorithm: alg, Epochs: 2, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			cases = append(cases, clfCase{fmt.Sprintf("linear/%v/%dclass", alg, nc), m, X})
			km, _, err := FitKernel(context.Background(), X, y, KernelConfig{Config: Config{Algorithm: alg, Epochs: 2, Seed: 3}, Kernel: kernels.RBF{Gamma: 0.1}})
			if err != nil {
				t.Fatal(err)
			}
			cases = append(cases, clfCase{fmt.Sprintf("kernel/%v/%dclass", alg, nc), km, X})
		}
	}
	// A model over columns, scored on rows wider than it.
	X, _ := kmioData(77, 300, 30, 3, 0.3)
	lm := &Model{Classes: []float64{1, 2, 3}, Dim: 20, Cols: []int32{2, 5, 19}, BiasScale: 1,
		W: []float32{1, -1, 0.5, 0, 2, -2, 0.25, 0.5, -0.75}, B: []float32{0.1, 0, -0.1}}
	lm.index()
	cases = append(cases, clfCase{"linear/cols/3class", lm, X})
	return cases
}

// TestClassifierAccessors checks ClassValues, NumFeatures, NumRows and
// Binary against the fields of each kind.
func TestClassifierAccessors(t *testing.T) {
	for _, c := range clfCases(t) {
		t.Run(c.name, func(t *testing.T) {
			var classes []float64
			var dim int
			switch m := c.c.(type) {
			case *Model:
				classes, dim = m.Classes, m.Dim
			case *KernelModel:
				classes, dim = m.Classes, m.Dim
			}
			got := c.c.ClassValues()
			if !slices.Equal(got, classes) {
				t.Fatalf("ClassValues = %v, want %v", got, classes)
			}
			got[0] = math.Inf(1)
			if classes[0] == math.Inf(1) {
				t.Error("ClassValues returned the model's own slice")
			}
			if c.c.NumFeatures() != dim {
				t.Errorf("NumFeatures = %d, want %d", c.c.NumFeatures(), dim)
			}
			if c.c.Binary() != (len(classes) == 2) {
				t.Errorf("Binary = %v with %d classes", c.c.Binary(), len(classes))
			}
			if want := len(classes); c.c.NumRows() != want && !(want == 2 && c.c.NumRows() == 1) {
				t.Errorf("NumRows = %d with %d classes", c.c.NumRows(), want)
			}
			if err := c.c.Check(); err != nil {
				t.Errorf("Check: %v", err)
			}
		})
	}
}

// TestClassifierScoresBatch checks ScoresBatch against Scores row by row:
// bit for bit for a linear model; for a kernel model, whose batch kernel
// values come from matrix products, within a float32 rounding, and its
// labels against PredictBatch's. The destination is grown when short and
// reused when long enough.
func TestClassifierScoresBatch(t *testing.T) {
	for _, c := range clfCases(t) {
		t.Run(c.name, func(t *testing.T) {
			K := c.c.NumRows()
			got := c.c.ScoresBatch(c.X, []float32{42})
			if len(got) != c.X.Rows*K {
				t.Fatalf("%d scores for %d rows of %d", len(got), c.X.Rows, K)
			}
			_, kernel := c.c.(*KernelModel)
			labels := c.c.PredictBatch(c.X, nil)
			classes := c.c.ClassValues()
			var s []float32
			for i := range c.X.Rows {
				s = c.c.Scores(c.X.Row(i), s)
				row := got[i*K : (i+1)*K]
				for k := range K {
					d := math.Abs(float64(row[k] - s[k]))
					if !kernel && math.Float32bits(row[k]) != math.Float32bits(s[k]) || d > 1e-4*(1+math.Abs(float64(s[k]))) {
						t.Fatalf("row %d score %d: batch %v, Scores %v", i, k, row[k], s[k])
					}
				}
				if kernel && K > 1 && classes[argmax(row)] != labels[i] {
					t.Fatalf("row %d: batch scores pick %v, PredictBatch %v", i, classes[argmax(row)], labels[i])
				}
			}
			buf := make([]float32, 0, len(got)+5)
			again := c.c.ScoresBatch(c.X, buf)
			if &again[0] != &buf[:1][0] {
				t.Error("ScoresBatch did not reuse a large enough dst")
			}
			if !kernel && !slices.Equal(again, got) {
				t.Error("ScoresBatch differs between calls")
			}
			if n := len(c.c.ScoresBatch(&sparse.CSR{Cols: c.X.Cols, Indptr: []int64{0}}, nil)); n != 0 {
				t.Errorf("%d scores for no rows", n)
			}
		})
	}
}

// TestClassifierFiles writes each model through the interface (WriteTo,
// Save) and reads it back with ReadClassifier and LoadClassifier: the
// same kind, the same bytes again, the same predictions.
func TestClassifierFiles(t *testing.T) {
	dir := t.TempDir()
	for i, c := range clfCases(t) {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			n, err := c.c.WriteTo(&buf)
			if err != nil || n != int64(buf.Len()) {
				t.Fatalf("WriteTo: %d bytes, %v (wrote %d)", n, err, buf.Len())
			}
			enc := bytes.Clone(buf.Bytes())
			read, err := ReadClassifier(&buf)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, fmt.Sprint(i))
			if err := c.c.Save(path); err != nil {
				t.Fatal(err)
			}
			loaded, err := LoadClassifier(path)
			if err != nil {
				t.Fatal(err)
			}
			want := c.c.PredictBatch(c.X, nil)
			for _, back := range []Classifier{read, loaded} {
				if fmt.Sprintf("%T", back) != fmt.Sprintf("%T", c.c) {
					t.Fatalf("read back a %T from a %T", back, c.c)
				}
				var again bytes.Buffer
				if _, err := back.WriteTo(&again); err != nil || !bytes.Equal(again.Bytes(), enc) {
					t.Fatalf("the model read back encodes differently (%v)", err)
				}
				if got := back.PredictBatch(c.X, nil); !slices.Equal(got, want) {
					t.Fatal("the model read back predicts differently")
				}
			}
		})
	}
}
