package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

// fxRefResult is what the slow reference perceptron computes.
type fxRefResult struct {
	// W (K×dim, class-major) and B are the explicit averages of the
	// weights after every example; Wlast/Blast the final weights.
	W, Wlast [][]float64
	B, Blast []float64
	Mistakes []int // per epoch
	Updates  []int
	Examples int
	MaxAbs   float64 // largest |weight| or |score| met, for exactness
}

// fxRefPerceptron is the slow reference: the classic (multiclass)
// perceptron in float64 with LearningRate 1, a separate bias and zero
// start, visiting rows in order, which after every example adds the whole
// weight vector to a running sum. It stops after an epoch without an
// update, like Fit.
func fxRefPerceptron(X *sparse.CSR, cls []int, K, epochs int) fxRefResult {
	return fxRefPerceptronRun(X, cls, K, epochs, false)
}

// fxRefPerceptronRun is fxRefPerceptron; with all it runs every epoch
// even after one without an update.
func fxRefPerceptronRun(X *sparse.CSR, cls []int, K, epochs int, all bool) fxRefResult {
	nw := K
	if K == 2 {
		nw = 1
	}
	d := X.Cols
	w := make([][]float64, nw)
	sw := make([][]float64, nw)
	for k := range w {
		w[k] = make([]float64, d)
		sw[k] = make([]float64, d)
	}
	b := make([]float64, nw)
	sb := make([]float64, nw)
	var res fxRefResult
	s := make([]float64, nw)
	for e := 0; e < epochs; e++ {
		mistakes, updates := 0, 0
		for i := 0; i < X.Rows; i++ {
			row := X.Row(i)
			for k := range s {
				s[k] = b[k]
				for q, j := range row.Ind {
					s[k] += w[k][j] * float64(row.Val[q])
				}
				res.MaxAbs = max(res.MaxAbs, math.Abs(s[k]))
			}
			c := cls[i]
			if nw == 1 {
				y := -1.0
				if c == 1 {
					y = 1
				}
				if y*s[0] <= 0 {
					mistakes++
					updates++
					for q, j := range row.Ind {
						w[0][j] += y * float64(row.Val[q])
					}
					b[0] += y
				}
			} else {
				r := -1
				for k := range s {
					if k != c && (r < 0 || s[k] > s[r]) {
						r = k
					}
				}
				if s[c]-s[r] <= 0 {
					mistakes++
					updates++
					for q, j := range row.Ind {
						w[c][j] += float64(row.Val[q])
						w[r][j] -= float64(row.Val[q])
					}
					b[c]++
					b[r]--
				}
			}
			for k := range w {
				for j, v := range w[k] {
					sw[k][j] += v
					res.MaxAbs = max(res.MaxAbs, math.Abs(v))
				}
				sb[k] += b[k]
			}
			res.Examples++
		}
		res.Mistakes = append(res.Mistakes, mistakes)
		res.Updates = append(res.Updates, updates)
		if updates == 0 && !all {
			break
		}
	}
	T := float64(res.Examples)
	res.W = make([][]float64, nw)
	res.B = make([]float64, nw)
	for k := range sw {
		res.W[k] = make([]float64, d)
		for j, v := range sw[k] {
			res.W[k][j] = v / T
		}
		res.B[k] = sb[k] / T
	}
	res.Wlast, res.Blast = w, b
	return res
}

// fxCompareRef checks m's weights against the reference's averages to
// within maxULP float32 ulps, and the per-epoch mistake counts.
func fxCompareRef(t *testing.T, m *Model, stats []EpochStats, ref fxRefResult, W [][]float64, B []float64, maxULP int64) {
	t.Helper()
	K := m.NumRows()
	if len(W) != K {
		t.Fatalf("reference has %d weight rows, model %d", len(W), K)
	}
	worst := int64(0)
	for k := range K {
		for j := 0; j < m.Dim; j++ {
			got, want := m.Weight(k, j), float32(W[k][j])
			if d := fxULP(got, want); d > maxULP {
				t.Fatalf("W[class row %d, feature %d] = %v (bits %#x), reference average %v (float64 %v, bits %#x): %d ulps apart",
					k, j, got, math.Float32bits(got), want, W[k][j], math.Float32bits(want), d)
			} else {
				worst = max(worst, d)
			}
		}
		got, want := m.B[k], float32(B[k])
		if d := fxULP(got, want); d > maxULP {
			t.Fatalf("B[%d] = %v, reference average %v (float64 %v): %d ulps apart", k, got, want, B[k], d)
		}
	}
	t.Logf("worst weight disagreement: %d ulp", worst)
	if stats == nil {
		return
	}
	if len(stats) != len(ref.Mistakes) {
		t.Fatalf("Fit ran %d epochs, reference %d", len(stats), len(ref.Mistakes))
	}
	for e, s := range stats {
		if s.Mistakes != ref.Mistakes[e] || s.Updates != ref.Updates[e] {
			t.Fatalf("epoch %d: Fit made %d mistakes / %d updates, reference %d / %d",
				e+1, s.Mistakes, s.Updates, ref.Mistakes[e], ref.Updates[e])
		}
		if s.Rows != stats[0].Rows {
			t.Fatalf("epoch %d: Rows %d, epoch 1 had %d", e+1, s.Rows, stats[0].Rows)
		}
	}
}

// TestAveragedExactBinary checks the lazy averaging trick against an
// explicit average over more than a million updates. Integer features in
// [−3, 3] and LearningRate 1 keep every weight, score and partial sum an
// exactly representable integer, so the only rounding is the final
// division: the model must agree with the reference to within one float32
// ulp.
func TestAveragedExactBinary(t *testing.T) {
	rows, epochs, minUpdates := 2000, 1200, 1_000_000
	if testing.Short() {
		rows, epochs, minUpdates = 1000, 200, 80_000
	}
	X, y := fxIntBinary(1, rows, 64, 6, 0.3)
	m, stats := fxFit(t, X, y, Config{Algorithm: Averaged, Epochs: epochs, NoShuffle: true, LearningRate: 1})
	got := fxTotalUpdates(stats)
	if got <= minUpdates {
		t.Fatalf("only %d updates in %d epochs; the test needs more than %d", got, len(stats), minUpdates)
	}
	t.Logf("%d updates over %d examples", got, epochs*rows)
	if len(stats) != epochs {
		t.Fatalf("noisy data stopped after %d of %d epochs", len(stats), epochs)
	}
	if !slices.Equal(m.Classes, []float64{-1, 1}) {
		t.Fatalf("Classes = %v, want [-1 1]", m.Classes)
	}
	ref := fxRefPerceptron(X, fxClassIndex(m.Classes, y), 2, epochs)
	if ref.MaxAbs >= 1<<23 {
		t.Fatalf("reference met |value| %v ≥ 2^23: the exactness premise fails", ref.MaxAbs)
	}
	fxCompareRef(t, m, stats, ref, ref.W, ref.B, 1)

	// The plain perceptron of the same run is the reference's last vector,
	// exactly.
	p, pstats := fxFit(t, X, y, Config{Algorithm: Plain, Epochs: epochs, NoShuffle: true})
	fxCompareRef(t, p, pstats, ref, ref.Wlast, ref.Blast, 0)
}

