package engine

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
)

// Sparse states: a Mix with Features and Sparse set holds the values of
// the listed features only, every other feature being zero. After an
// epoch in which the shards touched a small part of a wide model, the
// state is mostly zero, and a driver that keeps and moves it sparse pays
// for the features touched rather than for the width.

// Compact returns state m as a sparse state listing the features whose
// weights, accumulators or sums are not all +0 (a −0 is listed), with
// copies of its values. m must be a state, dense or sparse.
func (m *Mix) Compact() (*Mix, error) {
	if err := m.checkState("Compact"); err != nil {
		return nil, err
	}
	if m.Sparse {
		c := *m
		c.Features = slices.Clone(m.Features)
		c.W, c.U, c.Sum = slices.Clone(m.W), slices.Clone(m.U), slices.Clone(m.Sum)
		c.B, c.UB, c.SumB = slices.Clone(m.B), slices.Clone(m.UB), slices.Clone(m.SumB)
		c.Classes = slices.Clone(m.Classes)
		return &c, nil
	}
	K := m.NumRows()
	feat := []int32{}
	for j := range m.Dim {
		for i := j * K; i < j*K+K; i++ {
			if math.Float32bits(m.W[i]) != 0 || (m.U != nil && math.Float64bits(m.U[i]) != 0) ||
				(m.Sum != nil && math.Float64bits(m.Sum[i]) != 0) {
				feat = append(feat, int32(j))
				break
			}
		}
	}
	c := &Mix{
		Classes: slices.Clone(m.Classes), Dim: m.Dim, Features: feat, Sparse: true,
		W: gather(m.W, feat, K), B: slices.Clone(m.B),
		N: m.N, SumN: m.SumN, Updates: m.Updates,
	}
	if m.U != nil {
		c.U, c.UB = gather(m.U, feat, K), slices.Clone(m.UB)
	}
	if m.Sum != nil {
		c.Sum, c.SumB = gather(m.Sum, feat, K), slices.Clone(m.SumB)
	}
	return c, nil
}

// Dense returns state m with all Dim features: a copy of m when it is
// dense already, its expansion when it is sparse. m must be a state, not
// a delta.
func (m *Mix) Dense() (*Mix, error) {
	if err := m.checkState("Dense"); err != nil {
		return nil, err
	}
	d := &Mix{
		Classes: slices.Clone(m.Classes), Dim: m.Dim, B: slices.Clone(m.B),
		N: m.N, SumN: m.SumN, Updates: m.Updates,
		UB: slices.Clone(m.UB), SumB: slices.Clone(m.SumB),
	}
	if !m.Sparse {
		d.W, d.U, d.Sum = slices.Clone(m.W), slices.Clone(m.U), slices.Clone(m.Sum)
		return d, nil
	}
	K := m.NumRows()
	d.W = make([]float32, m.Dim*K)
	scatter(d.W, m.W, m.Features, K)
	if m.U != nil {
		d.U = make([]float64, m.Dim*K)
		scatter(d.U, m.U, m.Features, K)
	}
	if m.Sum != nil {
		d.Sum = make([]float64, m.Dim*K)
		scatter(d.Sum, m.Sum, m.Features, K)
	}
	return d, nil
}

