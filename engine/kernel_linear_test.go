package engine

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/hyperplane-ml/hyperplane/kernels"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// ---------------------------------------------------------------------
// 1. The linear kernel is the primal perceptron.

// TestKernelLinearEqualsPrimalPlain: with kernels.Linear the dual plain
// perceptron makes exactly the mistakes of the primal one, in the same
// order, for binary and multiclass data, every bias mode, with and without
// shuffling, with a margin; its function Σ_j Coef_j·x_j + B is the primal
// model's W and B (bit for bit on integer data, where float32 is exact),
// and both predict alike on held-out rows.
func TestKernelLinearEqualsPrimalPlain(t *testing.T) {
	type dataset struct {
		name    string
		X, test *sparse.CSR
		y       []float64
		exact   bool
		margin  float64
	}
	var sets []dataset
	for _, d := range []struct {
		name string
		K    int
	}{{"int-binary", 2}, {"int-K4", 4}} {
		X, y := ktIntData(11+uint64(d.K), 200, 30, 5, d.K, 0.1, 0)
		test, _ := ktIntData(111+uint64(d.K), 80, 30, 5, d.K, 0, 0)
		sets = append(sets, dataset{d.name, X, test, y, true, 2})
	}
	for _, d := range []struct {
		name    string
		cols    int
		density float64
		K       int
	}{{"float-binary", 12, 1, 2}, {"float-K3", 12, 1, 3}, {"float-sparse-binary", 60, 0.15, 2}} {
		X, y := ktFloatData(21+uint64(d.cols)+uint64(d.K), 200, d.cols, d.density, d.K, 0.05)
		test, _ := ktFloatData(121+uint64(d.cols)+uint64(d.K), 80, d.cols, d.density, d.K, 0)
		sets = append(sets, dataset{d.name, X, test, y, false, 0.25})
	}
	type variant struct {
		bias      BiasMode
		scale     float64
		noShuffle bool
		seed      uint64
		margin    bool
	}
	var variants []variant
	for _, b := range []struct {
		bias  BiasMode
		scale float64
	}{{BiasSeparate, 0}, {BiasAugmented, 2}, {NoBias, 0}} {
		for _, margin := range []bool{false, true} {
			variants = append(variants,
				variant{b.bias, b.scale, true, 0, margin},
				variant{b.bias, b.scale, false, 1, margin},
				variant{b.bias, b.scale, false, 2, margin})
		}
	}
	for _, ds := range sets {
		t.Run(ds.name, func(t *testing.T) {
			for _, v := range variants {
				t.Run(fmt.Sprintf("bias=%v×%v/noshuffle=%v/seed=%d/margin=%v", v.bias, v.scale, v.noShuffle, v.seed, v.margin), func(t *testing.T) {
					margin := 0.0
					if v.margin {
						margin = ds.margin
					}
					what := fmt.Sprintf("%s/bias=%v×%v/noshuffle=%v/seed=%d/margin=%v", ds.name, v.bias, v.scale, v.noShuffle, v.seed, margin)
					pcfg := Config{Algorithm: Plain, Epochs: 6, Bias: v.bias, BiasScale: v.scale, Margin: margin, NoShuffle: v.noShuffle, Seed: v.seed}
					kcfg := KernelConfig{Config: Config{Algorithm: Plain, Epochs: 6, Bias: v.bias, BiasScale: v.scale, Margin: margin, NoShuffle: v.noShuffle, Seed: v.seed}, Kernel: kernels.Linear{}}
					var pm *Model
					var pst []EpochStats
					primal := ktTrace(t, func() {
						var err error
						pm, pst, err = Fit(context.Background(), ds.X, ds.y, pcfg)
						if err != nil {
							t.Fatalf("%s: Fit: %v", what, err)
						}
					})
					var km *KernelModel
					var kst []KernelEpochStats
					dual := ktTrace(t, func() { km, kst = ktFit(t, ds.X, ds.y, kcfg) })
					if len(primal) == 0 {
						t.Fatalf("%s: no mistakes at all; the data set tests nothing", what)
					}
					ktSameSeq(t, what+": dual vs primal", dual, primal)
					if len(kst) != len(pst) {
						t.Fatalf("%s: dual ran %d epochs, primal %d", what, len(kst), len(pst))
					}
					for e := range kst {
						if kst[e].Mistakes != pst[e].Mistakes || kst[e].Updates != pst[e].Updates {
							t.Fatalf("%s: epoch %d: dual %d mistakes / %d updates, primal %d / %d", what, e+1, kst[e].Mistakes, kst[e].Updates, pst[e].Mistakes, pst[e].Updates)
						}
					}
					ktLinearWeights(t, what, km, pm, ds.exact, 1e-5)
					ktSameBias(t, what, km.B, pm.B)
					ktLinearPredictions(t, what, km, pm, ds.test, ds.exact)
				})
			}
		})
	}
}

// ktLinearWeights checks that Σ_j Coef_j·x_j over km's support vectors is
// pm's W: exactly, or to rel times the sum of the terms' magnitudes.
func ktLinearWeights(t testing.TB, what string, km *KernelModel, pm *Model, exact bool, rel float64) {
	t.Helper()
	K := km.NumRows()
	if pm.NumRows() != K || pm.Dim != km.Dim {
		t.Fatalf("%s: primal has %d rows of %d, dual %d of %d", what, pm.NumRows(), pm.Dim, K, km.Dim)
	}
	w := make([]float64, pm.Dim*K)
	mag := make([]float64, pm.Dim*K)
	for r := range km.NumSV() {
		x := km.SV.Row(r)
		for q, j := range x.Ind {
			for k := range K {
				v := float64(km.Coef[r*K+k]) * float64(x.Val[q])
				w[int(j)*K+k] += v
				mag[int(j)*K+k] += math.Abs(v)
			}
		}
	}
	for i, want := range pm.W {
		got := w[i]
		if exact {
			if float32(got) != want || got != float64(float32(got)) {
				t.Fatalf("%s: Σ Coef·x gives weight %d (feature %d, row %d) = %v, primal W = %v", what, i, i/K, i%K, got, want)
			}
		} else if math.Abs(got-float64(want)) > rel*(mag[i]+math.Abs(float64(want)))+1e-6 {
			t.Fatalf("%s: Σ Coef·x gives weight %d (feature %d, row %d) = %v, primal W = %v (terms' magnitude %v)", what, i, i/K, i%K, got, want, mag[i])
		}
	}
}

