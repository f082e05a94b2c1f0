// The sparse gather and scatter kernels (dotInd, dotInd4, dotRows, axpyInd)
// and the validation of a row's indices (increasing).

package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// gather loads w[ind[k+0..lanes)] (indices at ip+off) into a fresh vector.
// With mask k (AVX-512 only) it loads only the masked lanes and leaves the
// others zero. A non-zero shift reads w[ind[k]<<shift] instead.
func gather(e elem, s isa, wp, ip reg.GPVirtual, off int, k reg.Register, shift uint8) reg.VecVirtual {
	dst := s.vec()
	e.xor(dst, dst, dst)
	var idx reg.VecVirtual
	idxBytes := s.lanes(e) * 4
	switch {
	case idxBytes == 64:
		idx = ZMM()
	case idxBytes == 32:
		idx = YMM()
	default:
		idx = XMM()
	}
	if s.avx512 {
		if k == nil {
			VMOVDQU32(Mem{Base: ip, Disp: off}, idx)
			k = K()
			KXNORW(k, k, k)
		} else {
			VMOVDQU32_Z(Mem{Base: ip, Disp: off}, k, idx)
			k2 := K()
			KMOVW(k, k2)
			k = k2
		}
		if shift != 0 {
			VPSLLD(U8(shift), idx, idx)
		}
		m := Mem{Base: wp, Index: idx, Scale: uint8(e.size)}
		if e.size == 4 {
			VGATHERDPS(m, k, dst)
		} else {
			VGATHERDPD(m, k, dst)
		}
		return dst
	}
	VMOVDQU(Mem{Base: ip, Disp: off}, idx)
	if shift != 0 {
		VPSLLD(U8(shift), idx, idx)
	}
	mask := s.vec()
	VPCMPEQD(mask, mask, mask)
	m := Mem{Base: wp, Index: idx, Scale: uint8(e.size)}
	if e.size == 4 {
		VGATHERDPS(mask, m, dst)
	} else {
		VGATHERDPD(mask, m, dst)
	}
	return dst
}

// genDotInd: func(val []T, ind []int32, w []T) T, Σ val[k]*w[ind[k]].
func genDotInd(e elem, s isa) {
	text("dotInd", e, s, fmt.Sprintf("func(val []%s, ind []int32, w []%s) %s", e.goT, e.goT, e.goT))
	vp := ldGP(Param("val").Base())
	ip := ldGP(Param("ind").Base())
	wp := ldGP(Param("w").Base())
	n := ldGP(Param("val").Len())
	r := dotIndLoop(e, s, vp, ip, wp, n, "", 0)
	VZEROUPPER()
	Store(r, ReturnIndex(0))
	RET()
}

// genDotInd4: func(val []float32, ind []int32, w []float32) float32,
// Σ val[k]*w[4·ind[k]]: the dot product with the weights of an interleaved
// layout that keeps each weight in every fourth float32 (the learners put
// the averaging accumulator beside it). The loop is dotIndLoop's, so the
// sum is bit-identical to dotInd's over the same weights packed densely.
func genDotInd4(e elem, s isa) {
	if e.size != 4 {
		return
	}
	text("dotInd4", e, s, "func(val []float32, ind []int32, w []float32) float32")
	vp := ldGP(Param("val").Base())
	ip := ldGP(Param("ind").Base())
	wp := ldGP(Param("w").Base())
	n := ldGP(Param("val").Len())
	r := dotIndLoop(e, s, vp, ip, wp, n, "", 2)
	VZEROUPPER()
	Store(r, ReturnIndex(0))
	RET()
}

// genDotRows: func(indptr []int64, ind []int32, val []T, w []T, out []T):
// out[r] = Σ val[k]*w[ind[k]] for k in [indptr[r], indptr[r+1]), every row
// of a CSR block in one call, so short rows pay no call overhead.
func genDotRows(e elem, s isa) {
	text("dotRows", e, s, fmt.Sprintf("func(indptr []int64, ind []int32, val []%s, w []%s, out []%s)", e.goT, e.goT, e.goT))
	pp := ldGP(Param("indptr").Base())
	ib := ldGP(Param("ind").Base())
	vb := ldGP(Param("val").Base())
	wp := ldGP(Param("w").Base())
	op := ldGP(Param("out").Base())
	rows := ldGP(Param("out").Len())
	Label("row")
	TESTQ(rows, rows)
	JZ(LabelRef("end"))
	start, n := GP64(), GP64()
	MOVQ(Mem{Base: pp}, start)
	MOVQ(Mem{Base: pp, Disp: 8}, n)
	SUBQ(start, n)
	vp, ip := GP64(), GP64()
	LEAQ(Mem{Base: vb, Index: start, Scale: uint8(e.size)}, vp)
	LEAQ(Mem{Base: ib, Index: start, Scale: 4}, ip)
	r := dotIndLoop(e, s, vp, ip, wp, n, "r", 0)
	e.movS(r, Mem{Base: op})
	ADDQ(U32(8), pp)
	ADDQ(U32(e.size), op)
	DECQ(rows)
	JMP(LabelRef("row"))
	Label("end")
	VZEROUPPER()
	RET()
}