// TestAveragedExactMulticlass is TestAveragedExactBinary for three classes.
func TestAveragedExactMulticlass(t *testing.T) {
	rows, epochs := 800, 150
	if testing.Short() {
		rows, epochs = 400, 60
	}
	X, y := fxIntMulti(2, rows, 40, 6, 3, 0.3)
	m, stats := fxFit(t, X, y, Config{Epochs: epochs, NoShuffle: true})
	if len(stats) != epochs {
		t.Fatalf("noisy data stopped after %d of %d epochs", len(stats), epochs)
	}
	if m.NumRows() != 3 || !slices.Equal(m.Classes, []float64{0, 1, 2}) {
		t.Fatalf("Classes = %v, NumRows %d", m.Classes, m.NumRows())
	}
	ref := fxRefPerceptron(X, fxClassIndex(m.Classes, y), 3, epochs)
	if ref.MaxAbs >= 1<<23 {
		t.Fatalf("reference met |value| %v ≥ 2^23", ref.MaxAbs)
	}
	t.Logf("%d updates", fxTotalUpdates(stats))
	fxCompareRef(t, m, stats, ref, ref.W, ref.B, 1)

	p, pstats := fxFit(t, X, y, Config{Algorithm: Plain, Epochs: epochs, NoShuffle: true})
	fxCompareRef(t, p, pstats, ref, ref.Wlast, ref.Blast, 0)
}

// TestConvergedEpochsStillAverage: Fit stops after an epoch without an
// update, but the averaged and voted models count the epochs left as if
// they had run (they would change nothing but the average), so the model
// is the explicit average over all Epochs·Rows examples.
func TestConvergedEpochsStillAverage(t *testing.T) {
	X, y := fxIntBinary(25, 200, 20, 4, 0) // separable: integer scores, threshold −0.5
	const epochs = 60
	m, stats := fxFit(t, X, y, Config{Epochs: epochs, NoShuffle: true})
	if len(stats) >= epochs || stats[len(stats)-1].Updates != 0 {
		t.Fatalf("separable data did not converge early: %d epochs, last %+v", len(stats), stats[len(stats)-1])
	}
	ref := fxRefPerceptronRun(X, fxClassIndex(m.Classes, y), 2, epochs, true)
	if ref.Examples != epochs*X.Rows {
		t.Fatalf("reference saw %d examples", ref.Examples)
	}
	for e := len(stats); e < epochs; e++ {
		if ref.Updates[e] != 0 {
			t.Fatalf("reference updated in epoch %d after convergence", e+1)
		}
	}
	fxCompareRef(t, m, nil, ref, ref.W, ref.B, 1)

	v, vstats := fxFit(t, X, y, Config{Algorithm: Voted, Epochs: epochs, NoShuffle: true})
	total := v.Votes.Count0
	for _, s := range v.Votes.Steps {
		total += s.Count
	}
	if total != int64(epochs*X.Rows) || len(vstats) != len(stats) {
		t.Fatalf("voted: counts sum to %d after %d epochs, want %d·%d", total, len(vstats), epochs, X.Rows)
	}
	fxSameModel(t, "voted vs averaged after convergence", v, m)
	// Plain keeps its last vector.
	p, _ := fxFit(t, X, y, Config{Algorithm: Plain, Epochs: epochs, NoShuffle: true})
	fxCompareRef(t, p, nil, ref, ref.Wlast, ref.Blast, 0)
}

// TestFitNonFiniteValues: a NaN or infinite feature value must not pass
// silently. Fit no longer runs X.Validate (checkShape skips the value
// check for speed and promises "non-finite values end in ErrDiverged"),
// so such a row must still end in an error.
func TestFitNonFiniteValues(t *testing.T) {
	for _, v := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))} {
		X := sparse.FromDense([][]float32{{1, 0}, {0, 1}, {v, 1}, {-1, -1}})
		y := []float64{1, 1, 1, -1}
		for _, alg := range []Algorithm{Averaged, Plain, Voted, Batch} {
			m, stats, err := Fit(context.Background(), X, y, Config{Algorithm: alg, NoShuffle: true})
			if !errors.Is(err, ErrDiverged) && !errors.Is(err, ErrDim) {
				w := []float32(nil)
				if m != nil {
					w = m.W
				}
				t.Errorf("%v, row 2 has feature value %v: err %v (want ErrDiverged, or ErrDim); %d epochs, model weights %v: the row was silently skipped (its margin is NaN, so it is neither a mistake nor an update)",
					alg, v, err, len(stats), w)
			}
		}
		// The online learner reports such a value as Fit's check does.
		l := fxLearner(t, []float64{-1, 1}, 2, Config{})
		if _, err := l.PartialFit(context.Background(), X, y); !errors.Is(err, ErrDiverged) {
			t.Errorf("PartialFit with value %v: %v, want ErrDiverged", v, err)
		}
		if _, err := l.Learn(X.Row(2), 1); !errors.Is(err, ErrDiverged) {
			t.Errorf("Learn with value %v: %v, want ErrDiverged", v, err)
		}
		if _, stats, err := Fit(context.Background(), X, y, Config{}); !errors.Is(err, ErrDiverged) || stats != nil {
			t.Errorf("Fit with value %v: %v after %d epochs, want ErrDiverged from the check before training", v, err, len(stats))
		}
	}
}

// TestDeterminism: the same seed gives bit-identical models, other seeds
// (with shuffling) other models.
func TestDeterminism(t *testing.T) {
	X, y := fxIntBinary(3, 300, 30, 5, 0.2)
	Xm, ym := fxIntMulti(4, 300, 30, 5, 4, 0.1)
	for _, alg := range []Algorithm{Averaged, Plain, Voted, Batch} {
		for _, multi := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v/multi=%v", alg, multi), func(t *testing.T) {
				X, y := X, y
				if multi {
					X, y = Xm, ym
				}
				cfg := Config{Algorithm: alg, Epochs: 5, Seed: 11, InitScale: 0.01}
				a, sa := fxFit(t, X, y, cfg)
				b, sb := fxFit(t, X, y, cfg)
				fxSameModel(t, "same seed", a, b)
				if len(sa) != len(sb) {
					t.Fatalf("same seed ran %d and %d epochs", len(sa), len(sb))
				}
				for e := range sa {
					if sa[e].Mistakes != sb[e].Mistakes || sa[e].Updates != sb[e].Updates {
						t.Fatalf("same seed, epoch %d: %+v vs %+v", e+1, sa[e], sb[e])
					}
				}
				cfg.Seed = 12
				c, _ := fxFit(t, X, y, cfg)
				if slices.Equal(a.W, c.W) {
					t.Fatalf("seeds 11 and 12 gave identical weights")
				}
			})
		}
	}
}

// TestLabelEncodingIrrelevant: the two labels of a binary task may be any
// numbers; the larger is the positive class and the weights do not
// depend on the values.
func TestLabelEncodingIrrelevant(t *testing.T) {
	X, y := fxIntBinary(5, 400, 30, 5, 0.1)
	var base *Model
	for _, enc := range [][2]float64{{0, 1}, {-1, 1}, {2, 7}, {-3.5, -0.25}} {
		t.Run(fmt.Sprintf("labels=%v,%v", enc[0], enc[1]), func(t *testing.T) {
			ye := make([]float64, len(y))
			for i, v := range y {
				ye[i] = enc[0]
				if v > 0 {
					ye[i] = enc[1]
				}
			}
			m, _ := fxFit(t, X, ye, Config{Epochs: 4, Seed: 9})
			if !slices.Equal(m.Classes, enc[:]) {
				t.Fatalf("labels %v: Classes = %v", enc, m.Classes)
			}
			for i := range 20 {
				if got := m.Predict(X.Row(i)); got != enc[0] && got != enc[1] {
					t.Fatalf("labels %v: Predict gave %v", enc, got)
				}
			}
			if base == nil {
				base = m
				return
			}
			fxSameModel(t, fmt.Sprintf("labels %v vs {0,1}", enc), m, base)
		})
	}
	// −0 and +0 are one class.
	yz := make([]float64, len(y))
	for i, v := range y {
		yz[i] = 1
		if v < 0 {
			yz[i] = 0
			if i%2 == 0 {
				yz[i] = math.Copysign(0, -1)
			}
		}
	}
	m, _ := fxFit(t, X, yz, Config{Epochs: 4, Seed: 9})
	if len(m.Classes) != 2 {
		t.Fatalf("labels {−0, +0, 1}: Classes = %v, want two", m.Classes)
	}
	fxSameModel(t, "labels {±0, 1} vs {0, 1}", m, base)
}

