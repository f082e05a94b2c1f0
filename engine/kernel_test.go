package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hyperplane-ml/hyperplane/kernels"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// Helpers of the kernel perceptron's tests carry the prefix kt. None of
// these tests runs in parallel: several of them set traceMistake.

// ktRNG returns a PCG generator for seed.
func ktRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x6b65726e)) }

// ktDesc describes a KernelConfig for failure messages.
func ktDesc(cfg KernelConfig) string {
	k := "default-rbf"
	if cfg.Kernel != nil {
		k = cfg.Kernel.String()
	}
	return fmt.Sprintf("{kernel %s, %v, epochs %d, bias %v×%v, margin %v, noshuffle %v, seed %d, budget %d, cw %v, gram %+v}",
		k, cfg.Algorithm, cfg.Epochs, cfg.Bias, cfg.BiasScale, cfg.Margin, cfg.NoShuffle, cfg.Seed, cfg.Budget, cfg.ClassWeight, cfg.Gram)
}

// ktFit calls FitKernel and fails the test on an error or a model that
// fails Check.
func ktFit(t testing.TB, X *sparse.CSR, y []float64, cfg KernelConfig) (*KernelModel, []KernelEpochStats) {
	t.Helper()
	m, stats, err := FitKernel(context.Background(), X, y, cfg)
	if err != nil {
		t.Fatalf("FitKernel(%s): %v", ktDesc(cfg), err)
	}
	if err := m.Check(); err != nil {
		t.Fatalf("FitKernel(%s): model fails Check: %v", ktDesc(cfg), err)
	}
	return m, stats
}

// ktTrace runs f with traceMistake recording the training row of every
// mistake, and returns them in order.
func ktTrace(t testing.TB, f func()) []int {
	t.Helper()
	if traceMistake != nil {
		t.Fatal("traceMistake is already set: the tests that use it must not run in parallel")
	}
	rows := []int{}
	traceMistake = func(r int) { rows = append(rows, r) }
	defer func() { traceMistake = nil }()
	f()
	return rows
}

// ktSameSeq fails unless two mistake sequences are equal, naming the first
// difference.
func ktSameSeq(t testing.TB, what string, got, want []int) {
	t.Helper()
	if slices.Equal(got, want) {
		return
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	at := func(s []int) string {
		if i < len(s) {
			return fmt.Sprint(s[i])
		}
		return "end"
	}
	t.Fatalf("%s: mistake sequences differ at mistake %d: row %s vs row %s (%d vs %d mistakes in all)",
		what, i, at(got), at(want), len(got), len(want))
}

// ktKey identifies a sparse row by its content.
func ktKey(ind []int32, val []float32) string {
	b := make([]byte, 0, 8*len(ind))
	for k, j := range ind {
		v := math.Float32bits(val[k])
		b = append(b, byte(j), byte(j>>8), byte(j>>16), byte(j>>24), byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
	}
	return string(b)
}

// ktClasses returns the ascending distinct labels of y and the class index
// of every row.
func ktClasses(y []float64) ([]float64, []int) {
	classes := slices.Clone(y)
	slices.Sort(classes)
	classes = slices.Compact(classes)
	cls := make([]int, len(y))
	for i, v := range y {
		cls[i] = slices.Index(classes, v)
	}
	return classes, cls
}

// ktIntData returns rows distinct sparse rows over cols columns with nnz
// integer features in [−3, 3] \ {0}, labelled 0..K−1 by the argmax of K
// hidden integer hyperplanes (for K = 2 the sign of one, offset by 0.5).
// Rows whose best class leads by less than gap are dropped; then each
// label is replaced by a random class with probability noise.
func ktIntData(seed uint64, rows, cols, nnz, K int, noise, gap float64) (*sparse.CSR, []float64) {
	r := ktRNG(seed)
	nh := K
	if K == 2 {
		nh = 1
	}
	u := make([][]float64, nh)
	for k := range u {
		u[k] = make([]float64, cols)
		for j := range u[k] {
			u[k][j] = float64(r.IntN(7) - 3)
		}
	}
	b := sparse.NewBuilder(cols)
	seen := map[string]bool{}
	var y []float64
	for len(y) < rows {
		perm := r.Perm(cols)[:nnz]
		slices.Sort(perm)
		ind := make([]int32, nnz)
		val := make([]float32, nnz)
		for q, j := range perm {
			ind[q] = int32(j)
			v := float32(r.IntN(3) + 1)
			if r.IntN(2) == 0 {
				v = -v
			}
			val[q] = v
		}
		s := make([]float64, nh)
		for k := range s {
			for q, j := range ind {
				s[k] += u[k][j] * float64(val[q])
			}
		}
		var label float64
		if nh == 1 {
			s[0] += 0.5
			if math.Abs(s[0]) < gap {
				continue
			}
			if s[0] > 0 {
				label = 1
			}
		} else {
			best, second := 0, -1
			for k := 1; k < K; k++ {
				if s[k] > s[best] {
					best, second = k, best
				} else if second < 0 || s[k] > s[second] {
					second = k
				}
			}
			if s[best]-s[second] < gap {
				continue
			}
			label = float64(best)
		}
		key := ktKey(ind, val)
		if seen[key] {
			continue
		}
		seen[key] = true
		if r.Float64() < noise {
			label = float64(r.IntN(K))
		}
		if err := b.Add(ind, val); err != nil {
			panic(err)
		}
		y = append(y, label)
	}
	return b.Build(), y
}

// ktFloatData returns rows rows over cols columns in which each feature is
// set with probability density to a value uniform in [−1, 1] (every row has
// one at least), labelled 0..K−1 by the argmax of K random hyperplanes with
// biases (the sign of one for K = 2), each label replaced at random with
// probability noise.
func ktFloatData(seed uint64, rows, cols int, density float64, K int, noise float64) (*sparse.CSR, []float64) {
	r := ktRNG(seed)
	nh := K
	if K == 2 {
		nh = 1
	}
	u := make([][]float64, nh)
	bias := make([]float64, nh)
	for k := range u {
		u[k] = make([]float64, cols)
		for j := range u[k] {
			u[k][j] = r.NormFloat64()
		}
		bias[k] = 0.3 * r.NormFloat64()
	}
	b := sparse.NewBuilder(cols)
	y := make([]float64, rows)
	for i := range rows {
		var ind []int32
		var val []float32
		for j := range cols {
			if r.Float64() < density {
				v := float32(2*r.Float64() - 1)
				if v == 0 {
					v = 0.5
				}
				ind = append(ind, int32(j))
				val = append(val, v)
			}
		}
		if len(ind) == 0 {
			ind, val = []int32{int32(r.IntN(cols))}, []float32{0.5}
		}
		best, bs := 0, math.Inf(-1)
		for k := range nh {
			s := bias[k]
			for q, j := range ind {
				s += u[k][j] * float64(val[q])
			}
			if nh == 1 {
				if s > 0 {
					best = 1
				}
			} else if s > bs {
				best, bs = k, s
			}
		}
		y[i] = float64(best)
		if r.Float64() < noise {
			y[i] = float64(r.IntN(K))
		}
		if err := b.Add(ind, val); err != nil {
			panic(err)
		}
	}
	return b.Build(), y
}

// ktXOR returns 4·per points around (±1, ±1), spread uniformly by up to
// spread in each coordinate, labelled +1 where x·y > 0 and −1 elsewhere.
func ktXOR(seed uint64, per int, spread float64) (*sparse.CSR, []float64) {
	r := ktRNG(seed)
	var rows [][]float32
	var y []float64
	for _, c := range [][2]float64{{1, 1}, {-1, -1}, {1, -1}, {-1, 1}} {
		for range per {
			rows = append(rows, []float32{
				float32(c[0] + spread*(2*r.Float64()-1)),
				float32(c[1] + spread*(2*r.Float64()-1)),
			})
			y = append(y, math.Copysign(1, c[0]*c[1]))
		}
	}
	return sparse.FromDense(rows), y
}

// ktCircles returns per points of radius in [0, 1] labelled −1 and per of
// radius in [2, 3] labelled +1.
func ktCircles(seed uint64, per int) (*sparse.CSR, []float64) {
	r := ktRNG(seed)
	var rows [][]float32
	var y []float64
	for _, ring := range []struct{ lo, label float64 }{{0, -1}, {2, 1}} {
		for range per {
			rad := ring.lo + r.Float64()
			a := 2 * math.Pi * r.Float64()
			rows = append(rows, []float32{float32(rad * math.Cos(a)), float32(rad * math.Sin(a))})
			y = append(y, ring.label)
		}
	}
	return sparse.FromDense(rows), y
}

// ktGram64 returns the kernel matrix of X in float64, from the kernel's
// own Sparse method.
func ktGram64(k kernels.Kernel, X *sparse.CSR) [][]float64 {
	G := make([][]float64, X.Rows)
	for i := range G {
		G[i] = make([]float64, X.Rows)
		for j := range G[i] {
			G[i][j] = k.Sparse(X.Row(i), X.Row(j))
		}
	}
	return G
}

// ktBestOther returns the index of the highest score other than c's, the first on ties.
func ktBestOther(s []float64, c int) int {
	r := -1
	for k, v := range s {
		if k != c && (r < 0 || v > s[r]) {
			r = k
		}
	}
	return r
}

// ktArgmax returns the index of the largest element, the first on ties.
func ktArgmax(s []float64) int {
	best := 0
	for i, v := range s {
		if v > s[best] {
			best = i
		}
	}
	return best
}

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
		for _, v := range variants {
			margin := 0.0
			if v.margin {
				margin = ds.margin
			}
			what := fmt.Sprintf("%s/bias=%v×%v/noshuffle=%v/seed=%d/margin=%v", ds.name, v.bias, v.scale, v.noShuffle, v.seed, margin)
			pcfg := Config{Algorithm: Plain, Epochs: 6, Bias: v.bias, BiasScale: v.scale, Margin: margin, NoShuffle: v.noShuffle, Seed: v.seed}
			kcfg := KernelConfig{Kernel: kernels.Linear{}, Algorithm: Plain, Epochs: 6, Bias: v.bias, BiasScale: v.scale, Margin: margin, NoShuffle: v.noShuffle, Seed: v.seed}
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
		}
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
		X, y := ktIntData(31+uint64(K), 200, 30, 5, K, 0.1, 0)
		test, _ := ktIntData(131+uint64(K), 80, 30, 5, K, 0, 0)
		for _, alg := range []Algorithm{Averaged, Voted} {
			for _, seed := range []uint64{1, 2} {
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
					km, _ = ktFit(t, X, y, KernelConfig{Kernel: kernels.Linear{}, Algorithm: alg, Epochs: 5, Seed: seed})
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
					continue
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
			}
		}
	}
}

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
		{name: "poly-binary", X: Xb, y: yb, kern: poly, cfg: KernelConfig{Epochs: 6, Seed: 1}, exact: true},
		{name: "poly-binary-plain", X: Xb, y: yb, kern: poly, cfg: KernelConfig{Algorithm: Plain, Epochs: 6, Seed: 1}, exact: true},
		{name: "poly-binary-noshuffle-augmented", X: Xb, y: yb, kern: poly, cfg: KernelConfig{Epochs: 5, NoShuffle: true, Bias: BiasAugmented, BiasScale: 2}, exact: true},
		{name: "poly-binary-nobias-margin", X: Xb, y: yb, kern: poly, cfg: KernelConfig{Epochs: 5, Seed: 3, Bias: NoBias, Margin: 40}, exact: true},
		{name: "poly-binary-classweight", X: Xb, y: yb, kern: poly, cfg: KernelConfig{Epochs: 5, Seed: 4, ClassWeight: map[float64]float64{1: 0.5}, LearningRate: 2}, exact: true},
		{name: "poly-K3", X: X3, y: y3, kern: poly, cfg: KernelConfig{Epochs: 5, Seed: 2}, exact: true},
		{name: "poly-K3-plain-margin-augmented", X: X3, y: y3, kern: poly, cfg: KernelConfig{Algorithm: Plain, Epochs: 5, Seed: 2, Margin: 30, Bias: BiasAugmented, BiasScale: 0.5}, exact: true},
		{name: "poly-binary-converges", X: Xsep, y: ysep, kern: poly, cfg: KernelConfig{Epochs: 60, Seed: 5}, exact: true, expect: "converge"},
		{name: "poly-K3-converges", X: Xsep3, y: ysep3, kern: poly, cfg: KernelConfig{Epochs: 60, Seed: 6}, exact: true, expect: "converge"},
		{name: "linear-binary-converges-plain", X: Xsep, y: ysep, kern: kernels.Linear{}, cfg: KernelConfig{Algorithm: Plain, Epochs: 60, Seed: 5}, exact: true, expect: "converge"},
		{name: "rbf-binary", X: Xf, y: yf, kern: kernels.RBF{Gamma: 0.5}, cfg: KernelConfig{Epochs: 5, Seed: 7}},
		{name: "rbf-K3", X: Xf3, y: yf3, kern: kernels.RBF{Gamma: 0.5}, cfg: KernelConfig{Epochs: 5, Seed: 8}},
		// Balanced weights n/(k·n_c) are not exact in float32: the
		// coefficients are compared to a tolerance.
		{name: "poly-K3-balanced", X: X3, y: y3, kern: poly, cfg: KernelConfig{Epochs: 4, Seed: 9, Balanced: true, ClassWeight: map[float64]float64{2: 2}}},
		{name: "poly-binary-balanced-plain", X: Xb, y: yb, kern: poly, cfg: KernelConfig{Algorithm: Plain, Epochs: 4, Seed: 9, Balanced: true}},
	}
	for _, c := range cases {
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
				t.Fatalf("%s: ran %d of %d epochs; the case meant to run them all", c.name, len(stats), cfg.Epochs)
			}
			continue
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
			continue
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
			t.Fatalf("%s: the model of %d epochs (stopped at %d) equals the one of exactly %d: the epochs left did not count", c.name, cfg.Epochs, e, e)
		}
		if ref.T != int64(cfg.Epochs)*int64(c.X.Rows) {
			t.Fatalf("%s: reference saw %d examples", c.name, ref.T)
		}
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
		{"poly-binary", 2, false, poly, KernelConfig{Epochs: 4, Seed: 3}},
		{"poly-K3", 3, false, poly, KernelConfig{Epochs: 4, Seed: 4}},
		{"linear-K4-nobias", 4, false, kernels.Linear{}, KernelConfig{Epochs: 3, Seed: 5, Bias: NoBias}},
		{"poly-binary-augmented-noshuffle", 2, false, poly, KernelConfig{Epochs: 3, NoShuffle: true, Bias: BiasAugmented, BiasScale: 2}},
		{"poly-binary-converges", 2, true, poly, KernelConfig{Epochs: 40, Seed: 6}},
		{"poly-K3-converges", 3, true, poly, KernelConfig{Epochs: 40, Seed: 7}},
	}
	for ci, c := range cases {
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
			t.Fatalf("%s: meant to converge early, ran all %d epochs", c.name, cfg.Epochs)
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
	}
}

