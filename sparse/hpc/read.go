package hpc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
	"github.com/hyperplane-ml/hyperplane/sparse/internal/readopt"
)

// Options controls Open. Of the sparse.ReadOptions, Dim, MaxDim,
// MaxRowNNZ and Name apply as for LIBSVM input (Dim: the data set gets Dim
// columns and a larger index is an error; MaxDim: a file with more columns
// is refused; MaxRowNNZ: a longer row is an error), and Workers is the
// number of goroutines Load decodes with.
type Options struct {
	sparse.ReadOptions

	// Map memory-maps the file (read-only) on Linux and macOS, so that
	// ReadBlock, Scanner and Load copy blocks out of the mapping instead
	// of reading them with system calls. Elsewhere, or when mapping
	// fails, the cache is read with ordinary reads (File.Mapped tells
	// which). Either way a block is checked in private memory, and the
	// Block handed out holds that copy, never a view of the mapping:
	// another process that rewrites or truncates the file in place
	// cannot change data that were checked, and a block read while it
	// does so is an error (ErrChanged), not a crash. Replacing the file
	// by a rename, as atomicfile.Write does, is safe.
	Map bool

	// SkipValueChecks skips the checks of the blocks' labels, the order
	// of their indices and their values; the checksums, the row pointers,
	// MaxRowNNZ and the range of every index (within the block's largest,
	// and so within Cols) are still checked on every read, so that no
	// kernel is ever handed an index outside the model. Without it a
	// block is value-checked the first time it is read from this File;
	// later reads (the next epochs) of the same bytes (the same checksum)
	// cost only the checksum and the range check. The skipped checks
	// guard against a file whose checksums are right but whose data break
	// the invariants (one made by hand, or by a buggy writer): a learner
	// then trains on unsorted indices, labels outside the label set or
	// non-finite values, so use this only for files this program wrote
	// itself.
	SkipValueChecks bool

	// LabelLists accepts a file with label lists, the rows of a
	// multi-label data set (see WriterOptions.LabelLists): its blocks
	// then hold Block.Lists, and Block.Y holds each row's number of
	// labels. Without it Open refuses such a file (ErrLabelLists), so
	// that no reader of one label per row mistakes the counts for labels.
	LabelLists bool
}

// File is an open cache file. Its methods may be called from several
// goroutines at once, each with its own Block.
type File struct {
	name   string
	f      *os.File // nil when reading from an io.ReaderAt
	ra     io.ReaderAt
	size   int64
	data   []byte // the mapping, or nil
	opt    Options
	checks blockChecks
	// stamp is the file's size and modification time at Open; a read
	// that finds them changed fails with ErrChanged.
	stamp fileStamp
	// sums[i] holds 1<<32 | the payload checksum of block i once a read
	// of it passed the checks: a later read of the same checksum skips
	// the value checks, and one of another checksum is ErrChanged (the
	// file was rewritten in place).
	sums []atomic.Uint64

	cols     int
	rows     int64
	nnz      int64
	hasQID   bool
	lists    bool      // the file holds label lists
	labels   []float64 // nil without a label set
	blocks   []indexEntry
	maxBlock int     // bytes of the largest block, header included
	starts   []int64 // first row of each block, then rows
	nnzStart []int64 // first nonzero of each block, then nnz

	mu     sync.RWMutex // held for reading while a block is read
	closed bool

	scMu     sync.Mutex
	scanners map[*Scanner]struct{}
}

// Open opens the cache file at path. It reads the trailer and
// the footer and checks the file's whole structure against its size
// before allocating anything the file's numbers could size: the blocks
// must tile the file exactly and add up to the footer's totals. A file
// that is not a cache, is truncated, corrupt or of a newer version gives
// a *Error wrapping ErrFormat that names the file (opt.Name, or path)
// and says what is wrong; invalid options wrap sparse.ErrBadOption. The blocks
// themselves are checked as they are read. Close the File when done.
func Open(path string, opt Options) (*File, error) {
	if _, err := readopt.Normalize(opt.ReadOptions); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if opt.Name == "" {
		opt.Name = path
	}
	c, err := openFile(f, opt)
	if err != nil {
		f.Close()
		return nil, err
	}
	return c, nil
}

