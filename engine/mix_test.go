package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

// fxRefMix is parameter mixing done the slow way, for NoShuffle: every
// epoch, P workers each run the plain perceptron (multiclass rule for
// K > 1) over a contiguous shard of the rows from the mixed weights; the
// new weights are the workers' average weighted by shard size. It returns
// the last mixed weights and the explicit average of every weight vector
// any worker held after an example (class-major [k][j], biases last).
func fxRefMix(X *sparse.CSR, cls []int, K, P, epochs int) (last, avg [][]float64) {
	R := K
	if K == 2 {
		R = 1
	}
	dim := X.Cols + 1 // the bias as one more weight of value 1
	w := make([][]float64, R)
	sum := make([][]float64, R)
	for k := range R {
		w[k] = make([]float64, dim)
		sum[k] = make([]float64, dim)
	}
	seen := 0
	n := X.Rows
	score := func(v [][]float64, i, k int) float64 {
		row := X.Row(i)
		s := float64(float32(v[k][X.Cols])) // biases are float32 in the learner
		for q, j := range row.Ind {
			s += float64(float32(v[k][j])) * float64(row.Val[q])
		}
		return s
	}
	for range epochs {
		next := make([][]float64, R)
		for k := range R {
			next[k] = make([]float64, dim)
		}
		for p := range P {
			lo, hi := p*n/P, (p+1)*n/P
			v := make([][]float64, R)
			for k := range R {
				v[k] = append([]float64(nil), w[k]...)
			}
			add := func(k int, i int, a float64) {
				row := X.Row(i)
				for q, j := range row.Ind {
					v[k][j] += a * float64(row.Val[q])
				}
				v[k][X.Cols] += a
			}
			for i := lo; i < hi; i++ {
				if R == 1 {
					y := -1.0
					if cls[i] == 1 {
						y = 1
					}
					if y*score(v, i, 0) <= 0 {
						add(0, i, y)
					}
				} else {
					c, r := cls[i], -1
					var best float64
					for k := range K {
						if s := score(v, i, k); k != c && (r < 0 || s > best) {
							r, best = k, s
						}
					}
					if score(v, i, c)-best <= 0 {
						add(c, i, 1)
						add(r, i, -1)
					}
				}
				for k := range R {
					for j := range dim {
						sum[k][j] += v[k][j]
					}
				}
				seen++
			}
			for k := range R {
				for j := range dim {
					next[k][j] += float64(hi-lo) / float64(n) * v[k][j]
				}
			}
		}
		w = next
	}
	for k := range R {
		for j := range dim {
			sum[k][j] /= float64(seen)
		}
	}
	return w, sum
}

// fxCloseTo fails unless model m's weights match ref (class-major, bias
// last) to within tol relative to the largest reference weight.
func fxCloseTo(t *testing.T, what string, m *Model, ref [][]float64, tol float64) {
	t.Helper()
	R := len(ref)
	scale := 0.0
	for _, r := range ref {
		for _, v := range r {
			scale = math.Max(scale, math.Abs(v))
		}
	}
	if scale == 0 {
		t.Fatalf("%s: the reference learned nothing", what)
	}
	for k := range R {
		for j := range m.Dim {
			if d := math.Abs(float64(m.W[j*R+k]) - ref[k][j]); d > tol*scale {
				t.Fatalf("%s: W[feature %d, row %d] = %v, reference %v", what, j, k, m.W[j*R+k], ref[k][j])
			}
		}
		if d := math.Abs(float64(m.B[k]) - ref[k][m.Dim]); d > tol*scale {
			t.Fatalf("%s: B[%d] = %v, reference %v", what, k, m.B[k], ref[k][m.Dim])
		}
	}
}