// TestMulticlassOddLabels: arbitrary labels, unsorted in y, give
// ascending Classes and predictions among them.
func TestMulticlassOddLabels(t *testing.T) {
	X, y := fxDenseSeparable(6, 300, 6, 3, 0.2)
	labels := []float64{7.5, -5, 2}
	ye := make([]float64, len(y))
	for i, v := range y {
		ye[i] = labels[int(v)]
	}
	m, _ := fxFit(t, X, ye, Config{Epochs: 50, Seed: 1})
	if !slices.Equal(m.Classes, []float64{-5, 2, 7.5}) {
		t.Fatalf("Classes = %v, want [-5 2 7.5]", m.Classes)
	}
	if m.NumRows() != 3 || m.Binary() {
		t.Fatalf("NumRows %d, Binary %v", m.NumRows(), m.Binary())
	}
	right := 0
	for i := 0; i < X.Rows; i++ {
		p := m.Predict(X.Row(i))
		if !slices.Contains(labels, p) {
			t.Fatalf("Predict gave %v, not a label", p)
		}
		if p == ye[i] {
			right++
		}
	}
	if acc := float64(right) / float64(X.Rows); acc < 0.9 {
		t.Fatalf("training accuracy %v on separable data", acc)
	}
}

// TestMulticlassSeparableConverges: the multiclass perceptron on data
// labelled by the argmax of 5 hyperplanes stops making mistakes.
func TestMulticlassSeparableConverges(t *testing.T) {
	X, y := fxDenseSeparable(7, 500, 10, 5, 0.15)
	m, stats := fxFit(t, X, y, Config{Algorithm: Plain, Epochs: 2000, Seed: 3})
	last := stats[len(stats)-1]
	if last.Mistakes != 0 || last.Updates != 0 {
		t.Fatalf("after %d epochs the last has %d mistakes, %d updates on separable data", len(stats), last.Mistakes, last.Updates)
	}
	if len(stats) == 2000 {
		t.Fatalf("ran every epoch though the last had no update")
	}
	pred := m.PredictBatch(X, nil)
	for i, p := range pred {
		if p != y[i] {
			t.Fatalf("row %d: predicted %v, label %v, after a mistake-free epoch", i, p, y[i])
		}
	}
}

// TestBiasModes: NoBias keeps B zero; BiasAugmented with scale 1 is
// BiasSeparate; a bias scale s moves the bias by η·s² per update.
func TestBiasModes(t *testing.T) {
	X, y := fxIntBinary(8, 300, 20, 4, 0.2)
	Xm, ym := fxIntMulti(9, 300, 20, 4, 3, 0.2)
	for _, data := range []struct {
		name string
		X    *sparse.CSR
		y    []float64
	}{{"binary", X, y}, {"multi", Xm, ym}} {
		t.Run(data.name, func(t *testing.T) {
			for _, alg := range []Algorithm{Averaged, Plain, Voted, Batch} {
				base := Config{Algorithm: alg, Epochs: 4, Seed: 2}
				cfg := base
				cfg.Bias = NoBias
				cfg.InitScale = 0.5
				m, _ := fxFit(t, data.X, data.y, cfg)
				for k, b := range m.B {
					if b != 0 {
						t.Fatalf("%s %v NoBias: B[%d] = %v", data.name, alg, k, b)
					}
				}
				sep, _ := fxFit(t, data.X, data.y, base)
				cfg = base
				cfg.Bias = BiasAugmented
				aug, _ := fxFit(t, data.X, data.y, cfg)
				fxSameModel(t, fmt.Sprintf("%s %v augmented(scale 0) vs separate", data.name, alg), aug, sep)
				cfg.BiasScale = 1
				aug1, _ := fxFit(t, data.X, data.y, cfg)
				fxSameModel(t, fmt.Sprintf("%s %v augmented(scale 1) vs separate", data.name, alg), aug1, sep)
				if aug.Bias != BiasAugmented || aug.BiasScale != 1 {
					t.Fatalf("augmented model records Bias %v, BiasScale %v", aug.Bias, aug.BiasScale)
				}
			}
		})
	}

	// One row learned, one epoch, one mistake: the bias moves by η·scale².
	// (Two classes are needed: the second row has sample weight 0.)
	X2 := sparse.FromDense([][]float32{{1, 2}, {1, 1}})
	for _, tc := range []struct {
		mode         BiasMode
		scale, eta   float64
		wantB, wantW float32
	}{
		{BiasSeparate, 0, 1, 1, 1},
		{BiasSeparate, 5, 1, 1, 1}, // BiasScale only matters for BiasAugmented
		{BiasAugmented, 2, 1, 4, 1},
		{BiasAugmented, 2, 0.5, 2, 0.5},
		{BiasAugmented, 3, 1, 9, 1},
		{NoBias, 2, 1, 0, 1},
	} {
		t.Run(fmt.Sprintf("%v×%v/eta=%v", tc.mode, tc.scale, tc.eta), func(t *testing.T) {
			m, stats := fxFit(t, X2, []float64{1, -1}, Config{
				Algorithm: Plain, Epochs: 1, NoShuffle: true, Bias: tc.mode, BiasScale: tc.scale,
				LearningRate: tc.eta, SampleWeight: []float64{1, 0},
			})
			if stats[0].Updates != 1 {
				t.Fatalf("%v scale %v: %d updates, want 1", tc.mode, tc.scale, stats[0].Updates)
			}
			if m.B[0] != tc.wantB || m.W[0] != tc.wantW || m.W[1] != 2*tc.wantW {
				t.Fatalf("%v scale %v η %v: W %v B %v, want W [%v %v] B %v", tc.mode, tc.scale, tc.eta, m.W, m.B, tc.wantW, 2*tc.wantW, tc.wantB)
			}
		})
	}
}

// TestInitScale: random start weights in [−s, s], drawn from the seed.
func TestInitScale(t *testing.T) {
	// Only feature 0 is ever set, so the other weights keep their start
	// value under Plain.
	X := sparse.FromDense([][]float32{{1}, {-1}})
	X.Cols = 50
	y := []float64{1, -1}
	zero, _ := fxFit(t, X, y, Config{Algorithm: Plain, Epochs: 3, Seed: 1})
	for j := 1; j < 50; j++ {
		if zero.W[j] != 0 {
			t.Fatalf("InitScale 0: untouched W[%d] = %v", j, zero.W[j])
		}
	}
	const s = 0.25
	a, _ := fxFit(t, X, y, Config{Algorithm: Plain, Epochs: 3, Seed: 1, InitScale: s})
	b, _ := fxFit(t, X, y, Config{Algorithm: Plain, Epochs: 3, Seed: 2, InitScale: s})
	a2, _ := fxFit(t, X, y, Config{Algorithm: Plain, Epochs: 3, Seed: 1, InitScale: s})
	fxSameModel(t, "InitScale, same seed", a, a2)
	nonzero, differ := 0, 0
	var lo, hi float32
	for j := 1; j < 50; j++ {
		w := a.W[j]
		if !(w >= -s && w <= s) {
			t.Fatalf("start weight W[%d] = %v outside [−%v, %v]", j, w, s, s)
		}
		lo, hi = min(lo, w), max(hi, w)
		if w != 0 {
			nonzero++
		}
		if w != b.W[j] {
			differ++
		}
	}
	if nonzero < 45 || differ < 45 {
		t.Fatalf("start weights: %d of 49 nonzero, %d differ between seeds", nonzero, differ)
	}
	if lo > -s/2 || hi < s/2 {
		t.Fatalf("start weights span only [%v, %v] of [−%v, %v]", lo, hi, s, s)
	}
}

