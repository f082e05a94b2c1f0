package libsvm

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"sync"
	"sync/atomic"

	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
	"github.com/hyperplane-ml/hyperplane/sparse/internal/csrcat"
	"github.com/hyperplane-ml/hyperplane/sparse/internal/lineio"
	"github.com/hyperplane-ml/hyperplane/sparse/internal/readopt"
)

const (
	defaultChunkSize = 1 << 20  // parallel reader block size
	firstChunkSize   = 64 << 10 // first block; blocks double up to the chunk size
	minChunkSize     = 16
)

var bom = lineio.BOM

func nameOr(name string) string {
	if name == "" {
		return "the input"
	}
	return name
}

// ReadFile reads the LIBSVM file at path (gzip-compressed or not)
// with Read. If opt.Name is empty, errors name the file by path.
func ReadFile(path string, opt sparse.ReadOptions) (*sparse.Dataset, error) {
	return readopt.ReadFile(path, &opt.Name, func(r io.Reader) (*sparse.Dataset, error) { return Read(r, opt) })
}

// Read reads a whole LIBSVM / SVMlight input into memory. Input that
// starts with the gzip magic bytes is decompressed transparently.
//
// The input is cut into blocks at line ends and the blocks are parsed in
// parallel by opt.Workers goroutines (while another goroutine reads and
// decompresses), then concatenated in order, so the result equals a
// sequential parse. Memory use is bounded by the data actually read: no
// number in the input sizes an allocation, a line is refused past
// opt.MaxLineBytes before the rest of it is read, and the rows read so far
// are checked against opt.MemoryBudget as they arrive (see sparse.ReadOptions).
//
// Accepted: labels that are integers or decimal floats ("+1", "-1", "2.5",
// "1e3"); "qid:N" right after the label; '#' comments, at the end of a line
// or alone on it; rows without features; any mix of spaces and tabs between
// tokens and at line ends; CRLF line ends; a UTF-8 byte order mark at the
// start; blank lines (skipped, but counted in line numbers); a last line
// without a newline. Explicit zero values are kept.
//
// Anything else is an error: a *sparse.ParseError wrapping
// sparse.ErrSyntax, sparse.ErrIndex, sparse.ErrIndexOrder,
// sparse.ErrIndexRange, sparse.ErrValue, sparse.ErrRowTooLong or
// sparse.ErrLineTooLong, reporting the earliest bad line. An input with no
// rows (empty, or only blank and comment lines) is not an error: the
// sparse.Dataset has 0 rows. Data past MaxNNZ gives an error wrapping
// sparse.ErrTooLarge, and data past the memory budget one wrapping
// budget.ErrExceeded that says how much was read, unless a bad line comes
// first. Read and decompression errors are returned wrapped; invalid
// options wrap sparse.ErrBadOption.
func Read(r io.Reader, opt sparse.ReadOptions) (*sparse.Dataset, error) {
	return read(r, opt, defaultChunkSize)
}

// read is Read cutting the input into blocks of chunk bytes at most, 0
// meaning the default (tests use tiny blocks to exercise the block
// boundaries).
func read(r io.Reader, opt sparse.ReadOptions, chunk int) (*sparse.Dataset, error) {
	if chunk == 0 {
		chunk = defaultChunkSize
	}
	o, err := readopt.Normalize(opt)
	if err != nil {
		return nil, err
	}
	src, err := lineio.Open(r)
	if err != nil {
		return nil, readopt.ReadErr(o.Name, err)
	}
	return readParallel(src, &o, max(chunk, minChunkSize))
}

// piece is the parsed content of one block.
type piece struct {
	lines  int // lines in the block
	labels []float64
	qid    []int64 // nil unless some row had a qid
	indptr []int64 // local row pointers, len(labels)+1
	ind    []int32
	val    []float32
	maxCol int32 // largest 0-based column, -1 if none

	err     *lineError
	errLine int   // block-relative 1-based line of err
	errNNZ  int64 // with err: the nonzeros of the block's lines before it
	errRows int64 // with err: the rows of the block's lines before it
}

// nnz is the number of nonzeros the block holds before its error, if any.
func (pc *piece) nnz() int64 {
	if pc.err != nil {
		return pc.errNNZ
	}
	return int64(len(pc.ind))
}

// rows is the number of rows the block holds before its error, if any.
func (pc *piece) rows() int64 {
	if pc.err != nil {
		return pc.errRows
	}
	return int64(len(pc.labels))
}

