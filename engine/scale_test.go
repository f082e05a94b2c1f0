package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/dense"
	"github.com/hyperplane-ml/hyperplane/kernels"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// fxScales returns rows whose three features are on scales a million
// apart and a label that depends on the two small ones: data that a
// learner of raw values gets wrong and a standardized one right.
func fxScales(seed uint64, n int) (*sparse.CSR, []float64) {
	r := fxRNG(seed)
	rows := make([][]float32, n)
	y := make([]float64, n)
	for i := range rows {
		a, b, c := r.Float64(), r.Float64(), r.Float64()
		rows[i] = []float32{float32(1000 * a), float32(0.001 * b), float32(0.01 * c)}
		y[i] = -1
		if b+c > 1 {
			y[i] = 1
		}
	}
	return sparse.FromDense(rows), y
}

// fxScaleByHand scales X as (x − center)·factor, every feature of every
// row, in float64 as the test's own arithmetic.
func fxScaleByHand(X *sparse.CSR, center, factor []float64) *sparse.CSR {
	rows := make([][]float32, X.Rows)
	for i := range rows {
		row := make([]float64, X.Cols)
		x := X.Row(i)
		for p, j := range x.Ind {
			row[j] = float64(x.Val[p])
		}
		rows[i] = make([]float32, X.Cols)
		for j, v := range row {
			c := 0.0
			if center != nil {
				c = center[j]
			}
			// In float32, as the learner's rows are.
			rows[i][j] = (float32(v) - float32(c)) * float32(factor[j])
		}
	}
	return sparse.FromDense(rows)
}

func TestScaleStandardizeIsTheScaledModel(t *testing.T) {
	X, y := fxScales(1, 400)
	n := float64(X.Rows)
	mean, sd := make([]float64, X.Cols), make([]float64, X.Cols)
	for i := range X.Rows {
		x := X.Row(i)
		for p, j := range x.Ind {
			mean[j] += float64(x.Val[p]) / n
		}
	}
	for i := range X.Rows {
		x := X.Row(i)
		for p, j := range x.Ind {
			d := float64(x.Val[p]) - mean[j]
			sd[j] += d * d / n
		}
	}
	factor := make([]float64, X.Cols)
	for j := range sd {
		factor[j] = 1 / math.Sqrt(sd[j])
	}
	cfg := Config{Rule: PA2, Epochs: 5}
	scaled, _ := fxFit(t, fxScaleByHand(X, mean, factor), y, cfg)
	cfg.Scale = Standardize
	m, _ := fxFit(t, X, y, cfg)
	if m.Scaling == nil || m.Scaling.Kind != Standardize {
		t.Fatalf("Scaling = %+v, want the standard scaling recorded", m.Scaling)
	}
	for j := range factor {
		if d := math.Abs(float64(m.Scaling.Factor[j])/factor[j] - 1); d > 1e-4 {
			t.Errorf("factor of feature %d: %v, want %v", j, m.Scaling.Factor[j], factor[j])
		}
	}
	// The model scores raw rows as the hand-scaled model scores scaled
	// ones.
	Xs := fxScaleByHand(X, mean, factor)
	agree := 0
	for i := range X.Rows {
		a, b := m.Decision(X.Row(i)), scaled.Decision(Xs.Row(i))
		if math.Abs(float64(a-b)) > 1e-3*(1+math.Abs(float64(b))) {
			t.Fatalf("row %d: scaled model scores %v raw, the hand-scaled model %v", i, a, b)
		}
		if m.Predict(X.Row(i)) == y[i] {
			agree++
		}
	}
	raw, _ := fxFit(t, X, y, Config{Rule: PA2, Epochs: 5})
	rawAgree := 0
	for i := range X.Rows {
		if raw.Predict(X.Row(i)) == y[i] {
			rawAgree++
		}
	}
	if agree <= rawAgree || float64(agree) < 0.9*n {
		t.Errorf("standardized model right on %d rows, raw one on %d, of %d", agree, rawAgree, X.Rows)
	}
	// Warm gives the weights back in the learner's units.
	w, err := m.Warm()
	if err != nil {
		t.Fatal(err)
	}
	for j := range X.Cols {
		if d := math.Abs(float64(w.W[j] - scaled.W[j])); d > 1e-3*(1+math.Abs(float64(scaled.W[j]))) {
			t.Errorf("Warm weight %d: %v, want %v", j, w.W[j], scaled.W[j])
		}
	}
	if d := math.Abs(float64(w.B[0] - scaled.B[0])); d > 1e-3*(1+math.Abs(float64(scaled.B[0]))) {
		t.Errorf("Warm bias %v, want %v", w.B[0], scaled.B[0])
	}
}

