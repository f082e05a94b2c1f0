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

// fxScaledRows returns X with row i multiplied by 2^(i%5 − 2): the same
// directions at other lengths. Powers of two scale every product, sum,
// square and square root exactly, so a learner that normalizes rows must
// see exactly the same rows.
func fxScaledRows(X *sparse.CSR) *sparse.CSR {
	n := *X
	n.Val = make([]float32, len(X.Val))
	for i := range n.Rows {
		f := float32(math.Ldexp(1, i%5-2))
		for k := n.Indptr[i]; k < n.Indptr[i+1]; k++ {
			n.Val[k] = X.Val[k] * f
		}
	}
	return &n
}

// fxNormalized returns a copy of X with every row scaled to unit norm.
func fxNormalized(X *sparse.CSR) *sparse.CSR {
	n := *X
	n.Val = append([]float32(nil), X.Val...)
	n.NormalizeRows()
	return &n
}

// TestNormalize checks Config.Normalize: Fit learns the same model from
// rows of any length in the same direction, close to the one it learns
// without it from rows normalized by hand, leaves the caller's data alone,
// and the model scales the rows it scores on every prediction path.
func TestNormalize(t *testing.T) {
	Xb, yb := fxIntBinary(61, 400, 40, 6, 0.1)
	Xm, ym := fxIntMulti(62, 400, 40, 6, 4, 0.1)
	for _, d := range []struct {
		name string
		X    *sparse.CSR
		y    []float64
	}{{"binary", Xb, yb}, {"multiclass", Xm, ym}} {
		for _, cfg := range []Config{{}, {Algorithm: Plain}, {Rule: PA2}, {Rule: Pegasos}, {Rule: PA1, Workers: 2}, {Algorithm: Batch}} {
			name := d.name + "/" + cfg.Algorithm.String() + "/" + cfg.Rule.String()
			t.Run(name, func(t *testing.T) {
				before := append([]float32(nil), d.X.Val...)
				cfg.Epochs, cfg.Normalize = 4, true
				m, _ := fxFit(t, d.X, d.y, cfg)
				for k, v := range d.X.Val {
					if math.Float32bits(v) != math.Float32bits(before[k]) {
						t.Fatalf("Fit changed the caller's value %d", k)
					}
				}
				if !m.Normalize {
					t.Fatal("model does not record Normalize")
				}
				scaled := fxScaledRows(d.X)
				ms, _ := fxFit(t, scaled, d.y, cfg)
				fxSameModel(t, "Normalize on rows of other lengths", ms, m)
				// Rows normalized by hand round differently (x·(1/‖x‖)
				// against (w·x)·(1/‖x‖)), so their model is close, not
				// equal.
				byHand := fxNormalized(d.X)
				plain := cfg
				plain.Normalize = false
				want, _ := fxFit(t, byHand, d.y, plain)
				scale, worst := 0.0, 0.0
				for k := range m.W {
					scale = max(scale, math.Abs(float64(want.W[k])))
					worst = max(worst, math.Abs(float64(m.W[k]-want.W[k])))
				}
				if worst > 1e-3*scale {
					t.Fatalf("weights differ from those learned on rows normalized by hand by %v (largest %v)", worst, scale)
				}

				// Every path scores x as (W·x)/‖x‖ + B, and a scaled row
				// exactly the same.
				K := m.NumRows()
				var s, ss []float32
				for i := range d.X.Rows {
					x, xs := d.X.Row(i), scaled.Row(i)
					s, ss = m.Scores(x, s), m.Scores(xs, ss)
					var nn float64
					for _, v := range x.Val {
						nn += float64(v) * float64(v)
					}
					for k := range K {
						want := float64(m.B[k])
						for q, j := range x.Ind {
							want += float64(m.W[int(j)*K+k]) * float64(x.Val[q]) / math.Sqrt(nn)
						}
						if math.Abs(float64(s[k])-want) > 1e-5*(1+math.Abs(want)) || ss[k] != s[k] {
							t.Fatalf("row %d class %d: score %v, scaled row %v, want %v", i, k, s[k], ss[k], want)
						}
					}
					dense := make([]float32, d.X.Cols)
					for q, j := range x.Ind {
						dense[j] = x.Val[q]
					}
					if a, b := m.Decision(x), m.DecisionDense(dense); math.Abs(float64(a-b)) > 1e-5*(1+math.Abs(float64(a))) {
						t.Fatalf("row %d: Decision %v, DecisionDense %v", i, a, b)
					}
					if m.Predict(x) != m.PredictDense(dense) {
						t.Fatalf("row %d: Predict and PredictDense disagree", i)
					}
				}
				dec := m.DecisionBatch(d.X, nil)
				pred := m.PredictBatch(d.X, nil)
				for i := range d.X.Rows {
					if dec[i] != m.Decision(d.X.Row(i)) || pred[i] != m.Predict(d.X.Row(i)) {
						t.Fatalf("row %d: batch %v/%v, single %v/%v", i, dec[i], pred[i], m.Decision(d.X.Row(i)), m.Predict(d.X.Row(i)))
					}
				}
				// A row of norm 0 scores the biases.
				s = m.Scores(sparse.Vector{Dim: d.X.Cols}, s)
				for k := range K {
					if s[k] != m.B[k] {
						t.Fatalf("empty row: score %v, bias %v", s[k], m.B[k])
					}
				}
			})
		}
	}
}

