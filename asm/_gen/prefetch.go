// The prefetch hints: rows and the weights they will gather.

package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
)

// genPrefetch: func(ind []int32, val []float32), a PREFETCHT0 for every
// 64-byte line of a sparse row (one a 64 bytes from its start, and one
// for its last byte, whose line is one more when the row does not start
// on a line boundary), so that a row the learner visits a few
// steps later (in shuffled order) is in cache when it gets there. It needs
// only SSE, so it serves every tier; it reads nothing and cannot fault.
func genPrefetch() {
	TEXT("prefetchRow", NOSPLIT, "func(ind []int32, val []float32)")
	Pragma("noescape")
	ip := ldGP(Param("ind").Base())
	vp := ldGP(Param("val").Base())
	n := ldGP(Param("ind").Len())
	SHLQ(U8(2), n)
	off := GP64()
	XORQ(off, off)
	Label("loop")
	CMPQ(off, n)
	JGE(LabelRef("last"))
	PREFETCHT0(Mem{Base: ip, Index: off, Scale: 1})
	PREFETCHT0(Mem{Base: vp, Index: off, Scale: 1})
	ADDQ(U32(64), off)
	JMP(LabelRef("loop"))
	// A row that does not start on a line boundary may end in one line
	// past the last hint: hint its last byte too.
	Label("last")
	TESTQ(n, n)
	JZ(LabelRef("done"))
	PREFETCHT0(Mem{Base: ip, Index: n, Scale: 1, Disp: -1})
	PREFETCHT0(Mem{Base: vp, Index: n, Scale: 1, Disp: -1})
	Label("done")
	RET()

	// prefetchLines: func(p []uint32), the same for a row held in one
	// array (a packed row).
	TEXT("prefetchLines", NOSPLIT, "func(p []uint32)")
	Pragma("noescape")
	pp := ldGP(Param("p").Base())
	pn := ldGP(Param("p").Len())
	SHLQ(U8(2), pn)
	po := GP64()
	XORQ(po, po)
	Label("ploop")
	CMPQ(po, pn)
	JGE(LabelRef("plast"))
	PREFETCHT0(Mem{Base: pp, Index: po, Scale: 1})
	ADDQ(U32(64), po)
	JMP(LabelRef("ploop"))
	Label("plast")
	TESTQ(pn, pn)
	JZ(LabelRef("pdone"))
	PREFETCHT0(Mem{Base: pp, Index: pn, Scale: 1, Disp: -1})
	Label("pdone")
	RET()

	genPrefetchGather("prefetchGather", false)
	genPrefetchGather("prefetchGatherBlock", true)
}

// genPrefetchGather: func(ind []int32, w []float32, stride int), a
// PREFETCHT0 of w[j·stride] for every index j of a sparse row, so that the
// weights a row a couple of steps ahead will read are on their way; with
// block (prefetchGatherBlock), of every line of w[j·stride : (j+1)·stride]:
// the K weights of a multiclass learner's feature, which span two lines
// once K > 16. Like prefetchRow it cannot fault, whatever the indices;
// the caller keeps stride small (PrefetchGather's prefetchMaxBlock), so
// that a block is a few lines.
func genPrefetchGather(name string, block bool) {
	TEXT(name, NOSPLIT, "func(ind []int32, w []float32, stride int)")
	Pragma("noescape")
	ip := ldGP(Param("ind").Base())
	wp := ldGP(Param("w").Base())
	n := ldGP(Param("ind").Len())
	stride := ldGP(Param("stride"))
	if block {
		SHLQ(U8(2), stride) // in bytes
	}
	end := GP64()
	LEAQ(Mem{Base: ip, Index: n, Scale: 4}, end)
	j := GP64()
	Label("gloop")
	CMPQ(ip, end)
	JAE(LabelRef("gdone"))
	MOVLQSX(Mem{Base: ip}, j)
	IMULQ(stride, j)
	if !block {
		PREFETCHT0(Mem{Base: wp, Index: j, Scale: 4})
	} else {
		a, cnt := GP64(), GP64()
		LEAQ(Mem{Base: wp, Index: j, Scale: 1}, a)
		PREFETCHT0(Mem{Base: a})
		// The block's other lines, from the one after a's: there are
		// ((a mod 64) + stride − 4) / 64 of them. Counting them from these
		// small numbers, not comparing addresses, keeps the loop short
		// when a wild index puts the block where addresses wrap around.
		MOVQ(a, cnt)
		ANDQ(U8(63), cnt)
		LEAQ(Mem{Base: cnt, Index: stride, Scale: 1, Disp: -4}, cnt)
		SHRQ(U8(6), cnt)
		SHRQ(U8(6), a)
		SHLQ(U8(6), a)
		Label("lines")
		TESTQ(cnt, cnt)
		JZ(LabelRef("next"))
		ADDQ(U32(64), a)
		PREFETCHT0(Mem{Base: a})
		DECQ(cnt)
		JMP(LabelRef("lines"))
		Label("next")
	}
	ADDQ(U32(4), ip)
	JMP(LabelRef("gloop"))
	Label("gdone")
	RET()
}
