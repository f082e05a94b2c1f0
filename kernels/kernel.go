package kernels

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/hyperplane-ml/hyperplane/asm"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// Sentinel errors; errors from this package wrap one of them.
var (
	// ErrKernel: a kernel is unknown, or one of its parameters is out of
	// range (a NaN or infinite γ, a degree below 1 or above MaxDegree).
	ErrKernel = errors.New("kernels: bad kernel")
	// ErrBudget: a cache budget too small to hold even the rows the
	// computation needs at once.
	ErrBudget = errors.New("kernels: cache budget too small")
	// ErrDim: data sets of different widths were paired.
	ErrDim = errors.New("kernels: dimension mismatch")
)

// MaxDegree is the highest polynomial degree accepted.
const MaxDegree = 32

// Kernel is a kernel function K(x, z) on dense and on sparse rows. A
// user-defined kernel implements this interface; its blocks are then
// computed pair by pair (on all cores). Implementations must be safe for
// concurrent use, must be symmetric (K(x, z) = K(z, x): a precomputed Gram
// matrix fills one triangle from the other, and training and prediction
// evaluate the pairs in opposite orders) and should be positive
// semi-definite for the perceptron's mistake bound to hold.
type Kernel interface {
	// Dense returns K(x, z) for rows of equal length.
	Dense(x, z []float32) float64
	// Sparse returns K(x, z) for sparse rows.
	Sparse(x, z sparse.Vector) float64
	// String names the kernel and its parameters, as Parse reads them.
	String() string
}

// DotKernel is a Kernel that depends on x and z only through x·z, ‖x‖²
// and ‖z‖²: every built-in kernel is one. Blocks of a DotKernel are
// computed as a matrix product on the SIMD kernels of package asm,
// followed by Apply over whole rows.
type DotKernel interface {
	Kernel
	// Apply replaces each dots[j] = x·z_j by K(x, z_j), given
	// xx = ‖x‖² and zz[j] = ‖z_j‖² (zz may be nil when NeedsNorms is
	// false).
	Apply(dots []float32, xx float32, zz []float32)
	// NeedsNorms reports whether Apply reads the squared norms.
	NeedsNorms() bool
}

// Linear is the linear kernel K(x, z) = x·z. With it the dual perceptron
// is the primal one, up to rounding: with exact arithmetic (a learning
// rate of 1, whole-number weights) they make the same mistakes.
type Linear struct{}

// Poly is the polynomial kernel K(x, z) = (γ·x·z + coef0)^degree. The
// zero Gamma means 1 and the zero Degree means 3.
type Poly struct {
	Degree int
	Gamma  float64
	Coef0  float64
}

// RBF is the Gaussian kernel K(x, z) = exp(−γ‖x − z‖²), computed as
// exp(−γ(‖x‖² + ‖z‖² − 2x·z)) with cached squared norms. The zero Gamma
// means 1.
type RBF struct {
	Gamma float64
}

// Sigmoid is K(x, z) = tanh(γ·x·z + coef0). It is not positive
// semi-definite for every γ and coef0, so the perceptron's guarantees do
// not carry over to it; it is here because LIBSVM offers it. The zero Gamma
// means 1.
type Sigmoid struct {
	Gamma float64
	Coef0 float64
}

func orOne(g float64) float64 {
	if g == 0 {
		return 1
	}
	return g
}

// Dot returns x·z; it panics if the lengths differ.
func Dot(x, z []float32) float64 { return float64(asm.DotF32(x, z)) }

// SparseDot returns x·z for sparse rows by merging their sorted indices.
func SparseDot(x, z sparse.Vector) float64 {
	var s float64
	i, j := 0, 0
	for i < len(x.Ind) && j < len(z.Ind) {
		switch a, b := x.Ind[i], z.Ind[j]; {
		case a == b:
			s += float64(x.Val[i]) * float64(z.Val[j])
			i++
			j++
		case a < b:
			i++
		default:
			j++
		}
	}
	return s
}

func sqDense(x []float32) float64           { return float64(asm.SumSqF32(x)) }
func sqSparse(x sparse.Vector) float64      { return float64(asm.SumSqF32(x.Val)) }
func (Linear) Dense(x, z []float32) float64 { return Dot(x, z) }
func (Linear) Sparse(x, z sparse.Vector) float64 {
	return SparseDot(x, z)
}
func (Linear) Apply([]float32, float32, []float32) {}
func (Linear) NeedsNorms() bool                    { return false }
func (Linear) String() string                      { return "linear" }

