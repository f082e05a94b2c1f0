package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/libsvm"
)

// fxLearner calls NewLearner and fails the test on an error.
func fxLearner(t testing.TB, classes []float64, dim int, cfg Config) *Learner {
	t.Helper()
	l, err := NewLearner(classes, dim, cfg)
	if err != nil {
		t.Fatalf("NewLearner(%v, %d, %+v): %v", classes, dim, cfg, err)
	}
	return l
}

// fxSameVotes fails unless two voted models have identical records.
func fxSameVotes(t testing.TB, what string, a, b *Model) {
	t.Helper()
	if (a.Votes == nil) != (b.Votes == nil) {
		t.Fatalf("%s: votes %v vs %v", what, a.Votes != nil, b.Votes != nil)
	}
	if a.Votes != nil && !reflect.DeepEqual(a.Votes, b.Votes) {
		t.Fatalf("%s: vote records differ: %d/%d steps, %d/%d SV rows, Count0 %d/%d",
			what, len(a.Votes.Steps), len(b.Votes.Steps), a.Votes.SV.Rows, b.Votes.SV.Rows, a.Votes.Count0, b.Votes.Count0)
	}
}

// TestLearnerEqualsFitOneEpoch: learning the rows in order one by one is
// one epoch of Fit without shuffling, bit for bit.
func TestLearnerEqualsFitOneEpoch(t *testing.T) {
	Xb, yb := fxIntBinary(50, 500, 40, 5, 0.2)
	Xm, ym := fxIntMulti(51, 500, 40, 5, 4, 0.2)
	Xf, yf := fxDenseSeparable(52, 300, 12, 3, 0.05) // non-integer values
	for _, tc := range []struct {
		name string
		X    *sparse.CSR
		y    []float64
		cfg  Config
	}{
		{"plain", Xb, yb, Config{Algorithm: Plain}},
		{"averaged", Xb, yb, Config{}},
		{"averaged-multi", Xm, ym, Config{}},
		{"averaged-multi-float", Xf, yf, Config{}},
		{"plain-multi-float", Xf, yf, Config{Algorithm: Plain}},
		{"voted", Xb, yb, Config{Algorithm: Voted}},
		{"voted-multi", Xm, ym, Config{Algorithm: Voted}},
		{"init-margin-rate", Xb, yb, Config{InitScale: 0.3, Margin: 2, LearningRate: 0.5, Seed: 4}},
		{"voted-init", Xm, ym, Config{Algorithm: Voted, InitScale: 0.3, Seed: 4}},
		{"augmented-bias", Xm, ym, Config{Bias: BiasAugmented, BiasScale: 2}},
		{"no-bias", Xb, yb, Config{Bias: NoBias}},
		{"class-weight", Xm, ym, Config{ClassWeight: map[float64]float64{1: 0, 2: 3}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.NoShuffle, cfg.Epochs = true, 1
			want, stats := fxFit(t, tc.X, tc.y, cfg)
			l := fxLearner(t, want.Classes, tc.X.Cols, cfg)
			mistakes := 0
			for i := 0; i < tc.X.Rows; i++ {
				wrong, err := l.Learn(tc.X.Row(i), tc.y[i])
				if err != nil {
					t.Fatalf("row %d: %v", i, err)
				}
				if wrong {
					mistakes++
				}
			}
			got := l.Model()
			if err := got.Check(); err != nil {
				t.Fatalf("learner's model fails Check: %v", err)
			}
			fxSameModel(t, "learner vs Fit, one epoch", got, want)
			fxSameVotes(t, "learner vs Fit, one epoch", got, want)
			if mistakes != stats[0].Mistakes {
				t.Fatalf("learner made %d mistakes, Fit %d", mistakes, stats[0].Mistakes)
			}
			if l.Seen() != int64(tc.X.Rows) {
				t.Fatalf("Seen %d after %d rows", l.Seen(), tc.X.Rows)
			}
			if got.Algorithm != want.Algorithm || got.Bias != want.Bias || got.BiasScale != want.BiasScale || !slices.Equal(got.Classes, want.Classes) {
				t.Fatalf("model header differs: %v/%v %v/%v %v/%v %v/%v", got.Algorithm, want.Algorithm, got.Bias, want.Bias, got.BiasScale, want.BiasScale, got.Classes, want.Classes)
			}
		})
	}
}

