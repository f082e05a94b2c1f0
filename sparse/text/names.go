package text

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"

	"github.com/hyperplane-ml/hyperplane/sparse/budget"
)

// NamedTerm is one of the terms that name a feature (see FeatureNames).
type NamedTerm struct {
	// Text is the term, its tokens joined by single spaces.
	Text string
	// Sign is the term's sign in the feature, +1 or −1 (see Term.Sign):
	// a weight w on the feature counts as Sign·w for the term.
	Sign float32
	// DF is the number of documents holding the term: of the corpus
	// scanned with hashing; with a vocabulary, of the training documents
	// if the featurizer keeps their frequencies (Config.IDF), else 0.
	DF int
}

// Names maps features to the terms that land in them, as FeatureNames
// finds them: the inverse of the hashing, for the features asked for. The
// zero Names names no feature. It is read-only once made, and safe for
// concurrent use.
type Names struct {
	feats []int32     // the named features, increasing
	off   []int       // the terms of feats[i] are terms[off[i]:off[i+1]]
	terms []NamedTerm // per feature, by decreasing DF, then text
}

// Len returns the number of features that have names.
func (n *Names) Len() int { return len(n.feats) }

// Features returns the features that have names, in increasing order.
func (n *Names) Features() []int32 { return slices.Clone(n.feats) }

// Lookup returns a copy of the terms of feature, the most frequent (by DF)
// first, ties in text order; nil if no term is known to land there.
func (n *Names) Lookup(feature int32) []NamedTerm {
	i, ok := slices.BinarySearch(n.feats, feature)
	if !ok {
		return nil
	}
	return slices.Clone(n.terms[n.off[i]:n.off[i+1]])
}

// FeatureNames names the given features by the terms that land in them:
// with hashing, it tokenizes the documents of c in parallel, as Vectorize
// does, and keeps for every feature asked for up to perFeature of the
// distinct terms hashed into it, those found in the most documents first
// (ties in text order), each with its sign, so that a bucket reads, say,
// "great" and −"not bad". Features no term of c lands in get no names.
// With a vocabulary a feature's name is its vocabulary term and c is not
// read (it may be nil). Features may repeat and come in any order.
//
// A feature outside [0, Dim()) or a perFeature below 1 is an error
// wrapping ErrConfig. Every distinct term landing in an asked feature is
// held until the end of the scan, so asking for many features of a
// featurizer with few buckets holds about a vocabulary: the terms are
// checked against the memory budget (budget.Default) as they grow, and
// are refused with an error wrapping budget.ErrExceeded.
func (f *Featurizer) FeatureNames(c *Corpus, features []int32, perFeature int) (*Names, error) {
	if perFeature < 1 {
		return nil, fmt.Errorf("%w: %d terms per feature, want at least 1", ErrConfig, perFeature)
	}
	want := slices.Clone(features)
	slices.Sort(want)
	want = slices.Compact(want)
	if len(want) > 0 && (want[0] < 0 || int(want[len(want)-1]) >= f.dim) {
		bad := want[0]
		if bad >= 0 {
			bad = want[len(want)-1]
		}
		return nil, fmt.Errorf("%w: feature %d is outside [0, %d)", ErrConfig, bad, f.dim)
	}
	if f.cfg.Vocabulary {
		return f.vocabularyNames(want), nil
	}
	n := &Names{off: []int{0}}
	if c == nil || len(want) == 0 {
		return n, nil
	}
	all, err := f.countNames(c, want)
	if err != nil {
		return nil, err
	}
	if all == nil {
		return n, nil
	}
	all.rank(n, perFeature)
	return n, nil
}