// TestMarginUpdates: with τ > 0 every mistake is an update, and some
// correct rows within the margin update too.
func TestMarginUpdates(t *testing.T) {
	X, y := fxIntBinary(10, 300, 20, 4, 0.05)
	Xm, ym := fxIntMulti(11, 300, 20, 4, 3, 0.05)
	for _, alg := range []Algorithm{Averaged, Plain, Batch} {
		t.Run(alg.String(), func(t *testing.T) {
			for i, d := range []struct {
				X *sparse.CSR
				y []float64
			}{{X, y}, {Xm, ym}} {
				_, stats := fxFit(t, d.X, d.y, Config{Algorithm: alg, Epochs: 20, Margin: 5, Seed: 4})
				strict := false
				for _, s := range stats {
					if s.Updates < s.Mistakes {
						t.Fatalf("%v data %d epoch %d: %d updates < %d mistakes", alg, i, s.Epoch, s.Updates, s.Mistakes)
					}
					if s.Updates > s.Mistakes {
						strict = true
					}
				}
				if !strict {
					t.Fatalf("%v data %d: margin 5 never updated a correct row: %+v", alg, i, stats)
				}
				_, stats0 := fxFit(t, d.X, d.y, Config{Algorithm: alg, Epochs: 20, Seed: 4})
				for _, s := range stats0 {
					if alg != Batch && s.Updates != s.Mistakes {
						t.Fatalf("%v margin 0 epoch %d: %d updates, %d mistakes", alg, s.Epoch, s.Updates, s.Mistakes)
					}
				}
			}
		})
	}
}

// fxValidSplit mirrors Fit's hold-out draw (an implementation detail of
// train.go: the first ⌈v·n⌉ rows of a permutation drawn from a PCG seeded
// with (Seed, 0x9e3779b97f4a7c15)). If Fit draws differently this helper
// must follow; the bit-identical check in TestEarlyStopping does not
// depend on it.
func fxValidSplit(n int, v float64, seed uint64) []int32 {
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	perm := make([]int32, n)
	for i := range perm {
		perm[i] = int32(i)
	}
	rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
	nv := int(math.Ceil(v * float64(n)))
	valid := perm[:nv]
	slices.Sort(valid)
	return valid
}

// TestEarlyStopping: Validation holds rows out, stops when their
// accuracy stalls, and returns the model of the best epoch.
func TestEarlyStopping(t *testing.T) {
	X, y := fxIntBinary(12, 1000, 40, 5, 0.3)
	const epochs, seed = 200, 21
	cfg := Config{Algorithm: Plain, Epochs: epochs, Validation: 0.2, Patience: 1, Seed: seed}
	m, stats := fxFit(t, X, y, cfg)
	if len(stats) >= epochs {
		t.Fatalf("early stopping ran all %d epochs", len(stats))
	}
	best, bestEpoch := -1.0, 0
	for _, s := range stats {
		if math.IsNaN(s.ValidAccuracy) || s.ValidAccuracy < 0 || s.ValidAccuracy > 1 {
			t.Fatalf("epoch %d: ValidAccuracy %v", s.Epoch, s.ValidAccuracy)
		}
		if s.Rows != 800 {
			t.Fatalf("epoch %d trained on %d rows, want 800 of 1000", s.Epoch, s.Rows)
		}
		if s.ValidAccuracy > best {
			best, bestEpoch = s.ValidAccuracy, s.Epoch
		}
	}
	// Patience 1: training stopped at the first epoch that did not improve.
	if last := stats[len(stats)-1]; last.Epoch != bestEpoch+1 {
		t.Fatalf("best epoch %d, stopped after %d (patience 1)", bestEpoch, last.Epoch)
	}
	valid := fxValidSplit(X.Rows, 0.2, seed)
	if len(valid) != 200 {
		t.Fatalf("split has %d rows", len(valid))
	}
	right := 0
	for _, i := range valid {
		if m.Predict(X.Row(int(i))) == y[i] {
			right++
		}
	}
	if acc := float64(right) / float64(len(valid)); acc != best {
		t.Fatalf("returned model scores %v on the held-out rows; the best epoch (%d) scored %v", acc, bestEpoch, best)
	}
	// The model returned is the one of the best epoch: the same training
	// cut off there gives it bit for bit.
	cfg.Epochs = bestEpoch
	mb, _ := fxFit(t, X, y, cfg)
	fxSameModel(t, "early-stopped vs cut at the best epoch", m, mb)

	// Without validation ValidAccuracy is NaN.
	_, st := fxFit(t, X, y, Config{Epochs: 2})
	for _, s := range st {
		if !math.IsNaN(s.ValidAccuracy) {
			t.Fatalf("ValidAccuracy %v without Validation", s.ValidAccuracy)
		}
	}

	// A validation share that leaves nothing to train on.
	X3 := sparse.FromDense([][]float32{{1}, {2}, {3}})
	_, _, err := Fit(context.Background(), X3, []float64{0, 1, 0}, Config{Validation: 0.999999})
	if !errors.Is(err, ErrConfig) {
		t.Fatalf("Validation 0.999999 on 3 rows: err %v, want ErrConfig", err)
	}
}

// TestSampleWeightZeroIsSubset: rows of weight 0 are never learned, so
// under Plain and NoShuffle training equals training without them.
func TestSampleWeightZeroIsSubset(t *testing.T) {
	for _, multi := range []bool{false, true} {
		t.Run(fmt.Sprintf("multiclass=%v", multi), func(t *testing.T) {
			X, y := fxIntBinary(13, 400, 30, 5, 0.2)
			if multi {
				X, y = fxIntMulti(14, 400, 30, 5, 4, 0.2)
			}
			r := fxRNG(15)
			sw := make([]float64, X.Rows)
			var keep []int
			for i := range sw {
				if r.IntN(3) == 0 {
					continue
				}
				sw[i] = 1
				keep = append(keep, i)
			}
			m, stats := fxFit(t, X, y, Config{Algorithm: Plain, Epochs: 6, NoShuffle: true, SampleWeight: sw})
			Xs := X.SelectRows(keep)
			ys := make([]float64, len(keep))
			for k, i := range keep {
				ys[k] = y[i]
			}
			ms, sstats := fxFit(t, Xs, ys, Config{Algorithm: Plain, Epochs: 6, NoShuffle: true})
			fxSameModel(t, fmt.Sprintf("multi=%v: weight-0 rows vs subset", multi), m, ms)
			for e := range stats {
				if stats[e].Updates != sstats[e].Updates {
					t.Fatalf("multi=%v epoch %d: %d updates vs %d on the subset", multi, e+1, stats[e].Updates, sstats[e].Updates)
				}
				if stats[e].Mistakes < sstats[e].Mistakes {
					t.Fatalf("multi=%v epoch %d: %d mistakes over all rows < %d over the subset", multi, e+1, stats[e].Mistakes, sstats[e].Mistakes)
				}
			}
			// Weight 2 on every row is LearningRate 2.
			two := make([]float64, X.Rows)
			for i := range two {
				two[i] = 2
			}
			m2, _ := fxFit(t, X, y, Config{Algorithm: Plain, Epochs: 3, NoShuffle: true, SampleWeight: two, InitScale: 0.1})
			e2, _ := fxFit(t, X, y, Config{Algorithm: Plain, Epochs: 3, NoShuffle: true, LearningRate: 2, InitScale: 0.1})
			fxSameModel(t, "sample weight 2 vs learning rate 2", m2, e2)
		})
	}
}

