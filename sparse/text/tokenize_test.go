package text

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestTokenize(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"empty", "", nil},
		{"spaces", "   \t\n ", nil},
		{"punctuation only", "!?.,;:-- ()[]{}'\"/\\@#$%^&*_+=<>|~`", nil},
		{"one word", "hello", []string{"hello"}},
		{"lowercased", "Hello WORLD", []string{"hello", "world"}},
		{"punctuation splits", "it's a well-known fact, isn't it?", []string{"it", "s", "a", "well", "known", "fact", "isn", "t", "it"}},
		{"digits", "in 2024 I paid 3.50 for 2x4s", []string{"in", "2024", "i", "paid", "3", "50", "for", "2x4s"}},
		{"underscore separates", "snake_case", []string{"snake", "case"}},
		{"html", "Great!<br /><br />Bad", []string{"great", "br", "br", "bad"}},
		{"accents", "Ünïcödé ÉTÉ", []string{"ünïcödé", "été"}},
		{"accented lowercase stays", "café naïve", []string{"café", "naïve"}},
		{"greek", "ΣΟΦΙΑ σοφία", []string{"σοφια", "σοφία"}},
		{"cyrillic", "Привет, МИР", []string{"привет", "мир"}},
		{"cjk", "日本語のテキスト", []string{"日本語のテキスト"}},
		{"non-ASCII digits", "٣٤ १२", []string{"٣٤", "१२"}},
		{"curly quotes split", "“Quoted” don’t", []string{"quoted", "don", "t"}},
		{"emoji splits", "good👍bad", []string{"good", "bad"}},
		{"combining mark splits", "e\u0301t\u0301e", []string{"e", "t", "e"}},
		{"invalid UTF-8 splits", "ab\xffcd\xc3", []string{"ab", "cd"}},
		{"invalid UTF-8 inside uppercase", "AB\xffCD", []string{"ab", "cd"}},
		{"truncated rune at end", "abc\xe2\x82", []string{"abc"}},
		{"encoded replacement char splits", "a\uFFFDb", []string{"a", "b"}},
		{"sharp s", "STRAẞE Straße", []string{"straße", "straße"}},
		{"dotted capital I", "İstanbul", []string{"istanbul"}},
		{"mixed case inside", "iPhone McDonald", []string{"iphone", "mcdonald"}},
		{"CRLF", "one\r\ntwo\r\n", []string{"one", "two"}},
		{"NUL", "a\x00b", []string{"a", "b"}},
		{"uppercase after lowercase run", "abcD efg", []string{"abcd", "efg"}},
		{"non-ASCII after lowercase run", "abcé.", []string{"abcé"}},
		{"separator rune after lowercase run", "abc’s", []string{"abc", "s"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Tokenize(tc.in)
			if !slices.Equal(got, tc.want) {
				t.Errorf("Tokenize(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// refTokenize is a plain reading of the tokenizer's definition.
func refTokenize(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = cur[:0]
		}
	}
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		s = s[size:]
		if (r == utf8.RuneError && size == 1) || !(unicode.IsLetter(r) || unicode.IsDigit(r)) {
			flush()
			continue
		}
		cur = append(cur, unicode.ToLower(r))
	}
	flush()
	return out
}

// randomText mixes ASCII, accented and other scripts, punctuation and
// invalid bytes.
func randomText(r *rand.Rand, n int) string {
	pieces := []string{"a", "b", "Z", "q", "7", " ", " ", ".", ",", "'", "é", "Ü", "ß", "Σ", "ж", "日", "’", "👍", "\u0301", "\xff", "\xc3", "\t", "\n", "_", "İ", "٣"}
	var sb strings.Builder
	for range n {
		sb.WriteString(pieces[r.IntN(len(pieces))])
	}
	return sb.String()
}

func TestTokenizeMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		s := randomText(r, r.IntN(40))
		if got, want := Tokenize(s), refTokenize(s); !slices.Equal(got, want) {
			t.Fatalf("Tokenize(%q) = %q, want %q", s, got, want)
		}
	}
}

func TestGramHashOrderAndLength(t *testing.T) {
	a, b, c := uint64(11), uint64(22), uint64(33)
	seen := map[uint64]string{a: "a", b: "b", c: "c"}
	for name, h := range map[string]uint64{
		"ab":  gramHash([]uint64{a, b}),
		"ba":  gramHash([]uint64{b, a}),
		"abc": gramHash([]uint64{a, b, c}),
		"aa":  gramHash([]uint64{a, a}),
		"bc":  gramHash([]uint64{b, c}),
	} {
		if prev, dup := seen[h]; dup {
			t.Errorf("gramHash of %s equals that of %s", name, prev)
		}
		seen[h] = name
	}
}

func TestSortKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 2, 31, 32, 33, 100, 1000, 5000} {
		for _, mask := range []uint32{1, 0xff, 0x1fffff, 0xffffffff} {
			a := make([]uint32, n)
			for i := range a {
				a[i] = r.Uint32() & mask
			}
			want := slices.Clone(a)
			slices.Sort(want)
			got := sortKeys(a, make([]uint32, n))
			if !slices.Equal(got, want) {
				t.Fatalf("n=%d mask=%#x: not sorted", n, mask)
			}
		}
	}
}

func TestHashIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var h hashIndex
	want := map[uint64]int32{}
	for i := range 5000 {
		k := r.Uint64()
		if i%7 == 0 {
			k = uint64(i) // small keys share top bits: long probe runs
		}
		if _, ok := want[k]; ok {
			continue
		}
		want[k] = int32(i)
		h.put(k, int32(i))
	}
	if h.len() != len(want) {
		t.Fatalf("len = %d, want %d", h.len(), len(want))
	}
	for k, v := range want {
		if got, ok := h.get(k); !ok || got != v {
			t.Fatalf("get(%d) = %d, %v; want %d", k, got, ok, v)
		}
	}
	for range 1000 {
		k := r.Uint64()
		if _, in := want[k]; !in {
			if _, ok := h.get(k); ok {
				t.Fatalf("get(%d) found a key never put", k)
			}
		}
	}
	var empty hashIndex
	if _, ok := empty.get(1); ok {
		t.Fatal("empty table found a key")
	}
}

// A hash index doubles when it fills to half, so that it is never more
// than twice the size its keys need: the least power of two (at least 8)
// with room for twice its keys.
func TestHashIndexGrowsByDoubling(t *testing.T) {
	var h hashIndex
	r := rand.New(rand.NewPCG(1, 2))
	for n := 1; n <= 100000; n++ {
		h.put(r.Uint64(), int32(n))
		want := 8
		for want < 2*n {
			want *= 2
		}
		if len(h.slots) != want {
			t.Fatalf("%d keys in %d slots, want %d", n, len(h.slots), want)
		}
	}
}
