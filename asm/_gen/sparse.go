// The sparse gather and scatter kernels (dotInd, dotInd4, dotRows, axpyInd)
// and the validation of a row's indices (increasing).

package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// limits is the bound a sparse kernel checks every index against before
// it touches w: an index j is good when 0 <= j < lim as int32 compares it,
// which the kernels test as the unsigned j < lim (a negative index is
// then a huge one). gp holds lim for the scalar loads; vec holds it
// broadcast to every lane of an index vector, for the gathers: AVX2
// keeps lim−1 there (its check is an unsigned max), AVX-512 lim itself.
// The caller guarantees 1 <= lim <= 2³¹.
type limits struct {
	gp  reg.GPVirtual
	vec reg.VecVirtual
}

// idxVec allocates a register as wide as the indices of one vector of e.
func idxVec(e elem, s isa) reg.VecVirtual {
	switch s.lanes(e) * 4 {
	case 64:
		return ZMM()
	case 32:
		return YMM()
	}
	return XMM()
}

// loadLimits loads the lim argument and broadcasts it for the gathers.
func loadLimits(e elem, s isa) limits {
	l := limits{gp: ldGP(Param("lim")), vec: idxVec(e, s)}
	if s.avx512 {
		VPBROADCASTD(l.gp.As32(), l.vec)
		return l
	}
	m := GP64()
	LEAQ(Mem{Base: l.gp, Disp: -1}, m)
	x := XMM()
	MOVQ(m, x)
	VPBROADCASTD(x, l.vec)
	return l
}

// checkVec jumps to "bad" unless every lane of the index vectors idxs
// (masked by k on AVX-512, when k is not nil) is below lim. Their lane
// maximum m is what is compared, so that one compare and branch serve
// the unrolled loop's vectors. AVX2: with m = max(m, lim−1), some index
// is at least lim exactly when m has a bit that lim−1 lacks, which
// VPTEST reports in CF. AVX-512: an unsigned compare into a mask.
func checkVec(s isa, l limits, idxs []reg.VecVirtual, k reg.Register) {
	m := idxs[0]
	if len(idxs) > 1 || !s.avx512 {
		m = likeVec(idxs[0])
		if len(idxs) == 1 {
			VPMAXUD(l.vec, idxs[0], m)
		} else {
			VPMAXUD(idxs[1], idxs[0], m)
			for _, x := range idxs[2:] {
				VPMAXUD(x, m, m)
			}
			if !s.avx512 {
				VPMAXUD(l.vec, m, m)
			}
		}
	}
	if s.avx512 {
		bad := K()
		if k == nil {
			VPCMPUD(U8(5), l.vec, m, bad) // m ≥ lim, unsigned
		} else {
			VPCMPUD(U8(5), l.vec, m, k, bad)
		}
		KORTESTW(bad, bad)
		JNZ(LabelRef("bad"))
		return
	}
	VPTEST(m, l.vec) // CF = (m &^ (lim−1)) == 0
	JCC(LabelRef("bad"))
}

// likeVec allocates a vector register as wide as v.
func likeVec(v reg.VecVirtual) reg.VecVirtual {
	switch v.Size() {
	case 64:
		return ZMM()
	case 32:
		return YMM()
	}
	return XMM()
}

// checkGP jumps to "bad" unless the sign-extended index j is below lim.
func checkGP(l limits, j reg.GPVirtual) {
	CMPQ(j, l.gp)
	JAE(LabelRef("bad"))
}

// loadIdx loads the indices of one vector of e at ip+off, only the lanes
// of mask k (AVX-512, when k is not nil; the others are zero).
func loadIdx(e elem, s isa, ip reg.GPVirtual, off int, k reg.Register) reg.VecVirtual {
	idx := idxVec(e, s)
	switch {
	case !s.avx512:
		VMOVDQU(Mem{Base: ip, Disp: off}, idx)
	case k == nil:
		VMOVDQU32(Mem{Base: ip, Disp: off}, idx)
	default:
		VMOVDQU32_Z(Mem{Base: ip, Disp: off}, k, idx)
	}
	return idx
}

// gather loads w[ind[k+0..lanes)] (indices at ip+off) into a fresh vector,
// after checking every index against l (see checkVec). With mask k
// (AVX-512 only) it loads only the masked lanes and leaves the others
// zero. A non-zero shift reads w[ind[k]<<shift] instead; the check is of
// the index before the shift.
func gather(e elem, s isa, wp, ip reg.GPVirtual, off int, k reg.Register, shift uint8, l limits) reg.VecVirtual {
	idx := loadIdx(e, s, ip, off, k)
	checkVec(s, l, []reg.VecVirtual{idx}, k)
	return gatherIdx(e, s, wp, idx, k, shift)
}

