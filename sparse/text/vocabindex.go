package text

import (
	"math/bits"
	"slices"
)

// vocabIndex maps the hashes of a vocabulary's terms to their features:
// an open-addressing table with linear probing, at most half full, whose
// 32-bit slots hold a feature (plus one; 0 marks an empty slot), beside
// the terms' hashes by feature, which a lookup checks the key against.
// It takes 4 bytes a slot and 8 a term, where a table of hashes and
// values takes 16 a slot, and the hashes by feature are what a reader
// computes anyway. With fewer than 2²⁴ terms a slot's top 8 bits hold 8
// bits of its key's hash, so that a lookup that meets another key
// usually passes it without reading that key's hash. The keys are
// well-mixed hashes, so their top bits pick the slot.
type vocabIndex struct {
	slots []uint32 // len a power of two, or 0
	hs    []uint64 // hs[j]: the hash of feature j's term
	shift uint     // 64 − log2(len(slots))
	id    uint32   // the bits of a slot that hold the feature; the others are a tag
}

// vocabTagged is the most terms whose slots have tags (a variable that
// tests lower).
var vocabTagged = 1<<24 - 2

// newVocabIndex returns an empty table for the hashes hs, feature j's
// term's hs[j].
func newVocabIndex(hs []uint64) vocabIndex {
	size := 8
	if n := len(hs); n > 3 {
		size = max(size, 1<<bits.Len(uint(2*n-1)))
	}
	return vocabIndex{
		slots: make([]uint32, size),
		hs:    hs,
		shift: uint(64 - bits.TrailingZeros(uint(size))),
		id:    vocabID(len(hs)),
	}
}

// vocabID returns the bits of a slot that hold the feature for n terms:
// all of them, or with few enough terms the low 24, the top 8 holding
// the low 8 bits of the key's hash.
func vocabID(n int) uint32 {
	if n <= vocabTagged {
		return 1<<24 - 1
	}
	return 1<<32 - 1
}

// slot returns what the slot of feature j, whose hash is h, holds.
func (t *vocabIndex) slot(h uint64, j int32) uint32 {
	return uint32(h)<<24&^t.id | uint32(j+1)
}

// get returns the feature of the term whose hash is h. (An empty table,
// a zero vocabIndex, has no slot to start from.)
func (t *vocabIndex) get(h uint64) (int32, bool) {
	mask := len(t.slots) - 1
	for i := int(h>>t.shift) & mask; mask >= 0; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			break
		}
		if (s^uint32(h)<<24)&^t.id == 0 && t.hs[s&t.id-1] == h {
			return int32(s&t.id) - 1, true
		}
	}
	return 0, false
}

// len returns the number of terms.
func (t *vocabIndex) len() int { return len(t.hs) }

// byHash returns the features in the order of their hashes.
func (t *vocabIndex) byHash() []int32 {
	order := make([]int32, len(t.hs))
	for j := range order {
		order[j] = int32(j)
	}
	slices.SortFunc(order, func(a, b int32) int {
		ha, hb := t.hs[a], t.hs[b]
		if ha < hb {
			return -1
		}
		if ha > hb {
			return 1
		}
		return 0
	})
	return order
}

// buildVocabIndex returns the index of hs, feature j's term's hash hs[j],
// and −1; or, when two are equal, the greatest j of the least pair of
// them (the first term that collides with one before it). A key's slot
// is picked by its top bits, so inserting the keys in random order
// touches a random cache line (and, for a large table, page) each time;
// the keys are first grouped by the region of the table their slots lie
// in, a counting sort, so that the inserts then walk the table from one
// end to the other.
func buildVocabIndex(hs []uint64) (t vocabIndex, dup int) {
	t = newVocabIndex(hs)
	dup = -1
	mask := len(t.slots) - 1
	put := func(i int32) {
		h := hs[i]
		j := int(h >> t.shift)
		for ; t.slots[j] != 0; j = (j + 1) & mask {
			if o := t.slotID(t.slots[j]); hs[o] == h {
				if d := max(int(i), int(o)); dup < 0 || d < dup {
					dup = d
				}
				return
			}
		}
		t.slots[j] = t.slot(h, i)
	}
	if len(hs) < 1<<12 {
		for i := range hs {
			put(int32(i))
		}
		return t, dup
	}
	// 2^rb regions of the table, about 1024 slots (4 KiB) each.
	rb := min(bits.TrailingZeros(uint(len(t.slots)))-10, 16)
	shift := 64 - uint(rb)
	start := make([]int32, 1<<rb+1)
	for _, h := range hs {
		start[h>>shift+1]++
	}
	for r := 1; r < len(start); r++ {
		start[r] += start[r-1]
	}
	order := make([]int32, len(hs))
	for i, h := range hs {
		r := h >> shift
		order[start[r]] = int32(i)
		start[r]++
	}
	for _, i := range order {
		put(i)
	}
	return t, dup
}

// slotID returns the feature a full slot s holds.
func (t *vocabIndex) slotID(s uint32) int32 { return int32(s&t.id) - 1 }