func openFile(f *os.File, opt Options) (*File, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("sparse: %s is not a regular file", opt.Name)
	}
	c, err := openCache(f, fi.Size(), opt)
	if err != nil {
		return nil, err
	}
	c.f = f
	c.stamp = stampOf(fi)
	if opt.Map && mmapSupported && c.size <= math.MaxInt {
		if data, err := mmapFile(f, c.size); err == nil {
			c.data = data
		}
	}
	return c, nil
}

// openCache reads and checks the structure of the cache of size bytes
// that ra holds.
func openCache(ra io.ReaderAt, size int64, opt Options) (*File, error) {
	o, err := readopt.Normalize(opt.ReadOptions)
	if err != nil {
		return nil, err
	}
	opt.ReadOptions = o
	cr := &cacheOpener{ra: ra, size: size, name: o.Name}

	// Header.
	hdr := make([]byte, min(size, cacheHeaderSize))
	if err := cr.readAt(hdr, 0, "the file header"); err != nil {
		return nil, err
	}
	dim, lists, err := decodeHeader(hdr, cr.name)
	if err != nil {
		return nil, err
	}
	if lists && !opt.LabelLists {
		return nil, labelListsRefused(cr.name)
	}
	if minSize := int64(cacheHeaderSize + cacheFooterFix + 8 + cacheTrailer); size < minSize {
		return nil, cr.bad("truncated: %d bytes, shorter than an empty cache (%d)", size, minSize)
	}
	foot, footOff, fi, err := cr.footer(dim, lists)
	if err != nil {
		return nil, err
	}
	c := &File{name: cr.name, ra: ra, size: size, opt: opt, hasQID: fi.hasQID, lists: lists}
	fileMax, err := cr.readIndex(c, foot, footOff, &fi, dim)
	if err != nil {
		return nil, err
	}
	if fi.labelSet {
		at := cacheFooterFix + int(fi.blocks)*cacheIndexEntry
		c.labels = make([]float64, fi.labels)
		for i := range c.labels {
			c.labels[i] = math.Float64frombits(binary.LittleEndian.Uint64(foot[at:]))
			at += 8
		}
		if msg := checkLabelSet(c.labels); msg != "" {
			return nil, cr.bad("footer: %s", msg)
		}
	}

	// The reader's limits.
	c.cols = int(fi.cols)
	if o.Dim > 0 {
		if int(fileMax) >= o.Dim {
			return nil, cacheLimit(cr.name, -1, sparse.ErrIndexRange, fmt.Sprintf("index %d beyond the dimension %d", fileMax, o.Dim))
		}
		c.cols = o.Dim
	} else if c.cols > o.MaxDim {
		return nil, cacheLimit(cr.name, -1, sparse.ErrIndexRange, fmt.Sprintf("%d columns, more than MaxDim = %d", c.cols, o.MaxDim))
	}
	c.checks = blockChecks{maxRowNNZ: o.MaxRowNNZ, labels: c.labels, full: !opt.SkipValueChecks, lists: lists}
	c.sums = make([]atomic.Uint64, len(c.blocks))
	return c, nil
}

// cacheOpener reads the structure of the cache named name, of size
// bytes, that ra holds.
type cacheOpener struct {
	ra   io.ReaderAt
	size int64
	name string
}

// bad is the error for a corrupt file.
func (cr *cacheOpener) bad(format string, a ...any) error {
	return cacheCorrupt(cr.name, -1, nil, fmt.Sprintf(format, a...))
}

// readAt reads b at off, what for messages.
func (cr *cacheOpener) readAt(b []byte, off int64, what string) error {
	n, err := cr.ra.ReadAt(b, off)
	if n == len(b) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		return cr.bad("truncated in %s", what)
	}
	return readopt.ReadErr(cr.name, err)
}

