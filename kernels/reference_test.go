package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/hyperplane-ml/hyperplane/asm"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

var (
	refSizes  = []int{0, 1, 2, 3, 17, 255, 256, 257, 600}
	refWidths = []int{1, 3, 16, 64, 300}
	// refDensities cycle over the grid; NewData keeps those well under a
	// quarter sparse and densifies the others.
	refDensities = []float64{1, 0.06, 0.4, 0.15, 0.02, 0.3}
)

// dataset is one generated data set with its pairwise reference values.
type dataset struct {
	name  string
	n, w  int
	p     float64
	rows  [][]float32
	X     *sparse.CSR
	auto  *Data // NewData: dense or CSR by density
	dense *Data // NewDenseData
	st    []pair
	l1    []float64 // ‖x_i − x_j‖₁, for laplace
	// The reference values of the last kernel asked for, computed once
	// and reused on every tier and storage.
	lastK Kernel
	lastT [][2]float64
}

func newDataset(r *rand.Rand, n, w int, p float64) *dataset {
	rows := genRows(r, n, w, p)
	d := &dataset{n: n, w: w, p: p, rows: rows, X: toCSR(rows, w)}
	d.auto = NewData(d.X)
	d.dense = NewDenseData(flat(rows, w), n, w)
	kind := "csr"
	if d.auto.IsDense() {
		kind = "dense"
	}
	d.name = fmt.Sprintf("n=%d/w=%d/p=%g/%s", n, w, p, kind)
	// Pairwise statistics in float64, over the nonzeros.
	d.st = make([]pair, n*n)
	d.l1 = make([]float64, n*n)
	xx := make([]float64, n)
	ab := make([]float64, n)
	for i, row := range rows {
		for _, v := range row {
			xx[i] += float64(v) * float64(v)
			ab[i] += math.Abs(float64(v))
		}
	}
	for i := range n {
		x := rows[i]
		for j := i; j < n; j++ {
			var dot, mag float64
			l1 := ab[i] + ab[j]
			lo, hi := d.X.Indptr[j], d.X.Indptr[j+1]
			for k, f := range d.X.Ind[lo:hi] {
				a, b := float64(x[f]), float64(d.X.Val[lo+int64(k)])
				pr := a * b
				dot += pr
				mag += math.Abs(pr)
				l1 += math.Abs(a-b) - math.Abs(a) - math.Abs(b)
			}
			d.st[i*n+j] = pair{dot: dot, mag: mag, xx: xx[i], zz: xx[j], terms: w}
			d.st[j*n+i] = pair{dot: dot, mag: mag, xx: xx[j], zz: xx[i], terms: w}
			d.l1[i*n+j], d.l1[j*n+i] = max(l1, 0), max(l1, 0)
		}
	}
	return d
}

// want returns the reference K(x_i, x_j) and the error allowed.
func (d *dataset) want(k Kernel, i, j int) (float64, float64) {
	if k != d.lastK || d.lastT == nil {
		d.lastT = make([][2]float64, d.n*d.n)
		for a := range d.n {
			for b := range d.n {
				w, t := d.compute(k, a, b)
				d.lastT[a*d.n+b] = [2]float64{w, t}
			}
		}
		d.lastK = k
	}
	e := d.lastT[i*d.n+j]
	return e[0], e[1]
}

func (d *dataset) compute(k Kernel, i, j int) (float64, float64) {
	switch kk := k.(type) {
	case laplace:
		want := math.Exp(-kk.gamma * d.l1[i*d.n+j])
		return want, 2*eps32*want + 1e-44
	case cosine:
		p := d.st[i*d.n+j]
		if p.xx == 0 || p.zz == 0 {
			return 0, 1e-30
		}
		want := cos64(p.dot, p.xx, p.zz)
		return want, float64(p.terms+8)*eps32*(p.mag/math.Sqrt(p.xx*p.zz)+math.Abs(want)) + 1e-30
	case referencer:
		return expect(k, d.rows[i], d.rows[j])
	}
	return expectPair(k, d.st[i*d.n+j])
}

