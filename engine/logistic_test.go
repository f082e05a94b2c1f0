package engine

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

// sgdTiny is two rows, x1 = (2, 0) of label +1 and x2 = (0, 1) of label
// −1, visited in that order: with λ = 1 (t0 = 1) the steps are
// η1 = 1/2 and η2 = 1/3, small enough to follow by hand.
func sgdTiny() (*sparse.CSR, []float64) {
	return sparse.FromDense([][]float32{{2, 0}, {0, 1}}), []float64{1, -1}
}

// sgdWant checks a binary model's weights and bias against values
// computed by hand.
func sgdWant(t *testing.T, what string, m *Model, w0, w1, b float64) {
	t.Helper()
	for i, p := range [][2]float64{{float64(m.W[0]), w0}, {float64(m.W[1]), w1}, {float64(m.B[0]), b}} {
		if math.Abs(p[0]-p[1]) > 1e-6 {
			t.Errorf("%s: parameter %d = %.7f, want %.7f (w %v, b %v)", what, i, p[0], p[1], m.W, m.B)
		}
	}
}

// TestLogisticStepByHand follows two steps of logistic regression, whose
// offset is t0 = 10·λ^(−3/4) = 10 at λ = 1, so η1 = 1/11 and η2 = 1/12:
//
//	t = 1: margin 0, g = σ(0) = 1/2, w1 = η1·g·x1 = (1/11, 0), b1 = 1/22
//	t = 2: margin −(w1·x2 + b1) = −1/22, g = 1/(1 + e^(−1/22)),
//	       w2 = (1 − λη2)·w1 − η2·g·x2 = (1/12, −g/12),
//	       b2 = (11/12)·b1 − g/12 = 1/24 − g/12
//
// and the average of w1 and w2 for the averaged model.
func TestLogisticStepByHand(t *testing.T) {
	X, y := sgdTiny()
	g := 1 / (1 + math.Exp(-1.0/22))
	cfg := Config{Rule: Logistic, Alpha: 1, Epochs: 1, NoShuffle: true, Algorithm: Plain}
	m, _ := fxFit(t, X, y, cfg)
	sgdWant(t, "plain", m, 1.0/12, -g/12, 1.0/24-g/12)
	cfg.Algorithm = Averaged
	m, _ = fxFit(t, X, y, cfg)
	sgdWant(t, "averaged", m, (1.0/11+1.0/12)/2, -g/24, (1.0/22+1.0/24-g/12)/2)
}

// TestModifiedHuberStepByHand follows two steps of the modified Huber
// rule:
//
//	t = 1: margin 0, g = 2(1 − 0) = 2, w1 = η1·2·x1 = (2, 0), b1 = 1
//	t = 2: margin −(0 + 1) = −1, g = 2(1 + 1) = 4,
//	       w2 = (2/3)·w1 − (4/3)·x2 = (4/3, −4/3), b2 = 2/3 − 4/3
//
// and a third row, x1 again at margin (8/3 − 2/3) = 2 ≥ 1, where the
// loss is flat: the weights only shrink, by 1 − 1/4.
func TestModifiedHuberStepByHand(t *testing.T) {
	X, y := sgdTiny()
	cfg := Config{Rule: ModifiedHuber, Alpha: 1, Epochs: 1, NoShuffle: true, Algorithm: Plain}
	m, _ := fxFit(t, X, y, cfg)
	sgdWant(t, "two rows", m, 4.0/3, -4.0/3, -2.0/3)

	X3 := sparse.FromDense([][]float32{{2, 0}, {0, 1}, {2, 0}})
	m, _ = fxFit(t, X3, []float64{1, -1, 1}, cfg)
	sgdWant(t, "three rows", m, 1, -1, -0.5)
}

