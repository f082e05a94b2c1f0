package hpc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"slices"

	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/atomicfile"
	"github.com/hyperplane-ml/hyperplane/sparse/libsvm"
)

// WriterOptions controls a Writer. The zero value infers the
// number of columns and writes blocks of about DefaultBlockSize bytes.
type WriterOptions struct {
	// Dim fixes the number of columns: a row with an index ≥ Dim is
	// rejected (sparse.ErrIndexRange) and the file records Dim. 0 means the
	// number of columns is the largest index written plus one. Dim may not
	// exceed 2^31-1.
	Dim int
	// BlockSize is the target payload size of a block in bytes: a block
	// is closed as soon as its rows take at least that much, so it holds
	// about BlockSize bytes plus at most one row. 0 means
	// DefaultBlockSize; the most is 1 GiB. The writer keeps one block
	// in memory, and a reader one or two per goroutine.
	BlockSize int
	// LabelLists writes the rows of a multi-label data set: each row
	// added with AddLabels, with a list of labels (non-negative integers,
	// none twice, possibly none) instead of one label. The file is then
	// of format version 2, which readers take with Options.LabelLists and
	// older readers refuse as a newer version; without it the file is of
	// version 1, as ever.
	LabelLists bool
}

func (o WriterOptions) normalize() (WriterOptions, error) {
	switch {
	case o.Dim < 0 || o.Dim > math.MaxInt32:
		return o, fmt.Errorf("%w: Dim = %d outside [0, 2^31-1]", sparse.ErrBadOption, o.Dim)
	case o.BlockSize < 0 || o.BlockSize > maxCacheBlockSize:
		return o, fmt.Errorf("%w: BlockSize = %d outside [0, 1 GiB]", sparse.ErrBadOption, o.BlockSize)
	}
	if o.BlockSize == 0 {
		o.BlockSize = DefaultBlockSize
	}
	return o, nil
}

var errWriterClosed = errors.New("sparse: Writer is closed")

// Writer writes a cache file (see the format description in
// hpc.go) row by row with bounded memory: it holds one block of rows,
// writes it out when it reaches the block size, and keeps only the block
// index (32 bytes a block) and the label set (at most MaxLabels
// labels) until Close writes the footer. It is the way to convert a LIBSVM
// file larger than memory (see ConvertLIBSVMFile). A Writer is not
// safe for concurrent use.
type Writer struct {
	w       io.Writer
	opt     WriterOptions
	lim     int // indices must be below lim
	err     error
	started bool // file header written
	closed  bool
	off     int64 // bytes written

	// The block being filled.
	y    []float64
	q    []int64 // nil until a row of the block has a query id
	p    []int64
	ind  []int32
	val  []float32
	ls   []int32 // the label lists (LabelLists)
	bmax int32

	index    []indexEntry
	rows     int64
	nnz      int64
	fileMax  int32
	anyQID   bool
	labels   map[float64]struct{} // nil once there are more than MaxLabels
	last     float64
	haveLast bool

	hdr [cacheBlockHdr]byte
	enc []byte // little-endian encoding on big-endian hosts
}

// NewWriter returns a Writer writing to w. Nothing is written
// before the first block is full or Close is called. With invalid options
// every method returns an error wrapping sparse.ErrBadOption.
func NewWriter(w io.Writer, opt WriterOptions) *Writer {
	o, err := opt.normalize()
	cw := &Writer{
		w: w, opt: o, err: err, lim: math.MaxInt32,
		p: []int64{0}, bmax: -1, fileMax: -1,
		labels: make(map[float64]struct{}),
	}
	if o.Dim > 0 {
		cw.lim = o.Dim
	}
	return cw
}

// Add appends a row with label and 0-based indices ind and values val. Like
// sparse.Builder.Add it rejects, writing nothing, a row whose lengths
// differ (sparse.ErrShape), whose indices are not strictly increasing
// (sparse.ErrIndexOrder) or lie outside [0, Dim) (sparse.ErrIndexRange; [0,
// 2^31-1) without Dim), or whose label or values are not finite
// (sparse.ErrValue); the writer stays usable after such an error. An error
// of the underlying writer is returned by this and every later call.
func (w *Writer) Add(label float64, ind []int32, val []float32) error {
	if w.opt.LabelLists && w.err == nil {
		return fmt.Errorf("sparse: cache row %d: %w: the writer takes label lists (AddLabels)", w.rows, sparse.ErrBadOption)
	}
	return w.add(label, 0, false, ind, val, true)
}

