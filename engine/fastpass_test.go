package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

// fxFractional returns X with every value multiplied by a fraction that
// depends on its position, so that sums round (integer rows add exactly
// and would hide a change in the order of the arithmetic).
func fxFractional(X *sparse.CSR) *sparse.CSR {
	Y := *X
	Y.Val = slices.Clone(X.Val)
	for k := range Y.Val {
		Y.Val[k] *= 0.1 + float32(k%13)/7
	}
	return &Y
}

// TestBinaryPassSameModel: the fused binary pass trains the same model
// bit for bit, with the same epoch statistics, as the general pass that
// steps example by example, for every option it runs under, on integer
// and on fractional rows, with the weights in separate arrays and on the
// interleaved layout.
func TestBinaryPassSameModel(t *testing.T) {
	Xi, y := fxIntBinary(41, 700, 500, 20, 0.1)
	data := map[string]*sparse.CSR{"integer": Xi, "fractional": fxFractional(Xi)}
	cfgs := map[string]Config{
		"default":      {},
		"seeded":       {Seed: 9, Epochs: 6},
		"margin, lr":   {Margin: 0.5, LearningRate: 0.3},
		"init":         {InitScale: 0.1, Seed: 3},
		"augmented":    {Bias: BiasAugmented, BiasScale: 2},
		"no bias":      {Bias: NoBias},
		"validation":   {Validation: 0.2, Patience: 2, Epochs: 12},
		"no shuffle":   {NoShuffle: true},
		"train loss":   {TrainLoss: true},
		"2 workers":    {Workers: 2},
		"plain":        {Algorithm: Plain},
		"plain margin": {Algorithm: Plain, Margin: 1},
	}
	oldIlv := interleaveBytes
	defer func() { fusedBinary, interleaveBytes = true, oldIlv }()
	layouts := map[string]int{"separate": 1 << 62, "interleaved": 0}
	for ln, ilvBytes := range layouts {
		for dn, X := range data {
			for name, cfg := range cfgs {
				t.Run(ln+"/"+dn+"/"+name, func(t *testing.T) {
					interleaveBytes = ilvBytes
					fusedBinary = false
					ref, refStats := fxFit(t, X, y, cfg)
					fusedBinary = true
					got, gotStats := fxFit(t, X, y, cfg)
					fxSameModel(t, name, ref, got)
					if len(refStats) != len(gotStats) {
						t.Fatalf("%d epochs vs %d", len(refStats), len(gotStats))
					}
					for e := range refStats {
						a, b := refStats[e], gotStats[e]
						if a.Mistakes != b.Mistakes || a.Updates != b.Updates || math.Float64bits(a.TrainLoss) != math.Float64bits(b.TrainLoss) {
							t.Fatalf("epoch %d: %+v vs %+v", e+1, a, b)
						}
					}
				})
			}
		}
	}
}

// TestBinaryPassChosen: the fused pass is taken by the plain and averaged
// binary perceptrons and by no learner whose step does more.
func TestBinaryPassChosen(t *testing.T) {
	sw := []float64{1}
	cases := []struct {
		name    string
		cfg     Config
		classes int
		sw      []float64
		want    bool
	}{
		{"averaged", Config{}, 2, nil, true},
		{"plain", Config{Algorithm: Plain}, 2, nil, true},
		{"margin", Config{Margin: 0.5}, 2, nil, true},
		{"multiclass", Config{}, 3, nil, false},
		{"sample weights", Config{}, 2, sw, false},
		{"class weights", Config{ClassWeight: map[float64]float64{1: 2}}, 2, nil, false},
		{"normalize", Config{Normalize: true}, 2, nil, false},
		{"PA-II", Config{Rule: PA2}, 2, nil, false},
		{"voted", Config{Algorithm: Voted}, 2, nil, false},
	}
	for _, c := range cases {
		classes := make([]float64, c.classes)
		for k := range classes {
			classes[k] = float64(k)
		}
		s, err := c.cfg.settle()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		st := newState(s, classes, 10, fxRNG(1))
		if c.cfg.ClassWeight != nil {
			st.cw = []float32{1, 2}
		}
		if got := st.plainBinary(c.sw); got != c.want {
			t.Errorf("%s: plainBinary %v, want %v", c.name, got, c.want)
		}
	}
}

// fxCounts returns X with every value replaced by its absolute value:
// non-negative integers, as term counts are, which pack.
func fxCounts(X *sparse.CSR) *sparse.CSR {
	Y := *X
	Y.Val = slices.Clone(X.Val)
	for k, v := range Y.Val {
		Y.Val[k] = float32(math.Abs(float64(v)))
	}
	return &Y
}