// TestPartialFit: two passes of PartialFit are two epochs of Fit without
// shuffling; one shuffled pass is one shuffled epoch of Fit.
func TestPartialFit(t *testing.T) {
	Xb, yb := fxIntBinary(53, 400, 30, 5, 0.3)
	Xm, ym := fxIntMulti(54, 400, 30, 5, 3, 0.3)
	for _, alg := range []Algorithm{Averaged, Plain, Voted} {
		t.Run(alg.String(), func(t *testing.T) {
			for _, multi := range []bool{false, true} {
				t.Run(fmt.Sprintf("multi=%v", multi), func(t *testing.T) {
					X, y := Xb, yb
					if multi {
						X, y = Xm, ym
					}
					name := fmt.Sprintf("%v multi=%v", alg, multi)
					cfg := Config{Algorithm: alg, NoShuffle: true, Epochs: 2}
					want, wstats := fxFit(t, X, y, cfg)
					if len(wstats) != 2 {
						t.Fatalf("%s: Fit ran %d epochs", name, len(wstats))
					}
					l := fxLearner(t, want.Classes, X.Cols, cfg)
					for e := range 2 {
						s, err := l.PartialFit(context.Background(), X, y)
						if err != nil {
							t.Fatalf("%s pass %d: %v", name, e+1, err)
						}
						w := wstats[e]
						if s.Rows != w.Rows || s.Mistakes != w.Mistakes || s.Updates != w.Updates || s.Loss != w.Loss {
							t.Fatalf("%s pass %d: %+v, Fit epoch %+v", name, e+1, s, w)
						}
						if s.TrainMistakes != -1 || s.TrainLoss == s.TrainLoss || s.ValidAccuracy == s.ValidAccuracy {
							t.Fatalf("%s pass %d: TrainLoss %v, TrainMistakes %d, ValidAccuracy %v; want NaN, −1, NaN", name, e+1, s.TrainLoss, s.TrainMistakes, s.ValidAccuracy)
						}
					}
					got := l.Model()
					fxSameModel(t, name+": PartialFit ×2 vs Fit 2 epochs", got, want)
					if alg != Voted {
						fxSameVotes(t, name, got, want)
					} else if len(got.Votes.Steps) != len(want.Votes.Steps) {
						// The learner keeps a row per update; Fit shares rows.
						t.Fatalf("%s: %d vote steps, Fit %d", name, len(got.Votes.Steps), len(want.Votes.Steps))
					}
					if l.Seen() != int64(2*X.Rows) {
						t.Fatalf("%s: Seen %d", name, l.Seen())
					}

					// Shuffled: one pass is Fit's first epoch with the same seed.
					cfg = Config{Algorithm: alg, Epochs: 1, Seed: 99}
					want, _ = fxFit(t, X, y, cfg)
					l = fxLearner(t, want.Classes, X.Cols, cfg)
					if _, err := l.PartialFit(context.Background(), X, y); err != nil {
						t.Fatal(err)
					}
					fxSameModel(t, name+": shuffled PartialFit vs Fit 1 epoch", l.Model(), want)
				})
			}
		})
	}

	l := fxLearner(t, []float64{-1, 1}, 30, Config{NoShuffle: true})
	if _, err := l.PartialFit(context.Background(), Xb, yb[:10]); !errors.Is(err, ErrLabels) {
		t.Fatalf("PartialFit with 10 labels for 400 rows: %v", err)
	}
	if _, err := l.PartialFit(context.Background(), nil, nil); !errors.Is(err, ErrLabels) {
		t.Fatalf("PartialFit(nil): %v", err)
	}
	// An unknown label stops the pass there; the rows before it count.
	bad := slices.Clone(yb)
	bad[17] = 5
	s, err := l.PartialFit(context.Background(), Xb, bad)
	if !errors.Is(err, ErrUnknownLabel) || l.Seen() != 17 || s.Rows != 17 {
		t.Fatalf("PartialFit with an unknown label at row 17: err %v, Seen %d, Rows %d", err, l.Seen(), s.Rows)
	}
}

