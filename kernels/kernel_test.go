package kernels

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/asm"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// TestParseStringRoundTrip: String writes what Parse reads back into the
// same kernel, for every kind and for parameters that need every digit.
func TestParseStringRoundTrip(t *testing.T) {
	ks := []Kernel{
		Linear{},
		Poly{Degree: 1, Gamma: 1, Coef0: 0},
		Poly{Degree: 2, Gamma: 0.5, Coef0: 1},
		Poly{Degree: MaxDegree, Gamma: -1e-300, Coef0: -3.25},
		Poly{Degree: 7, Gamma: 0.1 + 0.2, Coef0: math.Pi},
		RBF{Gamma: 1},
		RBF{Gamma: 1.0 / 3},
		RBF{Gamma: 1e30},
		RBF{Gamma: 5e-324},
		Sigmoid{Gamma: 0.01, Coef0: -1},
		Sigmoid{Gamma: -2, Coef0: 1e-9},
	}
	for _, k := range ks {
		s := k.String()
		got, err := Parse(s)
		if err != nil {
			t.Errorf("Parse(%q): %v", s, err)
			continue
		}
		if got != k {
			t.Errorf("Parse(%q) = %#v, want %#v", s, got, k)
		}
		if got.String() != s {
			t.Errorf("Parse(%q).String() = %q", s, got.String())
		}
		if err := Check(k); err != nil {
			t.Errorf("Check(%#v): %v", k, err)
		}
	}
}

// TestDefaults: the zero Gamma means 1 and the zero Degree 3, in String,
// in the values, and in what Parse makes of left-out parameters.
func TestDefaults(t *testing.T) {
	for _, c := range []struct {
		k    Kernel
		str  string
		same Kernel
	}{
		{Linear{}, "linear", Linear{}},
		{Poly{}, "poly:degree=3,gamma=1,coef0=0", Poly{Degree: 3, Gamma: 1}},
		{Poly{Coef0: 2}, "poly:degree=3,gamma=1,coef0=2", Poly{Degree: 3, Gamma: 1, Coef0: 2}},
		{RBF{}, "rbf:gamma=1", RBF{Gamma: 1}},
		{Sigmoid{}, "sigmoid:gamma=1,coef0=0", Sigmoid{Gamma: 1}},
	} {
		if s := c.k.String(); s != c.str {
			t.Errorf("%#v.String() = %q, want %q", c.k, s, c.str)
		}
		x := []float32{0.5, -1, 0, 2}
		z := []float32{1, 0.25, 3, -0.5}
		if a, b := c.k.Dense(x, z), c.same.Dense(x, z); a != b {
			t.Errorf("%#v.Dense = %v, %#v.Dense = %v", c.k, a, c.same, b)
		}
		want, tol := expect(c.same, x, z)
		if got := c.k.Dense(x, z); !near(float32(got), want, tol) {
			t.Errorf("%#v.Dense = %v, want %v", c.k, got, want)
		}
	}
	for s, want := range map[string]Kernel{
		"linear":                  Linear{},
		"poly":                    Poly{},
		"polynomial:coef0=1":      Poly{Coef0: 1},
		"poly:degree=2":           Poly{Degree: 2},
		"rbf":                     RBF{},
		"gaussian:gamma=0.5":      RBF{Gamma: 0.5},
		"sigmoid":                 Sigmoid{},
		"tanh:coef0=-1":           Sigmoid{Coef0: -1},
		"  RBF:GAMMA = 2 ":        RBF{Gamma: 2},
		"Poly: Coef0=1 ,Degree=4": Poly{Degree: 4, Coef0: 1},
		"rbf:":                    RBF{},
		"rbf:gamma=0x1p-3":        RBF{Gamma: 0.125},
		"sigmoid:gamma=1e-2":      Sigmoid{Gamma: 0.01},
		"poly:degree=32":          Poly{Degree: 32},
		"poly:degree=1.0":         Poly{Degree: 1},
		"poly:gamma=-1":           Poly{Gamma: -1},
		" rbf : gamma = 2 ":       RBF{Gamma: 2},
	} {
		got, err := Parse(s)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %#v, %v; want %#v", s, got, err, want)
		}
	}
}

