package kernels

import (
	"fmt"
	"sync"
)

// DefaultBudget is the memory a Gram matrix may take when the caller
// gives no budget: 256 MiB, every row of up to 8,192 rows (LIBSVM's
// default cache is 100 MB, scikit-learn's 200 MB). On letter (15,000
// rows, 5,260 support vectors) it holds 4,473 rows, and training is no
// slower than with every row held: fresh memory is slow to touch, and a
// recomputed row is cheap.
const DefaultBudget = 256 << 20

// Gram gives the rows of the kernel matrix of one data set with itself.
type Gram interface {
	// N returns the number of rows (and columns).
	N() int
	// Row returns row i: K(x_i, x_j) for every j. The slice is read-only.
	// It stays valid until the next call of Row on a Cache; for a Full
	// matrix, for the matrix's life.
	Row(i int) []float32
	// Diag returns K(x_i, x_i).
	Diag(i int) float32
	// Stats returns what the matrix has cost so far.
	Stats() Stats
}

// Stats describes a Gram matrix: its kind and size, and for a row cache
// its hits and misses.
type Stats struct {
	Full     bool  `json:"full"`     // the whole matrix was precomputed
	Rows     int   `json:"rows"`     // rows held at once (n for Full)
	Bytes    int64 `json:"bytes"`    // memory held: rows, and a Cache's copy of the data
	Hits     int64 `json:"hits"`     // Row calls served from memory
	Misses   int64 `json:"misses"`   // Row calls that computed the row
	Computed int64 `json:"computed"` // kernel entries computed so far
}

// Options configures NewGram. The zero value is the default.
type Options struct {
	// Budget is the memory the Gram matrix may use, in bytes; 0 means
	// DefaultBudget. It covers the kernel rows held and, for a Cache, its
	// copy of the data and the diagonal.
	Budget int64
	// Precompute computes the whole n×n matrix at once, on all cores and
	// exploiting its symmetry, when it fits Budget (a Full). Otherwise
	// NewGram returns a Cache that computes rows when they are first asked
	// for and keeps as many as Budget holds: all n of them when they fit,
	// so nothing is ever computed twice, else the most recently used, as
	// LIBSVM's -m does. A learner that needs only some rows (the kernel
	// perceptron needs those of its support vectors) is faster without
	// Precompute; one that reads every row is faster with it.
	Precompute bool
}

// NewGram returns the Gram matrix of k over d: a Full with
// opts.Precompute when it fits opts.Budget, else a Cache. It fails with
// ErrBudget when the budget holds fewer than two rows.
func NewGram(k Kernel, d *Data, opts Options) (Gram, error) {
	if err := Check(k); err != nil {
		return nil, err
	}
	budget := opts.Budget
	if budget <= 0 {
		budget = DefaultBudget
	}
	n := int64(d.n)
	if opts.Precompute && n*n*4 <= budget {
		return NewFull(k, d), nil
	}
	// What a Cache holds beside its rows: the diagonal and, for dense
	// data, the transposed rows.
	over := 4 * n
	if d.dense != nil {
		over += 4 * n * int64(d.dim)
	}
	rows := (budget - over) / max(4*n, 1)
	if rows < 2 && n >= 2 {
		return nil, fmt.Errorf("%w: %d bytes hold %d rows of %d entries beside %d bytes of data; need at least 2", ErrBudget, budget, max(rows, 0), n, over)
	}
	return NewCache(k, d, int(min(rows, n))), nil
}

// diag computes K(x_i, x_i) for every row.
func diag(k Kernel, d *Data) []float32 {
	out := make([]float32, d.n)
	var w worker
	for i := range d.n {
		w.block(k, d, i, i+1, d, i, i+1, out[i:], 1, nil)
	}
	return out
}