// TestLogisticSoftmaxStep checks the multiclass step by hand: the first
// example scores every class 0, so p = (1/3, 1/3, 1/3), and with η1 = 1/11
// (λ = 1, t0 = 10) the true class gains η1·(2/3)·x and the others lose
// η1·(1/3)·x.
func TestLogisticSoftmaxStep(t *testing.T) {
	X := sparse.FromDense([][]float32{{3, 0}})
	L, err := NewLearner([]float64{1, 2, 3}, 2, Config{Rule: Logistic, Alpha: 1, Algorithm: Plain})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := L.Learn(X.Row(0), 2); err != nil {
		t.Fatal(err)
	}
	m := L.Model()
	// Feature-major: W[j·K+k].
	want := []float64{-1.0 / 11, 2.0 / 11, -1.0 / 11, 0, 0, 0}
	for i, w := range want {
		if math.Abs(float64(m.W[i])-w) > 1e-6 {
			t.Fatalf("W = %v, want %v", m.W, want)
		}
	}
	for k, b := range []float64{-1.0 / 33, 2.0 / 33, -1.0 / 33} {
		if math.Abs(float64(m.B[k])-b) > 1e-6 {
			t.Fatalf("B = %v, want -1/33, 2/33, -1/33", m.B)
		}
	}
}

// TestLogisticMatchesDirectSGD checks the scaled weights and the lazy
// average against SGD written out on dense float64 weights, step by step,
// over epochs of random data, binary and multiclass: a fit of 3 epochs
// averages the weights after every example of its last 2 (see
// state.startEpoch).
func TestLogisticMatchesDirectSGD(t *testing.T) {
	for _, K := range []int{2, 4} {
		X, y := fxIntMulti(3, 60, 8, 3, K, 0.2)
		if K == 2 {
			X, y = fxIntBinary(3, 60, 8, 3, 0.2)
		}
		const lambda = 0.05
		const epochs = 3
		cfg := Config{Rule: Logistic, Alpha: lambda, Epochs: epochs, NoShuffle: true}
		m, _ := fxFit(t, X, y, cfg)
		classes := m.Classes
		R := weightRows(classes)
		dim := X.Cols
		w := make([]float64, (dim+1)*R) // the last row: the biases
		avg := make([]float64, len(w))
		t0 := 10 * math.Pow(lambda, -0.75) // logistic regression's offset
		n, n0 := 0, 0
		for e := range epochs {
			if e == epochs/2 {
				// The average restarts: it holds the weights after the
				// examples from here on.
				clear(avg)
				n0 = n
			}
			for i := range X.Rows {
				n++
				eta := 1 / (lambda * (float64(n) + t0))
				x := X.Row(i)
				score := func(k int) float64 {
					s := w[dim*R+k]
					for p, j := range x.Ind {
						s += w[int(j)*R+k] * float64(x.Val[p])
					}
					return s
				}
				c := 0
				for ; classes[c] != y[i]; c++ {
				}
				step := make([]float64, R)
				if R == 1 {
					yy := -1.0
					if c == 1 {
						yy = 1
					}
					step[0] = yy / (1 + math.Exp(yy*score(0)))
				} else {
					z, e := 0.0, make([]float64, R)
					for k := range R {
						e[k] = math.Exp(score(k))
						z += e[k]
					}
					for k := range R {
						step[k] = -e[k] / z
					}
					step[c]++
				}
				for q := range w {
					w[q] *= 1 - lambda*eta
				}
				for k := range R {
					for p, j := range x.Ind {
						w[int(j)*R+k] += eta * step[k] * float64(x.Val[p])
					}
					w[dim*R+k] += eta * step[k]
				}
				for q := range w {
					avg[q] += (w[q] - avg[q]) / float64(n-n0)
				}
			}
		}
		for q, v := range avg[:dim*R] {
			if math.Abs(float64(m.W[q])-v) > 1e-4*(1+math.Abs(v)) {
				t.Fatalf("K=%d: W[%d] = %v, direct SGD %v", K, q, m.W[q], v)
			}
		}
		for k := range R {
			if v := avg[dim*R+k]; math.Abs(float64(m.B[k])-v) > 1e-4*(1+math.Abs(v)) {
				t.Fatalf("K=%d: B[%d] = %v, direct SGD %v", K, k, m.B[k], v)
			}
		}
	}
}

