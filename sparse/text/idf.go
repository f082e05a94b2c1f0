package text

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/hyperplane-ml/hyperplane/sparse/budget"
)

// Document frequencies and idf weights are kept in whichever form is
// smaller for the data: a dense array of one entry per feature, or, when
// the training documents touch few of the 2^Bits hash buckets, only the
// features with df > 0. So memory, and the size of a saved featurizer,
// grow with the data rather than with 2^Bits.

// dfTable holds the document frequency of every feature: dense, or sparse
// (ind strictly increasing, cnt > 0; every other feature has df 0).
type dfTable struct {
	dense    []int32
	ind, cnt []int32
	sparse   bool
}

// sparseForm returns t in the sparse form, converting a dense table.
func (t *dfTable) sparseForm() dfTable {
	if t.sparse {
		return *t
	}
	return t.toSparse(t.nnz(len(t.dense)))
}

// at returns the document frequency of feature j.
func (t *dfTable) at(j int32) int32 {
	if !t.sparse {
		return t.dense[j]
	}
	if k, ok := slices.BinarySearch(t.ind, j); ok {
		return t.cnt[k]
	}
	return 0
}

// nnz returns the number of features with df > 0, or a number above
// limit if there are more than limit.
func (t *dfTable) nnz(limit int) int {
	if t.sparse {
		return len(t.ind)
	}
	n := 0
	for _, c := range t.dense {
		if c != 0 {
			if n++; n > limit {
				break
			}
		}
	}
	return n
}

// bytes returns the memory t holds.
func (t *dfTable) bytes() int64 {
	return 4 * int64(len(t.dense)+len(t.ind)+len(t.cnt))
}

// toSparse returns the sparse form of a dense table of nnz nonzeros.
func (t *dfTable) toSparse(nnz int) dfTable {
	s := dfTable{sparse: true, ind: make([]int32, 0, nnz), cnt: make([]int32, 0, nnz)}
	for j, c := range t.dense {
		if c != 0 {
			s.ind = append(s.ind, int32(j))
			s.cnt = append(s.cnt, c)
		}
	}
	return s
}

// sparseFrac: a hash table of document frequencies or idf weights is used
// while it takes at most 1/sparseFrac of the memory of the array of every
// feature. Probing a table costs more than indexing an array, whose
// accesses follow the increasing feature indices of a row, unless the
// table is small enough to stay in cache; this keeps it so, and still
// bounds the memory of either form by sparseFrac times what the data
// touch.
const sparseFrac = 16

// denseFloorBytes: document frequencies and idf weights of at most this
// many bytes a form are kept dense whatever the data (tests lower it).
// Such arrays are small next to the rest of a process that uses them,
// and filling a hash table first, then the array, costs time.
var denseFloorBytes int64 = 16 << 20

// idfTable holds the idf weight of every feature: dense, or as an
// open-addressing hash table of the features with df > 0 beside the one
// weight, unseen, of every other feature.
type idfTable struct {
	dense  []float32
	slots  []idfSlot // len a power of two, at most half full
	shift  uint      // 64 − log2(len(slots))
	seed   uint64    // per table, so that no input can choose the collisions
	unseen float32
}

type idfSlot struct {
	key uint32 // feature + 1; 0 marks an empty slot
	val float32
}

// slotsFor returns the number of slots of a sparse table of n features.
func slotsFor(n int) int { return max(8, 1<<bits.Len(uint(2*n))) }

// slot returns the first slot to probe for feature j.
func (t *idfTable) slot(j int32) int {
	return int((uint64(uint32(j)) ^ t.seed) * 0x9e3779b97f4a7c15 >> t.shift)
}

// lookup returns the weight of feature j of a sparse table.
func (t *idfTable) lookup(j int32) float32 {
	key := uint32(j) + 1
	mask := len(t.slots) - 1
	for i := t.slot(j); ; i = (i + 1) & mask {
		s := t.slots[i]
		if s.key == key {
			return s.val
		}
		if s.key == 0 {
			return t.unseen
		}
	}
}

// at returns the weight of feature j.
func (t *idfTable) at(j int32) float32 {
	if t.dense != nil {
		return t.dense[j]
	}
	return t.lookup(j)
}

// overBudget wraps a budget error with what would help.
func (f *Featurizer) overBudget(err error) error {
	if f.cfg.Vocabulary {
		// Every distinct term is counted before any is dropped.
		return fmt.Errorf("%w (hashing, -bits instead of -vocab, or shorter n-grams, -ngrams, need less)", err)
	}
	return fmt.Errorf("%w (fewer hash bits, -bits, or a vocabulary, -vocab, need less)", err)
}

