package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

// TestNewDataLayout: NewData densifies at a quarter of nonzeros and keeps
// the CSR below; the accessors agree with the rows either way.
func TestNewDataLayout(t *testing.T) {
	quarter := [][]float32{{1, 0, 0, 0}, {0, -2, 0, 0}, {0, 0, 0, 3}, {0, 0, 0.5, 0}} // 4 of 16
	below := [][]float32{{1, 0, 0, 0}, {0, -2, 0, 0}, {0, 0, 0, 3}, {0, 0, 0, 0}}     // 3 of 16
	for _, c := range []struct {
		name  string
		rows  [][]float32
		w     int
		dense bool
	}{
		{"quarter", quarter, 4, true},
		{"below", below, 4, false},
		{"empty rows", [][]float32{{0, 0}, {0, 0}}, 2, false},
		{"no rows", nil, 5, false},
		{"full", [][]float32{{1, 2, 3}, {4, 5, 6}}, 3, true},
		{"zero width", [][]float32{{}, {}}, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			X := toCSR(c.rows, c.w)
			for _, d := range []*Data{NewData(X), NewDenseData(flat(c.rows, c.w), len(c.rows), c.w)} {
				isNew := d.src != nil
				if isNew && d.IsDense() != c.dense {
					t.Errorf("NewData: IsDense() = %v, want %v", d.IsDense(), c.dense)
				}
				if d.Rows() != len(c.rows) || d.Dim() != c.w {
					t.Errorf("Rows(), Dim() = %d, %d; want %d, %d", d.Rows(), d.Dim(), len(c.rows), c.w)
				}
				for i, row := range c.rows {
					var ss float64
					for _, v := range row {
						ss += float64(v) * float64(v)
					}
					if math.Abs(float64(d.Norm2(i))-ss) > 1e-6*ss {
						t.Errorf("Norm2(%d) = %v, want %v", i, d.Norm2(i), ss)
					}
					dr := d.DenseRow(i)
					if d.IsDense() {
						if len(dr) != c.w || cap(dr) != c.w {
							t.Errorf("DenseRow(%d): len %d cap %d", i, len(dr), cap(dr))
						}
						for j := range row {
							if dr[j] != row[j] {
								t.Errorf("DenseRow(%d) = %v, want %v", i, dr, row)
								break
							}
						}
					} else if dr != nil {
						t.Errorf("DenseRow(%d) of sparse data = %v, want nil", i, dr)
					}
					sv := d.SparseRow(i)
					want := sparseOf(row, c.w)
					if sv.Dim != c.w || fmt.Sprint(sv.Ind, sv.Val) != fmt.Sprint(want.Ind, want.Val) {
						t.Errorf("SparseRow(%d) = %+v, want %+v", i, sv, want)
					}
					if err := sv.Validate(); err != nil {
						t.Errorf("SparseRow(%d): %v", i, err)
					}
				}
			}
		})
	}
	mustPanic(t, "NewDenseData with len(x) != n*dim", func() { NewDenseData(make([]float32, 5), 2, 3) })
}

// TestZeroWidthDenseNil is a regression test for a bug: NewDenseData(nil,
// n, 0) passes its length check (0 == n·0) but leaves the Data with
// neither dense rows nor a CSR, so Block, Matrix, NewFull and NewCache
// take the sparse path and dereference the nil CSR. With an empty non-nil
// slice the same rows work. Every kernel value over zero-width rows is
// K(0, 0).
func TestZeroWidthDenseNil(t *testing.T) {
	for _, x := range [][]float32{{}, nil} {
		d := NewDenseData(x, 3, 0)
		for name, f := range map[string]func() []float32{
			"Block": func() []float32 {
				dst := make([]float32, 9)
				Block(RBF{}, d, 0, 3, d, 0, 3, dst, 3)
				return dst
			},
			"Matrix": func() []float32 {
				dst := make([]float32, 9)
				Matrix(RBF{}, d, d, dst)
				return dst
			},
			"NewFull":  func() []float32 { return NewFull(RBF{}, d).Matrix() },
			"NewCache": func() []float32 { return NewCache(RBF{}, d, 2).Row(1) },
		} {
			func() {
				defer func() {
					if e := recover(); e != nil {
						t.Errorf("BUG (data.go NewDenseData keeps a nil x: neither dense nor CSR): NewDenseData(%#v, 3, 0) then %s panics: %v", x, name, e)
					}
				}()
				for _, v := range f() {
					if v != 1 {
						t.Errorf("NewDenseData(%#v, 3, 0): %s gives %v, want all 1 (RBF of two zero rows)", x, name, v)
						break
					}
				}
			}()
		}
	}
}