// TestNormalizeOtherPaths checks that FitCache and the Learner normalize
// as Fit does (the same models, in file order), that the model files keep
// the flag, that the margin diagnostics measure the rows the model sees
// (radius 1), and that the voted perceptron refuses it.
func TestNormalizeOtherPaths(t *testing.T) {
	X, y := fxIntMulti(63, 700, 50, 7, 3, 0.1)
	for _, cfg := range []Config{{NoShuffle: true, Epochs: 3, Normalize: true}, {Rule: PA2, NoShuffle: true, Epochs: 3, Normalize: true}} {
		t.Run(cfg.Rule.String(), func(t *testing.T) {
			want, _ := fxFit(t, X, y, cfg)
			for _, block := range []int{2000, 1 << 22} { // streamed, resident
				c, _ := fxCache(t, X, y, block)
				got, _, err := FitCache(context.Background(), c, cfg)
				if err != nil {
					t.Fatal(err)
				}
				fxSameModel(t, "FitCache vs Fit, normalized", got, want)
				if !got.Normalize {
					t.Fatal("FitCache's model does not record Normalize")
				}
			}
			l := fxLearner(t, want.Classes, X.Cols, cfg)
			for range 3 {
				if _, err := l.PartialFit(context.Background(), X, y); err != nil {
					t.Fatal(err)
				}
			}
			fxSameModel(t, "Learner vs Fit, normalized", l.Model(), want)

			for _, roundTrip := range []func(*Model) (*Model, error){
				func(m *Model) (*Model, error) {
					b, err := m.MarshalBinary()
					var d Model
					if err == nil {
						err = d.UnmarshalBinary(b)
					}
					return &d, err
				},
				func(m *Model) (*Model, error) {
					b, err := m.MarshalJSON()
					var d Model
					if err == nil {
						err = d.UnmarshalJSON(b)
					}
					return &d, err
				},
			} {
				d, err := roundTrip(want)
				if err != nil {
					t.Fatal(err)
				}
				if !d.Normalize {
					t.Fatal("a model file lost Normalize")
				}
				fxSameModel(t, "round trip", d, want)
			}
			ms, err := Margins(want, X, y)
			if err != nil {
				t.Fatal(err)
			}
			if ms.Radius != 1 {
				t.Fatalf("radius %v of a normalizing model, want 1", ms.Radius)
			}
		})
	}
	if _, _, err := Fit(context.Background(), X, y, Config{Algorithm: Voted, Normalize: true}); !errors.Is(err, ErrConfig) {
		t.Fatalf("voted with Normalize: %v, want ErrConfig", err)
	}
}

// TestNormalizeEdges: a model that normalizes rows says so in its JSON
// version (a reader of version 1 would drop the field and score rows
// unnormalized), and a row too short for float32 to scale to unit length
// counts as a row of norm 0 instead of making the weights infinite.
func TestNormalizeEdges(t *testing.T) {
	X, y := fxIntBinary(64, 100, 10, 3, 0)
	for _, norm := range []bool{false, true} {
		t.Run(fmt.Sprintf("normalize=%v", norm), func(t *testing.T) {
			m, _ := fxFit(t, X, y, Config{Rule: PA2, Normalize: norm, Epochs: 2})
			js, err := m.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			want := `"version":1,`
			if norm {
				want = `"version":2,`
			}
			if !strings.Contains(string(js), want) {
				t.Errorf("Normalize %v: JSON %.80s…, want %s", norm, js, want)
			}
		})
	}
	tiny := sparse.NewBuilder(2)
	for _, r := range [][]float32{{1, 1}, {1e-39, 1e-39}, {-1, 0.5}, {-1e-39, 2e-39}} {
		if err := tiny.Add([]int32{0, 1}, r); err != nil {
			t.Fatal(err)
		}
	}
	ty := []float64{1, 1, -1, -1}
	TX := tiny.Build()
	for r := Perceptron; r <= lastRule; r++ {
		t.Run(r.String(), func(t *testing.T) {
			m, _ := fxFit(t, TX, ty, Config{Rule: r, Normalize: true, Epochs: 3})
			for i := range 4 {
				if d := m.Decision(TX.Row(i)); math.IsInf(float64(d), 0) || math.IsNaN(float64(d)) {
					t.Fatalf("%v: row %d scores %v", r, i, d)
				}
			}
		})
	}
}
