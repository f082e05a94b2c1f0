package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// Params fixes a corpus: the same Params give the same documents.
type Params struct {
	Vocab    int     // distinct words the Zipf law draws from
	Zipf     float64 // exponent s: rank r (from 1) has probability ∝ r^-s
	LenMu    float64 // document length in words is log-normal: ln(length) ~ N(LenMu, LenSigma²)
	LenSigma float64
	Noise    float64 // probability that a document's label is the other one
	Seed     uint64
}

// DefaultParams are the generator's defaults. The length law is imdb
// train's (the mean and standard deviation of the logarithm of its
// documents' whitespace-separated word counts: 5.24 and 0.645, median 174
// words, mean 234); 1.07 is a common fit of English word frequencies.
var DefaultParams = Params{Vocab: 1 << 21, Zipf: 1.07, LenMu: 5.24, LenSigma: 0.645, Noise: 0.08, Seed: 1}

// The planted rule: the words of rank sentFirst to sentEnd-1 (from 0)
// whose hash selects them (one in sentEvery) bear sentiment, with weights
// ±1..±sentMax; going down the ranks, each takes the sign that brings the
// expected weight of a word drawn by the Zipf law closer to zero, so that
// positive and negative words carry the same share of the text. A
// document is "pos" when the sum of its words' weights is positive, else
// "neg"; then its label is replaced by the other with probability
// Params.Noise. The rule is linear in the word counts with no bias, so a
// linear model can reach 1 − Noise on it and no classifier can do better
// in expectation.
//
// As in real reviews, a document leans one way: it has a hidden polarity
// (a fair coin), and each of its words is, with probability leanP/256, a
// sentiment word drawn in proportion to its Zipf weight from those of
// that polarity (from the other polarity's one time in 5), instead of a
// word drawn from the whole vocabulary. The leaning makes the sentiment
// words' weights learnable from a corpus of imdb's size; the label is
// still the rule's (and the noise's), whatever the polarity.
const (
	sentFirst = 20
	sentEnd   = 5000
	sentEvery = 4
	sentMax   = 64
	leanP     = 15 // ≈ 6% of words
	otherP    = 51 // ≈ 1/5
)

// Length quantiles: a document's length is one of lenTable entries, the
// log-normal's quantiles at (k+½)/lenTable, drawn uniformly.
const lenTable = 1 << 16

// The Zipf law is exact for the ranks below exactRanks; after them the
// ranks come in blocks of blockRanks that share their block's probability
// equally. (Within a block, Zipf probabilities differ by less than
// 0.1%.) It keeps the sampler's tables small enough for the processor's
// caches, which makes the generator 2–3 times as fast as with an exact
// table of 2 million ranks.
const (
	exactRanks = 1 << 16
	blockRanks = 64
)

// guideBits sets the size of the Zipf sampler's guide table.
const guideBits = 16

// Corpus draws documents for Params. Everything a document depends on is
// fixed when the Corpus is made, and each document is drawn from its own
// random stream (seed, stream, index), so documents can be generated in
// any order and on any number of goroutines with the same bytes.
//
// The only floating-point arithmetic is in NewCorpus: the Zipf law's
// cumulative probabilities become 64-bit integer thresholds and the
// length law a table of integers, and every draw compares integers. On
// another architecture the thresholds could differ in their last bits
// (math.Pow may round differently where the compiler fuses a multiply and
// an add); a word then changes only when a 64-bit draw falls between the
// two roundings, about 2^-50 per word.
type Corpus struct {
	p      Params
	cdf    []uint64 // cdf[unit]: 2^64·P(rank ≤ the unit's last rank), the last one 2^64−1
	guide  []uint32 // guide[j]: the smallest unit with cdf[unit] > j·2^(64−guideBits)
	lens   []uint16
	weight []int16     // the planted rule's weight of ranks below sentEnd
	lex    [2][]int32  // the sentiment words' ranks, negative [0] and positive [1]
	lexCDF [2][]uint64 // their cumulative Zipf weights, as cdf
}

// ErrParams is returned by NewCorpus for parameters outside their range.
var ErrParams = errors.New("scaletext: bad parameters")