// fxPackedSame fits X unpacked and packed under cfg and fails unless the
// packed fit ran a pass on packed rows and gave the unpacked model bit
// for bit, with the same mistakes, updates and training loss each epoch.
func fxPackedSame(t *testing.T, name string, X *sparse.CSR, y []float64, cfg Config) {
	t.Helper()
	defer func() { packing = true }()
	packing = false
	ref, refStats := fxFit(t, X, y, cfg)
	packing = true
	before := p32Passes.Load()
	got, gotStats := fxFit(t, X, y, cfg)
	if p32Passes.Load() == before {
		t.Fatalf("%s: no pass ran on packed rows", name)
	}
	fxSameModel(t, name, ref, got)
	for e := range refStats {
		a, b := refStats[e], gotStats[e]
		if a.Mistakes != b.Mistakes || a.Updates != b.Updates || math.Float64bits(a.TrainLoss) != math.Float64bits(b.TrainLoss) {
			t.Fatalf("%s, epoch %d: %+v vs %+v", name, e+1, a, b)
		}
	}
}

// TestPackedRowsSameModel: where an averaged or plain binary learner
// trains on packed rows (the perceptron, and the passive-aggressive rules
// on normalized rows), it trains the model the unpacked rows give, bit
// for bit, with the same statistics; rows that do not pack (fractional or
// negative values) and the learners that do not use the packed passes are
// left alone.
func TestPackedRowsSameModel(t *testing.T) {
	Xi, y := fxIntBinary(43, 800, 3000, 40, 0.1)
	Xc := fxCounts(Xi)
	cfgs := map[string]Config{
		"default":    {},
		"seeded":     {Seed: 11, Epochs: 7},
		"margin, lr": {Margin: 0.5, LearningRate: 0.3},
		"augmented":  {Bias: BiasAugmented, BiasScale: 2},
		"no bias":    {Bias: NoBias},
		"validation": {Validation: 0.2, Patience: 2, Epochs: 12},
		"no shuffle": {NoShuffle: true},
		"train loss": {TrainLoss: true},
		"2 workers":  {Workers: 2},
		"3 workers":  {Workers: 3, Seed: 5},
		// Normalized rows: the scale multiplies the packed counts' dot
		// product and the step, as it does the unpacked values'.
		"perceptron, normalized":   {Normalize: true},
		"PA-II, normalized":        {Rule: PA2, Normalize: true},
		"PA-II, normalized, C 0.1": {Rule: PA2, Normalize: true, C: 0.1, Workers: 2},
		"PA-I, normalized":         {Rule: PA1, Normalize: true, C: 0.05},
		"PA, normalized":           {Rule: PA, Normalize: true, Bias: NoBias},
		// The plain learner: its update fuses the multiply and the add
		// on the SIMD tiers, packed or not.
		"plain":                         {Algorithm: Plain},
		"plain, margin, lr":             {Algorithm: Plain, Margin: 0.5, LearningRate: 0.1, Seed: 3},
		"plain, 2 workers":              {Algorithm: Plain, Workers: 2},
		"plain, validation":             {Algorithm: Plain, Validation: 0.2, Patience: 2, Epochs: 12},
		"plain, perceptron, normalized": {Algorithm: Plain, Normalize: true},
		"plain, PA-II, normalized":      {Algorithm: Plain, Rule: PA2, Normalize: true, C: 0.1},
		"plain, PA-I, normalized":       {Algorithm: Plain, Rule: PA1, Normalize: true, C: 0.05},
	}
	for name, cfg := range cfgs {
		t.Run(name, func(t *testing.T) { fxPackedSame(t, name, Xc, y, cfg) })
	}
	// What does not pack, or trains otherwise, runs no packed pass.
	for name, c := range map[string]struct {
		X   *sparse.CSR
		cfg Config
	}{
		"negative values":   {Xi, Config{}},
		"fractional values": {fxFractional(Xc), Config{}},
		"voted":             {Xc, Config{Algorithm: Voted}},
		"plain, PA-II":      {Xc, Config{Algorithm: Plain, Rule: PA2}},
		"PA-II":             {Xc, Config{Rule: PA2}},
		"Pegasos":           {Xc, Config{Rule: Pegasos, Normalize: true}},
		"sample weights":    {Xc, Config{SampleWeight: make([]float64, Xc.Rows)}},
	} {
		before := p32Passes.Load()
		fxFit(t, c.X, y, c.cfg)
		if p32Passes.Load() != before {
			t.Errorf("%s: a pass ran on packed rows", name)
		}
	}
}

