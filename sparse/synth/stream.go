package synth

import (
	"cmp"
	"io"
	"slices"
	"sync"

	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
	"github.com/hyperplane-ml/hyperplane/sparse/libsvm"
)

// TextStream yields the rows of a Text corpus one at a time, the same rows
// and labels as Generate, for corpora larger than memory. Once its buffers
// have grown to the longest row it allocates nothing per row. It generates
// on the calling goroutine (Workers is ignored) and is not safe for
// concurrent use.
//
//	s := synth.Text{Rows: 1e9}.Stream()
//	for s.Scan() {
//		y, x := s.Row()
//		...
//	}
//	if err := s.Err(); err != nil { ... }
type TextStream struct {
	p          *textPlan
	g          *rowGen
	next       int // index of the next row
	lr, cr, nr rng
	ind        []int32
	val        []float32
	y          float64
	err        error
}

// Stream returns a TextStream over the rows of t. With an invalid
// configuration Scan returns false at once and Err reports an error
// wrapping ErrConfig.
func (t Text) Stream() *TextStream {
	p, err := t.plan()
	if err != nil {
		return &TextStream{err: err}
	}
	return &TextStream{p: p, g: newRowGen(p)}
}

// Scan advances to the next row. It returns false after the last row or if
// the configuration was invalid; Err tells which.
func (s *TextStream) Scan() bool {
	if s.err != nil || s.next >= s.p.cfg.Rows {
		return false
	}
	if s.next%chunkRows == 0 {
		s.lr, s.cr, s.nr = chunkStreams(s.p.cfg.Seed, s.next/chunkRows)
	}
	y, err := s.g.next(&s.lr, &s.cr, &s.nr, &s.ind, &s.val, 1)
	if err != nil {
		s.err = err
		return false
	}
	s.y = y
	s.next++
	return true
}

// Row returns the current row's label and features (Dim is Text.Dim). The
// vector's slices are reused by the next Scan: copy them to keep them.
func (s *TextStream) Row() (label float64, x sparse.Vector) {
	if s.p == nil {
		return 0, sparse.Vector{}
	}
	return s.y, sparse.Vector{Dim: s.p.cfg.Dim, Ind: s.ind, Val: s.val}
}

// Index returns the 0-based index of the current row (-1 before the first
// Scan).
func (s *TextStream) Index() int { return s.next - 1 }

// Err returns the error that stopped Scan, or nil: one wrapping ErrConfig
// for an invalid configuration, or budget.ErrExceeded for a row whose
// scratch space would take more memory than the budget.
func (s *TextStream) Err() error { return s.err }

// WriteLIBSVM writes the corpus to w in LIBSVM format, one row per line
// ("label index:count …" with 1-based indices), byte for byte what
// libsvm.Write writes for the data set of Generate, without holding
// the corpus in memory: Workers goroutines generate and format blocks of
// rows that are written in order, with a few blocks in flight. It returns
// the first write error, an error wrapping ErrConfig for an invalid
// configuration (nothing is written then), or one wrapping
// budget.ErrExceeded when the rows' scratch space or the blocks in flight
// would take more memory than the budget (budget.Default).
func (t Text) WriteLIBSVM(w io.Writer) error {
	p, err := t.plan()
	if err != nil {
		return err
	}
	cfg := p.cfg
	nChunks := (cfg.Rows + chunkRows - 1) / chunkRows
	workers := max(1, min(cfg.Workers, nChunks))
	f := &chunkFormatter{p: p, workers: workers, free: make(chan []byte, 3*workers)}
	jobs := make(chan chunkJob)
	order := make(chan chan []byte, 2*workers)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { // producer: hands out chunks and records their order
		defer close(jobs)
		defer close(order)
		for c := range nChunks {
			out := make(chan []byte, 1)
			select {
			case order <- out:
			case <-done:
				return
			}
			select {
			case jobs <- chunkJob{c, out}:
			case <-done:
				return
			}
		}
	})
	for range workers {
		wg.Go(func() { f.formatChunks(jobs) })
	}
	for out := range order {
		if err != nil {
			continue // drain; the chunk behind out may never be made
		}
		buf := <-out
		f.mu.Lock()
		err = f.err
		f.mu.Unlock()
		if err == nil {
			_, err = w.Write(buf)
		}
		if err != nil {
			close(done)
		}
		select {
		case f.free <- buf:
		default:
		}
	}
	wg.Wait()
	return err
}

// chunkJob is a chunk of rows to format, whose text goes to out.
type chunkJob struct {
	chunk int
	out   chan []byte
}

// chunkFormatter makes and formats WriteLIBSVM's chunks of rows on its
// workers goroutines.
type chunkFormatter struct {
	p       *textPlan
	workers int
	free    chan []byte // buffers written, for reuse
	mu      sync.Mutex
	err     error // the first error of a goroutine making rows
}

// formatChunks is one of the workers: it makes the rows of each chunk
// from jobs and sends their text on the chunk's out, cut short at the
// first error (recorded in f.err).
func (f *chunkFormatter) formatChunks(jobs <-chan chunkJob) {
	cfg := f.p.cfg
	g := newRowGen(f.p)
	var ind []int32
	var val []float32
	for j := range jobs {
		var buf []byte
		select {
		case buf = <-f.free:
		default:
		}
		buf = buf[:0]
		lo, hi := chunkRange(j.chunk, cfg.Rows)
		lr, cr, nr := chunkStreams(cfg.Seed, j.chunk)
		for range hi - lo {
			y, err := g.next(&lr, &cr, &nr, &ind, &val, f.workers)
			if err == nil && len(buf)+maxRowText(len(ind)) > cap(buf) {
				// The buffers of the blocks being made, waiting to be
				// written and kept for reuse: about 4 per goroutine.
				err = budget.Check(0, budget.Mul(int64(len(buf)+maxRowText(len(ind))), 2, 4, int64(f.workers)), "Text.WriteLIBSVM: the blocks of rows in flight")
			}
			if err != nil {
				f.mu.Lock()
				f.err = cmp.Or(f.err, err)
				f.mu.Unlock()
				break
			}
			// The rows made are valid: strictly increasing indices
			// below Dim, positive counts.
			buf = libsvm.AppendRow(buf, y, sparse.Vector{Dim: cfg.Dim, Ind: ind, Val: val})
		}
		j.out <- buf
	}
}

// maxRowText bounds the LIBSVM text of a row of L features: a label and,
// per feature, " index:count" with a 10-digit index and a count of at most
// 15 characters.
func maxRowText(L int) int { return 3 + 27*L + 1 }

// chunkStreams returns the generators of the row lengths, the features and
// the label noise of one chunk of rows.
func chunkStreams(seed uint64, chunk int) (lr, cr, nr rng) {
	c := uint64(chunk)
	return seedRNG(seed, streamLength, c), seedRNG(seed, streamContent, c), seedRNG(seed, streamNoise, c)
}

// next makes the next row of a chunk into *ind and *val, growing them as
// needed, and returns its label. The error refuses a row whose scratch
// space, on each of workers goroutines, would not fit in the budget.
func (g *rowGen) next(lr, cr, nr *rng, ind *[]int32, val *[]float32, workers int) (float64, error) {
	L := g.p.length(lr)
	if err := g.fits(L, workers); err != nil {
		return 0, err
	}
	*ind = slices.Grow((*ind)[:0], L)[:L]
	*val = slices.Grow((*val)[:0], L)[:L]
	g.features(cr, *ind, *val)
	return g.label(*ind, *val, nr), nil
}