// TestMixingMatchesReference: with Workers > 1 the plain model is the last
// mixed vector and the averaged model the average of every vector the
// workers went through, for binary and multiclass data and worker counts
// that do and do not divide the rows.
func TestMixingMatchesReference(t *testing.T) {
	for _, tc := range []struct {
		name string
		K, P int
	}{{"binary/2", 2, 2}, {"binary/3", 2, 3}, {"multiclass/4", 4, 4}, {"multiclass/2", 3, 2}} {
		t.Run(tc.name, func(t *testing.T) {
			var X *sparse.CSR
			var y []float64
			if tc.K == 2 {
				X, y = fxIntBinary(41, 301, 40, 6, 0.15)
			} else {
				X, y = fxIntMulti(42, 301, 40, 6, tc.K, 0.15)
			}
			var cls []int
			if tc.K == 2 {
				cls = fxClassIndex([]float64{-1, 1}, y)
			} else {
				cls = make([]int, len(y))
				for i, v := range y {
					cls[i] = int(v)
				}
			}
			const epochs = 4
			last, avg := fxRefMix(X, cls, tc.K, tc.P, epochs)
			plain, stats := fxFit(t, X, y, Config{Algorithm: Plain, Workers: tc.P, NoShuffle: true, Epochs: epochs})
			if len(stats) != epochs {
				t.Fatalf("plain stopped after %d epochs, want %d (noisy data)", len(stats), epochs)
			}
			fxCloseTo(t, "plain, last mixed vector", plain, last, 1e-5)
			av, _ := fxFit(t, X, y, Config{Workers: tc.P, NoShuffle: true, Epochs: epochs})
			fxCloseTo(t, "averaged, mean of every worker's vectors", av, avg, 1e-5)
		})
	}
}

// TestMixingDeterministic: the same seed and worker count give a
// bit-identical model; Workers 1 is the sequential learner.
func TestMixingDeterministic(t *testing.T) {
	X, y := fxIntMulti(43, 500, 60, 8, 5, 0.1)
	a, _ := fxFit(t, X, y, Config{Workers: 3, Seed: 9})
	b, _ := fxFit(t, X, y, Config{Workers: 3, Seed: 9})
	fxSameModel(t, "Workers 3, same seed", a, b)
	s0, _ := fxFit(t, X, y, Config{Seed: 9})
	s1, _ := fxFit(t, X, y, Config{Workers: 1, Seed: 9})
	fxSameModel(t, "Workers 1 vs 0", s0, s1)
}

// TestMixingLearns: mixing on 4 workers separates separable data and stops
// on a mistake-free epoch, and stays close to the sequential learner's
// accuracy on noisy data.
func TestMixingLearns(t *testing.T) {
	X, y := fxDenseSeparable(44, 800, 20, 2, 0.05)
	m, stats := fxFit(t, X, y, Config{Algorithm: Plain, Workers: 4, Epochs: 200})
	if last := stats[len(stats)-1]; last.Updates != 0 || len(stats) == 200 {
		t.Fatalf("separable data, 4 workers: %d epochs, last had %d updates", len(stats), last.Updates)
	}
	if acc := accuracyOn(m, X, y, fxAll(X.Rows)); acc != 1 {
		t.Fatalf("separable data, 4 workers: training accuracy %v, want 1", acc)
	}
	Xn, yn := fxIntBinary(45, 4000, 200, 10, 0.05)
	seq, _ := fxFit(t, Xn, yn, Config{})
	mix, _ := fxFit(t, Xn, yn, Config{Workers: 2})
	as, am := accuracyOn(seq, Xn, yn, fxAll(Xn.Rows)), accuracyOn(mix, Xn, yn, fxAll(Xn.Rows))
	if am < as-0.03 {
		t.Fatalf("averaged training accuracy: sequential %.4f, 2 workers %.4f", as, am)
	}
}

func fxAll(n int) []int32 {
	r := make([]int32, n)
	for i := range r {
		r[i] = int32(i)
	}
	return r
}

