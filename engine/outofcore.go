package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/hyperplane-ml/hyperplane/sparse/hpc"
)

// FitCache trains like Fit on a data set in a cache file (see
// sparse.WriteFile), reading it block by block, so that the data
// set can be far larger than memory: besides the model, training holds
// only the window of blocks being learned and the next one, being read
// ahead: 2·CacheWindow blocks, 128 MiB with the default 4 MiB blocks.
// Several epochs stream the file several times; the operating system's
// page cache keeps what fits in memory for the next pass.
//
// Shuffling is two-level: each epoch visits the blocks in a fresh random
// order, CacheWindow blocks at a time, and learns the rows of those blocks
// interleaved at random (see interleave), so that even a file sorted by
// label (as many are) alternates classes. NoShuffle visits everything in file order. The classes come from the cache's label
// set and the width from its column count.
//
// Plain and Averaged are supported; the other algorithms, Workers > 1,
// Validation, Balanced, SampleWeight and TrainLoss need the whole data set
// in memory and are refused with ErrConfig. Stopping, cancellation, OnEpoch and
// the statistics behave as in Fit. A block that fails its checks (a
// corrupt or truncated file, or one that changed while training read it:
// hpc.ErrChanged) or a read error stops training with its error, returned
// with the model as it stood then, as for a cancelled context; stats then
// hold the epochs finished. Every block is checked in memory of its own
// before it is learned (see hpc.File.ReadBlock), so a process that
// rewrites the file meanwhile cannot make the learner read unchecked
// data.
func FitCache(ctx context.Context, c *hpc.File, cfg Config) (*Model, []EpochStats, error) {
	s, err := cfg.settle()
	if err == nil {
		err = s.fitOnly("FitCache")
	}
	if err != nil {
		return nil, nil, err
	}
	switch {
	case s.Algorithm != Averaged && s.Algorithm != Plain:
		return nil, nil, fmt.Errorf("%w: training from a cache supports the averaged and plain perceptrons, not %v", ErrConfig, s.Algorithm)
	case s.Workers > 1 || s.Validation != 0 || s.Balanced || s.SampleWeight != nil || s.TrainLoss:
		return nil, nil, fmt.Errorf("%w: Workers, Validation, Balanced, SampleWeight and TrainLoss need the data in memory; use Fit", ErrConfig)
	}
	if err := oneLabelCache(c); err != nil {
		return nil, nil, err
	}
	if c.Rows() == 0 {
		return nil, nil, ErrNoData
	}
	var classes []float64
	if s.Warm != nil {
		if err := s.checkWarm(s.Warm); err != nil {
			return nil, nil, err
		}
		classes = slices.Clone(s.Warm.Classes)
	} else {
		labels := c.Labels()
		if labels == nil {
			return nil, nil, fmt.Errorf("%w: %s has more distinct labels than a cache lists", ErrLabels, c.Name())
		}
		if classes, err = checkClasses(labels, s.maxClass); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", c.Name(), err)
		}
	}
	if err := checkClassWeights(s.ClassWeight, classes); err != nil {
		return nil, nil, err
	}
	dim := c.Cols()
	if s.Warm != nil {
		if dim > s.Warm.Dim {
			return nil, nil, fmt.Errorf("%w: %s has %d columns, more than the warm start's %d", ErrDim, c.Name(), dim, s.Warm.Dim)
		}
		dim = s.Warm.Dim
	}
	if err := checkWeights(s, dim, classes, 1); err != nil {
		return nil, nil, err
	}
	rng := rand.New(rand.NewPCG(s.Seed, 0x9e3779b97f4a7c15))
	st := newState(s, classes, dim, rng)
	if s.Warm != nil {
		st.start(s.Warm)
	}
	st.classWeights(nil)
	cf, err := newCacheFitter(st, c, rng)
	if err != nil {
		return st.model(), nil, err
	}
	return drive(ctx, &st.s, cf)
}

