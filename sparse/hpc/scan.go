package hpc

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/internal/readopt"
)

// Scanner streams the rows of a cache one at a time, like Scanner
// does for LIBSVM text, in memory bounded by two blocks: a goroutine reads
// and checks the next block while the caller works on the current one.
// It implements the engine's row-source interface (Scan, Row, Err).
//
//	sc := c.Scanner() // or hpc.NewScanner(os.Stdin, opt)
//	defer sc.Close()
//	for sc.Scan() {
//		y, x := sc.Row()
//		...
//	}
//	if err := sc.Err(); err != nil { ... }
//
// ScanBlock and Block give the same stream a block at a time, for a
// trainer that shuffles the rows within a block. A Scanner belongs to
// one goroutine. Close it when stopping before the end.
type Scanner struct {
	next    func(dst *Block) (bool, error) // run by the read-ahead goroutine
	onClose func(*Scanner)

	out     chan scanResult
	free    chan *Block
	done    chan struct{} // closed to stop the read-ahead
	exited  chan struct{} // closed when the read-ahead has stopped
	running atomic.Bool   // the read-ahead goroutine was started
	stopped atomic.Bool   // finish was called
	stop    sync.Once

	// Used by the owner's goroutine only.
	started bool
	cur     *Block
	row     int // the current row within cur, or -1
	err     error
	end     bool
}

type scanResult struct {
	blk *Block
	err error
}

func newCacheScanner(next func(dst *Block) (bool, error)) *Scanner {
	return &Scanner{
		next: next, row: -1,
		out:    make(chan scanResult, 1),
		free:   make(chan *Block, 2),
		done:   make(chan struct{}),
		exited: make(chan struct{}),
	}
}

// Scanner returns a Scanner over the cache's rows in order.
func (c *File) Scanner() *Scanner {
	return c.ScannerOrder(nil)
}

// ScannerOrder returns a Scanner that visits the blocks listed in
// order (each a block number; nil means all blocks in file order), for a
// trainer that shuffles the order of blocks each epoch: the next block is
// read ahead all the same. A block number out of range stops the scan
// with an error. The cache's Close stops its scanners.
func (c *File) ScannerOrder(order []int) *Scanner {
	if order == nil {
		order = make([]int, len(c.blocks))
		for i := range order {
			order[i] = i
		}
	} else {
		order = slices.Clone(order)
	}
	k := 0
	sc := newCacheScanner(func(dst *Block) (bool, error) {
		if k == len(order) {
			return false, nil
		}
		k++
		if err := c.ReadBlock(order[k-1], dst); err != nil {
			return false, err
		}
		return true, nil
	})
	c.scMu.Lock()
	defer c.scMu.Unlock()
	if c.scanners == nil {
		c.scanners = make(map[*Scanner]struct{})
	}
	c.scanners[sc] = struct{}{}
	sc.onClose = func(sc *Scanner) {
		c.scMu.Lock()
		delete(c.scanners, sc)
		c.scMu.Unlock()
	}
	return sc
}

// NewScanner returns a Scanner reading a cache file from the
// stream r (such as standard input) in order, without seeking: it checks
// every block as File.ReadBlock does and, at the end, the footer against
// the blocks it has seen, so a stream cut short is reported as truncated
// (after the rows before the cut were returned). Of opt, Dim, MaxDim,
// MaxRowNNZ and Name apply as for Open. The read-ahead buffer grows
// with the data received, never ahead of it by more than a constant
// factor.
func NewScanner(r io.Reader, opt sparse.ReadOptions) *Scanner {
	st, err := newCacheStream(r, Options{ReadOptions: opt})
	if err != nil {
		sc := newCacheScanner(nil)
		sc.err, sc.end = err, true
		return sc
	}
	return newCacheScanner(st.next)
}

func (s *Scanner) start() {
	s.started = true
	s.free <- new(Block)
	s.free <- new(Block)
	s.running.Store(true)
	go s.run()
}

// run reads blocks ahead until the end, an error or a stop.
func (s *Scanner) run() {
	defer close(s.exited)
	for {
		var b *Block
		select {
		case <-s.done:
			return
		default:
		}
		select {
		case b = <-s.free:
		case <-s.done:
			return
		}
		ok, err := s.next(b)
		r := scanResult{err: err}
		if ok {
			r.blk = b
		}
		select {
		case s.out <- r:
		case <-s.done:
			return
		}
		if !ok {
			return
		}
	}
}