// ---------------------------------------------------------------------
// 4. Labels.

// TestKernelLabelSets: binary labels 0/1, ±1 and {2, 7} give bit-identical
// models; multiclass labels {−3, 5, 11} the model of {0, 1, 2}; prediction
// returns the caller's labels, the argmax of the scores.
func TestKernelLabelSets(t *testing.T) {
	Xb, yb := ktIntData(61, 120, 20, 4, 2, 0.1, 0)
	var base *KernelModel
	for _, labels := range [][2]float64{{0, 1}, {-1, 1}, {2, 7}} {
		y := make([]float64, len(yb))
		for i, v := range yb {
			y[i] = labels[int(v)]
		}
		{
			m, _ := ktFit(t, Xb, y, KernelConfig{Kernel: kernels.RBF{Gamma: 0.1}, Epochs: 4, Seed: 9})
			if !slices.Equal(m.Classes, labels[:]) {
				t.Fatalf("labels %v: Classes %v", labels, m.Classes)
			}
			if base == nil {
				base = m
			} else {
				ktSameModel(t, fmt.Sprintf("labels %v vs 0/1", labels), m, base)
			}
			for i := range Xb.Rows {
				x := Xb.Row(i)
				want := labels[0]
				if base.Decision(x) > 0 {
					want = labels[1]
				}
				if got := m.Predict(x); got != want {
					t.Fatalf("labels %v: row %d predicts %v, want %v", labels, i, got, want)
				}
			}
		}
	}

	X3, y3 := ktIntData(62, 150, 20, 4, 3, 0.1, 0)
	odd := []float64{-3, 5, 11}
	yOdd := make([]float64, len(y3))
	for i, v := range y3 {
		yOdd[i] = odd[int(v)]
	}
	for _, alg := range []Algorithm{Averaged, Plain, Voted} {
		cfg := KernelConfig{Kernel: kernels.Poly{Degree: 2, Coef0: 1}, Algorithm: alg, Epochs: 4, Seed: 10}
		m0, _ := ktFit(t, X3, y3, cfg)
		m, _ := ktFit(t, X3, yOdd, cfg)
		if !slices.Equal(m.Classes, odd) || m.NumRows() != 3 || m.Binary() {
			t.Fatalf("%v: Classes %v, %d rows", alg, m.Classes, m.NumRows())
		}
		ktSameModel(t, fmt.Sprintf("%v: labels %v vs 0,1,2", alg, odd), m, m0)
		var s []float32
		for i := range X3.Rows {
			x := X3.Row(i)
			s = m.Scores(x, s)
			s64 := make([]float64, len(s))
			for k, v := range s {
				s64[k] = float64(v)
			}
			b := ktArgmax(s64)
			if got := m.Predict(x); got != odd[b] {
				t.Fatalf("%v: row %d predicts %v, scores %v have their argmax at %v", alg, i, got, s, odd[b])
			}
			if got := m0.Predict(x); got != float64(b) {
				t.Fatalf("%v: row %d: the 0,1,2 model predicts %v, want %d", alg, i, got, b)
			}
			if d := m.Decision(x); d != s[b] {
				t.Fatalf("%v: row %d: Decision %v is not the top score %v", alg, i, d, s[b])
			}
		}
	}
}

// ---------------------------------------------------------------------
// 5. What kernels are for.

// ktAccuracy returns the fraction of rows of X that m labels as y does.
func ktAccuracy(m *KernelModel, X *sparse.CSR, y []float64) float64 {
	p := m.PredictBatch(X, nil)
	right := 0
	for i, v := range p {
		if v == y[i] {
			right++
		}
	}
	return float64(right) / float64(len(y))
}

// TestKernelNonlinearToys: the RBF kernel learns XOR and concentric
// circles, the degree-2 polynomial kernel the circles, to 100% training
// accuracy; the linear kernel cannot (no line separates them).
func TestKernelNonlinearToys(t *testing.T) {
	Xx, yx := ktXOR(71, 25, 0.5)
	Xc, yc := ktCircles(72, 50)
	for _, c := range []struct {
		name string
		X    *sparse.CSR
		y    []float64
		cfg  KernelConfig
	}{
		{"xor-rbf-plain", Xx, yx, KernelConfig{Kernel: kernels.RBF{Gamma: 1}, Algorithm: Plain, Epochs: 100, Seed: 1}},
		{"xor-rbf-averaged", Xx, yx, KernelConfig{Kernel: kernels.RBF{Gamma: 1}, Epochs: 100, Seed: 1}},
		{"xor-default-kernel", Xx, yx, KernelConfig{Epochs: 100, Seed: 2}},
		{"xor-rbf-voted", Xx, yx, KernelConfig{Kernel: kernels.RBF{Gamma: 1}, Algorithm: Voted, Epochs: 100, Seed: 1}},
		{"circles-rbf", Xc, yc, KernelConfig{Kernel: kernels.RBF{Gamma: 0.5}, Algorithm: Plain, Epochs: 100, Seed: 3}},
		{"circles-poly2", Xc, yc, KernelConfig{Kernel: kernels.Poly{Degree: 2, Coef0: 1}, Algorithm: Plain, Epochs: 200, Seed: 4}},
		{"circles-poly2-averaged", Xc, yc, KernelConfig{Kernel: kernels.Poly{Degree: 2, Coef0: 1}, Epochs: 200, Seed: 4}},
	} {
		m, stats := ktFit(t, c.X, c.y, c.cfg)
		if last := stats[len(stats)-1]; last.Updates != 0 {
			t.Errorf("%s: no convergence in %d epochs (last epoch %d updates)", c.name, len(stats), last.Updates)
		}
		if acc := ktAccuracy(m, c.X, c.y); acc != 1 {
			t.Errorf("%s: training accuracy %v, want 1 (%d support vectors, %d epochs)", c.name, acc, m.NumSV(), len(stats))
		}
	}
	for _, c := range []struct {
		name string
		X    *sparse.CSR
		y    []float64
	}{{"xor", Xx, yx}, {"circles", Xc, yc}} {
		for _, alg := range []Algorithm{Plain, Averaged} {
			m, stats := ktFit(t, c.X, c.y, KernelConfig{Kernel: kernels.Linear{}, Algorithm: alg, Epochs: 100, Seed: 1})
			if acc := ktAccuracy(m, c.X, c.y); acc >= 0.9 {
				t.Errorf("%s linear %v: training accuracy %v; a line cannot separate it", c.name, alg, acc)
			}
			if stats[len(stats)-1].Updates == 0 {
				t.Errorf("%s linear %v: converged on data no line separates", c.name, alg)
			}
		}
	}
}

// ---------------------------------------------------------------------
// 6. The Gram matrix: full or cached rows, the same training.

