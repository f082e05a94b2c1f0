package synth

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
)

// ErrConfig is wrapped by every error about an invalid configuration.
var ErrConfig = errors.New("synth: invalid configuration")

// Defaults and limits of Text.
const (
	DefaultMeanNNZ     = 75      // Text.MeanNNZ when zero
	DefaultDim         = 1 << 20 // Text.Dim when zero
	DefaultZipf        = 1.1     // Text.Zipf when zero
	DefaultLengthSigma = 0.5     // Text.LengthSigma when zero
	DefaultClasses     = 2       // Text.Classes when zero
	MaxDim             = 1 << 31 // largest Text.Dim: indices are int32
	MaxMeanNNZ         = 1 << 24 // largest Text.MeanNNZ
	MaxClasses         = 256     // largest Text.Classes
	MaxZipf            = 64      // largest Text.Zipf
	MaxLengthSigma     = 8       // largest Text.LengthSigma
)

const (
	maxLenFactor   = 64      // rows are clipped to maxLenFactor·MeanNNZ
	chunkRows      = 1024    // rows per random-number chunk
	pilotRows      = 2048    // minimum rows of the pilot sample
	weightTableMax = 1 << 24 // tabulate the separators up to this many weights
	maxPlanted     = 1 << 32 // most weights Planted materializes
)

// Text configures a synthetic text-like corpus: sparse rows of term counts
// over a vocabulary whose feature popularity follows Zipf's law, labelled
// by a planted linear rule. The zero value of every field selects the
// documented default, so Text{Rows: 1000} is a complete configuration.
//
// Row i is made as follows. Its length L (the number of distinct features)
// is drawn from a lognormal distribution with mean MeanNNZ and log-scale
// standard deviation LengthSigma, rounded, and clipped to
// [1, min(Dim, 64·MeanNNZ)]. Feature ranks are then drawn independently
// from the Zipf law P(rank r) ∝ (r+1)^-Zipf over r in [0, Dim) until L
// distinct ranks have appeared; a repeated draw adds one to that feature's
// count, so values are term counts 1, 2, 3, …. (The draws needed grow
// steeply with the exponent and as L approaches Dim: after 64·L+256 draws
// the row is completed with the most popular ranks it lacks, each with
// count 1. With 75 features per row this never happens up to Zipf = 2 and
// always from about 2.5 on.) Ranks are mapped to feature
// indices by a fixed pseudo-random bijection of [0, Dim), so popular
// features are scattered over the index range as with the hashing trick,
// or kept in rank order (index = rank) with RankOrder. Indices are sorted.
//
// Labels come from planted separators: one weight per feature and class,
// approximately standard normal (a rescaled Irwin–Hall sum of four uniforms,
// a pure function of Seed, class and feature index). With two classes the
// label is sign(u·x + b) in {-1, +1}; with K > 2 classes it is
// argmax_c (u_c·x + b_c) in {0, …, K-1}. The biases are fitted on a pilot
// sample of rows (a separate random stream, independent of Rows) so that the
// classes are balanced: b is minus the median of u·x, and the K-class biases
// equalize the class frequencies on the pilot. Finally, with probability
// Noise a label is replaced by one of the other labels chosen uniformly.
//
// The data are a pure function of the configuration: the random numbers
// come from independent streams per fixed block of 1024 rows, so Workers
// changes the speed only, and X does not depend on Classes or Noise. Row i
// is the same for any Rows > i. Results are bit-identical on a given
// architecture (floating-point library routines may differ in the last bit
// across architectures, which could move a rare rounding boundary).
type Text struct {
	// Rows is the number of rows; 0 gives an empty data set.
	Rows int
	// MeanNNZ is the mean number of nonzeros (distinct features) per row;
	// 0 means 75. It must lie in [1, min(Dim, 2^24)].
	MeanNNZ float64
	// LengthSigma is the standard deviation of the logarithm of the row
	// length; 0 means 0.5, another value must lie in (0, 8]. Ignored with
	// FixedLength.
	LengthSigma float64
	// FixedLength gives every row round(MeanNNZ) nonzeros.
	FixedLength bool
	// Dim is the number of features (columns); 0 means 2^20. At most 2^31.
	Dim int
	// Zipf is the exponent s of the feature popularity law (r+1)^-s; 0
	// means 1.1, typical of word frequencies; another value must lie in
	// (0, 64].
	Zipf float64
	// RankOrder maps rank r to feature index r instead of scattering the
	// ranks pseudo-randomly: index 0 is then the most frequent feature.
	RankOrder bool
	// Classes is the number of classes; 0 means 2 (labels -1 and +1).
	// K in [3, 256] gives labels 0, …, K-1. 1 is invalid.
	Classes int
	// Noise is the probability that a label is replaced by a different,
	// uniformly chosen label; 0 means none. It must lie in [0, 1].
	Noise float64
	// Seed selects the data set.
	Seed uint64
	// Workers is the number of goroutines; 0 means GOMAXPROCS. It never
	// changes the result.
	Workers int
}

