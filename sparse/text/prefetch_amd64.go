//go:build amd64 && !noasm

package text

import "unsafe"

// prefetchGramSlots asks the processor to bring into cache the home slot,
// in a hash index of slots whose shift is shift, of each n-gram of
// grams: its lookup then finds the slot on its way. It is only a hint:
// it reads and writes nothing, and slots must hold at least the slot of
// every hash >> shift.
//
//go:noescape
func prefetchGramSlots(slots *hashSlot, shift uint, grams []gramRef)

// prefetchAt asks the processor to bring into cache the element k of an
// array of elements of 1<<shift bytes starting at base, for each k of
// ind. It is only a hint, as prefetchGramSlots is; every k must be an
// index of the array.
//
//go:noescape
func prefetchAt(base unsafe.Pointer, shift uint, ind []int32)

// prefetchVocabSlots asks the processor to bring into cache the home
// slot, in a vocabulary index of slots whose shift is shift, of each
// hash of hs. It is only a hint, as prefetchGramSlots is.
//
//go:noescape
func prefetchVocabSlots(slots *uint32, shift uint, hs []uint64)