// libsvmLoadBytes is the memory Read needs for rows rows holding nnz
// nonzeros: a label and a row pointer per row (and a query id when the
// data have them), an index and a value per nonzero, twice over, as the
// parsed blocks are all held until the data set they are copied into
// has been allocated.
func libsvmLoadBytes(rows, nnz int64, qid bool) int64 {
	perRow := int64(8 + 8)
	if qid {
		perRow += 8
	}
	return budget.Mul(2, budget.Add(budget.Mul(rows, perRow), budget.Mul(nnz, 4+4)))
}

// overBudget is the error for data whose first rows rows, holding nnz
// nonzeros, need more than o.MemoryBudget.
func overBudget(o *sparse.ReadOptions, rows, nnz int64, qid bool) error {
	return fmt.Errorf("sparse: reading %s whole: %w: its first %d rows, with %d nonzeros, need %s (parsed, then assembled into one copy), the budget is %s; stream it instead (Scanner, or a cache file and engine.FitCache)",
		nameOr(o.Name), budget.ErrExceeded, rows, nnz, budget.Format(libsvmLoadBytes(rows, nnz, qid)), budget.Format(o.MemoryBudget))
}

// worker is one parsing goroutine's state.
type worker struct {
	p       lineParser
	maxLine int // sparse.ReadOptions.MaxLineBytes
	// Running totals, to size each block's slices from its byte length.
	bytes, nnz, rows int64
}

// estimate returns a capacity for a block of n bytes holding items at the
// running rate items/bytes, with 5% slack; with no history yet it uses
// guess bytes per item. It never exceeds n/minBytes+1, the most items n
// bytes can hold, so no allocation is larger than the data warrants.
func (w *worker) estimate(n int, items int64, guess, minBytes int) int {
	c := n/guess + 16
	if w.bytes > 0 {
		c = int(float64(n)*float64(items)/float64(w.bytes)*1.05) + 16
	}
	return min(c, n/minBytes+1)
}

// parse parses one block of whole lines (the last possibly without '\n').
func (w *worker) parse(data []byte) piece {
	n := len(data)
	rowsCap := w.estimate(n, w.rows, 256, 2) // a row takes at least "1\n"
	nnzCap := w.estimate(n, w.nnz, 8, 4)     // a feature at least " 1:1"
	pc := piece{
		labels: make([]float64, 0, rowsCap),
		indptr: make([]int64, 1, rowsCap+1),
		ind:    make([]int32, 0, nnzCap),
		val:    make([]float32, 0, nnzCap),
		maxCol: -1,
	}
	line := 0
	for len(data) > 0 {
		var ln []byte
		if k := bytes.IndexByte(data, '\n'); k >= 0 {
			ln, data = data[:k], data[k+1:]
		} else {
			ln, data = data, nil
		}
		line++
		start := len(pc.ind)
		if len(ln) > w.maxLine {
			return piece{lines: line, err: lineTooLong(w.maxLine), errLine: line, errNNZ: int64(len(pc.ind)), errRows: int64(len(pc.labels))}
		}
		r, ind, val, blank, le := w.p.parseLine(ln, pc.ind, pc.val)
		if le != nil {
			return piece{lines: line, err: le, errLine: line, errNNZ: int64(len(pc.ind)), errRows: int64(len(pc.labels))}
		}
		pc.ind, pc.val = ind, val
		if blank {
			continue
		}
		if len(ind) > start {
			pc.maxCol = max(pc.maxCol, ind[len(ind)-1])
		}
		if r.hasQID && pc.qid == nil {
			pc.qid = make([]int64, len(pc.labels), cap(pc.labels))
		}
		if pc.qid != nil {
			pc.qid = append(pc.qid, r.qid)
		}
		pc.labels = append(pc.labels, r.label)
		pc.indptr = append(pc.indptr, int64(len(ind)))
	}
	pc.lines = line
	w.bytes += int64(n)
	w.nnz += int64(len(pc.ind))
	w.rows += int64(len(pc.labels))
	return pc
}

type block struct {
	seq  int
	data []byte
	// tooLong marks, instead of data, a line longer than MaxLineBytes
	// starting the block: the producer stopped reading it there.
	tooLong bool
}

type result struct {
	seq int
	pc  piece
}

// noStop is the value of stopSeq while no block has failed.
const noStop = math.MaxInt64