// fxLIBSVM formats rows as LIBSVM text (1-based indices).
func fxLIBSVM(X *sparse.CSR, y []float64) string {
	var sb strings.Builder
	for i := 0; i < X.Rows; i++ {
		sb.WriteString(strconv.FormatFloat(y[i], 'g', -1, 64))
		row := X.Row(i)
		for k, j := range row.Ind {
			fmt.Fprintf(&sb, " %d:%s", j+1, strconv.FormatFloat(float64(row.Val[k]), 'g', -1, 32))
		}
		if i%7 == 3 {
			sb.WriteString(" # comment")
		}
		sb.WriteByte('\n')
		if i%11 == 5 {
			sb.WriteString("\n# a comment line\n")
		}
	}
	return sb.String()
}

// TestLearnFromScanner: learning a LIBSVM stream is learning its rows
// one by one, the learner growing to the widest row.
func TestLearnFromScanner(t *testing.T) {
	Xb, yb := fxIntBinary(55, 300, 25, 4, 0.2)
	Xm, ym := fxIntMulti(56, 300, 25, 4, 3, 0.2)
	for _, tc := range []struct {
		name    string
		X       *sparse.CSR
		y       []float64
		classes []float64
		cfg     Config
	}{
		{"averaged", Xb, yb, []float64{-1, 1}, Config{}},
		{"voted-multi", Xm, ym, []float64{0, 1, 2}, Config{Algorithm: Voted}},
		{"plain-multi", Xm, ym, []float64{0, 1, 2}, Config{Algorithm: Plain, Margin: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := fxLIBSVM(tc.X, tc.y)
			a := fxLearner(t, tc.classes, 0, tc.cfg)
			s, err := a.LearnFrom(context.Background(), libsvm.NewScanner(strings.NewReader(text), sparse.ReadOptions{}))
			if err != nil {
				t.Fatalf("%s: LearnFrom: %v", tc.name, err)
			}
			b := fxLearner(t, tc.classes, 0, tc.cfg)
			mistakes := 0
			for i := 0; i < tc.X.Rows; i++ {
				wrong, err := b.Learn(tc.X.Row(i), tc.y[i])
				if err != nil {
					t.Fatalf("%s row %d: %v", tc.name, i, err)
				}
				if wrong {
					mistakes++
				}
			}
			if s.Rows != tc.X.Rows || s.Mistakes != mistakes || a.Seen() != b.Seen() {
				t.Fatalf("%s: LearnFrom saw %d rows, %d mistakes (Seen %d); row by row %d rows, %d mistakes (Seen %d)",
					tc.name, s.Rows, s.Mistakes, a.Seen(), tc.X.Rows, mistakes, b.Seen())
			}
			ma, mb := a.Model(), b.Model()
			fxSameModel(t, tc.name+": LearnFrom vs Learn", ma, mb)
			fxSameVotes(t, tc.name+": LearnFrom vs Learn", ma, mb)
			if ma.Dim < tc.X.Cols-1 {
				t.Fatalf("%s: learner started at width 0 has Dim %d after rows %d wide", tc.name, ma.Dim, tc.X.Cols)
			}
		})
	}

	// A malformed line ends the stream with the scanner's error, the rows
	// before it learned.
	l := fxLearner(t, []float64{-1, 1}, 0, Config{})
	s, err := l.LearnFrom(context.Background(), libsvm.NewScanner(strings.NewReader("1 1:1\n-1 2:1\n1 3:x\n1 1:1\n"), sparse.ReadOptions{}))
	if err == nil || s.Rows != 2 || l.Seen() != 2 {
		t.Fatalf("malformed third line: err %v, %d rows, Seen %d", err, s.Rows, l.Seen())
	}
	var pe *sparse.ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("malformed line: error %T %v is not the scanner's *sparse.ParseError", err, err)
	}
	// An unknown label in the stream.
	l = fxLearner(t, []float64{-1, 1}, 0, Config{})
	s, err = l.LearnFrom(context.Background(), libsvm.NewScanner(strings.NewReader("1 1:1\n3 2:1\n"), sparse.ReadOptions{}))
	if !errors.Is(err, ErrUnknownLabel) || s.Rows != 1 || l.Seen() != 1 {
		t.Fatalf("unknown label on row 2: err %v, %d rows, Seen %d", err, s.Rows, l.Seen())
	}
}

