// The dense kernels: dot products, sums of squares, axpy and scaling.

package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

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