// TestParseErrors: every malformed or out-of-range kernel is an error
// wrapping ErrKernel, with no kernel returned.
func TestParseErrors(t *testing.T) {
	for _, s := range []string{
		"", "   ", "cubic", "rbf2", "linear:gamma=1", "rbf:degree=2", "sigmoid:degree=3",
		"rbf:gamma", "rbf:gamma=", "rbf:gamma=abc", "rbf:=1", "rbf:gamma=1,", "rbf:,gamma=1",
		"rbf:gamma=1;coef0=2", "rbf:gamma=1,gamma=2", "rbf:gamma=1,GAMMA=1", "poly:coef0=1,coef0=1",
		"poly:degree=2.5", "poly:degree=-1", "poly:degree=33", "poly:degree=1e9", "poly:degree=NaN", "poly:degree=inf",
		"rbf:gamma=NaN", "rbf:gamma=nan", "rbf:gamma=inf", "rbf:gamma=-Inf", "rbf:gamma=-1", "rbf:gamma=1e400",
		"poly:gamma=NaN", "poly:coef0=Inf", "sigmoid:gamma=NaN", "sigmoid:coef0=-inf",
		"rbf:gamma=1:2", "poly:degree=2,gamma=1,coef0=1,extra=0",
		// A gamma written out as zero (or underflowing to it) is not
		// taken as the default 1.
		"rbf:gamma=0", "rbf:gamma=1e-400", "poly:gamma=0", "sigmoid:gamma=-0",
	} {
		k, err := Parse(s)
		if !errors.Is(err, ErrKernel) || k != nil {
			t.Errorf("Parse(%q) = %#v, %v; want an ErrKernel error", s, k, err)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "kernels: bad kernel: ") {
			t.Errorf("Parse(%q): error %q does not start with the sentinel's text", s, err)
		}
	}
}

// TestCheck covers every parameter check.
func TestCheck(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	bad := []Kernel{
		nil,
		Poly{Degree: -1}, Poly{Degree: MaxDegree + 1}, Poly{Gamma: nan}, Poly{Gamma: inf}, Poly{Coef0: nan}, Poly{Coef0: -inf},
		RBF{Gamma: -1}, RBF{Gamma: -1e-300}, RBF{Gamma: nan}, RBF{Gamma: inf},
		Sigmoid{Gamma: nan}, Sigmoid{Gamma: -inf}, Sigmoid{Coef0: nan},
	}
	for _, k := range bad {
		if err := Check(k); !errors.Is(err, ErrKernel) {
			t.Errorf("Check(%#v) = %v, want ErrKernel", k, err)
		}
	}
	good := []Kernel{
		Linear{}, Poly{}, Poly{Degree: 1}, Poly{Degree: MaxDegree}, Poly{Gamma: -3, Coef0: -1},
		RBF{}, RBF{Gamma: 1e-300}, Sigmoid{Gamma: -1, Coef0: 5}, laplace{gamma: math.NaN()}, cosine{},
	}
	for _, k := range good {
		if err := Check(k); err != nil {
			t.Errorf("Check(%#v) = %v, want nil", k, err)
		}
	}
	// Both bad parameters are reported.
	err := Check(Poly{Gamma: nan, Coef0: inf})
	if err == nil || !strings.Contains(err.Error(), "gamma") || !strings.Contains(err.Error(), "coef0") {
		t.Errorf("Check(Poly{NaN, Inf}) = %v, want both parameters named", err)
	}
}

