// The element types, the tiers and the helpers every kernel family uses.

package main

import (
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