// TestKernelGramCacheIdentical: training with the full Gram matrix and
// (Precompute) and with an LRU cache of a few rows (a budget below the
// full matrix) gives bit-identical models, and the statistics say which
// ran and that the cache missed.
func TestKernelGramCacheIdentical(t *testing.T) {
	Xd, yd := ktFloatData(81, 180, 10, 1, 2, 0.1)
	Xs, ys := ktFloatData(82, 180, 120, 0.12, 3, 0.1)
	Xi, yi := ktIntData(83, 180, 30, 5, 4, 0.1, 0)
	for _, c := range []struct {
		name string
		X    *sparse.CSR
		y    []float64
		cfg  KernelConfig
	}{
		{"dense-rbf-averaged", Xd, yd, KernelConfig{Kernel: kernels.RBF{Gamma: 0.5}, Epochs: 4, Seed: 1}},
		{"dense-rbf-voted", Xd, yd, KernelConfig{Kernel: kernels.RBF{Gamma: 0.5}, Algorithm: Voted, Epochs: 3, Seed: 1}},
		{"sparse-poly-K3", Xs, ys, KernelConfig{Kernel: kernels.Poly{Degree: 2, Gamma: 0.5, Coef0: 1}, Epochs: 4, Seed: 2}},
		{"sparse-rbf-K3-budget", Xs, ys, KernelConfig{Kernel: kernels.RBF{Gamma: 0.2}, Algorithm: Plain, Epochs: 4, Seed: 3, Budget: 20}},
		{"int-sigmoid-K4-plain", Xi, yi, KernelConfig{Kernel: kernels.Sigmoid{Gamma: 0.01}, Algorithm: Plain, Epochs: 4, Seed: 4}},
		{"int-linear-K4-budget", Xi, yi, KernelConfig{Kernel: kernels.Linear{}, Algorithm: Plain, Epochs: 4, Seed: 5, Budget: 15}},
	} {
		n := int64(c.X.Rows)
		full := c.cfg
		full.Gram = kernels.Options{Precompute: true}
		mf, sf := ktFit(t, c.X, c.y, full)
		over := 4 * n // what a cache holds beside its rows
		if kernels.NewData(c.X).IsDense() {
			over += 4 * n * int64(c.X.Cols)
		}
		for _, g := range []struct {
			name string
			opt  kernels.Options
			rows int
		}{
			{"3-rows", kernels.Options{Budget: 3*4*n + over}, 3},
			{"2-rows", kernels.Options{Budget: 2*4*n + over + 5}, 2},
			{"10-rows-precompute-too-big", kernels.Options{Budget: 10*4*n + over, Precompute: true}, 10},
			{"all-rows-lazy", kernels.Options{}, int(n)},
		} {
			what := c.name + "/" + g.name
			cached := c.cfg
			cached.Gram = g.opt
			mc, sc := ktFit(t, c.X, c.y, cached)
			ktSameModel(t, what+": cache vs full", mc, mf)
			if len(sc) != len(sf) {
				t.Fatalf("%s: %d epochs with the cache, %d with the full matrix", what, len(sc), len(sf))
			}
			for e := range sc {
				a, b := sc[e], sf[e]
				if a.Mistakes != b.Mistakes || a.Updates != b.Updates || a.SupportVectors != b.SupportVectors || a.Removed != b.Removed {
					t.Fatalf("%s: epoch %d: cache %+v, full %+v", what, e+1, a, b)
				}
				if !b.Gram.Full || b.Gram.Misses != 0 || b.Gram.Rows != c.X.Rows {
					t.Fatalf("%s: epoch %d: the default Gram stats %+v do not describe a full matrix", what, e+1, b.Gram)
				}
				if a.Gram.Full || a.Gram.Rows != g.rows {
					t.Fatalf("%s: epoch %d: Gram stats %+v, want a cache of %d rows", what, e+1, a.Gram, g.rows)
				}
				if e > 0 && (a.Gram.Misses < sc[e-1].Gram.Misses || a.Gram.Hits < sc[e-1].Gram.Hits) {
					t.Fatalf("%s: cache counters went down: %+v after %+v", what, a.Gram, sc[e-1].Gram)
				}
			}
			last := sc[len(sc)-1].Gram
			if last.Misses <= 0 {
				t.Fatalf("%s: the cache reports %d misses", what, last.Misses)
			}
			if updates := ktUpdates(sc); last.Hits+last.Misses < int64(updates) {
				t.Fatalf("%s: %d hits + %d misses for %d updates", what, last.Hits, last.Misses, updates)
			}
		}
	}
}

// ktUpdates sums Updates over the epochs.
func ktUpdates(stats []KernelEpochStats) int {
	n := 0
	for _, s := range stats {
		n += s.Updates
	}
	return n
}

// ---------------------------------------------------------------------
// 7. The support-vector budget.

// TestKernelBudgetEvictsSmallest builds cases where the vector to remove is
// known: three mistakes in a row on a budget of 2 remove the support
// vector of the smallest ‖α_j‖·√K(x_j,x_j), the oldest on a tie, whatever
// its norm alone says.
func TestKernelBudgetEvictsSmallest(t *testing.T) {
	type tc struct {
		name string
		x0   []float32
		cw   map[float64]float64
		keep [][]float32 // the support vectors left, in training order
		coef []float32
	}
	x1 := []float32{0, 3}
	x2 := []float32{0, -1}
	for _, c := range []tc{
		// ‖x0‖ = 1 < ‖x1‖ = 3, both α = ±1: x0 goes.
		{"smaller-norm", []float32{1, 0}, nil, [][]float32{x1, x2}, []float32{-1, -1}},
		// ‖x0‖ = 5 > 3: x1 goes.
		{"larger-norm", []float32{5, 0}, nil, [][]float32{{5, 0}, x2}, []float32{1, -1}},
		// 3 = 3: the oldest, x0, goes.
		{"tie-oldest", []float32{3, 0}, nil, [][]float32{x1, x2}, []float32{-1, -1}},
		// ‖x0‖ = 4 > 3 but α0 = 0.25: 0.25·4 = 1 < 3, x0 goes.
		{"small-alpha", []float32{4, 0}, map[float64]float64{1: 0.25}, [][]float32{x1, x2}, []float32{-1, -1}},
	} {
		// x0 (+1) is a mistake at f = 0; x1 (−1) too, as x1 ⊥ x0; and x2
		// (−1) has f(x2) = α1·(x1·x2) = 3 > 0, a third mistake on a full
		// budget.
		X := sparse.FromDense([][]float32{c.x0, x1, x2})
		y := []float64{1, -1, -1}
		var removed, maxSV []int
		cfg := KernelConfig{
			Kernel: kernels.Linear{}, Algorithm: Plain, Bias: NoBias, NoShuffle: true, Epochs: 1, Budget: 2, ClassWeight: c.cw,
			OnEpoch: func(s KernelEpochStats) error {
				removed = append(removed, s.Removed)
				maxSV = append(maxSV, s.SupportVectors)
				return nil
			},
		}
		var m *KernelModel
		got := ktTrace(t, func() { m, _ = ktFit(t, X, y, cfg) })
		if !slices.Equal(got, []int{0, 1, 2}) {
			t.Fatalf("%s: mistakes on rows %v, want 0 1 2 (the case is built wrong)", c.name, got)
		}
		if !slices.Equal(removed, []int{1}) || !slices.Equal(maxSV, []int{2}) {
			t.Fatalf("%s: epoch stats removed %v, support vectors %v; want [1] and [2]", c.name, removed, maxSV)
		}
		if m.NumSV() != len(c.keep) {
			t.Fatalf("%s: %d support vectors, want %d", c.name, m.NumSV(), len(c.keep))
		}
		for r, want := range c.keep {
			if got := m.SV.Row(r).Dense(); !slices.Equal(got, want) {
				t.Fatalf("%s: support vector %d is %v, want %v", c.name, r, got, want)
			}
			if m.Coef[r] != c.coef[r] {
				t.Fatalf("%s: Coef %v, want %v", c.name, m.Coef, c.coef)
			}
		}
	}
}

// TestKernelBudgetMatchesReference: with a budget the dual perceptron makes
// the mistakes and removals of the slow reference budget perceptron; the
// support vectors never exceed the budget (every epoch, and in the model);
// Removed counts the removals; coefficients match exactly. (Only Plain
// takes a budget.)
func TestKernelBudgetMatchesReference(t *testing.T) {
	poly := kernels.Poly{Degree: 2, Coef0: 1}
	for _, c := range []struct {
		K      int
		budget int
		kern   kernels.Kernel
	}{
		{2, 8, poly},
		{2, 5, poly},
		{3, 12, poly},
		{3, 5, poly},
		{2, 10, kernels.Linear{}},
		{4, 9, kernels.Linear{}},
	} {
		what := fmt.Sprintf("K=%d/budget=%d/%s", c.K, c.budget, c.kern)
		X, y := ktIntData(91+uint64(c.K*c.budget), 120, 20, 4, c.K, 0.2, 0)
		classes, cls := ktClasses(y)
		var perEpoch []KernelEpochStats
		cfg := KernelConfig{Kernel: c.kern, Algorithm: Plain, Epochs: 5, Seed: 11, Budget: c.budget,
			OnEpoch: func(s KernelEpochStats) error { perEpoch = append(perEpoch, s); return nil }}
		ref := ktRefRun(c.kern, X, cls, ktRefCfg{K: len(classes), Epochs: 5, BB: 1, Seed: 11, Budget: c.budget})
		var m *KernelModel
		var stats []KernelEpochStats
		got := ktTrace(t, func() { m, stats = ktFit(t, X, y, cfg) })
		ktSameSeq(t, what, got, ref.mistakes)
		ktCompareStats(t, what, stats, ref)
		if len(ref.removed) == 0 {
			t.Fatalf("%s: the budget removed nothing; the case tests nothing", what)
		}
		removed := 0
		for e, s := range perEpoch {
			if s.SupportVectors > c.budget || s.SupportVectors < 1 {
				t.Fatalf("%s: epoch %d ends with %d support vectors, budget %d", what, e+1, s.SupportVectors, c.budget)
			}
			removed += s.Removed
		}
		if removed != len(ref.removed) {
			t.Fatalf("%s: Removed sums to %d, the reference removed %d", what, removed, len(ref.removed))
		}
		if m.NumSV() > c.budget {
			t.Fatalf("%s: model has %d support vectors, budget %d", what, m.NumSV(), c.budget)
		}
		coef := ktCoefByRow(t, m, X)
		ktCompare(t, what+": Coef", coef, ref.alpha, 0)
		ktCompare(t, what+": B", m.B, ref.b, 0)
		if m.NumSV() != perEpoch[len(perEpoch)-1].SupportVectors {
			t.Fatalf("%s: model has %d support vectors, the last epoch reported %d", what, m.NumSV(), perEpoch[len(perEpoch)-1].SupportVectors)
		}
	}
}

