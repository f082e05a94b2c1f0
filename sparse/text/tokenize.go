package text

import (
	"math/bits"
	"unicode"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
)

// Byte classes for the tokenizer.
const (
	sep   = iota // ASCII, not part of a token
	word         // ASCII lowercase letter or digit: stands for itself
	upper        // ASCII uppercase letter: lowered
	high         // ≥ 0x80: part of a multibyte rune, or invalid UTF-8
)

var byteClass = func() (t [256]uint8) {
	for c := '0'; c <= '9'; c++ {
		t[c] = word
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = word
		t[c-'a'+'A'] = upper
	}
	for c := utf8.RuneSelf; c < 256; c++ {
		t[c] = high
	}
	return t
}()

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// tokenizer splits text into tokens: maximal runs of letters and digits
// (unicode.IsLetter, unicode.IsDigit), lowercased with unicode.ToLower.
// Everything else, invalid UTF-8 included, separates tokens. A tokenizer
// belongs to one goroutine.
type tokenizer struct {
	buf []byte // the current token, when it had to be lowered
}

// next finds the first token of s at or after byte i. It returns ok =
// false when there is none. Otherwise the token is s[a:b] when lowered is
// false (it was already in lower case, as most text is, and is hashed in
// place) or t.buf when lowered is true; the search goes on at b.
func (t *tokenizer) next(s string, i int) (a, b int, lowered, ok bool) {
	// Skip separators.
	for i < len(s) {
		c := byteClass[s[i]]
		if c == word || c == upper {
			break
		}
		if c == sep {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if size > 1 && isWordRune(r) {
			break
		}
		i += size
	}
	if i >= len(s) {
		return i, i, false, false
	}
	a = i
	// Fast path: lowercase ASCII letters and digits.
	for i < len(s) && byteClass[s[i]] == word {
		i++
	}
	if i == len(s) || byteClass[s[i]] == sep {
		return a, i, false, true
	}
	// Slow path: the token has uppercase or non-ASCII letters; build its
	// lowered form in buf.
	t.buf = append(t.buf[:0], s[a:i]...)
	for i < len(s) {
		c := s[i]
		switch byteClass[c] {
		case word:
			t.buf = append(t.buf, c)
			i++
			continue
		case upper:
			t.buf = append(t.buf, c+'a'-'A')
			i++
			continue
		case sep:
			return a, i, true, true
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if size == 1 || !isWordRune(r) {
			break
		}
		t.buf = utf8.AppendRune(t.buf, unicode.ToLower(r))
		i += size
	}
	return a, i, true, true
}

// Tokenize returns the tokens of text as the featurizer sees them: the
// maximal runs of Unicode letters and digits, lowercased. Any other
// character, and every byte of invalid UTF-8, separates tokens. So
// "Ünïcödé ÉTÉ, it's 2024!" gives [ünïcödé été it s 2024].
func Tokenize(text string) []string {
	var t tokenizer
	var out []string
	for i := 0; ; {
		a, b, lowered, ok := t.next(text, i)
		if !ok {
			return out
		}
		if lowered {
			out = append(out, string(t.buf))
		} else {
			out = append(out, text[a:b])
		}
		i = b
	}
}

// Hashing. A token's hash is xxHash64 (seed 0) of its lowercased UTF-8
// bytes. An n-gram's hash mixes the hashes of its n tokens in order, so no
// n-gram string is ever built; see gramHash. These definitions are part of
// the saved format: changing them changes every feature index.

const (
	mixPrime1 uint64 = 0x9E3779B185EBCA87
	mixPrime2 uint64 = 0xC2B2AE3D27D4EB4F
	mixPrime3 uint64 = 0x165667B19E3779F9
)

// gramHash combines the token hashes h (oldest first, len(h) ≥ 2) into the
// hash of their n-gram. Each step multiplies and rotates, so the result
// depends on the order of the tokens, and the length enters the seed, so
// an n-gram and an (n+1)-gram never share a chain of states. A final
// avalanche spreads every input bit over all 64 output bits.
func gramHash(h []uint64) uint64 {
	g := uint64(len(h)) * mixPrime3
	for _, x := range h {
		g ^= x * mixPrime2
		g = bits.RotateLeft64(g, 31) * mixPrime1
	}
	g ^= g >> 33
	g *= mixPrime2
	g ^= g >> 29
	g *= mixPrime3
	g ^= g >> 32
	return g
}

// maxNGrams is the largest Config.NGrams.
const maxNGrams = 8

// gramWalker turns the tokens of a text into the hashes of its n-grams,
// for n from 1 to ngrams, in the order they end: after each token, the
// unigram, then the bigram ending with it, and so on.
type gramWalker struct {
	tok    tokenizer
	ngrams int
	recent [maxNGrams]uint64 // hashes of the last tokens, recent[0] oldest
	seen   int               // tokens so far, up to ngrams
}

// hashToken returns the hash of the token found by t.next.
func (t *tokenizer) hash(s string, a, b int, lowered bool) uint64 {
	if lowered {
		return xxhash.Sum64(t.buf)
	}
	return xxhash.Sum64String(s[a:b])
}

// push records a token hash and returns the window of the most recent
// hashes (oldest first), at most ngrams long.
func (w *gramWalker) push(h uint64) []uint64 {
	if w.seen < w.ngrams {
		w.recent[w.seen] = h
		w.seen++
	} else {
		copy(w.recent[:w.ngrams-1], w.recent[1:w.ngrams])
		w.recent[w.ngrams-1] = h
	}
	return w.recent[:w.seen]
}
