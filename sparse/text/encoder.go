package text

import (
	"math"
	"slices"
	"unsafe"

	"github.com/cespare/xxhash/v2"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// Encoder turns single documents into feature vectors for a Featurizer,
// reusing its buffers: once they have grown to the longest document,
// Transform allocates nothing. An Encoder belongs to one goroutine; make
// one per goroutine with NewEncoder (the Featurizer itself is shared).
type Encoder struct {
	f      *Featurizer
	w      gramWalker
	keys   []uint32 // one per n-gram: feature<<1 | sign bit
	hashes []uint64 // vocabulary mode: the n-grams' hashes
	tmp    []uint32 // radix sort scratch
	ind    []int32
	val    []float32

	// Running totals of vectorize, to size its output.
	seenBytes, seenNNZ int64

	// Fitting.
	toks  tokenArena
	grams []gramRef
	tc    *termCounter
	df    *dfLocal // hashed document frequencies

	// Counting in shared counts (FitCache).
	doc        docGrams
	shardStart uint64 // the shard the next document's counting starts at, + a multiple of the shards; 0 before the first
}

// NewEncoder returns an Encoder for f.
func (f *Featurizer) NewEncoder() *Encoder {
	return &Encoder{f: f, w: gramWalker{ngrams: f.cfg.NGrams}}
}

// Transform returns the feature vector of text (Dim = f.Dim()): the
// weighted counts of its n-grams, with strictly increasing indices and no
// zero values. The vector's slices belong to e and are overwritten by the
// next call: copy them to keep them.
func (e *Encoder) Transform(text string) sparse.Vector {
	e.counts(text)
	e.f.weigh(e.ind, e.val)
	return sparse.Vector{Dim: e.f.dim, Ind: e.ind, Val: e.val}
}

// Transform returns the feature vector of text, as Encoder.Transform does,
// in newly allocated slices. It is safe for concurrent use; a loop over
// many documents goes faster with an Encoder of its own.
func (f *Featurizer) Transform(text string) sparse.Vector {
	e, _ := f.pool.Get().(*Encoder)
	if e == nil {
		e = f.NewEncoder()
	}
	v := e.Transform(text)
	v.Ind, v.Val = slices.Clone(v.Ind), slices.Clone(v.Val)
	f.pool.Put(e)
	return v
}

// counts sets e.ind and e.val to the features of text and their raw
// counts (summed signs), sorted by feature, zeros dropped.
func (e *Encoder) counts(s string) {
	f := e.f
	keys, hashes := e.keys[:0], e.hashes[:0]
	w := &e.w
	w.seen = 0
	for i := 0; ; {
		h, _, next, _, ok := w.tok.nextHashed(s, i)
		if !ok {
			break
		}
		i = next
		// The n-grams ending with this token; hashing with unigrams or
		// bigrams, the common cases, is spelled out.
		switch {
		case w.ngrams == 1 && !f.cfg.Vocabulary:
			keys = append(keys, f.bucketKey(h))
		case w.ngrams == 2 && !f.cfg.Vocabulary:
			keys = append(keys, f.bucketKey(h))
			if w.seen > 0 {
				keys = append(keys, f.bucketKey(gramHash([]uint64{w.recent[0], h})))
			}
			w.recent[0], w.seen = h, 1
		default:
			win := w.push(h)
			for n := 1; n <= len(win); n++ {
				g := h
				if n > 1 {
					g = gramHash(win[len(win)-n:])
				}
				if f.cfg.Vocabulary {
					hashes = append(hashes, g)
				} else {
					keys = append(keys, f.bucketKey(g))
				}
			}
		}
	}
	// Vocabulary lookups go in a batch of their own: a tight loop of
	// independent loads lets the processor wait for several cache misses
	// at once, and the slots of a block ahead are prefetched.
	for k, h := range hashes {
		if lo, hi, ok := aheadOf(k, len(hashes)); ok && len(f.index.slots) > 0 {
			prefetchVocabSlots(&f.index.slots[0], f.index.shift, hashes[lo:hi])
		}
		if j, ok := f.index.get(h); ok {
			keys = append(keys, uint32(j)<<1)
		}
	}
	e.keys, e.hashes = keys, hashes
	if cap(e.tmp) < len(keys) {
		e.tmp = make([]uint32, len(keys), cap(keys))
	}
	keys = sortKeys(keys, e.tmp[:len(keys)])

	ind, val := e.ind[:0], e.val[:0]
	for j := 0; j < len(keys); {
		feat := keys[j] >> 1
		tf := 0
		for ; j < len(keys) && keys[j]>>1 == feat; j++ {
			tf += 1 - 2*int(keys[j]&1)
		}
		if tf != 0 {
			ind = append(ind, int32(feat))
			val = append(val, float32(tf))
		}
	}
	e.ind, e.val = ind, val
}

// bucketKey returns the sort key of the n-gram with hash h with hashing:
// its bucket (the low Bits bits) and its sign (the top bit).
func (f *Featurizer) bucketKey(h uint64) uint32 {
	return uint32(h&f.mask)<<1 | uint32(h>>63)
}

// weigh turns the raw counts val of the features ind into the configured
// values, in place.
func (f *Featurizer) weigh(ind []int32, val []float32) {
	if idf := f.idf.dense; f.cfg.TF == Log && f.cfg.IDF && idf != nil {
		// The defaults, in one pass: the same products, summed in the
		// same order, as the passes below.
		// The weights of a row's features lie far apart in a table of a
		// hashed space: they are fetched a block ahead.
		var ss float64
		for i, j := range ind {
			if lo, hi, ok := aheadOf(i, len(ind)); ok {
				prefetchAt(unsafe.Pointer(&idf[0]), 2, ind[lo:hi])
			}
			v, ok := logTFTable(val[i])
			if !ok {
				v = logTFSlow(val[i])
			}
			v *= idf[j]
			val[i] = v
			ss += float64(v) * float64(v)
		}
		if !f.cfg.NoNormalize {
			toUnit(val, ss)
		}
		return
	}
	switch f.cfg.TF {
	case Binary:
		for i, v := range val {
			val[i] = 1
			if v < 0 {
				val[i] = -1
			}
		}
	case Log:
		for i, v := range val {
			val[i] = logTF(v)
		}
	}
	if f.cfg.IDF {
		if idf := f.idf.dense; idf != nil {
			for i, j := range ind {
				val[i] *= idf[j]
			}
		} else {
			for i, j := range ind {
				val[i] *= f.idf.lookup(j)
			}
		}
	}
	if !f.cfg.NoNormalize {
		var ss float64
		for _, v := range val {
			ss += float64(v) * float64(v)
		}
		toUnit(val, ss)
	}
}

// weighNumbered is weigh at the defaults (log TF, and IDF from a dense
// table) that also numbers the columns: tab[j] holds column j's IDF in
// its low 32 bits and its new number (see numberTable) in the high ones,
// so that one lookup serves both, and nd[i] gets the new number of
// ind[i].
func (f *Featurizer) weighNumbered(ind []int32, val []float32, nd []int32, tab []uint64) {
	nd = nd[:len(ind)]
	var ss float64
	for i, j := range ind {
		if lo, hi, ok := aheadOf(i, len(ind)); ok {
			prefetchAt(unsafe.Pointer(&tab[0]), 3, ind[lo:hi])
		}
		e := tab[j]
		v, ok := logTFTable(val[i])
		if !ok {
			v = logTFSlow(val[i])
		}
		v *= math.Float32frombits(uint32(e))
		val[i] = v
		nd[i] = int32(e >> 32)
		ss += float64(v) * float64(v)
	}
	if !f.cfg.NoNormalize {
		toUnit(val, ss)
	}
}

// numberTable returns the table weighNumbered reads, from f's dense IDF
// and code, colorder's numbering of the columns (−1 − the new number of
// each column the rows use); nil where weighNumbered does not apply.
func (f *Featurizer) numberTable(code []int32) []uint64 {
	idf := f.idf.dense
	if f.cfg.TF != Log || !f.cfg.IDF || idf == nil || len(code) != len(idf) {
		return nil
	}
	tab := make([]uint64, len(idf))
	for j, w := range idf {
		tab[j] = uint64(math.Float32bits(w)) | uint64(uint32(-1-code[j]))<<32
	}
	return tab
}

// toUnit scales val, whose squares sum to ss, to unit length; a row of
// zeros stays as it is.
func toUnit(val []float32, ss float64) {
	if ss > 0 {
		s := 1 / math.Sqrt(ss)
		for i, v := range val {
			val[i] = float32(float64(v) * s)
		}
	}
}

// logTable holds 1 + ln k, rounded to float32, for the counts k below
// its length: most counts in a document are small integers, and a load
// costs far less than a logarithm.
var logTable = func() (t [256]float32) {
	for k := range t {
		t[k] = float32(1 + math.Log(float64(k)))
	}
	return t
}()

// logTF returns the log-scaled term frequency of the count v,
// sign(v)·(1 + ln |v|), rounded to float32: from logTable for the small
// whole counts, else by logTFSlow.
func logTF(v float32) float32 {
	if t, ok := logTFTable(v); ok {
		return t
	}
	return logTFSlow(v)
}

// logTFTable is logTF of the small whole counts, from logTable, and
// false for the others: the part of logTF small enough for the compiler
// to inline in the loops that weigh every value.
func logTFTable(v float32) (float32, bool) {
	a := v
	if v < 0 {
		a = -v
	}
	k := uint32(a)
	if k >= uint32(len(logTable)) || a != float32(k) {
		return 0, false
	}
	if v < 0 {
		return -logTable[k], true
	}
	return logTable[k], true
}

// logTFSlow is logTF computed with a logarithm.
func logTFSlow(v float32) float32 {
	w := float32(1 + math.Log(math.Abs(float64(v))))
	if v < 0 {
		w = -w
	}
	return w
}

// nextHashed finds the first token of s at or after byte i, as next
// does, and returns its hash, where it starts, where it ends, whether
// t.buf holds it lowered, and false when there is none. A token of
// lowercase ASCII letters and digits, the bulk of most text, takes a
// fast path of its own; the tokenizer does the rest.
func (t *tokenizer) nextHashed(s string, i int) (h uint64, a, b int, lowered, ok bool) {
	for i < len(s) && byteClass[s[i]] == sep {
		i++
	}
	if i == len(s) {
		return 0, 0, 0, false, false
	}
	j := i
	if byteClass[s[i]] == word {
		for j++; j < len(s) && byteClass[s[j]] == word; j++ {
		}
	}
	if j > i && (j == len(s) || byteClass[s[j]] == sep) {
		return xxhash.Sum64String(s[i:j]), i, j, false, true
	}
	a, b, lowered, ok = t.next(s, i)
	if !ok {
		return 0, 0, 0, false, false
	}
	return t.hash(s, a, b, lowered), a, b, lowered, true
}

// sortKeys sorts a in increasing order, using tmp (len(tmp) == len(a)) as
// scratch, and returns whichever of the two holds the result. Short
// inputs get an insertion sort; longer ones an LSD radix sort on bytes,
// with the four histograms counted in one pass and the passes skipped on
// bytes in which all keys agree (with 2^20 buckets only 3 of 4 run).
func sortKeys(a, tmp []uint32) []uint32 {
	if len(a) <= 32 {
		for i := 1; i < len(a); i++ {
			k := a[i]
			j := i
			for ; j > 0 && a[j-1] > k; j-- {
				a[j] = a[j-1]
			}
			a[j] = k
		}
		return a
	}
	var count [4][256]uint32
	for _, k := range a {
		count[0][k&0xff]++
		count[1][k>>8&0xff]++
		count[2][k>>16&0xff]++
		count[3][k>>24]++
	}
	src, dst := a, tmp[:len(a)]
	for pass := range 4 {
		shift := uint(8 * pass)
		cnt := &count[pass]
		if cnt[src[0]>>shift&0xff] == uint32(len(src)) {
			continue // every key has the same byte here
		}
		var sum uint32
		for d, c := range cnt {
			cnt[d] = sum
			sum += c
		}
		for _, k := range src {
			d := k >> shift & 0xff
			dst[cnt[d]] = k
			cnt[d]++
		}
		src, dst = dst, src
	}
	return src
}

// Vocabulary fitting.

// termStat describes one vocabulary candidate. It holds no pointer, so
// that a counter of millions of terms costs the garbage collector nothing
// to scan: its text is in its counter's arena. What every occurrence
// updates is apart, in termHot, so that counting touches 8 bytes of a
// term rather than its whole statistic.
type termStat struct {
	h   uint64
	cf  int64 // occurrences in all documents, counted only with countCF
	off int64 // the term's text: text[off : off+n] of its counter
	n   int32
}

// termHot is what counting a term's occurrence updates.
type termHot struct {
	df      int32 // documents holding the term (a corpus has at most MaxInt32)
	lastDoc int32 // the last document count counted in df (countRow counts a document's distinct terms at its end instead)
}

// termCounter counts the terms of a set of documents.
type termCounter struct {
	at      hashIndex // hash → index in stats
	stats   []termStat
	hot     []termHot    // by index in stats
	countCF bool         // count the occurrences (MaxFeatures ranks by them)
	acct    *vocabBudget // where the memory is counted; nil for none
	pending int64        // bytes not counted in acct yet
	docs    int32        // documents counted by countRow
	text    []byte       // the terms' texts, back to back
	bytes   int64        // what its terms take, as termBytes counts
	floor   int32        // terms in at most this many documents were dropped (see prune)
}

// prune drops the terms counted in at most maxDF documents (since they
// were last added) and returns the bytes they took, as termBytes counts
// them. A term dropped and seen again is counted afresh.
func (tc *termCounter) prune(maxDF int32) int64 {
	var freed int64
	var stats []termStat
	var hot []termHot
	var text []byte
	for i, st := range tc.stats {
		if tc.hot[i].df <= maxDF {
			freed += termBytes(int(st.n))
			continue
		}
		off := len(text)
		text = append(text, tc.text[st.off:st.off+int64(st.n)]...)
		st.off = int64(off)
		stats = append(stats, st)
		hot = append(hot, tc.hot[i])
	}
	tc.stats, tc.hot, tc.text = stats, hot, text
	tc.at = hashIndex{}
	tc.at.resize(len(stats))
	for i := range stats {
		tc.at.put(stats[i].h, int32(i))
	}
	tc.bytes -= freed
	tc.floor = max(tc.floor, maxDF)
	return freed
}

// count counts an occurrence of term idx in document doc.
func (tc *termCounter) count(idx, doc int32) {
	h := &tc.hot[idx]
	if h.lastDoc != doc {
		h.lastDoc = doc
		h.df++
	}
	if tc.countCF {
		tc.stats[idx].cf++
	}
}

// term returns the text of term i.
func (tc *termCounter) term(i int32) string {
	st := &tc.stats[i]
	return string(tc.text[st.off : st.off+int64(st.n)])
}

// add adds the term with hash h, whose text is the n tokens of e's arena
// ending with token end, to tc, uncounted, and returns its number.
func (tc *termCounter) add(h uint64, e *Encoder, end int32, n int) int32 {
	off := len(tc.text)
	tc.text = e.toks.appendText(tc.text, end, n)
	return tc.added(h, off)
}

// added adds the term with hash h, whose text tc.text[off:] has just
// been appended, to tc, uncounted, and returns its number.
func (tc *termCounter) added(h uint64, off int) int32 {
	idx := int32(len(tc.stats))
	tc.at.put(h, idx)
	tc.stats = append(tc.stats, termStat{h: h, off: int64(off), n: int32(len(tc.text) - off)})
	tc.hot = append(tc.hot, termHot{lastDoc: -1})
	tc.pending += termBytes(len(tc.text) - off)
	tc.bytes += termBytes(len(tc.text) - off)
	return idx
}

// termBytes is the memory a counted term takes: its statistic, two index
// slots and its text.
func termBytes(n int) int64 {
	return int64(unsafe.Sizeof(termStat{})+unsafe.Sizeof(termHot{})) + 2*int64(unsafe.Sizeof(hashSlot{})) + int64(n)
}

// countTerms adds the terms of text, document doc of the corpus, to tc.
// The error refuses the memory the new terms would take.
func (e *Encoder) countTerms(s string, doc int32, tc *termCounter) error {
	e.grams = e.w.appendGrams(e.grams[:0], &e.toks, s)
	for _, g := range e.grams {
		e.countTerm(tc, g.h, g.end, int(g.n), doc)
	}
	if tc.acct != nil && tc.pending >= tc.acct.step() {
		n := tc.pending
		tc.pending = 0
		return tc.acct.add(n)
	}
	return nil
}

// gramRef is an n-gram of a document: its hash and its n tokens, which
// end with token end.
type gramRef struct {
	h      uint64
	end, n int32
}

// countTerm counts one occurrence of the n-gram with hash h made of the n
// tokens ending with token end.
func (e *Encoder) countTerm(tc *termCounter, h uint64, end int32, n int, doc int32) {
	idx, ok := tc.at.get(h)
	if !ok {
		idx = tc.add(h, e, end, n)
	}
	tc.count(idx, doc)
}
