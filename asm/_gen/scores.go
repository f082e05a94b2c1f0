// The class scores of a multiclass linear model (addScores).

package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// genAddScores: func(W []float32, ind []int32, val []float32, s []float32,
// lim int) bool, s[c] += val[k]·W[ind[k]·K + c] for c < K = len(s), k in
// order, or false, with s unchanged, when an index is not in [0, lim)
// (the first 32 classes pass over all the indices before anything is
// stored): the caller passes lim = len(W)/K ≥ 1. This is a
// multiclass learner's class scores, its K weights per feature stored
// together. AVX-512 only: s is taken 32 classes at a time in two ZMM
// accumulators (masked for the last classes), and every nonzero adds a
// broadcast value times its weights. The product is rounded before the
// add (VMULPS, VADDPS), as the Go loop does it, so every tier gives the
// same scores bit for bit.
func genAddScores() {
	wp, ib, vb, n, sp, K, kb, l := startAddScores("addScoresAVX512")
	c0 := GP64()
	XORQ(c0, c0)
	sixteen := GP64()
	MOVQ(U32(16), sixteen)
	Label("chunk")
	CMPQ(c0, K)
	JGE(LabelRef("done"))
	// Lanes in this chunk: r0 = min(K−c0, 16), r1 = min(max(K−c0−16, 0), 16).
	r0, r1 := GP64(), GP64()
	MOVQ(K, r0)
	SUBQ(c0, r0)
	MOVQ(r0, r1)
	CMPQ(r0, sixteen)
	CMOVQGT(sixteen, r0)
	SUBQ(sixteen, r1)
	zero := GP64()
	XORQ(zero, zero)
	CMPQ(r1, zero)
	CMOVQLT(zero, r1)
	CMPQ(r1, sixteen)
	CMOVQGT(sixteen, r1)
	k0, k1 := tailMask(r0), tailMask(r1)
	so := GP64()
	LEAQ(Mem{Base: sp, Index: c0, Scale: 4}, so)
	wc := GP64()
	LEAQ(Mem{Base: wp, Index: c0, Scale: 4}, wc)
	acc0, acc1 := ZMM(), ZMM()
	VMOVUPS_Z(Mem{Base: so}, k0, acc0)
	VMOVUPS_Z(Mem{Base: so, Disp: 64}, k1, acc1)
	i := GP64()
	XORQ(i, i)
	Label("nz")
	CMPQ(i, n)
	JGE(LabelRef("store"))
	j := GP64()
	MOVLQSX(Mem{Base: ib, Index: i, Scale: 4}, j)
	checkGP(l, j)
	IMULQ(kb, j)
	v := ZMM()
	VBROADCASTSS(Mem{Base: vb, Index: i, Scale: 4}, v)
	t0, t1 := ZMM(), ZMM()
	VMOVUPS_Z(Mem{Base: wc, Index: j, Scale: 1}, k0, t0)
	VMOVUPS_Z(Mem{Base: wc, Index: j, Scale: 1, Disp: 64}, k1, t1)
	VMULPS(v, t0, t0)
	VMULPS(v, t1, t1)
	VADDPS(t0, acc0, acc0)
	VADDPS(t1, acc1, acc1)
	INCQ(i)
	JMP(LabelRef("nz"))
	Label("store")
	VMOVUPS(acc0, k0, Mem{Base: so})
	VMOVUPS(acc1, k1, Mem{Base: so, Disp: 64})
	ADDQ(U32(32), c0)
	JMP(LabelRef("chunk"))
	Label("done")
	VZEROUPPER()
	retOK(0)
	RET()
	retBad(0, true)
}

// startAddScores begins the AddScores kernel name and loads its
// arguments: the bases of W, ind, val and s, the nonzeros n, the classes
// K, kb = 4K (a feature's weights, in bytes) and the index bound.
func startAddScores(name string) (wp, ib, vb, n, sp, K, kb reg.GPVirtual, l limits) {
	TEXT(name, NOSPLIT, "func(W []float32, ind []int32, val []float32, s []float32, lim int) bool")
	Pragma("noescape")
	wp = ldGP(Param("W").Base())
	ib = ldGP(Param("ind").Base())
	vb = ldGP(Param("val").Base())
	n = ldGP(Param("ind").Len())
	sp = ldGP(Param("s").Base())
	K = ldGP(Param("s").Len())
	l = limits{gp: ldGP(Param("lim"))}
	kb = GP64()
	MOVQ(K, kb)
	SHLQ(U8(2), kb)
	return
}