// TestClassWeightZero: rows of a class of weight 0 never update.
func TestClassWeightZero(t *testing.T) {
	X, y := fxIntBinary(16, 400, 30, 5, 0.2)
	// Under Plain with a separate bias starting at zero, every update of a
	// positive row adds 1 to the bias and every update of a negative row
	// subtracts 1: B equals the number of updates only if no negative row
	// made one.
	m, stats := fxFit(t, X, y, Config{Algorithm: Plain, Epochs: 5, NoShuffle: true, ClassWeight: map[float64]float64{-1: 0}})
	total := fxTotalUpdates(stats)
	if total == 0 {
		t.Fatal("no update at all")
	}
	if m.B[0] != float32(total) {
		t.Fatalf("B = %v after %d updates: negative rows (class weight 0) made updates", m.B[0], total)
	}
	pos := 0
	for _, v := range y {
		if v > 0 {
			pos++
		}
	}
	ignored := false
	for _, s := range stats {
		if s.Updates > pos {
			t.Fatalf("epoch %d: %d updates but only %d rows of weight > 0", s.Epoch, s.Updates, pos)
		}
		if s.Mistakes > s.Updates {
			ignored = true
		}
	}
	if !ignored {
		t.Fatalf("no mistake went without an update: %+v", stats)
	}
	// The same as sample weight 0 on those rows.
	sw := make([]float64, len(y))
	for i, v := range y {
		if v > 0 {
			sw[i] = 1
		}
	}
	ms, sstats := fxFit(t, X, y, Config{Algorithm: Plain, Epochs: 5, NoShuffle: true, SampleWeight: sw})
	fxSameModel(t, "ClassWeight{-1: 0} vs SampleWeight 0 on class −1", m, ms)
	for e := range stats {
		a, b := stats[e], sstats[e]
		if a.Updates != b.Updates || a.Mistakes != b.Mistakes || a.Loss != b.Loss || a.Rows != b.Rows {
			t.Fatalf("epoch %d: %+v vs %+v", e+1, a, b)
		}
	}
	// A class weight multiplies the update like a learning rate.
	mw, _ := fxFit(t, X, y, Config{Algorithm: Plain, Epochs: 3, NoShuffle: true, InitScale: 0.1, ClassWeight: map[float64]float64{-1: 2, 1: 2}})
	me, _ := fxFit(t, X, y, Config{Algorithm: Plain, Epochs: 3, NoShuffle: true, InitScale: 0.1, LearningRate: 2})
	fxSameModel(t, "class weights 2 vs learning rate 2", mw, me)
}

// TestBalancedRaisesMinorityRecall: on 90/10 data the balanced weights
// move the boundary toward the majority class.
func TestBalancedRaisesMinorityRecall(t *testing.T) {
	r := fxRNG(17)
	// Two overlapping Gaussian clouds, 900 majority (label 0) and 100
	// minority (label 1) rows.
	var dense [][]float32
	var y []float64
	for i := range 1000 {
		c := 0.0
		if i%10 == 0 {
			c = 1
		}
		x := make([]float32, 5)
		for j := range x {
			x[j] = float32(r.NormFloat64())
		}
		x[0] += float32(1.2 * (2*c - 1))
		x[1] += float32(0.6 * (2*c - 1))
		dense = append(dense, x)
		y = append(y, c)
	}
	X := sparse.FromDense(dense)
	recall := func(m *Model) float64 {
		hit, n := 0, 0
		for i, v := range y {
			if v == 1 {
				n++
				if m.Predict(X.Row(i)) == 1 {
					hit++
				}
			}
		}
		return float64(hit) / float64(n)
	}
	plain, _ := fxFit(t, X, y, Config{Epochs: 20, Seed: 5})
	bal, _ := fxFit(t, X, y, Config{Epochs: 20, Seed: 5, Balanced: true})
	rp, rb := recall(plain), recall(bal)
	t.Logf("minority recall: unweighted %.3f, balanced %.3f", rp, rb)
	// Balanced multiplies minority updates by 5 and majority ones by 0.56,
	// which pushes the bias toward the minority class; on this overlap the
	// recall must strictly rise (it can never be lower by construction of
	// the data, but we demand a real gain).
	if !(rb > rp) {
		t.Fatalf("balanced minority recall %.3f is not above unweighted %.3f", rb, rp)
	}
	// Balanced equals explicit class weights n/(k·n_c).
	cw, _ := fxFit(t, X, y, Config{Epochs: 20, Seed: 5, ClassWeight: map[float64]float64{0: 1000.0 / (2 * 900), 1: 1000.0 / (2 * 100)}})
	fxSameModel(t, "Balanced vs explicit class weights", bal, cw)
}

// TestBadWeights: out-of-range weights are config errors.
func TestBadWeights(t *testing.T) {
	X, y := fxIntBinary(18, 10, 5, 2, 0)
	ones := func(n int) []float64 {
		w := make([]float64, n)
		for i := range w {
			w[i] = 1
		}
		return w
	}
	neg, nan, inf := ones(10), ones(10), ones(10)
	neg[3], nan[4], inf[5] = -1, math.NaN(), math.Inf(1)
	for name, cfg := range map[string]Config{
		"negative sample weight":  {SampleWeight: neg},
		"NaN sample weight":       {SampleWeight: nan},
		"infinite sample weight":  {SampleWeight: inf},
		"short sample weights":    {SampleWeight: ones(9)},
		"long sample weights":     {SampleWeight: ones(11)},
		"empty sample weights":    {SampleWeight: []float64{}},
		"negative class weight":   {ClassWeight: map[float64]float64{1: -0.5}},
		"NaN class weight":        {ClassWeight: map[float64]float64{-1: math.NaN()}},
		"infinite class weight":   {ClassWeight: map[float64]float64{-1: math.Inf(1)}},
		"negative weight, voted":  {Algorithm: Voted, SampleWeight: neg},
		"negative weight, batch ": {Algorithm: Batch, SampleWeight: neg},
	} {
		m, _, err := Fit(context.Background(), X, y, cfg)
		if !errors.Is(err, ErrConfig) || m != nil {
			t.Errorf("%s: model %v, err %v; want nil model and ErrConfig", name, m != nil, err)
		}
	}
}

// TestBatchConverges: the batch perceptron separates separable data.
func TestBatchConverges(t *testing.T) {
	X, y := fxDenseSeparable(19, 300, 8, 2, 0.3)
	m, stats := fxFit(t, X, y, Config{Algorithm: Batch, Epochs: 500})
	last := stats[len(stats)-1]
	if last.Updates != 0 || last.Mistakes != 0 || len(stats) == 500 {
		t.Fatalf("batch perceptron after %d epochs: last epoch %+v", len(stats), last)
	}
	for i := 0; i < X.Rows; i++ {
		if p := m.Predict(X.Row(i)); p != y[i] {
			t.Fatalf("row %d predicted %v, label %v", i, p, y[i])
		}
	}
	for _, s := range stats {
		if s.Rows != 300 {
			t.Fatalf("epoch %d: Rows %d", s.Epoch, s.Rows)
		}
	}
	// Multiclass too.
	Xm, ym := fxDenseSeparable(20, 300, 8, 3, 0.3)
	_, mstats := fxFit(t, Xm, ym, Config{Algorithm: Batch, Epochs: 2000})
	if last := mstats[len(mstats)-1]; last.Updates != 0 {
		t.Fatalf("multiclass batch perceptron after %d epochs: last epoch %+v", len(mstats), last)
	}
}