// Scan advances to the next row. It returns false at the end of the data
// or on an error; Err tells which.
func (s *Scanner) Scan() bool {
	for {
		if s.stopped.Load() && !s.end {
			// Stopped by File.Close: the current block may be gone.
			s.cur, s.err, s.end = nil, errScannerStopped, true
			return false
		}
		if s.cur != nil && s.row+1 < len(s.cur.Y) {
			s.row++
			return true
		}
		if !s.ScanBlock() {
			return false
		}
	}
}

// ScanBlock advances to the next block, skipping the rest of the current
// one; Scan then returns its rows. It returns false at the end of the data
// or on an error; Err tells which.
func (s *Scanner) ScanBlock() bool {
	if s.end {
		return false
	}
	if !s.started {
		s.start()
	}
	if s.cur != nil {
		s.free <- s.cur // never blocks: the channel holds both blocks
		s.cur = nil
	}
	s.row = -1
	var r scanResult
	select {
	case <-s.done:
		r.err = errScannerStopped
	default:
		select {
		case r = <-s.out:
		case <-s.done:
			r.err = errScannerStopped
		}
	}
	if r.blk == nil {
		s.err, s.end = r.err, true
		s.finish()
		return false
	}
	s.cur = r.blk
	return true
}

// Block returns the current block, or nil before the first Scan or
// ScanBlock and after the end. It is reused by the read-ahead once the
// scanner moves past it (see Block).
func (s *Scanner) Block() *Block { return s.cur }

// Row returns the current row's label and features. The vector's slices
// point into the current block and are reused once the scanner leaves
// it: copy them to keep them. Its Dim is the data set's number of columns
// when it is known up front (a File, sparse.ReadOptions.Dim, or a stream whose
// file fixes its dim), else one more than the row's largest index, as
// Scanner does.
func (s *Scanner) Row() (label float64, x sparse.Vector) {
	if s.cur == nil || s.row < 0 {
		return 0, sparse.Vector{}
	}
	m := s.cur.X
	a, b := m.Indptr[s.row], m.Indptr[s.row+1]
	x = sparse.Vector{Dim: m.Cols, Ind: m.Ind[a:b:b], Val: m.Val[a:b:b]}
	if !s.cur.fixedDim {
		x.Dim = 0
		if b > a {
			x.Dim = int(x.Ind[b-a-1]) + 1
		}
	}
	return s.cur.Y[s.row], x
}

// QID returns the current row's query id and whether its block carries
// query ids.
func (s *Scanner) QID() (qid int64, ok bool) {
	if s.cur == nil || s.row < 0 || s.cur.QID == nil {
		return 0, false
	}
	return s.cur.QID[s.row], true
}

// Err returns the error that stopped the scan, or nil at a clean end.
func (s *Scanner) Err() error { return s.err }

// Close stops the read-ahead goroutine and waits for it; after Close, Scan
// returns false. It is safe to call more than once and always returns
// nil.
func (s *Scanner) Close() error {
	s.end = true
	s.cur = nil
	s.finish()
	return nil
}

var errScannerStopped = errors.New("sparse: cache scanner stopped: the cache was closed")

// finish stops the read-ahead (once), waits for it and unregisters the
// scanner. File.Close calls it from another goroutine: it touches none of
// the owner's fields.
func (s *Scanner) finish() {
	s.stop.Do(func() {
		s.stopped.Store(true)
		close(s.done)
		if s.running.Load() {
			<-s.exited
		}
		if s.onClose != nil {
			s.onClose(s)
		}
	})
}

// Read reads a whole cache file from the stream r into memory, block
// by block in order, with the checks of NewScanner. Memory use
// follows the data received. For a file on disk, Open and Load are
// faster (they decode the blocks in parallel into preallocated arrays).
func Read(r io.Reader, opt sparse.ReadOptions) (*sparse.Dataset, error) {
	st, err := newCacheStream(r, Options{ReadOptions: opt})
	if err != nil {
		return nil, err
	}
	d := &sparse.Dataset{X: &sparse.CSR{Indptr: []int64{0}, Ind: []int32{}, Val: []float32{}}, Y: []float64{}}
	err = st.each(func(blk *Block) error {
		if blk.QID != nil && d.QID == nil {
			d.QID = make([]int64, len(d.Y), cap(d.Y))
		}
		if d.QID != nil {
			if blk.QID != nil {
				d.QID = append(d.QID, blk.QID...)
			} else {
				d.QID = append(d.QID, make([]int64, len(blk.Y))...)
			}
		}
		d.Y = append(d.Y, blk.Y...)
		appendRows(d.X, blk.X)
		return nil
	})
	if err != nil {
		return nil, err
	}
	d.X.Rows = len(d.Y)
	d.X.Cols = st.cols
	return d, nil
}