func TestScaleMaxAbsKeepsRowsSparse(t *testing.T) {
	X, y := fxIntBinary(3, 300, 50, 6, 0)
	for i := range X.Val {
		X.Val[i] *= float32(1 + X.Ind[i]%7*100)
	}
	m, _ := fxFit(t, X, y, Config{Scale: MaxAbs, Epochs: 3})
	sc := m.Scaling
	if sc == nil || sc.Center != nil || len(sc.Factor) != X.Cols {
		t.Fatalf("Scaling = %+v, want max-abs factors for %d features and no centers", sc, X.Cols)
	}
	mx := make([]float64, X.Cols)
	for i, j := range X.Ind {
		mx[j] = max(mx[j], math.Abs(float64(X.Val[i])))
	}
	factor := make([]float64, X.Cols)
	for j, v := range mx {
		factor[j] = 1
		if v > 0 {
			factor[j] = 1 / v
		}
	}
	hand, _ := fxFit(t, fxScaleByHand(X, nil, factor), y, Config{Epochs: 3})
	Xs := fxScaleByHand(X, nil, factor)
	for i := range X.Rows {
		a, b := m.Decision(X.Row(i)), hand.Decision(Xs.Row(i))
		if math.Abs(float64(a-b)) > 1e-4*(1+math.Abs(float64(b))) {
			t.Fatalf("row %d: scores %v, the hand-scaled model %v", i, a, b)
		}
	}
}

func TestScaleModelFile(t *testing.T) {
	X, y := fxScales(2, 200)
	m, _ := fxFit(t, X, y, Config{Scale: Standardize, Epochs: 3})
	b, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var back Model
	if err := back.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if back.Scaling == nil || back.Scaling.Kind != Standardize || len(back.Scaling.Center) != X.Cols {
		t.Fatalf("read back Scaling %+v", back.Scaling)
	}
	for j := range X.Cols {
		if back.Scaling.Factor[j] != m.Scaling.Factor[j] || back.Scaling.Center[j] != m.Scaling.Center[j] {
			t.Fatalf("feature %d's scaling changed in the file", j)
		}
	}
	for i := range X.Rows {
		if back.Decision(X.Row(i)) != m.Decision(X.Row(i)) {
			t.Fatalf("row %d scores otherwise after the file", i)
		}
	}
	// A bad kind or a cut section is a format error.
	at := len(b) - 4 - 8*X.Cols - 8
	badKind := bytes.Clone(b)
	badKind[at] = 7
	if err := new(Model).UnmarshalBinary(badKind); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "unknown scaling 7") {
		t.Errorf("scaling kind 7: %v", err)
	}
	if err := new(Model).UnmarshalBinary(b[:len(b)-12]); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "scaling centers") {
		t.Errorf("a cut scaling section: %v", err)
	}
	// JSON keeps it too.
	js, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var fromJSON Model
	if err := json.Unmarshal(js, &fromJSON); err != nil {
		t.Fatal(err)
	}
	if sc := fromJSON.Scaling; sc == nil || sc.Kind != Standardize || sc.Factor[0] != m.Scaling.Factor[0] || sc.Center[2] != m.Scaling.Center[2] {
		t.Errorf("scaling from JSON %+v, want %+v", sc, m.Scaling)
	}
	// A model without a scaling writes no scaling section, as before.
	plain, _ := fxFit(t, X, y, Config{Epochs: 3})
	pb, err := plain.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if len(pb) != len(b)-8-8*X.Cols {
		t.Errorf("unscaled file %d bytes, scaled %d: the section is not the difference", len(pb), len(b))
	}
	// A factor of 0 in the file is refused.
	bad := *m
	bad.Scaling = &Scaling{Kind: Standardize, Factor: []float32{1, 0, 1}, Center: make([]float32, 3)}
	if _, err := bad.MarshalBinary(); !errors.Is(err, ErrFormat) {
		t.Errorf("a zero factor: %v, want ErrFormat", err)
	}
	// The subset reader reads scaled models whole.
	if _, err := ReadClassifierFeatures(bytes.NewReader(b), []int32{0}); !errors.Is(err, ErrNoSubset) {
		t.Errorf("subset of a scaled model: %v, want ErrNoSubset", err)
	}
}

