package engine

import (
	"context"

	"github.com/hyperplane-ml/hyperplane/asm"
)

// fusedBinary turns binaryPass on. (A variable so that tests can compare
// it with the general pass.)
var fusedBinary = true

// plainBinary reports whether st's steps are those of the plain binary
// perceptron rule with nothing else to do per example: one weight vector,
// the Perceptron rule, no row normalization, no sample or class weights,
// no voted log and no mistake trace. Such a learner's pass can run as
// binaryPass.
func (st *state) plainBinary(sw []float64) bool {
	s := &st.s
	return fusedBinary && st.K == 1 && s.Rule == Perceptron && !s.Normalize && sw == nil && st.cw == nil &&
		st.votes == nil && traceMistake == nil
}

// binaryPass is pass for a learner for which plainBinary holds: the row
// loop, the margin, the decision, the update and the clock in one loop,
// without the per-example calls of step (or of stepWU on the interleaved
// layout, ilv, whose slots passLayout has filled). Every example does the
// arithmetic step does, in the same order (with weight 1, step's
// eta·weight·y is eta·y exactly), so the model is bit-identical.
func (f *fitter) binaryPass(ctx context.Context, st *state, order []int32, ext []int64, gather, ilv bool) (passStats, error) {
	var ps passStats
	ind, val := f.X.Ind, f.X.Val
	cls := f.cls
	w, u := st.w, st.u
	gw, stride := w, 1
	if ilv {
		gw, stride = st.wu, 4
	}
	eta, tau, bb := st.s.eta, st.s.tau, st.bb
	bias := st.b[0]
	// The bias lives in a local for the loop and goes back on every exit.
	defer func() { st.b[0] = bias }()
	for p, i := range order {
		if q := p + prefetchAhead; q < len(order) {
			lo, hi := ext[2*q], ext[2*q+1]
			asm.PrefetchRow(ind[lo:hi], val[lo:hi])
		}
		if q := p + gatherAhead; gather && q < len(order) {
			asm.PrefetchGather(ind[ext[2*q]:ext[2*q+1]], gw, stride)
		}
		if err := cancelledAt(ctx, p); err != nil {
			return ps, err
		}
		lo, hi := ext[2*p], ext[2*p+1]
		ri, rv := ind[lo:hi], val[lo:hi]
		y := float32(-1)
		if cls[i] == 1 {
			y = 1
		}
		var dot float32
		if ilv {
			dot = asm.DotInd4F32(rv, ri, gw)
		} else {
			dot = asm.DotIndF32(rv, ri, w)
		}
		m := y * (dot + bias)
		if m <= 0 {
			ps.mistakes++
			ps.loss += float64(-m)
		}
		if m <= tau {
			a := eta * y
			bias += a * bb
			if ilv {
				c := st.c
				asm.AxpyAvg4F32(a, c*float64(a), rv, ri, st.wu64)
				st.ub[0] += c * float64(a) * float64(bb)
			} else if u != nil {
				c := st.c
				asm.AxpyAvgF32(a, c*float64(a), rv, ri, w, u)
				st.ub[0] += c * float64(a) * float64(bb)
			} else {
				asm.AxpyIndF32(a, rv, ri, w)
			}
			ps.updates++
		}
		st.c++
	}
	return ps, nil
}
