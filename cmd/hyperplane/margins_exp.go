package main

import (
	"context"
	"fmt"
	"image/color"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/synth"
)

// The margins experiment: the large-margin learners against the
// perceptron, and each against its mistake bound, on separable data of a
// known margin and on the same data with flipped labels.
//
// Every learner runs through the origin (NoBias) from w = 0 with its last
// weights (Plain), as the theorems assume. The bounds, for points of norm
// at most R and any comparison vector u (here u = s·U for the generator's
// unit separator U and the s that gives the least bound), with the hinge
// loss ℓ_t(u) = max(0, 1 − y_t·u·x_t) summed over the examples seen:
//
//   - perceptron, Freund and Schapire (1999), Theorem 2: for unit U and
//     any γ > 0, mistakes ≤ ((R + D)/γ)² with D² = Σ max(0, γ − y·U·x)²;
//     on separable data with margin γ this is Novikoff's (R/γ)²;
//   - PA, Crammer et al. (2006), Theorem 2: with a u that has no loss,
//     mistakes ≤ ‖u‖²R² (none is given on data no u separates);
//   - PA-I, Theorem 4: mistakes ≤ max(R², 1/C)·(‖u‖² + 2C·Σ ℓ_t(u));
//   - PA-II, Theorem 5: mistakes ≤ (R² + 1/(2C))·(‖u‖² + 2C·Σ ℓ_t(u)²).
//
// The rule of stochastic gradient descent (engine.Rule.SGD), the linear
// SVM, has no mistake bound; it is run for its margin. A run whose
// mistakes exceed its bound is a bug, and the experiment fails.

// marginRules are the learners of the experiment, by the engine's names
// for them (engine.ParseRule): the perceptron, the passive-aggressive
// rules, and the linear SVM of stochastic gradient descent on the hinge
// loss. Each one's column and CSV rows are headed by its name.
var marginRules = parseRules("perceptron", "pa", "pa1", "pa2", "pegasos")

// parseRules returns the rules the engine calls by names, which must be
// its own.
func parseRules(names ...string) []engine.Rule {
	rules := make([]engine.Rule, len(names))
	for i, n := range names {
		r, err := engine.ParseRule(n)
		if err != nil {
			panic(err) // a name in this file that is not the engine's
		}
		rules[i] = r
	}
	return rules
}

// marginSGDRule is the experiment's rule of stochastic gradient descent,
// which stops after marginSGDEpochs epochs on separable data: its weights
// shrink with every example, so an epoch without updates may never come.
func marginSGDRule() engine.Rule {
	for _, r := range marginRules {
		if r.SGD() {
			return r
		}
	}
	panic("the margins experiment has no SGD rule")
}

// marginSGDEpochs is the most epochs marginSGDRule runs on separable data.
const marginSGDEpochs = 20

// marginC is the aggressiveness the PA-I and PA-II runs (and bounds) use.
const marginC = 1.0

// marginRun is one learner's run on one data set.
type marginRun struct {
	sweep    string  // "separable" (x = 1/γ²) or "noisy" (x = label noise)
	x        float64 // the swept value
	seed     uint64
	learner  string
	passes   int
	mistakes int
	bound    float64 // NaN where the learner has none
	margin   float64 // geometric margin of the final weights on the clean labels
}

// marginsExperiment runs the margins experiment over seeds seeds (a
// smaller sweep with quick), checks every run against its bound, and
// writes margins.csv and a table and plots for each sweep into dir.
func marginsExperiment(ctx context.Context, stdout io.Writer, dir string, seeds int, quick bool) error {
	n, gammas, noises := 1000, []float64{0.3, 0.2, 0.1, 0.05}, []float64{0, 0.02, 0.05, 0.1, 0.2}
	if quick {
		n, gammas, noises = 300, []float64{0.3, 0.15}, []float64{0, 0.1}
	}
	var runs []marginRun
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		rs, err := marginSeedRuns(ctx, n, gammas, noises, seed)
		if err != nil {
			return err
		}
		runs = append(runs, rs...)
	}
	for _, r := range runs {
		if float64(r.mistakes) > r.bound { // false for a NaN bound
			return fmt.Errorf("BUG: %s %s=%g seed %d: %d mistakes exceed the bound %.2f", r.learner, r.sweep, r.x, r.seed, r.mistakes, r.bound)
		}
	}
	if err := writeMarginCSV(filepath.Join(dir, "margins.csv"), runs); err != nil {
		return err
	}
	for _, sweep := range []string{"separable", "noisy"} {
		if err := reportMarginSweep(stdout, dir, runs, sweep, n, seeds); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "%d runs, every one within its bound; margins.csv and margins_{separable,noisy}.{svg,png} in %s\n", len(runs), dir)
	return nil
}