// TestLearnerGrows: rows wider than the learner widen it; the weights of
// the old features are what a learner as wide from the start learns.
func TestLearnerGrows(t *testing.T) {
	X, y := fxIntMulti(57, 300, 60, 5, 3, 0.2)
	for _, alg := range []Algorithm{Averaged, Plain, Voted} {
		t.Run(alg.String(), func(t *testing.T) {
			cfg := Config{Algorithm: alg}
			small := fxLearner(t, []float64{0, 1, 2}, 4, cfg)
			wide := fxLearner(t, []float64{0, 1, 2}, 60, cfg)
			if d := small.Model().Dim; d != 4 {
				t.Fatalf("%v: new learner has Dim %d, want 4", alg, d)
			}
			for i := 0; i < X.Rows; i++ {
				x := X.Row(i)
				x.Dim = int(x.Ind[len(x.Ind)-1]) + 1 // as narrow as the row allows
				if _, err := small.Learn(x, y[i]); err != nil {
					t.Fatalf("%v row %d: %v", alg, i, err)
				}
				if _, err := wide.Learn(X.Row(i), y[i]); err != nil {
					t.Fatal(err)
				}
			}
			ms, mw := small.Model(), wide.Model()
			if err := ms.Check(); err != nil {
				t.Fatalf("%v: grown model fails Check: %v", alg, err)
			}
			if ms.Dim < 60 {
				t.Fatalf("%v: Dim %d after rows 60 wide", alg, ms.Dim)
			}
			for k := range 3 {
				for j := range ms.Dim {
					var want float32
					if j < mw.Dim {
						want = mw.Weight(k, j)
					}
					if ms.Weight(k, j) != want {
						t.Fatalf("%v: grown learner W[%d,%d] = %v, learner wide from the start %v", alg, k, j, ms.Weight(k, j), want)
					}
				}
			}
			if !slices.Equal(ms.B, mw.B) {
				t.Fatalf("%v: biases %v vs %v", alg, ms.B, mw.B)
			}
			for i := 0; i < 50; i++ {
				if p, q := ms.Predict(X.Row(i)), mw.Predict(X.Row(i)); p != q {
					t.Fatalf("%v row %d: grown model predicts %v, wide one %v", alg, i, p, q)
				}
			}
		})
	}

	// Binary, far past the start width, with a random start and votes.
	l := fxLearner(t, []float64{0, 1}, 2, Config{Algorithm: Voted, InitScale: 0.5, Seed: 3})
	before := l.Model()
	if _, err := l.Learn(sparse.Vector{Dim: 1001, Ind: []int32{0, 1000}, Val: []float32{1, 2}}, 0); err != nil {
		t.Fatal(err)
	}
	m := l.Model()
	if m.Dim < 1001 {
		t.Fatalf("Dim %d after a row with feature 1000", m.Dim)
	}
	if err := m.Check(); err != nil {
		t.Fatalf("grown voted model with a random start fails Check: %v", err)
	}
	if len(m.Votes.W0) != len(m.W) || m.Votes.W0[0] != before.Votes.W0[0] || m.Votes.W0[1] != before.Votes.W0[1] {
		t.Fatalf("start weights after growing: %d long (W %d), first %v, before %v", len(m.Votes.W0), len(m.W), m.Votes.W0[:2], before.Votes.W0)
	}
	if m.Predict(sparse.Vector{Dim: 2000, Ind: []int32{1000, 1999}, Val: []float32{1, 1}}) != 0 {
		t.Fatalf("the row just learned as class 0 (feature 1000) is not class 0")
	}
	// The snapshot taken before is untouched.
	if before.Dim != 2 || len(before.W) != 2 {
		t.Fatalf("snapshot changed: Dim %d, %d weights", before.Dim, len(before.W))
	}
}