func (k Poly) deg() int {
	if k.Degree == 0 {
		return 3
	}
	return k.Degree
}
func (k Poly) of(d float64) float64 {
	return powi(orOne(k.Gamma)*d+k.Coef0, k.deg())
}
func (k Poly) Dense(x, z []float32) float64      { return k.of(Dot(x, z)) }
func (k Poly) Sparse(x, z sparse.Vector) float64 { return k.of(SparseDot(x, z)) }
func (k Poly) NeedsNorms() bool                  { return false }
func (k Poly) Apply(dots []float32, _ float32, _ []float32) {
	g, c, n := float32(orOne(k.Gamma)), float32(k.Coef0), k.deg()
	for j, d := range dots {
		dots[j] = powi32(g*d+c, n)
	}
}
func (k Poly) String() string {
	return fmt.Sprintf("poly:degree=%d,gamma=%s,coef0=%s", k.deg(), ftoa(orOne(k.Gamma)), ftoa(k.Coef0))
}

// rbfFloor is where the exponent is clamped: vek32's AVX2 exp returns NaN
// or garbage for arguments in about [−103, −88] (the float32 subnormal
// range of the result), and exp(−87) ≈ 1.6e−38 is as good as zero for a
// kernel value.
const rbfFloor = -87

func (k RBF) of(d2 float64) float64 {
	return math.Exp(-orOne(k.Gamma) * max(d2, 0))
}
func (k RBF) Dense(x, z []float32) float64 {
	return k.of(sqDense(x) + sqDense(z) - 2*Dot(x, z))
}
func (k RBF) Sparse(x, z sparse.Vector) float64 {
	return k.of(sqSparse(x) + sqSparse(z) - 2*SparseDot(x, z))
}
func (k RBF) NeedsNorms() bool { return true }

// Apply computes the exponent γ·min(2x·z − ‖x‖² − ‖z‖², 0), clamped at
// rbfFloor, in place and then exp over the whole row. On the AVX2 and
// AVX-512 tiers each step is a vectorized pass of vek32 over the row
// (rbfApplySIMD); on the generic tier (and so in a noasm build, which does
// not link vek32 at all, or with HYPERPLANE_SIMD=generic) it is
// rbfApplyGeneric, the same steps in portable Go with math.Exp, as the
// tier promises.
func (k RBF) Apply(dots []float32, xx float32, zz []float32) {
	g := float32(orOne(k.Gamma))
	if asm.Active() == asm.Generic {
		rbfApplyGeneric(dots, xx, zz[:len(dots)], g)
		return
	}
	rbfApplySIMD(dots, xx, zz[:len(dots)], g)
}
func (k RBF) String() string { return "rbf:gamma=" + ftoa(orOne(k.Gamma)) }

// rbfApplyGeneric is RBF.Apply's reference loop: every step rounded to
// float32 in the order of the vectorized passes, exp in float64.
func rbfApplyGeneric(dots []float32, xx float32, zz []float32, g float32) {
	for j, d := range dots {
		e := d*2 - zz[j]
		e = min(e-xx, 0) * g
		dots[j] = float32(math.Exp(float64(max(e, rbfFloor))))
	}
}

func (k Sigmoid) of(d float64) float64              { return math.Tanh(orOne(k.Gamma)*d + k.Coef0) }
func (k Sigmoid) Dense(x, z []float32) float64      { return k.of(Dot(x, z)) }
func (k Sigmoid) Sparse(x, z sparse.Vector) float64 { return k.of(SparseDot(x, z)) }
func (k Sigmoid) NeedsNorms() bool                  { return false }
func (k Sigmoid) Apply(dots []float32, _ float32, _ []float32) {
	g, c := orOne(k.Gamma), k.Coef0
	for j, d := range dots {
		dots[j] = float32(math.Tanh(g*float64(d) + c))
	}
}
func (k Sigmoid) String() string {
	return "sigmoid:gamma=" + ftoa(orOne(k.Gamma)) + ",coef0=" + ftoa(k.Coef0)
}

// powi is x^n for a small positive n, by squaring.
func powi(x float64, n int) float64 {
	r := 1.0
	for ; n > 0; n >>= 1 {
		if n&1 == 1 {
			r *= x
		}
		x *= x
	}
	return r
}