// ---------------------------------------------------------------------
// 8. Determinism, cancellation, errors.

// TestKernelDeterminism: the same seed gives a bit-identical model;
// other seeds visit rows in other orders, so make other mistakes.
func TestKernelDeterminism(t *testing.T) {
	X, y := ktFloatData(101, 150, 10, 1, 3, 0.1)
	for _, alg := range []Algorithm{Averaged, Plain, Voted} {
		cfg := KernelConfig{Kernel: kernels.RBF{Gamma: 0.3}, Algorithm: alg, Epochs: 3, Seed: 5}
		var a, b *KernelModel
		ta := ktTrace(t, func() { a, _ = ktFit(t, X, y, cfg) })
		tb := ktTrace(t, func() { b, _ = ktFit(t, X, y, cfg) })
		ktSameSeq(t, fmt.Sprintf("%v: same seed", alg), tb, ta)
		ktSameModel(t, fmt.Sprintf("%v: same seed", alg), a, b)
		differ := 0
		for _, seed := range []uint64{6, 7, 8} {
			c2 := cfg
			c2.Seed = seed
			tc := ktTrace(t, func() { ktFit(t, X, y, c2) })
			if !slices.Equal(tc, ta) {
				differ++
			}
		}
		if differ == 0 {
			t.Fatalf("%v: seeds 6, 7 and 8 made exactly the mistakes of seed 5", alg)
		}
	}
}

// TestKernelCancellation: a context cancelled before training returns the
// empty model with ctx.Err(); one cancelled after epoch 2 returns the model
// of two epochs; an OnEpoch error stops training after its epoch and is
// returned with that model.
func TestKernelCancellation(t *testing.T) {
	X, y := ktFloatData(102, 150, 10, 1, 2, 0.2)
	base := KernelConfig{Kernel: kernels.RBF{Gamma: 0.5}, Epochs: 8, Seed: 3}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m, stats, err := FitKernel(ctx, X, y, base)
	if !errors.Is(err, context.Canceled) || m == nil || len(stats) != 0 {
		t.Fatalf("cancelled before: model %v, %d stats, err %v; want the empty model and context.Canceled", m != nil, len(stats), err)
	}
	if m.NumSV() != 0 || m.Check() != nil {
		t.Fatalf("cancelled before: %d support vectors, Check %v", m.NumSV(), m.Check())
	}

	for _, alg := range []Algorithm{Averaged, Plain, Voted} {
		want2, _ := ktFit(t, X, y, KernelConfig{Kernel: base.Kernel, Algorithm: alg, Epochs: 2, Seed: 3})
		want3, _ := ktFit(t, X, y, KernelConfig{Kernel: base.Kernel, Algorithm: alg, Epochs: 3, Seed: 3})

		ctx, cancel := context.WithCancel(context.Background())
		cfg := base
		cfg.Algorithm = alg
		cfg.OnEpoch = func(s KernelEpochStats) error {
			if s.Epoch == 2 {
				cancel()
			}
			return nil
		}
		m, stats, err := FitKernel(ctx, X, y, cfg)
		cancel()
		if !errors.Is(err, context.Canceled) || m == nil || len(stats) != 2 {
			t.Fatalf("%v: cancelled in epoch 2: model %v, %d stats, err %v", alg, m != nil, len(stats), err)
		}
		ktSameModel(t, fmt.Sprintf("%v: cancelled after epoch 2 vs Epochs 2", alg), m, want2)

		stop := errors.New("enough")
		cfg = base
		cfg.Algorithm = alg
		calls := 0
		cfg.OnEpoch = func(s KernelEpochStats) error {
			calls++
			if s.Epoch == 3 {
				return fmt.Errorf("epoch %d: %w", s.Epoch, stop)
			}
			return nil
		}
		m, stats, err = FitKernel(context.Background(), X, y, cfg)
		if !errors.Is(err, stop) || m == nil || len(stats) != 3 || calls != 3 {
			t.Fatalf("%v: OnEpoch error in epoch 3: model %v, %d stats, %d calls, err %v", alg, m != nil, len(stats), calls, err)
		}
		ktSameModel(t, fmt.Sprintf("%v: stopped by OnEpoch after epoch 3 vs Epochs 3", alg), m, want3)
	}
}

// ktCancelKernel is the linear kernel, user-defined, that cancels a
// context on its call number after (counting calls on all goroutines).
type ktCancelKernel struct {
	calls  *atomic.Int64
	after  int64
	cancel func()
}

func (k ktCancelKernel) tick() {
	if k.calls != nil && k.calls.Add(1) == k.after {
		k.cancel()
	}
}
func (k ktCancelKernel) Dense(x, z []float32) float64 {
	k.tick()
	var s float64
	for i := range x {
		s += float64(x[i]) * float64(z[i])
	}
	return s
}
func (k ktCancelKernel) Sparse(x, z sparse.Vector) float64 {
	k.tick()
	return kernels.SparseDot(x, z)
}
func (ktCancelKernel) String() string { return "test:linear" }

// TestKernelCancelMidEpoch: FitKernel checks ctx inside an epoch too. A
// kernel that cancels the context during the first update (its calls for
// the Gram cache's diagonal come first) stops training at the first check,
// after checkEvery−1 rows of epoch 1: the model returned is the one of a
// single epoch over exactly those rows, with no epoch statistics.
func TestKernelCancelMidEpoch(t *testing.T) {
	n := checkEvery + 500
	r := ktRNG(105)
	rows := make([][]float32, n)
	y := make([]float64, n)
	for i := range rows {
		s := float32(1)
		if r.IntN(2) == 0 {
			s = -1
		}
		rows[i] = []float32{s * float32(1+r.Float64()), float32(r.Float64() - 0.5)}
		y[i] = float64(s)
	}
	X := sparse.FromDense(rows)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var calls atomic.Int64
	kern := ktCancelKernel{calls: &calls, after: int64(n) + 1, cancel: cancel}
	// Two cached rows of n entries, beside the diagonal and the transposed
	// copy of the 2-wide dense data.
	gram := func(rows int) kernels.Options {
		return kernels.Options{Budget: int64(2*4*rows + 4*rows + 4*rows*2 + 4)}
	}
	m, stats, err := FitKernel(ctx, X, y, KernelConfig{Kernel: kern, Epochs: 3, NoShuffle: true, Gram: gram(n)})
	if !errors.Is(err, context.Canceled) || m == nil || len(stats) != 0 {
		t.Fatalf("cancelled in epoch 1: model %v, %d stats, err %v", m != nil, len(stats), err)
	}
	if err := m.Check(); err != nil {
		t.Fatal(err)
	}
	k := checkEvery - 1
	idx := make([]int, k)
	for i := range idx {
		idx[i] = i
	}
	want, _ := ktFit(t, X.SelectRows(idx), y[:k], KernelConfig{Kernel: ktCancelKernel{}, Epochs: 1, NoShuffle: true, Gram: gram(k)})
	ktSameModel(t, "cancelled after checkEvery-1 rows vs one epoch over them", m, want)
}

// TestKernelErrors: every invalid input fails with the documented sentinel.
func TestKernelErrors(t *testing.T) {
	X, y := ktFloatData(103, 30, 5, 1, 2, 0)
	nanX := sparse.FromDense([][]float32{{1, 2}, {float32(math.NaN()), 1}, {0, 3}})
	infX := sparse.FromDense([][]float32{{1, 2}, {float32(math.Inf(1)), 1}, {0, 3}})
	badIdx := &sparse.CSR{Rows: 2, Cols: 3, Indptr: []int64{0, 1, 2}, Ind: []int32{0, 5}, Val: []float32{1, 1}}
	ones := make([]float64, len(y))
	for i := range ones {
		ones[i] = 4
	}
	nanY := slices.Clone(y)
	nanY[3] = math.NaN()
	ctx := context.Background()
	for _, c := range []struct {
		name string
		X    *sparse.CSR
		y    []float64
		cfg  KernelConfig
		want error
	}{
		{"nil X", nil, nil, KernelConfig{}, ErrNoData},
		{"no rows", &sparse.CSR{Cols: 3, Indptr: []int64{0}}, nil, KernelConfig{}, ErrNoData},
		{"label count", X, y[:10], KernelConfig{}, ErrLabels},
		{"one class", X, ones, KernelConfig{}, ErrLabels},
		{"NaN label", X, nanY, KernelConfig{}, ErrLabels},
		{"too many classes", X, func() []float64 {
			z := slices.Clone(y)
			z[0], z[1] = 5, 6
			return z
		}(), KernelConfig{MaxClasses: 3}, ErrLabels},
		{"NaN feature", nanX, []float64{0, 1, 0}, KernelConfig{}, ErrDiverged},
		{"Inf feature", infX, []float64{0, 1, 0}, KernelConfig{Kernel: kernels.Linear{}}, ErrDiverged},
		{"index out of range", badIdx, []float64{0, 1}, KernelConfig{}, ErrDim},
		{"Batch", X, y, KernelConfig{Algorithm: Batch}, ErrConfig},
		{"unknown algorithm", X, y, KernelConfig{Algorithm: 9}, ErrConfig},
		{"negative Budget", X, y, KernelConfig{Budget: -1}, ErrConfig},
		{"Budget with Voted", X, y, KernelConfig{Algorithm: Voted, Budget: 5}, ErrConfig},
		{"Budget with Averaged", X, y, KernelConfig{Budget: 5}, ErrConfig},
		{"negative Epochs", X, y, KernelConfig{Epochs: -1}, ErrConfig},
		{"NaN LearningRate", X, y, KernelConfig{LearningRate: math.NaN()}, ErrConfig},
		{"negative Margin", X, y, KernelConfig{Margin: -1}, ErrConfig},
		{"bad ClassWeight", X, y, KernelConfig{ClassWeight: map[float64]float64{0: -1}}, ErrConfig},
		{"RBF NaN gamma", X, y, KernelConfig{Kernel: kernels.RBF{Gamma: math.NaN()}}, ErrConfig},
		{"RBF negative gamma", X, y, KernelConfig{Kernel: kernels.RBF{Gamma: -1}}, ErrConfig},
		{"Poly degree 33", X, y, KernelConfig{Kernel: kernels.Poly{Degree: 33}}, ErrConfig},
		{"Poly degree -1", X, y, KernelConfig{Kernel: kernels.Poly{Degree: -1}}, ErrConfig},
		{"Poly Inf coef0", X, y, KernelConfig{Kernel: kernels.Poly{Coef0: math.Inf(1)}}, ErrConfig},
		{"Sigmoid NaN gamma", X, y, KernelConfig{Kernel: kernels.Sigmoid{Gamma: math.NaN()}}, ErrConfig},
		{"Gram budget below two rows", X, y, KernelConfig{Gram: kernels.Options{Budget: 4 * 30}}, ErrConfig},
	} {
		m, _, err := FitKernel(ctx, c.X, c.y, c.cfg)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: err %v, want %v", c.name, err, c.want)
		}
		if m != nil {
			t.Errorf("%s: a model came back with the error", c.name)
		}
	}
	// The kernels' own sentinels are wrapped too.
	if _, _, err := FitKernel(ctx, X, y, KernelConfig{Kernel: kernels.RBF{Gamma: math.NaN()}}); !errors.Is(err, kernels.ErrKernel) {
		t.Errorf("NaN gamma: %v does not wrap kernels.ErrKernel", err)
	}
	if _, _, err := FitKernel(ctx, X, y, KernelConfig{Gram: kernels.Options{Budget: 4 * 30}}); !errors.Is(err, kernels.ErrBudget) {
		t.Errorf("tiny Gram budget: %v does not wrap kernels.ErrBudget", err)
	}
	// Poly's zero degree means 3, not an error.
	m, _ := ktFit(t, X, y, KernelConfig{Kernel: kernels.Poly{}, Epochs: 2})
	if p, ok := m.Kernel.(kernels.Poly); !ok || p.String() != "poly:degree=3,gamma=1,coef0=0" {
		t.Errorf("Poly{} trained as %v", m.Kernel)
	}
}