// TestBatchStepByHand follows two steps of the batch perceptron on four
// rows.
func TestBatchStepByHand(t *testing.T) {
	X := sparse.FromDense([][]float32{{2, 0}, {0, 1}, {1, 3}, {-1, 0}})
	y := []float64{1, 1, -1, -1}
	for _, eta := range []float64{1, 0.5} {
		t.Run(fmt.Sprintf("eta=%v", eta), func(t *testing.T) {
			// Step 1 from zero: every row has margin 0, a mistake of loss 0; the
			// step is η·Σ y·x = η·(2, −2) and the bias η·Σ y = 0.
			m1, s1 := fxFit(t, X, y, Config{Algorithm: Batch, Epochs: 1, LearningRate: eta})
			w1 := []float32{float32(2 * eta), float32(-2 * eta)}
			if !slices.Equal(m1.W, w1) || m1.B[0] != 0 {
				t.Fatalf("η %v: after step 1 W %v B %v, want %v and 0", eta, m1.W, m1.B, w1)
			}
			if s1[0].Mistakes != 4 || s1[0].Updates != 4 || s1[0].Loss != 0 {
				t.Fatalf("η %v: step 1 stats %+v", eta, s1[0])
			}
			// R(w1) by hand.
			risk, mistakes := 0.0, 0
			for i := 0; i < X.Rows; i++ {
				row := X.Row(i)
				s := 0.0
				for k, j := range row.Ind {
					s += float64(w1[j]) * float64(row.Val[k])
				}
				if mg := y[i] * s; mg <= 0 {
					risk -= mg
					mistakes++
				}
			}
			if risk != 2*eta || mistakes != 1 {
				t.Fatalf("hand computation is off: R = %v, %d mistakes", risk, mistakes)
			}
			m2, s2 := fxFit(t, X, y, Config{Algorithm: Batch, Epochs: 2, LearningRate: eta})
			if len(s2) != 2 {
				t.Fatalf("η %v: %d epochs", eta, len(s2))
			}
			if got := s2[1].Loss * float64(s2[1].Rows); math.Abs(got-risk) > 1e-12 || s2[1].Mistakes != mistakes || s2[1].Rows != 4 {
				t.Fatalf("η %v: epoch 2 Loss·Rows = %v, Mistakes %d; want R(w1) = %v, %d", eta, got, s2[1].Mistakes, risk, mistakes)
			}
			// Step 2 adds η·y·x of the one mistaken row (0, 1), y = +1.
			w2 := []float32{w1[0], w1[1] + float32(eta)}
			if !slices.Equal(m2.W, w2) || m2.B[0] != float32(eta) {
				t.Fatalf("η %v: after step 2 W %v B %v, want %v and %v", eta, m2.W, m2.B, w2, eta)
			}
		})
	}
}

// TestCancellation: a done context and an OnEpoch error stop training and
// come back from Fit with the model so far.
func TestCancellation(t *testing.T) {
	X, y := fxIntBinary(22, 300, 20, 4, 0.3)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, alg := range []Algorithm{Averaged, Plain, Voted, Batch} {
		t.Run(alg.String(), func(t *testing.T) {
			m, stats, err := Fit(ctx, X, y, Config{Algorithm: alg})
			if !errors.Is(err, context.Canceled) || m == nil || len(stats) != 0 {
				t.Fatalf("%v, cancelled context: model %v, %d epochs, err %v", alg, m != nil, len(stats), err)
			}
			if err := m.Check(); err != nil {
				t.Fatalf("%v: model of a cancelled Fit fails Check: %v", alg, err)
			}
		})
	}

	stop := errors.New("enough")
	var seen []int
	m, stats, err := Fit(context.Background(), X, y, Config{Epochs: 50, OnEpoch: func(s EpochStats) error {
		seen = append(seen, s.Epoch)
		if s.Epoch == 3 {
			return fmt.Errorf("wrapped: %w", stop)
		}
		return nil
	}})
	if !errors.Is(err, stop) || m == nil || len(stats) != 3 || !slices.Equal(seen, []int{1, 2, 3}) {
		t.Fatalf("OnEpoch error at epoch 3: err %v, model %v, %d epochs, OnEpoch saw %v", err, m != nil, len(stats), seen)
	}
	// The model returned is the one after epoch 3.
	m3, _ := fxFit(t, X, y, Config{Epochs: 3})
	fxSameModel(t, "stopped by OnEpoch after 3 vs Epochs 3", m, m3)

	// Cancelling from OnEpoch stops before the next epoch.
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	_, stats, err = Fit(ctx2, X, y, Config{Algorithm: Batch, Epochs: 50, OnEpoch: func(s EpochStats) error {
		if s.Epoch == 2 {
			cancel2()
		}
		return nil
	}})
	if !errors.Is(err, context.Canceled) || len(stats) != 2 {
		t.Fatalf("cancelled after epoch 2: err %v, %d epochs", err, len(stats))
	}
}

// TestTrainLoss: TrainLoss measures the model at the end of every epoch.
func TestTrainLoss(t *testing.T) {
	X, y := fxIntBinary(23, 300, 20, 4, 0.2)
	Xm, ym := fxIntMulti(24, 300, 20, 4, 3, 0.2)
	for _, alg := range []Algorithm{Averaged, Plain, Voted, Batch} {
		t.Run(alg.String(), func(t *testing.T) {
			for _, d := range []struct {
				X *sparse.CSR
				y []float64
			}{{X, y}, {Xm, ym}} {
				m, stats := fxFit(t, d.X, d.y, Config{Algorithm: alg, Epochs: 4, TrainLoss: true, Seed: 3})
				for _, s := range stats {
					if math.IsNaN(s.TrainLoss) || math.IsInf(s.TrainLoss, 0) || s.TrainLoss < 0 || s.TrainMistakes < 0 || s.TrainMistakes > s.Rows {
						t.Fatalf("%v epoch %d: TrainLoss %v, TrainMistakes %d", alg, s.Epoch, s.TrainLoss, s.TrainMistakes)
					}
				}
				if alg == Voted {
					continue // the vote has no margin of its own
				}
				// The last epoch's figures are those of the returned model.
				last := stats[len(stats)-1]
				mistakes := 0
				loss := 0.0
				sc := make([]float32, m.NumRows())
				for i := 0; i < d.X.Rows; i++ {
					row := d.X.Row(i)
					var mg float32
					if m.Binary() {
						mg = m.Decision(row)
						if d.y[i] == m.Classes[0] {
							mg = -mg
						}
					} else {
						m.Scores(row, sc)
						c := slices.Index(m.Classes, d.y[i])
						mg = sc[c] - sc[bestOther(sc, c)]
					}
					if mg <= 0 {
						mistakes++
						loss -= float64(mg)
					}
				}
				if last.TrainMistakes != mistakes || math.Abs(last.TrainLoss-loss/float64(d.X.Rows)) > 1e-5*(1+loss) {
					t.Fatalf("%v: last epoch TrainMistakes %d, TrainLoss %v; the model has %d and %v", alg, last.TrainMistakes, last.TrainLoss, mistakes, loss/float64(d.X.Rows))
				}
			}
			_, stats := fxFit(t, X, y, Config{Algorithm: alg, Epochs: 3})
			for _, s := range stats {
				if !math.IsNaN(s.TrainLoss) || s.TrainMistakes != -1 {
					t.Fatalf("%v without TrainLoss: TrainLoss %v, TrainMistakes %d", alg, s.TrainLoss, s.TrainMistakes)
				}
				if s.Loss < 0 || math.IsNaN(s.Loss) {
					t.Fatalf("%v: Loss %v", alg, s.Loss)
				}
			}
		})
	}
}