func configErr(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrConfig}, args...)...)
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// normalize fills in the defaults and checks every field.
func (t Text) normalize() (Text, error) {
	if t.Rows < 0 {
		return t, configErr("Text.Rows = %d is negative", t.Rows)
	}
	if t.Dim == 0 {
		t.Dim = DefaultDim
	}
	if t.Dim < 0 || t.Dim > MaxDim {
		return t, configErr("Text.Dim = %d outside [1, 2^31]", t.Dim)
	}
	if t.MeanNNZ == 0 {
		t.MeanNNZ = DefaultMeanNNZ
	}
	if !finite(t.MeanNNZ) || t.MeanNNZ < 1 || t.MeanNNZ > float64(min(t.Dim, MaxMeanNNZ)) {
		return t, configErr("Text.MeanNNZ = %g outside [1, min(Dim, 2^24)] (Dim = %d)", t.MeanNNZ, t.Dim)
	}
	if t.LengthSigma == 0 {
		t.LengthSigma = DefaultLengthSigma
	}
	if !(t.LengthSigma > 0 && t.LengthSigma <= MaxLengthSigma) {
		return t, configErr("Text.LengthSigma = %g outside (0, %d]", t.LengthSigma, MaxLengthSigma)
	}
	if t.Zipf == 0 {
		t.Zipf = DefaultZipf
	}
	if !(t.Zipf > 0 && t.Zipf <= MaxZipf) {
		return t, configErr("Text.Zipf = %g outside (0, %d]", t.Zipf, MaxZipf)
	}
	if t.Classes == 0 {
		t.Classes = DefaultClasses
	}
	if t.Classes < 2 || t.Classes > MaxClasses {
		return t, configErr("Text.Classes = %d outside [2, %d]", t.Classes, MaxClasses)
	}
	if !(t.Noise >= 0 && t.Noise <= 1) {
		return t, configErr("Text.Noise = %g outside [0, 1]", t.Noise)
	}
	if t.Workers < 0 {
		return t, configErr("Text.Workers = %d is negative", t.Workers)
	}
	if t.Workers == 0 {
		t.Workers = runtime.GOMAXPROCS(0)
	}
	return t, nil
}

// textPlan holds everything derived from a normalized Text that rows need:
// it is immutable once built and shared by all workers.
type textPlan struct {
	cfg    Text
	mu     float64 // lognormal location
	maxLen int
	zipf   *zipf
	perm   perm
	kbits  int       // ⌈log2 Dim⌉
	k      int       // number of score vectors: 1 (binary) or Classes
	wtab   []float32 // weight of (feature j, class c) at j·k+c; nil: hashed
	wseed  uint64
	bias   []float64
}