// marginSeedRuns makes the data of one seed and runs every learner on
// them: on separable data of n points for each margin of gammas, and on
// 2n points of margin 0.1 with each share of noises of their labels
// flipped.
func marginSeedRuns(ctx context.Context, n int, gammas, noises []float64, seed uint64) ([]marginRun, error) {
	var runs []marginRun
	// Separable: every learner until an epoch makes no update, at most
	// 2000 epochs (marginSGDEpochs for the SGD rule, whose weights never
	// stop shrinking).
	for _, g := range gammas {
		s, err := synth.Separable{N: n, Dim: 20, Margin: g, Radius: 1, Seed: seed}.Generate()
		if err != nil {
			return nil, err
		}
		rs, err := marginRuns(ctx, s, s.Data.Y, "separable", 1/(g*g), seed, 2000)
		if err != nil {
			return nil, err
		}
		runs = append(runs, rs...)
	}
	// Noisy: one pass over data of margin 0.1 with labels flipped.
	s, err := synth.Separable{N: 2 * n, Dim: 20, Margin: 0.1, Radius: 1, Seed: seed}.Generate()
	if err != nil {
		return nil, err
	}
	for _, p := range noises {
		r := rand.New(rand.NewPCG(seed, 77))
		y := make([]float64, len(s.Data.Y))
		for i, v := range s.Data.Y {
			y[i] = v
			if r.Float64() < p {
				y[i] = -v
			}
		}
		rs, err := marginRuns(ctx, s, y, "noisy", p, seed, 1)
		if err != nil {
			return nil, err
		}
		runs = append(runs, rs...)
	}
	return runs, nil
}

// reportMarginSweep prints the table of one sweep ("separable" or
// "noisy"), each learner's mean mistakes, bound and margin at each of its
// settings, and draws them into margins_SWEEP.{svg,png} in dir.
func reportMarginSweep(stdout io.Writer, dir string, runs []marginRun, sweep string, n, seeds int) error {
	xlabel, title := "1/γ²", fmt.Sprintf("Mistakes until no update (≤ 2000 epochs), separable data (n = %d, d = 20, C = %g)", n, marginC)
	if sweep == "noisy" {
		xlabel, title = "label noise", fmt.Sprintf("Mistakes in one pass, margin 0.1, labels flipped (n = %d, d = 20, C = %g)", 2*n, marginC)
	}
	fmt.Fprintf(stdout, "%s (means over %d seeds; bound in parentheses; margin: geometric margin of the final weights on the clean labels)\n", title, seeds)
	fmt.Fprintf(stdout, "%-8s", xlabel)
	for _, rule := range marginRules {
		fmt.Fprintf(stdout, " %22s", rule)
	}
	fmt.Fprintln(stdout)
	xs, mist, bnd := marginMeans(runs, sweep)
	for i, x := range xs {
		fmt.Fprintf(stdout, "%-8.4g", x)
		for k, rule := range marginRules {
			cell := fmt.Sprintf("%.0f", mist[k][i])
			if b := bnd[k][i]; !math.IsNaN(b) {
				cell += fmt.Sprintf(" (%.0f)", b)
			}
			cell += fmt.Sprintf(" %+.3f", marginMean(runs, sweep, x, rule.String()))
			fmt.Fprintf(stdout, " %22s", cell)
		}
		fmt.Fprintln(stdout)
	}
	fmt.Fprintln(stdout)
	return plotMargins(filepath.Join(dir, "margins_"+sweep), title, xlabel, xs, mist, bnd)
}

// marginRuns trains every learner on the points of s with labels y for at
// most passes epochs (separable: until an epoch without updates, which
// PA-II, whose step always leaves some loss, may never reach).
func marginRuns(ctx context.Context, s *synth.SeparableData, y []float64, sweep string, x float64, seed uint64, passes int) ([]marginRun, error) {
	X := s.Data.X
	var out []marginRun
	for _, rule := range marginRules {
		cfg := engine.Config{Algorithm: engine.Plain, Rule: rule, Bias: engine.NoBias, Epochs: passes, Seed: seed}
		if rule == engine.PA1 || rule == engine.PA2 {
			cfg.C = marginC
		}
		if rule.SGD() && passes > 1 {
			cfg.Epochs = marginSGDEpochs
		}
		m, stats, err := engine.Fit(ctx, X, y, cfg)
		if err != nil {
			return nil, err
		}
		r := marginRun{sweep: sweep, x: x, seed: seed, learner: rule.String(), passes: len(stats), bound: math.NaN()}
		for _, e := range stats {
			r.mistakes += e.Mistakes
		}
		ms, err := engine.Margins(m, X, s.Data.Y)
		if err != nil {
			return nil, err
		}
		r.margin = ms.Geometric
		if !rule.SGD() {
			r.bound = mistakeBound(rule, X, y, s.U, s.R, r.passes)
		}
		out = append(out, r)
	}
	return out, nil
}