// TestLearnerRejects: bad examples are errors that change nothing.
func TestLearnerRejects(t *testing.T) {
	l := fxLearner(t, []float64{1, 2, 3}, 5, Config{MaxDim: 10})
	x := sparse.Vector{Dim: 5, Ind: []int32{0, 4}, Val: []float32{1, -1}}
	for i := range 3 {
		if _, err := l.Learn(x, float64(1+i)); err != nil {
			t.Fatal(err)
		}
	}
	before := l.Model()
	for _, tc := range []struct {
		name   string
		x      sparse.Vector
		y, w   float64
		target error
	}{
		{"unknown label", x, 4, 1, ErrUnknownLabel},
		{"label between classes", x, 1.5, 1, ErrUnknownLabel},
		{"past MaxDim", sparse.Vector{Dim: 11, Ind: []int32{10}, Val: []float32{1}}, 1, 1, ErrDim},
		{"unsorted row", sparse.Vector{Dim: 5, Ind: []int32{3, 1}, Val: []float32{1, 1}}, 1, 1, ErrDim},
		{"negative index", sparse.Vector{Dim: 5, Ind: []int32{-1}, Val: []float32{1}}, 1, 1, ErrDim},
		{"ragged row", sparse.Vector{Dim: 5, Ind: []int32{1, 2}, Val: []float32{1}}, 1, 1, ErrDim},
		{"negative weight", x, 1, -1, ErrConfig},
		{"NaN weight", x, 1, nanF(), ErrConfig},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := l.LearnWeighted(tc.x, tc.y, tc.w)
			if !errors.Is(err, tc.target) {
				t.Errorf("%s: err %v, want %v", tc.name, err, tc.target)
			}
			if l.Seen() != 3 {
				t.Fatalf("%s: Seen %d, want 3 (unchanged)", tc.name, l.Seen())
			}
			after := l.Model()
			fxSameModel(t, tc.name+": model after a rejected example", after, before)
		})
	}
	// MaxDim itself is reachable.
	if _, err := l.Learn(sparse.Vector{Dim: 10, Ind: []int32{9}, Val: []float32{1}}, 1); err != nil {
		t.Fatalf("feature 9 with MaxDim 10: %v", err)
	}
	if d := l.Model().Dim; d != 10 {
		t.Fatalf("Dim %d, want 10 (capped at MaxDim)", d)
	}
	// Weight 0: counted, reported, not learned.
	l = fxLearner(t, []float64{0, 1}, 2, Config{Algorithm: Plain})
	wrong, err := l.LearnWeighted(sparse.Vector{Dim: 2, Ind: []int32{0}, Val: []float32{1}}, 1, 0)
	if err != nil || !wrong || l.Seen() != 1 {
		t.Fatalf("weight 0: mistake %v, err %v, Seen %d", wrong, err, l.Seen())
	}
	if m := l.Model(); m.W[0] != 0 || m.B[0] != 0 {
		t.Fatalf("weight 0 changed the model: W %v B %v", m.W, m.B)
	}
	if _, err := l.LearnWeighted(sparse.Vector{Dim: 2, Ind: []int32{0}, Val: []float32{1}}, 1, 2.5); err != nil {
		t.Fatal(err)
	}
	if m := l.Model(); m.W[0] != 2.5 || m.B[0] != 2.5 {
		t.Fatalf("weight 2.5: W %v B %v, want 2.5 and 2.5", m.W, m.B)
	}
}

