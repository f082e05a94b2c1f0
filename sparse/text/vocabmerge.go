package text

import (
	"math/bits"
	"slices"
	"sort"
	"strings"
	"sync"
	"unsafe"
)

// Merging the term counters of the workers into the vocabulary's
// candidates. Each counter's terms are listed in the order of their
// hashes, which their hash index almost gives (its slots follow the
// hashes' top bits), and the lists are merged range of hashes by range of
// hashes on every core: sequential reads, where adding one counter's
// terms to another's index took a cache miss or two a term.

// hashRef is a term of a counter: its hash, its number there and the
// documents it was counted in.
type hashRef struct {
	h  uint64
	i  int32
	df int32
}

// byHash lists tc's terms in increasing order of their hashes, reading
// its statistics in order: a radix sort on the top 16 bits of the hashes,
// a byte at a time, leaves runs of about len/65536 terms to an insertion
// sort.
func (tc *termCounter) byHash() []hashRef {
	n := len(tc.stats)
	a, b := make([]hashRef, n), make([]hashRef, n)
	for i := range tc.stats {
		a[i] = hashRef{tc.stats[i].h, int32(i), tc.hot[i].df}
	}
	for _, shift := range [2]uint{48, 56} {
		var count [257]int
		for _, r := range a {
			count[r.h>>shift&0xff+1]++
		}
		for d := 1; d < len(count); d++ {
			count[d] += count[d-1]
		}
		for _, r := range a {
			d := r.h >> shift & 0xff
			b[count[d]] = r
			count[d]++
		}
		a, b = b, a
	}
	for i := 1; i < n; i++ {
		r := a[i]
		j := i
		for ; j > 0 && a[j-1].h > r.h; j-- {
			a[j] = a[j-1]
		}
		a[j] = r
	}
	return a
}

// candidate is a term in at least MinDF documents of all the counters:
// its hash, document frequency, occurrences (with countCF) and where its
// text is, as counter c's term i.
type candidate struct {
	h  uint64
	cf int64
	df int32
	c  int32
	i  int32
}

// mergeCandidates merges the counters' terms and returns those counted in at
// least minDF documents in all, in increasing order of their hashes. Terms
// of the same hash are one term, as in a counter, whose text is that of
// the first counter holding it.
func mergeCandidates(counters []*termCounter, minDF int, workers int) []candidate {
	lists := make([][]hashRef, len(counters))
	var wg sync.WaitGroup
	for k, tc := range counters {
		wg.Go(func() { lists[k] = tc.byHash() })
	}
	wg.Wait()
	// Ranges of the hash space, several a worker so that an uneven range
	// does not hold the others up, each merged on its own.
	parts := 1
	for parts < 4*workers && parts < 256 {
		parts *= 2
	}
	out := make([][]candidate, parts)
	next := make(chan int, parts)
	for p := range parts {
		next <- p
	}
	close(next)
	for range min(workers, parts) {
		wg.Go(func() {
			for p := range next {
				out[p] = mergeRange(counters, lists, p, parts, minDF)
			}
		})
	}
	wg.Wait()
	return slices.Concat(out...)
}

// mergeRange merges the terms of the lists (counter k's in lists[k])
// whose hashes fall in part p of parts equal ranges, keeping those in at
// least minDF documents.
func mergeRange(counters []*termCounter, lists [][]hashRef, p, parts, minDF int) []candidate {
	shift := 64 - uint(bits.TrailingZeros(uint(parts)))
	lo, hi := make([]int, len(lists)), make([]int, len(lists))
	n := 0
	for k, l := range lists {
		lo[k], hi[k] = rangeStart(l, p, shift), len(l)
		if p+1 < parts {
			hi[k] = rangeStart(l, p+1, shift)
		}
		n = max(n, hi[k]-lo[k])
	}
	out := make([]candidate, 0, n/2)
	for {
		// The least hash at the heads of the lists.
		h, found := uint64(0), false
		for k, l := range lists {
			if lo[k] < hi[k] && (!found || l[lo[k]].h < h) {
				h, found = l[lo[k]].h, true
			}
		}
		if !found {
			return out
		}
		c := candidate{h: h, c: -1}
		floor := int32(0)
		for k, l := range lists {
			if lo[k] < hi[k] && l[lo[k]].h == h {
				i := l[lo[k]].i
				c.df += l[lo[k]].df
				floor = max(floor, counters[k].floor)
				if tc := counters[k]; tc.countCF {
					c.cf += tc.stats[i].cf
				}
				if c.c < 0 {
					c.c, c.i = int32(k), i
				}
				lo[k]++
			}
		}
		// A counter that dropped its rarest terms (prune) may have
		// counted a term afresh since: a count at or below its floor
		// says little of the term's frequency, and is left out.
		if int(c.df) >= minDF && c.df > floor {
			out = append(out, c)
		}
	}
}

// rangeStart returns the first index of l (sorted by hash) whose hash's
// top bits, h>>shift, are p or more.
func rangeStart(l []hashRef, p int, shift uint) int {
	return sort.Search(len(l), func(j int) bool { return l[j].h>>shift >= uint64(p) })
}

// termRef is a candidate kept for the vocabulary: its text, the text's
// first eight bytes as a big-endian number (zeros past its end) to order
// most pairs without comparing the strings, and its place among the
// candidates.
type termRef struct {
	pre  uint64
	term string
	i    int32
}

// termRefs returns the text of each candidate of cs in refs, in cs's
// order, each part of them (one a worker) with its texts in one block of
// memory.
func termRefs(counters []*termCounter, cs []candidate, workers int) []termRef {
	refs := make([]termRef, len(cs))
	parallelRange(len(cs), workers, func(lo, hi int) {
		total := 0
		for _, c := range cs[lo:hi] {
			total += int(counters[c.c].stats[c.i].n)
		}
		arena := make([]byte, 0, total)
		for k := lo; k < hi; k++ {
			c := cs[k]
			tc := counters[c.c]
			st := &tc.stats[c.i]
			off := len(arena)
			arena = append(arena, tc.text[st.off:st.off+int64(st.n)]...)
			b := arena[off:]
			refs[k] = termRef{pre: prefixKey(b), i: int32(k)}
			if len(b) > 0 {
				refs[k].term = unsafe.String(&b[0], len(b))
			}
		}
	})
	return refs
}

// compareTerms orders terms by their text, as strings.Compare does: where
// two pre differ, they differ at the first byte in which the texts, padded
// with zeros, differ, and a text that ends there (or has a zero there)
// sorts first either way; where they are equal the texts decide.
func compareTerms(a, b termRef) int {
	if a.pre != b.pre {
		if a.pre < b.pre {
			return -1
		}
		return 1
	}
	return strings.Compare(a.term, b.term)
}

// sortTerms sorts refs by compareTerms, in two halves on two goroutines
// that are then merged when there are many.
func sortTerms(refs []termRef, workers int) []termRef {
	if workers < 2 || len(refs) < 1<<14 {
		slices.SortFunc(refs, compareTerms)
		return refs
	}
	a, b := refs[:len(refs)/2], refs[len(refs)/2:]
	var wg sync.WaitGroup
	wg.Go(func() { slices.SortFunc(a, compareTerms) })
	slices.SortFunc(b, compareTerms)
	wg.Wait()
	out := make([]termRef, 0, len(refs))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if compareTerms(b[j], a[i]) < 0 {
			out = append(out, b[j])
			j++
		} else {
			out = append(out, a[i])
			i++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}