// NewCorpus checks p and builds the tables its documents are drawn with.
func NewCorpus(p Params) (*Corpus, error) {
	switch {
	case p.Vocab < sentEnd || p.Vocab > 1<<26:
		return nil, fmt.Errorf("%w: vocabulary %d (want %d to %d)", ErrParams, p.Vocab, sentEnd, 1<<26)
	case !(p.Zipf > 0 && p.Zipf <= 4):
		return nil, fmt.Errorf("%w: Zipf exponent %g (want (0, 4])", ErrParams, p.Zipf)
	case !(p.LenMu >= 0 && p.LenMu <= 9 && p.LenSigma >= 0 && p.LenSigma <= 2):
		return nil, fmt.Errorf("%w: log-normal length mu %g, sigma %g (want mu in [0, 9], sigma in [0, 2])", ErrParams, p.LenMu, p.LenSigma)
	case !(p.Noise >= 0 && p.Noise <= 0.5):
		return nil, fmt.Errorf("%w: noise %g (want [0, 0.5])", ErrParams, p.Noise)
	}
	c := &Corpus{p: p}
	// The Zipf weights, summed from the rarest word up so that the small
	// terms are not lost against a large partial sum.
	w := make([]float64, p.Vocab)
	var total float64
	for r := p.Vocab - 1; r >= 0; r-- {
		w[r] = math.Pow(float64(r+1), -p.Zipf)
		total += w[r]
	}
	c.buildCDF(w, total)
	c.buildGuide()
	c.buildLens()
	c.plantRule(w, total)
	return c, nil
}

// cdfPoint quantizes the cumulative probability f to 64 bits; the last
// point of a table is the top.
func cdfPoint(f float64, last bool) uint64 {
	if f >= 1 || last {
		return math.MaxUint64
	}
	return uint64(f * (1 << 64))
}

// buildCDF makes the cumulative probabilities of the units: ranks below
// exactRanks one by one, then blocks of blockRanks (the last one maybe
// shorter), from the words' weights w, which sum to total.
func (c *Corpus) buildCDF(w []float64, total float64) {
	vocab := len(w)
	units := min(vocab, exactRanks)
	if vocab > exactRanks {
		units += (vocab - exactRanks + blockRanks - 1) / blockRanks
	}
	c.cdf = make([]uint64, units)
	var acc float64
	for r := range w {
		acc += w[r]
		unit := r
		if r >= exactRanks {
			unit = exactRanks + (r-exactRanks)/blockRanks
		}
		c.cdf[unit] = cdfPoint(acc/total, unit == units-1)
	}
}

// buildGuide makes the guide table: for each of the 2^guideBits slices of
// [0, 2^64), the first unit whose cumulative probability reaches it.
func (c *Corpus) buildGuide() {
	units := len(c.cdf)
	c.guide = make([]uint32, 1<<guideBits+1)
	r := 0
	for j := range c.guide {
		u := uint64(j) << (64 - guideBits)
		if j == 1<<guideBits {
			u = math.MaxUint64
		}
		for c.cdf[r] <= u && r < units-1 {
			r++
		}
		c.guide[j] = uint32(r)
	}
}

// buildLens tabulates the log-normal document lengths at lenTable
// quantiles.
func (c *Corpus) buildLens() {
	c.lens = make([]uint16, lenTable)
	for k := range c.lens {
		q := (float64(k) + 0.5) / lenTable
		z := math.Sqrt2 * math.Erfinv(2*q-1)
		n := math.Round(math.Exp(c.p.LenMu + c.p.LenSigma*z))
		c.lens[k] = uint16(max(1, min(n, 60000)))
	}
}

