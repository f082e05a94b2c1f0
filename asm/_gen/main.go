// Command _gen writes hyperplane's amd64 kernels with avo. It lives in its
// own module so that users of hyperplane never download avo; run it through
// `go generate ./asm`, which writes one .s file and one stub file per kernel.
//
// Every kernel comes in float32 and float64, for two tiers: AVX2+FMA (YMM,
// scalar tails) and AVX-512 F+VL (ZMM, masked tails). Every function ends in
// VZEROUPPER: leaving the upper halves dirty makes the next SSE code pay
// for an AVX-to-SSE transition.
package main

import (
	"flag"
	"fmt"
	"os"

	. "github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/gotypes"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// elem describes one element type and the instructions that act on it.
type elem struct {
	name    string // F32 or F64, as in the function names
	goT     string // float32 or float64
	size    int    // bytes per element
	movu    func(ops ...Op)
	movuZ   func(m, k, r Op)
	fma     func(ops ...Op) // 231: acc += a*b
	fmaS    func(ops ...Op)
	fma213S func(ops ...Op) // 213: x = y*x + m
	movS    func(ops ...Op)
	add     func(ops ...Op)
	addS    func(ops ...Op)
	mul     func(ops ...Op)
	mulS    func(ops ...Op)
	xor     func(ops ...Op)
	bcast   func(ops ...Op)
}

var f32 = elem{
	name: "F32", goT: "float32", size: 4,
	movu: VMOVUPS, movuZ: VMOVUPS_Z, fma: VFMADD231PS, fmaS: VFMADD231SS, fma213S: VFMADD213SS,
	movS: VMOVSS, add: VADDPS, addS: VADDSS, mul: VMULPS, mulS: VMULSS, xor: VXORPS, bcast: VBROADCASTSS,
}

var f64 = elem{
	name: "F64", goT: "float64", size: 8,
	movu: VMOVUPD, movuZ: VMOVUPD_Z, fma: VFMADD231PD, fmaS: VFMADD231SD, fma213S: VFMADD213SD,
	movS: VMOVSD, add: VADDPD, addS: VADDSD, mul: VMULPD, mulS: VMULSD, xor: VXORPD, bcast: VBROADCASTSD,
}

// isa is one SIMD tier.
type isa struct {
	name   string // AVX2 or AVX512
	bytes  int    // vector width in bytes
	avx512 bool
	unroll int // independent accumulators / vectors per main-loop step
}

func (s isa) vec() reg.VecVirtual {
	if s.avx512 {
		return ZMM()
	}
	return YMM()
}

func (s isa) lanes(e elem) int { return s.bytes / e.size }

var (
	avx2   = isa{name: "AVX2", bytes: 32, unroll: 4}
	avx512 = isa{name: "AVX512", bytes: 64, avx512: true, unroll: 4}
)

func main() {
	kernel := flag.String("kernel", "", "kernel to generate: dot, axpy, scale, sumsq, dotind, dotind4, dotrows, axpyind, axpyavg, increasing, average, addscores, prefetch")
	flag.Parse()
	ConstraintExpr("amd64,!noasm")
	gens := map[string]func(elem, isa){
		"dot": genDot, "axpy": genAxpy, "scale": genScale, "sumsq": genSumSq,
		"dotind": genDotInd, "dotind4": genDotInd4, "dotrows": genDotRows, "axpyind": genAxpyInd,
	}
	if *kernel == "prefetch" {
		genPrefetch()
		Generate()
		return
	}
	if *kernel == "average" {
		for _, s := range []isa{avx2, avx512} {
			genAverage(s, false)
			genAverage(s, true)
		}
		Generate()
		return
	}
	if *kernel == "increasing" {
		genIncreasing()
		Generate()
		return
	}
	if *kernel == "axpyavg" {
		genAxpyAvg(false)
		genAxpyAvg(true)
		genAxpyAvgStride()
		Generate()
		return
	}
	if *kernel == "addscores" {
		genAddScores()
		Generate()
		return
	}
	g, ok := gens[*kernel]
	if !ok {
		fmt.Fprintf(os.Stderr, "_gen: unknown -kernel %q\n", *kernel)
		os.Exit(2)
	}
	for _, s := range []isa{avx2, avx512} {
		for _, e := range []elem{f32, f64} {
			g(e, s)
		}
	}

	Generate()
}

// zeroed allocates n vector registers and clears them.
func zeroed(e elem, s isa, n int) []reg.VecVirtual {
	rs := make([]reg.VecVirtual, n)
	for i := range rs {
		rs[i] = s.vec()
		e.xor(rs[i], rs[i], rs[i])
	}
	return rs
}

// sumInto adds accs pairwise into accs[0].
func sumInto(e elem, accs []reg.VecVirtual) {
	for step := 1; step < len(accs); step *= 2 {
		for i := 0; i+step < len(accs); i += 2 * step {
			e.add(accs[i+step], accs[i], accs[i])
		}
	}
}

// hsum reduces the vector v to its lane sum, left in lane 0 of the returned
// XMM register.
func hsum(e elem, s isa, v reg.VecVirtual) reg.VecVirtual {
	y := v.AsY().(reg.VecVirtual)
	if s.avx512 {
		hi := YMM()
		VEXTRACTF64X4(U8(1), v, hi)
		e.add(hi, y, y)
	}
	x := y.AsX().(reg.VecVirtual)
	hx := XMM()
	VEXTRACTF128(U8(1), y, hx)
	e.add(hx, x, x)
	t := XMM()
	VMOVHLPS(x, x, t)
	if e.size == 4 {
		e.add(t, x, x)
		VMOVSHDUP(x, t)
		e.addS(t, x, x)
	} else {
		e.addS(t, x, x)
	}
	return x
}

// tailMask loads a lane mask of the low n bits (n < lanes) into a fresh K register.
func tailMask(n reg.GPVirtual) reg.Register {
	ones, m := GP32(), GP32()
	MOVL(U32(0xffff), ones)
	BZHIL(n.As32(), ones, m)
	k := K()
	KMOVW(m, k)
	return k
}

// ldGP loads a pointer or length argument into a fresh general register.
func ldGP(c gotypes.Component) reg.GPVirtual {
	r := GP64()
	Load(c, r)
	return r
}

func name(kernel string, e elem, s isa) string { return kernel + e.name + s.name }

// text starts a kernel function. The slices never escape, which lets
// callers keep them on the stack.
func text(kernel string, e elem, s isa, sig string) {
	TEXT(name(kernel, e, s), NOSPLIT, sig)
	Pragma("noescape")
}

// genDot: func(x, y []T) T, Σ x[i]*y[i].
func genDot(e elem, s isa) {
	text("dot", e, s, fmt.Sprintf("func(x, y []%s) %s", e.goT, e.goT))
	xp := ldGP(Param("x").Base())
	yp := ldGP(Param("y").Base())
	n := ldGP(Param("x").Len())
	dotBody(e, s, func(off int) Mem { return Mem{Base: xp, Disp: off} }, func(off int) Mem { return Mem{Base: yp, Disp: off} },
		[]reg.GPVirtual{xp, yp}, n, false)
}

// genSumSq: func(x []T) T, Σ x[i]².
func genSumSq(e elem, s isa) {
	text("sumSq", e, s, fmt.Sprintf("func(x []%s) %s", e.goT, e.goT))
	xp := ldGP(Param("x").Base())
	n := ldGP(Param("x").Len())
	dotBody(e, s, func(off int) Mem { return Mem{Base: xp, Disp: off} }, nil, []reg.GPVirtual{xp}, n, true)
}

// dotBody emits the accumulate loop shared by dot and sumSq: square means
// y is x.
func dotBody(e elem, s isa, xm, ym func(int) Mem, ptrs []reg.GPVirtual, n reg.GPVirtual, square bool) {
	L, B, U := s.lanes(e), s.bytes, s.unroll
	accs := zeroed(e, s, U)
	fmaAt := func(acc reg.VecVirtual, off int) {
		t := s.vec()
		e.movu(xm(off), t)
		if square {
			e.fma(t, t, acc)
		} else {
			e.fma(ym(off), t, acc)
		}
	}
	advance := func(elems int) {
		for _, p := range ptrs {
			ADDQ(U32(elems*e.size), p)
		}
		SUBQ(U32(elems), n)
	}
	Label("loopU")
	CMPQ(n, U32(U*L))
	JL(LabelRef("loop1"))
	for j := 0; j < U; j++ {
		fmaAt(accs[j], j*B)
	}
	advance(U * L)
	JMP(LabelRef("loopU"))

	Label("loop1")
	CMPQ(n, U32(L))
	JL(LabelRef("tail"))
	fmaAt(accs[0], 0)
	advance(L)
	JMP(LabelRef("loop1"))

	Label("tail")
	if s.avx512 {
		TESTQ(n, n)
		JZ(LabelRef("reduce"))
		k := tailMask(n)
		t := s.vec()
		e.movuZ(xm(0), k, t)
		if square {
			e.fma(t, t, accs[0])
		} else {
			u := s.vec()
			e.movuZ(ym(0), k, u)
			e.fma(u, t, accs[0])
		}
		Label("reduce")
		sumInto(e, accs)
		r := hsum(e, s, accs[0])
		VZEROUPPER()
		Store(r, ReturnIndex(0))
		RET()
		return
	}
	sumInto(e, accs)
	r := hsum(e, s, accs[0])
	Label("scalar")
	TESTQ(n, n)
	JZ(LabelRef("done"))
	t := XMM()
	e.movS(xm(0), t)
	if square {
		e.fmaS(t, t, r)
	} else {
		e.fmaS(ym(0), t, r)
	}
	for _, p := range ptrs {
		ADDQ(U32(e.size), p)
	}
	DECQ(n)
	JMP(LabelRef("scalar"))
	Label("done")
	VZEROUPPER()
	Store(r, ReturnIndex(0))
	RET()
}

// genAxpy: func(a T, x, y []T), y[i] += a*x[i].
func genAxpy(e elem, s isa) {
	text("axpy", e, s, fmt.Sprintf("func(a %s, x, y []%s)", e.goT, e.goT))
	elementwise(e, s, true)
}

// genScale: func(a T, x []T), x[i] *= a.
func genScale(e elem, s isa) {
	text("scale", e, s, fmt.Sprintf("func(a %s, x []%s)", e.goT, e.goT))
	elementwise(e, s, false)
}

// elementwise emits y += a*x (axpy) or x *= a (scale); the written slice is
// y for axpy and x for scale.
func elementwise(e elem, s isa, axpy bool) {
	L, B, U := s.lanes(e), s.bytes, s.unroll
	ax := Load(Param("a"), XMM())
	va := s.vec()
	e.bcast(ax, va)
	xp := ldGP(Param("x").Base())
	n := ldGP(Param("x").Len())
	dst := xp
	ptrs := []reg.GPVirtual{xp}
	if axpy {
		dst = ldGP(Param("y").Base())
		ptrs = append(ptrs, dst)
	}
	one := func(off int, t reg.VecVirtual) {
		if axpy {
			e.movu(Mem{Base: dst, Disp: off}, t)
			e.fma(Mem{Base: xp, Disp: off}, va, t)
		} else {
			e.mul(Mem{Base: xp, Disp: off}, va, t)
		}
	}
	advance := func(elems int) {
		for _, p := range ptrs {
			ADDQ(U32(elems*e.size), p)
		}
		SUBQ(U32(elems), n)
	}
	Label("loopU")
	CMPQ(n, U32(U*L))
	JL(LabelRef("loop1"))
	ts := make([]reg.VecVirtual, U)
	for j := range ts {
		ts[j] = s.vec()
		one(j*B, ts[j])
	}
	for j := range ts {
		e.movu(ts[j], Mem{Base: dst, Disp: j * B})
	}
	advance(U * L)
	JMP(LabelRef("loopU"))

	Label("loop1")
	CMPQ(n, U32(L))
	JL(LabelRef("tail"))
	t := s.vec()
	one(0, t)
	e.movu(t, Mem{Base: dst})
	advance(L)
	JMP(LabelRef("loop1"))

	Label("tail")
	TESTQ(n, n)
	JZ(LabelRef("done"))
	if s.avx512 {
		k := tailMask(n)
		t := s.vec()
		if axpy {
			u := s.vec()
			e.movuZ(Mem{Base: dst}, k, t)
			e.movuZ(Mem{Base: xp}, k, u)
			e.fma(u, va, t)
		} else {
			e.movuZ(Mem{Base: xp}, k, t)
			e.mul(t, va, t)
		}
		e.movu(t, k, Mem{Base: dst})
	} else {
		Label("scalar")
		t := XMM()
		if axpy {
			e.movS(Mem{Base: dst}, t)
			e.fmaS(Mem{Base: xp}, ax, t)
		} else {
			e.movS(Mem{Base: xp}, t)
			e.mulS(ax, t, t)
		}
		e.movS(t, Mem{Base: dst})
		for _, p := range ptrs {
			ADDQ(U32(e.size), p)
		}
		DECQ(n)
		JNZ(LabelRef("scalar"))
	}
	Label("done")
	VZEROUPPER()
	RET()
}

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

// genAxpyAvg: the averaged perceptron's update, w[j] += a·v and
// u[j] += ca·float64(v) for every element v of a sparse row with index j,
// each product rounded before it is added (no FMA), exactly as the Go loop
// computes it. With slots (axpyAvg4F32AVX) w[j] and u[j] share one 16-byte
// slot: w[j] in the low four bytes of wu[2j], u[j] = wu[2j+1]. It is a
// scalar loop unrolled by four on VEX-encoded instructions, one kernel for
// both tiers: gathers and scatters lose to it (see genAxpyInd), and it
// beats the Go loop by doing without its bounds checks and the
// compiler's register copies. Repeated indices are handled because
// every element's loads, adds and stores happen in program order. It
// touches only XMM registers with VEX encodings, which leave the upper
// halves clean, so it needs no VZEROUPPER.
func genAxpyAvg(slots bool) {
	if slots {
		TEXT("axpyAvg4F32AVX", NOSPLIT, "func(a float32, ca float64, val []float32, ind []int32, wu []float64)")
	} else {
		TEXT("axpyAvgF32AVX", NOSPLIT, "func(a float32, ca float64, val []float32, ind []int32, w []float32, u []float64)")
	}
	Pragma("noescape")
	ax := Load(Param("a"), XMM())
	cx := Load(Param("ca"), XMM())
	vp := ldGP(Param("val").Base())
	ip := ldGP(Param("ind").Base())
	n := ldGP(Param("val").Len())
	var wp, up reg.GPVirtual
	if slots {
		wp = ldGP(Param("wu").Base())
	} else {
		wp = ldGP(Param("w").Base())
		up = ldGP(Param("u").Base())
	}
	one := func(j int) {
		r := GP64()
		MOVLQSX(Mem{Base: ip, Disp: 4 * j}, r)
		wm, um := Mem{Base: wp, Index: r, Scale: 4}, Mem{Base: up, Index: r, Scale: 8}
		if slots {
			SHLQ(U8(4), r)
			wm, um = Mem{Base: wp, Index: r, Scale: 1}, Mem{Base: wp, Index: r, Scale: 1, Disp: 8}
		}
		v, p, d := XMM(), XMM(), XMM()
		VMOVSS(Mem{Base: vp, Disp: 4 * j}, v)
		VMULSS(ax, v, p)
		VADDSS(wm, p, p)
		VMOVSS(p, wm)
		VCVTSS2SD(v, v, d)
		VMULSD(cx, d, d)
		VADDSD(um, d, d)
		VMOVSD(d, um)
	}
	scalarLoop4("", n, vp, ip, 4, one)
	Label("done")
	RET()
}

// genAverage writes a trained averaged perceptron's weights as float32:
// averageF32 (func(dst, w []float32, u []float64, c float64)) sets
// dst[i] = float32(float64(w[i]) − u[i]/c), w less its accumulator over
// the examples seen; with quotient, quotientF32 (func(dst []float32,
// x []float64, d float64)) sets dst[i] = float32(x[i]/d), a sum of weight
// vectors over their number. Every operation is a correctly rounded IEEE
// one, as in the Go loop, so every tier writes the same bits; the scalar
// loop is bound by the divider, which divides 4 or 8 lanes at a time
// here. Two vectors a step, then one, then
// scalar for the last.
func genAverage(s isa, quotient bool) {
	L := s.bytes / 8 // doubles per vector
	if quotient {
		TEXT("quotientF32"+s.name, NOSPLIT, "func(dst []float32, x []float64, d float64)")
	} else {
		TEXT("averageF32"+s.name, NOSPLIT, "func(dst, w []float32, u []float64, c float64)")
	}
	Pragma("noescape")
	dp := ldGP(Param("dst").Base())
	n := ldGP(Param("dst").Len())
	var wp, up reg.GPVirtual
	cx := XMM()
	if quotient {
		up = ldGP(Param("x").Base())
		Load(Param("d"), cx)
	} else {
		wp = ldGP(Param("w").Base())
		up = ldGP(Param("u").Base())
		Load(Param("c"), cx)
	}
	cv := s.vec()
	VBROADCASTSD(cx, cv)
	half := func() reg.VecVirtual { // L float32 lanes
		if s.avx512 {
			return YMM()
		}
		return XMM()
	}
	step := func(j int) {
		q := s.vec()
		VMOVUPD(Mem{Base: up, Disp: 8 * L * j}, q)
		VDIVPD(cv, q, q)
		if !quotient {
			w := s.vec()
			VCVTPS2PD(Mem{Base: wp, Disp: 4 * L * j}, w)
			VSUBPD(q, w, q)
		}
		out := half()
		if s.avx512 {
			VCVTPD2PS(q, out)
		} else {
			VCVTPD2PSY(q, out)
		}
		VMOVUPS(out, Mem{Base: dp, Disp: 4 * L * j})
	}
	advance := func(k int) {
		ADDQ(U32(4*k), dp)
		if !quotient {
			ADDQ(U32(4*k), wp)
		}
		ADDQ(U32(8*k), up)
		SUBQ(U32(k), n)
	}
	Label("loop2")
	CMPQ(n, U32(2*L))
	JL(LabelRef("loop1"))
	step(0)
	step(1)
	advance(2 * L)
	JMP(LabelRef("loop2"))
	Label("loop1")
	CMPQ(n, U32(L))
	JL(LabelRef("scalar"))
	step(0)
	advance(L)
	Label("scalar")
	TESTQ(n, n)
	JZ(LabelRef("done"))
	q := XMM()
	VMOVSD(Mem{Base: up}, q)
	VDIVSD(cx, q, q)
	if !quotient {
		w := XMM()
		VXORPS(w, w, w)
		VCVTSS2SD(Mem{Base: wp}, w, w)
		VSUBSD(q, w, q)
	}
	VCVTSD2SS(q, q, q)
	VMOVSS(q, Mem{Base: dp})
	advance(1)
	JMP(LabelRef("scalar"))
	Label("done")
	VZEROUPPER()
	RET()
}

// genAxpyAvgStride: func(a float32, ca float64, val []float32, ind []int32,
// stride int, w []float32, u []float64), genAxpyAvg's update of every
// stride-th weight: w[j·stride] += a·v and, when u is not empty,
// u[j·stride] += ca·v. A multiclass learner stores a feature's K class
// weights together, and its update adds to one class's weights and
// subtracts from another's: two calls with the slices starting at those
// classes and stride K.
func genAxpyAvgStride() {
	TEXT("axpyAvgStrideF32AVX", NOSPLIT, "func(a float32, ca float64, val []float32, ind []int32, stride int, w []float32, u []float64)")
	Pragma("noescape")
	ax := Load(Param("a"), XMM())
	cx := Load(Param("ca"), XMM())
	vp := ldGP(Param("val").Base())
	ip := ldGP(Param("ind").Base())
	n := ldGP(Param("val").Len())
	stride := ldGP(Param("stride"))
	wp := ldGP(Param("w").Base())
	up := ldGP(Param("u").Base())
	nu := ldGP(Param("u").Len())
	for _, avg := range []bool{false, true} {
		p := "w"
		if avg {
			p = "a"
			Label("avg")
		} else {
			TESTQ(nu, nu)
			JNZ(LabelRef("avg"))
		}
		one := func(j int) {
			r := GP64()
			MOVLQSX(Mem{Base: ip, Disp: 4 * j}, r)
			IMULQ(stride, r)
			wm, um := Mem{Base: wp, Index: r, Scale: 4}, Mem{Base: up, Index: r, Scale: 8}
			v, q := XMM(), XMM()
			VMOVSS(Mem{Base: vp, Disp: 4 * j}, v)
			VMULSS(ax, v, q)
			VADDSS(wm, q, q)
			VMOVSS(q, wm)
			if avg {
				d := XMM()
				VCVTSS2SD(v, v, d)
				VMULSD(cx, d, d)
				VADDSD(um, d, d)
				VMOVSD(d, um)
			}
		}
		scalarLoop4(p, n, vp, ip, 4, one)
	}
	Label("done")
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

// genPrefetch: func(ind []int32, val []float32), a PREFETCHT0 for every
// 64-byte line of a sparse row, so that a row the learner visits a few
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
	JGE(LabelRef("done"))
	PREFETCHT0(Mem{Base: ip, Index: off, Scale: 1})
	PREFETCHT0(Mem{Base: vp, Index: off, Scale: 1})
	ADDQ(U32(64), off)
	JMP(LabelRef("loop"))
	Label("done")
	RET()

	genPrefetchGather("prefetchGather", false)
	genPrefetchGather("prefetchGatherBlock", true)
}

// genPrefetchGather: func(ind []int32, w []float32, stride int), a
// PREFETCHT0 of w[j·stride] for every index j of a sparse row, so that the
// weights a row a couple of steps ahead will read are on their way; with
// block (prefetchGatherBlock), of every line of w[j·stride : (j+1)·stride]:
// the K weights of a multiclass learner's feature, which span two lines
// once K > 16. Like prefetchRow it cannot fault, whatever the indices.
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
		a, last := GP64(), GP64()
		LEAQ(Mem{Base: wp, Index: j, Scale: 1}, a)
		PREFETCHT0(Mem{Base: a})
		// The block's other lines, from the one after a's.
		LEAQ(Mem{Base: a, Index: stride, Scale: 1, Disp: -4}, last)
		ORQ(U8(63), a)
		INCQ(a)
		Label("lines")
		CMPQ(a, last)
		JA(LabelRef("next"))
		PREFETCHT0(Mem{Base: a})
		ADDQ(U32(64), a)
		JMP(LabelRef("lines"))
		Label("next")
	}
	ADDQ(U32(4), ip)
	JMP(LabelRef("gloop"))
	Label("gdone")
	RET()
}

// genAddScores: func(W []float32, ind []int32, val []float32, s []float32),
// s[c] += val[k]·W[ind[k]·K + c] for c < K = len(s), k in order: a
// multiclass learner's class scores, its K weights per feature stored
// together. AVX-512 only: s is taken 32 classes at a time in two ZMM
// accumulators (masked for the last classes), and every nonzero adds a
// broadcast value times its weights. The product is rounded before the
// add (VMULPS, VADDPS), as the Go loop does it, so every tier gives the
// same scores bit for bit.
func genAddScores() {
	TEXT("addScoresAVX512", NOSPLIT, "func(W []float32, ind []int32, val []float32, s []float32)")
	Pragma("noescape")
	wp := ldGP(Param("W").Base())
	ib := ldGP(Param("ind").Base())
	vb := ldGP(Param("val").Base())
	n := ldGP(Param("ind").Len())
	sp := ldGP(Param("s").Base())
	K := ldGP(Param("s").Len())
	kb := GP64()
	MOVQ(K, kb)
	SHLQ(U8(2), kb) // a feature's weights, in bytes
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
	RET()
}