// TestKernelPolyOverflowDiverges: a polynomial kernel of degree 32 on large
// values overflows float32; FitKernel must report ErrDiverged, not return a
// model of infinities or NaNs.
func TestKernelPolyOverflowDiverges(t *testing.T) {
	r := ktRNG(104)
	rows := make([][]float32, 40)
	y := make([]float64, 40)
	for i := range rows {
		rows[i] = make([]float32, 8)
		for j := range rows[i] {
			rows[i][j] = float32(20 + 30*r.Float64())
		}
		y[i] = float64(i % 2)
	}
	X := sparse.FromDense(rows)
	for _, alg := range []Algorithm{Averaged, Plain, Voted} {
		m, _, err := FitKernel(context.Background(), X, y, KernelConfig{Kernel: kernels.Poly{Degree: 32, Coef0: 1}, Algorithm: alg, Epochs: 3})
		if !errors.Is(err, ErrDiverged) {
			t.Errorf("%v: err %v, want ErrDiverged", alg, err)
		}
		if m != nil && (!finite32s(m.Coef) || !finite32s(m.B)) {
			t.Errorf("%v: a model with non-finite coefficients came back", alg)
		}
	}
}

// ---------------------------------------------------------------------
// 9. Prediction.

// ktModelCase is a trained kernel model and rows to predict.
type ktModelCase struct {
	name string
	m    *KernelModel
	X    *sparse.CSR
}

// ktPredictModels trains one model of each kind the prediction tests use.
func ktPredictModels(t testing.TB) []ktModelCase {
	t.Helper()
	Xd, yd := ktFloatData(111, 160, 10, 1, 2, 0.05)
	Xs, ys := ktFloatData(112, 160, 80, 0.1, 4, 0.05)
	Xi, yi := ktIntData(113, 160, 30, 5, 3, 0.1, 0)
	var out []ktModelCase
	add := func(name string, X *sparse.CSR, y []float64, cfg KernelConfig) {
		m, _ := ktFit(t, X, y, cfg)
		if m.NumSV() == 0 {
			t.Fatalf("%s: no support vectors", name)
		}
		out = append(out, ktModelCase{name, m, X})
	}
	add("rbf-averaged-binary-dense", Xd, yd, KernelConfig{Kernel: kernels.RBF{Gamma: 0.3}, Epochs: 4, Seed: 1})
	add("default-rbf-K4-sparse", Xs, ys, KernelConfig{Epochs: 3, Seed: 1})
	add("poly-plain-K3", Xi, yi, KernelConfig{Kernel: kernels.Poly{Degree: 2, Gamma: 0.5, Coef0: 1}, Algorithm: Plain, Epochs: 3, Seed: 1})
	add("linear-binary-sparse", Xs, func() []float64 {
		z := make([]float64, len(ys))
		for i, v := range ys {
			z[i] = float64(int(v) % 2)
		}
		return z
	}(), KernelConfig{Kernel: kernels.Linear{}, Epochs: 3, Seed: 1})
	add("sigmoid-binary", Xd, yd, KernelConfig{Kernel: kernels.Sigmoid{Gamma: 0.05}, Epochs: 3, Seed: 1})
	add("rbf-augmented-K4", Xs, ys, KernelConfig{Kernel: kernels.RBF{Gamma: 0.5}, Bias: BiasAugmented, BiasScale: 2, Epochs: 3, Seed: 2})
	add("poly-nobias-binary", Xd, yd, KernelConfig{Kernel: kernels.Poly{Degree: 3, Gamma: 0.3, Coef0: 1}, Bias: NoBias, Epochs: 3, Seed: 3})
	add("voted-rbf-binary", Xd, yd, KernelConfig{Kernel: kernels.RBF{Gamma: 0.3}, Algorithm: Voted, Epochs: 3, Seed: 1})
	add("voted-poly-K3", Xi, yi, KernelConfig{Kernel: kernels.Poly{Degree: 2, Gamma: 0.5, Coef0: 1}, Algorithm: Voted, Epochs: 2, Seed: 1})
	return out
}

// ktRefScores returns the function values of x under m's coefficients in
// float64, with kernel values from m.Kernel directly, and for each a bound
// on float32 rounding.
func ktRefScores(m *KernelModel, x sparse.Vector) (s, tol []float64) {
	K := m.NumRows()
	s = make([]float64, K)
	tol = make([]float64, K)
	for k := range K {
		s[k] = float64(m.B[k])
		tol[k] = math.Abs(s[k])
	}
	for j := range m.NumSV() {
		kv := m.Kernel.Sparse(m.SV.Row(j), x)
		for k := range K {
			v := float64(m.Coef[j*K+k]) * kv
			s[k] += v
			tol[k] += math.Abs(v)
		}
	}
	for k := range tol {
		tol[k] = 1e-4*tol[k] + 1e-6
	}
	return s, tol
}

// ktRefVote replays m.Votes in float64 with kernel values from m.Kernel:
// the vote (binary) or shares (multiclass), and whether every running
// function stayed clear of a decision boundary by more than rounding.
func ktRefVote(m *KernelModel, x sparse.Vector) ([]float64, bool) {
	v := m.Votes
	K := m.NumRows()
	bb := 0.0
	if m.Bias != NoBias {
		bb = float64(m.BiasScale) * float64(m.BiasScale)
	}
	kx := make([]float64, m.NumSV())
	for j := range kx {
		kx[j] = m.Kernel.Sparse(m.SV.Row(j), x)
	}
	s := make([]float64, K)
	out := make([]float64, K)
	var total, scale float64
	far := true
	cast := func(count int64) {
		if count == 0 {
			return
		}
		total += float64(count)
		tol := 1e-4*scale + 1e-6
		if K == 1 {
			if math.Abs(s[0]) <= tol {
				far = false
			}
			if s[0] > 0 {
				out[0] += float64(count)
			} else {
				out[0] -= float64(count)
			}
			return
		}
		b := ktArgmax(s)
		if s[b]-s[ktBestOther(s, b)] <= tol {
			far = false
		}
		out[b] += float64(count)
	}
	// The start vector's scores are exactly 0 on every path: no rounding
	// can move them across the boundary.
	saved := far
	cast(v.Count0)
	far = saved
	for _, st := range v.Steps {
		d := float64(st.A) * (kx[st.Row] + bb)
		scale += math.Abs(d)
		s[st.Up] += d
		if st.Down >= 0 {
			s[st.Down] -= d
		}
		cast(st.Count)
	}
	for k := range out {
		out[k] /= total
	}
	return out, far
}

// ktPredictRows returns rows to predict with m: training rows; rows of
// half the model's width; rows with extra features past Dim.
func ktPredictRows(m *KernelModel, X *sparse.CSR, seed uint64) []sparse.Vector {
	r := ktRNG(seed)
	var rows []sparse.Vector
	for i := 0; i < X.Rows; i += 3 {
		rows = append(rows, X.Row(i))
	}
	for i := range 20 {
		x := X.Row(i)
		// Narrower: the features below Dim/2, in a vector of that width.
		nar := sparse.Vector{Dim: m.Dim / 2}
		for q, j := range x.Ind {
			if int(j) < nar.Dim {
				nar.Ind = append(nar.Ind, j)
				nar.Val = append(nar.Val, x.Val[q])
			}
		}
		rows = append(rows, nar)
		// Wider: one to three features past Dim.
		wide := sparse.Vector{Dim: m.Dim + 6, Ind: slices.Clone(x.Ind), Val: slices.Clone(x.Val)}
		for j := m.Dim; j < m.Dim+6; j += 1 + r.IntN(3) {
			wide.Ind = append(wide.Ind, int32(j))
			wide.Val = append(wide.Val, float32(r.IntN(5)-2)*0.5+0.25)
		}
		rows = append(rows, wide)
	}
	return rows
}