// gatherIdx loads w[idx<<shift] lane by lane (the lanes of k, when k is
// not nil), for indices already checked.
func gatherIdx(e elem, s isa, wp reg.GPVirtual, idx reg.VecVirtual, k reg.Register, shift uint8) reg.VecVirtual {
	dst := s.vec()
	e.xor(dst, dst, dst)
	if shift != 0 {
		VPSLLD(U8(shift), idx, idx)
	}
	m := Mem{Base: wp, Index: idx, Scale: uint8(e.size)}
	if s.avx512 {
		k2 := K()
		if k == nil {
			KXNORW(k2, k2, k2)
		} else {
			KMOVW(k, k2)
		}
		if e.size == 4 {
			VGATHERDPS(m, k2, dst)
		} else {
			VGATHERDPD(m, k2, dst)
		}
		return dst
	}
	mask := s.vec()
	VPCMPEQD(mask, mask, mask)
	if e.size == 4 {
		VGATHERDPS(mask, m, dst)
	} else {
		VGATHERDPD(mask, m, dst)
	}
	return dst
}

// insertLoads reports whether dotIndLoop builds its vectors of weights
// from scalar loads (insertLoad) rather than with a gather instruction:
// on AVX2 for float32. AMD's Zen cores run VGATHERDPS as many
// micro-operations at a low throughput; eight scalar loads merged with
// VINSERTPS issue faster there, and give the same vector, so the same
// sums bit for bit.
func insertLoads(e elem, s isa) bool { return !s.avx512 && e.size == 4 }

// insertLoad loads the eight float32 w[ind[k]<<shift] for the indices at
// ip+off, already checked, into one YMM register: a scalar load per
// lane, four into each 128-bit half (VMOVSS, then VINSERTPS from memory),
// the halves joined with VINSERTF128.
func insertLoad(wp, ip reg.GPVirtual, off int, shift uint8) reg.VecVirtual {
	var half [2]reg.VecVirtual
	for h := range half {
		x := XMM()
		for q := 0; q < 4; q++ {
			j := GP64()
			MOVLQSX(Mem{Base: ip, Disp: off + 4*(4*h+q)}, j)
			if shift != 0 {
				SHLQ(U8(shift), j)
			}
			m := Mem{Base: wp, Index: j, Scale: 4}
			if q == 0 {
				VMOVSS(m, x)
			} else {
				VINSERTPS(U8(q<<4), m, x, x)
			}
		}
		half[h] = x
	}
	y := YMM()
	VINSERTF128(U8(1), half[1], half[0].AsY(), y)
	return y
}

// retBad emits the "bad" exit of a checked kernel: an index was out of
// range, nothing at or after it was read or written, and the kernel
// returns false in its result okResult (the Go wrapper then panics).
func retBad(okResult int, vzero bool) {
	Label("bad")
	if vzero {
		VZEROUPPER()
	}
	ok := GP8()
	MOVB(U8(0), ok)
	Store(ok, ReturnIndex(okResult))
	RET()
}

// retOK stores true in the result okResult.
func retOK(okResult int) {
	ok := GP8()
	MOVB(U8(1), ok)
	Store(ok, ReturnIndex(okResult))
}

// genDotInd: func(val []T, ind []int32, w []T, lim int) (T, bool),
// Σ val[k]*w[ind[k]], or false when some index is not in [0, lim); the
// caller passes lim = len(w), which must be in [1, 2³¹].
func genDotInd(e elem, s isa) {
	text("dotInd", e, s, fmt.Sprintf("func(val []%s, ind []int32, w []%s, lim int) (%s, bool)", e.goT, e.goT, e.goT))
	vp := ldGP(Param("val").Base())
	ip := ldGP(Param("ind").Base())
	wp := ldGP(Param("w").Base())
	n := ldGP(Param("val").Len())
	l := loadLimits(e, s)
	r := dotIndLoop(e, s, vp, ip, wp, n, "", 0, l)
	VZEROUPPER()
	Store(r, ReturnIndex(0))
	retOK(1)
	RET()
	retBad(1, true)
}

// genDotInd4: func(val []float32, ind []int32, w []float32, lim int)
// (float32, bool), Σ val[k]*w[4·ind[k]]: the dot product with the weights
// of an interleaved layout that keeps each weight in every fourth float32
// (the learners put the averaging accumulator beside it). The caller
// passes lim = ⌈len(w)/4⌉, the number of indices whose weight lies in w.
// The loop is dotIndLoop's, so the sum is bit-identical to dotInd's over
// the same weights packed densely.
func genDotInd4(e elem, s isa) {
	if e.size != 4 {
		return
	}
	text("dotInd4", e, s, "func(val []float32, ind []int32, w []float32, lim int) (float32, bool)")
	vp := ldGP(Param("val").Base())
	ip := ldGP(Param("ind").Base())
	wp := ldGP(Param("w").Base())
	n := ldGP(Param("val").Len())
	l := loadLimits(e, s)
	r := dotIndLoop(e, s, vp, ip, wp, n, "", 2, l)
	VZEROUPPER()
	Store(r, ReturnIndex(0))
	retOK(1)
	RET()
	retBad(1, true)
}

