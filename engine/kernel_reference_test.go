package engine

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hyperplane-ml/hyperplane/kernels"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// ktRefCfg configures the slow reference kernel perceptron.
type ktRefCfg struct {
	K         int     // classes; rows carry class indexes
	Epochs    int     // every epoch is run unless StopEarly
	Eta       float32 // learning rate; 0 means 1
	BB        float32 // bias gain BiasScale² (0: no bias)
	Tau       float32 // margin
	CW        []float32
	Budget    int
	Seed      uint64
	NoShuffle bool
	StopEarly bool
	Voted     bool
}

// ktRefVec is one function of the voted reference and the number of
// examples it survived.
type ktRefVec struct {
	alpha, b []float64
	count    int64
}

// ktRefOut is what the reference computes.
type ktRefOut struct {
	nw       int
	alpha, b []float64 // final coefficients (n×nw) and biases
	avg      []float64 // explicit average of alpha after every example
	avgB     []float64
	vecs     []ktRefVec
	mistakes []int // rows, in order
	epMis    []int // per epoch
	epUpd    []int
	epRem    []int
	epLoss   []float64 // mean loss of the mistakes, per epoch
	removed  []int     // rows removed by the budget, in order
	T        int64     // examples seen
	maxAbs   float64
	minAbs   float64 // closest a margin came to 0 or τ, but for exact ties
}

// ktRefRun is the slow reference: the kernel perceptron in float64 that
// recomputes every f_c(x_i) = Σ_j α_jc·K(x_j, x_i) + b_c from scratch with
// kernel values from k.Sparse, visits the rows in the order FitKernel
// documents (a fresh shuffle of the previous order every epoch, drawn
// from Seed as Fit draws it), adds α to a running sum after every example
// and, for the budget, removes the support vector of the smallest
// ‖α_j‖·√K_jj (the oldest on ties), forgetting its running sum too.
func ktRefRun(k kernels.Kernel, X *sparse.CSR, cls []int, cfg ktRefCfg) *ktRefOut {
	n := X.Rows
	nw := cfg.K
	if nw == 2 {
		nw = 1
	}
	G := ktGram64(k, X)
	eta := cfg.Eta
	if eta == 0 {
		eta = 1
	}
	o := &ktRefOut{nw: nw, alpha: make([]float64, n*nw), b: make([]float64, nw), minAbs: math.Inf(1)}
	sum := make([]float64, n*nw)
	sumB := make([]float64, nw)
	isSV := make([]bool, n)
	born := make([]int64, n)
	nsv := 0
	if cfg.Voted {
		o.vecs = []ktRefVec{{alpha: slices.Clone(o.alpha), b: slices.Clone(o.b)}}
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x9e3779b97f4a7c15))
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	s := make([]float64, nw)
	var c int64
	for range cfg.Epochs {
		if !cfg.NoShuffle {
			rng.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
		}
		mis, upd, rem := 0, 0, 0
		var loss float64
		for _, i := range order {
			cl := cls[i]
			w := float32(1)
			if cfg.CW != nil {
				w = cfg.CW[cl]
			}
			for kk := range nw {
				s[kk] = o.b[kk]
				for j := range n {
					if a := o.alpha[j*nw+kk]; a != 0 {
						s[kk] += a * G[j][i]
					}
				}
				o.maxAbs = max(o.maxAbs, math.Abs(s[kk]))
			}
			var m, a float64
			up, down := 0, -1
			if nw == 1 {
				y := float32(-1)
				if cl == 1 {
					y = 1
				}
				m = float64(y) * s[0]
				a = float64(eta * w * y)
			} else {
				r := ktBestOther(s, cl)
				m = s[cl] - s[r]
				up, down = cl, r
				a = float64(eta * w)
			}
			for _, d := range []float64{math.Abs(m), math.Abs(m - float64(cfg.Tau))} {
				if d != 0 { // an exact 0 is f = 0 with no support vector: exact in float32 too
					o.minAbs = min(o.minAbs, d)
				}
			}
			if m <= 0 {
				mis++
				loss -= m
				o.mistakes = append(o.mistakes, i)
			}
			if m <= float64(cfg.Tau) && w > 0 {
				upd++
				if !isSV[i] {
					if cfg.Budget > 0 && nsv >= cfg.Budget {
						best, bestSc := -1, math.Inf(1)
						for j := range n {
							if !isSV[j] {
								continue
							}
							var a2 float64
							for kk := range nw {
								a2 += o.alpha[j*nw+kk] * o.alpha[j*nw+kk]
							}
							sc := math.Sqrt(a2 * G[j][j])
							if best < 0 || sc < bestSc || (sc == bestSc && born[j] < born[best]) {
								best, bestSc = j, sc
							}
						}
						for kk := range nw {
							o.alpha[best*nw+kk] = 0
							sum[best*nw+kk] = 0
						}
						isSV[best] = false
						nsv--
						rem++
						o.removed = append(o.removed, best)
					}
					isSV[i], born[i] = true, c
					nsv++
				}
				o.alpha[i*nw+up] += a
				o.b[up] += a * float64(cfg.BB)
				if down >= 0 {
					o.alpha[i*nw+down] -= a
					o.b[down] -= a * float64(cfg.BB)
				}
				if cfg.Voted {
					o.vecs = append(o.vecs, ktRefVec{alpha: slices.Clone(o.alpha), b: slices.Clone(o.b)})
				}
			}
			c++
			for q, v := range o.alpha {
				sum[q] += v
			}
			for q, v := range o.b {
				sumB[q] += v
			}
			if cfg.Voted {
				o.vecs[len(o.vecs)-1].count++
			}
		}
		o.epMis = append(o.epMis, mis)
		o.epUpd = append(o.epUpd, upd)
		o.epRem = append(o.epRem, rem)
		o.epLoss = append(o.epLoss, loss/float64(n))
		if upd == 0 && cfg.StopEarly {
			break
		}
	}
	o.T = c
	o.avg = make([]float64, n*nw)
	for q, v := range sum {
		o.avg[q] = v / float64(c)
	}
	o.avgB = make([]float64, nw)
	for q, v := range sumB {
		o.avgB[q] = v / float64(c)
	}
	return o
}