// WeightsAt returns the weights and biases of state m (dense or sparse)
// at features (strictly increasing, in [0, Dim)) as a sparse state with
// no examples: all that a learner needs to start from when it learns
// rows of these features only, as a worker learning one shard does
// (NewLearnerFrom). Features the state does not list weigh zero. It
// takes time proportional to the features asked for and, for a sparse
// m, the features m lists.
func (m *Mix) WeightsAt(features []int32) (*Mix, error) {
	// Only what slicing relies on is checked here, in constant time: a
	// driver slices one state for every shard, and the slices' values are
	// checked when they are written or learned from.
	if m == nil || len(m.Classes) < 2 || len(m.B) != m.NumRows() || (m.Sparse && m.Features == nil) {
		return nil, fmt.Errorf("%w: mix: WeightsAt of a malformed state", ErrConfig)
	}
	if m.Features != nil && !m.Sparse {
		return nil, fmt.Errorf("%w: mix: WeightsAt of a delta", ErrConfig)
	}
	rows := m.Dim
	if m.Sparse {
		rows = len(m.Features)
	}
	if len(m.W) != rows*m.NumRows() {
		return nil, fmt.Errorf("%w: mix: WeightsAt of a state of %d weights for %d features", ErrConfig, len(m.W), rows)
	}
	for i, j := range features {
		if j < 0 || int(j) >= m.Dim || (i > 0 && j <= features[i-1]) {
			return nil, fmt.Errorf("%w: mix: WeightsAt: features are not strictly increasing in [0, %d)", ErrConfig, m.Dim)
		}
	}
	K := m.NumRows()
	out := &Mix{
		Classes: slices.Clone(m.Classes), Dim: m.Dim, Features: slices.Clone(features), Sparse: true,
		B: slices.Clone(m.B),
	}
	if out.Features == nil {
		out.Features = []int32{}
	}
	if !m.Sparse {
		out.W = gather(m.W, features, K)
		return out, nil
	}
	out.W = make([]float32, len(features)*K)
	p := 0
	mf := m.Features
	for q, j := range features {
		// The next listed feature at or after j: the count of the next
		// eight below j (compares that wait on no branch), then, past
		// them, steps that double and a search in the last one, about
		// log of the gap, which is small when the state lists about the
		// features asked for and large when it lists many more.
		if p+8 <= len(mf) {
			w := mf[p : p+8 : p+8]
			c := below(w[0], j) + below(w[1], j) + below(w[2], j) + below(w[3], j) +
				below(w[4], j) + below(w[5], j) + below(w[6], j) + below(w[7], j)
			p += c
		}
		if p < len(mf) && mf[p] < j {
			step := 1
			for p+step < len(mf) && mf[p+step] < j {
				p += step
				step *= 2
			}
			i, _ := slices.BinarySearch(mf[p+1:min(p+step+1, len(mf))], j)
			p += 1 + i
		}
		if p < len(mf) && mf[p] == j {
			if K == 1 {
				out.W[q] = m.W[p]
			} else {
				copy(out.W[q*K:q*K+K], m.W[p*K:p*K+K])
			}
		}
	}
	return out, nil
}

// below is 1 when feature f is below j, else 0.
func below(f, j int32) int {
	if f < j {
		return 1
	}
	return 0
}

// checkState checks m and that it is a state, not a delta.
func (m *Mix) checkState(what string) error {
	if err := m.check(); err != nil {
		return err
	}
	if m.Features != nil && !m.Sparse {
		return fmt.Errorf("%w: mix: %s of a delta", ErrConfig, what)
	}
	return nil
}

// mergeSparse is Merge into the sparse state m of shards that are all
// deltas (views), with the shards' example shares frac of n examples:
// the same sums as mixRange's, element by element in the same order, over
// the features that m or some shard lists. Every other feature is +0 in
// m and in every shard's weights, so mixRange would leave it +0 (each of
// its sums starts from +0 and adds products of +0), and skipping it
// changes no bit. A listed feature whose new weights and sums are all +0
// is dropped. sum is m's folded history (foldSum), nil without averaging.
// The features are split into ranges merged in parallel; every feature's
// sums are its own, so the split changes no bit either.
func (m *Mix) mergeSparse(views []shardView, frac []float64, n float64, sum []float64) (feat []int32, w []float32, outSum []float64) {
	total := len(m.Features)
	for _, v := range views {
		total += len(v.feat)
	}
	parts := min(runtime.GOMAXPROCS(0), max(1, total/mixSparseSplitMin))
	// Split at features of the largest list, so that the parts are of
	// about equal work.
	longest := m.Features
	for _, v := range views {
		if len(v.feat) > len(longest) {
			longest = v.feat
		}
	}
	bounds := make([]int32, parts+1)
	for p := 1; p < parts; p++ {
		bounds[p] = longest[p*len(longest)/parts]
	}
	bounds[parts] = int32(m.Dim)
	type out struct {
		feat []int32
		w    []float32
		sum  []float64
	}
	outs := make([]out, parts)
	var wg sync.WaitGroup
	for p := range parts {
		wg.Go(func() {
			o := &outs[p]
			o.feat, o.w, o.sum = m.mergeSparseRange(views, frac, n, sum, bounds[p], bounds[p+1])
		})
	}
	wg.Wait()
	if parts == 1 {
		return outs[0].feat, outs[0].w, outs[0].sum
	}
	nf, nw := 0, 0
	for _, o := range outs {
		nf, nw = nf+len(o.feat), nw+len(o.w)
	}
	feat, w = make([]int32, 0, nf), make([]float32, 0, nw)
	if sum != nil {
		outSum = make([]float64, 0, nw)
	}
	for _, o := range outs {
		feat = append(feat, o.feat...)
		w = append(w, o.w...)
		outSum = append(outSum, o.sum...)
	}
	return feat, w, outSum
}

