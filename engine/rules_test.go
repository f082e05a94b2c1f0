package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/kernels"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// Tests of the large-margin update rules (PA, PA1, PA2, Pegasos) against
// explicit references: the references keep dense float64 weights, apply
// every step as the papers write it (Pegasos scales all weights on every
// example) and average by summing the weights after every example. The
// engine's lazy forms must give the same models.

// rlRef is a reference run's result.
type rlRef struct {
	W, Wlast [][]float64 // class-major, K rows (1 for binary)
	B, Blast []float64
	Updates  []int // per epoch
}

// rlRefRun trains the explicit reference of rule on X (labels as class
// indices, K classes) for epochs passes in row order, with a separate
// bias of gain 1 (BiasSeparate).
func rlRefRun(X *sparse.CSR, cls []int, K, epochs int, s settings) rlRef {
	R := K
	if K == 2 {
		R = 1
	}
	w := make([][]float64, R)
	sum := make([][]float64, R)
	for k := range w {
		w[k] = make([]float64, X.Cols)
		sum[k] = make([]float64, X.Cols)
	}
	b, sumB := make([]float64, R), make([]float64, R)
	ref := rlRef{}
	t := 0
	for range epochs {
		updates := 0
		for i := range X.Rows {
			t++
			x := X.Row(i)
			dot := func(k int) float64 {
				d := b[k]
				for q, j := range x.Ind {
					d += w[k][j] * float64(x.Val[q])
				}
				return d
			}
			sq := 1.0 // the bias's constant feature
			for _, v := range x.Val {
				sq += float64(v) * float64(v)
			}
			// The margin and the two rows an update moves (down −1 for a
			// binary model, whose one row moves by y).
			var m, y float64
			up, down := 0, -1
			n := 1.0
			if R == 1 {
				y = -1
				if cls[i] == 1 {
					y = 1
				}
				m = y * dot(0)
			} else {
				s := make([]float64, R)
				for k := range R {
					s[k] = dot(k)
				}
				// The first of the best other classes. The engine's
				// scores are exact here (Pegasos) or rounded alike (PA);
				// this one's rescaled weights are not, so scores within
				// rounding of each other count as tied.
				r := -1
				for k := range R {
					if k != cls[i] && (r < 0 || s[k] > s[r]+1e-9*(math.Abs(s[r])+1)) {
						r = k
					}
				}
				m, y, up, down, n = s[cls[i]]-s[r], 1, cls[i], r, 2
			}
			var tau float64
			upd := false
			if s.Rule == Pegasos {
				eta := 1 / (s.lambda * (float64(t) + s.t0))
				for k := range R {
					for j := range w[k] {
						w[k][j] *= 1 - s.lambda*eta
					}
					b[k] *= 1 - s.lambda*eta
				}
				if m <= 1 {
					upd, tau = true, eta
				}
			} else if l := 1 - m; l > 0 {
				q := n * sq
				switch s.Rule {
				case PA:
					tau = l / q
				case PA1:
					tau = min(float64(s.cAgg), l/q)
				case PA2:
					tau = l / (q + 1/(2*float64(s.cAgg)))
				}
				upd = true
			}
			if upd {
				updates++
				for q, j := range x.Ind {
					w[up][j] += tau * y * float64(x.Val[q])
					if down >= 0 {
						w[down][j] -= tau * float64(x.Val[q])
					}
				}
				b[up] += tau * y
				if down >= 0 {
					b[down] -= tau
				}
			}
			for k := range R {
				for j := range w[k] {
					sum[k][j] += w[k][j]
				}
				sumB[k] += b[k]
			}
		}
		ref.Updates = append(ref.Updates, updates)
	}
	ref.W, ref.B = make([][]float64, R), make([]float64, R)
	for k := range R {
		ref.W[k] = make([]float64, X.Cols)
		for j := range sum[k] {
			ref.W[k][j] = sum[k][j] / float64(t)
		}
		ref.B[k] = sumB[k] / float64(t)
	}
	ref.Wlast, ref.Blast = w, b
	return ref
}