// footer reads the trailer and, where it points, the footer, checks
// their checksums and the footer's fixed part against the header's dim
// and label-lists flag, and returns the footer, its offset and its fixed
// part.
func (cr *cacheOpener) footer(dim int, lists bool) (foot []byte, footOff uint64, fi footerInfo, err error) {
	size := cr.size
	var tr [cacheTrailer]byte
	if err := cr.readAt(tr[:], size-cacheTrailer, "the trailer"); err != nil {
		return nil, 0, fi, err
	}
	le := binary.LittleEndian
	if string(tr[20:]) != cacheEndMagic {
		return nil, 0, fi, cr.bad("truncated: no trailer at the end of the file")
	}
	if le.Uint32(tr[16:]) != crc32.Checksum(tr[:16], castagnoli) {
		return nil, 0, fi, cr.bad("trailer checksum mismatch")
	}
	footOff, footLen := le.Uint64(tr[0:]), le.Uint64(tr[8:])
	if footOff < cacheHeaderSize || footOff%8 != 0 || footLen < cacheFooterFix+8 || footLen > uint64(size) ||
		footOff > uint64(size) || footOff+footLen != uint64(size-cacheTrailer) {
		return nil, 0, fi, cr.bad("trailer points to a footer at %d, %d bytes, outside the file of %d bytes", footOff, footLen, size)
	}

	// Footer: its length is within the file's size, checked above.
	foot = make([]byte, footLen)
	if err := cr.readAt(foot, int64(footOff), "the footer"); err != nil {
		return nil, 0, fi, err
	}
	if string(foot[:4]) != cacheFooterTag {
		return nil, 0, fi, cr.bad("no footer at offset %d", footOff)
	}
	crcAt := len(foot) - 8
	if le.Uint32(foot[crcAt:]) != crc32.Checksum(foot[:crcAt], castagnoli) || le.Uint32(foot[crcAt+4:]) != 0 {
		return nil, 0, fi, cr.bad("footer checksum mismatch")
	}
	fi = decodeFooterFix(foot)
	if msg := fi.check(dim, lists); msg != "" {
		return nil, 0, fi, cr.bad("footer: %s", msg)
	}
	if fi.wantLen != footLen {
		return nil, 0, fi, cr.bad("footer: %d bytes for %d blocks and %d labels, want %d", footLen, fi.blocks, fi.labels, fi.wantLen)
	}
	return foot, footOff, fi, nil
}

// readIndex reads the block index of the footer foot, at footOff, into
// c, checking that the blocks tile [16, footOff) and agree with the
// footer's totals fi, and returns the largest index of the file.
func (cr *cacheOpener) readIndex(c *File, foot []byte, footOff uint64, fi *footerInfo, dim int) (fileMax int32, err error) {
	name, size, bad := cr.name, cr.size, cr.bad
	nb := int(fi.blocks)
	c.blocks = make([]indexEntry, nb)
	c.starts = make([]int64, nb+1)
	c.nnzStart = make([]int64, nb+1)
	var rows, nnz int64
	anyQID := false
	fileMax = -1
	next := int64(cacheHeaderSize)
	at := cacheFooterFix
	for i := range nb {
		e, ok := decodeIndexEntry(foot[at:])
		at += cacheIndexEntry
		if !ok || e.flags&^(cacheBlockQID|cacheBlockLists) != 0 || (e.flags&cacheBlockLists != 0) != fi.lists {
			return 0, cacheCorrupt(name, i, nil, "bad index entry")
		}
		lay, ok := entryLayout(&e)
		switch {
		case e.off != next:
			return 0, cacheCorrupt(name, i, nil, fmt.Sprintf("index puts the block at offset %d, want %d", e.off, next))
		case !ok || lay.size > size || (e.nnz == 0) != (e.maxIdx == -1) || e.maxIdx < -1:
			return 0, cacheCorrupt(name, i, nil, "index entry inconsistent")
		case uint64(e.maxIdx+1) > fi.cols:
			return 0, cacheCorrupt(name, i, sparse.ErrIndexRange, fmt.Sprintf("largest index %d beyond the file's %d columns", e.maxIdx, fi.cols))
		case lay.size > math.MaxInt-cacheBlockHdr || e.rows > math.MaxInt-1:
			return 0, cacheLimit(name, i, sparse.ErrRowTooLong, "block too large for this platform")
		}
		next += cacheBlockHdr + lay.size
		c.maxBlock = max(c.maxBlock, int(cacheBlockHdr+lay.size))
		if next > int64(footOff) {
			return 0, cacheCorrupt(name, i, nil, fmt.Sprintf("block extends past the footer at %d: truncated or corrupt", footOff))
		}
		c.blocks[i] = e
		c.starts[i], c.nnzStart[i] = rows, nnz
		rows += e.rows
		nnz += e.nnz
		anyQID = anyQID || e.flags&cacheBlockQID != 0
		fileMax = max(fileMax, e.maxIdx)
	}
	c.starts[nb], c.nnzStart[nb] = rows, nnz
	switch {
	case next != int64(footOff):
		return 0, bad("blocks end at %d, the footer starts at %d", next, footOff)
	case uint64(rows) != fi.rows || uint64(nnz) != fi.nnz:
		return 0, bad("footer totals %d rows, %d nonzeros; the blocks hold %d, %d", fi.rows, fi.nnz, rows, nnz)
	case anyQID != fi.hasQID:
		return 0, bad("footer's query-id flag disagrees with the blocks")
	case dim == 0 && fi.cols != uint64(int64(fileMax)+1):
		return 0, bad("footer says %d columns, the largest index is %d", fi.cols, fileMax)
	}
	c.rows, c.nnz = rows, nnz
	return fileMax, nil
}