// transposeAll returns the dim×n transpose of dense d, for the rank-1
// updates of the dense product.
func transposeAll(d *Data) []float32 {
	if d.dense == nil || d.dim == 0 {
		// (Zero-width rows: nothing to transpose, and the block loops
		// take nil as "transpose as you go", which costs nothing then.)
		return nil
	}
	n, dim := d.n, d.dim
	t := make([]float32, n*dim)
	const blk = 64
	for i0 := 0; i0 < n; i0 += blk {
		for i := i0; i < min(i0+blk, n); i++ {
			row := d.dense[i*dim : (i+1)*dim]
			for f, v := range row {
				t[f*n+i] = v
			}
		}
	}
	return t
}

// Full is the whole n×n Gram matrix in float32, computed once on all
// cores. Only the tiles on and above the diagonal are computed; each is
// mirrored below it, so every row is contiguous. Full is safe for
// concurrent use.
type Full struct {
	n     int
	k     []float32
	diag  []float32
	stats Stats
}

// fullTile is the side of the tiles the Full matrix is computed in: a
// tile row of 256 floats and, for dense data, a 256-column panel of the
// transposed data stay in L1 and L2 while the tile is computed.
const fullTile = 256

// NewFull computes the full Gram matrix of k over d (n² float32 entries).
func NewFull(k Kernel, d *Data) *Full {
	n := d.n
	g := &Full{n: n, k: make([]float32, n*n)}
	bt := transposeAll(d)
	nt := (n + fullTile - 1) / fullTile
	type tile struct{ I, J int }
	tiles := make([]tile, 0, nt*(nt+1)/2)
	for I := range nt {
		for J := I; J < nt; J++ {
			tiles = append(tiles, tile{I, J})
		}
	}
	parallel(len(tiles), func(w *worker, t int) {
		I, J := tiles[t].I, tiles[t].J
		i0, i1 := I*fullTile, min((I+1)*fullTile, n)
		j0, j1 := J*fullTile, min((J+1)*fullTile, n)
		w.block(k, d, i0, i1, d, j0, j1, g.k[i0*n+j0:], n, bt)
		if I != J {
			mirror(g.k, n, i0, i1, j0, j1)
		} else {
			// K(x_i, x_j) and K(x_j, x_i) computed apart can round
			// differently; copy the upper triangle so the matrix is
			// exactly symmetric.
			for i := i0; i < i1; i++ {
				for j := i0; j < i; j++ {
					g.k[i*n+j] = g.k[j*n+i]
				}
			}
		}
	})
	g.diag = make([]float32, n)
	for i := range n {
		g.diag[i] = g.k[i*n+i]
	}
	var computed int64
	for _, t := range tiles {
		ri := min((t.I+1)*fullTile, n) - t.I*fullTile
		rj := min((t.J+1)*fullTile, n) - t.J*fullTile
		computed += int64(ri) * int64(rj)
	}
	g.stats = Stats{Full: true, Rows: n, Bytes: int64(n) * int64(n) * 4, Computed: computed}
	return g
}

// mirror copies the block [i0,i1)×[j0,j1) of the n×n matrix k to
// [j0,j1)×[i0,i1), transposed, in 16×16 sub-blocks so that both the
// strided reads and the writes stay within a few cache lines per row.
func mirror(k []float32, n, i0, i1, j0, j1 int) {
	const b = 16
	for ib := i0; ib < i1; ib += b {
		ie := min(ib+b, i1)
		for jb := j0; jb < j1; jb += b {
			je := min(jb+b, j1)
			for j := jb; j < je; j++ {
				dst := k[j*n+ib : j*n+ie]
				for t := range dst {
					dst[t] = k[(ib+t)*n+j]
				}
			}
		}
	}
}

func (g *Full) N() int              { return g.n }
func (g *Full) Row(i int) []float32 { return g.k[i*g.n : (i+1)*g.n : (i+1)*g.n] }
func (g *Full) Diag(i int) float32  { return g.diag[i] }
func (g *Full) Stats() Stats        { return g.stats }