// AddLabels appends a row with the labels listed (in the order given,
// which readers keep) and 0-based indices ind and values val, to a Writer
// with WriterOptions.LabelLists; the row is checked as Add checks it,
// and a negative label, one listed twice (sparse.ErrValue) or more than
// MaxRowLabels of them are rejected likewise.
func (w *Writer) AddLabels(labels []int, ind []int32, val []float32) error {
	if w.err != nil {
		return w.err
	}
	if !w.opt.LabelLists {
		return fmt.Errorf("sparse: cache row %d: %w: label lists need WriterOptions.LabelLists", w.rows, sparse.ErrBadOption)
	}
	if err := checkRowLabels(labels); err != nil {
		return fmt.Errorf("sparse: cache row %d: %w", w.rows, err)
	}
	n := len(w.ls)
	for _, l := range labels {
		w.ls = append(w.ls, int32(l))
	}
	if err := w.add(float64(len(labels)), 0, false, ind, val, true); err != nil {
		w.ls = w.ls[:n]
		return err
	}
	return nil
}

// checkRowLabels checks the label list of a row.
func checkRowLabels(labels []int) error {
	if len(labels) > MaxRowLabels {
		return fmt.Errorf("%w: %d labels, more than %d", sparse.ErrValue, len(labels), MaxRowLabels)
	}
	for _, l := range labels {
		if l < 0 || l > math.MaxInt32 {
			return fmt.Errorf("%w: label %d outside [0, 2^31-1]", sparse.ErrValue, l)
		}
	}
	if l, dup := repeatedLabel(labels); dup {
		return fmt.Errorf("%w: label %d listed twice", sparse.ErrValue, l)
	}
	return nil
}

// AddWithQID is Add for a row with a query id. The rows of a block
// written without one get query id 0, and a cache any of whose rows has a
// query id loads with sparse.Dataset.QID set.
func (w *Writer) AddWithQID(label float64, qid int64, ind []int32, val []float32) error {
	if w.opt.LabelLists && w.err == nil {
		return fmt.Errorf("sparse: cache row %d: %w: the writer takes label lists (AddLabels), without query ids", w.rows, sparse.ErrBadOption)
	}
	return w.add(label, qid, true, ind, val, true)
}

// Rows returns the number of rows added so far.
func (w *Writer) Rows() int64 { return w.rows }

func (w *Writer) add(label float64, qid int64, hasQID bool, ind []int32, val []float32, check bool) error {
	if err := w.usable(); err != nil {
		return err
	}
	if check {
		var err error
		switch {
		case len(ind) != len(val):
			err = fmt.Errorf("%w: len(ind) = %d, len(val) = %d", sparse.ErrShape, len(ind), len(val))
		case math.IsNaN(label) || math.IsInf(label, 0):
			err = fmt.Errorf("%w: label %v", sparse.ErrValue, label)
		default:
			err = sparse.Vector{Dim: w.lim, Ind: ind, Val: val}.Validate()
		}
		if err != nil {
			return fmt.Errorf("sparse: cache row %d: %w", w.rows, err)
		}
	}
	if hasQID && w.q == nil {
		w.q = make([]int64, len(w.y), cap(w.y))
	}
	w.y = append(w.y, label)
	if w.q != nil {
		w.q = append(w.q, qid)
	}
	w.ind = append(w.ind, ind...)
	w.val = append(w.val, val...)
	w.p = append(w.p, int64(len(w.ind)))
	if n := len(ind); n > 0 {
		w.bmax = max(w.bmax, ind[n-1])
	}
	w.rows++
	w.nnz += int64(len(ind))
	if label == 0 {
		label = 0 // -0 joins 0 in the label set
	}
	if w.labels != nil && (!w.haveLast || label != w.last) {
		w.last, w.haveLast = label, true
		w.labels[label] = struct{}{}
		if len(w.labels) > MaxLabels {
			w.labels = nil
		}
	}
	if w.payloadSize() >= int64(w.opt.BlockSize) {
		w.flush()
	}
	return w.err
}

// usable returns the error that w's methods return before they write: its
// first error, or errWriterClosed once it is closed.
func (w *Writer) usable() error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return errWriterClosed
	}
	return nil
}