// cacheFitter runs the epochs of FitCache.
type cacheFitter struct {
	st      *state
	c       *hpc.File
	classes []float64
	rng     *rand.Rand
	// blocks is the order of the blocks, shuffled every epoch; window
	// is the number of blocks learned together, and free holds the
	// 2·window buffers that blocks are read into.
	blocks []int
	window int
	free   chan *hpc.Block
	// resident holds every block of a file of one window or less, and
	// resTouched, once made, the features its rows use: a bit each, the
	// bits a pass over them sets in the learner's touched features.
	resident   []*hpc.Block
	resTouched []uint64
	// A window's visiting order and class indices, kept from window to
	// window.
	order  []rowRef
	sizes  []int
	seqBuf []int32
	cls    [][]int32
	// With Normalize, scales[k] holds the row scales of the window's
	// block k (see rowScales); resident blocks have theirs computed once,
	// in resScales.
	scales, resScales [][]float32
}

// oneLabelCache refuses a cache with label lists (opened with
// hpc.Options.LabelLists), whose blocks' Y hold each row's number of
// labels, not a label.
func oneLabelCache(c *hpc.File) error {
	if c.HasLabelLists() {
		return fmt.Errorf("%w: %s holds label lists (multi-label rows): train them with FitMultiLabel (hpc.ReadMultiLabelFile reads them)", ErrLabels, c.Name())
	}
	return nil
}

// newCacheFitter returns the fitter of st's epochs over c, shuffled by
// rng: with the buffers of a window, or with every block read when the
// file is one window or less.
func newCacheFitter(st *state, c *hpc.File, rng *rand.Rand) (*cacheFitter, error) {
	return newCacheFitterWith(st, c, rng, nil)
}

// newCacheFitterWith is newCacheFitter with the blocks of c already
// resident, when prev is a cacheFitter of c that read them: their row
// scales and features are taken over with them.
func newCacheFitterWith(st *state, c *hpc.File, rng *rand.Rand, prev *cacheFitter) (*cacheFitter, error) {
	blocks := make([]int, c.NumBlocks())
	for i := range blocks {
		blocks[i] = i
	}
	window := CacheWindow
	if st.s.NoShuffle {
		window = 1
	}
	// 2·window blocks: one window in training, the next being read.
	free := make(chan *hpc.Block, 2*window)
	for range 2 * window {
		free <- new(hpc.Block)
	}
	cf := &cacheFitter{st: st, c: c, classes: st.classes, rng: rng, blocks: blocks, window: window, free: free}
	// A file of one window or less is read once and kept: every epoch
	// would read it all before learning anything, with nothing to
	// overlap the reading with.
	if prev != nil && prev.resident != nil {
		cf.resident, cf.resTouched = prev.resident, prev.resTouched
		if st.s.Normalize && len(prev.resScales) == len(prev.resident) {
			cf.resScales = prev.resScales
		}
	}
	if cf.resident == nil && c.NumBlocks() <= CacheWindow {
		for i := range c.NumBlocks() {
			b := new(hpc.Block)
			if err := c.ReadBlock(i, b); err != nil {
				return nil, err
			}
			cf.resident = append(cf.resident, b)
		}
	}
	if st.s.Normalize && cf.resScales == nil {
		for _, b := range cf.resident {
			cf.resScales = append(cf.resScales, rowScales(b.X))
		}
	}
	return cf, nil
}

// epoch is one pass over the cache's rows, window by window.
func (f *cacheFitter) epoch(ctx context.Context, e int, more bool) (EpochStats, error) {
	st, c := f.st, f.c
	st.startEpoch(e)
	if f.resident != nil {
		// The blocks kept are copies, safe whatever the file does, but
		// a file that changed since is no longer what they hold.
		if err := c.CheckUnchanged(); err != nil {
			return EpochStats{}, err
		}
	}
	if !st.s.NoShuffle {
		shuffle(f.rng, f.blocks)
	}
	f.order = f.order[:0]
	src := &windowRows{f: f}
	if f.resident == nil {
		src.rd = readBlocks(ctx, c, f.blocks, f.free)
	}
	var m passMode
	m.gw, m.stride, m.ilv = st.passLayout()
	m.gather = st.gatherWeights()
	m.fused = st.plainBinary(nil)
	ps, err := st.learnPass(ctx, src, m)
	src.release()
	if m.ilv {
		st.unpackWU()
	}
	if src.rd != nil {
		if rerr := src.rd.stop(f.free); err == nil {
			err = rerr
		}
	}
	return ps.stats(ps.rows), err
}

