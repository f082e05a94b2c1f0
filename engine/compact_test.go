package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/hyperplane-ml/hyperplane/internal/colorder"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// fxSpread places the columns of X at spread-out positions of a space
// wide columns across (column j at j·stride + 3), leaving most empty.
func fxSpread(X *sparse.CSR, wide, stride int) *sparse.CSR {
	ind := make([]int32, len(X.Ind))
	for i, j := range X.Ind {
		ind[i] = int32(int(j)*stride + 3)
	}
	return &sparse.CSR{Rows: X.Rows, Cols: wide, Indptr: X.Indptr, Ind: ind, Val: X.Val}
}

// fitDense and fitCompact train with compaction off and forced on.
func fitWith(t *testing.T, X *sparse.CSR, y []float64, cfg Config, minBytes int64) *Model {
	t.Helper()
	old := compactMinBytes
	compactMinBytes = minBytes
	defer func() { compactMinBytes = old }()
	m, _, err := Fit(context.Background(), X, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Training on the used columns does the same arithmetic as on all of
// them: every weight of a compact model is bit for bit the dense model's
// weight of its column, the dense model's other weights are zero, and the
// biases are equal. The widths cover the interleaved layout (a binary
// averaged learner with dense weights past the caches) against the plain
// one the compact weights use.
func TestCompactColumnsBitIdentical(t *testing.T) {
	Xb, yb := fxIntBinary(61, 600, 400, 12, 0.05)
	Xm, ym := fxIntMulti(62, 600, 400, 12, 5, 0.05)
	cases := []struct {
		name string
		X    *sparse.CSR
		y    []float64
		cfg  Config
	}{
		{"averaged binary, interleaved when dense", fxSpread(Xb, 1<<20, 997), yb, Config{Epochs: 4}},
		{"averaged multiclass", fxSpread(Xm, 50_000, 97), ym, Config{Epochs: 4}},
		{"plain PA-II normalized", fxSpread(Xm, 50_000, 97), ym, Config{Epochs: 3, Algorithm: Plain, Rule: PA2, Normalize: true}},
		{"pegasos", fxSpread(Xb, 50_000, 97), yb, Config{Epochs: 3, Rule: Pegasos}},
		{"batch", fxSpread(Xb, 50_000, 97), yb, Config{Epochs: 3, Algorithm: Batch}},
		{"two workers, validation", fxSpread(Xm, 50_000, 97), ym, Config{Epochs: 5, Workers: 2, Validation: 0.2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dense := fitWith(t, c.X, c.y, c.cfg, math.MaxInt64)
			compact := fitWith(t, c.X, c.y, c.cfg, 0)
			if dense.Cols != nil || compact.Cols == nil {
				t.Fatalf("dense cols %d, compact cols %d", len(dense.Cols), len(compact.Cols))
			}
			if compact.Dim != dense.Dim || len(compact.W) != len(compact.Cols)*compact.NumRows() {
				t.Fatalf("compact: dim %d (dense %d), %d weights for %d columns", compact.Dim, dense.Dim, len(compact.W), len(compact.Cols))
			}
			K := dense.NumRows()
			for k := range K {
				if math.Float32bits(dense.B[k]) != math.Float32bits(compact.B[k]) {
					t.Fatalf("bias %d: dense %v, compact %v", k, dense.B[k], compact.B[k])
				}
			}
			p := 0
			for j := range dense.Dim {
				used := p < len(compact.Cols) && int(compact.Cols[p]) == j
				for k := range K {
					d := dense.W[j*K+k]
					var c float32
					if used {
						c = compact.W[p*K+k]
					}
					if math.Float32bits(d) != math.Float32bits(c) || compact.Weight(k, j) != c {
						t.Fatalf("feature %d row %d: dense %v, compact %v", j, k, d, c)
					}
				}
				if used {
					p++
				}
			}
			// Predictions agree on rows that also use columns the
			// training rows left empty.
			test := fxSpread(Xm, c.X.Cols, 89)
			for i := range test.Rows {
				x := test.Row(i)
				if a, b := dense.Predict(x), compact.Predict(x); a != b {
					t.Fatalf("row %d: dense predicts %v, compact %v", i, a, b)
				}
			}
			if a, b := dense.PredictBatch(test, nil), compact.PredictBatch(test, nil); !equalF64(a, b) {
				t.Fatal("PredictBatch differs")
			}
			row := make([]float32, c.X.Cols)
			x := c.X.Row(0)
			for i, j := range x.Ind {
				row[j] = x.Val[i]
			}
			if a, b := dense.PredictDense(row), compact.PredictDense(row); a != b {
				t.Fatalf("PredictDense: dense %v, compact %v", a, b)
			}
		})
	}
}

func equalF64(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A compact model survives both file formats, with and without the
// column table, and a corrupt column list is refused.
func TestCompactModelFiles(t *testing.T) {
	Xm, ym := fxIntMulti(63, 300, 200, 10, 4, 0.05)
	for _, wide := range []int{40_000, 1<<31 - 1} {
		t.Run(fmt.Sprintf("wide=%d", wide), func(t *testing.T) {
			m := fitWith(t, fxSpread(Xm, wide, 150), ym, Config{Epochs: 3, Rule: PA2, Normalize: true}, 0)
			if m.Cols == nil {
				t.Fatal("not compact")
			}
			if (m.pos != nil) != (wide == 40_000) {
				t.Errorf("width %d: column table %v", wide, m.pos != nil)
			}
			var buf bytes.Buffer
			if _, err := m.WriteTo(&buf); err != nil {
				t.Fatal(err)
			}
			if buf.Len() > 100_000 {
				t.Errorf("width %d: a compact model of %d columns takes %d bytes", wide, len(m.Cols), buf.Len())
			}
			var back Model
			if err := back.UnmarshalBinary(buf.Bytes()); err != nil {
				t.Fatal(err)
			}
			fxSameModel(t, "binary round trip", &back, m)
			js, err := m.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			var jback Model
			if err := jback.UnmarshalJSON(js); err != nil {
				t.Fatal(err)
			}
			fxSameModel(t, "JSON round trip", &jback, m)
			x := fxSpread(Xm, wide, 150).Row(5)
			if back.Predict(x) != m.Predict(x) || jback.Predict(x) != m.Predict(x) {
				t.Error("a model read back predicts differently")
			}
		})
	}
	good := &Model{Classes: []float64{0, 1}, Dim: 10, Cols: []int32{2, 7}, W: []float32{1, -1}, B: []float32{0}}
	if err := good.Check(); err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string]*Model{
		"not increasing": {Classes: []float64{0, 1}, Dim: 10, Cols: []int32{7, 2}, W: []float32{1, -1}, B: []float32{0}},
		"past dim":       {Classes: []float64{0, 1}, Dim: 5, Cols: []int32{2, 7}, W: []float32{1, -1}, B: []float32{0}},
		"weights":        {Classes: []float64{0, 1}, Dim: 10, Cols: []int32{2, 7}, W: []float32{1}, B: []float32{0}},
		"empty":          {Classes: []float64{0, 1}, Dim: 10, Cols: []int32{}, W: []float32{}, B: []float32{0}},
	} {
		if err := bad.Check(); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v", name, err)
		}
		if _, err := bad.MarshalBinary(); err == nil {
			t.Errorf("%s: encoded", name)
		}
	}
	if got := good.Weight(0, 7); got != -1 {
		t.Errorf("Weight(0, 7) = %v", got)
	}
	if got := good.Weight(0, 3) + good.Weight(0, 12) + good.Weight(0, -1); got != 0 {
		t.Errorf("weights of unlisted features: %v", got)
	}
}

// A fit that takes its numbering of the columns from the counts a reader
// made (colorder.Plan) trains the model a fit that counts them itself
// does, byte for byte, whatever the numbering's order: with dense
// weights and with listed columns, when the rows read include rows held
// out of the fit, some using columns no other row does. A plan that does
// not number every column of the rows is not used.
func TestPlannedFitBitIdentical(t *testing.T) {
	Xb, yb := fxIntBinary(81, 500, 300, 14, 0.05)
	Xm, ym := fxIntMulti(82, 500, 300, 14, 4, 0.05)
	cases := []struct {
		name string
		X    *sparse.CSR
		y    []float64
		cfg  Config
	}{
		{"averaged PA-II binary, dense", fxHashed(Xb, 311), yb, Config{Epochs: 4, Rule: PA2, Normalize: true}},
		{"averaged multiclass, dense", fxHashed(Xm, 311), ym, Config{Epochs: 4}},
		{"averaged binary, listed", fxSpread(Xb, 1<<20, 997), yb, Config{Epochs: 3}},
		{"plain PA-I multiclass, listed", fxSpread(Xm, 50_000, 97), ym, Config{Epochs: 3, Algorithm: Plain, Rule: PA1}},
		{"two workers", fxHashed(Xm, 311), ym, Config{Epochs: 3, Workers: 2}},
	}
	old := compactMinBytes
	compactMinBytes = 0
	defer func() { compactMinBytes = old }()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// All the rows read, two more with columns of their own; every
			// fifth row and those two are held out.
			all := *c.X
			all.Ind, all.Val = slices.Clone(c.X.Ind), slices.Clone(c.X.Val)
			all.Indptr = slices.Clone(c.X.Indptr)
			for _, j := range []int32{int32(all.Cols - 1), int32(all.Cols - 2)} {
				all.Ind, all.Val = append(all.Ind, j), append(all.Val, 1)
				all.Indptr = append(all.Indptr, int64(len(all.Ind)))
				all.Rows++
			}
			var kept, held []int
			for i := range all.Rows {
				if i%5 == 4 || i >= c.X.Rows {
					held = append(held, i)
				} else {
					kept = append(kept, i)
				}
			}
			X := all.SelectRows(kept)
			y := make([]float64, len(kept))
			for k, i := range kept {
				y[k] = c.y[i]
			}
			rec := &colorder.Recorder{Dim: all.Cols, Count: make([]int32, all.Cols)}
			for _, j := range all.Ind {
				if rec.Count[j] == 0 {
					rec.First = append(rec.First, j)
				}
				rec.Count[j]++
			}
			rec.Number()
			p := rec.NewPlan(all.Indptr, kept, all.SelectRows(held))
			if p == nil {
				t.Fatal("no plan")
			}
			want := fitModelBytes(t, context.Background(), X, y, c.cfg)
			if got := fitModelBytes(t, colorder.WithPlan(context.Background(), X, p), X, y, c.cfg); !bytes.Equal(got, want) {
				t.Fatal("the planned fit's model differs")
			}
			used := map[int32]bool{}
			for _, j := range X.Ind {
				used[j] = true
			}
			rn, ok := planned(X, p)
			// (Held rows alone use two columns of the spread-out spaces.)
			if !ok || len(rn.byCol) != len(used) || len(p.Cols) < len(used) || (rn.listed && len(p.Cols) != len(used)+2) {
				t.Fatalf("planned: %v, %d columns of %d, %d used", ok, len(rn.byCol), len(p.Cols), len(used))
			}
			for q, j := range X.Ind {
				if rn.cols[rn.X.Ind[q]] != j {
					t.Fatalf("value %d: column %d renumbered %d, which is column %d", q, j, rn.X.Ind[q], rn.cols[rn.X.Ind[q]])
				}
			}
			// The renumbering done already (Plan.Ind), right or wrong.
			numbered := *p
			numbered.Ind = slices.Clone(rn.X.Ind)
			if got := fitModelBytes(t, colorder.WithPlan(context.Background(), X, &numbered), X, y, c.cfg); !bytes.Equal(got, want) {
				t.Fatal("the fit of rows numbered already gives another model")
			}
			if rn2, ok := planned(X, &numbered); !ok || &rn2.X.Ind[0] != &numbered.Ind[0] {
				t.Fatal("planned renumbered rows numbered already")
			}
			for _, q := range []int{0, numberedStride, len(X.Ind) - 1} {
				wrong := numbered
				wrong.Ind = slices.Clone(numbered.Ind)
				wrong.Ind[q] ^= 1
				if rn2, ok := planned(X, &wrong); !ok || &rn2.X.Ind[0] == &wrong.Ind[0] || !slices.Equal(rn2.X.Ind, rn.X.Ind) {
					t.Fatalf("planned took a wrong numbering at value %d", q)
				}
			}
			// The reverse order numbers the same columns.
			rev := &colorder.Plan{Dim: p.Dim, Code: slices.Clone(p.Code), Cols: slices.Clone(p.Cols), Hot: p.Hot}
			slices.Reverse(rev.Cols)
			for n, j := range rev.Cols {
				if p.Code[j] < 0 {
					rev.Code[j] = -1 - int32(n)
				}
			}
			if got := fitModelBytes(t, colorder.WithPlan(context.Background(), X, rev), X, y, c.cfg); !bytes.Equal(got, want) {
				t.Fatal("the fit in reverse order gives another model")
			}
			// A plan without a column the rows use.
			short := &colorder.Plan{Dim: p.Dim, Code: slices.Clone(p.Code), Cols: p.Cols, Hot: p.Hot}
			short.Code[X.Ind[0]] = 0
			if _, ok := planned(X, short); ok {
				t.Fatal("planned took a plan without a column of the rows")
			}
			if got := fitModelBytes(t, colorder.WithPlan(context.Background(), X, short), X, y, c.cfg); !bytes.Equal(got, want) {
				t.Fatal("the fit with a short plan gives another model")
			}
		})
	}
}

func fitModelBytes(t *testing.T, ctx context.Context, X *sparse.CSR, y []float64, cfg Config) []byte {
	t.Helper()
	m, _, err := Fit(ctx, X, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}