func (d *dataset) variants() []struct {
	name string
	data *Data
} {
	return []struct {
		name string
		data *Data
	}{{"NewData", d.auto}, {"NewDenseData", d.dense}}
}

// TestAgainstReference checks every built-in kernel, and two user-defined
// ones, against float64 values computed from the definitions, through
// every path that computes kernel values: Block, Matrix, Full rows, Cache
// rows, EvalSparse and EvalDense; on every SIMD tier, for data sets of
// sizes refSizes and widths refWidths with mixed densities, stored densely
// and as CSR.
func TestAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	g := 0
	small := raceOn || testing.Short()
	if testing.Short() {
		t.Log("-short: the sets of 255 rows, of more than 257 rows and of more than 64 columns are left out")
	}
	for _, n := range refSizes {
		for _, w := range refWidths {
			p := refDensities[g%len(refDensities)]
			g++
			if small && (n > 257 || n == 255 || w > 64) {
				continue
			}
			// Keep the cost of the larger sets bounded: n²·w·p products.
			if lim := 3e7 / float64(n*n*w+1); p > lim {
				p = lim
			}
			d := newDataset(r, n, w, p)
			seed := uint64(g)
			t.Run(d.name, func(t *testing.T) {
				for _, k := range append(builtins(w, p), cosine{}, laplace{gamma: 1 / (float64(w)*p + 1)}) {
					t.Run(k.String(), func(t *testing.T) {
						if _, ok := k.(DotKernel); !ok {
							// A pairwise kernel does not depend on the
							// tier: once is enough.
							checkAll(t, d, k, rand.New(rand.NewPCG(seed, 3)))
							return
						}
						forTiers(t, func(t *testing.T) {
							checkAll(t, d, k, rand.New(rand.NewPCG(seed, 3)))
						})
					})
				}
			})
		}
	}
}

func checkAll(t *testing.T, d *dataset, k Kernel, r *rand.Rand) {
	for _, v := range d.variants() {
		checkFull(t, d, v.name, v.data, k)
		checkCache(t, d, v.name, v.data, k, r)
		checkEval(t, d, v.name, v.data, k, r)
	}
	for _, a := range d.variants() {
		for _, b := range d.variants() {
			checkBlock(t, d, a.name+"×"+b.name, a.data, b.data, k, r)
		}
	}
	checkMatrix(t, d, k, r)
}

func checkFull(t *testing.T, d *dataset, name string, data *Data, k Kernel) {
	g := NewFull(k, data)
	n := d.n
	if g.N() != n || len(g.Matrix()) != n*n {
		t.Fatalf("%s Full: N()=%d, len(Matrix())=%d for n=%d", name, g.N(), len(g.Matrix()), n)
	}
	m := &mismatches{t: t, what: name + " Full"}
	for i := range n {
		row := g.Row(i)
		if len(row) != n || cap(row) != n {
			t.Fatalf("%s Full.Row(%d): len %d cap %d, want %d", name, i, len(row), cap(row), n)
		}
		for j, got := range row {
			want, tol := d.want(k, i, j)
			m.check(got, want, tol, "K[i][j]", i, j)
		}
		if math.Float32bits(g.Diag(i)) != math.Float32bits(row[i]) {
			t.Errorf("%s Full.Diag(%d) = %v, Row(%d)[%d] = %v", name, i, g.Diag(i), i, i, row[i])
		}
	}
	m.done()
	st := g.Stats()
	if want := fullEntries(n); !st.Full || st.Rows != n || st.Bytes != int64(n)*int64(n)*4 || st.Computed != want || st.Hits != 0 || st.Misses != 0 {
		t.Errorf("%s Full.Stats() = %+v, want Full, Rows %d, Bytes %d, Computed %d", name, st, n, n*n*4, want)
	}
}

// fullEntries counts the entries of the 256×256 tiles on and above the
// diagonal of an n×n matrix.
func fullEntries(n int) int64 {
	const T = 256
	var s int64
	for i0 := 0; i0 < n; i0 += T {
		for j0 := i0; j0 < n; j0 += T {
			s += int64(min(T, n-i0)) * int64(min(T, n-j0))
		}
	}
	return s
}

