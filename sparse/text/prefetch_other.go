//go:build !amd64 || noasm

package text

import "unsafe"

// prefetchGramSlots is a hint that this build does not give.
func prefetchGramSlots(slots *hashSlot, shift uint, grams []gramRef) {}

// prefetchHot is a hint that this build does not give.
func prefetchHot(hot *termHot, ind []int32) {}

// prefetchVocabSlots is a hint that this build does not give.
func prefetchVocabSlots(slots *uint32, shift uint, hs []uint64) {}

// prefetch4 is a hint that this build does not give.
func prefetch4(base unsafe.Pointer, ind []int32) {}