// TestFitErrors: every bad input maps to its sentinel.
func TestFitErrors(t *testing.T) {
	X := sparse.FromDense([][]float32{{1, 0}, {0, 1}, {1, 1}})
	y := []float64{0, 1, 0}
	badCSR := &sparse.CSR{Rows: 2, Cols: 2, Indptr: []int64{0, 1, 2}, Ind: []int32{0, 5}, Val: []float32{1, 1}}
	unsorted := &sparse.CSR{Rows: 2, Cols: 3, Indptr: []int64{0, 2, 3}, Ind: []int32{2, 1, 0}, Val: []float32{1, 1, 1}}
	huge := sparse.FromDense([][]float32{{1e30}, {-1e30}, {1e30}})
	wide := &sparse.CSR{Rows: 3, Cols: 1 << 30, Indptr: []int64{0, 0, 0, 0}, Ind: []int32{}, Val: []float32{}}
	for _, tc := range []struct {
		name string
		X    *sparse.CSR
		y    []float64
		cfg  Config
		want error
	}{
		{"nil X", nil, nil, Config{}, ErrNoData},
		{"zero rows", &sparse.CSR{Cols: 3, Indptr: []int64{0}}, nil, Config{}, ErrNoData},
		{"too few labels", X, y[:2], Config{}, ErrLabels},
		{"too many labels", X, []float64{0, 1, 0, 1}, Config{}, ErrLabels},
		{"one class", X, []float64{1, 1, 1}, Config{}, ErrLabels},
		{"NaN label", X, []float64{0, math.NaN(), 1}, Config{}, ErrLabels},
		{"infinite label", X, []float64{0, math.Inf(-1), 1}, Config{}, ErrLabels},
		{"more classes than MaxClasses", X, []float64{0, 1, 2}, Config{MaxClasses: 2}, ErrLabels},
		{"negative Epochs", X, y, Config{Epochs: -1}, ErrConfig},
		{"NaN LearningRate", X, y, Config{LearningRate: math.NaN()}, ErrConfig},
		{"negative LearningRate", X, y, Config{LearningRate: -1}, ErrConfig},
		{"Validation 1", X, y, Config{Validation: 1}, ErrConfig},
		{"negative Validation", X, y, Config{Validation: -0.1}, ErrConfig},
		{"negative Margin", X, y, Config{Margin: -1}, ErrConfig},
		{"NaN InitScale", X, y, Config{InitScale: math.NaN()}, ErrConfig},
		{"negative BiasScale", X, y, Config{Bias: BiasAugmented, BiasScale: -1}, ErrConfig},
		{"negative Patience", X, y, Config{Patience: -1}, ErrConfig},
		{"unknown algorithm", X, y, Config{Algorithm: Batch + 1}, ErrConfig},
		{"unknown bias mode", X, y, Config{Bias: NoBias + 1}, ErrConfig},
		{"index out of range", badCSR, []float64{0, 1}, Config{}, ErrDim},
		{"indices unsorted", unsorted, []float64{0, 1}, Config{}, ErrDim},
		{"more weights than a model holds", wide, []float64{0, 1, 2}, Config{}, ErrDim},
		{"diverged", huge, []float64{1, -1, -1}, Config{LearningRate: 1e30, Algorithm: Plain}, ErrDiverged},
		{"diverged, averaged", huge, []float64{1, -1, -1}, Config{LearningRate: 1e30}, ErrDiverged},
		{"diverged, batch", huge, []float64{1, -1, -1}, Config{LearningRate: 1e30, Algorithm: Batch}, ErrDiverged},
	} {
		m, _, err := Fit(context.Background(), tc.X, tc.y, tc.cfg)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: err %v, want %v", tc.name, err, tc.want)
		}
		if m != nil {
			t.Errorf("%s: a model came back with the error", tc.name)
		}
	}
	// A config error wins over bad data: Fit checks the config first.
	if _, _, err := Fit(context.Background(), nil, nil, Config{Epochs: -1}); !errors.Is(err, ErrConfig) {
		t.Errorf("bad config and no data: %v", err)
	}
	// MaxClasses exactly met is fine.
	if _, _, err := Fit(context.Background(), X, []float64{0, 1, 2}, Config{MaxClasses: 3, Epochs: 1}); err != nil {
		t.Errorf("3 classes, MaxClasses 3: %v", err)
	}
}

// TestParseNames: the names of algorithms and bias modes round-trip.
func TestParseNames(t *testing.T) {
	for a := Averaged; a <= Batch; a++ {
		got, err := ParseAlgorithm(a.String())
		if err != nil || got != a {
			t.Errorf("ParseAlgorithm(%q) = %v, %v", a.String(), got, err)
		}
	}
	for b := BiasSeparate; b <= NoBias; b++ {
		got, err := ParseBiasMode(b.String())
		if err != nil || got != b {
			t.Errorf("ParseBiasMode(%q) = %v, %v", b.String(), got, err)
		}
	}
	if a, err := ParseAlgorithm("VOTED"); err != nil || a != Voted {
		t.Errorf("ParseAlgorithm is not case-insensitive: %v, %v", a, err)
	}
	if _, err := ParseAlgorithm("pegasos"); !errors.Is(err, ErrConfig) {
		t.Errorf("ParseAlgorithm(pegasos): %v", err)
	}
	if _, err := ParseBiasMode("both"); !errors.Is(err, ErrConfig) {
		t.Errorf("ParseBiasMode(both): %v", err)
	}
}

// shuffle must make rng.Shuffle's permutation from the same draws: models
// trained before it replaced rng.Shuffle stay the same.
func TestShuffleMatchesRandShuffle(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 17, 1000, 25000} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			for seed := range uint64(3) {
				a := make([]int32, n)
				b := make([]int32, n)
				for i := range a {
					a[i], b[i] = int32(i), int32(i)
				}
				ra := rand.New(rand.NewPCG(seed, 1))
				rb := rand.New(rand.NewPCG(seed, 1))
				ra.Shuffle(n, func(i, j int) { a[i], a[j] = a[j], a[i] })
				shuffle(rb, b)
				if !slices.Equal(a, b) {
					t.Fatalf("n=%d seed=%d: shuffle differs from rand.Shuffle", n, seed)
				}
				// The generators must also be left in the same state.
				if x, y := ra.Uint64(), rb.Uint64(); x != y {
					t.Fatalf("n=%d seed=%d: generator state differs after shuffling", n, seed)
				}
			}
		})
	}
}