// TestKernelPredictAgrees: Predict, Decision, Scores, PredictDense,
// DecisionDense, PredictBatch and DecisionBatch agree with one another and
// with a slow float64 reference that evaluates the kernel directly, for
// rows of the model's width, narrower and wider (extra features count in
// ‖x‖² only), and dense rows shorter and longer than Dim.
func TestKernelPredictAgrees(t *testing.T) {
	for _, mc := range ktPredictModels(t) {
		m := mc.m
		K := m.NumRows()
		rows := ktPredictRows(m, mc.X, 7)
		for i, x := range rows {
			what := fmt.Sprintf("%s: row %d (dim %d, model %d)", mc.name, i, x.Dim, m.Dim)
			s := m.Scores(x, nil)
			d := m.Decision(x)
			p := m.Predict(x)
			if len(s) != K {
				t.Fatalf("%s: %d scores, want %d", what, len(s), K)
			}
			// The per-row methods share one computation: exact agreement.
			s64 := make([]float64, K)
			for k, v := range s {
				s64[k] = float64(v)
			}
			b := ktArgmax(s64)
			if K == 1 {
				want := m.Classes[0]
				if d > 0 {
					want = m.Classes[1]
				}
				if d != s[0] || p != want {
					t.Fatalf("%s: Decision %v, Scores %v, Predict %v disagree", what, d, s, p)
				}
			} else if d != s[b] || p != m.Classes[b] {
				t.Fatalf("%s: Decision %v, Scores %v, Predict %v disagree", what, d, s, p)
			}
			// Against the reference.
			var refLabel float64
			far := true
			if m.Votes != nil {
				want, ok := ktRefVote(m, x)
				far = ok
				if ok {
					for k := range want {
						if math.Abs(float64(s[k])-want[k]) > 1e-6 {
							t.Fatalf("%s: vote %v, reference %v", what, s, want)
						}
					}
				}
				if K == 1 {
					refLabel = m.Classes[0]
					if want[0] > 0 {
						refLabel = m.Classes[1]
					}
				} else {
					refLabel = m.Classes[ktArgmax(want)]
					wb := ktArgmax(want)
					if want[wb] == want[ktBestOther(want, wb)] {
						far = false
					}
				}
			} else {
				want, tol := ktRefScores(m, x)
				for k := range want {
					if math.Abs(float64(s[k])-want[k]) > tol[k] {
						t.Fatalf("%s: score %d = %v, reference %v (tolerance %v)", what, k, s[k], want[k], tol[k])
					}
				}
				if K == 1 {
					refLabel = m.Classes[0]
					if want[0] > 0 {
						refLabel = m.Classes[1]
					}
					far = math.Abs(want[0]) > tol[0]
				} else {
					wb := ktArgmax(want)
					o := ktBestOther(want, wb)
					refLabel = m.Classes[wb]
					far = want[wb]-want[o] > tol[wb]+tol[o]
				}
			}
			if far && p != refLabel {
				t.Fatalf("%s: Predict %v, reference %v", what, p, refLabel)
			}
			// Dense rows: the same row at its width, cut short, and longer.
			dense := x.Dense()
			for _, dx := range []struct {
				name string
				row  []float32
			}{
				{"dense", dense},
				{"dense-short", dense[:min(len(dense), m.Dim-3)]},
				{"dense-long", append(slices.Clone(dense), 0, 1.5, 0, -0.5)},
			} {
				xs := sparse.Vector{Dim: len(dx.row)}
				for j, v := range dx.row {
					if v != 0 {
						xs.Ind = append(xs.Ind, int32(j))
						xs.Val = append(xs.Val, v)
					}
				}
				ds := m.Scores(xs, nil)
				dd, dp := m.DecisionDense(dx.row), m.PredictDense(dx.row)
				sd, sp := m.Decision(xs), m.Predict(xs)
				tolD := 1e-5 * (1 + math.Abs(float64(sd)))
				if m.Votes != nil {
					if _, ok := ktRefVote(m, xs); !ok {
						continue // a running function near 0: dense and sparse rounding may vote differently
					}
				} else {
					_, tol := ktRefScores(m, xs)
					tolD = tol[0]
					for _, v := range tol {
						tolD = max(tolD, v)
					}
				}
				if math.Abs(float64(dd-sd)) > tolD {
					t.Fatalf("%s %s: DecisionDense %v, Decision of the sparse row %v", what, dx.name, dd, sd)
				}
				if dp != sp {
					gap := math.Abs(float64(sd))
					if K > 1 {
						s64 := make([]float64, K)
						for k, v := range ds {
							s64[k] = float64(v)
						}
						b := ktArgmax(s64)
						gap = s64[b] - s64[ktBestOther(s64, b)]
					}
					if gap > 2*tolD {
						t.Fatalf("%s %s: PredictDense %v, Predict of the sparse row %v (scores %v)", what, dx.name, dp, sp, ds)
					}
				}
			}
		}
		// The batch methods, over the same rows gathered into matrices of
		// one width each.
		byDim := map[int][]sparse.Vector{}
		for _, x := range rows {
			byDim[x.Dim] = append(byDim[x.Dim], x)
		}
		for dim, xs := range byDim {
			b := sparse.NewBuilder(dim)
			for _, x := range xs {
				if err := b.Add(x.Ind, x.Val); err != nil {
					t.Fatal(err)
				}
			}
			B := b.Build()
			B.Cols = dim
			pb := m.PredictBatch(B, nil)
			db := m.DecisionBatch(B, make([]float32, 3))
			if len(pb) != len(xs) || len(db) != len(xs) {
				t.Fatalf("%s: batch of %d rows gave %d labels and %d decisions", mc.name, len(xs), len(pb), len(db))
			}
			for i, x := range xs {
				d, p := m.Decision(x), m.Predict(x)
				tol := 1e-5 * (1 + math.Abs(float64(d)))
				if m.Votes != nil {
					if _, ok := ktRefVote(m, x); !ok {
						continue
					}
				} else {
					_, tl := ktRefScores(m, x)
					tol = slices.Max(tl)
				}
				if math.Abs(float64(db[i]-d)) > tol {
					t.Fatalf("%s: batch (width %d) row %d: DecisionBatch %v, Decision %v", mc.name, dim, i, db[i], d)
				}
				if K == 1 {
					want := m.Classes[0]
					if db[i] > 0 {
						want = m.Classes[1]
					}
					if pb[i] != want {
						t.Fatalf("%s: batch row %d: PredictBatch %v but DecisionBatch %v", mc.name, i, pb[i], db[i])
					}
				}
				if pb[i] != p {
					s := m.Scores(x, nil)
					gap := math.Abs(float64(d))
					if K > 1 {
						s64 := make([]float64, K)
						for k, v := range s {
							s64[k] = float64(v)
						}
						b := ktArgmax(s64)
						gap = s64[b] - s64[ktBestOther(s64, b)]
					}
					if gap > 2*tol {
						t.Fatalf("%s: batch (width %d) row %d: PredictBatch %v, Predict %v (scores %v)", mc.name, dim, i, pb[i], p, s)
					}
				}
			}
		}
	}
}

// TestKernelPredictHandBuilt: models built by hand whose support vectors
// use only the first 3 of Dim = 10 features predict, on rows that use all
// 10 (and 12), what a direct evaluation of the kernel says: the features
// the support vectors lack still count in ‖x‖². Empty rows and batches
// work too.
func TestKernelPredictHandBuilt(t *testing.T) {
	sv := sparse.FromDense([][]float32{{1, 0, 2}, {0, -1, 0.5}, {3, 1, 0}})
	sv.Cols = 10
	models := []*KernelModel{
		{Kernel: kernels.RBF{Gamma: 0.2}, Algorithm: Plain, Classes: []float64{-1, 1}, Dim: 10, SV: sv,
			Coef: []float32{1, -0.5, 0.75}, B: []float32{0.1}},
		{Kernel: kernels.Poly{Degree: 2, Coef0: 1}, Classes: []float64{1, 2, 3}, Dim: 10, SV: sv,
			Coef: []float32{1, -1, 0, 0.5, 0.25, -0.75, -1, 0, 1}, B: []float32{0, 0.5, -0.5}},
		{Kernel: kernels.Sigmoid{Gamma: 0.3, Coef0: -0.2}, Bias: NoBias, Classes: []float64{0, 1}, Dim: 10, SV: sv,
			Coef: []float32{0.5, 1, -1}, B: []float32{0}},
		{Kernel: kernels.RBF{Gamma: 0.2}, Algorithm: Voted, BiasScale: 1, Classes: []float64{0, 1}, Dim: 10, SV: sv,
			Coef: []float32{0.2, -0.1, 0.3}, B: []float32{0.05}, Votes: &Votes{SV: sv, Count0: 1, Steps: []VoteStep{
				{Row: 0, Up: 0, Down: -1, A: 1, Count: 3}, {Row: 1, Up: 0, Down: -1, A: -1, Count: 2}, {Row: 2, Up: 0, Down: -1, A: -1, Count: 5}}}},
		{Kernel: kernels.Linear{}, Algorithm: Voted, BiasScale: 2, Bias: BiasAugmented, Classes: []float64{5, 6, 7}, Dim: 10, SV: sv,
			Coef: make([]float32, 9), B: make([]float32, 3), Votes: &Votes{SV: sv, Steps: []VoteStep{
				{Row: 0, Up: 0, Down: 1, A: 1, Count: 4}, {Row: 2, Up: 2, Down: 0, A: 1, Count: 1}, {Row: 1, Up: 1, Down: 2, A: 1, Count: 3}}}},
	}
	r := ktRNG(126)
	var rows []sparse.Vector
	for i := range 40 {
		x := sparse.Vector{Dim: 10 + 2*(i%2)}
		for j := range x.Dim {
			if r.IntN(3) > 0 {
				x.Ind = append(x.Ind, int32(j))
				x.Val = append(x.Val, float32(2*r.Float64()-1))
			}
		}
		rows = append(rows, x)
	}
	rows = append(rows, sparse.Vector{Dim: 10}, sparse.Vector{Dim: 10, Ind: []int32{9}, Val: []float32{2}})
	for mi, m := range models {
		if err := m.Check(); err != nil {
			t.Fatalf("model %d: Check: %v", mi, err)
		}
		K := m.NumRows()
		checked := 0
		for i, x := range rows {
			what := fmt.Sprintf("model %d (%s, %v) row %d", mi, m.Kernel, m.Algorithm, i)
			s := m.Scores(x, nil)
			if m.Votes != nil {
				want, ok := ktRefVote(m, x)
				if !ok {
					continue
				}
				checked++
				for k := range want {
					if math.Abs(float64(s[k])-want[k]) > 1e-6 {
						t.Fatalf("%s: vote %v, reference %v", what, s, want)
					}
				}
			} else {
				checked++
				want, tol := ktRefScores(m, x)
				for k := range want {
					if math.Abs(float64(s[k])-want[k]) > tol[k] {
						t.Fatalf("%s: scores %v, reference %v", what, s, want)
					}
				}
			}
			d := m.Decision(x)
			if dd := m.DecisionDense(x.Dense()); math.Abs(float64(dd-d)) > 1e-5*(1+math.Abs(float64(d))) {
				t.Fatalf("%s: DecisionDense %v, Decision %v", what, dd, d)
			}
			if K == 1 && d != s[0] {
				t.Fatalf("%s: Decision %v, Scores %v", what, d, s)
			}
		}
		if checked < len(rows)/2 {
			t.Fatalf("model %d: only %d of %d rows clear of a tie", mi, checked, len(rows))
		}
		if d0, de := m.DecisionDense(nil), m.Decision(sparse.Vector{}); d0 != de {
			t.Fatalf("model %d: empty dense row %v, empty sparse row %v", mi, d0, de)
		}
		if p := m.PredictBatch(&sparse.CSR{Cols: 10, Indptr: []int64{0}}, nil); len(p) != 0 {
			t.Fatalf("model %d: PredictBatch of no rows gave %v", mi, p)
		}
		for _, dim := range []int{10, 12} {
			b := sparse.NewBuilder(dim)
			var xs []sparse.Vector
			for _, x := range rows {
				if x.Dim == dim {
					b.Add(x.Ind, x.Val)
					xs = append(xs, x)
				}
			}
			B := b.Build()
			B.Cols = dim
			db := m.DecisionBatch(B, nil)
			for i, x := range xs {
				if d := m.Decision(x); math.Abs(float64(db[i]-d)) > 1e-5*(1+math.Abs(float64(d))) {
					if _, ok := ktRefVote(m, x); m.Votes == nil || ok {
						t.Fatalf("model %d width %d row %d: DecisionBatch %v, Decision %v", mi, dim, i, db[i], d)
					}
				}
			}
		}
	}
}