// cacheStream reads a cache file sequentially from an io.Reader.
type cacheStream struct {
	r      *bufio.Reader
	name   string
	opt    Options
	checks blockChecks

	started bool
	done    bool
	err     error
	dim     int   // the header's fixed dim, or 0
	lists   bool  // the header's label-lists flag
	lim     int   // indices must be below lim
	off     int64 // bytes consumed
	index   []indexEntry
	rows    int64
	nnz     int64
	fileMax int32
	anyQID  bool
	cols    int       // after the footer: the data set's columns
	labels  []float64 // after the footer: its label set, if any

	seen     map[float64]struct{} // distinct labels, nil beyond MaxLabels
	last     float64
	haveLast bool
	hdr      [cacheFooterFix]byte
}

func newCacheStream(r io.Reader, opt Options) (*cacheStream, error) {
	o, err := readopt.Normalize(opt.ReadOptions)
	if err != nil {
		return nil, err
	}
	opt.ReadOptions = o
	return &cacheStream{
		r: bufio.NewReaderSize(r, 64<<10), name: o.Name, opt: opt, fileMax: -1,
		checks: blockChecks{maxRowNNZ: o.MaxRowNNZ, full: !opt.SkipValueChecks},
		seen:   make(map[float64]struct{}),
	}, nil
}

func (st *cacheStream) bad(block int, format string, a ...any) error {
	return cacheCorrupt(st.name, block, nil, fmt.Sprintf(format, a...))
}

// read reads len(b) bytes; a short input is reported as truncated in
// what.
func (st *cacheStream) read(b []byte, what string) error {
	n, err := io.ReadFull(st.r, b)
	st.off += int64(n)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return st.bad(-1, "truncated in %s", what)
	}
	if err != nil {
		return readopt.ReadErr(st.name, err)
	}
	return nil
}

// next reads the next block into dst: true with a block, false at the
// checked end of the file or on an error.
func (st *cacheStream) next(dst *Block) (bool, error) {
	if st.err != nil || st.done {
		return false, st.err
	}
	ok, err := st.step(dst)
	if err != nil {
		st.err = err
	}
	return ok, err
}

func (st *cacheStream) step(dst *Block) (bool, error) {
	if !st.started {
		st.started = true
		h := st.hdr[:cacheHeaderSize]
		n, err := io.ReadFull(st.r, h)
		st.off += int64(n)
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			return false, readopt.ReadErr(st.name, err)
		}
		if st.dim, st.lists, err = decodeHeader(h[:n], st.name); err != nil {
			return false, err
		}
		if st.lists && !st.opt.LabelLists {
			return false, labelListsRefused(st.name)
		}
		st.checks.lists = st.lists
		o := &st.opt.ReadOptions
		switch {
		case o.Dim > 0:
			st.lim = o.Dim
		case st.dim > o.MaxDim:
			return false, cacheLimit(st.name, -1, sparse.ErrIndexRange, fmt.Sprintf("%d columns, more than MaxDim = %d", st.dim, o.MaxDim))
		case st.dim > 0:
			st.lim = st.dim
		default:
			st.lim = o.MaxDim
		}
	}
	at := st.off
	h := st.hdr[:cacheBlockHdr]
	if err := st.read(h, "a block header, or the footer is missing"); err != nil {
		return false, err
	}
	switch string(h[:4]) {
	case cacheBlockTag:
		if err := st.block(dst, at); err != nil {
			return false, err
		}
		return true, nil
	case cacheFooterTag:
		return false, st.footer(at)
	}
	return false, st.bad(-1, "no block or footer at offset %d", at)
}