// pcgRand.shuffle must draw as shuffle does over rand.Rand and leave the
// generator where it leaves it, for every size (bounds that are powers
// of two take another branch of Uint64N) and through rejected draws
// (bounds near 2^63 reject almost half of them).
func TestPCGShuffleMatchesShuffle(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 4, 5, 17, 64, 1000, 1 << 12, 25000} {
		for seed := range uint64(4) {
			a := make([]int32, n)
			for i := range a {
				a[i] = int32(i)
			}
			b := slices.Clone(a)
			ra := rand.New(rand.NewPCG(seed, 7))
			rb := newPCGRand(seed, 7)
			shuffle(ra, a)
			rb.shuffle(b)
			if !slices.Equal(a, b) {
				t.Fatalf("n=%d seed=%d: pcgRand.shuffle differs from shuffle", n, seed)
			}
			if x, y := ra.Uint64(), rb.Uint64(); x != y {
				t.Fatalf("n=%d seed=%d: generator state differs after shuffling", n, seed)
			}
		}
	}
	// Uint64N's other branches, which the bounds of a shuffle rarely or
	// never take: powers of two, and draws rejected for bias (bounds just
	// above 2^63 reject about half of them).
	for seed := range uint64(20) {
		ra := rand.New(rand.NewPCG(seed, 7))
		hi, lo := pcgState(t, rand.NewPCG(seed, 7))
		for k, n := range []uint64{1, 2, 1 << 40, 1<<63 + 1, 1<<63 + 12345, 3, 1<<64 - 1} {
			for range 10 {
				want := ra.Uint64N(n)
				var got uint64
				hi, lo, got = pcgUint64N(hi, lo, n)
				if got != want {
					t.Fatalf("seed %d, bound %d (#%d): drew %d, Uint64N %d", seed, n, k, got, want)
				}
			}
		}
		if x, y := ra.Uint64(), pcgUint64(&hi, &lo); x != y {
			t.Fatalf("seed %d: generator state differs after the draws", seed)
		}
	}
}

// pcgUint64N is rand.Rand.Uint64N(n) on a 64-bit platform from the PCG
// state (hi, lo), composed as pcgRand.shuffle draws each bound: the
// state after the draws and the value drawn in [0, n), n > 0.
func pcgUint64N(hi, lo, n uint64) (nhi, nlo, j uint64) {
	var x uint64
	hi, lo, x = pcgNext(hi, lo)
	if n&(n-1) == 0 {
		return hi, lo, x & (n - 1)
	}
	h, l := bits.Mul64(x, n)
	if l < n {
		return pcgRedraw(hi, lo, n, h, l)
	}
	return hi, lo, h
}

// pcgUint64 draws as PCG.Uint64 from the state (hi, lo).
func pcgUint64(hi, lo *uint64) uint64 {
	var x uint64
	*hi, *lo, x = pcgNext(*hi, *lo)
	return x
}

// BenchmarkShuffle draws one epoch's order of 25,000 rows (imdb.train's
// size) with shuffle over rand.Rand and with pcgRand.shuffle, which draw
// the same permutation.
func BenchmarkShuffle(b *testing.B) {
	p := make([]int32, 25000)
	b.Run("rand", func(b *testing.B) {
		r := rand.New(rand.NewPCG(1, 2))
		for b.Loop() {
			shuffle(r, p)
		}
	})
	b.Run("pcg", func(b *testing.B) {
		r := newPCGRand(1, 2)
		for b.Loop() {
			r.shuffle(p)
		}
	})
}

// pcgState returns the state of p.
func pcgState(t *testing.T, p *rand.PCG) (hi, lo uint64) {
	b, err := p.MarshalBinary()
	if err != nil || len(b) != 20 {
		t.Fatalf("PCG.MarshalBinary: %v (%d bytes)", err, len(b))
	}
	return binary.BigEndian.Uint64(b[4:]), binary.BigEndian.Uint64(b[12:])
}

// TestHugeEpochs: Epochs as large as math.MaxInt (to mean "until it
// converges") counts the epochs left after convergence without
// overflowing: the voted model stays valid and the averaged one leans
// on the final vector, as with any large Epochs.
func TestHugeEpochs(t *testing.T) {
	X, y := fxIntBinary(25, 200, 20, 4, 0) // separable
	plain, _ := fxFit(t, X, y, Config{Algorithm: Plain, Epochs: 1000, NoShuffle: true})
	for _, alg := range []Algorithm{Voted, Averaged} {
		t.Run(alg.String(), func(t *testing.T) {
			m, stats, err := Fit(context.Background(), X, y, Config{Algorithm: alg, Epochs: math.MaxInt, NoShuffle: true})
			if err != nil || stats[len(stats)-1].Updates != 0 {
				t.Fatalf("%v: %v after %d epochs", alg, err, len(stats))
			}
			if err := m.Check(); err != nil {
				t.Fatalf("%v: %v", alg, err)
			}
			for i := range X.Rows {
				if m.Predict(X.Row(i)) != y[i] {
					t.Fatalf("%v: row %d misclassified after convergence", alg, i)
				}
			}
			if alg == Averaged {
				for j, w := range m.W {
					if d := math.Abs(float64(w - plain.W[j])); d > 1e-5*math.Abs(float64(plain.W[j]))+1e-6 {
						t.Fatalf("averaged weight %d = %v, the final vector's %v", j, w, plain.W[j])
					}
				}
			}
		})
	}
}

// cancelAfter is a context whose Err turns to Canceled after n calls.
type cancelAfter struct {
	context.Context
	n int
}

func (c *cancelAfter) Err() error {
	if c.n--; c.n < 0 {
		return context.Canceled
	}
	return nil
}

// TestBatchCancelMidEpoch: the batch perceptron checks ctx every 65536
// rows as the online ones do, and a cancelled epoch takes no step.
func TestBatchCancelMidEpoch(t *testing.T) {
	X, y := fxIntBinary(26, 70000, 30, 4, 0.1)
	ctx := &cancelAfter{Context: context.Background(), n: 1}
	m, stats, err := Fit(ctx, X, y, Config{Algorithm: Batch, LearningRate: 0.1})
	if !errors.Is(err, context.Canceled) || len(stats) != 0 {
		t.Fatalf("cancelled in epoch 1: %v, %d epochs", err, len(stats))
	}
	for _, w := range m.W {
		if w != 0 {
			t.Fatal("the cancelled epoch moved the weights")
		}
	}
}

// TestLearningRateTooSmall: a positive rate or bias scale that is 0 in
// float32 is refused: training would not move.
func TestLearningRateTooSmall(t *testing.T) {
	X, y := fxIntBinary(27, 20, 5, 2, 0)
	for _, cfg := range []Config{{LearningRate: 1e-46}, {BiasScale: 1e-30}} {
		if _, _, err := Fit(context.Background(), X, y, cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: %v, want ErrConfig", cfg, err)
		}
	}
}

// TestClassWeightUnknownLabel: a class weight keyed by a label the data
// does not have (0 for labels −1 and +1) is an error in every trainer,
// not a weight that silently does nothing.
func TestClassWeightUnknownLabel(t *testing.T) {
	X, y := fxIntBinary(28, 20, 5, 2, 0) // labels −1, +1
	cw := map[float64]float64{0: 5}
	if _, _, err := Fit(context.Background(), X, y, Config{ClassWeight: cw}); !errors.Is(err, ErrConfig) {
		t.Errorf("Fit: %v", err)
	}
	if _, _, err := FitKernel(context.Background(), X, y, KernelConfig{Config: Config{ClassWeight: cw}}); !errors.Is(err, ErrConfig) {
		t.Errorf("FitKernel: %v", err)
	}
	if _, err := NewLearner([]float64{-1, 1}, 5, Config{ClassWeight: cw}); !errors.Is(err, ErrConfig) {
		t.Errorf("NewLearner: %v", err)
	}
	if _, _, err := Fit(context.Background(), X, y, Config{ClassWeight: map[float64]float64{-1: 2, math.Copysign(0, -1) + 1: 3}}); err != nil {
		t.Errorf("weights for both labels: %v", err)
	}
}