// vocabularyNames names the features want, distinct and increasing, by
// their vocabulary terms.
func (f *Featurizer) vocabularyNames(want []int32) *Names {
	n := &Names{off: []int{0}}
	for _, j := range want {
		df := 0
		if f.cfg.IDF {
			df = int(f.df.at(j))
		}
		n.feats = append(n.feats, j)
		n.terms = append(n.terms, NamedTerm{Text: f.terms()[j], Sign: 1, DF: df})
		n.off = append(n.off, len(n.terms))
	}
	return n
}

// countNames tokenizes the documents of c in parallel and counts, for
// each of the features want (distinct and increasing), the distinct terms
// hashed into it and the documents each is in. It returns the counts
// merged into one counter, nil if no worker ran, checked against the
// memory budget.
func (f *Featurizer) countNames(c *Corpus, want []int32) (*nameCounter, error) {
	filter := newFeatureFilter(want, f.dim)
	acct := &namesBudget{what: fmt.Sprintf("the terms of %d features", len(want))}
	docs := c.Docs
	chunks := chunkDocs(docs)
	var mu sync.Mutex
	counters := make(map[*Encoder]*nameCounter)
	err := runChunksErr(context.Background(), f, chunks, func(e *Encoder, k int) error {
		mu.Lock()
		nc := counters[e]
		if nc == nil {
			nc = &nameCounter{tw: termWalker{w: gramWalker{ngrams: f.cfg.NGrams}}, acct: acct}
			counters[e] = nc
		}
		mu.Unlock()
		for i := chunks[k].lo; i < chunks[k].hi; i++ {
			if err := nc.add(f, filter, docs[i].Text, i); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}

	// Merge into the largest counter.
	var all *nameCounter
	for _, nc := range counters {
		if all == nil || len(nc.stats) > len(all.stats) {
			all = nc
		}
	}
	if all == nil {
		return nil, nil
	}
	for _, nc := range counters {
		if nc != all {
			all.merge(nc)
		}
	}
	for _, nc := range counters {
		acct.used.Add(nc.pending)
	}
	need := budget.Add(acct.used.Load(), budget.Mul(int64(len(all.stats)), 4))
	if err := budget.Check(0, need, acct.what); err != nil {
		return nil, namesOverBudget(err)
	}
	return all, nil
}

// rank appends to n, for each feature counted, up to perFeature of its
// terms, those found in the most documents first (ties in text order).
func (all *nameCounter) rank(n *Names, perFeature int) {
	order := make([]int32, len(all.stats))
	for i := range order {
		order[i] = int32(i)
	}
	st := all.stats
	slices.SortFunc(order, func(a, b int32) int {
		x, y := &st[a], &st[b]
		return cmp.Or(cmp.Compare(x.feat, y.feat), cmp.Compare(y.df, x.df), strings.Compare(x.text, y.text))
	})
	for i := 0; i < len(order); {
		feat := st[order[i]].feat
		n.feats = append(n.feats, feat)
		for k := 0; i < len(order) && st[order[i]].feat == feat; i, k = i+1, k+1 {
			if k < perFeature {
				s := &st[order[i]]
				sign := float32(1)
				if s.neg {
					sign = -1
				}
				n.terms = append(n.terms, NamedTerm{Text: s.text, Sign: sign, DF: int(s.df)})
			}
		}
		n.off = append(n.off, len(n.terms))
	}
	n.terms = slices.Clip(n.terms)
}

// featureFilter tells the features asked for: a bitmap of the features
// modulo its size, exact when it covers them all, else confirmed by a map.
type featureFilter struct {
	bits []uint64
	mask int32
	set  map[int32]struct{} // when the bitmap is not exact
}

// filterMaxBits is the largest bitmap of a featureFilter, 128 KiB: it
// stays in a core's cache while a document's terms are tested.
const filterMaxBits = 1 << 20

func newFeatureFilter(want []int32, dim int) *featureFilter {
	size := min(dim, filterMaxBits)
	ff := &featureFilter{bits: make([]uint64, (size+63)/64), mask: int32(size - 1)}
	if dim > size {
		ff.set = make(map[int32]struct{}, len(want))
	}
	for _, j := range want {
		m := j & ff.mask
		ff.bits[m>>6] |= 1 << (m & 63)
		if ff.set != nil {
			ff.set[j] = struct{}{}
		}
	}
	return ff
}

// has reports whether feature j was asked for.
func (ff *featureFilter) has(j int32) bool {
	m := j & ff.mask
	if ff.bits[m>>6]&(1<<(m&63)) == 0 {
		return false
	}
	if ff.set == nil {
		return true
	}
	_, ok := ff.set[j]
	return ok
}

// nameStat counts one term landing in an asked feature.
type nameStat struct {
	h       uint64
	df      int64
	lastDoc int // the last document counted in df
	feat    int32
	neg     bool // its sign is −1
	text    string
}

// nameCounter collects the terms of the documents one worker scans.
// Documents come to it in increasing order.
type nameCounter struct {
	tw      termWalker
	at      hashIndex // term hash → index in stats
	stats   []nameStat
	acct    *namesBudget
	pending int64 // bytes not counted in acct yet
}

// add counts the terms of text, document doc, landing in the features of
// filter. The error refuses the memory the new terms would take.
func (nc *nameCounter) add(f *Featurizer, filter *featureFilter, text string, doc int) error {
	nc.tw.walk(text, func(h uint64, end int32, n int) {
		k := f.bucketKey(h)
		feat := int32(k >> 1)
		if !filter.has(feat) {
			return
		}
		idx, ok := nc.at.get(h)
		if !ok {
			idx = int32(len(nc.stats))
			nc.at.put(h, idx)
			s := nameStat{h: h, lastDoc: -1, feat: feat, neg: k&1 == 1, text: nc.tw.toks.text(end, n)}
			nc.stats = append(nc.stats, s)
			// The statistic, two index slots, the text.
			nc.pending += int64(unsafe.Sizeof(nameStat{})) + 2*int64(unsafe.Sizeof(hashSlot{})) + int64(len(s.text))
		}
		st := &nc.stats[idx]
		if st.lastDoc != doc {
			st.lastDoc = doc
			st.df++
		}
	})
	if nc.pending >= vocabCheckBytes {
		p := nc.pending
		nc.pending = 0
		return nc.acct.add(p)
	}
	return nil
}

// merge adds the counts of o to nc.
func (nc *nameCounter) merge(o *nameCounter) {
	for _, st := range o.stats {
		if idx, ok := nc.at.get(st.h); ok {
			nc.stats[idx].df += st.df
		} else {
			nc.at.put(st.h, int32(len(nc.stats)))
			nc.stats = append(nc.stats, st)
		}
	}
}

// namesBudget counts the memory of the name counters of one FeatureNames
// call against the budget.
type namesBudget struct {
	what string
	used atomic.Int64
}

func (b *namesBudget) add(n int64) error {
	if err := budget.Check(0, b.used.Add(n), b.what); err != nil {
		return namesOverBudget(err)
	}
	return nil
}

func namesOverBudget(err error) error {
	return fmt.Errorf("%w (fewer features, or fewer documents, need less)", err)
}

// The binary form of Names, version 1, all integers unsigned varints in
// their shortest form:
//
//	magic "HPTNAMES", version
//	features F, terms T
//	F times: feature (the first) or its difference to the previous
//	         feature (≥ 1), its number of terms (≥ 1)
//	T times, feature by feature: sign byte (0 for +1, 1 for −1), DF,
//	         text length (≥ 1), text (UTF-8)
//	CRC-32C of all the above, 4 bytes little-endian
const (
	namesMagic   = "HPTNAMES"
	namesVersion = 1
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// MarshalBinary encodes n in a versioned binary form that UnmarshalBinary
// reads back.
func (n *Names) MarshalBinary() ([]byte, error) {
	size := len(namesMagic) + 3*binary.MaxVarintLen64 + 4
	size += len(n.feats) * 2 * binary.MaxVarintLen32
	for _, t := range n.terms {
		size += 1 + 2*binary.MaxVarintLen64 + len(t.Text)
	}
	b := make([]byte, 0, size)
	b = append(b, namesMagic...)
	b = binary.AppendUvarint(b, namesVersion)
	b = binary.AppendUvarint(b, uint64(len(n.feats)))
	b = binary.AppendUvarint(b, uint64(len(n.terms)))
	prev := int32(0)
	for i, j := range n.feats {
		b = binary.AppendUvarint(b, uint64(j-prev))
		b = binary.AppendUvarint(b, uint64(n.off[i+1]-n.off[i]))
		prev = j
	}
	for _, t := range n.terms {
		sign := byte(0)
		if t.Sign < 0 {
			sign = 1
		}
		b = append(b, sign)
		b = binary.AppendUvarint(b, uint64(t.DF))
		b = binary.AppendUvarint(b, uint64(len(t.Text)))
		b = append(b, t.Text...)
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli)), nil
}

// UnmarshalBinary decodes names encoded by MarshalBinary into n,
// replacing its contents; data must hold them and nothing after. Data
// that are not names, are truncated or corrupt, or have a version this
// build cannot read are an error wrapping ErrFormat, and names that would
// take more memory than the budget (budget.Default) one wrapping
// budget.ErrExceeded; then n is left as it was. Every length read is
// checked against the bytes left before anything is allocated by it.
func (n *Names) UnmarshalBinary(data []byte) error {
	d := namesDecoder{buf: data}
	m, err := d.decode()
	if err != nil {
		return err
	}
	*n = *m
	return nil
}

// namesDecoder reads the binary form of Names.
type namesDecoder struct {
	buf []byte
	pos int
	err error
}

func (d *namesDecoder) fail(format string, a ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: feature names: "+format, append([]any{ErrFormat}, a...)...)
	}
}

func (d *namesDecoder) left() int { return len(d.buf) - d.pos }

// uvarint reads an unsigned varint in its shortest form, at most max.
func (d *namesDecoder) uvarint(what string, max uint64) uint64 {
	if d.err != nil {
		return 0
	}
	v, k := binary.Uvarint(d.buf[d.pos:])
	switch {
	case k == 0:
		d.fail("truncated at %s", what)
	case k < 0:
		d.fail("%s overflows", what)
	case k != uvarintLen(v):
		d.fail("%s is not in its shortest form", what)
	case v > max:
		d.fail("%s = %d, at most %d", what, v, max)
	}
	if d.err != nil {
		return 0
	}
	d.pos += k
	return v
}

// uvarintLen returns the length of the shortest varint of v.
func uvarintLen(v uint64) int {
	k := 1
	for ; v >= 0x80; v >>= 7 {
		k++
	}
	return k
}

func (d *namesDecoder) decode() (*Names, error) {
	nf, nt := d.counts()
	if d.err != nil {
		return nil, d.err
	}
	// The text is copied once and the terms' texts are slices of it.
	need := budget.Add(budget.Mul(int64(nf), 4+8), budget.Mul(int64(nt), int64(unsafe.Sizeof(NamedTerm{}))), int64(len(d.buf)))
	if err := budget.Check(0, need, fmt.Sprintf("%d feature names", nt)); err != nil {
		return nil, err
	}
	n := &Names{feats: make([]int32, nf), off: make([]int, nf+1), terms: make([]NamedTerm, nt)}
	if !d.features(n, nt) || !d.terms(n) || !d.checksum() {
		return nil, d.err
	}
	return n, nil
}

// counts reads the header and the counts of features and of terms,
// checked against the bytes left.
func (d *namesDecoder) counts() (nf, nt int) {
	if d.left() < len(namesMagic) || string(d.buf[:len(namesMagic)]) != namesMagic {
		d.fail("no %q header", namesMagic)
		return 0, 0
	}
	d.pos = len(namesMagic)
	if v := d.uvarint("version", math.MaxUint32); d.err == nil && v != namesVersion {
		d.fail("version %d, this build reads version %d", v, namesVersion)
	}
	// A feature takes at least 2 bytes, a term 4, the checksum 4.
	nf = int(d.uvarint("feature count", uint64(max(0, d.left()-4)/2)))
	nt = int(d.uvarint("term count", uint64(max(0, d.left()-4)/4)))
	if d.err == nil && (nt < nf || 2*nf+4*nt > d.left()-4) {
		d.fail("%d features and %d terms in %d bytes", nf, nt, d.left())
	}
	return nf, nt
}

// features reads the features, increasing, and their counts of terms
// into n, whose nt terms they must share out; false on an error.
func (d *namesDecoder) features(n *Names, nt int) bool {
	nf := len(n.feats)
	feat := int64(-1)
	for i := range nf {
		delta := int64(d.uvarint("feature", math.MaxInt32))
		if i > 0 && delta == 0 {
			d.fail("features not increasing at %d", feat)
		}
		if feat = max(feat, 0) + delta; feat > math.MaxInt32 {
			d.fail("feature %d is beyond %d", feat, math.MaxInt32)
		}
		k := int(d.uvarint("terms of a feature", uint64(nt-n.off[i])))
		if d.err == nil && k == 0 {
			d.fail("feature %d has no terms", feat)
		}
		if d.err != nil {
			return false
		}
		n.feats[i] = int32(feat)
		n.off[i+1] = n.off[i] + k
	}
	if n.off[nf] != nt {
		d.fail("the features have %d terms, not %d", n.off[nf], nt)
		return false
	}
	return true
}

// terms reads the terms of each feature of n, in its order (by
// decreasing DF, then increasing text); false on an error.
func (d *namesDecoder) terms(n *Names) bool {
	text := string(d.buf[d.pos:])
	base := d.pos
	for i := range n.feats {
		for t := n.off[i]; t < n.off[i+1]; t++ {
			if d.left() < 1 {
				d.fail("truncated at term %d", t)
				return false
			}
			sign := d.buf[d.pos]
			d.pos++
			if sign > 1 {
				d.fail("sign byte %d of term %d", sign, t)
			}
			df := d.uvarint("document frequency", math.MaxInt)
			size := int(d.uvarint("text length", uint64(d.left())))
			if d.err == nil && (size == 0 || size > d.left()) {
				d.fail("term %d has %d bytes of text, %d are left", t, size, d.left())
			}
			if d.err != nil {
				return false
			}
			s := text[d.pos-base : d.pos-base+size]
			d.pos += size
			if !utf8.ValidString(s) {
				d.fail("term %d is not UTF-8", t)
				return false
			}
			term := NamedTerm{Text: s, Sign: 1 - 2*float32(sign), DF: int(df)}
			if t > n.off[i] {
				p := &n.terms[t-1]
				if c := cmp.Or(cmp.Compare(term.DF, p.DF), strings.Compare(p.Text, term.Text)); c >= 0 {
					d.fail("terms of feature %d not by decreasing DF, then increasing text, at %q", n.feats[i], s)
					return false
				}
			}
			n.terms[t] = term
		}
	}
	return true
}

// checksum checks the checksum that ends the data; false on an error.
func (d *namesDecoder) checksum() bool {
	if d.left() != 4 {
		if d.left() < 4 {
			d.fail("truncated at the checksum")
		} else {
			d.fail("%d bytes after the names", d.left()-4)
		}
		return false
	}
	if got, want := binary.LittleEndian.Uint32(d.buf[d.pos:]), crc32.Checksum(d.buf[:d.pos], castagnoli); got != want {
		d.fail("checksum %08x, the data give %08x", got, want)
		return false
	}
	return true
}