// plantRule picks the sentiment words and their weights in the planted
// rule, keeping the expected weight of a word near zero, and makes the
// cumulative Zipf weights of each polarity's words.
func (c *Corpus) plantRule(w []float64, total float64) {
	c.weight = make([]int16, sentEnd)
	var mean float64 // expected weight of a word, so far
	var lexW [2][]float64
	for r := sentFirst; r < sentEnd; r++ {
		h := mix(c.p.Seed ^ 0x5e47_1e47 ^ uint64(r)*0x9e3779b97f4a7c15)
		if h%sentEvery != 0 {
			continue
		}
		m := int16(1 + (h>>32)%sentMax)
		pol := 1 // positive
		if mean > 0 {
			m, pol = -m, 0
		}
		c.weight[r] = m
		mean += w[r] / total * float64(m)
		c.lex[pol] = append(c.lex[pol], int32(r))
		lexW[pol] = append(lexW[pol], w[r])
	}
	for pol, ws := range lexW {
		var sum, acc float64
		for _, x := range ws {
			sum += x
		}
		c.lexCDF[pol] = make([]uint64, len(ws))
		for k, x := range ws {
			acc += x
			c.lexCDF[pol][k] = cdfPoint(acc/sum, k == len(ws)-1)
		}
	}
}

// mix is splitmix64's finalizer: a bijection of uint64 that scrambles its
// bits.
func mix(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// rng is splitmix64.
type rng uint64

func (s *rng) next() uint64 {
	*s += 0x9e3779b97f4a7c15
	return mix(uint64(*s))
}

// docRNG is document i's stream of stream (0: training, 1: test).
func (c *Corpus) docRNG(stream, i uint64) rng {
	return rng(mix(mix(c.p.Seed^0xd1b54a32d192ed03) ^ mix(stream<<56^i)))
}

// rank draws a word's rank (0 the most frequent) by inverting the
// cumulative distribution at u. The guide table gives the units at the
// two ends of u's bucket; most buckets lie within one unit. In the others
// the cumulative distribution is nearly linear, so interpolating between
// the ends guesses the unit within a step or two, and a walk along cdf
// makes it exact: the smallest unit with cdf[unit] > u. (u's lowest bit
// is dropped, so u < 2^64−1, the last cdf, and the walk ends.) A unit
// past the exact ranks is a block, and where u falls within the block's
// share of [0, 2^64) picks the rank in it, each with an equal share.
func (c *Corpus) rank(u uint64) int {
	u &^= 1
	j := u >> (64 - guideBits)
	lo, hi := int(c.guide[j]), int(c.guide[j+1])
	if lo == hi && lo < exactRanks {
		return lo
	}
	est, _ := bits.Mul64(u<<guideBits, uint64(hi-lo+1))
	unit := lo + int(est)
	for c.cdf[unit] <= u {
		unit++
	}
	for unit > lo && c.cdf[unit-1] > u {
		unit--
	}
	if unit < exactRanks {
		return unit
	}
	first := exactRanks + (unit-exactRanks)*blockRanks
	size := min(blockRanks, c.p.Vocab-first)
	start, end := c.cdf[unit-1], c.cdf[unit]
	h, l := bits.Mul64(u-start, uint64(size))
	k, _ := bits.Div64(h, l, end-start) // < size, as u-start < end-start
	return first + int(k)
}

// Doc is what a document's drawing tells besides its text.
type Doc struct {
	Words   int  // words drawn (punctuation and paragraph breaks aside)
	Pos     bool // the label written
	Flipped bool // the label written is not the planted rule's
}

// Words are syllable strings: a word's rank, written in bijective base
// len(syllables) (one syllable for the 256 most frequent words, two for
// the next 65,536, three after), picks its syllables, and half the words
// of more than one syllable end in a consonant chosen by the rank. Every
// syllable is consonants then vowels, so a word splits into its syllables
// in one way only (before each consonant that follows a vowel), and two
// ranks never give the same word. The first syllables, those of the most
// frequent words, are the shortest; the text's words average about 4.0
// letters (imdb's tokens 4.3).
var syllables, codas = makeSyllables()

func makeSyllables() ([]string, []string) {
	onsets := []string{"t", "n", "s", "r", "h", "l", "d", "m", "w", "b", "c", "f", "g", "p", "y", "v", "k", "j", "z",
		"th", "st", "tr", "sh", "ch", "pr", "br", "pl", "gr", "cl", "fr", "dr", "bl", "cr", "sl", "sp"}
	nuclei := []string{"a", "e", "i", "o", "u", "ea", "ou", "ai", "oo", "ee", "ie", "au", "oi"}
	var syl []string
	for n := 2; len(syl) < 256; n++ {
		for _, v := range nuclei {
			for _, o := range onsets {
				if len(o)+len(v) == n && len(syl) < 256 {
					syl = append(syl, o+v)
				}
			}
		}
	}
	return syl, []string{"n", "s", "t", "r", "d", "l", "ng", "st"}
}

// The syllables and codas as little-endian words, to be stored 4 (2)
// bytes at a time, and their lengths.
var (
	sylCode  [256]uint32
	sylLen   [256]uint8
	codaCode [8]uint16
	codaLen  [8]uint8
)

func init() {
	for i, x := range syllables {
		var b [4]byte
		copy(b[:], x)
		sylCode[i], sylLen[i] = binary.LittleEndian.Uint32(b[:]), uint8(len(x))
	}
	for i, x := range codas {
		var b [2]byte
		copy(b[:], x)
		codaCode[i], codaLen[i] = binary.LittleEndian.Uint16(b[:]), uint8(len(x))
	}
}

// appendWord appends the word of rank r, its first letter in upper case
// when title is set.
func appendWord(b []byte, r int, title bool) []byte {
	// Bijective base 256: ranks 0..255 one syllable, the next 256² two…
	var digits [4]byte
	n := 0
	for x := r; ; {
		digits[n] = byte(x)
		n++
		x = x>>8 - 1
		if x < 0 {
			break
		}
	}
	// At most 4 syllables of 3 letters and a coda of 2: each store may
	// write 4 bytes, so 16 bytes of room.
	start := len(b)
	b = slices.Grow(b, 16)[:start+16]
	p := start
	for k := n - 1; k >= 0; k-- {
		d := digits[k&3]
		binary.LittleEndian.PutUint32(b[p:], sylCode[d])
		p += int(sylLen[d])
	}
	if n > 1 {
		if h := mix(uint64(r)); h&1 != 0 {
			c := h >> 1 & 7
			binary.LittleEndian.PutUint16(b[p:], codaCode[c])
			p += int(codaLen[c])
		}
	}
	if title {
		b[start] -= 'a' - 'A'
	}
	return b[:p]
}

// Text layout: after each word a comma with probability commaP/256, the
// end of a sentence with probability endP/256 ('.', or one time in 16
// each '!' and '?'), and after a sentence a paragraph break written as
// imdb writes it ("<br /><br />") with probability paraP/256. A sentence
// starts with a capital letter.
const (
	commaP = 17 // ≈ 1/15
	endP   = 15 // ≈ 1/17
	paraP  = 43 // ≈ 1/6
)

// scratch is what drawing a document reuses.
type scratch struct {
	tok []uint64 // per word: rank<<8 | layout bits
}

// Append appends document i of stream (0: training, 1: test) to dst as a
// JSONL line, {"label": "pos", "id": 7, "text": "..."}, and when ft is not
// nil to ft as a fastText line: "__label__pos " and the text lowercased
// with every punctuation mark a token of its own, as fastText's examples
// prepare text and bench/compare_text.sh converts it.
func (c *Corpus) Append(dst, ft []byte, stream, i uint64, s *scratch) ([]byte, []byte, Doc) {
	g := c.docRNG(stream, i)
	n := int(c.lens[g.next()%lenTable])
	// The ranks first, in a loop of their own, so that the processor
	// overlaps the table lookups of successive words.
	polarity := g.next() & 1
	s.tok = slices.Grow(s.tok[:0], n)[:n]
	for k := range s.tok {
		s.tok[k] = uint64(c.rank(g.next())) << 8
	}
	g = c.lean(g, s.tok, polarity)
	g, score := c.layout(g, s.tok)
	pos := score > 0
	flip := g.next() < uint64(c.p.Noise*(1<<63))*2
	d := Doc{Words: n, Pos: pos != flip, Flipped: flip}
	dst = appendJSONL(dst, i, d.Pos, s.tok)
	if ft != nil {
		ft = c.appendFastText(ft, d.Pos, s.tok)
	}
	return dst, ft, d
}

// lean replaces some of the words tok (ranks, shifted left 8 bits) by
// sentiment words, most of the document's polarity, drawn with g, which
// it returns advanced.
func (c *Corpus) lean(g rng, tok []uint64, polarity uint64) rng {
	for k := range tok {
		v := g.next()
		if v&0xff >= leanP {
			continue
		}
		pol := polarity
		if v>>8&0xff < otherP {
			pol ^= 1
		}
		u, cdf := v&^0xffff, c.lexCDF[pol]
		lo, hi := 0, len(cdf)-1
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if cdf[m] <= u {
				lo = m + 1
			} else {
				hi = m
			}
		}
		tok[k] = uint64(c.lex[pol][lo]) << 8
	}
	return g
}

