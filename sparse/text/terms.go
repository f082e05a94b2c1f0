package text

import (
	"cmp"
	"slices"
	"strings"
)

// Explaining features by their text. Features are built from term hashes
// alone, so a model's weights say nothing of the words behind them; Terms
// and FeatureNames recover them by tokenizing again and keeping the text
// of the terms that land in a feature, as Vowpal Wabbit's --invert_hash
// does.

// Term is one distinct term (n-gram) of a document and the feature it
// lands in.
type Term struct {
	// Text is the term: its tokens joined by single spaces, spelled as a
	// vocabulary spells its terms.
	Text string
	// Feature is the feature the term lands in.
	Feature int32
	// Sign is the term's sign in the feature, +1 or −1: the sign bit of
	// its hash with hashing, +1 with a vocabulary. The raw count of a
	// feature is the sum of Sign·Count over its terms.
	Sign float32
	// Count is the number of occurrences of the term in the document.
	Count int32
}

// Terms appends to dst[:0] and returns every distinct term of doc that
// maps to a feature (with a vocabulary, only the terms in it; with
// hashing, all), sorted by feature, then text. It tokenizes and hashes as
// Transform does, so the features of the terms are those of Transform's
// vector, less any whose signed counts cancel to zero, and the sum of
// Sign·Count over the terms of a feature is its raw count, before the tf
// weighting, idf and normalization. Terms are told apart by their 64-bit
// hash, as a vocabulary tells them. Unlike Transform, Terms allocates
// (the texts, a table of the document's terms): it is meant for
// explaining predictions, not for the hot path.
func (e *Encoder) Terms(doc string, dst []Term) []Term {
	dst = dst[:0]
	f := e.f
	tw := termWalker{w: gramWalker{ngrams: f.cfg.NGrams}}
	at := make(map[uint64]int) // term hash → index in dst, or −1 if it maps to no feature
	tw.walk(doc, func(h uint64, end int32, n int) {
		if i, ok := at[h]; ok {
			if i >= 0 {
				dst[i].Count++
			}
			return
		}
		feat, sign, ok := f.termFeature(h)
		if !ok {
			at[h] = -1
			return
		}
		at[h] = len(dst)
		dst = append(dst, Term{Text: tw.toks.text(end, n), Feature: feat, Sign: sign, Count: 1})
	})
	slices.SortFunc(dst, func(a, b Term) int {
		return cmp.Or(cmp.Compare(a.Feature, b.Feature), strings.Compare(a.Text, b.Text))
	})
	return dst
}

// termFeature returns the feature and the sign of the term with hash h,
// or ok = false for a term outside the vocabulary.
func (f *Featurizer) termFeature(h uint64) (feat int32, sign float32, ok bool) {
	if f.cfg.Vocabulary {
		j, ok := f.index.get(h)
		return j, 1, ok
	}
	k := f.bucketKey(h)
	return int32(k >> 1), 1 - 2*float32(k&1), true
}

// termWalker walks the n-grams of a document as Encoder.counts does,
// keeping the lowered tokens so that an n-gram's text can be built when
// it is wanted. It belongs to one goroutine and is reused across
// documents.
type termWalker struct {
	w     gramWalker
	toks  tokenArena
	grams []gramRef
}

// tokenArena keeps a document's tokens, lowered, so that the text of an
// n-gram can be built when it is wanted, not for every n-gram counted.
type tokenArena struct {
	buf []byte  // the tokens back to back
	end []int32 // end of each token in buf
}

func (ta *tokenArena) reset() { ta.buf, ta.end = ta.buf[:0], ta.end[:0] }

// add keeps the token s[a:b] that tok found, as tok lowered it when
// lowered is set, and returns its index.
func (ta *tokenArena) add(tok *tokenizer, s string, a, b int, lowered bool) int32 {
	if lowered {
		ta.buf = append(ta.buf, tok.buf...)
	} else {
		ta.buf = append(ta.buf, s[a:b]...)
	}
	ta.end = append(ta.end, int32(len(ta.buf)))
	return int32(len(ta.end) - 1)
}

// appendGrams appends the n-grams of s to dst in the order counts hashes
// them: after each token, the unigram it is, then the longer n-grams
// ending with it. It keeps the document's tokens in toks, reset first,
// for the n-grams' texts.
func (w *gramWalker) appendGrams(dst []gramRef, toks *tokenArena, s string) []gramRef {
	w.seen = 0
	toks.reset()
	for i := 0; ; {
		h, a, b, lowered, ok := w.tok.nextHashed(s, i)
		if !ok {
			return dst
		}
		i = b
		t := toks.add(&w.tok, s, a, b, lowered)
		win := w.push(h)
		dst = append(dst, gramRef{h, t, 1})
		for n := 2; n <= len(win); n++ {
			dst = append(dst, gramRef{gramHash(win[len(win)-n:]), t, int32(n)})
		}
	}
}

// walk calls fn for every n-gram of s, in the order counts hashes them:
// after each token, the unigram it is, then the longer n-grams ending
// with it. fn gets the n-gram's hash and its n tokens, which end with
// token end (see text).
func (tw *termWalker) walk(s string, fn func(h uint64, end int32, n int)) {
	tw.grams = tw.w.appendGrams(tw.grams[:0], &tw.toks, s)
	for _, g := range tw.grams {
		fn(g.h, g.end, int(g.n))
	}
}

// appendText appends the text of the n-gram of the n tokens ending with
// token end to dst: the tokens joined by spaces.
func (ta *tokenArena) appendText(dst []byte, end int32, n int) []byte {
	first := end - int32(n) + 1
	for t := first; t <= end; t++ {
		if t > first {
			dst = append(dst, ' ')
		}
		a := int32(0)
		if t > 0 {
			a = ta.end[t-1]
		}
		dst = append(dst, ta.buf[a:ta.end[t]]...)
	}
	return dst
}

// text returns the text of the n-gram of the n tokens ending with token
// end: the tokens joined by spaces.
func (ta *tokenArena) text(end int32, n int) string {
	first := end - int32(n) + 1
	start := int32(0)
	if first > 0 {
		start = ta.end[first-1]
	}
	size := int(ta.end[end]-start) + n - 1
	var sb strings.Builder
	sb.Grow(size)
	for t := first; t <= end; t++ {
		if t > first {
			sb.WriteByte(' ')
		}
		a := int32(0)
		if t > 0 {
			a = ta.end[t-1]
		}
		sb.Write(ta.buf[a:ta.end[t]])
	}
	return sb.String()
}