// widthCase is a data set a of width wa and b of width wb.
type widthCase struct {
	wa, wb int
	pa, pb float64
}

// TestWidthMismatch: Block and Matrix on data sets of different widths,
// every storage combination: the features only one side has count in its
// norm and add nothing to the dot product.
func TestWidthMismatch(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	cases := []widthCase{{3, 16, 1, 1}, {16, 3, 1, 1}, {64, 300, 0.5, 0.05}, {300, 64, 0.05, 0.5}, {1, 5, 1, 0.1}, {40, 41, 0.1, 0.1}, {7, 0, 1, 1}}
	if testing.Short() {
		// The float64 reference over 300 columns is most of the test.
		t.Log("-short: the cases of 300 columns are left out")
		cases = slices.DeleteFunc(cases, func(c widthCase) bool { return c.wa == 300 || c.wb == 300 })
	}
	forTiers(t, func(t *testing.T) {
		for _, c := range cases {
			na, nb := 37, 45
			ra, rb := genRows(r, na, c.wa, c.pa), genRows(r, nb, c.wb, c.pb)
			as := []*Data{NewData(toCSR(ra, c.wa)), NewDenseData(flat(ra, c.wa), na, c.wa)}
			bs := []*Data{NewData(toCSR(rb, c.wb)), NewDenseData(flat(rb, c.wb), nb, c.wb)}
			if c.pa < 0.25 {
				// A CSR set that is wide but dense enough to be stored
				// densely by NewData is covered by NewDenseData; add a
				// really sparse one.
				as = append(as, NewData(toCSR(genRows(r, na, c.wa, 0.02), c.wa)))
			}
			ks := append(builtins(max(c.wa, c.wb), 0.5), cosine{}, laplace{gamma: 0.05})
			for _, a := range as {
				for _, b := range bs {
					rowsA := make([][]float32, na)
					for i := range na {
						rowsA[i] = denseRowOf(a, i)
					}
					for _, k := range ks {
						name := fmt.Sprintf("wa=%d(dense=%v) wb=%d(dense=%v) %v", c.wa, a.IsDense(), c.wb, b.IsDense(), k)
						m := &mismatches{t: t, what: name}
						dst := make([]float32, na*nb)
						Matrix(k, a, b, dst)
						for i := range na {
							for j := range nb {
								want, tol := expect(k, rowsA[i], rb[j])
								m.check(dst[i*nb+j], want, tol, "Matrix", i, j)
							}
						}
						i0, i1, j0, j1 := 3, 30, 5, 44
						ld := j1 - j0 + 2
						blk, guards := guarded((i1-i0)*ld, 4)
						Block(k, a, i0, i1, b, j0, j1, blk, ld)
						guards(t, func(e int) bool { return e%ld < j1-j0 })
						for i := i0; i < i1; i++ {
							for j := j0; j < j1; j++ {
								want, tol := expect(k, rowsA[i], rb[j])
								m.check(blk[(i-i0)*ld+j-j0], want, tol, "Block", i, j)
							}
						}
						m.done()
					}
				}
			}
		}
	})
}

// denseRowOf returns row i of d as a dense slice of width d.Dim().
func denseRowOf(d *Data, i int) []float32 {
	if r := d.DenseRow(i); r != nil {
		return r
	}
	x := make([]float32, d.Dim())
	v := d.SparseRow(i)
	for k, j := range v.Ind {
		x[j] = v.Val[k]
	}
	return x
}

