package engine

import (
	"math"
	"slices"
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

// TestPackedRowsSameModel: where an averaged binary learner trains on
// packed rows (the perceptron, and the passive-aggressive rules on
// normalized rows), it trains the model the unpacked rows give, bit for
// bit, with the same statistics; rows that do not pack (fractional or
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
	}
	defer func() { packing = true }()
	for name, cfg := range cfgs {
		t.Run(name, func(t *testing.T) {
			packing = false
			ref, refStats := fxFit(t, Xc, y, cfg)
			packing = true
			before := p32Passes.Load()
			got, gotStats := fxFit(t, Xc, y, cfg)
			if p32Passes.Load() == before {
				t.Fatalf("no pass ran on packed rows")
			}
			fxSameModel(t, name, ref, got)
			for e := range refStats {
				a, b := refStats[e], gotStats[e]
				if a.Mistakes != b.Mistakes || a.Updates != b.Updates || math.Float64bits(a.TrainLoss) != math.Float64bits(b.TrainLoss) {
					t.Fatalf("epoch %d: %+v vs %+v", e+1, a, b)
				}
			}
		})
	}
	// What does not pack, or trains otherwise, runs no packed pass.
	for name, c := range map[string]struct {
		X   *sparse.CSR
		cfg Config
	}{
		"negative values":   {Xi, Config{}},
		"fractional values": {fxFractional(Xc), Config{}},
		"plain":             {Xc, Config{Algorithm: Plain}},
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