// Name returns the name the cache's errors use.
func (c *File) Name() string { return c.name }

// Rows returns the number of rows.
func (c *File) Rows() int64 { return c.rows }

// NNZ returns the number of stored entries.
func (c *File) NNZ() int64 { return c.nnz }

// Cols returns the number of columns: sparse.ReadOptions.Dim if set, else the
// file's fixed dim if it has one, else its largest index + 1.
func (c *File) Cols() int { return c.cols }

// NumBlocks returns the number of blocks.
func (c *File) NumBlocks() int { return len(c.blocks) }

// HasQID reports whether some rows carry query ids.
func (c *File) HasQID() bool { return c.hasQID }

// HasLabelLists reports whether the file holds label lists (the rows of
// a multi-label data set; see Options.LabelLists).
func (c *File) HasLabelLists() bool { return c.lists }

// Mapped reports whether the file is memory-mapped.
func (c *File) Mapped() bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.data != nil
}

// Labels returns a copy of the distinct labels, sorted ascending (−0 is
// listed as 0), or nil when the file has more than MaxLabels of
// them. Every row's label is among them: ReadBlock checks it (unless
// Options.SkipValueChecks). A file with label lists has no label set:
// nil.
func (c *File) Labels() []float64 {
	if c.labels == nil || c.lists {
		return nil
	}
	return append([]float64{}, c.labels...)
}

// BlockInfo describes one block of a cache.
type BlockInfo struct {
	Start int64 // the global index of its first row
	Rows  int
	NNZ   int64
}

// BlockInfo returns the position and size of block i, which must be in
// [0, NumBlocks()).
func (c *File) BlockInfo(i int) BlockInfo {
	e := &c.blocks[i]
	return BlockInfo{Start: c.starts[i], Rows: int(e.rows), NNZ: e.nnz}
}

var errCacheClosed = errors.New("sparse: cache is closed")

// ReadBlock reads block i into dst, reusing dst's buffers (see
// Block), and checks it: the block header against the index, the
// payload's checksum, the row pointers, the range of the indices and,
// unless Options.SkipValueChecks, the labels, the order of the indices
// and the values (on the first read of the block only). The block is
// read (or copied out of the mapping) into dst's own memory before it
// is checked, and dst's arrays view that copy, so that what was checked
// is what its user reads, whatever happens to the file meanwhile. A file
// that changed since Open (another size or modification time), or a
// block that reads differently from its first read, is a *Error
// wrapping ErrChanged. ReadBlock may be called concurrently with
// distinct dst.
func (c *File) ReadBlock(i int, dst *Block) error {
	if err := c.readLock(); err != nil {
		return err
	}
	defer c.mu.RUnlock()
	if i < 0 || i >= len(c.blocks) {
		return fmt.Errorf("sparse: %s: ReadBlock(%d): block out of range [0, %d)", c.name, i, len(c.blocks))
	}
	var err error
	if c.data != nil {
		err = guardFault(c.name, i, func() error { return c.readBlock(i, dst) })
	} else {
		err = c.readBlock(i, dst)
	}
	return locate(c.changed(i, err), c.name, i)
}