// genDotRows: func(indptr []int64, ind []int32, val []T, w []T, out []T,
// lim int) bool: out[r] = Σ val[k]*w[ind[k]] for k in [indptr[r],
// indptr[r+1]), every row of a CSR block in one call, so short rows pay no
// call overhead; false when some index is not in [0, lim). The caller
// checks the row pointers (they must not decrease, and lie in ind and
// val) and passes lim = len(w).
func genDotRows(e elem, s isa) {
	text("dotRows", e, s, fmt.Sprintf("func(indptr []int64, ind []int32, val []%s, w []%s, out []%s, lim int) bool", e.goT, e.goT, e.goT))
	pp := ldGP(Param("indptr").Base())
	ib := ldGP(Param("ind").Base())
	vb := ldGP(Param("val").Base())
	wp := ldGP(Param("w").Base())
	op := ldGP(Param("out").Base())
	rows := ldGP(Param("out").Len())
	l := loadLimits(e, s)
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
	r := dotIndLoop(e, s, vp, ip, wp, n, "r", 0, l)
	e.movS(r, Mem{Base: op})
	ADDQ(U32(8), pp)
	ADDQ(U32(e.size), op)
	DECQ(rows)
	JMP(LabelRef("row"))
	Label("end")
	VZEROUPPER()
	retOK(0)
	RET()
	retBad(0, true)
}

// dotIndLoop emits Σ val[k]*w[ind[k]<<shift] over n elements at vp and
// ip, leaving the sum in lane 0 of the returned XMM register, or jumps to
// "bad" before any load of w when an index is not below l (see gather and
// checkGP). It advances vp and ip and consumes n. Labels get prefix p so
// that it can be emitted inside an outer loop.
func dotIndLoop(e elem, s isa, vp, ip, wp, n reg.GPVirtual, p string, shift uint8, l limits) reg.VecVirtual {
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
	idxs := make([]reg.VecVirtual, U)
	for j := range idxs {
		idxs[j] = loadIdx(e, s, ip, j*L*4, nil)
	}
	checkVec(s, l, idxs, nil)
	for j, idx := range idxs {
		var g reg.VecVirtual
		if insertLoads(e, s) {
			g = insertLoad(wp, ip, j*L*4, shift)
		} else {
			g = gatherIdx(e, s, wp, idx, nil, shift)
		}
		e.fma(Mem{Base: vp, Disp: j * s.bytes}, g, accs[j])
	}
	advance(U * L)
	JMP(LabelRef(p + "loopU"))

	Label(p + "loop1")
	CMPQ(n, U32(L))
	JL(LabelRef(p + "tail"))
	var g reg.VecVirtual
	if insertLoads(e, s) {
		checkVec(s, l, []reg.VecVirtual{loadIdx(e, s, ip, 0, nil)}, nil)
		g = insertLoad(wp, ip, 0, shift)
	} else {
		g = gather(e, s, wp, ip, 0, nil, shift, l)
	}
	e.fma(Mem{Base: vp}, g, accs[0])
	advance(L)
	JMP(LabelRef(p + "loop1"))

	Label(p + "tail")
	if s.avx512 {
		TESTQ(n, n)
		JZ(LabelRef(p + "reduce"))
		k := tailMask(n)
		g := gather(e, s, wp, ip, 0, k, shift, l)
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
	checkGP(l, j)
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

// genAxpyInd: func(a T, val []T, ind []int32, w []T, lim int) bool,
// w[ind[k]] += a*val[k], or false at the first index not in [0, lim)
// (the elements before it updated, as a Go loop would leave them); the
// caller passes lim = len(w). AVX2 has no scatter, so the loop is scalar
// FMA, unrolled by four, with one compare of each index; it handles
// repeated indices because each element's load, add and store happen in
// program order. It serves the AVX-512 tier too: gathering, multiplying
// and scattering whole vectors loses to this loop on rows of typical
// length, and needs distinct indices.
func genAxpyInd(e elem, s isa) {
	if s.avx512 {
		return
	}
	text("axpyInd", e, s, fmt.Sprintf("func(a %s, val []%s, ind []int32, w []%s, lim int) bool", e.goT, e.goT, e.goT))
	ax := Load(Param("a"), XMM())
	vp := ldGP(Param("val").Base())
	ip := ldGP(Param("ind").Base())
	wp := ldGP(Param("w").Base())
	n := ldGP(Param("val").Len())
	l := limits{gp: ldGP(Param("lim"))}
	one := func(j int) {
		r := GP64()
		MOVLQSX(Mem{Base: ip, Disp: 4 * j}, r)
		checkGP(l, r)
		t := XMM()
		e.movS(Mem{Base: vp, Disp: e.size * j}, t)
		e.fma213S(Mem{Base: wp, Index: r, Scale: uint8(e.size)}, ax, t)
		e.movS(t, Mem{Base: wp, Index: r, Scale: uint8(e.size)})
	}
	scalarLoop4("", n, vp, ip, e.size, one)
	Label("done")
	VZEROUPPER()
	retOK(0)
	RET()
	retBad(0, true)
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