// rlCompare fails unless m's weights are within tol of want's, relative to
// the largest of want's weights.
func rlCompare(t *testing.T, what string, m *Model, W [][]float64, B []float64, tol float64) {
	t.Helper()
	K := m.NumRows()
	scale := 0.0
	for k := range K {
		for _, v := range W[k] {
			scale = max(scale, math.Abs(v))
		}
		scale = max(scale, math.Abs(B[k]))
	}
	if scale == 0 {
		t.Fatalf("%s: the reference's weights are all zero; the test learns nothing", what)
	}
	worst := 0.0
	for k := range K {
		for j := range m.Dim {
			worst = max(worst, math.Abs(float64(m.W[j*K+k])-W[k][j]))
		}
		worst = max(worst, math.Abs(float64(m.B[k])-B[k]))
	}
	if worst > tol*scale {
		t.Fatalf("%s: weights differ from the explicit reference by %g (largest weight %g, tolerance %g)", what, worst, scale, tol*scale)
	}
}

// TestRulesEqualExplicit trains every rule, averaged and plain, binary and
// multiclass, and compares the models and update counts with the explicit
// reference. Integer features keep Pegasos's lazy sums exact (its v only
// ever adds ±x); the PA rules' fractional steps round in float32, hence the
// tolerance.
func TestRulesEqualExplicit(t *testing.T) {
	const epochs = 8
	binX, binY := fxIntBinary(3, 300, 40, 6, 0.1)
	mulX, mulY := fxIntMulti(4, 300, 40, 6, 4, 0.1)
	for _, data := range []struct {
		name string
		X    *sparse.CSR
		y    []float64
	}{{"binary", binX, binY}, {"multiclass", mulX, mulY}} {
		for _, rule := range []Rule{PA, PA1, PA2, Pegasos} {
			for _, cfg := range []Config{
				{Rule: rule},
				{Rule: rule, C: 0.01},
				{Rule: rule, Alpha: 0.05},
			} {
				if (cfg.C != 0 && rule != PA1 && rule != PA2) || (cfg.Alpha != 0 && rule != Pegasos) {
					continue
				}
				cfg.Epochs, cfg.NoShuffle = epochs, true
				t.Run(data.name+"/"+rule.String()+"/"+fxCfgName(cfg), func(t *testing.T) {
					s, err := cfg.settle()
					if err != nil {
						t.Fatal(err)
					}
					classes, _ := classesOf(data.y, 1024)
					ref := rlRefRun(data.X, fxClassIndex(classes, data.y), len(classes), epochs, s)
					avg, stats := fxFit(t, data.X, data.y, cfg)
					if avg.Rule != rule {
						t.Fatalf("model records rule %v, want %v", avg.Rule, rule)
					}
					got := make([]int, len(stats))
					for e, es := range stats {
						got[e] = es.Updates
					}
					if !slices.Equal(got, ref.Updates) {
						t.Fatalf("updates per epoch %v, reference %v", got, ref.Updates)
					}
					if ref.Updates[epochs-1] == 0 {
						t.Fatalf("the last epoch updated nothing: the data are too easy to test the rule")
					}
					// PA's steps round in float32 at every update; Pegasos's
					// lazy sums are exact, and only the model's final
					// float32 rounding remains.
					tol := 1e-4
					if rule == Pegasos {
						tol = 2e-7
					}
					rlCompare(t, "averaged", avg, ref.W, ref.B, tol)
					cfg.Algorithm = Plain
					last, _ := fxFit(t, data.X, data.y, cfg)
					rlCompare(t, "plain", last, ref.Wlast, ref.Blast, tol)
				})
			}
		}
	}
}

// fxCfgName names the parameters of a rule's config for a subtest.
func fxCfgName(c Config) string {
	switch {
	case c.C != 0:
		return "C=" + strconv.FormatFloat(c.C, 'g', -1, 64)
	case c.Alpha != 0:
		return "alpha=" + strconv.FormatFloat(c.Alpha, 'g', -1, 64)
	}
	return "default"
}

