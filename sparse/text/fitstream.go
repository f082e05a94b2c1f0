package text

import (
	"context"
	"unsafe"
)

// Fitting a vocabulary while the text streams by: every worker counts the
// n-grams of its chunks in a term counter of its own and keeps each
// document's counts by that counter's term numbers, so the text is
// tokenized once and never kept. Once the input has been read, the
// counters are merged into the vocabulary (as Fit builds it) and each
// piece's term numbers are mapped to features, dropping the terms the
// vocabulary left out, and weighed: the rows Fit and Vectorize make of
// the same documents, bit for bit.

// termPiece turns a run of documents into a piece holding their label
// names and, for each, its raw counts by the term numbers of e's counter
// (made on first use, its memory counted in acct), sorted by term number.
func (e *Encoder) termPiece(docs []Doc, acct *vocabBudget) piece {
	if e.tc == nil {
		e.tc = &termCounter{acct: acct, countCF: e.f.cfg.MaxFeatures > 0}
	}
	pc := e.newPiece(docs)
	pc.tc = e.tc
	pc.labels = make([]string, 0, len(docs))
	for i := range docs {
		if err := e.countRow(docs[i].Text); err != nil {
			pc.err = err
			return pc
		}
		pc.add(e)
		pc.labels = append(pc.labels, docs[i].Label)
	}
	e.noteSize(docs, &pc)
	return pc
}

// countRow counts the n-grams of s in e's term counter, as one more
// document, and sets e.ind and e.val to the document's counts by term
// number, increasing. The error refuses the memory new terms would take.
func (e *Encoder) countRow(s string) error {
	tc := e.tc
	tc.docs++
	// The n-grams' hashes first, then their counts in a loop of their
	// own: its lookups are independent of one another, so the processor
	// can wait for several cache misses at once.
	grams := e.w.appendGrams(e.grams[:0], &e.toks, s)
	e.grams = grams
	keys := e.keys[:0]
	for k, g := range grams {
		if lo, hi, ok := aheadOf(k, len(grams)); ok && len(tc.at.slots) > 0 {
			// The slots of the n-grams a block ahead: table lookups are
			// cache misses that the loop alone keeps too few of in flight.
			prefetchGramSlots(&tc.at.slots[0], tc.at.shift, grams[lo:hi])
		}
		idx, ok := tc.at.get(g.h)
		if !ok {
			idx = tc.add(g.h, e, g.end, int(g.n))
		}
		keys = append(keys, uint32(idx))
	}
	e.keys = keys
	if cap(e.tmp) < len(keys) {
		e.tmp = make([]uint32, len(keys), cap(keys))
	}
	keys = sortKeys(keys, e.tmp[:len(keys)])
	ind, val := e.ind[:0], e.val[:0]
	for j := 0; j < len(keys); {
		k := keys[j]
		n := j
		for ; j < len(keys) && keys[j] == k; j++ {
		}
		ind = append(ind, int32(k))
		val = append(val, float32(j-n))
	}
	e.ind, e.val = ind, val
	// The document counts once for each of its distinct terms, their
	// statistics fetched a block ahead.
	hot := tc.hot
	for j, k := range ind {
		if lo, hi, ok := aheadOf(j, len(ind)); ok {
			prefetchAt(unsafe.Pointer(&hot[0]), hotShift, ind[lo:hi])
		}
		hot[k].df++
		if tc.countCF {
			tc.stats[k].cf += int64(val[j])
		}
	}
	if tc.acct != nil && tc.pending >= tc.acct.step() {
		n := tc.pending
		tc.pending = 0
		return tc.acct.add(n)
	}
	return nil
}

// hotShift is log2 of the size of a termHot, for prefetchAt (a test
// checks it).
const hotShift = 3

// gramsAhead is how many n-grams (or terms) ahead countRow and counts
// have the processor fetch what their lookups will read.
const gramsAhead = 16

