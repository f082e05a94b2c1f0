package text

import "math/bits"

// hashIndex maps 64-bit term hashes to int32 values: an open-addressing
// table with linear probing, at most half full, whose slots hold the key
// beside the value so that a lookup usually touches one cache line. The
// keys are already well-mixed hashes, so their top bits pick the slot.
type hashIndex struct {
	slots []hashSlot // len a power of two, or 0
	n     int
	shift uint // 64 − log2(len(slots))
}

type hashSlot struct {
	h uint64
	v int32 // value + 1; 0 marks an empty slot
}

// newHashIndex returns a table with room for n keys.
func newHashIndex(n int) hashIndex {
	var t hashIndex
	t.resize(n)
	return t
}

func (t *hashIndex) resize(n int) {
	size := 8
	if n > 3 {
		size = max(size, 1<<bits.Len(uint(2*n-1)))
	}
	old := t.slots
	t.slots = make([]hashSlot, size)
	t.shift = uint(64 - bits.TrailingZeros(uint(size)))
	t.n = 0
	for _, s := range old {
		if s.v != 0 {
			t.put(s.h, s.v-1)
		}
	}
}

// get returns the value of h.
func (t *hashIndex) get(h uint64) (int32, bool) {
	if len(t.slots) == 0 {
		return 0, false
	}
	mask := len(t.slots) - 1
	for i := int(h >> t.shift); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.v == 0 {
			return 0, false
		}
		if s.h == h {
			return s.v - 1, true
		}
	}
}

// put sets the value of h, which must not be in the table yet.
func (t *hashIndex) put(h uint64, v int32) {
	if 2*(t.n+1) > len(t.slots) {
		t.resize(2 * (t.n + 1))
	}
	mask := len(t.slots) - 1
	i := int(h >> t.shift)
	for t.slots[i].v != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = hashSlot{h, v + 1}
	t.n++
}

// len returns the number of keys.
func (t *hashIndex) len() int { return t.n }

// buildHashIndex returns the index of hs, key hs[i] with value i, made at
// its final size in one pass. A key's slot is picked by its top bits, so
// inserting the keys in random order touches a random cache line (and,
// for a large table, page) each time; the keys are first grouped by the
// region of the table their slots lie in, a counting sort, so that the
// inserts then walk the table from one end to the other. The result is
// the same mapping as putting the keys one by one. dup is −1 when the
// keys are distinct, else the i of a key equal to an earlier one.
func buildHashIndex(hs []uint64) (t hashIndex, dup int) {
	t.resize(len(hs))
	if len(hs) < 1<<12 {
		for i, h := range hs {
			if _, ok := t.get(h); ok {
				return t, i
			}
			t.put(h, int32(i))
		}
		return t, -1
	}
	// 2^rb regions of the table, about 256 slots (4 KiB) each.
	rb := min(bits.TrailingZeros(uint(len(t.slots)))-8, 16)
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
	// Keys are distinct unless a probe meets an equal one; of such a pair
	// the later is reported (the least seen, for a stable message).
	dup = -1
	mask := len(t.slots) - 1
	for _, i := range order {
		h := hs[i]
		j := int(h >> t.shift)
		for ; t.slots[j].v != 0; j = (j + 1) & mask {
			if t.slots[j].h == h {
				if d := max(int(i), int(t.slots[j].v-1)); dup < 0 || d < dup {
					dup = d
				}
				break
			}
		}
		if t.slots[j].v == 0 {
			t.slots[j] = hashSlot{h, i + 1}
			t.n++
		}
	}
	return t, dup
}