func (t Text) plan() (*textPlan, error) {
	cfg, err := t.normalize()
	if err != nil {
		return nil, err
	}
	p := &textPlan{
		cfg:    cfg,
		mu:     math.Log(cfg.MeanNNZ) - cfg.LengthSigma*cfg.LengthSigma/2,
		maxLen: int(min(float64(cfg.Dim), math.Ceil(maxLenFactor*cfg.MeanNNZ))),
		zipf:   newZipf(cfg.Dim, cfg.Zipf),
		perm:   newPerm(cfg.Dim, cfg.Seed),
		kbits:  bitsFor(cfg.Dim),
		k:      numScores(cfg.Classes),
		wseed:  seedRNG(cfg.Seed, streamWeight, 0).s,
	}
	if p.k > 1 && int64(cfg.Dim)*int64(p.k) <= weightTableMax {
		p.wtab = make([]float32, cfg.Dim*p.k)
		for j := range cfg.Dim {
			for c := range p.k {
				p.wtab[j*p.k+c] = hashWeight(p.wseed, c, j)
			}
		}
	}
	if err := p.fitBias(); err != nil {
		return nil, err
	}
	return p, nil
}

// hashWeight returns the planted weight of feature j in class c: the sum
// of four 16-bit uniforms of a hash, centred and scaled to unit variance.
func hashWeight(seed uint64, c, j int) float32 {
	h := mix64(seed + uint64(c)<<32 + uint64(j))
	s := h&0xffff + h>>16&0xffff + h>>32&0xffff + h>>48
	// Each 16-bit part is (x+½)/2^16 - ½ centred: Σ = (s + 2)/2^16 - 2.
	return float32((float64(s) + 2 - 2*65536) * (math.Sqrt(3) / 65536))
}

func (p *textPlan) weight(c, j int) float32 {
	if p.wtab != nil {
		return p.wtab[j*p.k+c]
	}
	return hashWeight(p.wseed, c, j)
}

// length draws the number of distinct features of the next row.
func (p *textPlan) length(r *rng) int {
	if p.cfg.FixedLength {
		return max(1, min(int(math.Round(p.cfg.MeanNNZ)), p.maxLen))
	}
	x := math.Exp(p.mu + p.cfg.LengthSigma*r.normal())
	if x >= float64(p.maxLen) {
		return p.maxLen
	}
	return max(1, int(math.Round(x)))
}

// rowGen is one worker's scratch space for making rows.
type rowGen struct {
	p       *textPlan
	tab     []uint64 // open-addressing table: rank<<32 | position+1 in keys; 0 empty
	keys    []uint32
	cnts    []uint32
	pack    []uint64
	scores  []float64
	checked int // the longest row checked by fits
}

// fits checks that the scratch for a row of L features, on each of
// workers goroutines, fits in the memory budget, whenever L is longer
// than any row before.
func (g *rowGen) fits(L, workers int) error {
	if L <= g.checked {
		return nil
	}
	what := fmt.Sprintf("Text: a row of %d nonzeros", L)
	if workers > 1 {
		what = fmt.Sprintf("Text: rows of %d nonzeros on %d goroutines", L, workers)
	}
	if err := budget.Check(0, budget.Mul(int64(workers), scratchBytes(L)), what); err != nil {
		return err
	}
	g.checked = L
	return nil
}

func newRowGen(p *textPlan) *rowGen {
	return &rowGen{p: p, scores: make([]float64, p.k)}
}

// features draws a row with exactly len(ind) distinct features into ind
// and val (same length), sorted by index.
func (g *rowGen) features(r *rng, ind []int32, val []float32) {
	L := len(ind)
	tbits := max(4, bitsFor(2*L))
	size := 1 << tbits
	keys, cnts := g.draw(r, L, tbits)
	if cap(g.pack) < size+L+1 {
		g.pack = make([]uint64, size+L+1)
	}
	if g.p.cfg.RankOrder {
		pack := g.pack[:L]
		for i, rk := range keys {
			pack[i] = uint64(rk)<<32 | uint64(cnts[i])
		}
		slices.Sort(pack)
		for i, v := range pack {
			ind[i] = int32(v >> 32)
			val[i] = float32(uint32(v))
		}
		return
	}
	g.scatter(keys, cnts, ind, val, tbits)
}