// TestEvalWidthMismatch: EvalSparse with features at or past Dim (they
// count in ‖x‖² only), EvalDense with x shorter than Dim (zeros) and longer
// (extra features in ‖x‖² only, no scratch needed); the scratch is left
// zero.
func TestEvalWidthMismatch(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 3))
	forTiers(t, func(t *testing.T) {
		for _, c := range []struct {
			w int
			p float64
		}{{16, 1}, {16, 0.1}, {300, 0.02}, {300, 0.6}, {1, 1}} {
			n := 29
			rows := genRows(r, n, c.w, c.p)
			for _, d := range []*Data{NewData(toCSR(rows, c.w)), NewDenseData(flat(rows, c.w), n, c.w)} {
				for _, k := range append(builtins(c.w, c.p), cosine{}, laplace{gamma: 0.05}) {
					name := fmt.Sprintf("w=%d dense=%v %v", c.w, d.IsDense(), k)
					m := &mismatches{t: t, what: name}
					buf := make([]float32, c.w+7)
					dst, guards := guarded(n, 3)
					check := func(how string, x []float32) {
						for j, got := range dst {
							want, tol := expect(k, x, rows[j])
							m.check(got, want, tol, how, len(x), j)
						}
						for j, v := range buf {
							if v != 0 {
								t.Fatalf("%s %s: buf[%d] = %v after the call", name, how, j, v)
							}
						}
					}
					for q := range 3 {
						base := rows[(q*7+1)%n]
						// Features past Dim, in a sparse x.
						long := append(append([]float32(nil), base...), 0, 2.5, 0, -1.5)
						v := sparseOf(long, len(long))
						d.EvalSparse(k, v, dst, buf)
						check("EvalSparse past Dim", long)
						// A sparse x whose Dim is smaller than the data's.
						short := append([]float32(nil), base[:c.w/2]...)
						d.EvalSparse(k, sparseOf(short, len(short)), dst, buf)
						check("EvalSparse short", short)
						// Dense x: equal, longer (no scratch), shorter, empty.
						d.EvalDense(k, base, dst, nil)
						check("EvalDense", base)
						d.EvalDense(k, long, dst, nil)
						check("EvalDense long", long)
						d.EvalDense(k, short, dst, buf)
						check("EvalDense short", short)
						d.EvalDense(k, nil, dst, buf)
						check("EvalDense empty", nil)
					}
					m.done()
					guards(t, func(int) bool { return true })
				}
			}
		}
	})
}

// TestEvalScratchPanics: a DotKernel needs scratch of Dim elements for a
// sparse x, and for a dense x shorter than Dim.
func TestEvalScratchPanics(t *testing.T) {
	rows := [][]float32{{1, 2, 3, 4}, {0, 1, 0, 1}}
	d := NewDenseData(flat(rows, 4), 2, 4)
	dst := make([]float32, 2)
	x := sparse.Vector{Dim: 4, Ind: []int32{1}, Val: []float32{1}}
	mustPanic(t, "EvalSparse with short scratch", func() { d.EvalSparse(RBF{}, x, dst, make([]float32, 3)) })
	mustPanic(t, "EvalDense with short x and scratch", func() { d.EvalDense(RBF{}, []float32{1, 2}, dst, make([]float32, 3)) })
	mustPanic(t, "EvalSparse with short dst", func() { d.EvalSparse(RBF{}, x, dst[:1:1], make([]float32, 4)) })
	mustPanic(t, "EvalDense with short dst", func() { d.EvalDense(RBF{}, []float32{1, 2, 3, 4}, dst[:1:1], nil) })
	// A user kernel needs no scratch.
	d.EvalSparse(laplace{gamma: 1}, x, dst, nil)
	d.EvalDense(laplace{gamma: 1}, []float32{1}, dst, nil)
}