// windowRows is the source of a pass of a cacheFitter: the rows of a
// window of blocks at a time, learned in one shuffled order, so that a
// file sorted by label still alternates classes.
type windowRows struct {
	f   *cacheFitter
	rd  *blockReader // nil when the blocks are resident
	win []*hpc.Block
	// next is the position in f.order of the window's next row.
	next int
	done bool
}

func (r *windowRows) fill(b *rowBatch) (bool, error) {
	f := r.f
	if r.next == len(f.order) {
		b.size(0, false, false, false, false)
		if r.done {
			return false, nil
		}
		if err := r.nextWindow(); err != nil || len(f.order) == 0 {
			return false, err
		}
	}
	refs := f.order[r.next:min(len(f.order), r.next+passBatch)]
	r.next += len(refs)
	// Each row written in place: appends to the batch's slices cost more
	// a row than the rest of the fill.
	b.size(len(refs), false, false, f.st.s.Normalize, false)
	ind, val, cls := b.ind[:len(refs)], b.val[:len(refs)], b.cls[:len(refs)]
	for k, ref := range refs {
		X := r.win[ref.blk].X
		lo, hi := X.Indptr[ref.row], X.Indptr[ref.row+1]
		ind[k], val[k], cls[k] = X.Ind[lo:hi], X.Val[lo:hi], f.cls[ref.blk][ref.row]
	}
	if b.scale != nil {
		sc := b.scale[:len(refs)]
		for k, ref := range refs {
			sc[k] = f.scales[ref.blk][ref.row]
		}
	}
	return r.next < len(f.order) || !r.done, nil
}

// nextWindow gives the blocks of the window learned back to the reader
// and gathers the next window: its blocks, their rows' classes and
// scales, and the window's visiting order in f.order (empty when no
// block is left). A label outside the classes is an error.
func (r *windowRows) nextWindow() error {
	f, s := r.f, &r.f.st.s
	r.release()
	r.win = r.win[:0]
	f.order, r.next = f.order[:0], 0
	if f.resident != nil {
		f.scales = f.scales[:0]
		for _, i := range f.blocks {
			r.win = append(r.win, f.resident[i])
			if s.Normalize {
				f.scales = append(f.scales, f.resScales[i])
			}
		}
		r.done = true
	} else {
		for len(r.win) < f.window {
			b, ok := <-r.rd.out
			if !ok {
				r.done = true
				break
			}
			r.win = append(r.win, b)
		}
	}
	if len(r.win) == 0 {
		return nil
	}
	f.cls, f.sizes = f.cls[:0], f.sizes[:0]
	if f.resident != nil {
		f.markResident()
	}
	for k, b := range r.win {
		if f.resident == nil {
			f.st.markTouched(b.X.Ind)
		}
		if s.Normalize && f.resident == nil {
			if len(f.scales) <= k {
				f.scales = append(f.scales, nil)
			}
			X := b.X
			f.scales[k] = slices.Grow(f.scales[k][:0], X.Rows)[:X.Rows]
			for i := range X.Rows {
				f.scales[k][i] = invNorm(X.Val[X.Indptr[i]:X.Indptr[i+1]])
			}
		}
		cb := make([]int32, b.Rows())
		for i := range cb {
			j := classIndex(f.classes, b.Y[i]+0)
			if j < 0 {
				return fmt.Errorf("%w: %s: row %d has label %v, not in the file's label set", ErrLabels, f.c.Name(), b.Start+int64(i)+1, b.Y[i])
			}
			cb[i] = int32(j)
		}
		f.cls = append(f.cls, cb)
		f.sizes = append(f.sizes, b.Rows())
	}
	if s.NoShuffle {
		for k, n := range f.sizes {
			for i := range n {
				f.order = append(f.order, rowRef{int32(k), int32(i)})
			}
		}
	} else {
		f.order = interleave(f.order, f.sizes, f.rng, &f.seqBuf)
	}
	return nil
}

// markResident marks the features of the resident blocks' rows touched
// (see state.touched), which every pass over them does alike: from a
// bitmap of them made at the first pass and kept with the blocks.
func (f *cacheFitter) markResident() {
	t := f.st.touched
	if t == nil {
		return
	}
	if f.resTouched == nil {
		rt := make([]uint64, len(t))
		for _, b := range f.resident {
			for _, j := range b.X.Ind {
				rt[j>>6] |= 1 << (uint(j) & 63)
			}
		}
		f.resTouched = rt
	}
	for i, w := range f.resTouched[:min(len(f.resTouched), len(t))] {
		t[i] |= w
	}
}

