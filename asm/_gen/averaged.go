// The averaged perceptron's kernels: its updates of weights and
// accumulator (axpyAvg, axpyAvg4, axpyAvgStride) and its final weights
// (average, quotient).

package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// genAxpyAvg: the averaged perceptron's update, w[j] += a·v and
// u[j] += ca·float64(v) for every element v of a sparse row with index j,
// or false at the first index not in [0, lim) (the elements before it
// updated): the caller passes lim = min(len(w), len(u)), or len(wu)/2 for
// the slots. The kernel returns true when every index was in range.
// each product rounded before it is added (no FMA), exactly as the Go loop
// computes it. With slots (axpyAvg4F32AVX) w[j] and u[j] share one 16-byte
// slot: w[j] in the low four bytes of wu[2j], u[j] = wu[2j+1]. It is a
// scalar loop unrolled by four on VEX-encoded instructions, one kernel for
// both tiers: gathers and scatters lose to it (see genAxpyInd), and it
// beats the Go loop with one unsigned compare of each index in place of
// the compiler's two bounds checks, and without its register copies. Repeated indices are handled because
// every element's loads, adds and stores happen in program order. It
// touches only XMM registers with VEX encodings, which leave the upper
// halves clean, so it needs no VZEROUPPER.
func genAxpyAvg(slots bool) {
	if slots {
		TEXT("axpyAvg4F32AVX", NOSPLIT, "func(a float32, ca float64, val []float32, ind []int32, wu []float64, lim int) bool")
	} else {
		TEXT("axpyAvgF32AVX", NOSPLIT, "func(a float32, ca float64, val []float32, ind []int32, w []float32, u []float64, lim int) bool")
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
	l := limits{gp: ldGP(Param("lim"))}
	one := func(j int) {
		r := GP64()
		MOVLQSX(Mem{Base: ip, Disp: 4 * j}, r)
		checkGP(l, r)
		wm, um := Mem{Base: wp, Index: r, Scale: 4}, Mem{Base: up, Index: r, Scale: 8}
		if slots {
			SHLQ(U8(4), r)
			wm, um = Mem{Base: wp, Index: r, Scale: 1}, Mem{Base: wp, Index: r, Scale: 1, Disp: 8}
		}
		avgStep(ax, cx, Mem{Base: vp, Disp: 4 * j}, wm, um)
	}
	scalarLoop4("", n, vp, ip, 4, one)
	Label("done")
	retOK(0)
	RET()
	retBad(0, false)
}

// avgStep emits the averaged perceptron's update of one element whose
// float32 value is vm, in memory or in the low lane of an XMM register:
// w += a·v at wm and u += ca·float64(v) at um, each product rounded
// before it is added, with a and ca in ax and cx.
func avgStep(ax, cx, vm Op, wm, um Mem) {
	// v is allocated before p and d, as it always was, so that the
	// kernels that load v from memory keep their generated code.
	v, ok := vm.(reg.Register)
	if !ok {
		v = XMM()
	}
	p, d := XMM(), XMM()
	if !ok {
		VMOVSS(vm, v)
	}
	VMULSS(ax, v, p)
	VADDSS(wm, p, p)
	VMOVSS(p, wm)
	VCVTSS2SD(v, v, d)
	VMULSD(cx, d, d)
	VADDSD(um, d, d)
	VMOVSD(d, um)
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
// stride int, w []float32, u []float64, lim int) bool, genAxpyAvg's update
// of every stride-th weight: w[j·stride] += a·v and, when u is not empty,
// u[j·stride] += ca·v, or false at the first index j not in [0, lim). The
// caller passes the number of indices whose weights (and accumulators,
// when u is not empty) lie in the slices, so that j·stride, which the
// check precedes, cannot overflow. A multiclass learner stores a feature's K class
// weights together, and its update adds to one class's weights and
// subtracts from another's: two calls with the slices starting at those
// classes and stride K.
func genAxpyAvgStride() {
	TEXT("axpyAvgStrideF32AVX", NOSPLIT, "func(a float32, ca float64, val []float32, ind []int32, stride int, w []float32, u []float64, lim int) bool")
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
	l := limits{gp: ldGP(Param("lim"))}
	withoutAndWithU(nu, func(p string, avg bool) {
		one := func(j int) {
			r := GP64()
			MOVLQSX(Mem{Base: ip, Disp: 4 * j}, r)
			checkGP(l, r)
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
	})
	Label("done")
	retOK(0)
	RET()
	retBad(0, false)
}

// withoutAndWithU emits body twice: for the weights alone (labels
// prefixed "w"), taken when u is empty (nu == 0), then at label "avg" for
// weights and accumulators together (prefix "a").
func withoutAndWithU(nu reg.GPVirtual, body func(p string, avg bool)) {
	TESTQ(nu, nu)
	JNZ(LabelRef("avg"))
	body("w", false)
	Label("avg")
	body("a", true)
}

// genAxpyAvgPair: func(a float32, ca float64, val []float32, ind []int32,
// stride, c, r int, w []float32, u []float64, lim int) bool, a multiclass
// update in one pass over the row: class c gains and class r loses,
// w[ind[k]·stride+c] += a·val[k], w[ind[k]·stride+r] −= a·val[k], and
// when u is not empty u[…+c] += ca·val[k], u[…+r] −= ca·val[k] in
// float64; or false at the first index not in [0, lim) (the elements
// before it updated). The caller checks c ≠ r, both below stride, and
// passes lim so that every j < lim keeps j·stride + max(c, r) inside w
// and u. It gives genAxpyAvgStride's bits for the two classes one after
// the other: each product is rounded once and added to one class and
// subtracted from the other (x − q is x + (−q) exactly), and the two
// classes' elements are distinct. Both classes' weights of a feature
// share a few cache lines, which the second of two strided passes would
// fetch again.
func genAxpyAvgPair() {
	TEXT("axpyAvgPairF32AVX", NOSPLIT, "func(a float32, ca float64, val []float32, ind []int32, stride int, c int, r int, w []float32, u []float64, lim int) bool")
	Pragma("noescape")
	ax := Load(Param("a"), XMM())
	cx := Load(Param("ca"), XMM())
	vp := ldGP(Param("val").Base())
	ip := ldGP(Param("ind").Base())
	n := ldGP(Param("val").Len())
	stride := ldGP(Param("stride"))
	cc := ldGP(Param("c"))
	rr := ldGP(Param("r"))
	wc, wr := ldGP(Param("w").Base()), GP64()
	uc, ur := ldGP(Param("u").Base()), GP64()
	nu := ldGP(Param("u").Len())
	l := limits{gp: ldGP(Param("lim"))}
	LEAQ(Mem{Base: wc, Index: rr, Scale: 4}, wr)
	LEAQ(Mem{Base: wc, Index: cc, Scale: 4}, wc)
	LEAQ(Mem{Base: uc, Index: rr, Scale: 8}, ur)
	LEAQ(Mem{Base: uc, Index: cc, Scale: 8}, uc)
	withoutAndWithU(nu, func(p string, avg bool) {
		one := func(j int) {
			r := GP64()
			MOVLQSX(Mem{Base: ip, Disp: 4 * j}, r)
			checkGP(l, r)
			IMULQ(stride, r)
			v, q, t := XMM(), XMM(), XMM()
			VMOVSS(Mem{Base: vp, Disp: 4 * j}, v)
			VMULSS(ax, v, q)
			wcm, wrm := Mem{Base: wc, Index: r, Scale: 4}, Mem{Base: wr, Index: r, Scale: 4}
			VADDSS(wcm, q, t)
			VMOVSS(t, wcm)
			VMOVSS(wrm, t)
			VSUBSS(q, t, t)
			VMOVSS(t, wrm)
			if avg {
				d, e := XMM(), XMM()
				ucm, urm := Mem{Base: uc, Index: r, Scale: 8}, Mem{Base: ur, Index: r, Scale: 8}
				VCVTSS2SD(v, v, d)
				VMULSD(cx, d, d)
				VADDSD(ucm, d, e)
				VMOVSD(e, ucm)
				VMOVSD(urm, e)
				VSUBSD(d, e, e)
				VMOVSD(e, urm)
			}
		}
		scalarLoop4(p, n, vp, ip, 4, one)
	})
	Label("done")
	retOK(0)
	RET()
	retBad(0, false)
}

// genAxpyAvgDense: func(a float32, ca float64, x []float32, w []float32,
// u []float64), the averaged perceptron's update on a dense row:
// w[i] += a·x[i] and u[i] += ca·float64(x[i]) for every i < len(x); the
// caller has checked that w and u are at least as long as x. It computes
// genAxpyAvg's bits over the indices 0…n−1: every product is rounded
// before it is added (VMULPS then VADDPS, VMULPD then VADDPD, no FMA),
// and the float32-to-float64 conversion is exact, so lanes and scalar
// tail agree with the Go loop element by element. A step takes 16 values:
// two YMM of w and four of u, whose doubles come from widening each half
// of x (VCVTPS2PD from memory). Then one vector of 8, then the scalar
// tail. AVX2 only: the AVX-512 tier calls it too (see AxpyAvgDenseF32).
func genAxpyAvgDense() {
	TEXT("axpyAvgDenseF32AVX2", NOSPLIT, "func(a float32, ca float64, x []float32, w []float32, u []float64)")
	Pragma("noescape")
	ax := Load(Param("a"), XMM())
	cx := Load(Param("ca"), XMM())
	va, vc := YMM(), YMM()
	VBROADCASTSS(ax, va)
	VBROADCASTSD(cx, vc)
	xp := ldGP(Param("x").Base())
	wp := ldGP(Param("w").Base())
	up := ldGP(Param("u").Base())
	n := ldGP(Param("x").Len())
	// vec8 updates the 8 values at element offset k from the pointers.
	vec8 := func(k int) {
		p := YMM()
		VMULPS(Mem{Base: xp, Disp: 4 * k}, va, p)
		VADDPS(Mem{Base: wp, Disp: 4 * k}, p, p)
		VMOVUPS(p, Mem{Base: wp, Disp: 4 * k})
		for h := 0; h < 2; h++ {
			d := YMM()
			VCVTPS2PD(Mem{Base: xp, Disp: 4 * (k + 4*h)}, d)
			VMULPD(vc, d, d)
			VADDPD(Mem{Base: up, Disp: 8 * (k + 4*h)}, d, d)
			VMOVUPD(d, Mem{Base: up, Disp: 8 * (k + 4*h)})
		}
	}
	advance := func(k int) {
		ADDQ(U32(4*k), xp)
		ADDQ(U32(4*k), wp)
		ADDQ(U32(8*k), up)
		SUBQ(U32(k), n)
	}
	Label("loop16")
	CMPQ(n, U32(16))
	JL(LabelRef("loop8"))
	vec8(0)
	vec8(8)
	advance(16)
	JMP(LabelRef("loop16"))
	Label("loop8")
	CMPQ(n, U32(8))
	JL(LabelRef("scalar"))
	vec8(0)
	advance(8)
	Label("scalar")
	TESTQ(n, n)
	JZ(LabelRef("done"))
	v, p, d := XMM(), XMM(), XMM()
	VMOVSS(Mem{Base: xp}, v)
	VMULSS(ax, v, p)
	VADDSS(Mem{Base: wp}, p, p)
	VMOVSS(p, Mem{Base: wp})
	VCVTSS2SD(v, v, d)
	VMULSD(cx, d, d)
	VADDSD(Mem{Base: up}, d, d)
	VMOVSD(d, Mem{Base: up})
	advance(1)
	JMP(LabelRef("scalar"))
	Label("done")
	VZEROUPPER()
	RET()
}