// block reads the payload of the block whose header st.hdr holds.
func (st *cacheStream) block(dst *Block, at int64) error {
	i := len(st.index)
	h := decodeBlockHeader(st.hdr[:cacheBlockHdr])
	lay, msg := checkBlockHeader(&h)
	switch {
	case msg != "":
		return st.bad(i, "%s", msg)
	case st.dim > 0 && int(h.maxIdx) >= st.dim:
		return cacheCorrupt(st.name, i, sparse.ErrIndexRange, fmt.Sprintf("largest index %d beyond the file's %d columns", h.maxIdx, st.dim))
	case int(h.maxIdx) >= st.lim:
		return cacheLimit(st.name, i, sparse.ErrIndexRange, fmt.Sprintf("index %d beyond the limit of %d columns", h.maxIdx, st.lim))
	case (h.flags&cacheBlockLists != 0) != st.lists:
		return st.bad(i, "label-lists flag of the block disagrees with the file header")
	case h.payloadLen > math.MaxInt-cacheBlockHdr || lay.rows > math.MaxInt-1:
		return cacheLimit(st.name, i, sparse.ErrRowTooLong, "block too large for this platform")
	case st.rows+lay.rows > math.MaxInt64/16 || st.nnz+lay.nnz > maxCacheNNZ:
		return st.bad(i, "totals beyond the format")
	}
	// The buffer grows with the bytes received (readGrow), whatever the
	// header claims.
	payload, err := dst.readGrow(st.r, int(h.payloadLen))
	if err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return st.bad(i, "truncated in the payload")
		}
		return readopt.ReadErr(st.name, err)
	}
	st.off += int64(h.payloadLen)
	if crc32.Checksum(payload, castagnoli) != h.payloadCRC {
		return st.bad(i, "checksum mismatch")
	}
	var m uint32
	if st.lists {
		if m, err = streamLists(payload, &lay, h.payloadLen, st.rows); err != nil {
			return locate(err, st.name, i)
		}
		lay = lay.withLists(uint64(m))
	}
	dst.Index, dst.Start = i, st.rows
	cols, fixed := st.opt.Dim, true
	if cols == 0 {
		cols = st.dim
	}
	if cols == 0 {
		cols, fixed = int(h.maxIdx)+1, false
	}
	dst.fill(payload, &lay, h.maxIdx, cols, fixed)
	if ce := dst.check(&st.checks); ce != nil {
		return locate(ce, st.name, i)
	}
	if st.checks.full && st.seen != nil {
		for _, y := range dst.Y {
			if st.haveLast && y == st.last {
				continue
			}
			st.last, st.haveLast = y, true
			st.seen[y] = struct{}{}
			if len(st.seen) > MaxLabels {
				st.seen = nil
				break
			}
		}
	}
	st.index = append(st.index, indexEntry{off: at, nnz: lay.nnz, rows: lay.rows, maxIdx: h.maxIdx, flags: h.flags, lists: m})
	st.rows += lay.rows
	st.nnz += lay.nnz
	st.fileMax = max(st.fileMax, h.maxIdx)
	st.anyQID = st.anyQID || lay.qid
	return nil
}

// footer reads and checks the footer, whose first bytes st.hdr holds,
// and the trailer, against the blocks seen.
func (st *cacheStream) footer(at int64) error {
	if err := st.read(st.hdr[cacheBlockHdr:cacheFooterFix], "the footer"); err != nil {
		return err
	}
	crc := crc32.Checksum(st.hdr[:], castagnoli)
	fi := decodeFooterFix(st.hdr[:])
	if msg := fi.check(st.dim, st.lists); msg != "" {
		return st.bad(-1, "footer: %s", msg)
	}
	switch {
	case fi.blocks != uint64(len(st.index)):
		return st.bad(-1, "footer lists %d blocks, the stream held %d: truncated or corrupt", fi.blocks, len(st.index))
	case fi.rows != uint64(st.rows) || fi.nnz != uint64(st.nnz):
		return st.bad(-1, "footer totals %d rows, %d nonzeros; the blocks hold %d, %d", fi.rows, fi.nnz, st.rows, st.nnz)
	case fi.hasQID != st.anyQID:
		return st.bad(-1, "footer's query-id flag disagrees with the blocks")
	case st.dim == 0 && fi.cols != uint64(int64(st.fileMax)+1):
		return st.bad(-1, "footer says %d columns, the largest index is %d", fi.cols, st.fileMax)
	}
	crc, err := st.footerIndex(crc)
	if err != nil {
		return err
	}
	var labels []float64
	if fi.labelSet {
		if labels, crc, err = st.footerLabels(int(fi.labels), crc); err != nil {
			return err
		}
	}
	if err := st.trailer(at, fi.wantLen, crc); err != nil {
		return err
	}
	if st.checks.full && labels != nil {
		if st.seen == nil {
			return st.bad(-1, "footer: label set misses labels of the blocks")
		}
		for y := range st.seen {
			if _, ok := slices.BinarySearch(labels, y); !ok {
				return st.bad(-1, "a label %v is not in the file's label set", y)
			}
		}
	}
	st.cols = int(fi.cols)
	st.labels = labels
	if st.opt.Dim > 0 {
		st.cols = st.opt.Dim
	}
	st.done = true
	return nil
}