// vote returns the reference's vote on a row whose kernel values with the
// training rows are kx: for binary the vote in [−1, 1] (one entry), for
// multiclass every class's share.
func (o *ktRefOut) vote(kx []float64) []float64 {
	nw := o.nw
	s := make([]float64, nw)
	var total float64
	out := make([]float64, nw)
	for _, v := range o.vecs {
		if v.count == 0 {
			continue
		}
		for k := range nw {
			s[k] = v.b[k]
			for j, kv := range kx {
				if a := v.alpha[j*nw+k]; a != 0 {
					s[k] += a * kv
				}
			}
		}
		total += float64(v.count)
		if nw == 1 {
			if s[0] > 0 {
				out[0] += float64(v.count)
			} else {
				out[0] -= float64(v.count)
			}
		} else {
			out[ktArgmax(s)] += float64(v.count)
		}
	}
	for k := range out {
		out[k] /= total
	}
	return out
}

// ktCoefByRow returns the model's coefficients by training row (n×K,
// zero for rows that are not support vectors), matching support vectors to
// rows of X by content.
func ktCoefByRow(t testing.TB, m *KernelModel, X *sparse.CSR) []float32 {
	t.Helper()
	K := m.NumRows()
	idx := make(map[string]int, X.Rows)
	for i := range X.Rows {
		r := X.Row(i)
		idx[ktKey(r.Ind, r.Val)] = i
	}
	out := make([]float32, X.Rows*K)
	used := make([]bool, X.Rows)
	for r := range m.NumSV() {
		v := m.SV.Row(r)
		i, ok := idx[ktKey(v.Ind, v.Val)]
		if !ok {
			t.Fatalf("support vector %d is no training row", r)
		}
		if used[i] {
			t.Fatalf("training row %d is support vector twice", i)
		}
		used[i] = true
		copy(out[i*K:(i+1)*K], m.Coef[r*K:(r+1)*K])
	}
	return out
}