// readParallel reads src with o.Workers workers, each parsing whole
// blocks of lines that a producer cuts, and assembles their pieces in
// file order.
func readParallel(src io.Reader, o *sparse.ReadOptions, chunkSize int) (*sparse.Dataset, error) {
	nw := o.Workers
	blocks := make(chan block, nw)
	free := make(chan []byte, 2*nw+2)
	results := make(chan result, nw)
	c := collector{o: o}
	c.stopSeq.Store(noStop)
	var ioErr error // written by the producer before it closes blocks

	// Producer: read (and decompress) blocks cut after their last '\n'.
	go func() {
		defer close(blocks)
		ioErr = produceBlocks(src, chunkSize, o.MaxLineBytes, blocks, free, &c.stopSeq)
	}()

	var wg sync.WaitGroup
	for range nw {
		wg.Add(1)
		go func() {
			defer wg.Done()
			parseBlocks(o, blocks, free, results, &c.stopSeq)
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()

	for res := range results {
		c.add(res)
	}
	// All goroutines except possibly the closer have finished; ioErr is
	// visible because the producer closed blocks before the workers ended.
	return c.dataset(ioErr)
}

// parseBlocks is one of readParallel's workers: it parses the blocks it
// receives, unless one before them has failed (stopSeq), hands their
// buffers back to free and sends the pieces on results.
func parseBlocks(o *sparse.ReadOptions, blocks <-chan block, free chan<- []byte, results chan<- result, stopSeq *atomic.Int64) {
	w := worker{p: newLineParser(o), maxLine: o.MaxLineBytes}
	for b := range blocks {
		var pc piece
		switch {
		case b.tooLong:
			pc = piece{lines: 1, err: lineTooLong(o.MaxLineBytes), errLine: 1}
		case int64(b.seq) < stopSeq.Load():
			pc = w.parse(b.data)
		}
		select {
		case free <- b.data[:0]:
		default:
		}
		results <- result{b.seq, pc}
	}
}

// collector gathers readParallel's pieces, which come back in any order.
// The data's first problem in file order is reported: a bad line, or
// MaxNNZ or the memory budget passed before it. held and heldRows count
// the nonzeros and rows of the blocks before the earliest failed one;
// once they pass MaxNNZ or the budget (in a block that may yet turn out
// to come after a failure) the parsed arrays are let go and no block past
// those handed out is read, and the counts kept decide at the end.
type collector struct {
	o                 *sparse.ReadOptions
	stopSeq           atomic.Int64 // lowest failed block; noStop while none
	pieces            []piece
	counts, rowCounts []int64
	qids              []bool // the block has query ids
	held, heldRows    int64
	heldQID           bool // some block held has query ids
	dropped           bool // the parsed arrays were let go
}

// add takes one block's result.
func (c *collector) add(res result) {
	for len(c.pieces) <= res.seq {
		c.pieces = append(c.pieces, piece{})
		c.counts = append(c.counts, 0)
		c.rowCounts = append(c.rowCounts, 0)
		c.qids = append(c.qids, false)
	}
	pc := res.pc
	c.counts[res.seq] = pc.nnz()
	c.rowCounts[res.seq] = pc.rows()
	c.qids[res.seq] = pc.qid != nil
	if c.dropped {
		pc = piece{lines: pc.lines, err: pc.err, errLine: pc.errLine, errNNZ: pc.errNNZ, errRows: pc.errRows}
	}
	c.pieces[res.seq] = pc
	cur := c.stopSeq.Load() // only this loop lowers it once parsing began
	if int64(res.seq) < cur {
		c.held += c.counts[res.seq]
		c.heldRows += c.rowCounts[res.seq]
		c.heldQID = c.heldQID || c.qids[res.seq]
	}
	if pc.err != nil && int64(res.seq) < cur {
		// The blocks from here on no longer count.
		for s := res.seq; s < len(c.counts) && int64(s) < cur; s++ {
			c.held -= c.counts[s]
			c.heldRows -= c.rowCounts[s]
		}
		c.stopSeq.Store(int64(res.seq))
	}
	if !c.dropped && (c.held > c.o.MaxNNZ || libsvmLoadBytes(c.heldRows, c.held, c.heldQID) > c.o.MemoryBudget) {
		c.dropped = true
		for i := range c.pieces {
			p := &c.pieces[i]
			p.labels, p.qid, p.indptr, p.ind, p.val = nil, nil, nil, nil, nil
		}
		// Every block up to the one just counted has been handed out;
		// finish those (one may hold an earlier bad line).
		if n := int64(len(c.pieces)); n < c.stopSeq.Load() {
			c.stopSeq.Store(n)
		}
	}
}

// dataset returns the pieces assembled, or the first problem in file
// order: MaxNNZ or the budget passed, a bad line, or ioErr, the
// producer's read error.
func (c *collector) dataset(ioErr error) (*sparse.Dataset, error) {
	o := c.o
	line := 0
	var total, rows int64
	hasQID := false
	for i, pc := range c.pieces {
		// (A failed block's counts hold the rows before its bad line.)
		if total+c.counts[i] > o.MaxNNZ {
			return nil, fmt.Errorf("%w: %s has more than MaxNNZ = %d nonzeros: raise ReadOptions.MaxNNZ, or stream it (Scanner, or a cache file and engine.FitCache)", sparse.ErrTooLarge, nameOr(o.Name), o.MaxNNZ)
		}
		total += c.counts[i]
		rows += c.rowCounts[i]
		hasQID = hasQID || c.qids[i]
		if libsvmLoadBytes(rows, total, hasQID) > o.MemoryBudget {
			return nil, overBudget(o, rows, total, hasQID)
		}
		if pc.err != nil {
			return nil, &sparse.ParseError{File: o.Name, Line: line + pc.errLine, Col: pc.err.col, Msg: pc.err.msg, Err: pc.err.err}
		}
		line += pc.lines
	}
	if c.dropped {
		// Unreachable: the counts passed MaxNNZ or the budget.
		return nil, fmt.Errorf("%w: %s has more than MaxNNZ = %d nonzeros or needs more than the budget", sparse.ErrTooLarge, nameOr(o.Name), o.MaxNNZ)
	}
	if ioErr != nil {
		return nil, readopt.ReadErr(o.Name, ioErr)
	}
	return assemble(c.pieces, o), nil
}

// produceBlocks reads src into blocks of whole lines and sends them on out,
// until EOF, a read error (returned), a block failure (stopSeq set) or a
// line longer than maxLine (a tooLong block, after at most maxLine+1 bytes
// of it were read).
func produceBlocks(src io.Reader, chunkSize, maxLine int, out chan<- block, free chan []byte, stopSeq *atomic.Int64) error {
	var carry []byte // partial line left over from the previous block
	size := min(firstChunkSize, chunkSize)
	first := true
	eof := false
	for seq := 0; !eof; seq++ {
		if stopSeq.Load() != noStop {
			return nil
		}
		var buf []byte
		select {
		case buf = <-free:
		default:
		}
		if cap(buf) < size {
			buf = make([]byte, 0, size)
		}
		buf = append(buf[:0], carry...)
		carry = carry[:0]
		for {
			empty := 0
			for len(buf) < cap(buf) && !eof {
				n, err := src.Read(buf[len(buf):cap(buf)])
				buf = buf[:len(buf)+n]
				if err == io.EOF {
					eof = true
				} else if err != nil {
					return err
				} else if n == 0 {
					if empty++; empty > 100 {
						return io.ErrNoProgress
					}
				}
			}
			if first {
				first = false
				buf = bytes.TrimPrefix(buf, bom)
			}
			if eof {
				break
			}
			if k := bytes.LastIndexByte(buf, '\n'); k >= 0 {
				carry = append(carry, buf[k+1:]...)
				buf = buf[:k+1]
				break
			}
			// A line longer than the buffer: grow it, up to maxLine+1
			// bytes, which tell that the line is too long. (The worker
			// checks the lines of every block too: the buffer may hold
			// more than maxLine bytes when a block or its carry does.)
			if len(buf) > maxLine {
				out <- block{seq: seq, tooLong: true}
				return nil
			}
			nb := make([]byte, len(buf), cap(buf)+min(cap(buf), maxLine-cap(buf)+1))
			copy(nb, buf)
			buf = nb
		}
		if len(buf) > 0 {
			out <- block{seq: seq, data: buf}
		}
		size = min(2*size, chunkSize)
	}
	return nil
}

// assemble concatenates the pieces into one sparse.Dataset, copying in parallel.
func assemble(pieces []piece, o *sparse.ReadOptions) *sparse.Dataset {
	var rows int
	var nnz int64
	maxCol := int32(-1)
	hasQID := false
	for _, pc := range pieces {
		rows += len(pc.labels)
		nnz += int64(len(pc.ind))
		maxCol = max(maxCol, pc.maxCol)
		hasQID = hasQID || pc.qid != nil
	}
	cols := int(maxCol) + 1
	if o.Dim > 0 {
		cols = o.Dim
	}
	parts := make([]csrcat.Part, len(pieces))
	for k := range pieces {
		pc := &pieces[k]
		parts[k] = csrcat.Part{Indptr: pc.indptr, Ind: pc.ind, Val: pc.val, Y: pc.labels, QID: pc.qid}
	}
	r := csrcat.Concat(parts, hasQID, o.Workers, func(k int) {
		// Let the collector free each block as soon as it is copied.
		pieces[k], parts[k] = piece{}, csrcat.Part{}
	})
	return &sparse.Dataset{
		X:   &sparse.CSR{Rows: rows, Cols: cols, Indptr: r.Indptr, Ind: r.Ind, Val: r.Val},
		Y:   r.Y,
		QID: r.QID,
	}
}