// TestEvalShortDstWithSpareCapacity is a regression test for a bug:
// EvalSparse and EvalDense document len(dst) ≥ d.Rows() but reslice
// dst[:d.n], which checks only the capacity. A dst that is a short window
// of a larger buffer is accepted and the elements past its length are
// overwritten, where Block and Matrix panic.
func TestEvalShortDstWithSpareCapacity(t *testing.T) {
	rows := [][]float32{{1, 2}, {3, 4}, {5, 6}}
	d := NewDenseData(flat(rows, 2), 3, 2)
	for name, f := range map[string]func(dst []float32){
		"EvalSparse": func(dst []float32) {
			d.EvalSparse(Linear{}, sparse.Vector{Dim: 2, Ind: []int32{0}, Val: []float32{1}}, dst, make([]float32, 2))
		},
		"EvalDense": func(dst []float32) { d.EvalDense(Linear{}, []float32{1, 0}, dst, nil) },
	} {
		buf := []float32{-1, -1, -1, -1}
		panicked := func() (p bool) {
			defer func() { p = recover() != nil }()
			f(buf[:1])
			return false
		}()
		if !panicked && (buf[1] != -1 || buf[2] != -1) {
			t.Errorf("BUG (data.go %s: dst = dst[:d.n] does not check len(dst)): a dst of length 1 for 3 rows was accepted and the caller's buffer past it overwritten: %v", name, buf)
		}
	}
}

// TestEvalZeroAllocs: EvalSparse and EvalDense with a DotKernel allocate
// nothing, on dense and CSR data.
func TestEvalZeroAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 4))
	for _, p := range []float64{1, 0.05} {
		const n, w = 200, 64
		rows := genRows(r, n, w, p)
		x := rows[1]
		if p < 1 {
			x = genRows(r, 2, w, 0.3)[1]
		}
		xs := sparseOf(append(append([]float32(nil), x...), 1, 2), w+2)
		long := append(append([]float32(nil), x...), 3)
		short := x[:w-5]
		for _, d := range []*Data{NewData(toCSR(rows, w)), NewDenseData(flat(rows, w), n, w)} {
			dst, buf := make([]float32, n), make([]float32, w)
			for _, k := range []Kernel{Linear{}, Poly{Degree: 4, Coef0: 1}, RBF{Gamma: 0.01}, Sigmoid{Gamma: 0.01}, cosine{}} {
				for name, f := range map[string]func(){
					"EvalSparse":       func() { d.EvalSparse(k, xs, dst, buf) },
					"EvalDense":        func() { d.EvalDense(k, x, dst, buf) },
					"EvalDense(long)":  func() { d.EvalDense(k, long, dst, nil) },
					"EvalDense(short)": func() { d.EvalDense(k, short, dst, buf) },
				} {
					if a := testing.AllocsPerRun(20, f); a != 0 {
						t.Errorf("p=%v dense=%v %v %s: %v allocations per call, want 0", p, d.IsDense(), k, name, a)
					}
				}
			}
		}
	}
}

// TestConcurrentReaders: Data and Full are safe for concurrent use (run
// with -race): several goroutines evaluate rows against the same Data and
// read the same Full matrix.
func TestConcurrentReaders(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 5))
	for _, p := range []float64{1, 0.05} {
		const n, w = 120, 30
		rows := genRows(r, n, w, p)
		d := NewData(toCSR(rows, w))
		k := RBF{Gamma: 0.05}
		f := NewFull(k, d)
		var wg sync.WaitGroup
		errs := make(chan string, 8)
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				dst, buf := make([]float32, n), make([]float32, w)
				for i := g; i < n; i += 4 {
					d.EvalSparse(k, sparseOf(rows[i], w), dst, buf)
					for j, got := range dst {
						want, tol := expect(k, rows[i], rows[j])
						if !near(got, want, tol) || !near(f.Row(i)[j], want, tol) {
							errs <- fmt.Sprintf("row %d [%d]: Eval %v, Full %v, want %v", i, j, got, f.Row(i)[j], want)
							return
						}
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Error(e)
		}
	}
}