// draw draws L distinct ranks with their counts, in the order first
// drawn: from the Zipf law within drawBudget(L) draws, then the lowest
// ranks not drawn. A hash table of 2^tbits slots finds the ranks drawn
// before. keys and cnts are g's, overwritten by the next call.
func (g *rowGen) draw(r *rng, L, tbits int) (keys, cnts []uint32) {
	size := 1 << tbits
	if cap(g.tab) < size {
		g.tab = make([]uint64, size)
	}
	if cap(g.keys) < L {
		g.keys = make([]uint32, L)
		g.cnts = make([]uint32, L)
	}
	tab, keys, cnts := g.tab[:size], g.keys[:L], g.cnts[:L]
	clear(tab)
	mask := uint32(size - 1)
	shift := 32 - uint(tbits)
	z := g.p.zipf
	n := 0
	insert := func(rk uint32, add bool) {
		h := rk * 0x9e3779b1 >> shift
		for {
			e := tab[h]
			if e == 0 {
				keys[n], cnts[n] = rk, 1
				n++
				tab[h] = uint64(rk)<<32 | uint64(n)
				return
			}
			if uint32(e>>32) == rk {
				if add {
					cnts[uint32(e)-1]++
				}
				return
			}
			h = (h + 1) & mask
		}
	}
	for budget := drawBudget(L); n < L && budget > 0; budget-- {
		insert(uint32(z.draw(r)), true)
	}
	for rk := uint32(0); n < L; rk++ {
		insert(rk, false)
	}
	return keys, cnts
}

// scatter writes the features of ranks keys, counts cnts, at their
// scattered indices into ind and val, sorted by index. They are sorted
// by ordered linear probing: slot ⌊index·size/2^kbits⌋ (size = 2^tbits)
// is monotone in the index, and a probe that meets a larger entry swaps
// it out and carries it on, so the slots are in increasing order once
// every entry is placed (L spare slots at the end absorb the last
// cluster). Scanning them emits the sorted row.
func (g *rowGen) scatter(keys, cnts []uint32, ind []int32, val []float32, tbits int) {
	L := len(ind) // = len(keys); as len(ind), it spares the bounds checks of ind and val
	size := 1 << tbits
	slots := g.pack[:size+L]
	clear(slots)
	pm := &g.p.perm
	kbits := uint(g.p.kbits)
	for i, rk := range keys {
		idx := uint64(pm.at(int(rk)))
		x := idx<<32 | uint64(cnts[i])
		h := idx << uint(tbits) >> kbits
		for ; slots[h] != 0; h++ {
			if y := slots[h]; y > x {
				slots[h], x = x, y
			}
		}
		slots[h] = x
	}
	out := g.pack[:size+L+1]
	j := 0
	for _, v := range slots {
		out[j] = v               // j ≤ h, so no unread slot is overwritten
		j += int((v | -v) >> 63) // branch-free: +1 for an occupied slot
	}
	for i, v := range out[:L] {
		ind[i] = int32(v >> 32)
		val[i] = float32(uint32(v))
	}
}

// scratchBytes returns the memory a rowGen, and a stream's row, take for a
// row of L features: the table, keys, counts and packing space of
// features, and the row's indices and values.
func scratchBytes(L int) int64 {
	size := int64(1) << max(4, bitsFor(2*L))
	return budget.Add(budget.Mul(size, 8), budget.Mul(int64(L), 8), budget.Mul(size+int64(L)+1, 8), budget.Mul(int64(L), 8))
}

// bitsFor returns the number of bits of the smallest power of two ≥ n.
func bitsFor(n int) int {
	b := 0
	for 1<<b < n {
		b++
	}
	return b
}