// readLock takes c's read lock, or returns errCacheClosed, without it,
// when c is closed.
func (c *File) readLock() error {
	c.mu.RLock()
	if c.closed {
		c.mu.RUnlock()
		return errCacheClosed
	}
	return nil
}

// CheckUnchanged returns a *Error wrapping ErrChanged if the file's size
// or modification time differ from those at Open: it was truncated,
// extended or written to. ReadBlock and Load check this themselves; a
// caller that keeps blocks and uses them again (as engine.FitCache keeps
// a small file's blocks from epoch to epoch) calls it to learn that the
// file they came from has changed. A File opened from an io.ReaderAt
// (as ReadInfo does) has nothing to compare and returns nil.
func (c *File) CheckUnchanged() error {
	if err := c.readLock(); err != nil {
		return err
	}
	defer c.mu.RUnlock()
	return locate(c.statChanged(), c.name, -1)
}

// fileStamp is what a file's metadata says of its content.
type fileStamp struct {
	size  int64
	mtime time.Time
}

func stampOf(fi os.FileInfo) fileStamp { return fileStamp{fi.Size(), fi.ModTime()} }

// statChanged returns ErrChanged, as a *Error without a name, if the
// open file's size or modification time differ from c.stamp. Only writes
// move them: a rename or a new link does not, nor does replacing the
// file by a rename (the File keeps the one it opened).
func (c *File) statChanged() error {
	if c.f == nil {
		return nil
	}
	fi, err := c.f.Stat()
	if err != nil {
		return readopt.ReadErr(c.name, err)
	}
	now := stampOf(fi)
	switch {
	case now.size != c.stamp.size:
		return cacheCorrupt("", -1, ErrChanged, fmt.Sprintf("the file changed while in use: %d bytes, %d when opened", now.size, c.stamp.size))
	case !now.mtime.Equal(c.stamp.mtime):
		return cacheCorrupt("", -1, ErrChanged, fmt.Sprintf("the file changed while in use: modified %s, after it was opened", now.mtime.UTC().Format(time.RFC3339Nano)))
	}
	return nil
}

// changed returns what a read of block i that gave err reports. The
// file's size and modification time are looked at after the read, so
// that a write that reached the bytes read has moved them: if they
// moved, the file changed, which explains any error. Else a block whose
// earlier read passed and that now fails its checks changed in place too.
func (c *File) changed(i int, err error) error {
	if serr := c.statChanged(); serr != nil {
		return serr
	}
	var ce *Error
	if err != nil && c.sums[i].Load() != 0 && errors.As(err, &ce) && ce.Err != ErrChanged {
		return cacheCorrupt("", -1, ErrChanged, "the file changed while in use: the block passed its checks when first read, now: "+ce.Msg)
	}
	return err
}

// Guard runs f and returns its error. When c is memory-mapped, a fault on
// the mapping in f's goroutine (the file was truncated underneath, which
// would otherwise kill the program with SIGBUS) stops f and is returned
// as a *Error wrapping ErrChanged.
//
// Deprecated: blocks are copied out of the mapping, under a guard of
// their own, before anyone sees them, so code that uses them cannot
// fault; there is nothing left to guard.
func (c *File) Guard(f func() error) error {
	if !c.Mapped() {
		return f()
	}
	return guardFault(c.name, -1, f)
}

// guardFault runs f, turning a memory fault in it (on the mapping of the
// file name, while reading block, or -1) into an error.
func guardFault(name string, block int, f func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if _, ok := r.(interface{ Addr() uintptr }); !ok {
			panic(r)
		}
		err = cacheCorrupt(name, block, ErrChanged, "the file changed while in use: the mapping faulted (truncated underneath)")
	}()
	return f()
}

// copyChunk is the piece copyChecksum copies before it checksums it: the
// checksum reads it back from the cache, not from memory.
const copyChunk = 32 << 10

// copyChecksum copies src into dst, which is as long, a chunk at a time,
// and returns the CRC-32C of the copy. The checksum is of what landed in
// dst: if src changes meanwhile, dst and its checksum still agree.
func copyChecksum(dst, src []byte) uint32 {
	var crc uint32
	for len(src) > 0 {
		k := copy(dst, src[:min(len(src), copyChunk)])
		crc = crc32.Update(crc, castagnoli, dst[:k])
		dst, src = dst[k:], src[k:]
	}
	return crc
}

