package engine

import (
	"fmt"
	"math"
	"testing"

	"github.com/hyperplane-ml/hyperplane/kernels"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// ---------------------------------------------------------------------
// 2. The averaged dual perceptron is the explicit average.

// TestKernelAveragedMatchesReference compares FitKernel with the slow
// reference that recomputes every function value from scratch: the same
// mistakes in the same order, the same epoch counts, and coefficients and
// biases within one float32 ulp of the explicit averages (last values for
// Plain: exact). The polynomial kernel (x·z+1)² on integer features keeps
// every kernel value and function value an exact integer in float32; the
// RBF cases compare trajectories that float32 rounding could in principle
// flip, and report the closest tie met.
func TestKernelAveragedMatchesReference(t *testing.T) {
	poly := kernels.Poly{Degree: 2, Coef0: 1}
	type tc struct {
		name   string
		X      *sparse.CSR
		y      []float64
		kern   kernels.Kernel
		cfg    KernelConfig
		exact  bool
		expect string // "converge": training must stop early
	}
	Xb, yb := ktIntData(41, 150, 25, 5, 2, 0.15, 0)
	X3, y3 := ktIntData(42, 150, 25, 5, 3, 0.15, 0)
	Xsep, ysep := ktIntData(43, 120, 20, 4, 2, 0, 4)
	Xsep3, ysep3 := ktIntData(44, 120, 20, 4, 3, 0, 4)
	Xf, yf := ktFloatData(45, 150, 8, 1, 2, 0.1)
	Xf3, yf3 := ktFloatData(46, 150, 8, 1, 3, 0.1)
	cases := []tc{
		{name: "poly-binary", X: Xb, y: yb, kern: poly, cfg: KernelConfig{Config: Config{Epochs: 6, Seed: 1}}, exact: true},
		{name: "poly-binary-plain", X: Xb, y: yb, kern: poly, cfg: KernelConfig{Config: Config{Algorithm: Plain, Epochs: 6, Seed: 1}}, exact: true},
		{name: "poly-binary-noshuffle-augmented", X: Xb, y: yb, kern: poly, cfg: KernelConfig{Config: Config{Epochs: 5, NoShuffle: true, Bias: BiasAugmented, BiasScale: 2}}, exact: true},
		{name: "poly-binary-nobias-margin", X: Xb, y: yb, kern: poly, cfg: KernelConfig{Config: Config{Epochs: 5, Seed: 3, Bias: NoBias, Margin: 40}}, exact: true},
		{name: "poly-binary-classweight", X: Xb, y: yb, kern: poly, cfg: KernelConfig{Config: Config{Epochs: 5, Seed: 4, ClassWeight: map[float64]float64{1: 0.5}, LearningRate: 2}}, exact: true},
		{name: "poly-K3", X: X3, y: y3, kern: poly, cfg: KernelConfig{Config: Config{Epochs: 5, Seed: 2}}, exact: true},
		{name: "poly-K3-plain-margin-augmented", X: X3, y: y3, kern: poly, cfg: KernelConfig{Config: Config{Algorithm: Plain, Epochs: 5, Seed: 2, Margin: 30, Bias: BiasAugmented, BiasScale: 0.5}}, exact: true},
		{name: "poly-binary-converges", X: Xsep, y: ysep, kern: poly, cfg: KernelConfig{Config: Config{Epochs: 60, Seed: 5}}, exact: true, expect: "converge"},
		{name: "poly-K3-converges", X: Xsep3, y: ysep3, kern: poly, cfg: KernelConfig{Config: Config{Epochs: 60, Seed: 6}}, exact: true, expect: "converge"},
		{name: "linear-binary-converges-plain", X: Xsep, y: ysep, kern: kernels.Linear{}, cfg: KernelConfig{Config: Config{Algorithm: Plain, Epochs: 60, Seed: 5}}, exact: true, expect: "converge"},
		{name: "rbf-binary", X: Xf, y: yf, kern: kernels.RBF{Gamma: 0.5}, cfg: KernelConfig{Config: Config{Epochs: 5, Seed: 7}}},
		{name: "rbf-K3", X: Xf3, y: yf3, kern: kernels.RBF{Gamma: 0.5}, cfg: KernelConfig{Config: Config{Epochs: 5, Seed: 8}}},
		// Balanced weights n/(k·n_c) are not exact in float32: the
		// coefficients are compared to a tolerance.
		{name: "poly-K3-balanced", X: X3, y: y3, kern: poly, cfg: KernelConfig{Config: Config{Epochs: 4, Seed: 9, Balanced: true, ClassWeight: map[float64]float64{2: 2}}}},
		{name: "poly-binary-balanced-plain", X: Xb, y: yb, kern: poly, cfg: KernelConfig{Config: Config{Algorithm: Plain, Epochs: 4, Seed: 9, Balanced: true}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := c.cfg
			cfg.Kernel = c.kern
			classes, cls := ktClasses(c.y)
			rc := ktRefCfg{K: len(classes), Epochs: cfg.Epochs, Tau: float32(cfg.Margin), Seed: cfg.Seed, NoShuffle: cfg.NoShuffle, Eta: float32(cfg.LearningRate)}
			switch cfg.Bias {
			case BiasSeparate:
				rc.BB = 1
			case BiasAugmented:
				rc.BB = float32(cfg.BiasScale) * float32(cfg.BiasScale)
			}
			if cfg.ClassWeight != nil || cfg.Balanced {
				count := make([]int, len(classes))
				for _, c := range cls {
					count[c]++
				}
				rc.CW = make([]float32, len(classes))
				for i, l := range classes {
					w := 1.0
					if v, ok := cfg.ClassWeight[l]; ok {
						w = v
					}
					if cfg.Balanced {
						w *= float64(len(cls)) / float64(len(classes)*count[i])
					}
					rc.CW[i] = float32(w)
				}
			}
			ref := ktRefRun(c.kern, c.X, cls, rc)
			if c.exact && ref.maxAbs >= 1<<23 {
				t.Fatalf("%s: function values reach %v: the test data are no longer exact in float32", c.name, ref.maxAbs)
			}
			var m *KernelModel
			var stats []KernelEpochStats
			got := ktTrace(t, func() { m, stats = ktFit(t, c.X, c.y, cfg) })
			if !c.exact {
				t.Logf("%s: %d mistakes; closest margin to a decision in the reference: %.3g", c.name, len(ref.mistakes), ref.minAbs)
			}
			ktSameSeq(t, c.name+": FitKernel vs reference", got, ref.mistakes)
			ktCompareStats(t, c.name, stats, ref)
			coef := ktCoefByRow(t, m, c.X)
			switch {
			case cfg.Balanced:
				// The sums of inexact weights round differently in float32
				// and float64: compare to the scale of the coefficients.
				want, wantB := ref.avg, ref.avgB
				if cfg.Algorithm == Plain {
					want, wantB = ref.alpha, ref.b
				}
				scale := 0.0
				for _, v := range ref.alpha {
					scale = max(scale, math.Abs(v))
				}
				for _, v := range ref.b {
					scale = max(scale, math.Abs(v))
				}
				for i := range coef {
					if math.Abs(float64(coef[i])-want[i]) > 1e-5*scale {
						t.Fatalf("%s: Coef[%d] = %v, reference %v (scale %v)", c.name, i, coef[i], want[i], scale)
					}
				}
				for k := range m.B {
					if math.Abs(float64(m.B[k])-wantB[k]) > 1e-5*scale {
						t.Fatalf("%s: B[%d] = %v, reference %v (scale %v)", c.name, k, m.B[k], wantB[k], scale)
					}
				}
			case cfg.Algorithm == Plain:
				ktCompare(t, c.name+": plain Coef", coef, ref.alpha, 0)
				ktCompare(t, c.name+": plain B", m.B, ref.b, 0)
			default:
				ktCompare(t, c.name+": averaged Coef", coef, ref.avg, 1)
				ktCompare(t, c.name+": averaged B", m.B, ref.avgB, 1)
			}
			if c.expect != "converge" {
				if len(stats) != cfg.Epochs {
					t.Errorf("%s: ran %d of %d epochs; the case meant to run them all", c.name, len(stats), cfg.Epochs)
				}
				return
			}
			// Training stopped after an epoch without updates; the model must be
			// the average over all cfg.Epochs epochs (checked above against a
			// reference that ran them all), which differs from the model of a
			// run of exactly the epochs needed: that one averages fewer
			// examples, and matches a reference of that many epochs.
			e := len(stats)
			if e >= cfg.Epochs || stats[e-1].Updates != 0 {
				t.Fatalf("%s: expected convergence before epoch %d; ran %d, last updates %d", c.name, cfg.Epochs, e, stats[e-1].Updates)
			}
			if cfg.Algorithm == Plain {
				short := cfg
				short.Epochs = e
				ms, _ := ktFit(t, c.X, c.y, short)
				ktSameModel(t, c.name+": plain model stopped early vs run of exactly the epochs needed", m, ms)
				return
			}
			short := cfg
			short.Epochs = e
			ms, sst := ktFit(t, c.X, c.y, short)
			if len(sst) != e {
				t.Fatalf("%s: the run of %d epochs ran %d", c.name, e, len(sst))
			}
			rs := rc
			rs.Epochs = e
			refShort := ktRefRun(c.kern, c.X, cls, rs)
			ktCompare(t, c.name+": averaged Coef of exactly the epochs needed", ktCoefByRow(t, ms, c.X), refShort.avg, 1)
			ktCompare(t, c.name+": averaged B of exactly the epochs needed", ms.B, refShort.avgB, 1)
			differ := false
			for i := range m.Coef {
				if i < len(ms.Coef) && m.Coef[i] != ms.Coef[i] {
					differ = true
				}
			}
			if !differ {
				t.Errorf("%s: the model of %d epochs (stopped at %d) equals the one of exactly %d: the epochs left did not count", c.name, cfg.Epochs, e, e)
			}
			if ref.T != int64(cfg.Epochs)*int64(c.X.Rows) {
				t.Errorf("%s: reference saw %d examples", c.name, ref.T)
			}
		})
	}
}

// ---------------------------------------------------------------------
// 3. The voted dual perceptron is an explicit vote.

// TestKernelVotedMatchesReference rebuilds every function the voted
// perceptron went through (the reference keeps a copy of α and b after
// every update, with the examples it survived) and votes with them on
// training rows and fresh rows: Decision (binary), Scores (multiclass
// shares) and Predict must agree with that vote, the steps must count every
// example (the epochs left after convergence included), and Coef and B
// must hold the averages.
func TestKernelVotedMatchesReference(t *testing.T) {
	poly := kernels.Poly{Degree: 2, Coef0: 1}
	type tc struct {
		name string
		K    int
		sep  bool
		kern kernels.Kernel
		cfg  KernelConfig
	}
	cases := []tc{
		{"poly-binary", 2, false, poly, KernelConfig{Config: Config{Epochs: 4, Seed: 3}}},
		{"poly-K3", 3, false, poly, KernelConfig{Config: Config{Epochs: 4, Seed: 4}}},
		{"linear-K4-nobias", 4, false, kernels.Linear{}, KernelConfig{Config: Config{Epochs: 3, Seed: 5, Bias: NoBias}}},
		{"poly-binary-augmented-noshuffle", 2, false, poly, KernelConfig{Config: Config{Epochs: 3, NoShuffle: true, Bias: BiasAugmented, BiasScale: 2}}},
		{"poly-binary-converges", 2, true, poly, KernelConfig{Config: Config{Epochs: 40, Seed: 6}}},
		{"poly-K3-converges", 3, true, poly, KernelConfig{Config: Config{Epochs: 40, Seed: 7}}},
	}
	for ci, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			gap, noise := 0.0, 0.15
			if c.sep {
				gap, noise = 4, 0
			}
			X, y := ktIntData(51+uint64(ci), 120, 20, 4, c.K, noise, gap)
			fresh, _ := ktIntData(151+uint64(ci), 60, 20, 4, c.K, 0, 0)
			cfg := c.cfg
			cfg.Kernel = c.kern
			cfg.Algorithm = Voted
			classes, cls := ktClasses(y)
			rc := ktRefCfg{K: len(classes), Epochs: cfg.Epochs, BB: 1, Seed: cfg.Seed, NoShuffle: cfg.NoShuffle, Voted: true}
			switch cfg.Bias {
			case NoBias:
				rc.BB = 0
			case BiasAugmented:
				rc.BB = float32(cfg.BiasScale * cfg.BiasScale)
			}
			ref := ktRefRun(c.kern, X, cls, rc)
			if ref.maxAbs >= 1<<23 {
				t.Fatalf("%s: values reach %v, not exact in float32", c.name, ref.maxAbs)
			}
			var m *KernelModel
			var stats []KernelEpochStats
			got := ktTrace(t, func() { m, stats = ktFit(t, X, y, cfg) })
			ktSameSeq(t, c.name, got, ref.mistakes)
			ktCompareStats(t, c.name, stats, ref)
			if c.sep && len(stats) == cfg.Epochs {
				t.Errorf("%s: meant to converge early, ran all %d epochs", c.name, cfg.Epochs)
			}
			v := m.Votes
			if v == nil {
				t.Fatalf("%s: voted model without votes", c.name)
			}
			total := v.Count0
			for _, s := range v.Steps {
				total += s.Count
			}
			if total != ref.T || int64(len(v.Steps)) != int64(len(ref.vecs)-1) {
				t.Fatalf("%s: votes count %d examples in %d steps; reference %d examples, %d updates", c.name, total, len(v.Steps), ref.T, len(ref.vecs)-1)
			}
			ktCompare(t, c.name+": voted Coef (averages)", ktCoefByRow(t, m, X), ref.avg, 1)
			ktCompare(t, c.name+": voted B (averages)", m.B, ref.avgB, 1)
			var scores []float32
			check := func(where string, x sparse.Vector) {
				kx := make([]float64, X.Rows)
				for j := range kx {
					kx[j] = c.kern.Sparse(X.Row(j), x)
				}
				want := ref.vote(kx)
				scores = m.Scores(x, scores)
				for k := range want {
					if math.Abs(float64(scores[k])-want[k]) > 1e-6 {
						t.Fatalf("%s: %s: Scores %v, explicit vote %v", c.name, where, scores, want)
					}
				}
				d := m.Decision(x)
				p := m.Predict(x)
				if len(want) == 1 {
					if math.Abs(float64(d)-want[0]) > 1e-6 {
						t.Fatalf("%s: %s: Decision %v, explicit vote %v", c.name, where, d, want[0])
					}
					wantLabel := classes[0]
					if want[0] > 0 {
						wantLabel = classes[1]
					}
					if p != wantLabel {
						t.Fatalf("%s: %s: Predict %v, vote %v says %v", c.name, where, p, want[0], wantLabel)
					}
					return
				}
				b := ktArgmax(want)
				if p != classes[b] || math.Abs(float64(d)-want[b]) > 1e-6 {
					t.Fatalf("%s: %s: Predict %v Decision %v, vote shares %v say %v", c.name, where, p, d, want, classes[b])
				}
			}
			for i := range X.Rows {
				check(fmt.Sprintf("training row %d", i), X.Row(i))
			}
			for i := range fresh.Rows {
				check(fmt.Sprintf("fresh row %d", i), fresh.Row(i))
			}
		})
	}
}
