package synth

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
)

// Separable configures a linearly separable data set with a known margin,
// for checking the perceptron mistake bound (R/γ)². The zero value of each
// field except N and Dim selects its documented default.
//
// A unit separator u is drawn uniformly on the sphere. Each point x is
// drawn uniformly from the part of the ball ‖x‖ ≤ Radius where
// |u·x| ≥ Margin, and labelled y = sign(u·x) ∈ {-1, +1}; both signs are
// equally likely. The separator passes through the origin (there is no
// bias): every point satisfies y·(u·x) ≥ Margin, so the geometric margin of
// the set with respect to u is at least Margin, and a perceptron without a
// bias term started at w = 0 makes at most (R/γ)² mistakes on any ordering
// of the points, with R = max ‖x‖ and γ = min y·(u·x) as measured.
//
// Sampling is exact and efficient for any Margin: the component t = u·x,
// whose density in the ball is proportional to (R²−t²)^((d−1)/2), is drawn
// directly from that density restricted to |t| ≥ Margin (rejection from a
// flat-plus-exponential envelope that accepts at least 46% of proposals, as
// the density is log-concave), and the component orthogonal to u uniformly
// from the (d−1)-ball of radius √(R²−t²). Points are stored as float32; a
// point whose rounded coordinates violate ‖x‖ ≤ Radius or y·(u·x) ≥ Margin
// (computed in float64) is drawn again, which happens only right at the
// boundary.
//
// The data are a pure function of the configuration: points come from
// independent random streams per fixed block of rows, so Workers changes
// the speed only.
type Separable struct {
	// N is the number of points; it must be positive.
	N int
	// Dim is the dimension d; it must lie in [1, 2^31].
	Dim int
	// Radius R bounds every point's Euclidean norm; 0 means 1, another
	// value must lie in [1e-15, 1e15].
	Radius float64
	// Margin γ is the least |u·x|; 0 means Radius/10, another value must
	// lie in (0, 0.9999·Radius] (a band thinner than that would be lost to
	// the float32 rounding of the coordinates).
	Margin float64
	// Seed selects the data set.
	Seed uint64
	// Workers is the number of goroutines; 0 means GOMAXPROCS. It never
	// changes the result.
	Workers int
}

// SeparableData is a data set made by Separable.Generate.
type SeparableData struct {
	// Data holds the points as an N×Dim CSR matrix that stores every
	// coordinate (each row has Dim entries, in order) and the labels ±1.
	Data *sparse.Dataset
	// Dense holds the same points as dense rows; the rows share one
	// backing array, separate from Data's.
	Dense [][]float32
	// U is the unit separator (‖U‖ = 1 up to float64 rounding).
	U []float64
	// R is the largest norm ‖x‖ among the points.
	R float64
	// Gamma is the least y·(U·x)/‖U‖ among the points, at least the
	// configured Margin.
	Gamma float64
}

// MistakeBound returns (R/γ)², Novikoff's bound on the number of mistakes
// of a perceptron (no bias, w₀ = 0) on the data, over any number of passes.
func (d *SeparableData) MistakeBound() float64 {
	return (d.R / d.Gamma) * (d.R / d.Gamma)
}

const (
	sepChunk       = 256    // points per random-number chunk
	maxMarginRatio = 0.9999 // largest Margin/Radius
	maxRedraws     = 1000   // rounding rejections of one point before giving up
)

func (s Separable) normalize() (Separable, error) {
	if s.N <= 0 {
		return s, configErr("Separable.N = %d must be positive", s.N)
	}
	if s.Dim <= 0 {
		return s, configErr("Separable.Dim = %d must be positive", s.Dim)
	}
	if s.Radius == 0 {
		s.Radius = 1
	}
	if !(s.Radius >= 1e-15 && s.Radius <= 1e15) {
		return s, configErr("Separable.Radius = %g outside [1e-15, 1e15]", s.Radius)
	}
	if s.Margin == 0 {
		s.Margin = s.Radius / 10
	}
	if !(s.Margin > 0 && s.Margin <= maxMarginRatio*s.Radius) {
		return s, configErr("Separable.Margin = %g outside (0, 0.9999·Radius] (Radius = %g)", s.Margin, s.Radius)
	}
	if s.Workers < 0 {
		return s, configErr("Separable.Workers = %d is negative", s.Workers)
	}
	if s.Workers == 0 {
		s.Workers = runtime.GOMAXPROCS(0)
	}
	if s.Dim > MaxDim || s.N > math.MaxInt/s.Dim {
		return s, configErr("Separable: N·Dim = %d·%d is too large", s.N, s.Dim)
	}
	return s, nil
}