func checkCache(t *testing.T, d *dataset, name string, data *Data, k Kernel, r *rand.Rand) {
	n := d.n
	c := NewCache(k, data, 3)
	if c.N() != n {
		t.Fatalf("%s Cache.N() = %d, want %d", name, c.N(), n)
	}
	m := &mismatches{t: t, what: name + " Cache"}
	for i := range n {
		want, tol := d.want(k, i, i)
		m.check(c.Diag(i), want, tol, "Diag(i)", i, i)
	}
	if n == 0 {
		m.done()
		return
	}
	seq := []int{0, n - 1, n / 2, 0, (n + 1) / 3}
	for range 6 {
		seq = append(seq, r.IntN(n))
	}
	seq = append(seq, n-1, 0)
	for _, i := range seq {
		row := c.Row(i)
		if len(row) != n {
			t.Fatalf("%s Cache.Row(%d): len %d, want %d", name, i, len(row), n)
		}
		for j, got := range row {
			want, tol := d.want(k, i, j)
			m.check(got, want, tol, "row i, entry j", i, j)
		}
		if !near(row[i], float64(c.Diag(i)), 8*eps32*math.Abs(float64(row[i]))+1e-30) {
			t.Errorf("%s Cache.Row(%d)[%d] = %v, Diag = %v", name, i, i, row[i], c.Diag(i))
		}
	}
	m.done()
	st := c.Stats()
	if st.Hits+st.Misses != int64(len(seq)) || st.Computed != int64(n)*(1+st.Misses) || st.Full {
		t.Errorf("%s Cache.Stats() = %+v after %d Row calls", name, st, len(seq))
	}
}

func checkEval(t *testing.T, d *dataset, name string, data *Data, k Kernel, r *rand.Rand) {
	n, w := d.n, d.w
	if n == 0 {
		return
	}
	dst, guards := guarded(n, 4)
	buf := make([]float32, w+5)
	m := &mismatches{t: t, what: name + " Eval"}
	for q := range 4 {
		i := r.IntN(n)
		if q == 0 {
			i = 0
		}
		x := d.rows[i]
		data.EvalSparse(k, sparseOf(x, w), dst, buf)
		for j, got := range dst {
			want, tol := d.want(k, i, j)
			m.check(got, want, tol, "EvalSparse", i, j)
		}
		data.EvalDense(k, x, dst, buf)
		for j, got := range dst {
			want, tol := d.want(k, i, j)
			m.check(got, want, tol, "EvalDense", i, j)
		}
	}
	m.done()
	guards(t, func(int) bool { return true })
	for j, v := range buf {
		if v != 0 {
			t.Fatalf("%s: scratch buf[%d] = %v after Eval, want 0", name, j, v)
		}
	}
}

func checkBlock(t *testing.T, d *dataset, name string, a, b *Data, k Kernel, r *rand.Rand) {
	n := d.n
	type rng struct{ lo, hi int }
	pick := func() rng {
		if n == 0 {
			return rng{0, 0}
		}
		lo := r.IntN(n)
		return rng{lo, lo + r.IntN(min(n-lo, 70)+1)}
	}
	cases := [][2]rng{{{0, min(n, 40)}, {0, n}}, {pick(), pick()}, {pick(), pick()}, {{n, n}, {0, n}}}
	m := &mismatches{t: t, what: name + " Block"}
	for _, c := range cases {
		i0, i1, j0, j1 := c[0].lo, c[0].hi, c[1].lo, c[1].hi
		nb := j1 - j0
		ld := nb + 3
		rows := i1 - i0
		size := max(rows*ld-3, 0)
		dst, guards := guarded(size, 8)
		Block(k, a, i0, i1, b, j0, j1, dst, ld)
		label := fmt.Sprintf("[%d:%d]×[%d:%d]", i0, i1, j0, j1)
		guards(t, func(e int) bool { return e%ld < nb })
		for i := i0; i < i1; i++ {
			for j := j0; j < j1; j++ {
				want, tol := d.want(k, i, j)
				m.check(dst[(i-i0)*ld+j-j0], want, tol, label, i, j)
			}
		}
	}
	m.done()
}