// readBlock reads block i into dst's own buffer, from the mapping or the
// file, and checks it there.
func (c *File) readBlock(i int, dst *Block) error {
	e := &c.blocks[i]
	lay, _ := entryLayout(e)
	n := cacheBlockHdr + lay.size
	raw := dst.bufferFor(int(n), c.maxBlock)
	var crc uint32
	if c.data != nil {
		// Another process may write to the file at any moment, and a
		// view of the mapping would show its writes: checked there, the
		// block could differ by the time it is used. So it is copied
		// first, and everything below reads the copy.
		copy(raw[:cacheBlockHdr], c.data[e.off:])
		crc = copyChecksum(raw[cacheBlockHdr:], c.data[e.off+cacheBlockHdr:e.off+n])
	} else {
		k, err := c.ra.ReadAt(raw, e.off)
		if k < len(raw) {
			if err == nil || errors.Is(err, io.EOF) {
				return cacheCorrupt("", -1, nil, "truncated: the file shrank")
			}
			return readopt.ReadErr(c.name, err)
		}
		crc = crc32.Checksum(raw[cacheBlockHdr:], castagnoli)
	}
	h, err := checkAgainstIndex(raw, e, &lay)
	if err != nil {
		return err
	}
	if crc != h.payloadCRC {
		return cacheCorrupt("", -1, nil, "checksum mismatch")
	}
	dst.Index, dst.Start = i, c.starts[i]
	dst.fill(raw[cacheBlockHdr:], &lay, e.maxIdx, c.cols, true)
	return c.checkBlock(i, dst, crc)
}

// checkBlock runs the checks on block i, read into private memory, whose
// payload has checksum crc. The first read that passes records crc; a
// later read of the same crc skips the value checks (not the range
// checks), and one of another crc is ErrChanged.
func (c *File) checkBlock(i int, b *Block, crc uint32) error {
	ck := c.checks
	seal := 1<<32 | uint64(crc)
	switch first := c.sums[i].Load(); first {
	case seal:
		ck.full = false
	case 0:
	default:
		return cacheCorrupt("", -1, ErrChanged, fmt.Sprintf("the file changed while in use: payload checksum %08x, %08x when first read", crc, uint32(first)))
	}
	if ce := b.check(&ck); ce != nil {
		return ce
	}
	if !c.sums[i].CompareAndSwap(0, seal) && c.sums[i].Load() != seal {
		// Another goroutine's first read of the block saw other bytes.
		return cacheCorrupt("", -1, ErrChanged, fmt.Sprintf("the file changed while in use: payload checksum %08x, %08x when first read", crc, uint32(c.sums[i].Load())))
	}
	return nil
}

// checkAgainstIndex decodes the block header in hdr and checks it against
// the index entry e and its layout.
func checkAgainstIndex(hdr []byte, e *indexEntry, lay *blockLayout) (blockHeader, error) {
	h := decodeBlockHeader(hdr)
	if !h.headerValid {
		return h, cacheCorrupt("", -1, nil, "bad block header (tag or checksum)")
	}
	if h.flags != e.flags || h.rows != uint64(e.rows) || h.nnz != uint64(e.nnz) || h.maxIdx != e.maxIdx || h.payloadLen != uint64(lay.size) {
		return h, cacheCorrupt("", -1, nil, "block header disagrees with the index")
	}
	return h, nil
}

// loadScratch is a Load worker's reusable state.
type loadScratch struct {
	blk Block
	hdr [cacheBlockHdr]byte
	p   []int64
	pad [8]byte
}