func TestScaleConfigRefusals(t *testing.T) {
	X, y := fxScales(3, 50)
	ctx := context.Background()
	for name, cfg := range map[string]Config{
		"normalize":   {Scale: Standardize, Normalize: true},
		"voted":       {Scale: MaxAbs, Algorithm: Voted},
		"unknown":     {Scale: 9},
		"bad scaling": {Scaling: &Scaling{Kind: MaxAbs, Factor: []float32{-1}}},
	} {
		if _, _, err := Fit(ctx, X, y, cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v, want ErrConfig", name, err)
		}
	}
	cfg := Config{Scale: Standardize}
	if _, err := NewLearner([]float64{-1, 1}, 3, cfg); !errors.Is(err, ErrConfig) {
		t.Errorf("NewLearner: %v, want ErrConfig", err)
	}
	D, _ := dense.New[float32](2, 3)
	if _, _, err := FitDense(ctx, D, []float64{-1, 1}, cfg); !errors.Is(err, ErrConfig) {
		t.Errorf("FitDense: %v, want ErrConfig", err)
	}
	if err := (KernelConfig{Config: cfg, Kernel: kernels.Linear{}}).Check(); !errors.Is(err, ErrConfig) {
		t.Errorf("FitKernel: %v, want ErrConfig", err)
	}
	// A width far beyond the data: the scaling's memory is checked
	// before it is allocated.
	wide := &sparse.CSR{Rows: 2, Cols: 1<<31 - 1, Indptr: []int64{0, 1, 2}, Ind: []int32{0, 1<<31 - 2}, Val: []float32{1, 2}}
	if _, _, err := Fit(ctx, wide, []float64{-1, 1}, Config{Scale: MaxAbs, MemoryBudget: 64 << 20}); !errors.Is(err, ErrMemory) {
		t.Errorf("max-abs scaling of 2^31−1 features under 64 MiB: %v, want ErrMemory", err)
	}
	// A fixed scaling narrower than the rows.
	narrow := Config{Scaling: &Scaling{Kind: MaxAbs, Factor: []float32{1, 1}}}
	if _, _, err := Fit(ctx, X, y, narrow); !errors.Is(err, ErrDim) {
		t.Errorf("rows wider than the scaling: %v, want ErrDim", err)
	}
}

// Warm spreads a model that lists its columns into all Dim features, and
// a start from it scores as the model does.
func TestModelWarmColumns(t *testing.T) {
	m := &Model{Classes: []float64{1, 2, 3}, Dim: 10, Cols: []int32{2, 7},
		W: []float32{1, 2, 3, 4, 5, 6}, B: []float32{0.5, -0.5, 0}}
	if err := m.Check(); err != nil {
		t.Fatal(err)
	}
	w, err := m.Warm()
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float32, 30)
	copy(want[2*3:], []float32{1, 2, 3})
	copy(want[7*3:], []float32{4, 5, 6})
	for i := range want {
		if w.W[i] != want[i] {
			t.Fatalf("Warm weights %v, want %v", w.W, want)
		}
	}
	if w.Dim != 10 || w.N != 0 || w.U != nil || w.B[0] != 0.5 || w.B[1] != -0.5 {
		t.Errorf("Warm = %+v", w)
	}
	back, err := w.Model(Config{Algorithm: Plain})
	if err != nil {
		t.Fatal(err)
	}
	x := sparse.Vector{Ind: []int32{2, 7, 9}, Val: []float32{1, -2, 3}}
	a, b := m.Scores(x, nil), back.Scores(x, nil)
	for k := range a {
		if a[k] != b[k] {
			t.Errorf("class %d: the model scores %v, its warm state %v", k, a[k], b[k])
		}
	}
	v := &Model{Algorithm: Voted, Classes: []float64{-1, 1}, Dim: 1, W: []float32{0}, B: []float32{0}, Votes: &Votes{SV: &sparse.CSR{Cols: 1, Indptr: []int64{0}}}}
	if _, err := v.Warm(); !errors.Is(err, ErrConfig) {
		t.Errorf("Warm of a voted model: %v, want ErrConfig", err)
	}
}