// TestPackedRowsChecked: a learner that packs its rows checks them as it
// packs them, and gives Validate's error for a bad row, wherever the row
// lies (also in the second part of a matrix checked on two goroutines):
// an index out of range or out of order, a value that is not finite. A
// value that is finite but does not pack (a fraction) trains on the
// unpacked rows, to their model. A warm start wider than the rows does
// not widen what their indices may be.
func TestPackedRowsChecked(t *testing.T) {
	for _, rows := range []int{300, 1<<19/3 + 50} {
		Xi, y := fxIntBinary(53, rows, 400, 6, 0.1)
		X := fxCounts(Xi)
		if X.Indptr[X.Rows] < 1<<19 && rows > 300 {
			t.Fatalf("%d values: not enough for two parts", X.Indptr[X.Rows])
		}
		for _, at := range []int{0, rows / 2, rows - 1} {
			for _, c := range []struct {
				what   string
				change func(ind []int32, val []float32)
				want   []error
			}{
				{"index past the columns", func(ind []int32, val []float32) { ind[len(ind)-1] = 400 }, []error{ErrDim, sparse.ErrIndexRange}},
				{"negative index", func(ind []int32, val []float32) { ind[0] = -1 }, []error{ErrDim, sparse.ErrIndexRange}},
				{"repeated index", func(ind []int32, val []float32) { ind[1] = ind[0] }, []error{ErrDim, sparse.ErrIndexOrder}},
				{"NaN", func(ind []int32, val []float32) { val[1] = float32(math.NaN()) }, []error{ErrDiverged, sparse.ErrValue}},
				{"infinity", func(ind []int32, val []float32) { val[0] = float32(math.Inf(1)) }, []error{ErrDiverged, sparse.ErrValue}},
			} {
				B := *X
				B.Ind, B.Val = slices.Clone(X.Ind), slices.Clone(X.Val)
				i := at
				for B.Indptr[i+1]-B.Indptr[i] < 2 {
					i++
				}
				a, b := B.Indptr[i], B.Indptr[i+1]
				c.change(B.Ind[a:b], B.Val[a:b])
				_, _, err := Fit(context.Background(), &B, y, Config{})
				for _, w := range c.want {
					if !errors.Is(err, w) {
						t.Fatalf("%d rows, %s in row %d: error %v, want %v", rows, c.what, i, err, w)
					}
				}
				if want := B.Validate(); err == nil || want == nil || !strings.Contains(err.Error(), want.Error()) {
					t.Fatalf("%d rows, %s in row %d: error %v, Validate's %v", rows, c.what, i, err, want)
				}
			}
		}
	}

	// A fraction: valid, trained unpacked.
	Xi, y := fxIntBinary(59, 300, 400, 6, 0.1)
	X := fxCounts(Xi)
	F := *X
	F.Val = slices.Clone(X.Val)
	F.Val[len(F.Val)/2] += 0.5
	defer func() { packing = true }()
	packing = false
	ref, _ := fxFit(t, &F, y, Config{})
	packing = true
	before := p32Passes.Load()
	got, _ := fxFit(t, &F, y, Config{})
	if p32Passes.Load() != before {
		t.Fatal("rows with a fraction ran a packed pass")
	}
	fxSameModel(t, "a fraction", ref, got)

	// A warm start of 500 features: an index of 450 is still out of the
	// rows' 400 columns.
	W := *X
	W.Ind = slices.Clone(X.Ind)
	W.Ind[X.Indptr[1]-1] = 450
	warm := zeroWarm(500)
	if _, _, err := Fit(context.Background(), &W, y, Config{Warm: warm}); !errors.Is(err, sparse.ErrIndexRange) {
		t.Fatalf("index 450 of 400 columns under a warm start of 500: error %v", err)
	}
}