// setIDF computes the idf weights from the document frequencies f.df:
// an array when it takes at most denseFloorBytes or a table of the
// features with df > 0 would not take under 1/sparseFrac of it, else
// that table, and then f.df goes to the sparse form too.
// Every array sized by the number of features is checked against the
// memory budget first. Most frequencies are small, so the weights of the
// first ones are tabulated rather than each computed with a logarithm.
func (f *Featurizer) setIDF() error { return f.setIDFOn(nil) }

// setIDFOn is setIDF counting what it makes on meter, which holds the
// document frequencies already, or, with meter nil, checking each array
// with the frequencies against the budget on its own.
func (f *Featurizer) setIDFOn(meter *budget.Meter) error {
	if !f.cfg.IDF {
		return nil
	}
	w := newIDFWeights(f.nDocs, f.dim)
	// A sparse slot takes 8 bytes and a table is at most half full, a
	// dense entry 4. A vocabulary has no feature without documents.
	nnz := 0
	dense := f.cfg.Vocabulary || int64(f.dim)*4 <= denseFloorBytes
	if !dense {
		nnz = f.df.nnz(f.dim / sparseFrac / 4)
		dense = int64(slotsFor(nnz))*8 > int64(f.dim)*4/sparseFrac
	}
	if dense {
		return f.setDenseIDF(meter, w)
	}
	return f.setSparseIDF(meter, w, nnz)
}

// checkIDF checks need bytes, the document frequencies included, for
// what: on meter, which holds the frequencies already, or with meter nil
// against the budget on its own.
func (f *Featurizer) checkIDF(meter *budget.Meter, need int64, what string) error {
	var err error
	if meter != nil {
		err = meter.Take(need-f.df.bytes(), what)
	} else {
		err = budget.Check(0, need, what)
	}
	if err != nil {
		return f.overBudget(err)
	}
	return nil
}

// idfWeights computes the idf weight of a document frequency among n
// documents. Most frequencies are small, so the weights of the first
// ones may be tabulated rather than each computed with a logarithm.
type idfWeights struct {
	n     float64
	table []float32
}

// newIDFWeights returns the weights among nDocs documents for dim
// features. A table of the weights of the small frequencies saves a
// logarithm per feature where the features outnumber its entries; a
// featurizer read for a few documents has a few features, which take one
// each.
func newIDFWeights(nDocs, dim int) idfWeights {
	w := idfWeights{n: float64(nDocs)}
	if size := min(nDocs, 1<<16) + 1; dim >= size/4 {
		w.table = make([]float32, size)
		for df := range w.table {
			w.table[df] = w.log(int32(df))
		}
	}
	return w
}

// log computes the weight of df. It is kept out of line so that weight,
// called once a feature, inlines into the loops that fill the weights.
//
//go:noinline
func (w *idfWeights) log(df int32) float32 {
	return float32(math.Log((1+w.n)/(1+float64(df))) + 1)
}

// weight returns the weight of df.
func (w *idfWeights) weight(df int32) float32 {
	if int(df) < len(w.table) {
		return w.table[df]
	}
	return w.log(df)
}

// fill sets idf[j] to the weight of dfs[j], for every j of dfs.
func (w *idfWeights) fill(idf []float32, dfs []int32) {
	table := w.table // in a register, not loaded again each feature
	for j, df := range dfs {
		if int(df) < len(table) {
			idf[j] = table[df]
		} else {
			idf[j] = w.log(df)
		}
	}
}

// setDenseIDF sets f's idf weights as an array of all features.
func (f *Featurizer) setDenseIDF(meter *budget.Meter, w idfWeights) error {
	// Above the floor, frequencies that are dense in memory but few go
	// to the sparse form first, so that the idf array can take the place
	// of theirs.
	if !f.df.sparse && !f.cfg.Vocabulary && int64(f.dim)*4 > denseFloorBytes {
		if n := f.df.nnz(f.dim / 8); n <= f.dim/8 {
			if err := f.checkIDF(meter, budget.Add(f.df.bytes(), budget.Mul(int64(n), 8)), fmt.Sprintf("the document frequencies of %d features", n)); err != nil {
				return err
			}
			f.df = f.df.toSparse(n)
		}
	}
	need := budget.Add(f.df.bytes(), budget.Mul(int64(f.dim), 4))
	if err := f.checkIDF(meter, need, fmt.Sprintf("the idf weights of %d features", f.dim)); err != nil {
		return err
	}
	idf := make([]float32, f.dim)
	unseen := w.weight(0)
	if f.df.sparse {
		for j := range idf {
			idf[j] = unseen
		}
		for k, j := range f.df.ind {
			idf[j] = w.weight(f.df.cnt[k])
		}
	} else {
		w.fill(idf, f.df.dense)
	}
	f.idf = idfTable{dense: idf, unseen: unseen}
	return nil
}