// dotIndLoop emits Σ val[k]*w[ind[k]<<shift] over n elements at vp and
// ip, leaving the sum in lane 0 of the returned XMM register. It advances
// vp and ip and consumes n. Labels get prefix p so that it can be emitted
// inside an outer loop.
func dotIndLoop(e elem, s isa, vp, ip, wp, n reg.GPVirtual, p string, shift uint8) reg.VecVirtual {
	L, U := s.lanes(e), 2
	accs := zeroed(e, s, U)
	advance := func(elems int) {
		ADDQ(U32(elems*e.size), vp)
		ADDQ(U32(elems*4), ip)
		SUBQ(U32(elems), n)
	}
	Label(p + "loopU")
	CMPQ(n, U32(U*L))
	JL(LabelRef(p + "loop1"))
	for j := 0; j < U; j++ {
		g := gather(e, s, wp, ip, j*L*4, nil, shift)
		e.fma(Mem{Base: vp, Disp: j * s.bytes}, g, accs[j])
	}
	advance(U * L)
	JMP(LabelRef(p + "loopU"))

	Label(p + "loop1")
	CMPQ(n, U32(L))
	JL(LabelRef(p + "tail"))
	g := gather(e, s, wp, ip, 0, nil, shift)
	e.fma(Mem{Base: vp}, g, accs[0])
	advance(L)
	JMP(LabelRef(p + "loop1"))

	Label(p + "tail")
	if s.avx512 {
		TESTQ(n, n)
		JZ(LabelRef(p + "reduce"))
		k := tailMask(n)
		g := gather(e, s, wp, ip, 0, k, shift)
		v := s.vec()
		e.movuZ(Mem{Base: vp}, k, v)
		e.fma(v, g, accs[0])
		Label(p + "reduce")
		sumInto(e, accs)
		return hsum(e, s, accs[0])
	}
	sumInto(e, accs)
	r := hsum(e, s, accs[0])
	Label(p + "scalar")
	TESTQ(n, n)
	JZ(LabelRef(p + "done"))
	j := GP64()
	MOVLQSX(Mem{Base: ip}, j)
	if shift != 0 {
		SHLQ(U8(shift), j)
	}
	t := XMM()
	e.movS(Mem{Base: wp, Index: j, Scale: uint8(e.size)}, t)
	e.fmaS(Mem{Base: vp}, t, r)
	ADDQ(U32(e.size), vp)
	ADDQ(U32(4), ip)
	DECQ(n)
	JMP(LabelRef(p + "scalar"))
	Label(p + "done")
	return r
}

// scalarLoop4 emits the loop of the scalar sparse updates: one(j) for the
// element j places on, four a step while four are left, then one at a
// time, over n elements of a row whose values (size bytes each) are at vp
// and indices at ip. Its labels start with p; it jumps to "done" at the
// end.
func scalarLoop4(p string, n, vp, ip reg.GPVirtual, size int, one func(j int)) {
	Label(p + "loop4")
	CMPQ(n, U32(4))
	JL(LabelRef(p + "scalar"))
	for j := 0; j < 4; j++ {
		one(j)
	}
	ADDQ(U32(4*size), vp)
	ADDQ(U32(16), ip)
	SUBQ(U32(4), n)
	JMP(LabelRef(p + "loop4"))
	Label(p + "scalar")
	TESTQ(n, n)
	JZ(LabelRef("done"))
	one(0)
	ADDQ(U32(size), vp)
	ADDQ(U32(4), ip)
	DECQ(n)
	JMP(LabelRef(p + "scalar"))
}