// TestKernelMethods checks the pairwise Dense and Sparse methods of the
// built-in kernels against the reference, for rows of mixed density, with
// Dot, SparseDot, and agreement between the two representations.
func TestKernelMethods(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	forTiers(t, func(t *testing.T) {
		for _, w := range refWidths {
			rows := genRows(r, 30, w, 0.3)
			for _, k := range builtins(w, 0.3) {
				m := &mismatches{t: t, what: k.String()}
				for i, x := range rows {
					for j, z := range rows {
						want, tol := expect(k, x, z)
						gd := k.Dense(x, z)
						gs := k.Sparse(sparseOf(x, w), sparseOf(z, w))
						// The methods return float64; hold them to the
						// float32 bound, with the result rounded.
						m.check(float32(gd), want, tol+eps32*math.Abs(want), "Dense", i, j)
						m.check(float32(gs), want, tol+eps32*math.Abs(want), "Sparse", i, j)
					}
				}
				m.done()
			}
			for i, x := range rows {
				for j, z := range rows {
					p := pairOf(x, z)
					tol := float64(w+4)*eps32*p.mag + 1e-30
					if got := Dot(x, z); math.Abs(got-p.dot) > tol {
						t.Errorf("w=%d Dot(%d,%d) = %v, want %v", w, i, j, got, p.dot)
					}
					// SparseDot sums in float64: nearly exact.
					if got := SparseDot(sparseOf(x, w), sparseOf(z, w)); math.Abs(got-p.dot) > 1e-12*(p.mag+1) {
						t.Errorf("w=%d SparseDot(%d,%d) = %v, want %v", w, i, j, got, p.dot)
					}
				}
			}
		}
	})
	mustPanic(t, "Dot of different lengths", func() { Dot([]float32{1}, []float32{1, 2}) })
	// SparseDot of vectors of different dimensions: shared indices only.
	a := sparse.Vector{Dim: 10, Ind: []int32{0, 4, 9}, Val: []float32{1, 2, 3}}
	b := sparse.Vector{Dim: 5, Ind: []int32{1, 4}, Val: []float32{7, 5}}
	if got := SparseDot(a, b); got != 10 {
		t.Errorf("SparseDot = %v, want 10", got)
	}
	if got := SparseDot(a, sparse.Vector{}); got != 0 {
		t.Errorf("SparseDot with an empty vector = %v, want 0", got)
	}
}

// TestApplyDirect calls Apply of each DotKernel on hand-made dots and
// norms, and checks NeedsNorms.
func TestApplyDirect(t *testing.T) {
	dots := []float32{-3, -1, -0.5, 0, 0.25, 1, 2, 10}
	zz := []float32{9, 4, 1, 0, 1, 1, 4, 100}
	const xx = float32(1)
	for _, k := range []DotKernel{Linear{}, Poly{}, Poly{Degree: 2, Gamma: 0.5, Coef0: -1}, RBF{}, RBF{Gamma: 0.01}, Sigmoid{}, Sigmoid{Gamma: 0.3, Coef0: 0.2}, cosine{}} {
		_, isRBF := k.(RBF)
		_, isCos := k.(cosine)
		if k.NeedsNorms() != (isRBF || isCos) {
			t.Errorf("%v.NeedsNorms() = %v", k, k.NeedsNorms())
		}
		out := append([]float32(nil), dots...)
		var norms []float32
		if k.NeedsNorms() {
			norms = zz
		}
		k.Apply(out, xx, norms)
		for j, d := range dots {
			var p pair
			p.dot, p.mag, p.xx, p.zz, p.terms = float64(d), math.Abs(float64(d)), float64(xx), float64(zz[j]), 1
			var want, tol float64
			if isCos {
				want = cos64(p.dot, p.xx, p.zz)
				tol = 4*eps32*math.Abs(want) + 1e-30
			} else {
				want, tol = expectPair(k, p)
			}
			if !near(out[j], want, tol) {
				t.Errorf("%v.Apply: dot %v, zz %v: got %v, want %v", k, d, zz[j], out[j], want)
			}
		}
	}
	// RBF's Apply reads only as many norms as there are dots.
	out := []float32{1, 2}
	RBF{}.Apply(out, 1, []float32{1, 4, 99})
	if !near(out[0], 1, 4*eps32) || !near(out[1], math.Exp(-1), 4*eps32) {
		t.Errorf("RBF.Apply with longer norms: %v", out)
	}
	mustPanic(t, "RBF.Apply with fewer norms than dots", func() { RBF{}.Apply(make([]float32, 3), 1, make([]float32, 2)) })
}