// loadDirect reads (or copies out of the mapping) block i of a cache on
// a little-endian host straight into its place in d, array by array,
// without an intermediate buffer, and checks it there: in d, which no
// other process can write to.
func (c *File) loadDirect(i int, d *sparse.Dataset, s *loadScratch) error {
	e := &c.blocks[i]
	lay, _ := entryLayout(e)
	readAt := func(b []byte, off int64) error {
		if c.data != nil {
			copy(b, c.data[off:off+int64(len(b))])
			return nil
		}
		k, err := c.ra.ReadAt(b, off)
		if k < len(b) {
			if err == nil || errors.Is(err, io.EOF) {
				return cacheCorrupt("", -1, nil, "truncated: the file shrank")
			}
			return readopt.ReadErr(c.name, err)
		}
		return nil
	}
	if err := readAt(s.hdr[:], e.off); err != nil {
		return err
	}
	h, err := checkAgainstIndex(s.hdr[:], e, &lay)
	if err != nil {
		return err
	}
	r0, n0 := c.starts[i], c.nnzStart[i]
	rows, nnz := int(e.rows), int(e.nnz)
	if cap(s.p) < rows+1 {
		s.p = make([]int64, rows+1)
	}
	blk := &s.blk
	blk.Index, blk.Start, blk.max, blk.fixedDim = i, r0, e.maxIdx, true
	blk.Y = d.Y[r0 : r0+int64(rows)]
	blk.QID = nil
	blk.x = sparse.CSR{Rows: rows, Cols: c.cols, Indptr: s.p[:rows+1], Ind: d.X.Ind[n0 : n0+int64(nnz)], Val: d.X.Val[n0 : n0+int64(nnz)]}
	blk.X = &blk.x
	pad := s.pad[:lay.val-lay.ind-4*lay.nnz]
	pieces := [7]struct {
		b   []byte
		off int64
	}{
		{asBytes(blk.Y), 0},
		{nil, lay.q},
		{asBytes(blk.x.Indptr), lay.p},
		{asBytes(blk.x.Ind), lay.ind},
		{pad, lay.val - int64(len(pad))},
		{asBytes(blk.x.Val), lay.val},
		{pad, lay.size - int64(len(pad))},
	}
	if lay.qid {
		blk.QID = d.QID[r0 : r0+int64(rows)]
		pieces[1].b = asBytes(blk.QID)
	}
	base := e.off + cacheBlockHdr
	var crc uint32
	for _, pc := range pieces {
		if len(pc.b) == 0 {
			continue
		}
		if err := readAt(pc.b, base+pc.off); err != nil {
			return err
		}
		crc = crc32.Update(crc, castagnoli, pc.b)
	}
	if crc != h.payloadCRC {
		return cacheCorrupt("", -1, nil, "checksum mismatch")
	}
	if err := c.checkBlock(i, blk, h.payloadCRC); err != nil {
		return err
	}
	dp := d.X.Indptr[r0+1 : r0+1+int64(rows)]
	for k, p := range blk.x.Indptr[1:] {
		dp[k] = p + n0
	}
	return nil
}

// Load reads the whole cache into memory, decoding and checking its
// blocks in parallel with sparse.ReadOptions.Workers goroutines (all cores by
// default). The result does not share memory with the cache. On error it
// reports the lowest bad block.
func (c *File) Load() (*sparse.Dataset, error) {
	c.mu.RLock()
	closed := c.closed
	// On a little-endian host, blocks are read (or copied out of the
	// mapping) straight into place and checked there; otherwise they are
	// read into a Block, checked, and decoded into place.
	// (Close clears c.data: look at it under the lock.)
	direct := canView(nil, 8)
	mapped := c.data != nil
	c.mu.RUnlock()
	if closed {
		return nil, errCacheClosed
	}
	if c.lists {
		return nil, labelListsRefused(c.name)
	}
	d, err := c.allocate()
	if err != nil {
		return nil, err
	}
	if err := c.loadBlocks(d, direct, mapped); err != nil {
		return nil, err
	}
	// The blocks were checked as copied; a file whose size or time moved
	// meanwhile was written to while they were (see changed).
	if err := c.readLock(); err != nil {
		return nil, err
	}
	defer c.mu.RUnlock()
	if err := c.statChanged(); err != nil {
		return nil, locate(err, c.name, -1)
	}
	return d, nil
}