// checkMatrix computes the kernel between up to 40 rows of the set (taken
// backwards, as a separate Data, dense and sparse) and the whole set.
func checkMatrix(t *testing.T, d *dataset, k Kernel, r *rand.Rand) {
	n, w := d.n, d.w
	q := min(n, 40)
	idx := make([]int, q)
	qrows := make([][]float32, q)
	for i := range idx {
		idx[i] = n - 1 - i
		qrows[i] = d.rows[idx[i]]
	}
	qs := []*Data{NewData(toCSR(qrows, w)), NewDenseData(flat(qrows, w), q, w)}
	for qi, a := range qs {
		for _, b := range []*Data{d.auto, d.dense} {
			dst, guards := guarded(q*n, 8)
			Matrix(k, a, b, dst)
			guards(t, func(int) bool { return true })
			m := &mismatches{t: t, what: fmt.Sprintf("Matrix(q%d dense=%v, dense=%v)", qi, a.IsDense(), b.IsDense())}
			for i := range q {
				for j := range n {
					want, tol := d.want(k, idx[i], j)
					m.check(dst[i*n+j], want, tol, "entry", i, j)
				}
			}
			m.done()
		}
	}
}

// TestUserKernelPairs checks that a Kernel that is not a DotKernel is
// called exactly once per entry by Matrix (on all cores, concurrently: run
// with -race), Block, Full (upper tiles only), and per computed row by
// Cache and Eval.
func TestUserKernelPairs(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for _, p := range []float64{1, 0.05} {
		d := newDataset(r, 300, 20, p)
		var calls atomic.Int64
		k := laplace{gamma: 0.1, calls: &calls}
		for _, v := range d.variants() {
			t.Run(d.name+"/"+v.name, func(t *testing.T) {
				calls.Store(0)
				dst := make([]float32, 300*300)
				Matrix(k, v.data, v.data, dst)
				if got := calls.Load(); got != 300*300 {
					t.Errorf("Matrix called the kernel %d times, want %d", got, 300*300)
				}
				m := &mismatches{t: t, what: "Matrix"}
				for i := range 300 {
					for j := range 300 {
						want, tol := d.want(k, i, j)
						m.check(dst[i*300+j], want, tol, "entry", i, j)
					}
				}
				m.done()

				calls.Store(0)
				g := NewFull(k, v.data)
				if got, want := calls.Load(), fullEntries(300); got != want {
					t.Errorf("NewFull called the kernel %d times, want %d (the upper tiles)", got, want)
				}
				for i := range 300 {
					for j := range 300 {
						if dst[i*300+j] != g.Row(i)[j] {
							t.Fatalf("Full[%d][%d] = %v, Matrix = %v", i, j, g.Row(i)[j], dst[i*300+j])
						}
					}
				}

				calls.Store(0)
				c := NewCache(k, v.data, 2)
				if got := calls.Load(); got != 300 {
					t.Errorf("NewCache called the kernel %d times for the diagonal, want 300", got)
				}
				for _, i := range []int{5, 7, 5, 299} {
					row := c.Row(i)
					for j := range 300 {
						if row[j] != dst[i*300+j] {
							t.Fatalf("Cache row %d [%d] = %v, Matrix = %v", i, j, row[j], dst[i*300+j])
						}
					}
				}
				if got := calls.Load(); got != 300+3*300 {
					t.Errorf("Cache: %d kernel calls, want %d (diagonal and three misses)", got, 300+3*300)
				}
			})
		}
	}
}

// TestTierRestored: the tier forced by the tests is put back.
func TestTierRestored(t *testing.T) {
	before := asm.Active()
	forTiers(t, func(t *testing.T) {})
	if asm.Active() != before {
		t.Fatalf("tier %v after forTiers, want %v", asm.Active(), before)
	}
}
