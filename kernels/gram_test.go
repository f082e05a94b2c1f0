package kernels

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestFullSymmetricExactly: every entry of a Full matrix equals its mirror
// bit for bit, including the entries of the tiles on the diagonal, for
// every kernel, dense and sparse data, on every tier.
//
// It fails on the code as written (a bug): NewFull mirrors only the tiles
// off the diagonal; a diagonal tile computes K[i][j] and K[j][i]
// separately, and they round differently whenever the two sums run in
// different orders (sparse rows: DotRows walks the nonzeros of one row or
// the other, with two or more accumulators) or RBF's Apply treats ‖x_i‖²
// and ‖x_j‖² asymmetrically or evaluates exp differently by position (vek32's
// AVX2 exp on whole groups of 8, math32.Exp on the tail).
func TestFullSymmetricExactly(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	var sets []*dataset
	if testing.Short() {
		t.Log("-short: the sets of more than 257 rows are left out")
	}
	for _, c := range []struct {
		n, w int
		p    float64
	}{{17, 16, 1}, {255, 16, 1}, {257, 24, 1}, {600, 16, 1}, {17, 300, 0.05}, {255, 200, 0.1}, {600, 300, 0.03}} {
		if (raceOn || testing.Short()) && c.n > 257 {
			continue
		}
		sets = append(sets, newDataset(r, c.n, c.w, c.p))
	}
	forTiers(t, func(t *testing.T) {
		var fails []string
		for _, d := range sets {
			for _, k := range append(builtins(d.w, d.p), cosine{}) {
				for _, v := range d.variants() {
					g := NewFull(k, v.data)
					n := d.n
					bad, first := 0, ""
					for i := range n {
						for j := i + 1; j < n; j++ {
							a, b := g.Row(i)[j], g.Row(j)[i]
							if math.Float32bits(a) != math.Float32bits(b) {
								if bad == 0 {
									first = fmt.Sprintf("K[%d][%d] = %v, K[%d][%d] = %v", i, j, a, j, i, b)
								}
								bad++
							}
						}
						if math.Float32bits(g.Diag(i)) != math.Float32bits(g.Row(i)[i]) {
							t.Errorf("%s %v %s: Diag(%d) = %v, Row(%d)[%d] = %v", d.name, k, v.name, i, g.Diag(i), i, i, g.Row(i)[i])
						}
					}
					if bad > 0 {
						fails = append(fails, fmt.Sprintf("%s %v %s: %d of %d pairs, e.g. %s", d.name, k, v.name, bad, n*(n-1)/2, first))
					}
				}
			}
		}
		if total := len(fails); total > 0 {
			more := ""
			if len(fails) > 6 {
				more = fmt.Sprintf("\n  … and %d more", len(fails)-6)
				fails = fails[:6]
			}
			t.Errorf("BUG (gram.go NewFull: tiles on the diagonal are computed whole, not mirrored): Full not bit-symmetric in %d cases:\n  %s%s",
				total, strings.Join(fails, "\n  "), more)
		}
	})
}

// TestFullStats checks Stats().Computed against hand counts of the
// upper-triangle tiles.
func TestFullStats(t *testing.T) {
	for _, c := range []struct {
		n    int
		want int64
	}{
		{0, 0}, {1, 1}, {3, 9}, {256, 65536},
		{257, 65536 + 256 + 1},
		{600, 3*65536 + 2*256*88 + 88*88},
	} {
		if got := fullEntries(c.n); got != c.want {
			t.Errorf("fullEntries(%d) = %d, want %d", c.n, got, c.want)
		}
		d := NewDenseData(make([]float32, c.n), c.n, 1)
		st := NewFull(Linear{}, d).Stats()
		if st != (Stats{Full: true, Rows: c.n, Bytes: int64(c.n) * int64(c.n) * 4, Computed: c.want}) {
			t.Errorf("n=%d: Stats() = %+v, want Computed %d", c.n, st, c.want)
		}
	}
}

// TestFullMatchesCache: a Full matrix and a row cache over the same data
// give the same rows (up to rounding: they may sum in different orders),
// and a cache as large as the matrix serves every row from memory the
// second time round.
func TestFullMatchesCache(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	for _, d := range []*dataset{newDataset(r, 300, 12, 1), newDataset(r, 280, 400, 0.05)} {
		for _, k := range builtins(d.w, d.p) {
			forTiers(t, func(t *testing.T) {
				for _, v := range d.variants() {
					f := NewFull(k, v.data)
					c := NewCache(k, v.data, d.n)
					diff := 0
					for pass := range 2 {
						for i := range d.n {
							row := c.Row(i)
							for j, got := range row {
								want := f.Row(i)[j]
								_, tol := d.want(k, i, j)
								if !near(got, float64(want), 2*tol) {
									t.Fatalf("%s %v %s: Cache row %d [%d] = %v, Full = %v", d.name, k, v.name, i, j, got, want)
								}
								if pass == 0 && got != want {
									diff++
								}
							}
							if !near(c.Diag(i), float64(f.Diag(i)), 8*eps32) {
								t.Fatalf("%s %v %s: Cache.Diag(%d) = %v, Full.Diag = %v", d.name, k, v.name, i, c.Diag(i), f.Diag(i))
							}
						}
					}
					if diff > 0 {
						t.Logf("%s %v %s: %d of %d entries differ in rounding between Full and Cache", d.name, k, v.name, diff, d.n*d.n)
					}
					st := c.Stats()
					n := int64(d.n)
					over := 4 * n // the diagonal, and dense data's transposed copy
					if v.data.IsDense() {
						over += 4 * n * int64(v.data.Dim())
					}
					if st.Misses != n || st.Hits != n || st.Computed != n+n*n || st.Rows != d.n || st.Bytes != 4*n*n+over || st.Full {
						t.Errorf("%s %v %s: Stats() = %+v after two passes over every row", d.name, k, v.name, st)
					}
				}
			})
		}
	}
}

