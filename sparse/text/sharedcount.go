package text

import (
	"math/bits"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Counting a vocabulary in shards. When every worker keeps a term counter
// of its own, a term that all of them meet is held once by each: on a
// corpus whose terms recur through it (most of a large one), the counts
// take as many times the memory as there are workers. FitCache instead
// counts in counters shared by all its workers, each holding the terms
// whose hashes fall in its shard and taken under its own lock: each term
// is held once. A worker first totals a document's n-grams in a small
// table of its own (docGrams), then counts the document's distinct terms
// shard by shard, one lock at a time, so that two workers seldom wait for
// one another. The counts, and so the vocabulary, are those the workers'
// own counters would sum to.

// sharedCounts is the term counts of one fit, in shards by hash.
type sharedCounts struct {
	shards  []countShard
	mask    uint64        // shard of hash h: h & mask
	spacing uint64        // shards between two encoders' first shards
	started atomic.Uint64 // encoders that have counted so far
}

// countShard is one shard of sharedCounts, its counter behind its lock.
type countShard struct {
	mu sync.Mutex
	tc termCounter
	_  [64]byte // keeps two shards' locks off one cache line
}

// newSharedCounts returns counts in enough shards for workers goroutines
// to seldom contend, their memory counted in acct (whose share of its
// soft limit then goes to each shard).
func newSharedCounts(workers int, acct *vocabBudget, countCF bool) *sharedCounts {
	n := 1
	if workers > 1 {
		n = 1 << bits.Len(uint(8*workers-1))
	}
	s := &sharedCounts{shards: make([]countShard, n), mask: uint64(n - 1), spacing: uint64(n / max(workers, 1))}
	for i := range s.shards {
		s.shards[i].tc = termCounter{acct: acct, countCF: countCF}
	}
	acct.counters = n
	return s
}

// counters returns the shards' counters, once no worker counts any more.
func (s *sharedCounts) counters() []*termCounter {
	out := make([]*termCounter, len(s.shards))
	for i := range s.shards {
		out[i] = &s.shards[i].tc
	}
	return out
}

// docGrams totals the n-grams of one document: its distinct terms, each
// with its first n-gram (for its text) and its number of occurrences.
type docGrams struct {
	grams  []gramRef // the distinct terms
	counts []float32 // occurrences of grams[i]
	slots  []int32   // open addressing by hash: index in grams + 1, or 0
	// The distinct terms again, by shard: shard k's are
	// shardGrams[starts[k]:starts[k+1]], with their counts in
	// shardCounts.
	shardGrams  []gramRef
	shardCounts []float32
	starts      []int32
	idx         []int32 // a shard's terms' numbers in its counter
}

// total sets d's grams and counts to the distinct terms of grams.
func (d *docGrams) total(grams []gramRef) {
	size := 16
	for size < 2*len(grams) {
		size *= 2
	}
	if len(d.slots) < size {
		d.slots = make([]int32, size)
	}
	slots := d.slots[:size]
	shift := uint(64 - bits.TrailingZeros(uint(size)))
	mask := size - 1
	d.grams, d.counts = d.grams[:0], d.counts[:0]
	for _, g := range grams {
		i := int(g.h >> shift)
		for {
			s := slots[i]
			if s == 0 {
				d.grams = append(d.grams, g)
				d.counts = append(d.counts, 1)
				slots[i] = int32(len(d.grams))
				break
			}
			if d.grams[s-1].h == g.h {
				d.counts[s-1]++
				break
			}
			i = (i + 1) & mask
		}
	}
	clear(slots)
}

// byShard sets d's shardGrams, shardCounts and starts: the distinct
// terms sorted by their shard, h & mask.
func (d *docGrams) byShard(mask uint64) {
	n := int(mask) + 1
	if cap(d.starts) < n+1 {
		d.starts = make([]int32, n+1)
	}
	starts := d.starts[:n+1]
	clear(starts)
	for _, g := range d.grams {
		starts[g.h&mask+1]++
	}
	for k := 1; k <= n; k++ {
		starts[k] += starts[k-1]
	}
	if cap(d.shardGrams) < len(d.grams) {
		d.shardGrams = make([]gramRef, len(d.grams), cap(d.grams))
		d.shardCounts = make([]float32, len(d.grams), cap(d.grams))
	}
	sg, scn := d.shardGrams[:len(d.grams)], d.shardCounts[:len(d.grams)]
	for i, g := range d.grams {
		k := g.h & mask
		sg[starts[k]], scn[starts[k]] = g, d.counts[i]
		starts[k]++
	}
	// starts[k] now ends shard k: shift them back to starts.
	copy(starts[1:], starts[:n])
	starts[0] = 0
	d.shardGrams, d.shardCounts, d.starts = sg, scn, starts
}

// countShared counts the document s in the shared counts: the document
// frequency (and with countCF the occurrences) of each of its distinct
// terms, adding those not held yet with their text. It leaves the
// document's distinct terms and their counts in e.doc. The error
// refuses the memory new terms would take.
func (e *Encoder) countShared(s string, sc *sharedCounts) error {
	e.grams = e.w.appendGrams(e.grams[:0], &e.toks, s)
	d := &e.doc
	d.total(e.grams)
	d.byShard(sc.mask)
	n := len(sc.shards)
	// Each encoder starts at a shard of its own, so that the workers
	// mostly hold different locks.
	if e.shardStart == 0 {
		e.shardStart = sc.started.Add(1) * sc.spacing
	}
	first := int(e.shardStart % uint64(n))
	e.shardStart++
	for j := range n {
		k := (first + j) % n
		lo, hi := d.starts[k], d.starts[k+1]
		if lo == hi {
			continue
		}
		if err := e.countShard(&sc.shards[k], d.shardGrams[lo:hi], d.shardCounts[lo:hi]); err != nil {
			return err
		}
	}
	return nil
}

// countShard counts one document's distinct terms grams, which occur
// counts times in it, in shard sh, under its lock.
func (e *Encoder) countShard(sh *countShard, grams []gramRef, counts []float32) error {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	tc := &sh.tc
	// The terms' slots, then their statistics, are fetched all at once:
	// the lookups are independent cache misses.
	if len(tc.at.slots) > 0 {
		prefetchGramSlots(&tc.at.slots[0], tc.at.shift, grams)
	}
	idx := e.doc.idx[:0]
	for i := range grams {
		g := &grams[i]
		k, ok := tc.at.get(g.h)
		if !ok {
			k = tc.add(g.h, e, g.end, int(g.n))
		}
		idx = append(idx, k)
	}
	e.doc.idx = idx
	hot := tc.hot
	prefetchAt(unsafe.Pointer(&hot[0]), hotShift, idx)
	for _, k := range idx {
		hot[k].df++
	}
	if tc.countCF {
		for i, k := range idx {
			tc.stats[k].cf += int64(counts[i])
		}
	}
	if tc.acct == nil {
		return nil
	}
	if tc.pending >= tc.acct.step() {
		n := tc.pending
		tc.pending = 0
		if err := tc.acct.add(n); err != nil {
			return err
		}
	}
	tc.acct.pruneIfFull(tc)
	return nil
}

// sharedPiece turns a run of documents into a piece holding their label
// names and, for each, its raw counts keyed by term hash (pc.hs), after
// counting them in sc.
func (e *Encoder) sharedPiece(docs []Doc, sc *sharedCounts) piece {
	nnz := e.expectedNNZ(docs)
	pc := piece{indptr: make([]int64, 1, len(docs)+1), hs: make([]uint64, 0, nnz), val: make([]float32, 0, nnz), bad: -1}
	pc.labels = make([]string, 0, len(docs))
	for i := range docs {
		if err := e.countShared(docs[i].Text, sc); err != nil {
			pc.err = err
			return pc
		}
		for _, g := range e.doc.grams {
			pc.hs = append(pc.hs, g.h)
		}
		pc.val = append(pc.val, e.doc.counts...)
		pc.indptr = append(pc.indptr, int64(len(pc.val)))
		pc.labels = append(pc.labels, docs[i].Label)
	}
	e.noteSize(docs, &pc)
	return pc
}