// footerIndex reads the footer's block index and checks it against the
// blocks seen, returning the footer's checksum crc updated.
func (st *cacheStream) footerIndex(crc uint32) (uint32, error) {
	var buf [cacheIndexEntry]byte
	for i := range st.index {
		if err := st.read(buf[:], "the footer"); err != nil {
			return 0, err
		}
		crc = crc32.Update(crc, castagnoli, buf[:])
		var want [cacheIndexEntry]byte
		st.index[i].encode(want[:])
		if !bytes.Equal(buf[:], want[:]) {
			return 0, cacheCorrupt(st.name, i, nil, "index entry disagrees with the block")
		}
	}
	return crc, nil
}

// footerLabels reads and checks the footer's label set of n labels,
// returning the footer's checksum crc updated.
func (st *cacheStream) footerLabels(n int, crc uint32) ([]float64, uint32, error) {
	lb := make([]byte, 8*n) // at most 512 KiB
	if err := st.read(lb, "the footer"); err != nil {
		return nil, 0, err
	}
	crc = crc32.Update(crc, castagnoli, lb)
	labels := make([]float64, n)
	for i := range labels {
		labels[i] = math.Float64frombits(binary.LittleEndian.Uint64(lb[8*i:]))
	}
	if msg := checkLabelSet(labels); msg != "" {
		return nil, 0, st.bad(-1, "footer: %s", msg)
	}
	return labels, crc, nil
}

// trailer reads the footer's checksum, to match crc, and the trailer,
// which must point to the footer at at of footLen bytes and end the
// stream.
func (st *cacheStream) trailer(at int64, footLen uint64, crc uint32) error {
	var tail [8 + cacheTrailer]byte
	if err := st.read(tail[:], "the trailer"); err != nil {
		return err
	}
	le := binary.LittleEndian
	if le.Uint32(tail[0:]) != crc || le.Uint32(tail[4:]) != 0 {
		return st.bad(-1, "footer checksum mismatch")
	}
	tr := tail[8:]
	switch {
	case string(tr[20:]) != cacheEndMagic:
		return st.bad(-1, "truncated: no trailer at the end of the file")
	case le.Uint32(tr[16:]) != crc32.Checksum(tr[:16], castagnoli):
		return st.bad(-1, "trailer checksum mismatch")
	case le.Uint64(tr[0:]) != uint64(at) || le.Uint64(tr[8:]) != footLen:
		return st.bad(-1, "trailer points to a footer at %d, %d bytes; it is at %d, %d bytes", le.Uint64(tr[0:]), le.Uint64(tr[8:]), at, footLen)
	}
	if _, err := st.r.ReadByte(); err == nil {
		return st.bad(-1, "data after the trailer")
	} else if err != io.EOF {
		return readopt.ReadErr(st.name, err)
	}
	return nil
}

// streamLists returns the number of label-list entries of the block of
// layout lay (without its lists) whose payload, payloadLen bytes, a
// stream reader holds: the sum of the rows' label counts, which must be
// whole numbers and fill the rest of the payload exactly. The stream's
// block header does not count the entries; the file's index does, and
// the footer's check compares the two. start is the global index of the
// block's first row.
func streamLists(payload []byte, lay *blockLayout, payloadLen uint64, start int64) (uint32, error) {
	var m uint64
	for r := range lay.rows {
		y := math.Float64frombits(binary.LittleEndian.Uint64(payload[8*r:]))
		k, ok := labelCount(y)
		if !ok {
			return 0, cacheCorrupt("", -1, sparse.ErrValue, fmt.Sprintf("row %d: label count %v is not a whole number in [0, %d]", start+r, y, MaxRowLabels))
		}
		m += uint64(k)
	}
	if m > math.MaxUint32 || uint64(lay.size)+uint64(pad8(4*int64(m))) != payloadLen {
		return 0, cacheCorrupt("", -1, nil, fmt.Sprintf("payload length %d does not match its rows, nonzeros and %d labels", payloadLen, m))
	}
	return uint32(m), nil
}

// appendRows appends the rows of a block, x, to dst, whose Rows it
// leaves to the caller.
func appendRows(dst, x *sparse.CSR) {
	n0 := int64(len(dst.Ind))
	dst.Ind = append(dst.Ind, x.Ind...)
	dst.Val = append(dst.Val, x.Val...)
	for _, p := range x.Indptr[1:] {
		dst.Indptr = append(dst.Indptr, p+n0)
	}
}

// each reads the stream's blocks in order, passing each to f, which
// may not keep it: the next block is read into the same Block. It stops
// at the first error, of the stream or of f.
func (st *cacheStream) each(f func(b *Block) error) error {
	var blk Block
	for {
		ok, err := st.next(&blk)
		if err != nil || !ok {
			return err
		}
		if err := f(&blk); err != nil {
			return err
		}
	}
}