// TestRestartAverage checks the lazy average of the SGD rules after
// restartAverage, which sets the accumulators to h·v rather than
// clearing them: the model must be the mean of the weights after each
// example since the restart, written out from v after every step. The
// restart falls mid-pass, at no epoch boundary, since the algebra does
// not need one; it covers the binary step, the multiclass pair step
// (modified Huber) and the softmax step (logistic), and the moment right
// after a restart, when no example has been averaged yet and the model
// is the weights of that moment.
func TestRestartAverage(t *testing.T) {
	for _, c := range []struct {
		rule Rule
		K    int
	}{{Logistic, 2}, {Logistic, 4}, {ModifiedHuber, 2}, {ModifiedHuber, 3}, {Pegasos, 3}} {
		X, y := fxIntMulti(5, 90, 12, 4, c.K, 0.2)
		if c.K == 2 {
			X, y = fxIntBinary(5, 90, 12, 4, 0.2)
		}
		s, err := Config{Rule: c.rule, Alpha: 0.02}.settle()
		if err != nil {
			t.Fatal(err)
		}
		classes, err := classesOf(y, s.maxClass)
		if err != nil {
			t.Fatal(err)
		}
		st := newState(s, classes, X.Cols, fxRNG(1))
		R := st.K
		// now returns the weights and biases of this moment,
		// v/(λ(c+t0)).
		now := func() []float64 {
			d := s.lambda * (st.c + s.t0)
			out := make([]float64, 0, len(st.w)+R)
			for _, v := range append(append([]float32(nil), st.w...), st.b...) {
				out = append(out, float64(v)/d)
			}
			return out
		}
		check := func(what string, want []float64) {
			t.Helper()
			m := st.model()
			got := append(append([]float32(nil), m.W...), m.B...)
			for q, v := range want {
				if math.Abs(float64(got[q])-v) > 1e-5*(1+math.Abs(v)) {
					t.Fatalf("%v K=%d %s: parameter %d = %v, want %v", c.rule, c.K, what, q, got[q], v)
				}
			}
		}
		var mean []float64
		n := 0
		for e := range 3 {
			for i := range X.Rows {
				if e == 1 && i == 37 {
					st.restartAverage()
					check("right after the restart", now())
					mean, n = make([]float64, len(st.w)+R), 0
				}
				x := X.Row(i)
				k := 0
				for ; classes[k] != y[i]; k++ {
				}
				st.step(x.Ind, x.Val, 1, k, 1, -1)
				if mean != nil {
					n++
					for q, v := range now() {
						mean[q] += (v - mean[q]) / float64(n)
					}
				}
			}
		}
		check("after 2 epochs less 37 examples", mean)
	}
}

// TestLogisticProba checks a logistic model's probabilities: the logistic
// of the binary score, the softmax of the multiclass scores, the same
// after a round trip through the model file; and that other rules'
// models refuse Proba.
func TestLogisticProba(t *testing.T) {
	Xb, yb := fxIntBinary(7, 200, 20, 4, 0.1)
	Xm, ym := fxIntMulti(7, 200, 20, 4, 3, 0.1)
	for _, c := range []struct {
		X *sparse.CSR
		y []float64
	}{{Xb, yb}, {Xm, ym}} {
		m, _ := fxFit(t, c.X, c.y, Config{Rule: Logistic, Epochs: 3, Alpha: 1e-3})
		if !m.Probabilistic() {
			t.Fatal("a logistic model is not Probabilistic")
		}
		bin, err := m.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var back Model
		if err := back.UnmarshalBinary(bin); err != nil {
			t.Fatal(err)
		}
		if back.Rule != Logistic || !back.Probabilistic() {
			t.Fatalf("reloaded rule %v", back.Rule)
		}
		fxSameModel(t, "reloaded", m, &back)
		for i := range c.X.Rows {
			x := c.X.Row(i)
			p, err := m.Proba(x, nil)
			if err != nil {
				t.Fatal(err)
			}
			q, _ := back.Proba(x, nil)
			var want []float64
			if m.Binary() {
				s := float64(m.Decision(x))
				p1 := 1 / (1 + math.Exp(-s))
				want = []float64{1 - p1, p1}
			} else {
				s := m.Scores(x, nil)
				z := 0.0
				for _, v := range s {
					z += math.Exp(float64(v))
				}
				for _, v := range s {
					want = append(want, math.Exp(float64(v))/z)
				}
			}
			for k := range want {
				if math.Abs(p[k]-want[k]) > 1e-9 || p[k] != q[k] {
					t.Fatalf("row %d: Proba %v, reloaded %v, want %v", i, p, q, want)
				}
			}
			if best := m.Predict(x); m.Classes[argmaxF64(p)] != best {
				t.Fatalf("row %d: most probable class %v, Predict %v", i, m.Classes[argmaxF64(p)], best)
			}
		}
	}
	for _, r := range []Rule{Perceptron, PA2, Pegasos, ModifiedHuber} {
		m, _ := fxFit(t, Xb, yb, Config{Rule: r, Epochs: 2})
		if _, err := m.Proba(Xb.Row(0), nil); !errors.Is(err, ErrNoProba) || m.Probabilistic() {
			t.Errorf("%v: Proba gave %v, want ErrNoProba", r, err)
		}
	}
}