// release gives the blocks of the window back to the reader, unless they
// are resident.
func (r *windowRows) release() {
	if r.f.resident == nil {
		for _, b := range r.win {
			r.f.free <- b
		}
	}
	r.win = r.win[:0]
}

func (f *cacheFitter) check(e int) error {
	return f.st.check(e)
}

func (f *cacheFitter) model() *Model { return f.st.model() }

// evaluate measures nothing: the rows are on disk (FitCache refuses
// TrainLoss and Validation).
func (f *cacheFitter) evaluate(*EpochStats) (*Model, bool) { return nil, false }

func (f *cacheFitter) record(EpochStats) error { return nil }

func (f *cacheFitter) countLeft(examples int64) { f.st.countLeft(examples) }

// rowRef names row Row of block Blk of a window.
type rowRef struct{ blk, row int32 }

// interleaveChunk is the run of consecutive rows interleave keeps.
const interleaveChunk = 32

// interleave appends to dst a random visiting order of the rows of
// len(sizes) blocks (block k has sizes[k] rows). Each block is cut into
// chunks of 32 rows, visited in a random order, rows of a chunk in order;
// the blocks are merged at random, each step taking the next row of a
// block drawn with probability proportional to the rows it has left. So
// classes alternate as in a full shuffle of the window even when every
// block holds one class, while each block is read as a few sequential
// streams that the caches and the TLB follow, unlike a full permutation
// of 64 MiB of rows. seq is scratch.
func interleave(dst []rowRef, sizes []int, rng *rand.Rand, seq *[]int32) []rowRef {
	total := 0
	for _, n := range sizes {
		total += n
	}
	if cap(*seq) < total {
		*seq = make([]int32, total)
	}
	q := (*seq)[:0]
	starts := make([]int, len(sizes)+1)
	for k, n := range sizes {
		starts[k] = len(q)
		nc := (n + interleaveChunk - 1) / interleaveChunk
		for _, c := range rng.Perm(nc) {
			for i := c * interleaveChunk; i < min((c+1)*interleaveChunk, n); i++ {
				q = append(q, int32(i))
			}
		}
	}
	starts[len(sizes)] = len(q)
	left := slices.Clone(sizes)
	pos := starts[:len(sizes)]
	for t := total; t > 0; t-- {
		x := rng.IntN(t)
		k := 0
		for x >= left[k] {
			x -= left[k]
			k++
		}
		dst = append(dst, rowRef{int32(k), q[pos[k]]})
		pos[k]++
		left[k]--
	}
	return dst
}

// CacheWindow is the number of cache blocks whose rows FitCache shuffles
// together.
const CacheWindow = 16

// blockReader reads the blocks of a cache in a given order on its own
// goroutine, into blocks taken from free, and sends them on out.
type blockReader struct {
	out    chan *hpc.Block
	err    error
	finish chan struct{}
	exited chan struct{}
}

func readBlocks(ctx context.Context, c *hpc.File, order []int, free chan *hpc.Block) *blockReader {
	r := &blockReader{out: make(chan *hpc.Block, cap(free)), finish: make(chan struct{}), exited: make(chan struct{})}
	go func() {
		defer close(r.exited)
		defer close(r.out)
		r.err = r.read(c, order, free)
	}()
	return r
}

// read reads the blocks of order into blocks from free and sends them on.
func (r *blockReader) read(c *hpc.File, order []int, free chan *hpc.Block) error {
	for _, i := range order {
		var b *hpc.Block
		select {
		case b = <-free:
		case <-r.finish:
			return nil
		}
		if err := c.ReadBlock(i, b); err != nil {
			free <- b
			return err
		}
		r.out <- b // never blocks: out has room for every block
	}
	return nil
}

// stop ends the reader, returns the blocks it still holds to free, and
// returns its error.
func (r *blockReader) stop(free chan *hpc.Block) error {
	close(r.finish)
	<-r.exited
	for b := range r.out {
		free <- b
	}
	return r.err
}
