package text

import (
	"testing"
	"unsafe"
)

// The hint changes nothing, whatever the hashes (the ends of the table's
// slots included) or none; the counts it serves are those of a build
// without it (CI runs the tests with -tags noasm too).
func TestPrefetchGramSlotsTouchesNothing(t *testing.T) {
	if unsafe.Sizeof(termHot{}) != 1<<hotShift {
		t.Fatalf("a termHot takes %d bytes, not 1<<hotShift", unsafe.Sizeof(termHot{}))
	}
	var at hashIndex
	at.resize(100)
	grams := []gramRef{{h: 0}, {h: ^uint64(0)}, {h: 1 << 63}, {h: 12345}}
	prefetchGramSlots(&at.slots[0], at.shift, grams)
	prefetchGramSlots(&at.slots[0], at.shift, nil)
	for _, s := range at.slots {
		if s != (hashSlot{}) {
			t.Fatal("a slot changed")
		}
	}
	if grams[1].h != ^uint64(0) || grams[3].h != 12345 {
		t.Fatal("the n-grams changed")
	}
	hot := make([]termHot, 4)
	prefetchAt(unsafe.Pointer(&hot[0]), 3, []int32{0, 3, 1})
	prefetchAt(unsafe.Pointer(&hot[0]), 3, nil)
	vi := newVocabIndex(make([]uint64, 50))
	hs := []uint64{0, ^uint64(0), 1 << 63}
	prefetchVocabSlots(&vi.slots[0], vi.shift, hs)
	prefetchVocabSlots(&vi.slots[0], vi.shift, nil)
	idf := []float32{1, 2, 3}
	prefetchAt(unsafe.Pointer(&idf[0]), 2, []int32{0, 2, 1})
	prefetchAt(unsafe.Pointer(&idf[0]), 2, nil)
	if idf[0] != 1 || idf[1] != 2 || idf[2] != 3 {
		t.Fatal("the array changed")
	}
	for i := range hot {
		if hot[i] != (termHot{}) {
			t.Fatal("a term's statistics changed")
		}
	}
	for _, s := range vi.slots {
		if s != 0 {
			t.Fatal("a vocabulary slot changed")
		}
	}
}