// TestCacheLRU follows the cache's recency order through fills, touches
// and evictions, telling a hit from a recomputation by the counters.
func TestCacheLRU(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 1))
	d := newDataset(r, 10, 5, 1)
	k := RBF{Gamma: 0.3}
	c := NewCache(k, d.auto, 3)
	if st := c.Stats(); st.Rows != 3 || st.Bytes != 3*10*4+10*4+10*5*4 || st.Computed != 10 || st.Hits != 0 || st.Misses != 0 || st.Full {
		t.Fatalf("new Cache: Stats() = %+v", st)
	}
	var hits, misses int64
	step := func(i int, hit bool) {
		t.Helper()
		row := c.Row(i)
		if hit {
			hits++
		} else {
			misses++
		}
		st := c.Stats()
		if st.Hits != hits || st.Misses != misses || st.Computed != 10+10*misses {
			t.Fatalf("Row(%d): want hit=%v; Stats() = %+v, want %d hits, %d misses", i, hit, st, hits, misses)
		}
		m := &mismatches{t: t, what: fmt.Sprintf("Row(%d)", i)}
		for j, got := range row {
			want, tol := d.want(k, i, j)
			m.check(got, want, tol, "row i, entry j", i, j)
		}
		m.done()
	}
	// Fill: order (most recent first) 2 1 0.
	step(0, false)
	step(1, false)
	step(2, false)
	// Touch 0: 0 2 1.
	step(0, true)
	// 3 evicts the least recent, 1: 3 0 2.
	step(3, false)
	step(2, true) // 2 3 0
	step(0, true) // 0 2 3
	// 1 was evicted: recomputed, evicting 3: 1 0 2.
	step(1, false)
	step(3, false) // evicts 2: 3 1 0
	step(0, true)  // 0 3 1
	step(2, false) // evicts 1: 2 0 3
	step(3, true)  // 3 2 0
	step(1, false) // evicts 0: 1 3 2
	step(2, true)
	step(3, true)
	step(0, false)
	// Repeating the head is a hit and keeps the order.
	step(0, true)
	step(0, true)

	// Churn: the returned slice holds the right row right after each
	// eviction, and a slot reused for another row no longer shows the old
	// one.
	for s := range 200 {
		i := (s*7 + s/3) % 10
		row := c.Row(i)
		for j, got := range row {
			want, tol := d.want(k, i, j)
			if !near(got, want, tol) {
				t.Fatalf("churn step %d: Row(%d)[%d] = %v, want %v", s, i, j, got, want)
			}
		}
	}
}

// TestCacheCapacity: at least two rows, at most n.
func TestCacheCapacity(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 2))
	d := newDataset(r, 10, 4, 1)
	for _, c := range []struct{ ask, want int }{{-1, 2}, {0, 2}, {1, 2}, {2, 2}, {7, 7}, {10, 10}, {1000, 10}} {
		g := NewCache(Linear{}, d.dense, c.ask)
		if st := g.Stats(); st.Rows != c.want || st.Bytes != int64(c.want)*10*4+10*4+10*4*4 {
			t.Errorf("NewCache(rows=%d): Stats() = %+v, want %d rows", c.ask, st, c.want)
		}
	}
	// Capacity 2 with two alternating rows: all hits after the fill; a
	// third row always misses.
	g := NewCache(Linear{}, d.dense, 1)
	for range 5 {
		g.Row(0)
		g.Row(1)
	}
	if st := g.Stats(); st.Misses != 2 || st.Hits != 8 {
		t.Errorf("two rows in a 2-row cache: Stats() = %+v, want 2 misses, 8 hits", st)
	}
	for i := range 6 {
		g.Row(2 + i%3)
	}
	if st := g.Stats(); st.Misses != 8 || st.Hits != 8 {
		t.Errorf("three rows cycled through a 2-row cache: Stats() = %+v, want 8 misses", st)
	}
	// Tiny sets.
	for _, n := range []int{0, 1} {
		d := NewDenseData(make([]float32, n*3), n, 3)
		g := NewCache(RBF{}, d, 5)
		if g.N() != n {
			t.Fatalf("n=%d: N() = %d", n, g.N())
		}
		if n == 1 {
			if row := g.Row(0); len(row) != 1 || row[0] != 1 || g.Diag(0) != 1 {
				t.Errorf("n=1: Row(0) = %v, Diag(0) = %v, want [1], 1", row, g.Diag(0))
			}
		}
	}
}