// TestPAStepClosedForm checks one update of each PA rule from zero weights
// against the closed form of Crammer et al. (2006): with loss ℓ = 1 and
// ‖x‖² counting the bias feature, PA steps ℓ/‖x‖², PA-I min(C, ℓ/‖x‖²) and
// PA-II ℓ/(‖x‖² + 1/(2C)); after a PA step the margin is exactly 1.
func TestPAStepClosedForm(t *testing.T) {
	x := sparse.Vector{Dim: 8, Ind: []int32{1, 4}, Val: []float32{2, -1}}
	const sq = 2*2 + 1*1 + 1 // the bias's constant feature counts
	for _, tc := range []struct {
		cfg  Config
		want float64
	}{
		{Config{Rule: PA}, 1.0 / sq},
		{Config{Rule: PA1}, 1.0 / sq},
		{Config{Rule: PA1, C: 0.05}, 0.05},
		{Config{Rule: PA2}, 1 / (sq + 0.5)},
		{Config{Rule: PA2, C: 0.25}, 1.0 / (sq + 2)},
	} {
		t.Run(tc.cfg.Rule.String()+"/"+fxCfgName(tc.cfg), func(t *testing.T) {
			tc.cfg.Algorithm = Plain
			l, err := NewLearner([]float64{-1, 1}, 8, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := l.Learn(x, -1); err != nil {
				t.Fatal(err)
			}
			m := l.Model()
			tau := -float64(m.B[0]) // y = −1
			if math.Abs(tau-tc.want) > 1e-7*tc.want {
				t.Fatalf("step %v, want %v", tau, tc.want)
			}
			if got, want := float64(m.W[1]), -2*tc.want; math.Abs(got-want) > 1e-6*math.Abs(want) {
				t.Fatalf("w[1] = %v, want %v", got, want)
			}
			if tc.cfg.Rule == PA {
				if margin := -float64(m.Decision(x)); math.Abs(margin-1) > 1e-6 {
					t.Fatalf("margin after the PA step %v, want 1", margin)
				}
			}
		})
	}
}

// TestPegasosRegretBound checks the online bound behind Pegasos
// (Shalev-Shwartz et al. 2011, Lemma 1, for the step 1/(λ(t+t0))): for
// every comparator u and every T,
//
//	Σ_{t≤T} f_t(w_t) − Σ_{t≤T} f_t(u) ≤ λ·t0/2·‖u‖² + Σ_{t≤T} ‖∇_t‖²/(2λ(t+t0))
//
// where f_t(w) = λ/2·‖w‖² + max(0, 1 − y_t·(w·x_t + b)) (the bias is a
// regularized weight) and ∇_t the sub-gradient the learner stepped
// along. The comparator is the SVM optimum found by dual coordinate
// descent, whose duality gap also bounds how close the averaged model's
// objective comes to the optimum.
func TestPegasosRegretBound(t *testing.T) {
	X, y := fxIntBinary(7, 200, 20, 5, 0.15)
	for _, alpha := range []float64{0.01, 0.1} {
		t.Run(fmt.Sprintf("alpha=%v", alpha), func(t *testing.T) {
			cfg := Config{Rule: Pegasos, Alpha: alpha, Algorithm: Plain}
			s, err := cfg.settle()
			if err != nil {
				t.Fatal(err)
			}
			lambda := s.lambda
			u, ub, lower := rlSVM(X, y, lambda, 3000)
			obj := func(w []float64, b float64, i int) float64 {
				x := X.Row(i)
				d := b
				n := b * b
				for _, v := range w {
					n += v * v
				}
				for q, j := range x.Ind {
					d += w[j] * float64(x.Val[q])
				}
				return lambda/2*n + max(0, 1-y[i]*d)
			}
			full := func(w []float64, b float64) float64 {
				f := 0.0
				for i := range X.Rows {
					f += obj(w, b, i)
				}
				return f / float64(X.Rows)
			}
			l, err := NewLearner([]float64{-1, 1}, X.Cols, cfg)
			if err != nil {
				t.Fatal(err)
			}
			uNorm := ub * ub
			for _, v := range u {
				uNorm += v * v
			}
			var regret, slack float64
			T := 0
			for epoch := 1; epoch <= 10; epoch++ {
				for i := range X.Rows {
					m := l.Model()
					w := make([]float64, X.Cols)
					for j := range w {
						w[j] = float64(m.W[j])
					}
					b := float64(m.B[0])
					T++
					regret += obj(w, b, i) - obj(u, ub, i)
					// The sub-gradient at w_t: λ·w, less y·x on a margin
					// violation (the learner's own rule: margin ≤ 1).
					x := X.Row(i)
					d := b
					for q, j := range x.Ind {
						d += w[j] * float64(x.Val[q])
					}
					g := make([]float64, X.Cols+1)
					for j := range w {
						g[j] = lambda * w[j]
					}
					g[X.Cols] = lambda * b
					if y[i]*d <= 1 {
						for q, j := range x.Ind {
							g[j] -= y[i] * float64(x.Val[q])
						}
						g[X.Cols] -= y[i]
					}
					gn := 0.0
					for _, v := range g {
						gn += v * v
					}
					slack += gn / (2 * lambda * (float64(T) + s.t0))
					if _, err := l.Learn(x, y[i]); err != nil {
						t.Fatal(err)
					}
				}
				bound := lambda*s.t0/2*uNorm + slack
				// float32 weights: allow a relative 1e-5 of the terms.
				if regret > bound*(1+1e-5) {
					t.Fatalf("λ=%v, T=%d: regret %v above the bound %v", alpha, T, regret, bound)
				}
			}
			fOpt := full(u, ub)
			if fOpt-lower > 1e-6*fOpt {
				t.Fatalf("the reference SVM did not converge: primal %v, dual %v", fOpt, lower)
			}
			// The averaged model's objective falls towards the optimum as the
			// epochs grow, and never below the dual bound.
			prev := math.Inf(1)
			for _, epochs := range []int{2, 8, 32, 128} {
				cfg.Algorithm, cfg.Epochs, cfg.NoShuffle = Averaged, epochs, true
				avg, _ := fxFit(t, X, y, cfg)
				w := make([]float64, X.Cols)
				for j := range w {
					w[j] = float64(avg.W[j])
				}
				f := full(w, float64(avg.B[0]))
				t.Logf("λ=%v, %3d epochs: objective of the average %.5g, optimum %.5g", alpha, epochs, f, fOpt)
				if f < lower*(1-1e-6) {
					t.Fatalf("objective %v below the dual bound %v: the objective is miscomputed", f, lower)
				}
				if !(f < prev) {
					t.Fatalf("λ=%v: the objective after %d epochs, %v, is not below the one before, %v", alpha, epochs, f, prev)
				}
				prev = f
			}
			if gap := prev - fOpt; gap > 0.1*fOpt {
				t.Fatalf("λ=%v: after 128 epochs the averaged model's objective %v is %v above the optimum %v", alpha, prev, gap, fOpt)
			}
		})
	}
}

// rlSVM minimizes λ/2·(‖w‖² + b²) + mean(max(0, 1 − y·(w·x + b))) by dual
// coordinate descent (Hsieh et al. 2008) over epochs passes, and returns
// w, b and the dual objective scaled to the primal's units, a lower bound
// on the optimum.
func rlSVM(X *sparse.CSR, y []float64, lambda float64, epochs int) ([]float64, float64, float64) {
	C := 1 / (lambda * float64(X.Rows))
	w := make([]float64, X.Cols)
	b := 0.0
	alpha := make([]float64, X.Rows)
	for range epochs {
		for i := range X.Rows {
			x := X.Row(i)
			d, q := b, 1.0
			for k, j := range x.Ind {
				d += w[j] * float64(x.Val[k])
				q += float64(x.Val[k]) * float64(x.Val[k])
			}
			g := y[i]*d - 1
			a := min(max(alpha[i]-g/q, 0), C)
			if da := a - alpha[i]; da != 0 {
				for k, j := range x.Ind {
					w[j] += da * y[i] * float64(x.Val[k])
				}
				b += da * y[i]
				alpha[i] = a
			}
		}
	}
	n := b * b
	for _, v := range w {
		n += v * v
	}
	dual := -n / 2
	for _, a := range alpha {
		dual += a
	}
	return w, b, lambda * dual
}

// TestRuleConfig checks the rules' settings: defaults, refusals of
// settings that do not apply, and names.
func TestRuleConfig(t *testing.T) {
	X, y := fxIntBinary(1, 50, 10, 3, 0)
	for _, cfg := range []Config{
		{Rule: PA, Algorithm: Voted},
		{Rule: PA1, Algorithm: Batch},
		{Rule: PA1, LearningRate: 0.5},
		{Rule: PA2, Margin: 1},
		{Rule: Pegasos, InitScale: 0.1},
		{Rule: Pegasos, Workers: 2},
		{Rule: PA, C: 1},
		{Rule: Perceptron, C: 1},
		{Rule: PA1, Alpha: 0.1},
		{Rule: PA1, C: -1},
		{Rule: PA1, C: math.NaN()},
		{Rule: Pegasos, Alpha: -1},
		{Rule: Pegasos, Alpha: math.Inf(1)},
		{Rule: lastRule + 1},
	} {
		if _, _, err := Fit(context.Background(), X, y, cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("Fit(%+v) = %v, want ErrConfig", cfg, err)
		}
	}
	s, err := Config{Rule: PA1}.settle()
	if err != nil || s.cAgg != DefaultC {
		t.Fatalf("PA1's C %v (%v), want %v", s.cAgg, err, DefaultC)
	}
	s, err = Config{Rule: Pegasos}.settle()
	if err != nil || s.lambda != DefaultAlpha {
		t.Fatalf("Pegasos's λ %v (%v), want %v", s.lambda, err, DefaultAlpha)
	}
	for r := Perceptron; r <= lastRule; r++ {
		if got, err := ParseRule(r.String()); err != nil || got != r {
			t.Errorf("ParseRule(%q) = %v, %v", r.String(), got, err)
		}
	}
	if _, err := ParseRule("svm"); !errors.Is(err, ErrConfig) {
		t.Errorf("ParseRule(svm) = %v, want ErrConfig", err)
	}
}

// TestRuleModelFiles checks that a model of every rule keeps its rule and
// weights through the binary and JSON forms, and that a perceptron model's
// JSON leaves the rule out as files did before it was recorded.
func TestRuleModelFiles(t *testing.T) {
	X, y := fxIntMulti(5, 120, 12, 4, 3, 0.1)
	for r := Perceptron; r <= lastRule; r++ {
		t.Run(r.String(), func(t *testing.T) {
			m, _ := fxFit(t, X, y, Config{Rule: r, Epochs: 3})
			bin, err := m.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			js, err := m.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			if has := strings.Contains(string(js), `"rule"`); has != (r != Perceptron) {
				t.Errorf("%v: JSON %s", r, js)
			}
			for _, decode := range []func(*Model) error{
				func(d *Model) error { return d.UnmarshalBinary(bin) },
				func(d *Model) error { return d.UnmarshalJSON(js) },
			} {
				var d Model
				if err := decode(&d); err != nil {
					t.Fatalf("%v: %v", r, err)
				}
				if d.Rule != r {
					t.Errorf("%v: read back rule %v", r, d.Rule)
				}
				fxSameModel(t, r.String(), m, &d)
			}
		})
	}
}

// TestKernelPAEqualsPrimal checks the dual passive-aggressive learners:
// with the linear kernel, K(x, x) is ‖x‖², so the dual must make the
// primal reference's updates and reach its scores.
func TestKernelPAEqualsPrimal(t *testing.T) {
	const epochs = 5
	binX, binY := fxIntBinary(8, 150, 30, 5, 0.1)
	mulX, mulY := fxIntMulti(9, 150, 30, 5, 3, 0.1)
	for _, data := range []struct {
		name string
		X    *sparse.CSR
		y    []float64
	}{{"binary", binX, binY}, {"multiclass", mulX, mulY}} {
		for _, rule := range []Rule{PA, PA1, PA2} {
			for _, alg := range []Algorithm{Averaged, Plain} {
				t.Run(data.name+"/"+rule.String()+"/"+alg.String(), func(t *testing.T) {
					cfg := Config{Rule: rule, Epochs: epochs, NoShuffle: true}
					if rule != PA {
						cfg.C = 0.05
					}
					s, err := cfg.settle()
					if err != nil {
						t.Fatal(err)
					}
					classes, _ := classesOf(data.y, 1024)
					ref := rlRefRun(data.X, fxClassIndex(classes, data.y), len(classes), epochs, s)
					km, stats, err := FitKernel(context.Background(), data.X, data.y, KernelConfig{
						Config: Config{Algorithm: alg, Rule: rule, C: cfg.C, Epochs: epochs, NoShuffle: true},
						Kernel: kernels.Linear{}})
					if err != nil {
						t.Fatal(err)
					}
					if km.Rule != rule {
						t.Fatalf("kernel model records rule %v", km.Rule)
					}
					for e, es := range stats {
						if es.Updates != ref.Updates[e] {
							t.Fatalf("epoch %d: %d updates, reference %d", e+1, es.Updates, ref.Updates[e])
						}
					}
					W, B := ref.W, ref.B
					if alg == Plain {
						W, B = ref.Wlast, ref.Blast
					}
					scale, worst := 0.0, 0.0
					var got []float32
					for i := range data.X.Rows {
						x := data.X.Row(i)
						got = km.Scores(x, got)
						for k := range W {
							want := B[k]
							for q, j := range x.Ind {
								want += W[k][j] * float64(x.Val[q])
							}
							scale = max(scale, math.Abs(want))
							worst = max(worst, math.Abs(float64(got[k])-want))
						}
					}
					if worst > 1e-4*scale {
						t.Fatalf("scores differ from the primal reference by %g (largest %g)", worst, scale)
					}
				})
			}
		}
	}
	if _, _, err := FitKernel(context.Background(), binX, binY, KernelConfig{Config: Config{Rule: Pegasos}}); !errors.Is(err, ErrConfig) {
		t.Fatalf("kernel Pegasos: %v, want ErrConfig", err)
	}
	if _, _, err := FitKernel(context.Background(), binX, binY, KernelConfig{Config: Config{Rule: PA1, Algorithm: Voted}}); !errors.Is(err, ErrConfig) {
		t.Fatalf("kernel voted PA-I: %v, want ErrConfig", err)
	}
}

// TestRuleWeights: class and sample weights change every rule's steps;
// for PA, which has no C, they scale the step.
func TestRuleWeights(t *testing.T) {
	X, y := fxIntBinary(65, 60, 12, 4, 0.1)
	sw := make([]float64, len(y))
	for i := range sw {
		sw[i] = float64(1 + i%3)
	}
	for _, r := range []Rule{PA, PA1, PA2, Pegasos} {
		cfg := Config{Rule: r, C: 0.05, Epochs: 2, NoShuffle: true}
		if r == PA || r == Pegasos {
			cfg.C = 0
		}
		base, _ := fxFit(t, X, y, cfg)
		for _, w := range []Config{{ClassWeight: map[float64]float64{1: 3}}, {SampleWeight: sw}} {
			c := cfg
			c.ClassWeight, c.SampleWeight = w.ClassWeight, w.SampleWeight
			m, _ := fxFit(t, X, y, c)
			if slices.Equal(m.W, base.W) && slices.Equal(m.B, base.B) {
				t.Errorf("%v: weights %+v changed nothing", r, w)
			}
		}
	}
	if _, _, err := Fit(context.Background(), X, y, Config{Rule: PA2, C: 1e-35}); !errors.Is(err, ErrConfig) {
		t.Errorf("PA2 with C 1e-35 (1/(2C) past float32): %v, want ErrConfig", err)
	}
}
