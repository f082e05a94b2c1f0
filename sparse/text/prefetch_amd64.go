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

// prefetchHot asks the processor to bring into cache the statistics
// hot[k] of each term k of ind, hot[0] being at hot. It is only a hint, as
// prefetchGramSlots is; every k must be a term of hot.
//
//go:noescape
func prefetchHot(hot *termHot, ind []int32)

// prefetchVocabSlots asks the processor to bring into cache the home
// slot, in a vocabulary index of slots whose shift is shift, of each
// hash of hs. It is only a hint, as prefetchGramSlots is.
//
//go:noescape
func prefetchVocabSlots(slots *uint32, shift uint, hs []uint64)

// prefetch4 asks the processor to bring into cache the element at index
// k of an array of 4-byte elements starting at base, for each k of ind.
// It is only a hint, as prefetchGramSlots is; every k must be an index of
// the array.
//
//go:noescape
func prefetch4(base unsafe.Pointer, ind []int32)
