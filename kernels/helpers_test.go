package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/asm"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// eps32 is the float32 machine epsilon (2⁻²³), a generous unit of rounding.
const eps32 = 1.0 / (1 << 23)

// expFloor bounds what the clamped exp(−87) of RBF's Apply may leave where
// the true kernel value is smaller (exp(−87) ≈ 1.65e−38).
const expFloor = 2e-38

// forTiers runs f as a subtest once per SIMD tier this machine and build
// support, forcing the tier globally, and restores the tier afterwards.
// Subtests run under it must not call t.Parallel.
func forTiers(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	prev := asm.Active()
	defer func() {
		if err := asm.SetTier(prev); err != nil {
			t.Fatal(err)
		}
	}()
	for _, tier := range asm.Tiers() {
		if err := asm.SetTier(tier); err != nil {
			t.Fatal(err)
		}
		t.Run(tier.String(), f)
	}
}

// genRows returns n rows of width w with about a fraction p of nonzeros
// (N(0,1) values), mixed row by row: some rows empty, some three times as
// dense, some scaled by 10 (far from everything), some duplicates of the
// row before (distance exactly 0).
func genRows(r *rand.Rand, n, w int, p float64) [][]float32 {
	rows := make([][]float32, n)
	for i := range rows {
		row := make([]float32, w)
		rows[i] = row
		switch {
		case i%11 == 6:
			copy(row, rows[i-1])
			continue
		case i%7 == 3:
			continue // empty
		}
		q := p
		if i%5 == 2 {
			q = min(1, 3*p)
		}
		scale := float32(1)
		if i%13 == 9 {
			scale = 10
		}
		for j := range row {
			if r.Float64() < q {
				row[j] = scale * float32(r.NormFloat64())
			}
		}
	}
	return rows
}

// toCSR is sparse.FromDense with the width fixed to w (FromDense takes the
// longest row, which is 0 for no rows).
func toCSR(rows [][]float32, w int) *sparse.CSR {
	X := sparse.FromDense(rows)
	X.Cols = w
	return X
}

// flat lays rows of width w out row-major.
func flat(rows [][]float32, w int) []float32 {
	x := make([]float32, 0, len(rows)*w)
	for _, r := range rows {
		if len(r) != w {
			panic("flat: ragged rows")
		}
		x = append(x, r...)
	}
	return x
}

// sparseOf returns the nonzeros of a dense row as a sparse vector of
// dimension dim.
func sparseOf(x []float32, dim int) sparse.Vector {
	v := sparse.Vector{Dim: dim}
	for j, f := range x {
		if f != 0 {
			v.Ind = append(v.Ind, int32(j))
			v.Val = append(v.Val, f)
		}
	}
	return v
}

// pair holds, in float64, everything the built-in kernels' reference values
// and error bounds need for rows x and z (of possibly different widths,
// missing features being zero).
type pair struct {
	dot, mag float64 // x·z over the shared features, Σ|x_k z_k|
	xx, zz   float64 // ‖x‖², ‖z‖² over all features
	terms    int     // the most terms any sum involved
}

func pairOf(x, z []float32) pair {
	var p pair
	for k, v := range x {
		p.xx += float64(v) * float64(v)
		if k < len(z) {
			p.dot += float64(v) * float64(z[k])
			p.mag += math.Abs(float64(v) * float64(z[k]))
		}
	}
	for _, v := range z {
		p.zz += float64(v) * float64(v)
	}
	p.terms = max(len(x), len(z))
	return p
}

// referencer is implemented by the user-defined kernels of the tests: the
// exact value of K(x, z) in float64 for dense rows of any widths, and the
// error allowed in a float32 result.
type referencer interface {
	ref(x, z []float32) (want, tol float64)
}

// expect returns the value of a kernel from its definition, in float64,
// and the error a float32 computation may have.
func expect(k Kernel, x, z []float32) (want, tol float64) {
	if r, ok := k.(referencer); ok {
		return r.ref(x, z)
	}
	return expectPair(k, pairOf(x, z))
}

