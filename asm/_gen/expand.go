// The expansion of a weight bitmap and the values of its set bits into
// dense weights, which a model file's sparse weights are read by.

package main

import (
	"math/bits"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
)

// genExpand: expandF32AVX2(dst, mask, vals) (nb, nv int, zero bool) sets
// dst 8 weights, one mask byte, at a time: the byte's set bits take the
// next values in order, its clear bits 0. A table gives each byte the
// permutation that moves value k to the lane of the byte's k-th set bit
// (VPERMD), and another the number of its set bits; the lanes of clear
// bits are zeroed by a mask made from the byte. It stops at the end of
// mask or of dst's whole bytes, or where fewer than 8 values are left to
// load (a load takes 8, however many it uses), so that it reads nothing
// past vals; ExpandF32 does the rest in Go. It returns the mask bytes
// done and the values taken, and whether any value taken has all its
// bits 0.
func genExpand() {
	perm := GLOBL("expandPerm", RODATA|NOPTR)
	for m := 0; m < 256; m++ {
		k := 0
		for j := 0; j < 8; j++ {
			v := 0
			if m>>j&1 != 0 {
				v, k = k, k+1
			}
			DATA(32*m+4*j, U32(v))
		}
	}
	count := GLOBL("expandCount", RODATA|NOPTR)
	for m := 0; m < 256; m++ {
		DATA(m, U8(bits.OnesCount8(uint8(m))))
	}
	bit := GLOBL("expandBit", RODATA|NOPTR)
	for j := 0; j < 8; j++ {
		DATA(4*j, U32(1<<j))
	}

	TEXT("expandF32AVX2", NOSPLIT, "func(dst []float32, mask []byte, vals []byte) (nb, nv int, zero bool)")
	Pragma("noescape")
	dp := ldGP(Param("dst").Base())
	dn := ldGP(Param("dst").Len())
	mp := ldGP(Param("mask").Base())
	mn := ldGP(Param("mask").Len())
	vp := ldGP(Param("vals").Base())
	vn := ldGP(Param("vals").Len())
	// dn: the bytes to do at most, min(len(mask), len(dst)/8); vn: the
	// last offset in vals 8 values can be loaded from (negative when
	// there are fewer than 8).
	SHRQ(U8(3), dn)
	CMPQ(mn, dn)
	CMOVQLT(mn, dn)
	SUBQ(U32(32), vn)
	pb, cb := GP64(), GP64()
	LEAQ(perm, pb)
	LEAQ(count, cb)
	bv, zv, acc := YMM(), YMM(), YMM()
	VMOVDQU(bit, bv)
	VPXOR(zv, zv, zv)
	VPXOR(acc, acc, acc)
	i, o := GP64(), GP64() // mask bytes done; offset of the next value
	XORQ(i, i)
	XORQ(o, o)

	Label("loop")
	CMPQ(i, dn)
	JGE(LabelRef("done"))
	CMPQ(o, vn)
	JG(LabelRef("done"))
	m, p := GP64(), GP64()
	MOVBQZX(Mem{Base: mp, Index: i, Scale: 1}, m)
	MOVQ(m, p)
	SHLQ(U8(5), p)
	idx, v := YMM(), YMM()
	VMOVDQU(Mem{Base: pb, Index: p, Scale: 1}, idx)
	VPERMD(Mem{Base: vp, Index: o, Scale: 1}, idx, v)
	// lane: all ones in the lanes of the byte's set bits.
	x, lane := XMM(), YMM()
	VMOVD(m.As32(), x)
	VPBROADCASTD(x, lane)
	VPAND(bv, lane, lane)
	VPCMPEQD(bv, lane, lane)
	VPAND(lane, v, v)
	z := YMM()
	VPCMPEQD(zv, v, z)
	VPAND(lane, z, z)
	VPOR(z, acc, acc)
	VMOVDQU(v, Mem{Base: dp})
	c := GP64()
	MOVBQZX(Mem{Base: cb, Index: m, Scale: 1}, c)
	LEAQ(Mem{Base: o, Index: c, Scale: 4}, o)
	ADDQ(U8(32), dp)
	INCQ(i)
	JMP(LabelRef("loop"))

	Label("done")
	r := GP8()
	VPTEST(acc, acc)
	SETNE(r)
	SHRQ(U8(2), o)
	Store(i, ReturnIndex(0))
	Store(o, ReturnIndex(1))
	Store(r, ReturnIndex(2))
	VZEROUPPER()
	RET()
}