var (
	ktSinkF  float64
	ktSinkF3 float32
)

// TestKernelPredictAllocs: with the built-in kernels, prediction allocates
// nothing once its pool is warm.
func TestKernelPredictAllocs(t *testing.T) {
	if ktRace {
		t.Skip("sync.Pool drops items at random under -race; the kernel model's scratch is pooled")
	}
	for _, mc := range ktPredictModels(t) {
		m := mc.m
		x := mc.X.Row(5)
		dense := x.Dense()
		short := dense[:m.Dim/2]
		long := append(slices.Clone(dense), 1, 2)
		dst := make([]float32, m.NumRows())
		for _, f := range []struct {
			name string
			fn   func()
		}{
			{"Predict", func() { ktSinkF = m.Predict(x) }},
			{"Decision", func() { ktSinkF3 = m.Decision(x) }},
			{"Scores", func() { ktSinkF3 = m.Scores(x, dst)[0] }},
			{"PredictDense", func() { ktSinkF = m.PredictDense(dense) }},
			{"PredictDense-short", func() { ktSinkF = m.PredictDense(short) }},
			{"PredictDense-long", func() { ktSinkF = m.PredictDense(long) }},
			{"DecisionDense", func() { ktSinkF3 = m.DecisionDense(dense) }},
		} {
			if a := testing.AllocsPerRun(100, f.fn); a != 0 {
				t.Errorf("%s: %s allocates %v times per call, want 0", mc.name, f.name, a)
			}
		}
	}
}

// ktRace reports whether the test binary was built with -race (sync.Pool
// then drops a random share of what is put into it, by design).
var ktRace = func() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" && s.Value == "true" {
			return true
		}
	}
	return false
}()