// ktCompare fails unless got and want agree to maxULP float32 ulps.
func ktCompare(t testing.TB, what string, got []float32, want []float64, maxULP int64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if d := fxULP(got[i], float32(want[i])); d > maxULP {
			t.Fatalf("%s[%d] = %v, reference %v (float64 %v): %d ulps apart", what, i, got[i], float32(want[i]), want[i], d)
		}
	}
}

// ktCompareStats checks FitKernel's epochs against the reference's: the
// same mistakes and updates in the epochs it ran, none after.
func ktCompareStats(t testing.TB, what string, stats []KernelEpochStats, ref *ktRefOut) {
	n := len(ref.alpha) / ref.nw
	t.Helper()
	if len(stats) > len(ref.epUpd) {
		t.Fatalf("%s: FitKernel ran %d epochs, reference %d", what, len(stats), len(ref.epUpd))
	}
	for e, s := range stats {
		if s.Epoch != e+1 || s.Mistakes != ref.epMis[e] || s.Updates != ref.epUpd[e] || s.Removed != ref.epRem[e] {
			t.Fatalf("%s: epoch %d: FitKernel %d mistakes, %d updates, %d removed (Epoch field %d); reference %d, %d, %d",
				what, e+1, s.Mistakes, s.Updates, s.Removed, s.Epoch, ref.epMis[e], ref.epUpd[e], ref.epRem[e])
		}
	}
	for e, s := range stats {
		if s.Rows != n || !math.IsNaN(s.TrainLoss) || !math.IsNaN(s.ValidAccuracy) || s.TrainMistakes != -1 {
			t.Fatalf("%s: epoch %d: Rows %d (want %d), TrainLoss %v, ValidAccuracy %v, TrainMistakes %d; want NaN, NaN, -1", what, e+1, s.Rows, n, s.TrainLoss, s.ValidAccuracy, s.TrainMistakes)
		}
		if math.Abs(s.Loss-ref.epLoss[e]) > 1e-5*(1+ref.epLoss[e]) {
			t.Fatalf("%s: epoch %d: Loss %v, reference %v", what, e+1, s.Loss, ref.epLoss[e])
		}
	}
	for e := len(stats); e < len(ref.epUpd); e++ {
		if ref.epUpd[e] != 0 {
			t.Fatalf("%s: FitKernel stopped after %d epochs, but the reference updates in epoch %d", what, len(stats), e+1)
		}
	}
}

// ktSameModel fails unless a and b have the same support vectors and
// bit-identical coefficients and biases (and votes).
func ktSameModel(t testing.TB, what string, a, b *KernelModel) {
	t.Helper()
	if a.NumSV() != b.NumSV() || len(a.Coef) != len(b.Coef) || len(a.B) != len(b.B) || a.Dim != b.Dim {
		t.Fatalf("%s: shapes differ: %d/%d support vectors, %d/%d coefficients, dim %d/%d", what, a.NumSV(), b.NumSV(), len(a.Coef), len(b.Coef), a.Dim, b.Dim)
	}
	for r := range a.NumSV() {
		x, y := a.SV.Row(r), b.SV.Row(r)
		if ktKey(x.Ind, x.Val) != ktKey(y.Ind, y.Val) {
			t.Fatalf("%s: support vector %d differs", what, r)
		}
	}
	for i := range a.Coef {
		if math.Float32bits(a.Coef[i]) != math.Float32bits(b.Coef[i]) {
			t.Fatalf("%s: Coef[%d] = %v vs %v (not bit-identical)", what, i, a.Coef[i], b.Coef[i])
		}
	}
	for i := range a.B {
		if math.Float32bits(a.B[i]) != math.Float32bits(b.B[i]) {
			t.Fatalf("%s: B[%d] = %v vs %v (not bit-identical)", what, i, a.B[i], b.B[i])
		}
	}
	if (a.Votes == nil) != (b.Votes == nil) {
		t.Fatalf("%s: one model has votes, the other not", what)
	}
	if a.Votes != nil {
		if a.Votes.Count0 != b.Votes.Count0 || !slices.Equal(a.Votes.Steps, b.Votes.Steps) {
			t.Fatalf("%s: votes differ", what)
		}
	}
}
