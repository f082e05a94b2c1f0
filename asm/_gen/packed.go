// The dot product over a packed sparse row: each element one uint32, its
// feature index in the low sh bits and its value, a small non-negative
// integer, above them.

package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// genDotP32: func(p []uint32, sh, mask uint64, w []float32, lim int)
// (float32, bool), Σ float32(p[k]>>sh)·w[p[k]&mask], or false when some
// index is not in [0, lim) (before any weight is read at or after it); the
// caller passes mask = 1<<sh − 1, lim = len(w) and 1 <= sh <= 31. Its loop is dotIndLoop's
// for AVX2 and float32 (two accumulators of eight lanes, then one vector
// at a time, the vectors summed pairwise and across lanes, then a scalar
// FMA per remaining element), with each vector of values converted from
// the packed counts instead of loaded, so its sum is bit-identical to
// dotIndF32AVX2's over the unpacked row.
func genDotP32() {
	e, s := f32, avx2
	TEXT("dotP32F32AVX2", NOSPLIT, "func(p []uint32, sh, mask uint64, w []float32, lim int) (float32, bool)")
	Pragma("noescape")
	ip := ldGP(Param("p").Base())
	wp := ldGP(Param("w").Base())
	n := ldGP(Param("p").Len())
	sh := ldGP(Param("sh"))
	mask := ldGP(Param("mask"))
	l := loadLimits(e, s)
	// The mask broadcast, and the shift count in an XMM register for
	// VPSRLD. The moves are VEX-encoded: loadLimits has just written a
	// YMM register, and a legacy SSE instruction then costs some CPUs
	// a state transition on every call, hundreds of cycles.
	mx := XMM()
	VMOVQ(mask, mx)
	maskV := YMM()
	VPBROADCASTD(mx, maskV)
	shX := XMM()
	VMOVQ(sh, shX)

	L, U := 8, 2
	accs := zeroed(e, s, U)
	// unpack loads the packed vector at ip+off and returns its indices
	// and its values as float32.
	unpack := func(off int) (idx, val reg.VecVirtual) {
		raw := YMM()
		VMOVDQU(Mem{Base: ip, Disp: off}, raw)
		idx = YMM()
		VPAND(maskV, raw, idx)
		cnt := YMM()
		VPSRLD(shX, raw, cnt)
		val = YMM()
		VCVTDQ2PS(cnt, val)
		return idx, val
	}
	// weights loads w at the eight masked indices at ip+off, already
	// checked, as insertLoad does.
	weights := func(off int) reg.VecVirtual {
		var half [2]reg.VecVirtual
		for h := range half {
			x := XMM()
			for q := 0; q < 4; q++ {
				j := GP64()
				MOVL(Mem{Base: ip, Disp: off + 4*(4*h+q)}, j.As32())
				ANDQ(mask, j)
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
	advance := func(elems int) {
		ADDQ(U32(elems*4), ip)
		SUBQ(U32(elems), n)
	}
	Label("loopU")
	CMPQ(n, U32(U*L))
	JL(LabelRef("loop1"))
	idxs := make([]reg.VecVirtual, U)
	vals := make([]reg.VecVirtual, U)
	for j := range idxs {
		idxs[j], vals[j] = unpack(j * L * 4)
	}
	checkVec(s, l, idxs, nil)
	for j := range idxs {
		g := weights(j * L * 4)
		VFMADD231PS(vals[j], g, accs[j])
	}
	advance(U * L)
	JMP(LabelRef("loopU"))

	Label("loop1")
	CMPQ(n, U32(L))
	JL(LabelRef("tail"))
	idx, val := unpack(0)
	checkVec(s, l, []reg.VecVirtual{idx}, nil)
	g := weights(0)
	VFMADD231PS(val, g, accs[0])
	advance(L)
	JMP(LabelRef("loop1"))

	Label("tail")
	sumInto(e, accs)
	r := hsum(e, s, accs[0])
	Label("scalar")
	TESTQ(n, n)
	JZ(LabelRef("done"))
	j := GP64()
	MOVL(Mem{Base: ip}, j.As32())
	ANDQ(mask, j)
	checkGP(l, j)
	// The value: the element shifted and converted in lane 0 of a vector
	// (VMOVD clears the other lanes).
	v := XMM()
	VMOVD(Mem{Base: ip}, v)
	VPSRLD(shX, v, v)
	VCVTDQ2PS(v, v)
	t := XMM()
	VMOVSS(Mem{Base: wp, Index: j, Scale: 4}, t)
	VFMADD231SS(v, t, r)
	ADDQ(U32(4), ip)
	DECQ(n)
	JMP(LabelRef("scalar"))
	Label("done")
	VZEROUPPER()
	Store(r, ReturnIndex(0))
	retOK(1)
	RET()
	retBad(1, true)
}

// genAxpyAvgP32: func(a float32, ca float64, p []uint32, sh, mask uint64,
// w []float32, u []float64, lim int) bool, genAxpyAvg's update over a
// packed row: for every element, j = p[k]&mask and v = float32(p[k]>>sh),
// w[j] += a·v and u[j] += ca·float64(v), each product rounded before it is
// added; false at the first index not in [0, lim) (the elements before it
// updated). The caller passes lim = min(len(w), len(u)). packedLoop
// converts the values, eight at a time in one vector, and the scalar
// step of genAxpyAvg takes each from a register. One kernel serves both
// SIMD tiers.
func genAxpyAvgP32() {
	TEXT("axpyAvgP32F32AVX", NOSPLIT, "func(a float32, ca float64, p []uint32, sh, mask uint64, w []float32, u []float64, lim int) bool")
	Pragma("noescape")
	ax := Load(Param("a"), XMM())
	cx := Load(Param("ca"), XMM())
	ip, n, sh, mask := packedParams()
	wp := ldGP(Param("w").Base())
	up := ldGP(Param("u").Base())
	l := limits{gp: ldGP(Param("lim"))}
	shX := XMM()
	VMOVQ(sh, shX)
	// one updates with element k of the row at ip, whose value v
	// (converted) is in the low lane of x.
	one := func(k int, x reg.Register) {
		r := packedIndex(ip, mask, l, k)
		avgStep(ax, cx, x, Mem{Base: wp, Index: r, Scale: 4}, Mem{Base: up, Index: r, Scale: 8})
	}
	packedLoop(ip, n, shX, false, one)
	Label("done")
	VZEROUPPER()
	retOK(0)
	RET()
	retBad(0, true)
}

// packedParams loads the packed row's parameters p (its base and
// length), sh and mask, for genAxpyAvgP32 and genAxpyIndP32.
func packedParams() (ip, n, sh, mask reg.GPVirtual) {
	ip = ldGP(Param("p").Base())
	n = ldGP(Param("p").Len())
	sh = ldGP(Param("sh"))
	mask = ldGP(Param("mask"))
	return ip, n, sh, mask
}

// packedIndex loads element k of the packed row at ip, keeps its index
// (mask) and jumps to "bad" unless the index is below l.
func packedIndex(ip, mask reg.GPVirtual, l limits, k int) reg.GPVirtual {
	r := GP64()
	MOVL(Mem{Base: ip, Disp: 4 * k}, r.As32())
	ANDQ(mask, r)
	checkGP(l, r)
	return r
}

// packedLoop emits the loop of genAxpyAvgP32 and genAxpyIndP32 over the
// n elements of the packed row at ip, calling one(k, x) for element k of
// the current position with its value, shifted by shX and converted, in
// the low lane of x; it ends where the caller places Label("done"). The
// values of eight elements are shifted and converted in one vector, and
// each is moved to the low lane of a register by one shuffle; with own
// the first gets a register of its own too (a copy), for a one that
// overwrites x. (Storing the vector to the stack and loading the values
// back one at a time, the alternative, made the averaged kernel markedly
// slower on AMD's Zen 3: BenchmarkAxpyAvgP32F32.) The last elements are
// converted one at a time.
func packedLoop(ip, n reg.GPVirtual, shX reg.VecVirtual, own bool, one func(k int, x reg.Register)) {
	Label("loop8")
	CMPQ(n, U32(8))
	JL(LabelRef("scalar"))
	vals := YMM()
	VMOVDQU(Mem{Base: ip}, vals)
	VPSRLD(shX, vals, vals)
	VCVTDQ2PS(vals, vals)
	halves := [2]reg.Register{vals.AsX(), XMM()}
	VEXTRACTF128(U8(1), vals, halves[1])
	for h, x := range halves {
		for q := 0; q < 4; q++ {
			lane := x
			if q > 0 || own {
				t := XMM()
				switch q {
				case 0:
					VMOVAPS(x, t)
				case 1:
					VMOVSHDUP(x, t)
				case 2:
					VMOVHLPS(x, x, t)
				case 3:
					VPERMILPS(U8(0xff), x, t)
				}
				lane = t
			}
			one(4*h+q, lane)
		}
	}
	ADDQ(U32(32), ip)
	SUBQ(U32(8), n)
	JMP(LabelRef("loop8"))
	Label("scalar")
	TESTQ(n, n)
	JZ(LabelRef("done"))
	x := XMM()
	VMOVD(Mem{Base: ip}, x)
	VPSRLD(shX, x, x)
	VCVTDQ2PS(x, x)
	one(0, x)
	ADDQ(U32(4), ip)
	DECQ(n)
	JMP(LabelRef("scalar"))
}

// genAxpyIndP32: func(a float32, p []uint32, sh, mask uint64, w []float32,
// lim int) bool, genAxpyInd's update over a packed row: for every element
// in order, j = p[k]&mask and v = float32(p[k]>>sh), w[j] = fma(a, v, w[j])
// rounded once, as genAxpyInd's FMA rounds it; false at the first index
// not in [0, lim) (the elements before it updated). The caller passes
// lim = len(w). The values are converted and moved to registers by
// packedLoop, as for genAxpyAvgP32. One kernel serves both SIMD tiers.
func genAxpyIndP32() {
	TEXT("axpyIndP32F32AVX", NOSPLIT, "func(a float32, p []uint32, sh, mask uint64, w []float32, lim int) bool")
	Pragma("noescape")
	ax := Load(Param("a"), XMM())
	ip, n, sh, mask := packedParams()
	wp := ldGP(Param("w").Base())
	l := limits{gp: ldGP(Param("lim"))}
	shX := XMM()
	VMOVQ(sh, shX)
	// one updates with element k of the row at ip, whose value
	// (converted) is in the low lane of x, which it overwrites.
	one := func(k int, x reg.Register) {
		r := packedIndex(ip, mask, l, k)
		m := Mem{Base: wp, Index: r, Scale: 4}
		VFMADD213SS(m, ax, x)
		VMOVSS(x, m)
	}
	packedLoop(ip, n, shX, true, one)
	Label("done")
	VZEROUPPER()
	retOK(0)
	RET()
	retBad(0, true)
}

// genPackP32: func(dst []uint32, ind []int32, val []float32, sh uint64)
// bool packs the first len(val) rounded down to a multiple of eight
// elements, dst[k] = uint32(val[k])<<sh | uint32(ind[k]), eight at a time,
// and reports whether every one of them packed without loss: its index
// below 1<<sh (as unsigned, so negative ones fail) and its value a
// non-negative integer below 1<<(32−sh) whose float32 bits are those of
// its conversion back (which fails −0, NaN and fractions). The caller
// packs the rest and guarantees len(dst) >= len(val) = len(ind) and
// 1 <= sh <= 31.
func genPackP32() {
	TEXT("packP32AVX2", NOSPLIT, "func(dst []uint32, ind []int32, val []float32, sh uint64) bool")
	Pragma("noescape")
	dp := ldGP(Param("dst").Base())
	ip := ldGP(Param("ind").Base())
	vp := ldGP(Param("val").Base())
	n := ldGP(Param("val").Len())
	sh := ldGP(Param("sh"))
	shX, hiX := XMM(), XMM()
	VMOVQ(sh, shX)
	hi := GP64()
	MOVQ(U32(32), hi)
	SUBQ(sh, hi)
	VMOVQ(hi, hiX)
	ones := YMM()
	VPCMPEQD(ones, ones, ones)
	Label("loop")
	CMPQ(n, U32(8))
	JL(LabelRef("done"))
	idx, v, c, back, bad, t := YMM(), YMM(), YMM(), YMM(), YMM(), YMM()
	VMOVDQU(Mem{Base: ip}, idx)
	VMOVUPS(Mem{Base: vp}, v)
	VCVTTPS2DQ(v, c)
	VCVTDQ2PS(c, back)
	// Each value must convert back to its own bits.
	VPCMPEQD(v, back, back)
	VPTEST(ones, back) // CF = back is all ones
	JCC(LabelRef("bad"))
	// Indices below 1<<sh and counts below 1<<(32−sh), both unsigned.
	VPSRLD(shX, idx, bad)
	VPSRLD(hiX, c, t)
	VPOR(t, bad, bad)
	VPTEST(bad, bad)
	JNZ(LabelRef("bad"))
	VPSLLD(shX, c, c)
	VPOR(idx, c, c)
	VMOVDQU(c, Mem{Base: dp})
	ADDQ(U32(32), dp)
	ADDQ(U32(32), ip)
	ADDQ(U32(32), vp)
	SUBQ(U32(8), n)
	JMP(LabelRef("loop"))
	Label("done")
	VZEROUPPER()
	retOK(0)
	RET()
	retBad(0, true)
}

// genDotP32AVX512: genDotP32's function for the AVX-512 tier, whose loop
// is dotIndLoop's for AVX-512 and float32 (two accumulators of sixteen
// lanes gathered with VGATHERDPS, then one vector at a time, then a
// masked vector for the rest, summed pairwise and across lanes), with the
// values converted from the packed counts, so its sum is bit-identical to
// dotIndF32AVX512's over the unpacked row.
func genDotP32AVX512() {
	e, s := f32, avx512
	TEXT("dotP32F32AVX512", NOSPLIT, "func(p []uint32, sh, mask uint64, w []float32, lim int) (float32, bool)")
	Pragma("noescape")
	ip := ldGP(Param("p").Base())
	wp := ldGP(Param("w").Base())
	n := ldGP(Param("p").Len())
	sh := ldGP(Param("sh"))
	mask := ldGP(Param("mask"))
	l := loadLimits(e, s)
	maskV := ZMM()
	VPBROADCASTD(mask.As32(), maskV)
	shX := XMM()
	VMOVQ(sh, shX)
	L, U := 16, 2
	accs := zeroed(e, s, U)
	// unpack loads the packed vector at ip+off (only the lanes of k
	// when k is not nil, the others zero) and returns its indices and
	// its values as float32.
	unpack := func(off int, k reg.Register) (idx, val reg.VecVirtual) {
		raw := ZMM()
		if k == nil {
			VMOVDQU32(Mem{Base: ip, Disp: off}, raw)
		} else {
			VMOVDQU32_Z(Mem{Base: ip, Disp: off}, k, raw)
		}
		idx = ZMM()
		VPANDD(maskV, raw, idx)
		cnt := ZMM()
		VPSRLD(shX, raw, cnt)
		val = ZMM()
		VCVTDQ2PS(cnt, val)
		return idx, val
	}
	advance := func(elems int) {
		ADDQ(U32(elems*4), ip)
		SUBQ(U32(elems), n)
	}
	Label("loopU")
	CMPQ(n, U32(U*L))
	JL(LabelRef("loop1"))
	idxs := make([]reg.VecVirtual, U)
	vals := make([]reg.VecVirtual, U)
	for j := range idxs {
		idxs[j], vals[j] = unpack(j*L*4, nil)
	}
	checkVec(s, l, idxs, nil)
	for j, idx := range idxs {
		g := gatherIdx(e, s, wp, idx, nil, 0)
		VFMADD231PS(vals[j], g, accs[j])
	}
	advance(U * L)
	JMP(LabelRef("loopU"))

	Label("loop1")
	CMPQ(n, U32(L))
	JL(LabelRef("tail"))
	idx, val := unpack(0, nil)
	checkVec(s, l, []reg.VecVirtual{idx}, nil)
	g := gatherIdx(e, s, wp, idx, nil, 0)
	VFMADD231PS(val, g, accs[0])
	advance(L)
	JMP(LabelRef("loop1"))

	Label("tail")
	TESTQ(n, n)
	JZ(LabelRef("reduce"))
	k := tailMask(n)
	tidx, tval := unpack(0, k)
	checkVec(s, l, []reg.VecVirtual{tidx}, k)
	tg := gatherIdx(e, s, wp, tidx, k, 0)
	VFMADD231PS(tval, tg, accs[0])
	Label("reduce")
	sumInto(e, accs)
	r := hsum(e, s, accs[0])
	VZEROUPPER()
	Store(r, ReturnIndex(0))
	retOK(1)
	RET()
	retBad(1, true)
}

// genAxpyAvgP32AVX512: func(a float32, ca float64, p []uint32, sh, mask
// uint64, w []float32, u []float64, lim int) int, genAxpyAvgP32's update
// for the AVX-512 tier, sixteen elements at a time: the weights and the
// accumulators of a vector's indices are gathered, the rounded products
// added (VMULPS, then VADDPS; VCVTPS2PD and VMULPD, then VADDPD) and the
// sums scattered back. A scatter is the sequential update only where a
// vector's indices are distinct, so each vector is first checked to be
// strictly increasing (each lane below the next, unsigned) and below lim;
// the kernel stops before the first vector that is not, and before the
// last len(p) mod 16 elements, and returns how many elements it updated,
// a multiple of sixteen. The caller updates the rest with
// axpyAvgP32F32AVX, which also reports a bad index. The caller passes
// lim = min(len(w), len(u)), at most 1<<31.
func genAxpyAvgP32AVX512() {
	TEXT("axpyAvgP32F32AVX512", NOSPLIT, "func(a float32, ca float64, p []uint32, sh, mask uint64, w []float32, u []float64, lim int) int")
	Pragma("noescape")
	ip, n, sh, mask := packedParams()
	wp := ldGP(Param("w").Base())
	up := ldGP(Param("u").Base())
	lim := ldGP(Param("lim"))
	ax := Load(Param("a"), XMM())
	cx := Load(Param("ca"), XMM())
	aV, caV := ZMM(), ZMM()
	VBROADCASTSS(ax, aV)
	VBROADCASTSD(cx, caV)
	maskV, limV := ZMM(), ZMM()
	VPBROADCASTD(mask.As32(), maskV)
	VPBROADCASTD(lim.As32(), limV)
	shX := XMM()
	VMOVQ(sh, shX)
	done := GP64()
	XORQ(done, done)
	// ones stays all ones; each gather and scatter gets a copy of it as
	// the mask it clears. (A KXNORW of a fresh register with itself
	// would read it before it is written.)
	onesGP := GP32()
	MOVL(U32(0xffff), onesGP)
	ones := K()
	KMOVW(onesGP, ones)

	Label("loop")
	CMPQ(n, U32(16))
	JL(LabelRef("done"))
	raw := ZMM()
	VMOVDQU32(Mem{Base: ip}, raw)
	idx := ZMM()
	VPANDD(maskV, raw, idx)
	// next[i] = idx[i+1] (lane 15 gets idx[0], which the test ignores).
	next := ZMM()
	VALIGND(U8(1), idx, idx, next)
	inc, bad := K(), K()
	VPCMPUD(U8(1), next, idx, inc) // idx[i] < idx[i+1], unsigned
	VPCMPUD(U8(5), limV, idx, bad) // idx[i] ≥ lim, unsigned
	KORTESTW(bad, bad)
	JNZ(LabelRef("done"))
	incs := GP32()
	KMOVW(inc, incs)
	ORL(U32(0x8000), incs)
	CMPL(incs, U32(0xffff))
	JNE(LabelRef("done"))
	cnt := ZMM()
	VPSRLD(shX, raw, cnt)
	v := ZMM()
	VCVTDQ2PS(cnt, v)

	// addScattered adds the products prod to the elements of the array at
	// m (scale 4: float32; 8: float64) that m's indices name: a gather,
	// an add, a scatter, each under a fresh copy of ones.
	addScattered := func(m Mem, prod reg.VecVirtual) {
		x := ZMM()
		if m.Scale == 4 {
			VXORPS(x, x, x)
		} else {
			VXORPD(x, x, x)
		}
		kg, ks := K(), K()
		KMOVW(ones, kg)
		if m.Scale == 4 {
			VGATHERDPS(m, kg, x)
			VADDPS(prod, x, x)
		} else {
			VGATHERDPD(m, kg, x)
			VADDPD(prod, x, x)
		}
		KMOVW(ones, ks)
		if m.Scale == 4 {
			VSCATTERDPS(x, ks, m)
		} else {
			VSCATTERDPD(x, ks, m)
		}
	}

	// w[j] += float32(a·v)
	prod := ZMM()
	VMULPS(aV, v, prod)
	addScattered(Mem{Base: wp, Index: idx, Scale: 4}, prod)

	// u[j] += ca·float64(v), eight lanes at a time.
	for h := 0; h < 2; h++ {
		ih := idx.AsY()
		vh := v.AsY()
		if h == 1 {
			ih = YMM()
			VEXTRACTI64X4(U8(1), idx, ih)
			vh = YMM()
			VEXTRACTF64X4(U8(1), v, vh)
		}
		vd := ZMM()
		VCVTPS2PD(vh, vd)
		pd := ZMM()
		VMULPD(caV, vd, pd)
		addScattered(Mem{Base: up, Index: ih, Scale: 8}, pd)
	}
	ADDQ(U32(64), ip)
	SUBQ(U32(16), n)
	ADDQ(U32(16), done)
	JMP(LabelRef("loop"))

	Label("done")
	VZEROUPPER()
	Store(done, ReturnIndex(0))
	RET()
}