func expectPair(k Kernel, p pair) (want, tol float64) {
	errDot := float64(p.terms+4) * eps32 * p.mag
	switch k := k.(type) {
	case Linear:
		return p.dot, errDot + 1e-30
	case Poly:
		g, c, d := orOne(k.Gamma), k.Coef0, k.deg()
		gd := g * p.dot
		b := gd + c
		errB := math.Abs(g)*errDot + 2*eps32*(math.Abs(gd)+math.Abs(c))
		want = powi(b, d)
		tol = float64(d)*powi(math.Abs(b)+errB, d-1)*errB + 2*float64(d)*eps32*math.Abs(want) + 1e-30
		return want, tol
	case RBF:
		g := orOne(k.Gamma)
		d2 := max(p.xx+p.zz-2*p.dot, 0)
		errD2 := float64(p.terms+6) * eps32 * (p.xx + p.zz + 2*p.mag)
		want = math.Exp(-g * d2)
		// exp(−γ·max(d² − err, 0)), the largest value within the error.
		up := want * (1 + 2*g*min(errD2, d2))
		if g*min(errD2, d2) > 0.1 {
			up = math.Exp(-g * max(d2-errD2, 0))
		}
		tol = up*(g*errD2+4*eps32*(1+g*d2)) + expFloor
		return want, tol
	case Sigmoid:
		g, c := orOne(k.Gamma), k.Coef0
		gd := g * p.dot
		want = math.Tanh(gd + c)
		tol = math.Abs(g)*errDot + 2*eps32*(math.Abs(gd)+math.Abs(c)) + 2*eps32*math.Abs(want) + 1e-30
		return want, tol
	}
	panic(fmt.Sprintf("expect: no reference for %T", k))
}

// near reports whether a float32 result got matches want within tol. A
// reference beyond float32's range must come out as an infinity of its
// sign; NaN never matches.
func near(got float32, want, tol float64) bool {
	g := float64(got)
	switch {
	case math.IsNaN(g) || math.IsNaN(want):
		return false
	case math.IsInf(want, 0):
		return g == want
	case math.IsInf(g, 0):
		// Beyond float32's range, with the sign of the reference unless
		// the error bound allows either sign.
		return math.Abs(want)+tol >= math.MaxFloat32 && (math.Signbit(g) == math.Signbit(want) || tol >= math.Abs(want))
	}
	return math.Abs(g-want) <= tol
}

// mismatches collects failed comparisons and reports the first few.
type mismatches struct {
	t    *testing.T
	what string
	n    int
	msgs []string
}

func (m *mismatches) check(got float32, want, tol float64, what string, i, j int) {
	if near(got, want, tol) {
		return
	}
	m.n++
	if len(m.msgs) < 6 {
		m.msgs = append(m.msgs, fmt.Sprintf("%s (%d, %d): got %v, want %v ± %.3g", what, i, j, got, want, tol))
	}
}

func (m *mismatches) done() {
	m.t.Helper()
	if m.n > 0 {
		m.t.Errorf("%s: %d mismatches:\n  %s", m.what, m.n, strings.Join(m.msgs, "\n  "))
	}
}

// builtins returns the built-in kernels with parameters scaled to rows of
// width w and density p so that their values are neither all 0 nor all 1.
func builtins(w int, p float64) []Kernel {
	s := 1 / (float64(w)*p + 1)
	return []Kernel{
		Linear{},
		Poly{Degree: 3, Gamma: s, Coef0: 1},
		Poly{Degree: 2, Gamma: -s},
		RBF{Gamma: s / 2},
		Sigmoid{Gamma: s / 2, Coef0: -0.5},
	}
}

// guarded returns a slice of n elements inside a buffer with g NaN guard
// elements on either side, all elements NaN, and the check that every
// element outside written is still the guard NaN. written(i) reports
// whether element i of the slice may be written.
var guardNaN = math.Float32frombits(0x7fc0beef)

func guarded(n, g int) ([]float32, func(t *testing.T, written func(i int) bool)) {
	buf := make([]float32, n+2*g)
	for i := range buf {
		buf[i] = guardNaN
	}
	s := buf[g : g+n : g+n]
	return s, func(t *testing.T, written func(i int) bool) {
		t.Helper()
		bad := 0
		for i, v := range buf {
			if i >= g && i < g+n && written(i-g) {
				continue
			}
			if math.Float32bits(v) != math.Float32bits(guardNaN) {
				if bad < 5 {
					t.Errorf("element %d (slice index %d) outside the written range changed to %v", i, i-g, v)
				}
				bad++
			}
		}
	}
}

// mustPanic fails unless f panics.
func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s: no panic", what)
		}
	}()
	f()
}
