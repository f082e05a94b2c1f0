//go:build amd64 && !noasm

#include "textflag.h"

// func prefetchGramSlots(slots *hashSlot, shift uint, grams []gramRef)
TEXT ·prefetchGramSlots(SB), NOSPLIT, $0-40
	MOVQ slots+0(FP), AX
	MOVQ shift+8(FP), CX
	MOVQ grams_base+16(FP), SI
	MOVQ grams_len+24(FP), DX
	TESTQ DX, DX
	JEQ  done

loop:
	MOVQ (SI), BX
	SHRQ CX, BX
	SHLQ $4, BX
	PREFETCHT0 (AX)(BX*1)
	ADDQ $16, SI
	DECQ DX
	JNE  loop

done:
	RET

// func prefetchAt(base unsafe.Pointer, shift uint, ind []int32)
TEXT ·prefetchAt(SB), NOSPLIT, $0-40
	MOVQ base+0(FP), AX
	MOVQ shift+8(FP), CX
	MOVQ ind_base+16(FP), SI
	MOVQ ind_len+24(FP), DX
	TESTQ DX, DX
	JEQ  atdone

atloop:
	MOVLQSX (SI), BX
	SHLQ CX, BX
	PREFETCHT0 (AX)(BX*1)
	ADDQ $4, SI
	DECQ DX
	JNE  atloop

atdone:
	RET

// func prefetchVocabSlots(slots *uint32, shift uint, hs []uint64)
TEXT ·prefetchVocabSlots(SB), NOSPLIT, $0-40
	MOVQ slots+0(FP), AX
	MOVQ shift+8(FP), CX
	MOVQ hs_base+16(FP), SI
	MOVQ hs_len+24(FP), DX
	TESTQ DX, DX
	JEQ  vocabdone

vocabloop:
	MOVQ (SI), BX
	SHRQ CX, BX
	PREFETCHT0 (AX)(BX*4)
	ADDQ $8, SI
	DECQ DX
	JNE  vocabloop

vocabdone:
	RET