// axis samples s = |t|/R from the density ∝ (1−s²)^m on [g, 1]. The log
// density h(s) = m·ln(1−s²) is concave and decreasing there, so it lies
// below the envelope that is flat (h(g)) up to s1, where h(s1) = h(g)−1,
// and follows the tangent at s1 beyond; the envelope's area is at most
// (1+1/e)/(1−1/e) ≈ 2.16 times the density's.
type axis struct {
	g, m, hg   float64
	s1, lam    float64
	a1, e1, a2 float64
}

func newAxis(g, m float64) axis {
	a := axis{g: g, m: m}
	if m == 0 {
		return a // uniform on [g, 1]
	}
	a.hg = math.Log1p(-g * g)
	// 1 − s1² = (1 − g²)·e^(−1/m), computed without cancellation.
	e := math.Exp(-1 / m)
	a.s1 = math.Sqrt(-math.Expm1(-1/m) + g*g*e)
	a.lam = 2 * m * a.s1 / ((1 - g*g) * e)
	a.a1 = a.s1 - g
	a.e1 = -math.Expm1(-a.lam * (1 - a.s1)) // mass fraction of the tangent piece on [s1, 1]
	a.a2 = math.Exp(-1) * a.e1 / a.lam
	return a
}

func (a *axis) sample(r *rng) float64 {
	if a.m == 0 {
		return a.g + (1-a.g)*r.float64()
	}
	for {
		var s, env float64 // env: log envelope relative to h(g)
		if r.float64()*(a.a1+a.a2) < a.a1 {
			s = a.g + a.a1*r.float64()
		} else {
			s = a.s1 - math.Log1p(-a.e1*r.float64())/a.lam
			env = -1 - a.lam*(s-a.s1)
		}
		if s > 1 {
			continue
		}
		h := a.m * (math.Log1p(-s*s) - a.hg)
		if -r.exp1() <= h-env {
			return s
		}
	}
}

// memory returns the bytes Generate allocates with workers goroutines:
// the separator, a scratch vector per goroutine, the dense rows, the CSR
// copy (indices and values) and the labels, row pointers and row headers.
func (s Separable) memory(workers int) int64 {
	n, d := int64(s.N), int64(s.Dim)
	return budget.Add(
		budget.Mul(d, 8, int64(1+workers)),
		budget.Mul(n, d, 4+4+4),
		budget.Mul(n+1, 8+8+int64(unsafe.Sizeof([]float32{}))),
	)
}

// Memory returns the bytes Generate will allocate for the configuration,
// to check before generating, or an error wrapping ErrConfig for an
// invalid configuration.
func (s Separable) Memory() (int64, error) {
	cfg, err := s.normalize()
	if err != nil {
		return 0, err
	}
	return cfg.memory(max(1, min(cfg.Workers, (cfg.N+sepChunk-1)/sepChunk))), nil
}

// Generate draws the data set. The error wraps ErrConfig for an invalid
// configuration, and budget.ErrExceeded when the data set would take more
// memory than the budget (budget.Default; see Memory): every point is
// stored densely, twice, in about 12·N·Dim bytes.
func (s Separable) Generate() (*SeparableData, error) {
	return s.GenerateContext(context.Background())
}

// GenerateContext is Generate that stops soon after ctx is done (within
// a chunk of 256 points a worker), returning ctx.Err().
func (s Separable) GenerateContext(ctx context.Context) (*SeparableData, error) {
	cfg, err := s.normalize()
	if err != nil {
		return nil, err
	}
	n, d := cfg.N, cfg.Dim
	nChunks := (n + sepChunk - 1) / sepChunk
	workers := max(1, min(cfg.Workers, nChunks))
	if err := budget.Check(0, cfg.memory(workers), fmt.Sprintf("Separable: N×Dim = %d×%d dense coordinates", n, d)); err != nil {
		return nil, err
	}
	u, un := separator(cfg.Seed, d)
	flat := make([]float32, n*d)
	y := make([]float64, n)
	if err := cfg.drawPoints(ctx, workers, u, un, flat, y); err != nil {
		return nil, err
	}
	return separableData(flat, y, n, d, u, un), nil
}