// TestCacheLargeRowHalves uses rows long enough that Cache computes them
// in two halves on two goroutines.
func TestCacheLargeRowHalves(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 3))
	for _, p := range []float64{1, 0.02} {
		const n, w = 1100, 40 // n·w ≥ 1<<15
		rows := genRows(r, n, w, p)
		for _, k := range []Kernel{RBF{Gamma: 0.05}, laplace{gamma: 0.1}, cosine{}} {
			forTiers(t, func(t *testing.T) {
				for _, data := range []*Data{NewData(toCSR(rows, w)), NewDenseData(flat(rows, w), n, w)} {
					c := NewCache(k, data, 2)
					m := &mismatches{t: t, what: fmt.Sprintf("p=%v %v dense=%v", p, k, data.IsDense())}
					for _, i := range []int{0, 549, 550, 1099, 3} {
						row := c.Row(i)
						for j, got := range row {
							want, tol := expect(k, rows[i], rows[j])
							m.check(got, want, tol, "row i, entry j", i, j)
						}
					}
					m.done()
				}
			})
		}
	}
}

// TestNewGram: with Precompute, Full when n²·4 fits the budget; otherwise
// a Cache of the rows that fit beside its copy of the (dense) data and the
// diagonal, all n when they fit; ErrBudget when fewer than two rows fit,
// and ErrKernel for an unusable kernel.
func TestNewGram(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 4))
	d := newDataset(r, 100, 8, 1)
	const n = 100
	const over = 4*n + 4*n*8 // diagonal and transposed dense data
	cases := []struct {
		opts     Options
		full     bool
		rows     int
		errBudge bool
	}{
		{Options{}, false, n, false},
		{Options{Precompute: true}, true, n, false},
		{Options{Budget: -5, Precompute: true}, true, n, false},
		{Options{Budget: n * n * 4, Precompute: true}, true, n, false},
		{Options{Budget: n*n*4 - 1, Precompute: true}, false, (n*n*4 - 1 - over) / (4 * n), false},
		{Options{Budget: n*n*4 + over}, false, n, false},
		{Options{Budget: n*n*4 + over - 1}, false, n - 1, false},
		{Options{Budget: 1 << 40}, false, n, false},
		{Options{Budget: 10*n*4 + over}, false, 10, false},
		{Options{Budget: 2*n*4 + over}, false, 2, false},
		{Options{Budget: 2*n*4 + over - 1}, false, 0, true},
		{Options{Budget: 1}, false, 0, true},
		{Options{Budget: 2*n*4 + over - 1, Precompute: true}, false, 0, true},
	}
	for _, c := range cases {
		g, err := NewGram(RBF{Gamma: 0.1}, d.auto, c.opts)
		if c.errBudge {
			if !errors.Is(err, ErrBudget) || g != nil {
				t.Errorf("%+v: NewGram = %v, %v; want ErrBudget", c.opts, g, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%+v: %v", c.opts, err)
			continue
		}
		st := g.Stats()
		_, isFull := g.(*Full)
		_, isCache := g.(*Cache)
		if st.Full != c.full || isFull != c.full || isCache == c.full || st.Rows != c.rows || g.N() != n {
			t.Errorf("%+v: %T with Stats() %+v; want full=%v rows=%d", c.opts, g, st, c.full, c.rows)
		}
		want := int64(c.rows) * n * 4
		if !c.full {
			want += over
		}
		if st.Bytes != want || (c.opts.Budget > 0 && st.Bytes > c.opts.Budget) {
			t.Errorf("%+v: Bytes = %d, want %d within the budget", c.opts, st.Bytes, want)
		}
		m := &mismatches{t: t, what: fmt.Sprintf("%+v", c.opts)}
		for _, i := range []int{0, 99, 50, 0} {
			for j, got := range g.Row(i) {
				want, tol := d.want(RBF{Gamma: 0.1}, i, j)
				m.check(got, want, tol, "row i, entry j", i, j)
			}
		}
		m.done()
	}
	// Unusable kernels.
	for _, k := range []Kernel{nil, RBF{Gamma: -1}, RBF{Gamma: math.NaN()}, Poly{Degree: MaxDegree + 1}, Sigmoid{Coef0: math.Inf(1)}} {
		if g, err := NewGram(k, d.auto, Options{}); !errors.Is(err, ErrKernel) || g != nil {
			t.Errorf("NewGram(%#v) = %v, %v; want ErrKernel", k, g, err)
		}
	}
	// Empty data: a Full matrix of nothing, or a cache of nothing.
	empty := NewData(toCSR(nil, 3))
	for _, o := range []Options{{}, {Precompute: true}} {
		g, err := NewGram(Linear{}, empty, o)
		if err != nil || g.N() != 0 {
			t.Errorf("empty data, %+v: %v, %v", o, g, err)
		}
	}
}
