//go:build !amd64 || noasm

package text

// prefetchGramSlots is a hint that this build does not give.
func prefetchGramSlots(slots *hashSlot, shift uint, grams []gramRef) {}

// prefetchHot is a hint that this build does not give.
func prefetchHot(hot *termHot, ind []int32) {}

// prefetchVocabSlots is a hint that this build does not give.
func prefetchVocabSlots(slots *uint32, shift uint, hs []uint64) {}

// prefetchF32 is a hint that this build does not give.
func prefetchF32(base *float32, ind []int32) {}