// score computes the raw planted scores u_c·x (no bias) into g.scores.
func (g *rowGen) score(ind []int32, val []float32) []float64 {
	p, s := g.p, g.scores
	clear(s)
	k := p.k
	switch {
	case k == 1:
		var acc float64
		for i, j := range ind {
			// The product of a float32 and a small count is exact in
			// float64, so no fused multiply-add can change the sum.
			acc += float64(hashWeight(p.wseed, 0, int(j))) * float64(val[i])
		}
		s[0] = acc
	case p.wtab != nil:
		for i, j := range ind {
			v := float64(val[i])
			w := p.wtab[int(j)*k : int(j)*k+k]
			for c := range s {
				s[c] += float64(w[c]) * v
			}
		}
	default:
		for i, j := range ind {
			v := float64(val[i])
			for c := range s {
				s[c] += float64(hashWeight(p.wseed, c, int(j))) * v
			}
		}
	}
	return s
}

// label returns the label of a row, drawing the noise from nr.
func (g *rowGen) label(ind []int32, val []float32, nr *rng) float64 {
	p := g.p
	s := g.score(ind, val)
	noisy := p.cfg.Noise > 0 && nr.float64() < p.cfg.Noise
	if p.k == 1 {
		y := -1.0
		if s[0]+p.bias[0] > 0 {
			y = 1
		}
		if noisy {
			y = -y
		}
		return y
	}
	best := argmaxBias(s, p.bias)
	if noisy {
		best = (best + 1 + nr.intn(p.k-1)) % p.k
	}
	return float64(best)
}

// argmaxBias returns the first c maximizing s[c]+b[c].
func argmaxBias(s, b []float64) int {
	best, bv := 0, s[0]+b[0]
	for c := 1; c < len(s); c++ {
		if v := s[c] + b[c]; v > bv {
			best, bv = c, v
		}
	}
	return best
}

// fitBias draws the pilot rows and sets the biases that balance the
// classes on them.
func (p *textPlan) fitBias() error {
	n := max(pilotRows, 32*p.k)
	g := newRowGen(p)
	lr, cr := seedRNG(p.cfg.Seed, streamPilot, 0), seedRNG(p.cfg.Seed, streamPilot, 1)
	S := make([]float64, n*p.k)
	var ind []int32
	var val []float32
	for i := range n {
		L := p.length(&lr)
		if err := g.fits(L, 1); err != nil {
			return err
		}
		ind, val = slices.Grow(ind[:0], L)[:L], slices.Grow(val[:0], L)[:L]
		g.features(&cr, ind, val)
		copy(S[i*p.k:], g.score(ind, val))
	}
	if p.k == 1 {
		p.bias = []float64{-median(S)}
		return nil
	}
	p.bias = balance(S, n, p.k)
	return nil
}

// median returns the median of x, reordering x.
func median(x []float64) float64 {
	n := len(x)
	hi := selectKth(x, n/2)
	if n%2 == 1 {
		return hi
	}
	return (slices.Max(x[:n/2]) + hi) / 2
}