// layout draws with g the punctuation after each word of tok into its
// low 8 bits (1 comma, 2 end of sentence, 4 '!', 8 '?', 16 paragraph
// break) and returns g advanced and the document's score under the
// planted rule.
func (c *Corpus) layout(g rng, tok []uint64) (rng, int64) {
	n := len(tok)
	var score int64
	for k, t := range tok {
		if r := t >> 8; r < sentEnd {
			score += int64(c.weight[r])
		}
		v := g.next()
		var layout uint64
		if v&0xff < commaP {
			layout |= 1 // comma
		}
		if v>>8&0xff < endP || k == n-1 {
			layout |= 2 // end of sentence
			switch v >> 16 & 0xf {
			case 0:
				layout |= 4 // '!'
			case 1:
				layout |= 8 // '?'
			}
			if v>>24&0xff < paraP && k < n-1 {
				layout |= 16 // paragraph break
			}
		}
		tok[k] = t | layout
	}
	return g, score
}

// appendJSONL appends document i, its label pos and words tok, as a
// JSONL line.
func appendJSONL(dst []byte, i uint64, pos bool, tok []uint64) []byte {
	dst = append(dst, `{"label": "`...)
	dst = append(dst, label(pos)...)
	dst = append(dst, `", "id": `...)
	dst = appendUint(dst, i)
	dst = append(dst, `, "text": "`...)
	title, space := true, false
	for _, t := range tok {
		if space {
			dst = append(dst, ' ')
		}
		space = true
		dst = appendWord(dst, int(t>>8), title)
		title = false
		if t&1 != 0 && t&2 == 0 {
			dst = append(dst, ',')
		}
		if t&2 != 0 {
			switch {
			case t&4 != 0:
				dst = append(dst, '!')
			case t&8 != 0:
				dst = append(dst, '?')
			default:
				dst = append(dst, '.')
			}
			title = true
			if t&16 != 0 {
				// imdb's breaks have no space after them.
				dst = append(dst, "<br /><br />"...)
				space = false
			}
		}
	}
	return append(dst, "\"}\n"...)
}

// appendFastText appends the document of label pos and words tok as a
// fastText line (see Append).
func (c *Corpus) appendFastText(dst []byte, pos bool, tok []uint64) []byte {
	dst = append(dst, "__label__"...)
	dst = append(dst, label(pos)...)
	for _, t := range tok {
		dst = append(dst, ' ')
		dst = appendWord(dst, int(t>>8), false)
		if t&1 != 0 && t&2 == 0 {
			dst = append(dst, " ,"...)
		}
		if t&2 != 0 {
			switch {
			case t&4 != 0:
				dst = append(dst, " !"...)
			case t&8 != 0:
				dst = append(dst, " ?"...)
			default:
				dst = append(dst, " ."...)
			}
			if t&16 != 0 {
				dst = append(dst, " < br / > < br / >"...)
			}
		}
	}
	return append(dst, '\n')
}

func label(pos bool) string {
	if pos {
		return "pos"
	}
	return "neg"
}

func appendUint(b []byte, x uint64) []byte {
	var d [20]byte
	k := len(d)
	for {
		k--
		d[k] = byte('0' + x%10)
		x /= 10
		if x == 0 {
			break
		}
	}
	return append(b, d[k:]...)
}