// TestMixingWithOptions: early stopping, class weights, TrainLoss and
// cancellation behave with workers as without.
func TestMixingWithOptions(t *testing.T) {
	X, y := fxIntBinary(46, 600, 30, 5, 0.2)
	_, stats := fxFit(t, X, y, Config{Workers: 2, Validation: 0.2, Patience: 2, Epochs: 50, TrainLoss: true, Balanced: true})
	for _, s := range stats {
		if math.IsNaN(s.ValidAccuracy) || math.IsNaN(s.TrainLoss) || s.Rows != 480 {
			t.Fatalf("epoch %d: %+v", s.Epoch, s)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m, st, err := Fit(ctx, X, y, Config{Workers: 2})
	if !errors.Is(err, context.Canceled) || m == nil || len(st) != 0 {
		t.Fatalf("cancelled: model %v, %d epochs, err %v", m != nil, len(st), err)
	}
	for _, bad := range []Config{{Workers: -1}, {Workers: MaxWorkers + 1}, {Workers: 2, Algorithm: Voted}} {
		if _, _, err := Fit(context.Background(), X, y, bad); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: err %v, want ErrConfig", bad, err)
		}
	}
	// Batch ignores Workers.
	b0, _ := fxFit(t, X, y, Config{Algorithm: Batch, Epochs: 3})
	b2, _ := fxFit(t, X, y, Config{Algorithm: Batch, Epochs: 3, Workers: 2})
	fxSameModel(t, "batch, Workers 2 vs 0", b0, b2)
}

// TestFitBadRowFound: rows are checked as the first epoch reaches them;
// a bad row anywhere (met by one worker or the other, or held out for
// validation) fails Fit with no model and the error a check of the whole
// matrix gives, naming the first bad row.
func TestFitBadRowFound(t *testing.T) {
	for _, bad := range []func(X *sparse.CSR){
		func(X *sparse.CSR) { X.Val[X.Indptr[777]+1] = float32(math.NaN()) },
		func(X *sparse.CSR) { X.Ind[X.Indptr[5]+2] = X.Ind[X.Indptr[5]+1] },
		func(X *sparse.CSR) { X.Ind[X.Indptr[901]] = int32(X.Cols) + 5 },
	} {
		X, y := fxIntBinary(47, 1000, 40, 6, 0.1)
		bad(X)
		want := checkData(X)
		for _, cfg := range []Config{{}, {Workers: 2}, {Workers: 3, Validation: 0.3}, {Algorithm: Plain, NoShuffle: true}, {Algorithm: Batch}} {
			m, st, err := Fit(context.Background(), X, y, cfg)
			if m != nil || st != nil || err == nil || err.Error() != want.Error() {
				t.Errorf("%+v: model %v, %d epochs, err %v; want %v", cfg, m != nil, len(st), err, want)
			}
		}
	}
}

// fxMixPairInputs returns two shards' weights and accumulators of dim
// coordinates, with zeros of both signs among the weights, and the mixed
// weights and sum they start from.
func fxMixPairInputs(r *rand.Rand, dim int, avg bool) (w []float32, sum []float64, ws [2][]float32, us [2][]float64) {
	w = make([]float32, dim)
	for k := range ws {
		ws[k] = make([]float32, dim)
		for i := range ws[k] {
			switch r.IntN(6) {
			case 0:
				ws[k][i] = float32(math.Copysign(0, -1))
			case 1:
				ws[k][i] = 0
			default:
				ws[k][i] = float32(r.NormFloat64())
			}
		}
	}
	if avg {
		sum = make([]float64, dim)
		for i := range sum {
			sum[i] = r.NormFloat64() * 100
		}
		for k := range us {
			us[k] = make([]float64, dim)
			for i := range us[k] {
				us[k][i] = r.NormFloat64() * 1000
			}
		}
	}
	return w, sum, ws, us
}

// TestMixPairSameBits: mixPair gives mixRange's mixed weights and sums bit
// for bit (zeros of either sign included) and leaves the two shards set
// up as mixedEpoch's setup does: weights equal to the mixed ones,
// accumulators zero, outside [lo, hi) untouched.
func TestMixPairSameBits(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, avg := range []bool{false, true} {
		for _, c := range []struct{ dim, lo, hi int }{{0, 0, 0}, {1, 0, 1}, {700, 0, 700}, {2000, 300, 1537}} {
			frac := []float64{0.4375, 0.5625}
			if c.dim == 700 {
				frac = []float64{1.0 / 3, 2.0 / 3}
			}
			n := 12345.0
			w, sum, ws, us := fxMixPairInputs(r, c.dim, avg)
			refW, gotW := slices.Clone(w), slices.Clone(w)
			refSum, gotSum := slices.Clone(sum), slices.Clone(sum)
			var refWs, gotWs [2][]float32
			var refUs, gotUs [2][]float64
			for k := range ws {
				refWs[k], gotWs[k] = slices.Clone(ws[k]), slices.Clone(ws[k])
				refUs[k], gotUs[k] = slices.Clone(us[k]), slices.Clone(us[k])
			}
			src := func(k, a, b int) ([]float32, []float64) {
				if refUs[k] == nil {
					return refWs[k][a:b], nil
				}
				return refWs[k][a:b], refUs[k][a:b]
			}
			setup := func(a, b int) {
				for k := range refWs {
					copy(refWs[k][a:b], refW[a:b])
					if refUs[k] != nil {
						clear(refUs[k][a:b])
					}
				}
			}
			mixRange(c.lo, c.hi, frac, n, refW, refSum, src, setup)
			mixPair(c.lo, c.hi, frac, n, gotW, gotSum, gotWs[0], gotWs[1], gotUs[0], gotUs[1])
			name := fmt.Sprintf("avg %v, dim %d [%d, %d)", avg, c.dim, c.lo, c.hi)
			for i := range refW {
				if math.Float32bits(refW[i]) != math.Float32bits(gotW[i]) {
					t.Fatalf("%s: w[%d] = %v, mixRange %v", name, i, gotW[i], refW[i])
				}
				if sum != nil && math.Float64bits(refSum[i]) != math.Float64bits(gotSum[i]) {
					t.Fatalf("%s: sum[%d] = %v, mixRange %v", name, i, gotSum[i], refSum[i])
				}
				for k := range ws {
					if math.Float32bits(refWs[k][i]) != math.Float32bits(gotWs[k][i]) {
						t.Fatalf("%s: shard %d w[%d] = %v, want %v", name, k, i, gotWs[k][i], refWs[k][i])
					}
					if us[k] != nil && math.Float64bits(refUs[k][i]) != math.Float64bits(gotUs[k][i]) {
						t.Fatalf("%s: shard %d u[%d] = %v, want %v", name, k, i, gotUs[k][i], refUs[k][i])
					}
				}
			}
		}
	}
}

// BenchmarkMixPair: the mix of a two-worker averaged epoch over imdb's
// width, as mixRange with the separate setup did it and as mixPair does.
func BenchmarkMixPair(b *testing.B) {
	const dim = 89527
	r := rand.New(rand.NewPCG(9, 10))
	w, sum, ws, us := fxMixPairInputs(r, dim, true)
	frac := []float64{0.5, 0.5}
	b.Run("mixRange", func(b *testing.B) {
		src := func(k, a, b int) ([]float32, []float64) { return ws[k][a:b], us[k][a:b] }
		setup := func(a, b int) {
			for k := range ws {
				copy(ws[k][a:b], w[a:b])
				clear(us[k][a:b])
			}
		}
		for b.Loop() {
			mixRange(0, dim, frac, 25000, w, sum, src, setup)
		}
	})
	b.Run("mixPair", func(b *testing.B) {
		for b.Loop() {
			mixPair(0, dim, frac, 25000, w, sum, ws[0], ws[1], us[0], us[1])
		}
	})
}