// genAxpyInd: func(a T, val []T, ind []int32, w []T), w[ind[k]] += a*val[k].
// AVX2 has no scatter, so its loop is scalar FMA without bounds checks,
// unrolled by four; it handles repeated indices because each element's
// load, add and store happen in program order. The AVX-512 form gathers,
// multiplies and scatters whole vectors, which needs distinct indices.
func genAxpyInd(e elem, s isa) {
	text("axpyInd", e, s, fmt.Sprintf("func(a %s, val []%s, ind []int32, w []%s)", e.goT, e.goT, e.goT))
	ax := Load(Param("a"), XMM())
	vp := ldGP(Param("val").Base())
	ip := ldGP(Param("ind").Base())
	wp := ldGP(Param("w").Base())
	n := ldGP(Param("val").Len())
	if s.avx512 {
		L := s.lanes(e)
		va := s.vec()
		e.bcast(ax, va)
		scatter := func(g reg.VecVirtual, off int, k reg.Register) {
			var idx reg.VecVirtual
			switch L * 4 {
			case 64:
				idx = ZMM()
			default:
				idx = YMM()
			}
			k2 := K()
			if k == nil {
				VMOVDQU32(Mem{Base: ip, Disp: off}, idx)
				KXNORW(k2, k2, k2)
			} else {
				VMOVDQU32_Z(Mem{Base: ip, Disp: off}, k, idx)
				KMOVW(k, k2)
			}
			m := Mem{Base: wp, Index: idx, Scale: uint8(e.size)}
			if e.size == 4 {
				VSCATTERDPS(g, k2, m)
			} else {
				VSCATTERDPD(g, k2, m)
			}
		}
		Label("loop1")
		CMPQ(n, U32(L))
		JL(LabelRef("tail"))
		g := gather(e, s, wp, ip, 0, nil, 0)
		e.fma(Mem{Base: vp}, va, g)
		scatter(g, 0, nil)
		ADDQ(U32(L*e.size), vp)
		ADDQ(U32(L*4), ip)
		SUBQ(U32(L), n)
		JMP(LabelRef("loop1"))
		Label("tail")
		TESTQ(n, n)
		JZ(LabelRef("done"))
		k := tailMask(n)
		g = gather(e, s, wp, ip, 0, k, 0)
		v := s.vec()
		e.movuZ(Mem{Base: vp}, k, v)
		e.fma(v, va, g)
		scatter(g, 0, k)
		Label("done")
		VZEROUPPER()
		RET()
		return
	}
	one := func(j int) {
		r := GP64()
		MOVLQSX(Mem{Base: ip, Disp: 4 * j}, r)
		t := XMM()
		e.movS(Mem{Base: vp, Disp: e.size * j}, t)
		e.fma213S(Mem{Base: wp, Index: r, Scale: uint8(e.size)}, ax, t)
		e.movS(t, Mem{Base: wp, Index: r, Scale: uint8(e.size)})
	}
	scalarLoop4("", n, vp, ip, e.size, one)
	Label("done")
	VZEROUPPER()
	RET()
}

// genIncreasing: func(ind []int32) bool, whether every ind[k] < ind[k+1]
// (signed compares, so no difference can overflow): the test behind
// validating a sparse row's indices. It compares 16 neighbouring pairs a
// step with two overlapping loads and VPCMPGTD, ANDs the results into one
// register, and finishes the last pairs one at a time. It needs only
// AVX2, so it serves both tiers; a pass over a matrix's indices is bound
// by reading them, which wider vectors would not change.
func genIncreasing() {
	TEXT("increasingI32AVX2", NOSPLIT, "func(ind []int32) bool")
	Pragma("noescape")
	ip := ldGP(Param("ind").Base())
	n := ldGP(Param("ind").Len())
	ret := GP8()
	MOVB(U8(1), ret)
	// n becomes the number of pairs.
	CMPQ(n, U32(1))
	JLE(LabelRef("done"))
	DECQ(n)
	ok := YMM()
	VPCMPEQD(ok, ok, ok)
	Label("loop16")
	CMPQ(n, U32(16))
	JL(LabelRef("scalar"))
	for _, off := range []int{0, 32} {
		a, b := YMM(), YMM()
		VMOVDQU(Mem{Base: ip, Disp: off}, a)
		VMOVDQU(Mem{Base: ip, Disp: off + 4}, b)
		VPCMPGTD(a, b, b) // b > a, lane by lane
		VPAND(b, ok, ok)
	}
	ADDQ(U32(64), ip)
	SUBQ(U32(16), n)
	JMP(LabelRef("loop16"))
	Label("scalar")
	TESTQ(n, n)
	JZ(LabelRef("reduce"))
	x := GP32()
	MOVL(Mem{Base: ip}, x)
	CMPL(Mem{Base: ip, Disp: 4}, x)
	JLE(LabelRef("fail")) // ind[k+1] <= ind[k]
	ADDQ(U32(4), ip)
	DECQ(n)
	JMP(LabelRef("scalar"))
	Label("reduce")
	m := GP32()
	VPMOVMSKB(ok, m)
	CMPL(m, U32(0xffffffff))
	SETEQ(ret)
	VZEROUPPER()
	Label("done")
	Store(ret, ReturnIndex(0))
	RET()
	Label("fail")
	VZEROUPPER()
	MOVB(U8(0), ret)
	Store(ret, ReturnIndex(0))
	RET()
}