// TestRBFFarAway: RBF values for huge distances go to 0, never NaN or
// negative, including where γ·‖x−z‖² lies in [−103, −88], where vek32's
// AVX2 exp misbehaves unless the exponent is clamped, and far beyond.
// Every path: Apply directly, Block (dense and sparse), Full, EvalDense.
func TestRBFFarAway(t *testing.T) {
	forTiers(t, func(t *testing.T) {
		// Apply on a long row of exponents: -γd² from 0 to -200 in steps of
		// 0.25, so that every vector lane and the scalar tail see the
		// dangerous range.
		var e []float64
		for v := 0.0; v <= 200; v += 0.25 {
			e = append(e, v)
		}
		e = append(e, 1e3, 1e6, 1e30, math.MaxFloat32, math.Inf(1))
		for _, g := range []float64{1, 0.5, 1e-3} {
			k := RBF{Gamma: g}
			dots := make([]float32, len(e))
			zz := make([]float32, len(e))
			for j, v := range e {
				// xx = 0, dot = 0: d² = zz = v/γ.
				zz[j] = float32(v / g)
			}
			k.Apply(dots, 0, zz)
			for j, got := range dots {
				d2 := float64(zz[j])
				want := math.Exp(-g * d2)
				if math.IsNaN(float64(got)) || got < 0 || got > 1 {
					t.Fatalf("γ=%v, γd²=%v: RBF = %v", g, g*d2, got)
				}
				tol := expFloor
				if want > 0 {
					tol += want * (8*eps32 + g*d2*2*eps32)
				}
				if !near(got, want, tol) {
					t.Errorf("γ=%v, γd²=%v: RBF = %v, want %v", g, g*d2, got, want)
				}
			}
		}
		// Whole rows far apart: values 0 (to within exp(−87)), ones on the
		// diagonal.
		for _, scale := range []float32{3, 4, 5, 7, 10, 100, 1e10, 1e18} {
			n, w := 21, 8
			rows := make([][]float32, n)
			for i := range rows {
				rows[i] = make([]float32, w)
				rows[i][i%w] = scale * float32(1+i/w)
				if i%3 == 0 {
					rows[i][(i+1)%w] = -scale
				}
			}
			for _, d := range []*Data{NewData(toCSR(rows, w)), NewDenseData(flat(rows, w), n, w), NewData(toCSR(rows, 40))} {
				for _, k := range []Kernel{RBF{}, RBF{Gamma: 0.9}, RBF{Gamma: 1.7}} {
					g := NewFull(k, d)
					dst := make([]float32, n)
					for i := range n {
						x := make([]float32, d.Dim())
						copy(x, rows[i])
						d.EvalDense(k, x, dst, nil)
						for j := range n {
							for _, got := range []float32{g.Row(i)[j], dst[j]} {
								want, tol := expect(k, rows[i], rows[j])
								if math.IsNaN(float64(got)) || got < 0 || !near(got, want, tol) {
									t.Fatalf("scale %v %v dense=%v (%d,%d): got %v, want %v", scale, k, d.IsDense(), i, j, got, want)
								}
							}
						}
					}
				}
			}
		}
	})
}

// TestPolyOverflow: polynomial kernels whose value leaves float32's range
// give an infinity of the right sign, as the float64 reference does (or
// exceeds float32's range), never NaN.
func TestPolyOverflow(t *testing.T) {
	forTiers(t, func(t *testing.T) {
		rows := [][]float32{
			{1e3, 2e3, -1e3, 0},
			{-1e3, 5e2, 3e3, 1},
			{1e-3, 0, 0, 0},
			{0, 0, 0, 0},
			{1e18, 1e18, 1e18, 1e18},
			{-1e18, 1e18, -1e18, 1e18},
		}
		n, w := len(rows), 4
		ks := []Kernel{
			Poly{Degree: MaxDegree},
			Poly{Degree: MaxDegree - 1, Coef0: -1},
			Poly{Degree: 9, Gamma: 1e10},
			Poly{Degree: 3, Gamma: 1e30, Coef0: 1},
			Poly{Degree: 2, Gamma: -1e35},
			Poly{Degree: 31, Gamma: 1e-30, Coef0: 1e10},
			Linear{},
			Sigmoid{Gamma: 1e30},
			Sigmoid{Gamma: -1e30, Coef0: 5},
		}
		for _, d := range []*Data{NewData(toCSR(rows, w)), NewDenseData(flat(rows, w), n, w)} {
			for _, k := range ks {
				dst := make([]float32, n*n)
				Matrix(k, d, d, dst)
				f := NewFull(k, d)
				infs := 0
				for i := range n {
					for j := range n {
						want, tol := expect(k, rows[i], rows[j])
						for _, got := range []float32{dst[i*n+j], f.Row(i)[j]} {
							if math.IsNaN(float64(got)) || !near(got, want, tol) {
								t.Errorf("%v dense=%v (%d,%d): got %v, want %v ± %.3g", k, d.IsDense(), i, j, got, want, tol)
							}
						}
						if math.IsInf(float64(dst[i*n+j]), 0) {
							infs++
						}
					}
				}
				if _, ok := k.(Poly); ok && infs == 0 {
					t.Errorf("%v: no entry overflowed; the test lost its point", k)
				}
			}
		}
	})
}