// setSparseIDF sets f's idf weights as a hash table of the nnz features
// with df > 0, and f.df to the sparse form.
func (f *Featurizer) setSparseIDF(meter *budget.Meter, w idfWeights, nnz int) error {
	size := slotsFor(nnz)
	need := budget.Add(f.df.bytes(), budget.Mul(int64(nnz), 8), budget.Mul(int64(size), 8))
	if err := f.checkIDF(meter, need, fmt.Sprintf("the idf weights of %d features", nnz)); err != nil {
		return err
	}
	if !f.df.sparse {
		f.df = f.df.toSparse(nnz)
	}
	t := idfTable{
		slots:  make([]idfSlot, size),
		shift:  uint(64 - bits.TrailingZeros(uint(size))),
		seed:   rand.Uint64(),
		unseen: w.weight(0),
	}
	mask := size - 1
	for k, j := range f.df.ind {
		i := t.slot(j)
		for t.slots[i].key != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = idfSlot{uint32(j) + 1, w.weight(f.df.cnt[k])}
	}
	f.idf = t
	return nil
}

// dfCounter counts the document frequencies of hashed features from
// several goroutines. Each counts into a dfLocal: a hash table of the
// buckets it has seen while that takes at most 1/sparseFrac of an array
// of all 2^Bits (from the start when the array takes at most
// denseFloorBytes), then an array of its own when all such arrays fit in
// privateDFBytes, else one shared array with atomic adds. Every table and array is
// counted against the memory budget before it is made. The sums do not
// depend on how the documents were shared out.
type dfCounter struct {
	dim, workers int
	used         atomic.Int64 // bytes of tables and arrays
	mu           sync.Mutex
	locals       []*dfLocal
	shared       []int32 // the array counted into with atomic adds, once made
	first        []int32 // a goroutine's array made in advance, until taken
	f            *Featurizer
}

// denseMergeRatio: see dfCounter.total.
const denseMergeRatio = 32

// privateDFBytes bounds the memory of per-goroutine document frequency
// arrays (tests lower it).
var privateDFBytes int64 = 256 << 20

func newDFCounter(f *Featurizer, workers int) *dfCounter {
	c := &dfCounter{dim: f.dim, workers: workers, f: f}
	// Below the floor every goroutine takes an array at once; the first
	// is made here, before they start, which measures faster than making
	// them all as they start.
	if arr := int64(c.dim) * 4; arr <= denseFloorBytes && int64(workers)*arr <= privateDFBytes && c.reserve(arr) == nil {
		c.first = make([]int32, c.dim)
	}
	return c
}

// reserve counts n more bytes against the budget, or returns the error
// that refuses them.
func (c *dfCounter) reserve(n int64) error {
	total := c.used.Add(n)
	if err := budget.Check(0, total, fmt.Sprintf("the document frequencies of 2^%d hash buckets", c.f.cfg.Bits)); err != nil {
		c.used.Add(-n)
		return c.f.overBudget(err)
	}
	return nil
}

// dfLocal is one goroutine's counter.
type dfLocal struct {
	c      *dfCounter
	slots  []uint64 // (bucket+1)<<32 | count; 0 marks an empty slot
	n      int
	shift  uint
	seed   uint64
	dense  []int32 // once the table has grown too big: an array
	atomic bool    // dense is c.shared
}

// local returns a new counter for one goroutine.
func (c *dfCounter) local() *dfLocal {
	l := &dfLocal{c: c, seed: rand.Uint64()}
	c.mu.Lock()
	c.locals = append(c.locals, l)
	c.mu.Unlock()
	if int64(c.dim)*4 <= denseFloorBytes {
		if err := l.toDense(); err != nil {
			// Counted into a table instead, checked as it grows.
			l.dense, l.atomic = nil, false
		}
	}
	return l
}

func (l *dfLocal) slot(j int32) int {
	return int((uint64(uint32(j)) ^ l.seed) * 0x9e3779b97f4a7c15 >> l.shift)
}

// add counts one document holding the features ind (each once).
func (l *dfLocal) add(ind []int32) error {
	for k := 0; k < len(ind); {
		switch {
		case l.atomic:
			// The counts of a row's features lie far apart in a hashed
			// space: they are fetched a block ahead.
			d, rest := l.dense, ind[k:]
			for i, j := range rest {
				if lo, hi, ok := aheadOf(i, len(rest)); ok {
					prefetchAt(unsafe.Pointer(&d[0]), 2, rest[lo:hi])
				}
				atomic.AddInt32(&d[j], 1)
			}
			return nil
		case l.dense != nil:
			d, rest := l.dense, ind[k:]
			for i, j := range rest {
				if lo, hi, ok := aheadOf(i, len(rest)); ok {
					prefetchAt(unsafe.Pointer(&d[0]), 2, rest[lo:hi])
				}
				d[j]++
			}
			return nil
		}
		if 2*(l.n+1) > len(l.slots) {
			if err := l.grow(); err != nil {
				return err
			}
			continue
		}
		j := ind[k]
		key := uint64(uint32(j)+1) << 32
		mask := len(l.slots) - 1
		i := l.slot(j)
		for {
			s := l.slots[i]
			if s == 0 {
				l.slots[i] = key | 1
				l.n++
				break
			}
			if s&^0xffffffff == key {
				l.slots[i] = s + 1
				break
			}
			i = (i + 1) & mask
		}
		k++
	}
	return nil
}