// separator draws the unit normal u of the separating hyperplane in d
// dimensions, and returns it with its norm as computed, un.
func separator(seed uint64, d int) (u []float64, un float64) {
	u = make([]float64, d)
	ur := seedRNG(seed, streamSep, 0)
	for {
		ur.normals(u)
		var ss float64
		for _, x := range u {
			ss += x * x
		}
		if ss > 0 {
			inv := 1 / math.Sqrt(ss)
			for i := range u {
				u[i] *= inv
			}
			break
		}
	}
	var uu float64
	for _, x := range u {
		uu += x * x
	}
	return u, math.Sqrt(uu)
}

// drawPoints draws the points into flat, Dim coordinates each, and their
// labels into y, with workers goroutines taking chunks of sepChunk
// points, each chunk from its own stream.
func (s Separable) drawPoints(ctx context.Context, workers int, u []float64, un float64, flat []float32, y []float64) error {
	n, d, R := s.N, s.Dim, s.Radius
	nChunks := (n + sepChunk - 1) / sepChunk
	ax := newAxis(s.Margin/R, float64(d-1)/2)
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			z := make([]float64, d)
			for ctx.Err() == nil {
				c := int(next.Add(1) - 1)
				if c >= nChunks {
					return
				}
				r := seedRNG(s.Seed, streamPoints, uint64(c))
				for i := c * sepChunk; i < min(n, (c+1)*sepChunk); i++ {
					y[i] = point(&r, &ax, u, un, R, s.Margin, z, flat[i*d:(i+1)*d])
					if y[i] == 0 {
						failed.Store(true)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	if failed.Load() {
		// Not seen in practice: the validated bounds leave a band far
		// wider than the rounding of float32 coordinates.
		return configErr("Separable: points keep violating the margin after float32 rounding (Margin = %g, Radius = %g)", s.Margin, R)
	}
	return nil
}

// separableData makes the data set of the n points of d coordinates in
// flat, labelled y, both dense and as a CSR matrix, and measures its
// radius and margin about u.
func separableData(flat []float32, y []float64, n, d int, u []float64, un float64) *SeparableData {
	out := &SeparableData{U: u, Dense: make([][]float32, n), Gamma: math.Inf(1)}
	X := &sparse.CSR{Rows: n, Cols: d, Indptr: make([]int64, n+1), Ind: make([]int32, n*d), Val: make([]float32, n*d)}
	copy(X.Val, flat)
	for i := range n {
		row := flat[i*d : (i+1)*d : (i+1)*d]
		out.Dense[i] = row
		X.Indptr[i+1] = int64((i + 1) * d)
		ind := X.Ind[i*d : (i+1)*d]
		for j := range ind {
			ind[j] = int32(j)
		}
		nrm, t := norms(row, u)
		out.R = max(out.R, nrm)
		out.Gamma = min(out.Gamma, y[i]*t/un)
	}
	out.Data = &sparse.Dataset{X: X, Y: y}
	return out
}

// norms returns ‖x‖ and u·x in float64.
func norms(x []float32, u []float64) (nrm, t float64) {
	var ss float64
	for j, v := range x {
		f := float64(v)
		ss += f * f
		t += u[j] * f
	}
	return math.Sqrt(ss), t
}

// point draws one point into x (len d) and returns its label, or 0 after
// maxRedraws rounding rejections in a row; un is ‖u‖ and z is scratch of
// length d. The acceptance test computes the margin exactly as Generate
// measures it, so the measured Gamma is ≥ margin.
func point(r *rng, ax *axis, u []float64, un, R, margin float64, z []float64, x []float32) float64 {
	d := len(u)
	for range maxRedraws {
		t := R * ax.sample(r)
		y := 1.0
		if r.next()>>63 == 1 {
			y = -1
		}
		// Orthogonal part: a uniform direction in u's complement times a
		// radius uniform in the (d−1)-ball of radius √(R²−t²).
		var scale float64
		if d > 1 {
			for {
				r.normals(z)
				var zu float64
				for j, v := range z {
					zu += v * u[j]
				}
				var zz float64
				for j := range z {
					z[j] -= zu * u[j]
					zz += z[j] * z[j]
				}
				if zz > 0 {
					rho := math.Sqrt(max(0, R*R-t*t)) * math.Pow(r.float64(), 1/float64(d-1))
					scale = rho / math.Sqrt(zz)
					break
				}
			}
		}
		for j := range x {
			x[j] = float32(y*t*u[j] + scale*z[j])
		}
		if nrm, tt := norms(x, u); nrm <= R && y*tt/un >= margin {
			return y
		}
	}
	return 0
}
