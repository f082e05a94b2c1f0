package text

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
)

// counterOf makes a term counter holding the given terms with their
// document frequencies, each under the hash hash gives it.
func counterOf(terms []string, dfs []int32, hash func(string) uint64) *termCounter {
	tc := &termCounter{}
	for k, t := range terms {
		h := hash(t)
		if _, ok := tc.at.get(h); ok {
			continue
		}
		tc.at.put(h, int32(len(tc.stats)))
		tc.stats = append(tc.stats, termStat{h: h, off: int64(len(tc.text)), n: int32(len(t))})
		tc.text = append(tc.text, t...)
		tc.hot = append(tc.hot, termHot{df: dfs[k]})
	}
	return tc
}

func TestMergeCandidatesMatchesAMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	// Hashes that crowd a few top-16-bit runs (so that the insertion
	// sort has work), the ends of the hash space and the rest at random.
	hash := func(s string) uint64 {
		h := xxhash.Sum64String(s)
		switch h % 4 {
		case 0:
			return h>>40 | 0x1234<<48
		case 1:
			if h%8 == 1 {
				return ^uint64(0) - h%5
			}
			return h % 7
		}
		return h
	}
	for _, workers := range []int{1, 2, 3, 8} {
		for _, minDF := range []int{1, 2, 5} {
			var counters []*termCounter
			want := map[uint64]int32{}
			text := map[uint64]string{}
			for range workers {
				n := rng.IntN(20000)
				terms := make([]string, n)
				dfs := make([]int32, n)
				seen := map[uint64]bool{}
				for i := range terms {
					terms[i] = "t" + strings.Repeat("x", rng.IntN(3)) + string(rune('a'+rng.IntN(26))) + string(rune('0'+rng.IntN(10))) + strings.Repeat("y", rng.IntN(40))
					dfs[i] = int32(1 + rng.IntN(4))
				}
				tc := counterOf(terms, dfs, hash)
				for i := range tc.stats {
					h := tc.stats[i].h
					if seen[h] {
						t.Fatal("a counter holds a hash twice")
					}
					seen[h] = true
					want[h] += tc.hot[i].df
					if _, ok := text[h]; !ok {
						text[h] = tc.term(int32(i)) // the first counter's
					}
				}
				counters = append(counters, tc)
			}
			got := mergeCandidates(counters, minDF, workers)
			var wantHs []uint64
			for h, df := range want {
				if int(df) >= minDF {
					wantHs = append(wantHs, h)
				}
			}
			slices.Sort(wantHs)
			if len(got) != len(wantHs) {
				t.Fatalf("workers %d, minDF %d: %d candidates, want %d", workers, minDF, len(got), len(wantHs))
			}
			for k, c := range got {
				h := wantHs[k]
				if c.h != h || c.df != want[h] || counters[c.c].term(c.i) != text[h] {
					t.Fatalf("workers %d, minDF %d: candidate %d is %x df %d %q, want %x df %d %q",
						workers, minDF, k, c.h, c.df, counters[c.c].term(c.i), h, want[h], text[h])
				}
			}
		}
	}
}

func TestCompareTermsIsStringOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte{0, 1, ' ', 'a', 'b', 0x7f, 0x80, 0xff}
	word := func() string {
		b := make([]byte, rng.IntN(13))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	ref := func(s string) termRef { return termRef{pre: prefixKey([]byte(s)), term: s} }
	for range 200000 {
		a, b := word(), word()
		if got, want := compareTerms(ref(a), ref(b)), strings.Compare(a, b); got != want {
			t.Fatalf("compareTerms(%q, %q) = %d, want %d", a, b, got, want)
		}
	}
	// Sorting, on one goroutine and in two merged halves.
	for _, n := range []int{0, 1, 100, 1 << 14, 50000} {
		words := make([]string, n)
		refs := make([]termRef, n)
		for i := range words {
			words[i] = word() + word()
			refs[i] = ref(words[i])
		}
		slices.Sort(words)
		for _, workers := range []int{1, 2} {
			got := sortTerms(slices.Clone(refs), workers)
			for i := range words {
				if got[i].term != words[i] {
					t.Fatalf("n %d, workers %d: term %d is %q, want %q", n, workers, i, got[i].term, words[i])
				}
			}
		}
	}
}

// A counter that pruned its rarest terms counted those it met again
// afresh: its counts at or below its floor are left out of the
// candidates, whatever MinDF, while an unpruned counter's count only
// MinDF.
func TestMergeCandidatesLeaveOutCountsBelowTheFloor(t *testing.T) {
	terms := []string{"a", "b", "c", "d"}
	dfs := []int32{1, 3, 4, 9}
	for _, floor := range []int32{0, 1, 3, 8, 9} {
		tc := counterOf(terms, dfs, xxhash.Sum64String)
		tc.floor = floor
		got := map[string]int32{}
		for _, c := range mergeCandidates([]*termCounter{tc}, 2, 1) {
			got[tc.term(c.i)] = c.df
		}
		for k, term := range terms {
			_, kept := got[term]
			if want := dfs[k] >= 2 && dfs[k] > floor; kept != want {
				t.Errorf("floor %d: %q in %d documents kept %v, want %v", floor, term, dfs[k], kept, want)
			}
		}
	}
}