func argmaxF64(p []float64) int {
	b := 0
	for k, v := range p {
		if v > p[b] {
			b = k
		}
	}
	return b
}

// TestSGDRulesRefusals checks that the new rules are refused where
// Pegasos is: on several workers, from a warm state, in a Mix, by the
// kernel and the multi-label learners; and that Alpha is theirs.
func TestSGDRulesRefusals(t *testing.T) {
	X, y := fxIntBinary(1, 50, 10, 3, 0)
	ctx := context.Background()
	for _, r := range []Rule{Logistic, ModifiedHuber} {
		if !r.SGD() {
			t.Errorf("%v is not SGD", r)
		}
		for _, cfg := range []Config{{Rule: r, Workers: 2}, {Rule: r, LearningRate: 0.5}, {Rule: r, C: 1}, {Rule: r, Algorithm: Voted}} {
			if _, _, err := Fit(ctx, X, y, cfg); !errors.Is(err, ErrConfig) {
				t.Errorf("Fit(%+v) = %v, want ErrConfig", cfg, err)
			}
		}
		if _, _, err := Fit(ctx, X, y, Config{Rule: r, Alpha: 0.1}); err != nil {
			t.Errorf("%v with Alpha: %v", r, err)
		}
		L, err := NewLearner([]float64{-1, 1}, 10, Config{Rule: r})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := L.Mix(); !errors.Is(err, ErrConfig) {
			t.Errorf("%v: Mix gave %v", r, err)
		}
		warm := &Mix{Classes: []float64{-1, 1}, Dim: 10, W: make([]float32, 10), B: make([]float32, 1), U: make([]float64, 10), UB: make([]float64, 1)}
		if err := (Config{Rule: r, Warm: warm}).Check(); !errors.Is(err, ErrConfig) {
			t.Errorf("%v: Warm gave %v", r, err)
		}
		if err := (KernelConfig{Config: Config{Rule: r}}).Check(); !errors.Is(err, ErrConfig) {
			t.Errorf("%v: kernel gave %v", r, err)
		}
	}
	for r, want := range map[Rule]float64{Pegasos: DefaultAlpha, Logistic: DefaultLogisticAlpha, ModifiedHuber: DefaultModifiedHuberAlpha} {
		if s, err := (Config{Rule: r}).settle(); err != nil || s.lambda != want {
			t.Errorf("%v: default λ %v (%v), want %v", r, s.lambda, err, want)
		}
	}
	for _, r := range []Rule{Perceptron, PA, PA1, PA2} {
		if r.SGD() {
			t.Errorf("%v is SGD", r)
		}
	}
}

// TestSGDRulesLearn checks that both new rules learn a separable problem,
// binary and multiclass, sparse and dense rows, normalized or not.
func TestSGDRulesLearn(t *testing.T) {
	for _, K := range []int{2, 3} {
		X, y := fxDenseSeparable(9, 300, 6, K, 1)
		for _, r := range []Rule{Logistic, ModifiedHuber} {
			for _, norm := range []bool{false, true} {
				m, _ := fxFit(t, X, y, Config{Rule: r, Normalize: norm, Epochs: 20, Alpha: 1e-3})
				wrong := 0
				for i := range X.Rows {
					if m.Predict(X.Row(i)) != y[i] {
						wrong++
					}
				}
				if wrong > X.Rows/50 {
					t.Errorf("%v K=%d normalize=%v: %d of %d training rows wrong", r, K, norm, wrong, X.Rows)
				}
			}
		}
	}
}

