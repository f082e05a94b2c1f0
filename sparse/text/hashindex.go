package text

import (
	"math/bits"
	"unsafe"
)

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

func (t *hashIndex) resize(n int) {
	size := 8
	if n > 3 {
		size = max(size, 1<<bits.Len(uint(2*n-1)))
	}
	old := t.slots
	t.slots = make([]hashSlot, size)
	touchPages(t.slots)
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
		// resize(n) makes room for n keys at most half full, so this
		// doubles the table (asking for 2n keys would quadruple it and
		// leave a large counter's table mostly empty).
		t.resize(t.n + 1)
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

// touchPages writes one slot of every memory page of slots. A large new
// table comes straight from the operating system, and probing reads a
// slot before writing it: the read would map the shared zero page, and
// the write after it would replace that mapping, which on a threaded
// process costs a TLB flush on every core. Writing first maps each page
// once, as private memory.
func touchPages(slots []hashSlot) {
	const perPage = 4096 / int(unsafe.Sizeof(hashSlot{}))
	for i := 0; i < len(slots); i += perPage {
		slots[i].v = 0
	}
}
