package engine

import (
	"fmt"
	"math"
	"math/bits"
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
			p += below8((*[8]int32)(mf[p:]), j)
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

// below8 counts the values of w that are below j, by compares that wait
// on no branch: the sign of each difference, 0 or −1 after an arithmetic
// shift (the values are feature indices, not negative, so no difference
// overflows).
func below8(w *[8]int32, j int32) int {
	return -int((w[0]-j)>>31 + (w[1]-j)>>31 + (w[2]-j)>>31 + (w[3]-j)>>31 +
		(w[4]-j)>>31 + (w[5]-j)>>31 + (w[6]-j)>>31 + (w[7]-j)>>31)
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
	P := len(views)
	r := &tileMerge{m: m, K: K, views: views, frac: frac, sum: sum,
		fn: make([]float64, P), cur: make([]int, P), end: make([]int, P)}
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
	// Tiles of fewer features for many classes, so that a tile's values
	// stay about as many.
	width := max(64, tileWidth/int32(K)&^63)
	r.scratch(width, K)
	for {
		// The next tile starts at the next feature listed anywhere.
		a := hi
		if r.base < len(m.Features) {
			a = min(a, m.Features[r.base])
		}
		for k := range views {
			if f := views[k].feat; r.cur[k] < len(f) {
				a = min(a, f[r.cur[k]])
			}
		}
		if a >= hi {
			break
		}
		b := hi
		if int64(a)+int64(width) < int64(hi) {
			b = a + width
		}
		r.tile(a, b)
	}
	return r.feat, r.w, r.outSum
}

// tileWidth is the span of features that tileMerge mixes at a time: a
// tile's features, numbered in it by a bitmap of tileWidth bits, and their
// sums stay in the core's caches while every shard adds to them. (A
// variable so that tests can make tiles of a few features; a multiple of
// 64.)
var tileWidth int32 = 4096

// tileMerge is the walk of mergeSparseRange: tile by tile of the
// features that the state or a delta lists, in increasing order, and
// what it has merged so far. Within a tile it adds the shards' weights
// one shard after the other over all the tile's features, as mixRange
// adds them, so that no step depends on which shard lists which feature.
type tileMerge struct {
	m     *Mix
	K     int
	views []shardView
	frac  []float64
	fn    []float64 // frac[k]·n, the shards' examples
	sum   []float64 // the state's folded history, nil without averaging
	// base and cur[k] are the positions of the next feature in the
	// state's list and in delta k's; end[k] is, during a tile, delta k's
	// position past the tile.
	base int
	cur  []int
	end  []int
	// A tile's features: a bit each, and the features before each word.
	bits []uint64
	rank []int32
	// Per feature of the tile and row, in the tile's order: the state's
	// weight and history, a shard's weight and accumulator, and the mixed
	// weight and the shards' history so far.
	bw, wk []float32
	bs, uk []float64
	v, s   []float64
	// The merged features, their weights and their history.
	feat   []int32
	w      []float32
	outSum []float64
}

// scratch allocates the arrays of a tile of width features, a multiple of
// 64, of K values each.
func (r *tileMerge) scratch(width int32, K int) {
	r.bits, r.rank = make([]uint64, width/64), make([]int32, width/64)
	n := int(width) * K
	r.bw, r.wk = make([]float32, n), make([]float32, n)
	r.v = make([]float64, n)
	if r.sum != nil {
		r.bs, r.uk, r.s = make([]float64, n), make([]float64, n), make([]float64, n)
	}
}

// index returns the position in the tile starting at a of its feature j.
func (r *tileMerge) index(a, j int32) int {
	x := uint32(j - a)
	word := r.bits[x/64]
	return int(r.rank[x/64]) + bits.OnesCount64(word&(1<<(x%64)-1))
}

// scatter copies the K values of each feature of feat, in the tile
// starting at a, from w to tw at the feature's place in the tile, or
// from u to tu when w is nil.
func (r *tileMerge) scatter(a int32, feat []int32, w, tw []float32, u, tu []float64) {
	K := r.K
	switch {
	case K == 1 && w != nil:
		w = w[:len(feat)]
		for p, j := range feat {
			tw[r.index(a, j)] = w[p]
		}
	case K == 1:
		u = u[:len(feat)]
		for p, j := range feat {
			tu[r.index(a, j)] = u[p]
		}
	case w != nil:
		for p, j := range feat {
			i := r.index(a, j) * K
			copy(tw[i:i+K], w[p*K:p*K+K])
		}
	default:
		for p, j := range feat {
			i := r.index(a, j) * K
			copy(tu[i:i+K], u[p*K:p*K+K])
		}
	}
}

// mark sets the bits of the features of list from position p that are
// below b, in the tile starting at a, and returns the position past them.
func (r *tileMerge) mark(list []int32, p int, a, b int32) int {
	for p < len(list) && list[p] < b {
		x := uint32(list[p] - a)
		r.bits[x/64] |= 1 << (x % 64)
		p++
	}
	return p
}

// tile mixes the features in [a, b), b − a at most the tile's width:
// every shard's weights of each, a delta's own where it lists the feature
// and the state's otherwise, by mixRange's sums, in the same order. It
// appends the features and their weights and history to the merged ones,
// but for those whose values are all +0, and moves the walk past b.
func (r *tileMerge) tile(a, b int32) {
	m, K, sum := r.m, r.K, r.sum
	clear(r.bits)
	baseEnd := r.mark(m.Features, r.base, a, b)
	for k := range r.views {
		r.end[k] = r.mark(r.views[k].feat, r.cur[k], a, b)
	}
	n := 0
	for i, word := range r.bits {
		r.rank[i] = int32(n)
		n += bits.OnesCount64(word)
	}
	nK := n * K
	bw, wk, v := r.bw[:nK], r.wk[:nK], r.v[:nK]
	var bs, uk, s []float64
	clear(bw)
	clear(v)
	if sum != nil {
		bs, uk, s = r.bs[:nK], r.uk[:nK], r.s[:nK]
		clear(bs)
		clear(s)
	}
	r.scatter(a, m.Features[r.base:baseEnd], m.W[r.base*K:baseEnd*K], bw, nil, nil)
	if sum != nil {
		r.scatter(a, m.Features[r.base:baseEnd], nil, nil, sum[r.base*K:baseEnd*K], bs)
	}
	for k := range r.views {
		vk := &r.views[k]
		copy(wk, bw)
		feat := vk.feat[r.cur[k]:r.end[k]]
		r.scatter(a, feat, vk.w[r.cur[k]*K:r.end[k]*K], wk, nil, nil)
		if sum != nil {
			clear(uk)
			if vk.u != nil {
				r.scatter(a, feat, nil, nil, vk.u[r.cur[k]*K:r.end[k]*K], uk)
			}
		}
		fr := r.frac[k]
		if sum == nil {
			for x, wx := range wk {
				v[x] += fr * float64(wx)
			}
			continue
		}
		fn := r.fn[k]
		uk, s := uk[:len(wk)], s[:len(wk)]
		for x, wx := range wk {
			v[x] += fr * float64(wx)
			s[x] += fn*float64(wx) - uk[x]
		}
	}
	for k := range r.views {
		r.cur[k] = r.end[k]
	}
	r.base = baseEnd
	r.emit(a, n)
}

// emit appends the n features of the tile starting at a whose mixed
// values are not all +0, in increasing order, with their weights and
// history: a feature's new history is the state's plus the shards' sum.
// Every feature is written, and the next one overwrites it unless it is
// kept, so that keeping it is no branch.
func (r *tileMerge) emit(a int32, n int) {
	K, sum := r.K, r.sum
	nf := len(r.feat)
	feat := slices.Grow(r.feat, n)[:nf+n]
	w := slices.Grow(r.w, n*K)[:(nf+n)*K]
	var out []float64
	if sum != nil {
		out = slices.Grow(r.outSum, n*K)[:(nf+n)*K]
	}
	x := 0
	for i, word := range r.bits {
		for word != 0 {
			feat[nf] = a + int32(i*64+bits.TrailingZeros64(word))
			word &= word - 1
			var keep uint64
			for c := range K {
				nw := float32(r.v[x+c])
				w[nf*K+c] = nw
				keep |= uint64(math.Float32bits(nw))
			}
			if out != nil {
				for c := range K {
					nb := r.bs[x+c] + r.s[x+c]
					out[nf*K+c] = nb
					keep |= math.Float64bits(nb)
				}
			}
			x += K
			// 1 when keep is not 0.
			nf += int((keep | -keep) >> 63)
		}
	}
	r.feat, r.w = feat[:nf], w[:nf*K]
	if sum != nil {
		r.outSum = out[:nf*K]
	}
}
