//go:build amd64 && !noasm

package text

// prefetchGramSlots asks the processor to bring into cache the home slot,
// in a hash index of slots whose shift is shift, of each n-gram of
// grams: its lookup then finds the slot on its way. It is only a hint:
// it reads and writes nothing, and slots must hold at least the slot of
// every hash >> shift.
//
//go:noescape
func prefetchGramSlots(slots *hashSlot, shift uint, grams []gramRef)