// Matrix returns the whole matrix, row-major; it is read-only.
func (g *Full) Matrix() []float32 { return g.k }

// Cache computes rows of the Gram matrix when asked for and keeps the
// most recently used ones, up to a fixed number of rows. It is not safe
// for concurrent use: Row's result is valid only until the next call.
type Cache struct {
	kern  Kernel
	d     *Data
	bt    []float32
	n     int
	slots []float32 // cap rows of n
	slot  []int32   // row → slot, −1 if not held
	owner []int32   // slot → row
	prev  []int32   // LRU list over slots: most recent at head
	next  []int32
	head  int32
	tail  int32
	used  int
	diag  []float32
	stats Stats
	ws    [2]worker
}

// NewCache returns a row cache over the Gram matrix of k on d that holds
// at most rows rows (at least 2).
func NewCache(k Kernel, d *Data, rows int) *Cache {
	rows = max(2, min(rows, d.n))
	c := &Cache{
		kern: k, d: d, n: d.n, bt: transposeAll(d),
		slots: make([]float32, rows*d.n),
		slot:  make([]int32, d.n),
		owner: make([]int32, rows),
		prev:  make([]int32, rows),
		next:  make([]int32, rows),
		head:  -1, tail: -1,
		diag: diag(k, d),
	}
	for i := range c.slot {
		c.slot[i] = -1
	}
	c.stats = Stats{Rows: rows, Bytes: int64(rows)*int64(d.n)*4 + int64(len(c.bt)+len(c.diag))*4, Computed: int64(d.n)}
	return c
}

func (c *Cache) N() int             { return c.n }
func (c *Cache) Diag(i int) float32 { return c.diag[i] }
func (c *Cache) Stats() Stats       { return c.stats }

func (c *Cache) unlink(s int32) {
	p, q := c.prev[s], c.next[s]
	if p >= 0 {
		c.next[p] = q
	} else {
		c.head = q
	}
	if q >= 0 {
		c.prev[q] = p
	} else {
		c.tail = p
	}
}

func (c *Cache) pushFront(s int32) {
	c.prev[s], c.next[s] = -1, c.head
	if c.head >= 0 {
		c.prev[c.head] = s
	}
	c.head = s
	if c.tail < 0 {
		c.tail = s
	}
}

// Row returns row i, computing it (and evicting the least recently used
// row) on a miss.
func (c *Cache) Row(i int) []float32 {
	n := c.n
	if s := c.slot[i]; s >= 0 {
		c.stats.Hits++
		if c.head != s {
			c.unlink(s)
			c.pushFront(s)
		}
		return c.slots[int(s)*n : int(s+1)*n : int(s+1)*n]
	}
	c.stats.Misses++
	var s int32
	if c.used < len(c.owner) {
		s = int32(c.used)
		c.used++
	} else {
		s = c.tail
		c.unlink(s)
		c.slot[c.owner[s]] = -1
	}
	c.owner[s], c.slot[i] = int32(i), s
	c.pushFront(s)
	row := c.slots[int(s)*n : int(s+1)*n : int(s+1)*n]
	c.compute(i, row)
	c.stats.Computed += int64(n)
	return row
}

// compute fills row with K(x_i, x_j), in two halves on two goroutines
// when the row is long enough to repay the start.
func (c *Cache) compute(i int, row []float32) {
	n := c.n
	if int64(n)*int64(max(c.d.dim, 1)) < 1<<15 {
		c.ws[0].block(c.kern, c.d, i, i+1, c.d, 0, n, row, n, c.bt)
		return
	}
	h := n / 2
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		c.ws[1].block(c.kern, c.d, i, i+1, c.d, h, n, row[h:], n, c.bt)
	}()
	c.ws[0].block(c.kern, c.d, i, i+1, c.d, 0, h, row, n, c.bt)
	wg.Wait()
}