// aheadOf reports whether item k of n starts a block of gramsAhead, and
// then which items to prefetch: those of the next block, and at the start
// those of the first block too.
func aheadOf(k, n int) (lo, hi int, ok bool) {
	if k%gramsAhead != 0 {
		return 0, 0, false
	}
	lo = min(k+gramsAhead, n)
	if k == 0 {
		lo = 0
	}
	return lo, min(k+2*gramsAhead, n), true
}

// featureMap returns, for each term hash of hs, its feature in f's
// vocabulary, or −1 for a term left out.
func (f *Featurizer) featureMap(hs []uint64) []int32 {
	m := make([]int32, len(hs))
	for i, h := range hs {
		if j, ok := f.index.get(h); ok {
			m[i] = j
		} else {
			m[i] = -1
		}
	}
	return m
}

// featureScratch is what toFeatures works in: a value per feature, zero
// between rows, and a row's features with room to sort them.
type featureScratch struct {
	dense     []float32
	keys, tmp []uint32
	rowInd    []int32 // a row being weighed, for FitCache
	rowVal    []float32
}

// newFeatureScratch returns the scratch of one worker of toFeatures.
func newFeatureScratch() *featureScratch { return new(featureScratch) }

// toFeatures rewrites the rows of pc from term numbers to the features
// fm gives them, dropping the terms without one, sorted by feature, and
// weighs them.
func (f *Featurizer) toFeatures(pc *piece, fm []int32, sc *featureScratch) {
	if len(sc.dense) < f.dim {
		sc.dense = make([]float32, f.dim)
	}
	dense, keys := sc.dense, sc.keys
	out := int64(0)
	for r := 0; r+1 < len(pc.indptr); r++ {
		a, b := pc.indptr[r], pc.indptr[r+1]
		keys = keys[:0]
		for k := a; k < b; k++ {
			if j := fm[pc.ind[k]]; j >= 0 {
				keys = append(keys, uint32(j))
				dense[j] = pc.val[k]
			}
		}
		if len(sc.tmp) < len(keys) {
			sc.tmp = make([]uint32, cap(keys))
		}
		sorted := sortKeys(keys, sc.tmp[:len(keys)])
		start := out
		for _, j := range sorted {
			pc.ind[out], pc.val[out] = int32(j), dense[j]
			dense[j] = 0
			out++
		}
		f.weigh(pc.ind[start:out], pc.val[start:out])
		pc.indptr[r] = start
	}
	if n := len(pc.indptr); n > 0 {
		pc.indptr[n-1] = out
	}
	pc.ind, pc.val = pc.ind[:out], pc.val[:out]
	sc.keys = keys
}

// vocabularyOf fits f's vocabulary (and idf) on the term counters of the
// pieces, then rewrites the pieces' rows as features, weighed.
func (f *Featurizer) vocabularyOf(pieces []piece, acct *vocabBudget) error {
	// The hashes of each counter's terms, by term number, for the
	// pieces it numbered (the merge empties all counters but one).
	var counters []*termCounter
	hashes := map[*termCounter][]uint64{}
	for k := range pieces {
		if tc := pieces[k].tc; tc != nil {
			if _, ok := hashes[tc]; !ok {
				counters = append(counters, tc)
				hs := make([]uint64, len(tc.stats))
				for i := range tc.stats {
					hs[i] = tc.stats[i].h
				}
				hashes[tc] = hs
			}
		}
	}
	if err := f.chooseVocabulary(counters, acct); err != nil {
		return err
	}
	for _, tc := range counters {
		*tc = termCounter{}
	}
	if err := f.setIDF(); err != nil {
		return err
	}
	maps := make(map[*termCounter][]int32, len(counters))
	for tc, hs := range hashes {
		maps[tc] = f.featureMap(hs)
		delete(hashes, tc)
	}
	return runWorkers(context.Background(), f.cfg.workers(), len(pieces), newFeatureScratch, func(sc *featureScratch, k int) bool {
		if pc := &pieces[k]; pc.tc != nil {
			f.toFeatures(pc, maps[pc.tc], sc)
			pc.tc = nil
		}
		return true
	})
}