// TestNewLearnerErrors: configs and classes a learner cannot take.
func TestNewLearnerErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		classes []float64
		dim     int
		cfg     Config
		want    error
	}{
		{"batch", []float64{0, 1}, 3, Config{Algorithm: Batch}, ErrConfig},
		{"validation", []float64{0, 1}, 3, Config{Validation: 0.1}, ErrConfig},
		{"sample weights", []float64{0, 1}, 3, Config{SampleWeight: []float64{1}}, ErrConfig},
		{"balanced", []float64{0, 1}, 3, Config{Balanced: true}, ErrConfig},
		{"negative epochs", []float64{0, 1}, 3, Config{Epochs: -1}, ErrConfig},
		{"one class", []float64{1}, 3, Config{}, ErrLabels},
		{"no class", nil, 3, Config{}, ErrLabels},
		{"duplicate class", []float64{1, 2, 1}, 3, Config{}, ErrLabels},
		{"NaN class", []float64{0, nanF()}, 3, Config{}, ErrLabels},
		{"too many classes", []float64{0, 1, 2}, 3, Config{MaxClasses: 2}, ErrLabels},
		{"negative dim", []float64{0, 1}, -1, Config{}, ErrDim},
		{"dim past MaxDim", []float64{0, 1}, 11, Config{MaxDim: 10}, ErrDim},
	} {
		l, err := NewLearner(tc.classes, tc.dim, tc.cfg)
		if !errors.Is(err, tc.want) || l != nil {
			t.Errorf("%s: learner %v, err %v; want nil and %v", tc.name, l != nil, err, tc.want)
		}
	}
	// Classes are sorted; the caller's slice is not touched.
	cls := []float64{3, -1, 2}
	l := fxLearner(t, cls, 0, Config{})
	if m := l.Model(); !slices.Equal(m.Classes, []float64{-1, 2, 3}) || !slices.Equal(cls, []float64{3, -1, 2}) {
		t.Fatalf("Classes %v, caller's slice %v", m.Classes, cls)
	}
	if l.Seen() != 0 {
		t.Fatalf("new learner Seen %d", l.Seen())
	}
	// A model of a learner that has seen nothing is valid and predicts the
	// first class.
	m := l.Model()
	if err := m.Check(); err != nil {
		t.Fatal(err)
	}
	if p := m.Predict(sparse.Vector{Dim: 3, Ind: []int32{1}, Val: []float32{1}}); p != -1 {
		t.Fatalf("untrained model predicts %v", p)
	}
}

func nanF() float64 { z := 0.0; return z / z }

// TestLearnerDiverges: an update that overflows a weight returns
// ErrDiverged, and so does every later call, instead of a learner that
// silently stops learning on NaN weights.
func TestLearnerDiverges(t *testing.T) {
	l, err := NewLearner([]float64{-1, 1}, 4, Config{Algorithm: Plain, LearningRate: 1e30})
	if err != nil {
		t.Fatal(err)
	}
	x := sparse.Vector{Dim: 4, Ind: []int32{1, 2}, Val: []float32{3e38, 1}}
	var errs []error
	for _, y := range []float64{1, -1, 1, -1} {
		_, err := l.Learn(x, y)
		errs = append(errs, err)
	}
	if !errors.Is(errs[len(errs)-1], ErrDiverged) {
		t.Fatalf("errors %v: want ErrDiverged by the last call", errs)
	}
	if _, err := l.Learn(sparse.Vector{Dim: 4, Ind: []int32{0}, Val: []float32{1}}, 1); !errors.Is(err, ErrDiverged) {
		t.Fatalf("after divergence: %v, want ErrDiverged again", err)
	}
}