// mistakeBound returns the least bound of rule's theorem (see the top of
// this file) over comparison vectors s·U, for passes passes over the rows
// of X with labels y, whose norms are at most R. It is NaN for PA on data
// that s·U does not separate.
func mistakeBound(rule engine.Rule, X *sparse.CSR, y []float64, U []float64, R float64, passes int) float64 {
	// m[i] = y_i·U·x_i, the rows' margins under the unit separator.
	m := make([]float64, X.Rows)
	for i := range X.Rows {
		x := X.Row(i)
		var d float64
		for k, j := range x.Ind {
			d += U[j] * float64(x.Val[k])
		}
		m[i] = y[i] * d
	}
	P := float64(passes)
	best := math.Inf(1)
	// The scales s (for the perceptron, γ = 1/s) on a fine geometric grid.
	for s := 0.5; s <= 1e4; s *= 1.02 {
		var l1, l2 float64 // Σ ℓ(u) and Σ ℓ(u)² over one pass, u = s·U
		for _, mi := range m {
			if l := 1 - s*mi; l > 0 {
				l1, l2 = l1+l, l2+l*l
			}
		}
		var b float64
		switch rule {
		case engine.Perceptron:
			// ((R + D)/γ)² with γ = 1/s and D² = Σ max(0, γ − m)² =
			// Σ ℓ(u)²/s² over every example seen.
			g := 1 / s
			b = math.Pow((R+math.Sqrt(P*l2)/s)/g, 2)
		case engine.PA:
			if l1 > 0 {
				continue
			}
			b = s * s * R * R
		case engine.PA1:
			b = math.Max(R*R, 1/marginC) * (s*s + 2*marginC*P*l1)
		case engine.PA2:
			b = (R*R + 1/(2*marginC)) * (s*s + 2*marginC*P*l2)
		}
		best = math.Min(best, b)
	}
	if math.IsInf(best, 1) {
		return math.NaN()
	}
	return best
}

// marginMeans returns a sweep's values and, per learner, the mean
// mistakes and bounds at each.
func marginMeans(runs []marginRun, sweep string) (xs []float64, mist, bnd [][]float64) {
	seen := map[float64]bool{}
	for _, r := range runs {
		if r.sweep == sweep && !seen[r.x] {
			seen[r.x] = true
			xs = append(xs, r.x)
		}
	}
	mist, bnd = make([][]float64, len(marginRules)), make([][]float64, len(marginRules))
	for k, rule := range marginRules {
		for _, x := range xs {
			var m, b, c float64
			for _, r := range runs {
				if r.sweep == sweep && r.x == x && r.learner == rule.String() {
					m, b, c = m+float64(r.mistakes), b+r.bound, c+1
				}
			}
			mist[k], bnd[k] = append(mist[k], m/c), append(bnd[k], b/c)
		}
	}
	return xs, mist, bnd
}

// marginMean is the mean final geometric margin of a learner at one
// setting.
func marginMean(runs []marginRun, sweep string, x float64, learner string) float64 {
	var g, c float64
	for _, r := range runs {
		if r.sweep == sweep && r.x == x && r.learner == learner {
			g, c = g+r.margin, c+1
		}
	}
	return g / c
}

func writeMarginCSV(path string, runs []marginRun) error {
	rows := make([][]string, len(runs))
	f := csvFloat
	for i, r := range runs {
		rows[i] = []string{r.sweep, f(r.x), strconv.FormatUint(r.seed, 10), r.learner, strconv.Itoa(r.passes),
			strconv.Itoa(r.mistakes), f(r.bound), f(r.margin)}
	}
	return writeCSV(path, []string{"sweep", "x", "seed", "learner", "passes", "mistakes", "bound", "geometric_margin"}, rows)
}

// plotMargins draws each learner's mean mistakes (solid) and bound
// (dashed, same colour) against xs, and saves base.svg and base.png.
func plotMargins(base, title, xlabel string, xs []float64, mist, bnd [][]float64) error {
	p := newPlot(title, xlabel, "mistakes")
	p.Legend.Top = true
	p.Legend.Left = true
	p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{}
	for k, rule := range marginRules {
		name := rule.String()
		for _, s := range []struct {
			ys    []float64
			label string
		}{{mist[k], name}, {bnd[k], name + " bound"}} {
			var pts plotter.XYs
			for i, x := range xs {
				if !math.IsNaN(s.ys[i]) {
					pts = append(pts, plotter.XY{X: x, Y: math.Max(s.ys[i], 0.5)})
				}
			}
			if len(pts) == 0 {
				continue
			}
			line, points, err := linePoints(pts, k)
			if err != nil {
				return err
			}
			if s.label != name {
				line.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
				points.Color = color.Transparent
			}
			p.Add(line, points)
			p.Legend.Add(s.label, line, points)
		}
	}
	return savePlot(p, base)
}