// TestHugeGamma: a γ or coef0 beyond MaxParam would overflow float32 (and
// Inf·0 is NaN), so Check rejects it; at MaxParam the values stay NaN-free.
func TestHugeGamma(t *testing.T) {
	for _, k := range []Kernel{RBF{Gamma: 1e39}, Poly{Degree: 2, Gamma: 1e39, Coef0: 1}, Poly{Coef0: -1e31}, Sigmoid{Gamma: 2e30}} {
		if err := Check(k); !errors.Is(err, ErrKernel) {
			t.Errorf("Check(%v) = %v, want ErrKernel", k, err)
		}
	}
	rows := [][]float32{{1, 0}, {0, 1}, {1, 0}}
	d := NewDenseData(flat(rows, 2), 3, 2)
	for _, k := range []Kernel{RBF{Gamma: MaxParam}, Poly{Degree: 2, Gamma: MaxParam, Coef0: 1}} {
		if err := Check(k); err != nil {
			t.Fatalf("Check(%v) = %v", k, err)
		}
		g := NewFull(k, d)
		for i := range 3 {
			for j := range 3 {
				want, tol := expect(k, rows[i], rows[j])
				if got := g.Row(i)[j]; !near(got, want, tol) {
					t.Errorf("%v: K(%v, %v) = %v, want %v", k, rows[i], rows[j], got, want)
				}
			}
		}
	}
}

// On the generic tier (a noasm build, HYPERPLANE_SIMD=generic) RBF.Apply
// runs portable Go: every value is float32(math.Exp) of the exponent
// rounded as the vectorized passes round it, bit for bit, and not vek32's
// AVX2 exp.
func TestRBFApplyGenericTierIsPortable(t *testing.T) {
	prev := asm.Active()
	if err := asm.SetTier(asm.Generic); err != nil {
		t.Fatal(err)
	}
	defer asm.SetTier(prev)
	var dots, zz []float32
	for v := float32(0); v < 90; v += 0.0137 {
		dots = append(dots, -v/3)
		zz = append(zz, v/5)
	}
	const xx, g = float32(0.75), float32(0.9)
	want := make([]float32, len(dots))
	for j, d := range dots {
		e := float32(d*2) - zz[j]
		e = min(e-xx, 0) * g
		want[j] = float32(math.Exp(float64(max(e, -87))))
	}
	got := append([]float32(nil), dots...)
	RBF{Gamma: float64(g)}.Apply(got, xx, zz)
	for j := range got {
		if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
			t.Fatalf("dot %v, zz %v: Apply gives %v, the portable loop %v", dots[j], zz[j], got[j], want[j])
		}
	}
}

// TestCheckPointers: Check reads a pointer to a built-in kernel as the
// kernel, and names the type of a nil one.
func TestCheckPointers(t *testing.T) {
	for _, c := range []struct {
		k    Kernel
		want string // "" for no error
	}{
		{(*Linear)(nil), "nil *Linear"},
		{(*Poly)(nil), "nil *Poly"},
		{(*RBF)(nil), "nil *RBF"},
		{(*Sigmoid)(nil), "nil *Sigmoid"},
		{&Linear{}, ""},
		{&Poly{Degree: 2, Gamma: 1}, ""},
		{&Poly{Degree: MaxDegree + 1}, "polynomial degree"},
		{&RBF{Gamma: -1}, "negative"},
		{&Sigmoid{Gamma: math.Inf(1)}, "not finite"},
	} {
		err := Check(c.k)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("Check(%#v) = %v, want nil", c.k, err)
		case c.want != "" && (!errors.Is(err, ErrKernel) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("Check(%#v) = %v, want ErrKernel with %q", c.k, err, c.want)
		}
	}
}