// genAddScoresAVX2: genAddScores's function for AVX2,
// addScoresAVX2(W, ind, val, s, lim) bool, with the same result bit for
// bit and the same guarantee that s is unchanged when an index is bad
// (the first 32 classes pass over all the indices before anything is
// stored). s is taken 32 classes at a time in up to four YMM
// accumulators; every nonzero adds its broadcast value times its weights
// to them. A chunk of fewer than 32 classes uses only the vectors it
// needs, and its last vector is masked (VMASKMOVPS touches no byte
// outside the mask, so nothing is read or written past s or W). Each
// product is rounded before the add (VMULPS then VADDPS), as the Go loop
// does.
func genAddScoresAVX2() {
	iota := GLOBL("addScoresIota", RODATA|NOPTR)
	for i := 0; i < 8; i++ {
		DATA(4*i, U32(i))
	}
	wp, ib, vb, n, sp, K, kb, l := startAddScores("addScoresAVX2")
	c0 := GP64()
	XORQ(c0, c0)
	rem := GP64()
	Label("chunk")
	MOVQ(K, rem)
	SUBQ(c0, rem) // classes left, > 0 inside the loop
	JLE(LabelRef("done"))
	CMPQ(rem, U32(24))
	JG(LabelRef("nv4"))
	CMPQ(rem, U32(16))
	JG(LabelRef("nv3"))
	CMPQ(rem, U32(8))
	JG(LabelRef("nv2"))
	JMP(LabelRef("nv1"))
	for nv := 4; nv >= 1; nv-- {
		p := fmt.Sprintf("nv%d", nv)
		Label(p)
		// Lanes in the last vector: min(rem − 8(nv−1), 8).
		rl := GP64()
		MOVQ(rem, rl)
		if nv > 1 {
			SUBQ(U32(8*(nv-1)), rl)
		}
		eight := GP64()
		MOVQ(U32(8), eight)
		CMPQ(rl, eight)
		CMOVQGT(eight, rl)
		x, mask := XMM(), YMM()
		VMOVD(rl.As32(), x)
		VPBROADCASTD(x, mask)
		VPCMPGTD(iota, mask, mask) // lane i: rl > i
		so, wc := GP64(), GP64()
		LEAQ(Mem{Base: sp, Index: c0, Scale: 4}, so)
		LEAQ(Mem{Base: wp, Index: c0, Scale: 4}, wc)
		acc := make([]reg.VecVirtual, nv)
		for q := range acc {
			acc[q] = YMM()
			if q < nv-1 {
				VMOVUPS(Mem{Base: so, Disp: 32 * q}, acc[q])
			} else {
				VMASKMOVPS(Mem{Base: so, Disp: 32 * q}, mask, acc[q])
			}
		}
		i := GP64()
		XORQ(i, i)
		Label(p + "nz")
		CMPQ(i, n)
		JGE(LabelRef(p + "store"))
		j := GP64()
		MOVLQSX(Mem{Base: ib, Index: i, Scale: 4}, j)
		checkGP(l, j)
		IMULQ(kb, j)
		v := YMM()
		VBROADCASTSS(Mem{Base: vb, Index: i, Scale: 4}, v)
		for q := range acc {
			t := YMM()
			m := Mem{Base: wc, Index: j, Scale: 1, Disp: 32 * q}
			if q < nv-1 {
				VMULPS(m, v, t)
			} else {
				VMASKMOVPS(m, mask, t)
				VMULPS(v, t, t)
			}
			VADDPS(t, acc[q], acc[q])
		}
		INCQ(i)
		JMP(LabelRef(p + "nz"))
		Label(p + "store")
		for q := range acc {
			if q < nv-1 {
				VMOVUPS(acc[q], Mem{Base: so, Disp: 32 * q})
			} else {
				VMASKMOVPS(acc[q], mask, Mem{Base: so, Disp: 32 * q})
			}
		}
		if nv == 4 {
			ADDQ(U32(32), c0)
			JMP(LabelRef("chunk"))
		} else {
			JMP(LabelRef("done"))
		}
	}
	Label("done")
	VZEROUPPER()
	retOK(0)
	RET()
	retBad(0, true)
}