func powi32(x float32, n int) float32 {
	r := float32(1)
	for ; n > 0; n >>= 1 {
		if n&1 == 1 {
			r *= x
		}
		x *= x
	}
	return r
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// MaxParam bounds |γ| and |coef0|: they are applied in float32, and a
// larger γ would overflow to Inf and turn 0·γ into NaN.
const MaxParam = 1e30

// Check reports whether k's parameters are usable: |γ| and |coef0| at most
// MaxParam, and a degree in [1, MaxDegree]. A nil kernel is an error;
// user-defined kernels pass.
func Check(k Kernel) error {
	bad := func(name string, v float64) error {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: %s %v is not finite", ErrKernel, name, v)
		}
		if math.Abs(v) > MaxParam {
			return fmt.Errorf("%w: |%s| = %v exceeds %g", ErrKernel, name, v, MaxParam)
		}
		return nil
	}
	var err error
	switch p := k.(type) {
	case *Linear:
		k, err = elem(p, "*Linear")
	case *Poly:
		k, err = elem(p, "*Poly")
	case *RBF:
		k, err = elem(p, "*RBF")
	case *Sigmoid:
		k, err = elem(p, "*Sigmoid")
	}
	if err != nil {
		return err
	}
	switch k := k.(type) {
	case nil:
		return fmt.Errorf("%w: no kernel", ErrKernel)
	case Poly:
		if d := k.deg(); d < 1 || d > MaxDegree {
			return fmt.Errorf("%w: polynomial degree %d outside [1, %d]", ErrKernel, d, MaxDegree)
		}
		return errors.Join(bad("gamma", k.Gamma), bad("coef0", k.Coef0))
	case RBF:
		if k.Gamma < 0 {
			return fmt.Errorf("%w: RBF gamma %v is negative", ErrKernel, k.Gamma)
		}
		return bad("gamma", k.Gamma)
	case Sigmoid:
		return errors.Join(bad("gamma", k.Gamma), bad("coef0", k.Coef0))
	}
	return nil
}

// elem returns the kernel p points to, or, for a nil p, an error that
// names its type.
func elem[T Kernel](p *T, typ string) (Kernel, error) {
	if p == nil {
		return nil, fmt.Errorf("%w: nil %s", ErrKernel, typ)
	}
	return *p, nil
}

// Parse reads a kernel as String writes it: "linear", "rbf",
// "rbf:gamma=0.5", "poly:degree=2,gamma=1,coef0=1",
// "sigmoid:gamma=0.01,coef0=-1". Parameters left out take their zero-value
// defaults.
func Parse(s string) (Kernel, error) {
	name, params, _ := strings.Cut(strings.TrimSpace(s), ":")
	name = strings.TrimSpace(name)
	vals := map[string]float64{}
	if params != "" {
		for _, kv := range strings.Split(params, ",") {
			key, v, ok := strings.Cut(kv, "=")
			key = strings.ToLower(strings.TrimSpace(key))
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if !ok || err != nil {
				return nil, fmt.Errorf("%w: %q: want name=number, got %q", ErrKernel, s, kv)
			}
			if _, dup := vals[key]; dup {
				return nil, fmt.Errorf("%w: %q: %s given twice", ErrKernel, s, key)
			}
			vals[key] = f
		}
	}
	allow := func(keys ...string) error {
	next:
		for k := range vals {
			for _, a := range keys {
				if k == a {
					continue next
				}
			}
			return fmt.Errorf("%w: %q: %s takes no parameter %q", ErrKernel, s, name, k)
		}
		return nil
	}
	if g, given := vals["gamma"]; given && g == 0 {
		// The zero Gamma of the structs means 1; written out it would
		// more likely be a mistake (or a value that underflowed) than a
		// request for the default.
		return nil, fmt.Errorf("%w: %q: gamma must be nonzero (leave it out for the default 1)", ErrKernel, s)
	}
	var k Kernel
	var err error
	switch strings.ToLower(name) {
	case "linear":
		k, err = Linear{}, allow()
	case "poly", "polynomial":
		d, given := vals["degree"]
		if d != math.Trunc(d) || d < 0 || d > MaxDegree || (given && d < 1) {
			return nil, fmt.Errorf("%w: %q: degree must be a whole number in [1, %d]", ErrKernel, s, MaxDegree)
		}
		k, err = Poly{Degree: int(d), Gamma: vals["gamma"], Coef0: vals["coef0"]}, allow("degree", "gamma", "coef0")
	case "rbf", "gaussian":
		k, err = RBF{Gamma: vals["gamma"]}, allow("gamma")
	case "sigmoid", "tanh":
		k, err = Sigmoid{Gamma: vals["gamma"], Coef0: vals["coef0"]}, allow("gamma", "coef0")
	default:
		return nil, fmt.Errorf("%w: unknown kernel %q (want linear, poly, rbf or sigmoid)", ErrKernel, name)
	}
	if err != nil {
		return nil, err
	}
	if err := Check(k); err != nil {
		return nil, err
	}
	return k, nil
}