// Flush ends the block being filled, if it has rows, so that the next row
// starts a new one, whatever BlockSize says. A program that rewrites a
// cache row by row (changing its indices, say) and flushes where the
// source's blocks end keeps its blocks, and with them the order in which
// a learner shuffles them. It returns the first error of the underlying
// writer, if any.
func (w *Writer) Flush() error {
	if err := w.usable(); err != nil {
		return err
	}
	w.flush()
	return w.err
}

// payloadSize returns the payload length of the block being filled.
func (w *Writer) payloadSize() int64 {
	l, _ := layoutOf(uint64(len(w.y)), uint64(len(w.ind)), w.q != nil)
	return l.withLists(uint64(len(w.ls))).size
}

func (w *Writer) write(b []byte) {
	if w.err != nil || len(b) == 0 {
		return
	}
	n, err := w.w.Write(b)
	w.off += int64(n)
	if err == nil && n < len(b) {
		err = io.ErrShortWrite
	}
	w.err = err
}

func (w *Writer) writeHeader() {
	if !w.started {
		w.started = true
		w.write(encodeHeader(w.opt.Dim, w.opt.LabelLists))
	}
}

var zeroPad [8]byte

// flush writes the block being filled, if it has rows.
func (w *Writer) flush() {
	w.writeHeader()
	rows := len(w.y)
	if rows == 0 || w.err != nil {
		return
	}
	nnz := len(w.ind)
	lay, _ := layoutOf(uint64(rows), uint64(nnz), w.q != nil)
	e := indexEntry{off: w.off, nnz: int64(nnz), rows: int64(rows), maxIdx: w.bmax}
	if w.q != nil {
		e.flags |= cacheBlockQID
		w.anyQID = true
	}
	if w.opt.LabelLists {
		// At most 2^28 entries fill a block of 1 GiB, and a row adds at
		// most MaxRowLabels more: the count fits the index's 32 bits.
		e.flags |= cacheBlockLists
		e.lists = uint32(len(w.ls))
		lay = lay.withLists(uint64(len(w.ls)))
	}
	pad := zeroPad[:pad8(4*int64(nnz))-4*int64(nnz)]
	lpad := zeroPad[:pad8(4*int64(len(w.ls)))-4*int64(len(w.ls))]
	var pieces [9][]byte
	if hostLittleEndian && !cacheForceDecode {
		pieces = [9][]byte{asBytes(w.y), asBytes(w.q), asBytes(w.p), asBytes(w.ind), pad, asBytes(w.val), pad, asBytes(w.ls), lpad}
	} else {
		b := encodeLE(w.enc[:0], w.y)
		b = encodeLE(b, w.q)
		b = encodeLE(b, w.p)
		b = encodeLE(b, w.ind)
		b = append(b, pad...)
		b = encodeLE(b, w.val)
		b = append(b, pad...)
		b = encodeLE(b, w.ls)
		b = append(b, lpad...)
		w.enc = b
		pieces[0] = b
	}
	var crc uint32
	for _, b := range pieces {
		crc = crc32.Update(crc, castagnoli, b)
	}
	encodeBlockHeader(w.hdr[:], &e, lay.size, crc)
	w.write(w.hdr[:])
	for _, b := range pieces {
		w.write(b)
	}
	w.index = append(w.index, e)
	w.fileMax = max(w.fileMax, w.bmax)
	w.y, w.ind, w.val, w.p, w.ls = w.y[:0], w.ind[:0], w.val[:0], w.p[:1], w.ls[:0]
	w.q = nil
	w.bmax = -1
}

// Close writes the last block, the footer and the trailer. It does not
// close the underlying writer. It returns the first error of the
// underlying writer, if any; a second Close returns an error.
func (w *Writer) Close() error {
	if err := w.usable(); err != nil {
		return err
	}
	w.flush()
	w.closed = true
	if w.err != nil {
		return w.err
	}
	var labels []float64
	var flags uint32
	if w.labels != nil {
		flags |= cacheFootLabels
		labels = make([]float64, 0, len(w.labels))
		for y := range w.labels {
			labels = append(labels, y)
		}
		slices.Sort(labels)
	}
	if w.anyQID {
		flags |= cacheFootQID
	}
	if w.opt.LabelLists {
		flags |= cacheFootLists
	}
	cols := int64(w.fileMax) + 1
	if w.opt.Dim > 0 {
		cols = int64(w.opt.Dim)
	}
	le := binary.LittleEndian
	footOff := w.off
	n := cacheFooterFix + cacheIndexEntry*len(w.index) + 8*len(labels) + 8
	b := make([]byte, n, n+cacheTrailer)
	copy(b, cacheFooterTag)
	le.PutUint32(b[4:], flags)
	le.PutUint64(b[8:], uint64(len(w.index)))
	le.PutUint64(b[16:], uint64(w.rows))
	le.PutUint64(b[24:], uint64(w.nnz))
	le.PutUint64(b[32:], uint64(cols))
	le.PutUint64(b[40:], uint64(len(labels)))
	at := cacheFooterFix
	for i := range w.index {
		w.index[i].encode(b[at:])
		at += cacheIndexEntry
	}
	for _, y := range labels {
		le.PutUint64(b[at:], math.Float64bits(y))
		at += 8
	}
	le.PutUint32(b[at:], crc32.Checksum(b[:at], castagnoli))
	t := b[n : n+cacheTrailer]
	le.PutUint64(t[0:], uint64(footOff))
	le.PutUint64(t[8:], uint64(n))
	le.PutUint32(t[16:], crc32.Checksum(t[:16], castagnoli))
	copy(t[20:], cacheEndMagic)
	w.write(b[:n+cacheTrailer])
	w.index = nil
	return w.err
}

