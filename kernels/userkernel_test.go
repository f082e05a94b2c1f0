package kernels

import (
	"math"
	"sync/atomic"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

// laplace is a user-defined kernel that implements Kernel only (not
// DotKernel): K(x, z) = exp(−γ‖x − z‖₁), computed in float64. Missing
// features are zero, so rows of different widths compare over the union.
// It counts its calls, atomically, to check that every pair is evaluated
// once and that concurrent calls are fine.
type laplace struct {
	gamma float64
	calls *atomic.Int64
}

func (k laplace) count() {
	if k.calls != nil {
		k.calls.Add(1)
	}
}

func (k laplace) Dense(x, z []float32) float64 {
	if len(x) != len(z) {
		panic("laplace.Dense: rows of different lengths")
	}
	k.count()
	var s float64
	for i := range x {
		s += math.Abs(float64(x[i]) - float64(z[i]))
	}
	return math.Exp(-k.gamma * s)
}

func (k laplace) Sparse(x, z sparse.Vector) float64 {
	k.count()
	var s float64
	i, j := 0, 0
	for i < len(x.Ind) || j < len(z.Ind) {
		switch {
		case j == len(z.Ind) || (i < len(x.Ind) && x.Ind[i] < z.Ind[j]):
			s += math.Abs(float64(x.Val[i]))
			i++
		case i == len(x.Ind) || z.Ind[j] < x.Ind[i]:
			s += math.Abs(float64(z.Val[j]))
			j++
		default:
			s += math.Abs(float64(x.Val[i]) - float64(z.Val[j]))
			i++
			j++
		}
	}
	return math.Exp(-k.gamma * s)
}

func (k laplace) String() string { return "laplace" }

func (k laplace) ref(x, z []float32) (float64, float64) {
	var s float64
	for i := range max(len(x), len(z)) {
		var a, b float64
		if i < len(x) {
			a = float64(x[i])
		}
		if i < len(z) {
			b = float64(z[i])
		}
		s += math.Abs(a - b)
	}
	want := math.Exp(-k.gamma * s)
	return want, 2*eps32*want + 1e-44
}

// cosine is a user-defined DotKernel that reads the squared norms:
// K(x, z) = x·z / (‖x‖‖z‖), 0 when either row is zero.
type cosine struct{}

func cos64(dot, xx, zz float64) float64 {
	if xx == 0 || zz == 0 {
		return 0
	}
	return dot / math.Sqrt(xx*zz)
}

func (cosine) Dense(x, z []float32) float64 {
	return cos64(Dot(x, z), Dot(x, x), Dot(z, z))
}

func (cosine) Sparse(x, z sparse.Vector) float64 {
	return cos64(SparseDot(x, z), SparseDot(x, x), SparseDot(z, z))
}

func (cosine) Apply(dots []float32, xx float32, zz []float32) {
	for j, d := range dots {
		if xx == 0 || zz[j] == 0 {
			dots[j] = 0
			continue
		}
		dots[j] = float32(float64(d) / math.Sqrt(float64(xx)*float64(zz[j])))
	}
}

func (cosine) NeedsNorms() bool { return true }
func (cosine) String() string   { return "cosine" }

func (cosine) ref(x, z []float32) (float64, float64) {
	p := pairOf(x, z)
	want := cos64(p.dot, p.xx, p.zz)
	if p.xx == 0 || p.zz == 0 {
		return 0, 1e-30
	}
	s := math.Sqrt(p.xx * p.zz)
	return want, float64(p.terms+8)*eps32*(p.mag/s+math.Abs(want)) + 1e-30
}

var (
	_ Kernel    = laplace{}
	_ DotKernel = cosine{}
)