// selectKth reorders x so that x[k] is its k-th smallest element (0-based),
// with no larger element before it and no smaller one after, and returns it.
func selectKth(x []float64, k int) float64 {
	lo, hi := 0, len(x)-1
	for lo < hi {
		// Median-of-three pivot, Hoare partition.
		m := int(uint(lo+hi) >> 1)
		a, b, c := x[lo], x[m], x[hi]
		pv := max(min(a, b), min(max(a, b), c))
		i, j := lo, hi
		for i <= j {
			for x[i] < pv {
				i++
			}
			for x[j] > pv {
				j--
			}
			if i <= j {
				x[i], x[j] = x[j], x[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return x[k]
		}
	}
	return x[k]
}

// top2 is a row's two best scores, v1 ≥ v2, and their classes.
type top2 struct {
	v1, v2 float64
	c1, c2 int
}

// add takes class c's score v into e.
func (e *top2) add(v float64, c int) {
	switch {
	case v > e.v1:
		e.v2, e.c2 = e.v1, e.c1
		e.v1, e.c1 = v, c
	case v > e.v2:
		e.v2, e.c2 = v, c
	}
}

// balance returns K biases under which the argmax classes of the n score
// rows S (n×K, row-major) are (nearly) equally frequent. It updates one
// bias at a time to the value giving that class exactly n/K rows with the
// others fixed (a midpoint between order statistics), for a few sweeps,
// keeping each row's best two biased scores up to date.
func balance(S []float64, n, k int) []float64 {
	b := make([]float64, k)
	t := make([]top2, n)
	rescan := func(i int) {
		row := S[i*k : i*k+k]
		e := top2{v1: math.Inf(-1), v2: math.Inf(-1), c1: -1, c2: -1}
		for c, s := range row {
			e.add(s+b[c], c)
		}
		t[i] = e
	}
	for i := range n {
		rescan(i)
	}
	m := max(1, min(n-1, int(math.Round(float64(n)/float64(k)))))
	d := make([]float64, n)
	for range 12 {
		for c := range k {
			for i := range n {
				other := t[i].v1
				if t[i].c1 == c {
					other = t[i].v2
				}
				d[i] = other - S[i*k+c]
			}
			// Exactly m rows with d < b[c]: between the (m-1)-th and m-th.
			hi := selectKth(d, m)
			lo := slices.Max(d[:m])
			b[c] = (lo + hi) / 2
			for i := range n {
				e := &t[i]
				if e.c1 == c || e.c2 == c {
					rescan(i)
					continue
				}
				e.add(S[i*k+c]+b[c], c)
			}
		}
	}
	return b
}

// runChunks calls fn for every chunk in [0, n) on up to workers
// goroutines, each with its own rowGen, and returns nil; once ctx is
// done no further chunk is begun (a chunk is 1024 rows), and it returns
// ctx.Err().
func runChunks(ctx context.Context, p *textPlan, n, workers int, fn func(g *rowGen, chunk int)) error {
	workers = max(1, min(workers, n))
	if workers == 1 {
		g := newRowGen(p)
		for c := range n {
			if err := ctx.Err(); err != nil {
				return err
			}
			fn(g, c)
		}
		return nil
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			g := newRowGen(p)
			for ctx.Err() == nil {
				c := int(next.Add(1) - 1)
				if c >= n {
					return
				}
				fn(g, c)
			}
		})
	}
	wg.Wait()
	return ctx.Err()
}

func chunkRange(c, rows int) (lo, hi int) {
	lo = c * chunkRows
	return lo, min(rows, lo+chunkRows)
}

// Generate returns the corpus as an in-memory data set (X is Rows × Dim;
// QID is nil). It allocates the final arrays once: a first parallel pass
// draws the row lengths, a second fills the rows in place. The error wraps
// ErrConfig for an invalid configuration, and budget.ErrExceeded when the
// row pointers, or, once the row lengths are drawn, the whole data set
// (about 8 bytes a nonzero and 16 a row), would take more memory than the
// budget (budget.Default); it is checked before it is allocated.
func (t Text) Generate() (*sparse.Dataset, error) {
	return t.GenerateContext(context.Background())
}