// TestLearnerWeightCap: the learner holds no more weights than a model
// can, as Fit refuses: a start width or one row of a stream that would
// need more is ErrDim, before anything is allocated.
func TestLearnerWeightCap(t *testing.T) {
	classes := make([]float64, 1024)
	for i := range classes {
		classes[i] = float64(i)
	}
	if _, err := NewLearner(classes, 1<<22, Config{}); !errors.Is(err, ErrDim) {
		t.Fatalf("NewLearner 2^22 wide × 1024 classes: %v, want ErrDim", err)
	}
	l := fxLearner(t, classes, 0, Config{})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := l.Learn(sparse.Vector{Dim: 1 << 22, Ind: []int32{1<<22 - 1}, Val: []float32{1}}, 0)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrDim) {
		t.Fatalf("Learn of a row 2^22 wide with 1024 classes: %v, want ErrDim", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Fatalf("the refused row allocated %d bytes", alloc)
	}
}

// TestLearnerNegativeZeroClass: NewLearner folds a class −0 into 0, as Fit
// does with labels.
func TestLearnerNegativeZeroClass(t *testing.T) {
	l := fxLearner(t, []float64{math.Copysign(0, -1), 1}, 2, Config{})
	if c := l.Model().Classes[0]; math.Signbit(c) {
		t.Fatalf("class %v keeps its sign bit", c)
	}
	if _, err := l.Learn(sparse.Vector{Dim: 2, Ind: []int32{0}, Val: []float32{1}}, 0); err != nil {
		t.Fatalf("Learn with label 0: %v", err)
	}
}

// TestLearnerPassNumbers: PartialFit and LearnFrom number their passes.
func TestLearnerPassNumbers(t *testing.T) {
	X := sparse.FromDense([][]float32{{1, 0}, {0, 1}, {-1, 0}})
	y := []float64{1, 1, -1}
	l := fxLearner(t, []float64{-1, 1}, 2, Config{})
	for want := 1; want <= 2; want++ {
		s, err := l.PartialFit(context.Background(), X, y)
		if err != nil || s.Epoch != want || s.Rows != 3 {
			t.Fatalf("PartialFit %d: %+v, %v", want, s, err)
		}
	}
	var buf strings.Builder
	if err := libsvm.Write(&buf, &sparse.Dataset{X: X, Y: y}); err != nil {
		t.Fatal(err)
	}
	s, err := l.LearnFrom(context.Background(), libsvm.NewScanner(strings.NewReader(buf.String()), sparse.ReadOptions{}))
	if err != nil || s.Epoch != 3 || s.Rows != 3 {
		t.Fatalf("LearnFrom after two passes: %+v, %v", s, err)
	}
}

// TestMulticlassEmptyRows: a multiclass model of width 0, or a learner
// that starts at width 0 and meets an empty row first, learns the biases
// from empty rows instead of slicing past its empty weights.
func TestMulticlassEmptyRows(t *testing.T) {
	l := fxLearner(t, []float64{1, 2, 3}, 0, Config{})
	sc := libsvm.NewScanner(strings.NewReader("2\n3 1:1 4:2\n1 2:1\n"), sparse.ReadOptions{})
	if _, err := l.LearnFrom(context.Background(), sc); err != nil {
		t.Fatal(err)
	}
	X := &sparse.CSR{Rows: 3, Cols: 0, Indptr: []int64{0, 0, 0, 0}}
	for _, alg := range []Algorithm{Averaged, Plain, Voted, Batch} {
		t.Run(alg.String(), func(t *testing.T) {
			m, _, err := Fit(context.Background(), X, []float64{0, 1, 2}, Config{Algorithm: alg})
			if err != nil || m.Dim != 0 || len(m.B) != 3 {
				t.Fatalf("%v on width 0: %v", alg, err)
			}
		})
	}
}