// TestRowsCheckedBeforeCompaction: rows wide enough that Fit first reads
// their indices to find the used columns are checked before that, also
// under a warm start of zeros that widens them.
func TestRowsCheckedBeforeCompaction(t *testing.T) {
	defer func(v int64) { compactMinBytes = v }(compactMinBytes)
	compactMinBytes = 1 << 10
	Xi, y := fxIntBinary(61, 200, 5000, 4, 0.1)
	X := fxCounts(Xi)
	bad := *X
	bad.Ind = slices.Clone(X.Ind)
	bad.Ind[X.Indptr[3]-1] = 5000
	if _, _, err := Fit(context.Background(), &bad, y, Config{}); !errors.Is(err, sparse.ErrIndexRange) {
		t.Fatalf("index 5000 of 5000 columns: error %v", err)
	}
	bad.Ind[X.Indptr[3]-1] = 5100
	warm := zeroWarm(6000)
	if _, _, err := Fit(context.Background(), &bad, y, Config{Warm: warm}); !errors.Is(err, sparse.ErrIndexRange) {
		t.Fatalf("index 5100 of 5000 columns under a warm start of 6000: error %v", err)
	}
	if _, _, err := Fit(context.Background(), X, y, Config{Warm: warm}); err != nil {
		t.Fatalf("valid rows under the warm start: %v", err)
	}
}

// TestPackedRowsBeatInterleaving: weights large enough for the
// interleaved layout train on the packed rows instead when the rows pack,
// to the interleaved layout's model bit for bit (the packed and the
// stride-4 kernels sum in the same order).
func TestPackedRowsBeatInterleaving(t *testing.T) {
	defer func(v int) { interleaveBytes = v }(interleaveBytes)
	interleaveBytes = 4 << 10
	Xi, y := fxIntBinary(67, 600, 5000, 30, 0.1)
	X := fxCounts(Xi)
	for name, cfg := range map[string]Config{
		"default":           {},
		"margin, 2 workers": {Margin: 0.5, Workers: 2},
		"PA-II, normalized": {Rule: PA2, Normalize: true},
	} {
		fxPackedSame(t, name, X, y, cfg)
	}
}

// TestFewEpochsDoNotPack: a fit of fewer than packMinEpochs epochs trains
// on the rows as they are (to the packed fit's model) and still checks
// them.
func TestFewEpochsDoNotPack(t *testing.T) {
	Xi, y := fxIntBinary(71, 300, 400, 6, 0.1)
	X := fxCounts(Xi)
	for e := 1; e <= packMinEpochs; e++ {
		before := p32Passes.Load()
		got, _ := fxFit(t, X, y, Config{Epochs: e})
		if packed := p32Passes.Load() != before; packed != (e >= packMinEpochs) {
			t.Fatalf("%d epochs: packed passes %v", e, packed)
		}
		packing = false
		ref, _ := fxFit(t, X, y, Config{Epochs: e})
		packing = true
		fxSameModel(t, fmt.Sprint(e, " epochs"), ref, got)
	}
	bad := *X
	bad.Ind = slices.Clone(X.Ind)
	bad.Ind[X.Indptr[5]-1] = 400
	if _, _, err := Fit(context.Background(), &bad, y, Config{Epochs: 1}); !errors.Is(err, sparse.ErrIndexRange) {
		t.Fatalf("index 400 of 400 columns, 1 epoch: error %v", err)
	}
}

// TestPackedPassPastCheckEvery: a packed pass longer than checkEvery rows
// runs past the rows at which it checks its context, to the model of the
// unpacked pass; and a cancelled context stops it at the first of them
// with the context's error.
func TestPackedPassPastCheckEvery(t *testing.T) {
	Xi, y := fxIntBinary(47, 2*checkEvery+100, 50, 3, 0.1)
	Xc := fxCounts(Xi)
	fxPackedSame(t, "past checkEvery", Xc, y, Config{Epochs: packMinEpochs})

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s, err := Config{}.settle()
	if err != nil {
		t.Fatal(err)
	}
	st := newState(s, []float64{-1, 1}, Xc.Cols, rand.New(rand.NewPCG(1, 2)))
	f := fitter{st: st, X: Xc, cls: make([]int32, Xc.Rows)}
	if err := f.packRows(&s, false); err != nil || f.p32 == nil {
		t.Fatal("the rows did not pack")
	}
	defer f.releaseRows()
	order := make([]int32, Xc.Rows)
	for i := range order {
		order[i] = int32(i)
	}
	ps, err := f.pass(ctx, st, order)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled pass: error %v", err)
	}
	if want := float64(checkEvery - 1); st.c != want || ps.mistakes > checkEvery-1 {
		t.Fatalf("cancelled pass stopped after %v rows (%d mistakes), want %v", st.c, ps.mistakes, want)
	}
}

// zeroWarm is a binary warm start of zero weights over dim features: it
// changes nothing but the width the model may have.
func zeroWarm(dim int) *Mix {
	return &Mix{Classes: []float64{-1, 1}, Dim: dim, W: make([]float32, dim), B: make([]float32, 1), U: make([]float64, dim), UB: make([]float64, 1)}
}