// GenerateContext is Generate that stops soon after ctx is done (within a
// chunk of 1024 rows a worker), returning ctx.Err().
func (t Text) GenerateContext(ctx context.Context) (*sparse.Dataset, error) {
	p, err := t.plan()
	if err != nil {
		return nil, err
	}
	cfg := p.cfg
	rows := cfg.Rows
	nChunks := (rows + chunkRows - 1) / chunkRows
	what := fmt.Sprintf("Text: %d rows", rows)
	if err := budget.Check(0, budget.Mul(int64(rows)+1, 8), what); err != nil {
		return nil, err
	}
	indptr := make([]int64, rows+1)
	if err := runChunks(ctx, p, nChunks, cfg.Workers, func(_ *rowGen, c int) {
		lr, _, _ := chunkStreams(cfg.Seed, c)
		lo, hi := chunkRange(c, rows)
		for i := lo; i < hi; i++ {
			indptr[i+1] = int64(p.length(&lr))
		}
	}); err != nil {
		return nil, err
	}
	for i := range rows {
		indptr[i+1] += indptr[i]
	}
	nnz := indptr[rows]
	// The row pointers, indices, values and labels, and every worker's
	// scratch for the longest row.
	longest := 0
	for i := range rows {
		longest = max(longest, int(indptr[i+1]-indptr[i]))
	}
	workers := max(1, min(cfg.Workers, nChunks))
	need := budget.Add(budget.Mul(int64(rows)+1, 8), budget.Mul(nnz, 8), budget.Mul(int64(rows), 8),
		budget.Mul(int64(workers), scratchBytes(longest)))
	if err := budget.Check(0, need, fmt.Sprintf("%s of %d nonzeros", what, nnz)); err != nil {
		return nil, err
	}
	ind := make([]int32, nnz)
	val := make([]float32, nnz)
	y := make([]float64, rows)
	if err := runChunks(ctx, p, nChunks, cfg.Workers, func(g *rowGen, c int) {
		_, cr, nr := chunkStreams(cfg.Seed, c)
		lo, hi := chunkRange(c, rows)
		for i := lo; i < hi; i++ {
			a, b := indptr[i], indptr[i+1]
			g.features(&cr, ind[a:b], val[a:b])
			y[i] = g.label(ind[a:b], val[a:b], &nr)
		}
	}); err != nil {
		return nil, err
	}
	X := &sparse.CSR{Rows: rows, Cols: cfg.Dim, Indptr: indptr, Ind: ind, Val: val}
	return &sparse.Dataset{X: X, Y: y}, nil
}

// Planted is the rule behind a Text corpus' labels before noise: with two
// classes y = sign(W[0]·x + Bias[0]) (+1 when positive, else -1); with K
// classes y = argmax_c W[c]·x + Bias[c], the first maximum winning. The
// generator sums w_j·x_j in float64 in increasing index order and adds the
// bias last; another order may round differently right at the boundary.
type Planted struct {
	W    [][]float32 // one weight vector of length Dim per score: 1 or K
	Bias []float64
}

// Planted returns the planted separators and biases of t's labels. It
// materializes len(W)·Dim weights, at most 2^32 (16 GiB). The error wraps
// ErrConfig for an invalid configuration or one with more weights, and
// budget.ErrExceeded for weights over the memory budget (budget.Default).
func (t Text) Planted() (*Planted, error) {
	cfg, err := t.normalize()
	if err != nil {
		return nil, err
	}
	if k := numScores(cfg.Classes); int64(k)*int64(cfg.Dim) > maxPlanted {
		return nil, configErr("Text.Planted: %d×%d weights are too many to materialize", k, cfg.Dim)
	}
	if err := budget.Check(0, budget.Mul(int64(numScores(cfg.Classes)), int64(cfg.Dim), 4), fmt.Sprintf("Text.Planted: %d×%d weights", numScores(cfg.Classes), cfg.Dim)); err != nil {
		return nil, err
	}
	p, err := t.plan()
	if err != nil {
		return nil, err
	}
	out := &Planted{W: make([][]float32, p.k), Bias: slices.Clone(p.bias)}
	for c := range out.W {
		w := make([]float32, p.cfg.Dim)
		for j := range w {
			w[j] = p.weight(c, j)
		}
		out.W[c] = w
	}
	return out, nil
}

// drawBudget is the number of Zipf draws after which a row of L distinct
// features is completed with the most popular ranks it lacks.
func drawBudget(L int) int { return 64*L + 256 }

// numScores is the number of planted separators for a number of classes:
// one for two classes, else one per class.
func numScores(classes int) int {
	if classes == 2 {
		return 1
	}
	return classes
}