// allocate checks the whole cache against the platform, MaxNNZ and the
// memory budget, and makes the dataset it loads into.
func (c *File) allocate() (*sparse.Dataset, error) {
	if c.rows > math.MaxInt-1 || c.nnz > math.MaxInt {
		return nil, cacheLimit(c.name, -1, sparse.ErrRowTooLong, "too large for this platform")
	}
	if c.nnz > c.opt.MaxNNZ {
		return nil, fmt.Errorf("%w: %s has %d nonzeros, more than MaxNNZ = %d: raise ReadOptions.MaxNNZ, or train from it out of core (engine.FitCache)", sparse.ErrTooLarge, c.name, c.nnz, c.opt.MaxNNZ)
	}
	perRow := int64(16)
	if c.hasQID {
		perRow += 8
	}
	need := budget.Add(budget.Mul(int64(c.rows), perRow), budget.Mul(int64(c.nnz), 8))
	if err := budget.Check(c.opt.MemoryBudget, need, fmt.Sprintf("loading %s (%d rows, %d nonzeros)", c.name, c.rows, c.nnz)); err != nil {
		return nil, fmt.Errorf("%w; train from it out of core (engine.FitCache, train -stream)", err)
	}
	rows, nnz := int(c.rows), int(c.nnz)
	d := &sparse.Dataset{
		X: &sparse.CSR{
			Rows:   rows,
			Cols:   c.cols,
			Indptr: make([]int64, rows+1),
			Ind:    make([]int32, nnz),
			Val:    make([]float32, nnz),
		},
		Y: make([]float64, rows),
	}
	if c.hasQID {
		d.QID = make([]int64, rows)
	}
	return d, nil
}

// loadBlocks loads the blocks into place in d with up to Workers
// goroutines, which stop at the first failure; it returns the error of
// the lowest failed block. direct and mapped say how blocks are read (see
// Load).
func (c *File) loadBlocks(d *sparse.Dataset, direct, mapped bool) error {
	var next atomic.Int64
	var failed atomic.Bool
	errs := make([]error, len(c.blocks))
	var wg sync.WaitGroup
	for range min(c.opt.Workers, len(c.blocks)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := new(loadScratch)
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= len(c.blocks) {
					return
				}
				load := func() error {
					if direct {
						return c.loadBlockDirect(i, d, s)
					}
					return c.loadBlockCopy(i, d, &s.blk)
				}
				var err error
				if mapped {
					// A fault is this goroutine's: guard it here.
					err = guardFault(c.name, i, load)
				} else {
					err = load()
				}
				if err != nil {
					errs[i] = err
					failed.Store(true)
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// loadBlockCopy reads block i into blk and copies it into place in d,
// under the read lock (Close unmaps the mapping readBlock copies from).
func (c *File) loadBlockCopy(i int, d *sparse.Dataset, blk *Block) error {
	if err := c.readLock(); err != nil {
		return err
	}
	defer c.mu.RUnlock()
	if err := c.readBlock(i, blk); err != nil {
		return locate(c.changed(i, err), c.name, i)
	}
	r0, n0 := c.starts[i], c.nnzStart[i]
	copy(d.Y[r0:], blk.Y)
	if blk.QID != nil {
		copy(d.QID[r0:], blk.QID)
	}
	copy(d.X.Ind[n0:], blk.X.Ind)
	copy(d.X.Val[n0:], blk.X.Val)
	dp := d.X.Indptr[r0+1 : r0+1+int64(blk.X.Rows)]
	for k, p := range blk.X.Indptr[1:] {
		dp[k] = p + n0
	}
	return nil
}

// loadBlockDirect is loadDirect under the read lock, with the error
// located.
func (c *File) loadBlockDirect(i int, d *sparse.Dataset, s *loadScratch) error {
	if err := c.readLock(); err != nil {
		return err
	}
	defer c.mu.RUnlock()
	return locate(c.changed(i, c.loadDirect(i, d, s)), c.name, i)
}

// Close stops the cache's scanners, unmaps and closes the file. Blocks
// read from a memory-mapped cache must not be used after Close.
func (c *File) Close() error {
	c.scMu.Lock()
	scs := c.scanners
	c.scanners = nil
	c.scMu.Unlock()
	for sc := range scs {
		sc.finish()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	var err error
	if c.data != nil {
		err = munmap(c.data)
		c.data = nil
	}
	if c.f != nil {
		if cerr := c.f.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// ReadFile reads the whole HPSC file at path: Open, then File.Load. If
// opt.Name is empty, errors name the file by path.
func ReadFile(path string, opt sparse.ReadOptions) (*sparse.Dataset, error) {
	c, err := Open(path, Options{ReadOptions: opt})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return c.Load()
}
