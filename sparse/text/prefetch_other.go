//go:build !amd64 || noasm

package text

import "unsafe"

// prefetchGramSlots is a hint that this build does not give.
func prefetchGramSlots(slots *hashSlot, shift uint, grams []gramRef) {}

// prefetchAt is a hint that this build does not give.
func prefetchAt(base unsafe.Pointer, shift uint, ind []int32) {}

// prefetchVocabSlots is a hint that this build does not give.
func prefetchVocabSlots(slots *uint32, shift uint, hs []uint64) {}