// ktSameBias fails unless the biases are bit-identical.
func ktSameBias(t testing.TB, what string, got, want []float32) {
	t.Helper()
	for k := range want {
		if math.Float32bits(got[k]) != math.Float32bits(want[k]) {
			t.Fatalf("%s: B[%d] = %v, primal %v", what, k, got[k], want[k])
		}
	}
}

// ktLinearPredictions checks that km and pm predict alike on the rows of
// test: identical scores on exact data, the same labels elsewhere except
// within rounding of a tie.
func ktLinearPredictions(t testing.TB, what string, km *KernelModel, pm *Model, test *sparse.CSR, exact bool) {
	t.Helper()
	var ks, ps []float32
	for i := range test.Rows {
		x := test.Row(i)
		ks = km.Scores(x, ks)
		ps = pm.Scores(x, ps)
		if exact {
			for k := range ps {
				if math.Float32bits(ks[k]) != math.Float32bits(ps[k]) {
					t.Fatalf("%s: test row %d: dual score %d = %v, primal %v", what, i, k, ks[k], ps[k])
				}
			}
		}
		if kp, pp := km.Predict(x), pm.Predict(x); kp != pp {
			// Only a near tie excuses a different label.
			gap := math.Abs(float64(ps[0]))
			if len(ps) > 1 {
				s := make([]float64, len(ps))
				for k, v := range ps {
					s[k] = float64(v)
				}
				b := ktArgmax(s)
				gap = s[b] - s[ktBestOther(s, b)]
			}
			if exact || gap > 1e-3 {
				t.Fatalf("%s: test row %d: dual predicts %v, primal %v (primal scores %v, dual %v)", what, i, kp, pp, ps, ks)
			}
		}
	}
}

// TestKernelLinearEqualsPrimalAveragedVoted: the averaged and voted dual
// perceptrons with the linear kernel train like the primal ones (same
// mistakes), the averaged Σ_j Coef_j·x_j is the primal averaged W, and the
// voted models have the same steps and give the same votes.
func TestKernelLinearEqualsPrimalAveragedVoted(t *testing.T) {
	for _, K := range []int{2, 4} {
		t.Run(fmt.Sprintf("K=%d", K), func(t *testing.T) {
			X, y := ktIntData(31+uint64(K), 200, 30, 5, K, 0.1, 0)
			test, _ := ktIntData(131+uint64(K), 80, 30, 5, K, 0, 0)
			for _, alg := range []Algorithm{Averaged, Voted} {
				for _, seed := range []uint64{1, 2} {
					t.Run(fmt.Sprintf("%v/seed=%d", alg, seed), func(t *testing.T) {
						what := fmt.Sprintf("K=%d/%v/seed=%d", K, alg, seed)
						var pm *Model
						primal := ktTrace(t, func() {
							var err error
							if pm, _, err = Fit(context.Background(), X, y, Config{Algorithm: alg, Epochs: 5, Seed: seed}); err != nil {
								t.Fatalf("%s: Fit: %v", what, err)
							}
						})
						var km *KernelModel
						dual := ktTrace(t, func() {
							km, _ = ktFit(t, X, y, KernelConfig{Config: Config{Algorithm: alg, Epochs: 5, Seed: seed}, Kernel: kernels.Linear{}})
						})
						ktSameSeq(t, what, dual, primal)
						// The averages are not integers: the two sides round
						// differently, but only in the last bits.
						ktLinearWeights(t, what, km, pm, false, 1e-5)
						for k := range pm.B {
							if d := fxULP(km.B[k], pm.B[k]); d > 1 {
								t.Fatalf("%s: averaged B[%d] = %v, primal %v", what, k, km.B[k], pm.B[k])
							}
						}
						if alg != Voted {
							return
						}
						pv, kv := pm.Votes, km.Votes
						if kv == nil || pv.Count0 != kv.Count0 || len(pv.Steps) != len(kv.Steps) {
							t.Fatalf("%s: dual votes %+v do not match the primal's (%d steps, count0 %d)", what, kv, len(pv.Steps), pv.Count0)
						}
						for s := range pv.Steps {
							a, b := pv.Steps[s], kv.Steps[s]
							pr, kr := pv.SV.Row(int(a.Row)), km.SV.Row(int(b.Row))
							if a.Up != b.Up || a.Down != b.Down || a.A != b.A || a.Count != b.Count || ktKey(pr.Ind, pr.Val) != ktKey(kr.Ind, kr.Val) {
								t.Fatalf("%s: step %d: dual %+v, primal %+v (or different rows)", what, s, b, a)
							}
						}
						ktLinearPredictions(t, what, km, pm, test, true)
						for i := range test.Rows {
							x := test.Row(i)
							if a, b := km.Decision(x), pm.Decision(x); a != b {
								t.Fatalf("%s: test row %d: dual vote %v, primal %v", what, i, a, b)
							}
						}
					})
				}
			}
		})
	}
}