// TestBlockPanics: out-of-range arguments panic like slice indexing.
func TestBlockPanics(t *testing.T) {
	rows := [][]float32{{1, 2}, {3, 4}, {5, 6}}
	a := NewDenseData(flat(rows, 2), 3, 2)
	b := NewData(toCSR(rows, 2))
	dst := make([]float32, 9)
	for _, c := range []struct {
		name               string
		i0, i1, j0, j1, ld int
		dst                []float32
	}{
		{"i0 < 0", -1, 2, 0, 3, 3, dst},
		{"i1 > n", 0, 4, 0, 3, 3, dst},
		{"j0 < 0", 0, 3, -1, 3, 4, dst},
		{"j1 > m", 0, 3, 0, 4, 4, dst},
		{"ld < cols", 0, 3, 0, 3, 2, dst},
		{"dst too short", 0, 3, 0, 3, 3, dst[:8]},
		{"dst too short for ld", 0, 3, 0, 2, 4, dst},
	} {
		mustPanic(t, "Block "+c.name, func() { Block(RBF{}, a, c.i0, c.i1, b, c.j0, c.j1, c.dst, c.ld) })
	}
	// Empty ranges write nothing and need no dst.
	Block(RBF{}, a, 2, 2, b, 0, 3, nil, 3)
	Block(RBF{}, a, 0, 3, b, 1, 1, nil, 0)
	// Exactly long enough: the last row needs only its own columns.
	Block(Linear{}, a, 0, 3, b, 0, 2, make([]float32, 2*5+2), 5)
	mustPanic(t, "Matrix dst too short", func() { Matrix(RBF{}, a, b, make([]float32, 8)) })
}

// TestMatrixTiles: Matrix splits the product into tiles of 32 rows and
// 1024 columns; sizes around those edges give every entry right, written
// once, on all cores.
func TestMatrixTiles(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 6))
	for _, c := range []struct{ na, nb, w int }{{65, 2100, 5}, {33, 1025, 3}, {1, 1024, 9}, {32, 1, 4}} {
		for _, p := range []float64{1, 0.1} {
			ra, rb := genRows(r, c.na, c.w, p), genRows(r, c.nb, c.w, p)
			a, b := NewData(toCSR(ra, c.w)), NewData(toCSR(rb, c.w))
			for _, k := range []Kernel{RBF{Gamma: 0.2}, Poly{Degree: 2, Coef0: 1}, cosine{}, laplace{gamma: 0.3}} {
				dst, guards := guarded(c.na*c.nb, 16)
				Matrix(k, a, b, dst)
				guards(t, func(int) bool { return true })
				m := &mismatches{t: t, what: fmt.Sprintf("%d×%d w=%d p=%v %v", c.na, c.nb, c.w, p, k)}
				for i := range c.na {
					for j := range c.nb {
						want, tol := expect(k, ra[i], rb[j])
						m.check(dst[i*c.nb+j], want, tol, "entry", i, j)
					}
				}
				m.done()
			}
		}
	}
}

// TestZeroWidthDenseMany: zero-width dense data with enough rows for the
// block loops' parallel paths (NewFull past 256 rows, Matrix past 1024, a
// cached row past 32768) gives all-ones RBF rows instead of a panic in a
// worker goroutine, which no caller could recover.
func TestZeroWidthDenseMany(t *testing.T) {
	d := NewDenseData([]float32{}, 2000, 0)
	full := NewFull(RBF{}, d).Matrix()
	dst := make([]float32, 2000*2000)
	Matrix(RBF{}, d, d, dst)
	big := NewDenseData([]float32{}, 33000, 0)
	row := NewCache(RBF{}, big, 1<<30).Row(5)
	for name, vals := range map[string][]float32{"NewFull": full, "Matrix": dst, "Cache row": row} {
		for i, v := range vals {
			if v != 1 {
				t.Fatalf("%s[%d] = %v, want 1", name, i, v)
			}
		}
	}
}