// Write writes d to w as a cache file with the default block size.
// The file fixes the number of columns to d.X.Cols, so Open(...).Load
// returns d bit for bit (with QID when d has it). d is validated first
// (see sparse.Dataset.Validate); nothing is written if it is invalid.
func Write(w io.Writer, d *sparse.Dataset) error {
	return writeCache(w, d, WriterOptions{})
}

func writeCache(w io.Writer, d *sparse.Dataset, opt WriterOptions) error {
	if err := d.Validate(); err != nil {
		return err
	}
	if d.X.Cols > math.MaxInt32 {
		return fmt.Errorf("%w: %d columns, beyond the cache format's 2^31-1", sparse.ErrIndexRange, d.X.Cols)
	}
	opt.Dim = d.X.Cols
	cw := NewWriter(w, opt)
	x := d.X
	for i := range x.Rows {
		a, b := x.Indptr[i], x.Indptr[i+1]
		var q int64
		if d.QID != nil {
			q = d.QID[i]
		}
		// d is valid, so the row needs no second check.
		if err := cw.add(d.Y[i], q, d.QID != nil, x.Ind[a:b], x.Val[a:b], false); err != nil {
			return err
		}
	}
	return cw.Close()
}

// ConvertLIBSVM reads the LIBSVM input src (gzip-compressed or not) row by
// row with a Scanner and writes it to dst as a cache file, in memory
// bounded by one block and the longest line. If wopt.Dim is 0 it is set
// to ropt.Dim; the Scanner reads with the smaller of the two that are set,
// so that an index past either is its *sparse.ParseError, naming the line, as
// every parse error is. With wopt.LabelLists, src is read whole in
// LIBSVM's multi-label form (libsvm.ReadMultiLabel, within
// ropt.MemoryBudget) and written with its label lists.
func ConvertLIBSVM(dst io.Writer, src io.Reader, ropt sparse.ReadOptions, wopt WriterOptions) error {
	if wopt.Dim == 0 {
		wopt.Dim = ropt.Dim
	}
	if ropt.Dim == 0 || (wopt.Dim > 0 && wopt.Dim < ropt.Dim) {
		ropt.Dim = wopt.Dim
	}
	cw := NewWriter(dst, wopt)
	if cw.err != nil {
		return cw.err
	}
	if wopt.LabelLists {
		d, err := libsvm.ReadMultiLabel(src, ropt)
		if err != nil {
			return err
		}
		return writeLists(cw, d)
	}
	sc := libsvm.NewScanner(src, ropt)
	for sc.Scan() {
		y, v := sc.Row()
		q, ok := sc.QID()
		if err := cw.add(y, q, ok, v.Ind, v.Val, true); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return cw.Close()
}

// ConvertLIBSVMFile converts the LIBSVM file srcPath into the cache file
// dstPath with ConvertLIBSVM, atomically as atomicfile.Write does. If
// ropt.Name is empty, parse errors name srcPath.
func ConvertLIBSVMFile(dstPath, srcPath string, ropt sparse.ReadOptions, wopt WriterOptions) error {
	f, err := os.Open(srcPath)
	if err != nil {
		return err
	}
	defer f.Close()
	if ropt.Name == "" {
		ropt.Name = srcPath
	}
	return atomicfile.Write(dstPath, func(w io.Writer) error { return ConvertLIBSVM(w, f, ropt, wopt) })
}