// mixSparseSplitMin is the fewest listed features per goroutine that
// mergeSparse splits its work into. (A variable so that tests can lower
// it.)
var mixSparseSplitMin = 1 << 16

// mergeSparseRange is mergeSparse over the features in [lo, hi).
func (m *Mix) mergeSparseRange(views []shardView, frac []float64, n float64, sum []float64, lo, hi int32) (feat []int32, w []float32, outSum []float64) {
	span := func(list []int32) (int, int) {
		a, _ := slices.BinarySearch(list, lo)
		b, _ := slices.BinarySearch(list[a:], hi)
		return a, a + b
	}
	K := m.NumRows()
	r := sparseMerge{m: m, K: K, views: views, frac: frac, sum: sum,
		fn: make([]float64, len(views)), cur: make([]int, len(views)), at: make([]int, len(views))}
	// The merged features are at least as many as the longest list's in
	// the range, and after the first epochs about as many as the state's:
	// room for that and an eighth more spares most of the copies of
	// growing the outputs.
	a, b := span(m.Features)
	r.base = a
	most := b - a
	for k, v := range views {
		a, b := span(v.feat)
		r.cur[k], most = a, max(most, b-a)
		r.fn[k] = frac[k] * n
	}
	most += most / 8
	r.feat = make([]int32, 0, most)
	r.w = make([]float32, 0, most*K)
	if sum != nil {
		r.outSum = make([]float64, 0, most*K)
	}
	for j := r.next(hi); j < hi; j = r.next(hi) {
		r.mixFeature(j)
	}
	return r.feat, r.w, r.outSum
}

// sparseMerge is the walk of mergeSparseRange over the features that
// the state or a delta lists, in increasing order, and what it has
// merged so far.
type sparseMerge struct {
	m     *Mix
	K     int
	views []shardView
	frac  []float64
	fn    []float64 // frac[k]·n, the shards' examples
	sum   []float64 // the state's folded history, nil without averaging
	// base and cur[k] are the positions of the next feature in the
	// state's list and in delta k's; at[k] is cur[k] while mixFeature
	// mixes a feature that delta k lists, −1 while it mixes one it does
	// not.
	base int
	cur  []int
	at   []int
	// The merged features, their weights and their history.
	feat   []int32
	w      []float32
	outSum []float64
}

// next returns the next feature listed anywhere, hi when there is none
// below hi.
func (r *sparseMerge) next(hi int32) int32 {
	j := hi
	if r.base < len(r.m.Features) {
		j = min(j, r.m.Features[r.base])
	}
	for k := range r.views {
		if f := r.views[k].feat; r.cur[k] < len(f) {
			j = min(j, f[r.cur[k]])
		}
	}
	return j
}

// mixFeature mixes feature j: every shard's weights of it, a delta's own
// where it lists j and the state's otherwise, by mixRange's sums. It
// appends j and its weights and history to the merged ones unless they
// are all +0, and moves the walk past j.
func (r *sparseMerge) mixFeature(j int32) {
	m, K, sum, views := r.m, r.K, r.sum, r.views
	base := r.base
	inBase := base < len(m.Features) && m.Features[base] == j
	if inBase {
		r.base++
	}
	for k := range views {
		r.at[k] = -1
		if p := r.cur[k]; p < len(views[k].feat) && views[k].feat[p] == j {
			r.at[k] = p
			r.cur[k]++
		}
	}
	keep := false
	for c := range K {
		var bw float32
		var bs float64
		if inBase {
			bw = m.W[base*K+c]
			if sum != nil {
				bs = sum[base*K+c]
			}
		}
		v := 0.0
		s := 0.0
		for k, p := range r.at {
			wk, uk := bw, 0.0
			if p >= 0 {
				vk := &views[k]
				wk = vk.w[p*K+c]
				if vk.u != nil {
					uk = vk.u[p*K+c]
				}
			}
			v += r.frac[k] * float64(wk)
			if sum != nil {
				s += r.fn[k]*float64(wk) - uk
			}
		}
		nw := float32(v)
		r.w = append(r.w, nw)
		keep = keep || math.Float32bits(nw) != 0
		if sum != nil {
			bs += s
			r.outSum = append(r.outSum, bs)
			keep = keep || math.Float64bits(bs) != 0
		}
	}
	if keep {
		r.feat = append(r.feat, j)
	} else {
		r.w = r.w[:len(r.w)-K]
		if sum != nil {
			r.outSum = r.outSum[:len(r.outSum)-K]
		}
	}
}