// TestModifiedHuberGain checks −ℓ' of the modified Huber loss on each of
// its three pieces and at their joins, where it is continuous.
func TestModifiedHuberGain(t *testing.T) {
	for _, c := range [][2]float64{{2, 0}, {1, 0}, {0.5, 1}, {0, 2}, {-0.5, 3}, {-1, 4}, {-3, 4}} {
		if g := float64(modifiedHuberGain(float32(c[0]), 1)); g != c[1] {
			t.Errorf("gain(%v) = %v, want %v", c[0], g, c[1])
		}
	}
	for _, c := range [][2]float64{{0, 0.5}, {math.Log(3), 0.25}, {-800, 1}, {800, 0}} {
		if g := float64(logisticGain(float32(c[0]), 1)); math.Abs(g-c[1]) > 1e-7 {
			t.Errorf("logistic gain(%v) = %v, want %v", c[0], g, c[1])
		}
	}
}

// TestSGDRulesInterleaved: a binary averaged learner of a new rule trains
// on the interleaved layout (stepWU) to the model of the separate arrays
// (step), bit for bit, as the other rules do.
func TestSGDRulesInterleaved(t *testing.T) {
	defer func(v int) { interleaveBytes = v }(interleaveBytes)
	X, y := fxIntBinary(43, 400, 3000, 20, 0.1)
	for _, cfg := range []Config{{Rule: Logistic}, {Rule: Logistic, Normalize: true}, {Rule: ModifiedHuber, Alpha: 1e-3}} {
		interleaveBytes = 1 << 62
		ref, _ := fxFit(t, X, y, cfg)
		interleaveBytes = 0
		got, _ := fxFit(t, X, y, cfg)
		fxSameModel(t, cfg.Rule.String(), ref, got)
	}
}

// TestRuleDefaultEpochs checks each rule's default number of epochs: a
// Config with Epochs 0 settles on Rule.DefaultEpochs (30 for Logistic, 10
// for the others, and for a rule out of range), one with Epochs set keeps
// it, and a fit of the default runs that many epochs (an SGD rule never
// stops early) to the model that Epochs set to that number gives, its
// average restarted at the same epoch.
func TestRuleDefaultEpochs(t *testing.T) {
	want := map[Rule]int{Perceptron: 10, PA: 10, PA1: 10, PA2: 10, Pegasos: 10, Logistic: 30, ModifiedHuber: 10}
	for r := Rule(0); r <= lastRule; r++ {
		if got := r.DefaultEpochs(); got != want[r] {
			t.Errorf("%v.DefaultEpochs() = %d, want %d", r, got, want[r])
		}
		if s, err := (Config{Rule: r}).settle(); err != nil || s.epochs != want[r] {
			t.Errorf("%v: Epochs 0 settled on %d epochs (%v), want %d", r, s.epochs, err, want[r])
		}
		if s, err := (Config{Rule: r, Epochs: 3}).settle(); err != nil || s.epochs != 3 {
			t.Errorf("%v: Epochs 3 settled on %d epochs (%v)", r, s.epochs, err)
		}
	}
	if got := (lastRule + 1).DefaultEpochs(); got != 10 {
		t.Errorf("an unknown rule's default: %d epochs, want 10", got)
	}
	X, y := fxIntBinary(5, 90, 12, 4, 0.2)
	for _, r := range []Rule{Logistic, ModifiedHuber, Pegasos} {
		m, stats := fxFit(t, X, y, Config{Rule: r})
		ref, _ := fxFit(t, X, y, Config{Rule: r, Epochs: want[r]})
		if len(stats) != want[r] {
			t.Errorf("%v: the default ran %d epochs, want %d", r, len(stats), want[r])
		}
		if !slices.Equal(m.W, ref.W) || !slices.Equal(m.B, ref.B) {
			t.Errorf("%v: the default's model differs from Epochs %d's", r, want[r])
		}
	}
}