// TestKernelConcurrentPredict: many goroutines predict with fresh models
// (their first use races to prepare them) while another goroutine trains
// a different model; every answer must be the one a lone goroutine gets.
// Run with -race.
func TestKernelConcurrentPredict(t *testing.T) {
	Xd, yd := ktFloatData(121, 150, 10, 1, 2, 0.05)
	X4, y4 := ktFloatData(122, 150, 40, 0.2, 4, 0.05)
	cfgs := []struct {
		X   *sparse.CSR
		y   []float64
		cfg KernelConfig
	}{
		{Xd, yd, KernelConfig{Kernel: kernels.RBF{Gamma: 0.3}, Epochs: 3, Seed: 1}},
		{X4, y4, KernelConfig{Kernel: kernels.Poly{Degree: 2, Gamma: 0.5, Coef0: 1}, Epochs: 3, Seed: 1}},
		{Xd, yd, KernelConfig{Kernel: kernels.RBF{Gamma: 0.3}, Algorithm: Voted, Epochs: 2, Seed: 1}},
	}
	type want struct {
		p  []float64
		d  []float32
		pd []float64
		pb []float64
	}
	var fresh []*KernelModel
	var wants []want
	for _, c := range cfgs {
		ref, _ := ktFit(t, c.X, c.y, c.cfg)
		m, _ := ktFit(t, c.X, c.y, c.cfg)
		fresh = append(fresh, m)
		var w want
		for i := range c.X.Rows {
			x := c.X.Row(i)
			w.p = append(w.p, ref.Predict(x))
			w.d = append(w.d, ref.Decision(x))
			w.pd = append(w.pd, ref.PredictDense(x.Dense()))
		}
		w.pb = ref.PredictBatch(c.X, nil)
		wants = append(wants, w)
	}
	Xt, yt := ktFloatData(123, 200, 12, 1, 3, 0.1)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 2 {
			m, _, err := FitKernel(context.Background(), Xt, yt, KernelConfig{Kernel: kernels.RBF{Gamma: 0.2}, Epochs: 3})
			if err != nil || m.NumSV() == 0 {
				errs <- fmt.Errorf("training beside prediction: %v", err)
			}
		}
	}()
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for mi, m := range fresh {
				X := cfgs[mi].X
				w := wants[mi]
				for rep := range 2 {
					for i := (g + rep) % 3; i < X.Rows; i += 3 {
						x := X.Row(i)
						if p, d, pd := m.Predict(x), m.Decision(x), m.PredictDense(x.Dense()); p != w.p[i] || math.Float32bits(d) != math.Float32bits(w.d[i]) || pd != w.pd[i] {
							errs <- fmt.Errorf("model %d row %d: goroutine %d got %v %v %v, alone %v %v %v", mi, i, g, p, d, pd, w.p[i], w.d[i], w.pd[i])
							return
						}
					}
				}
				if g%4 == 0 {
					if pb := m.PredictBatch(X, nil); !slices.Equal(pb, w.pb) {
						errs <- fmt.Errorf("model %d: PredictBatch differs under concurrency", mi)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestKernelZeroSupportVectors: a model without support vectors (built by
// hand, or returned by a training cancelled before it began) predicts from
// its bias alone on every path.
func TestKernelZeroSupportVectors(t *testing.T) {
	empty := func(dim int) *sparse.CSR { return &sparse.CSR{Cols: dim, Indptr: []int64{0}} }
	X := sparse.FromDense([][]float32{{1, 2, 3}, {0, 0, 0}, {-1, 0, 4}})
	X.Cols = 3
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cancelled, _, err := FitKernel(ctx, X, []float64{1, 2, 3}, KernelConfig{Kernel: kernels.RBF{Gamma: 1}})
	if !errors.Is(err, context.Canceled) || cancelled == nil {
		t.Fatalf("cancelled training: %v", err)
	}
	for _, c := range []struct {
		name  string
		m     *KernelModel
		label float64
		dec   float32
	}{
		{"binary-positive-bias", &KernelModel{Kernel: kernels.RBF{Gamma: 1}, Classes: []float64{-1, 1}, Dim: 3, SV: empty(3), B: []float32{0.5}}, 1, 0.5},
		{"binary-negative-bias", &KernelModel{Kernel: kernels.Linear{}, Classes: []float64{-1, 1}, Dim: 3, SV: empty(3), B: []float32{-2}}, -1, -2},
		{"K3", &KernelModel{Kernel: kernels.Poly{Degree: 2}, Classes: []float64{4, 5, 6}, Dim: 3, SV: empty(3), B: []float32{0, 3, 1}}, 5, 3},
		{"voted-binary", func() *KernelModel {
			sv := empty(3)
			return &KernelModel{Kernel: kernels.RBF{}, Algorithm: Voted, Classes: []float64{0, 1}, Dim: 3, SV: sv, B: []float32{0}, Votes: &Votes{SV: sv, Count0: 10}}
		}(), 0, -1},
		{"cancelled-K3", cancelled, 1, 0},
	} {
		if err := c.m.Check(); err != nil {
			t.Fatalf("%s: Check: %v", c.name, err)
		}
		if c.m.NumSV() != 0 {
			t.Fatalf("%s: %d support vectors", c.name, c.m.NumSV())
		}
		for i := range X.Rows {
			x := X.Row(i)
			if p, d := c.m.Predict(x), c.m.Decision(x); p != c.label || d != c.dec {
				t.Fatalf("%s: row %d: Predict %v Decision %v, want %v %v", c.name, i, p, d, c.label, c.dec)
			}
			if p, d := c.m.PredictDense(x.Dense()), c.m.DecisionDense(x.Dense()[:1]); p != c.label || d != c.dec {
				t.Fatalf("%s: row %d dense: Predict %v Decision %v, want %v %v", c.name, i, p, d, c.label, c.dec)
			}
			if s := c.m.Scores(x, nil); len(s) != c.m.NumRows() {
				t.Fatalf("%s: %d scores", c.name, len(s))
			}
		}
		for _, p := range c.m.PredictBatch(X, nil) {
			if p != c.label {
				t.Fatalf("%s: PredictBatch %v, want %v", c.name, p, c.label)
			}
		}
		for _, d := range c.m.DecisionBatch(X, nil) {
			if d != c.dec {
				t.Fatalf("%s: DecisionBatch %v, want %v", c.name, d, c.dec)
			}
		}
	}
	// Class weights of 0 make no update at all: no support vector, every
	// example (the epochs left after the first included) counted for the
	// zero start of the voted perceptron.
	Xw, yw := ktFloatData(125, 40, 5, 1, 2, 0)
	for _, alg := range []Algorithm{Averaged, Plain, Voted} {
		mw, stats := ktFit(t, Xw, yw, KernelConfig{Algorithm: alg, Epochs: 5, ClassWeight: map[float64]float64{0: 0, 1: 0}})
		if mw.NumSV() != 0 || len(stats) != 1 || stats[0].Updates != 0 || stats[0].Mistakes != Xw.Rows {
			t.Fatalf("%v with zero class weights: %d support vectors, stats %+v", alg, mw.NumSV(), stats)
		}
		if alg == Voted && (mw.Votes.Count0 != int64(5*Xw.Rows) || len(mw.Votes.Steps) != 0) {
			t.Fatalf("voted with zero class weights: Count0 %d, %d steps; want %d, 0", mw.Votes.Count0, len(mw.Votes.Steps), 5*Xw.Rows)
		}
		if p := mw.Predict(Xw.Row(0)); p != 0 {
			t.Fatalf("%v with zero class weights predicts %v", alg, p)
		}
	}
	// A model whose SV is nil altogether.
	m := &KernelModel{Kernel: kernels.RBF{Gamma: 1}, Classes: []float64{0, 1}, Dim: 3, B: []float32{1}}
	if p := m.Predict(X.Row(0)); p != 1 {
		t.Fatalf("nil SV: Predict %v", p)
	}
	if p := m.PredictBatch(X, nil); !slices.Equal(p, []float64{1, 1, 1}) {
		t.Fatalf("nil SV: PredictBatch %v", p)
	}
}

// ktUserPoly is (x·z + 1)², implemented outside the built-in kernels (no
// DotKernel fast path).
type ktUserPoly struct{}

func (ktUserPoly) Dense(x, z []float32) float64 {
	var s float64
	for i := range x {
		s += float64(x[i]) * float64(z[i])
	}
	return (s + 1) * (s + 1)
}
func (ktUserPoly) Sparse(x, z sparse.Vector) float64 {
	s := kernels.SparseDot(x, z)
	return (s + 1) * (s + 1)
}
func (ktUserPoly) String() string { return "test:poly2" }

// ktLaplace is the Laplacian kernel exp(−γ‖x − z‖₁).
type ktLaplace struct{ gamma float64 }

func (k ktLaplace) Dense(x, z []float32) float64 {
	var d float64
	for i := range x {
		d += math.Abs(float64(x[i]) - float64(z[i]))
	}
	return math.Exp(-k.gamma * d)
}
func (k ktLaplace) Sparse(x, z sparse.Vector) float64 {
	var d float64
	i, j := 0, 0
	for i < len(x.Ind) || j < len(z.Ind) {
		switch {
		case j == len(z.Ind) || (i < len(x.Ind) && x.Ind[i] < z.Ind[j]):
			d += math.Abs(float64(x.Val[i]))
			i++
		case i == len(x.Ind) || z.Ind[j] < x.Ind[i]:
			d += math.Abs(float64(z.Val[j]))
			j++
		default:
			d += math.Abs(float64(x.Val[i]) - float64(z.Val[j]))
			i++
			j++
		}
	}
	return math.Exp(-k.gamma * d)
}
func (k ktLaplace) String() string { return fmt.Sprintf("test:laplace:%v", k.gamma) }

// TestKernelUserDefined: a kernel that implements kernels.Kernel only
// trains and predicts. (x·z+1)² written by hand gives, on integer data,
// the bit-identical model and predictions of kernels.Poly{2, 1, 1}; a
// Laplacian kernel learns XOR and predicts as a direct evaluation says,
// on sparse, dense, short, long and batched rows.
func TestKernelUserDefined(t *testing.T) {
	for _, dense := range []bool{false, true} {
		var X *sparse.CSR
		var y []float64
		if dense {
			X, y = ktIntData(131, 120, 8, 8, 3, 0.1, 0)
		} else {
			X, y = ktIntData(132, 120, 30, 4, 3, 0.1, 0)
		}
		for _, alg := range []Algorithm{Averaged, Plain, Voted} {
			what := fmt.Sprintf("dense=%v/%v", dense, alg)
			var mu, mb *KernelModel
			tu := ktTrace(t, func() { mu, _ = ktFit(t, X, y, KernelConfig{Kernel: ktUserPoly{}, Algorithm: alg, Epochs: 3, Seed: 2}) })
			tb := ktTrace(t, func() {
				mb, _ = ktFit(t, X, y, KernelConfig{Kernel: kernels.Poly{Degree: 2, Coef0: 1}, Algorithm: alg, Epochs: 3, Seed: 2})
			})
			ktSameSeq(t, what, tu, tb)
			ktSameModel(t, what+": user (x·z+1)² vs Poly", mu, mb)
			if _, ok := mu.Kernel.(ktUserPoly); !ok {
				t.Fatalf("%s: model kernel %T", what, mu.Kernel)
			}
			pu, pb := mu.PredictBatch(X, nil), mb.PredictBatch(X, nil)
			du, db := mu.DecisionBatch(X, nil), mb.DecisionBatch(X, nil)
			for i := range X.Rows {
				x := X.Row(i)
				if mu.Decision(x) != mb.Decision(x) || mu.Predict(x) != mb.Predict(x) || pu[i] != pb[i] || du[i] != db[i] {
					t.Fatalf("%s: row %d: user kernel predicts %v/%v (batch %v/%v), Poly %v/%v (batch %v/%v)",
						what, i, mu.Predict(x), mu.Decision(x), pu[i], du[i], mb.Predict(x), mb.Decision(x), pb[i], db[i])
				}
				xd := x.Dense()
				for _, row := range [][]float32{xd, xd[:len(xd)-2], append(slices.Clone(xd), 2, -1)} {
					if a, b := mu.DecisionDense(row), mb.DecisionDense(row); a != b {
						t.Fatalf("%s: row %d dense (len %d): user %v, Poly %v", what, i, len(row), a, b)
					}
				}
			}
		}
	}

	X, y := ktXOR(133, 20, 0.4)
	m, stats := ktFit(t, X, y, KernelConfig{Kernel: ktLaplace{gamma: 1}, Algorithm: Plain, Epochs: 100, Seed: 1})
	if stats[len(stats)-1].Updates != 0 || ktAccuracy(m, X, y) != 1 {
		t.Fatalf("Laplacian kernel on XOR: accuracy %v after %d epochs", ktAccuracy(m, X, y), len(stats))
	}
	if err := m.Check(); err != nil {
		t.Fatalf("Laplacian model: %v", err)
	}
	test, _ := ktXOR(134, 10, 0.6)
	for i := range test.Rows {
		x := test.Row(i)
		want, tol := ktRefScores(m, x)
		if d := m.Decision(x); math.Abs(float64(d)-want[0]) > tol[0] {
			t.Fatalf("Laplacian: row %d: Decision %v, reference %v", i, d, want[0])
		}
		if d := m.DecisionDense(x.Dense()); math.Abs(float64(d)-want[0]) > tol[0] {
			t.Fatalf("Laplacian: row %d: DecisionDense %v, reference %v", i, d, want[0])
		}
		long := append(x.Dense(), 0.5)
		xl := sparse.Vector{Dim: 3, Ind: append(slices.Clone(x.Ind), 2), Val: append(slices.Clone(x.Val), 0.5)}
		wl, tl := ktRefScores(m, xl)
		if d := m.DecisionDense(long); math.Abs(float64(d)-wl[0]) > tl[0] {
			t.Fatalf("Laplacian: row %d long: DecisionDense %v, reference %v", i, d, wl[0])
		}
		if d := m.Decision(xl); math.Abs(float64(d)-wl[0]) > tl[0] {
			t.Fatalf("Laplacian: row %d wide: Decision %v, reference %v", i, d, wl[0])
		}
	}
	db := m.DecisionBatch(test, nil)
	for i := range test.Rows {
		want, tol := ktRefScores(m, test.Row(i))
		if math.Abs(float64(db[i])-want[0]) > tol[0] {
			t.Fatalf("Laplacian: DecisionBatch row %d = %v, reference %v", i, db[i], want[0])
		}
	}
}

// ---------------------------------------------------------------------
// 10. ScaleGamma.

// TestKernelScaleGamma compares ScaleGamma with 1/(Dim·Var) computed
// directly (two passes over every cell, zeros included, in float64), and
// checks the degenerate cases and that it is the default kernel's γ.
func TestKernelScaleGamma(t *testing.T) {
	direct := func(X *sparse.CSR) float64 {
		cells := float64(X.Rows * X.Cols)
		var s float64
		for _, v := range X.Val {
			s += float64(v)
		}
		mean := s / cells
		var ss float64
		for i := range X.Rows {
			d := X.Row(i).Dense()
			for j := range X.Cols {
				v := 0.0
				if j < len(d) {
					v = float64(d[j])
				}
				ss += (v - mean) * (v - mean)
			}
		}
		return 1 / (float64(X.Cols) * ss / cells)
	}
	for _, c := range []struct {
		name string
		X    *sparse.CSR
	}{
		{"dense", func() *sparse.CSR { X, _ := ktFloatData(141, 80, 12, 1, 2, 0); return X }()},
		{"sparse", func() *sparse.CSR { X, _ := ktFloatData(142, 80, 200, 0.05, 2, 0); return X }()},
		{"integer", func() *sparse.CSR { X, _ := ktIntData(143, 80, 40, 5, 2, 0, 0); return X }()},
		{"shifted", func() *sparse.CSR {
			r := ktRNG(144)
			rows := make([][]float32, 50)
			for i := range rows {
				rows[i] = []float32{float32(100 + r.Float64()), float32(200 + r.Float64()), float32(50 + r.Float64())}
			}
			return sparse.FromDense(rows)
		}()},
	} {
		got, want := ScaleGamma(c.X), direct(c.X)
		if math.Abs(got-want) > 1e-6*want {
			t.Errorf("%s: ScaleGamma %v, direct %v", c.name, got, want)
		}
	}
	if g := ScaleGamma(&sparse.CSR{Cols: 4, Indptr: []int64{0}}); g != 1 {
		t.Errorf("no rows: %v, want 1", g)
	}
	if g := ScaleGamma(&sparse.CSR{Rows: 3, Cols: 4, Indptr: []int64{0, 0, 0, 0}}); g != 1 {
		t.Errorf("all zero: %v, want 1", g)
	}
	X, y := ktFloatData(145, 60, 6, 1, 2, 0.1)
	m, _ := ktFit(t, X, y, KernelConfig{Epochs: 2})
	if k, ok := m.Kernel.(kernels.RBF); !ok || k.Gamma != ScaleGamma(X) {
		t.Errorf("default kernel %v, want RBF of γ %v", m.Kernel, ScaleGamma(X))
	}
}

// TestKernelScaleGammaConstantData: a one-pass variance, E[x²] − E[x]²,
// cancels catastrophically when the spread of the entries is small against
// their mean: a constant matrix (variance exactly 0, documented γ 1) got
// γ ≈ 1e10 or more from rounding noise, and nearly constant data a γ off
// by percents, or 1. ScaleGamma now takes the mean first; this test failed
// with the one-pass formula.
func TestKernelScaleGammaConstantData(t *testing.T) {
	constant := func(v float32, n, c int) *sparse.CSR {
		rows := make([][]float32, n)
		for i := range rows {
			rows[i] = make([]float32, c)
			for j := range rows[i] {
				rows[i][j] = v
			}
		}
		return sparse.FromDense(rows)
	}
	for _, c := range []struct {
		v    float32
		n, c int
	}{{1, 30, 7}, {6.7745566, 185, 16}, {2.8244913, 199, 9}, {7.650947, 220, 11}} {
		if g := ScaleGamma(constant(c.v, c.n, c.c)); g != 1 {
			t.Errorf("constant %v (%d×%d): ScaleGamma %v, want 1 (variance 0)", c.v, c.n, c.c, g)
		}
	}
	r := ktRNG(146)
	for _, c := range []struct{ base, spread float64 }{{100, 1e-3}, {1000, 1e-2}, {1000, 1e-4}} {
		rows := make([][]float32, 200)
		var vals []float64
		for i := range rows {
			rows[i] = make([]float32, 10)
			for j := range rows[i] {
				rows[i][j] = float32(c.base + c.spread*r.Float64())
				vals = append(vals, float64(rows[i][j]))
			}
		}
		var sum, ss float64
		for _, v := range vals {
			sum += v
		}
		mean := sum / float64(len(vals))
		for _, v := range vals {
			ss += (v - mean) * (v - mean)
		}
		want := 1 / (10 * ss / float64(len(vals)))
		if got := ScaleGamma(sparse.FromDense(rows)); math.Abs(got-want) > 1e-6*want {
			t.Errorf("entries %v + U(0, %v): ScaleGamma %v, direct two-pass %v (relative error %.2g)", c.base, c.spread, got, want, (got-want)/want)
		}
	}
}

// TestKernelDefaultGammaTinyValues: rows of values near 1e-18 make the
// default gamma 1/(features·variance) too large for the kernels; the
// error says the data need scaling instead of blaming a gamma the caller
// never set.
func TestKernelDefaultGammaTinyValues(t *testing.T) {
	X := sparse.FromDense([][]float32{{1e-18, 0}, {0, 1e-18}, {2e-18, 1e-18}, {0, 3e-18}})
	_, _, err := FitKernel(context.Background(), X, []float64{1, -1, 1, -1}, KernelConfig{})
	if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "scale the features") {
		t.Fatalf("default kernel on values near 1e-18: %v", err)
	}
}