// grow doubles the table, or trades it for an array once the table would
// take more than 1/sparseFrac of the array's memory.
func (l *dfLocal) grow() error {
	c := l.c
	// A table takes 8 bytes a slot, an array 4 a bucket.
	size := max(1024, 2*len(l.slots))
	if int64(size)*8 > int64(c.dim)*4/sparseFrac {
		return l.toDense()
	}
	if err := c.reserve(int64(size) * 8); err != nil {
		return err
	}
	old := l.slots
	l.slots = make([]uint64, size)
	l.shift = uint(64 - bits.TrailingZeros(uint(size)))
	mask := size - 1
	for _, s := range old {
		if s != 0 {
			i := l.slot(int32(s>>32 - 1))
			for l.slots[i] != 0 {
				i = (i + 1) & mask
			}
			l.slots[i] = s
		}
	}
	c.used.Add(-int64(len(old)) * 8)
	return nil
}

// toDense moves l's counts into an array: its own if every goroutine's
// would fit in privateDFBytes, else the shared one.
func (l *dfLocal) toDense() error {
	c := l.c
	arr := int64(c.dim) * 4
	if int64(c.workers)*arr <= privateDFBytes {
		c.mu.Lock()
		l.dense, c.first = c.first, nil
		c.mu.Unlock()
		if l.dense == nil {
			if err := c.reserve(arr); err != nil {
				return err
			}
			l.dense = make([]int32, c.dim)
		}
	} else {
		c.mu.Lock()
		if c.shared == nil {
			if err := c.reserve(arr); err != nil {
				c.mu.Unlock()
				return err
			}
			c.shared = make([]int32, c.dim)
		}
		c.mu.Unlock()
		l.dense, l.atomic = c.shared, true
	}
	for _, s := range l.slots {
		if s != 0 {
			j := s>>32 - 1
			if l.atomic {
				atomic.AddInt32(&l.dense[j], int32(uint32(s)))
			} else {
				l.dense[j] += int32(uint32(s))
			}
		}
	}
	c.used.Add(-int64(len(l.slots)) * 8)
	l.slots, l.n = nil, 0
	return nil
}

// total returns the document frequencies, once every goroutine is done:
// dense if any goroutine counted into an array, else sparse.
func (c *dfCounter) total() (dfTable, error) {
	var arrays [][]int32
	entries := 0
	for _, l := range c.locals {
		if l.dense != nil && !l.atomic {
			arrays = append(arrays, l.dense)
		}
		entries += l.n
	}
	if c.shared != nil {
		arrays = append([][]int32{c.shared}, arrays...)
	}
	// Merging tables holding an entry for more than one bucket in
	// denseMergeRatio is faster in an array, whose scan yields the
	// buckets in order, than by sorting the entries.
	if len(arrays) == 0 && int64(entries)*denseMergeRatio >= int64(c.dim) {
		if err := c.reserve(int64(c.dim) * 4); err == nil {
			arrays = [][]int32{make([]int32, c.dim)}
		}
	}
	if len(arrays) == 0 {
		if err := c.reserve(int64(entries) * 8); err != nil {
			return dfTable{}, err
		}
		all := make([]uint64, 0, entries)
		for _, l := range c.locals {
			for _, s := range l.slots {
				if s != 0 {
					all = append(all, s)
				}
			}
			l.slots = nil
		}
		slices.Sort(all)
		t := dfTable{sparse: true}
		for _, s := range all {
			j, n := int32(s>>32-1), int32(uint32(s))
			if k := len(t.ind) - 1; k >= 0 && t.ind[k] == j {
				t.cnt[k] += n
			} else {
				t.ind = append(t.ind, j)
				t.cnt = append(t.cnt, n)
			}
		}
		t.ind, t.cnt = slices.Clip(t.ind), slices.Clip(t.cnt)
		return t, nil
	}
	sum := arrays[0]
	if len(arrays) > 1 {
		parallelRange(c.dim, c.workers, func(lo, hi int) {
			for _, a := range arrays[1:] {
				for j := lo; j < hi; j++ {
					sum[j] += a[j]
				}
			}
		})
	}
	for _, l := range c.locals {
		for _, s := range l.slots {
			if s != 0 {
				sum[s>>32-1] += int32(uint32(s))
			}
		}
		l.slots, l.dense = nil, nil
	}
	c.locals = nil
	return dfTable{dense: sum}, nil
}
