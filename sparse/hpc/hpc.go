package hpc

// Binary cache files ("HPSC").
//
// A cache holds a parsed data set as raw little-endian arrays, cut into
// blocks of about WriterOptions.BlockSize payload bytes, so that a
// second pass over a large LIBSVM file costs no parsing: a reader verifies a
// block's checksum and views (or copies) its arrays as they are. Every
// array starts at a file offset that is a multiple of 8, so a
// memory-mapped block is used in place without copying.
//
// The format is little-endian throughout. Version 1 holds one label per
// row; version 2 is version 1 with label lists, the rows of a
// multi-label data set (marked below "lists"). A writer writes version 2
// only for label lists, so a file without them is the same version 1
// file it always was, and a reader of version 1 refuses one with them
// as a newer version.
//
//	file header, 16 bytes, at offset 0:
//	  0   4   magic "HPSC"
//	  4   2   format version (uint16, 1; 2 with label lists)
//	  6   2   flags (uint16): in version 2, bit 0 set when the file holds
//	          label lists; other bits 0 (a reader rejects unknown flags)
//	  8   4   dim (uint32): the fixed number of columns, or 0 when the
//	          number of columns is the largest index + 1
//	  12  4   CRC-32C of bytes 0..11
//
//	blocks, one after another from offset 16; each is a 40-byte block
//	header followed by its payload:
//	  0   4   tag "HPSB"
//	  4   4   flags (uint32): bit 0 set when the payload holds query ids;
//	          bit 1 set when it holds label lists (on every block of a
//	          file with them, on none otherwise; never with bit 0);
//	          other bits 0
//	  8   4   rows r (uint32)
//	  12  4   largest column index in the block (int32), -1 when nnz = 0
//	  16  8   nnz n (uint64)
//	  24  8   payload length in bytes (uint64), which must equal
//	          8r [+ 8r] + 8(r+1) + pad8(4n) + pad8(4n) [+ pad8(4m)]
//	  32  4   CRC-32C of the payload
//	  36  4   CRC-32C of bytes 0..35 of this header
//	payload, every array at a multiple of 8 bytes from its start:
//	  8r           labels (float64 bits); lists: each row's number of
//	               labels, a whole number in [0, MaxRowLabels]
//	  8r           query ids (int64), only when flag bit 0 is set
//	  8(r+1)       row pointers (int64): local to the block, starting at 0,
//	               non-decreasing, the last one n
//	  pad8(4n)     column indices (int32, 0-based, strictly increasing
//	               within a row), then zero bytes up to a multiple of 8
//	  pad8(4n)     values (float32 bits), then zero bytes likewise
//	  pad8(4m)     lists only: the labels of the rows one row after
//	               another, each row's in the order written (int32, ≥ 0,
//	               none twice in a row), m being the sum of the counts,
//	               then zero bytes likewise
//
//	footer, at the offset the trailer gives (right after the last block):
//	  0   4   tag "HPSF"
//	  4   4   flags (uint32): bit 0 the label set is present, bit 1 some
//	          block holds query ids, bit 2 the file holds label lists
//	          (as the file header says); other bits 0
//	  8   8   number of blocks B (uint64)
//	  16  8   rows (uint64): the sum over the blocks
//	  24  8   nnz (uint64): the sum over the blocks
//	  32  8   cols (uint64): dim when the header fixes it, else the largest
//	          index in the file + 1 (0 without nonzeros)
//	  40  8   number of distinct labels L (uint64; 0 when bit 0 is clear)
//	  48  32B block index, one 32-byte entry per block:
//	            0  8  file offset of the block header (uint64)
//	            8  8  nnz (uint64)
//	            16 4  rows (uint32)
//	            20 4  largest column index (int32), as in the block header
//	            24 4  flags (uint32), as in the block header
//	            28 4  lists: the block's label entries m (uint32); else 0
//	  ..  8L  the distinct labels (float64 bits), strictly increasing, all
//	          finite, -0 written as 0; present only when the file has at
//	          most 65536 distinct labels (bit 0 set); lists: of the
//	          label counts
//	  ..  4   CRC-32C of the footer from its tag up to here
//	  ..  4   zero
//
//	trailer, the last 24 bytes of the file:
//	  0   8   footer offset (uint64)
//	  8   8   footer length (uint64): 56 + 32B + 8L
//	  16  4   CRC-32C of bytes 0..15 of the trailer
//	  20  4   magic "HPSE"
//
// pad8(x) rounds x up to a multiple of 8; CRC-32C is CRC-32 with the
// Castagnoli polynomial. The header and block headers are multiples of 8
// bytes long and so is every payload, which keeps all offsets aligned.
//
// A file reader (Open) reads the trailer and the footer (two reads)
// and checks the whole block index against the file's size before it
// allocates anything: the blocks must tile the file exactly from offset 16
// to the footer, each exactly as long as its rows and nnz (and, with label
// lists, the index's m) demand, and
// their rows and nnz must add up to the totals. A stream reader
// (NewScanner, Read) reads the blocks in order, then checks the
// footer against what it has seen, so a stream cut at a block boundary is
// reported as truncated. Every block is checked on reading, in private
// memory (a mapped file's block is copied out first): its header's
// and payload's checksums, its header against the index, its row pointers
// and the range of its indices (always) and, unless
// Options.SkipValueChecks, its labels (finite, in the label set), indices
// (strictly increasing per row, largest equal to the header's) and values
// (finite); with label lists, always the label counts (whole numbers
// adding up to the index's m; a stream, whose block headers do not carry
// m, takes it from the counts and checks it against the payload length)
// and the labels (non-negative), and unless SkipValueChecks that no row
// lists a label twice. A File value-checks each block on its first read
// only, and for later reads relies on the checksum, which must be the
// first read's (else the file changed: ErrChanged).

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"strconv"
	"unsafe"
)

const (
	cacheMagic      = "HPSC"
	cacheBlockTag   = "HPSB"
	cacheFooterTag  = "HPSF"
	cacheEndMagic   = "HPSE"
	cacheVersion    = 2 // the newest version this build reads
	cacheVersionOne = 1 // the version of a file without label lists
	cacheHeaderSize = 16
	cacheBlockHdr   = 40
	cacheFooterFix  = 48 // fixed part of the footer, before the index
	cacheIndexEntry = 32
	cacheTrailer    = 24

	cacheFileLists  = 1 << 0 // file header flag (version 2): label lists
	cacheBlockQID   = 1 << 0 // block flag: query ids present
	cacheBlockLists = 1 << 1 // block flag: label lists follow the values
	cacheFootLabels = 1 << 0 // footer flag: label set present
	cacheFootQID    = 1 << 1 // footer flag: some block holds query ids
	cacheFootLists  = 1 << 2 // footer flag: the file holds label lists

	// MaxRowLabels is the most labels one row of a file with label lists
	// may have.
	MaxRowLabels = 1 << 24

	// MaxLabels is the most distinct labels a cache file lists in its
	// footer; a file with more has no label set (File.Labels returns nil).
	MaxLabels = 65536

	// DefaultBlockSize is the default target payload size of a block
	// (WriterOptions.BlockSize).
	DefaultBlockSize = 4 << 20
	// maxCacheBlockSize bounds WriterOptions.BlockSize.
	maxCacheBlockSize = 1 << 30
	// maxCacheNNZ bounds the nnz of a block or file, so that every size
	// computed from it fits an int64 with room to spare.
	maxCacheNNZ = 1 << 58
	// cacheChunk is the most a stream reader allocates ahead of the data
	// it has received.
	cacheChunk = 1 << 20
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrFormat reports a cache file that is not one, is truncated or corrupt,
// or has a newer format version. Errors about a cache file are
// *Error values that wrap it (and, for bad data inside a block, also
// the sentinel of the broken invariant, such as sparse.ErrIndexOrder).
var ErrFormat = errors.New("hpc: bad HPSC file")

// ErrLabelLists reports a cache file that holds label lists (the rows of
// a multi-label data set) given to a reader of one label per row: Open
// without Options.LabelLists, NewScanner, Read and ReadFile. It comes
// as a *Error naming the file; it does not wrap ErrFormat, the file being
// sound. Read such a file with ReadMultiLabelFile or File.LoadMultiLabel.
var ErrLabelLists = errors.New("hpc: cache file holds label lists (multi-label rows)")

// labelListsRefused is the error for a file with label lists given to a
// reader of one label per row.
func labelListsRefused(name string) *Error {
	return cacheLimit(name, -1, ErrLabelLists, "holds label lists (multi-label rows), not one label per row: read it as multi-label data (hpc.ReadMultiLabelFile; train, eval and predict take it as a multi-label file)")
}

// ErrChanged reports a cache file that changed while it was open: its
// size or modification time differ from those at Open, or a block reads
// differently from its first read. It comes as a *Error that also wraps
// ErrFormat and names the file and, where one was being read, the block.
// Replacing the file by a rename (as atomicfile.Write does) is not a
// change: the File keeps reading the file it opened.
var ErrChanged = errors.New("hpc: cache file changed while in use")

// Error describes a problem with a cache file. Its message names the file
// and, when there is one, the block: "data.hpc: block 3: checksum
// mismatch". A file that is well formed but exceeds a sparse.ReadOptions
// limit (MaxDim, MaxRowNNZ, Dim) wraps sparse.ErrIndexRange or
// sparse.ErrRowTooLong alone; everything else wraps ErrFormat, and Err when
// it names a further sentinel.
type Error struct {
	File  string // the file's name (sparse.ReadOptions.Name or the path), or ""
	Block int    // the block concerned, or -1
	Msg   string // what is wrong
	Err   error  // ErrFormat, or the sentinel of a broken invariant or limit

	limit bool // a limit of the reader, not a fault of the file
}

// Error formats the error as "file: block N: msg". An unnamed input is
// written as "<input>".
func (e *Error) Error() string {
	name := e.File
	if name == "" {
		name = "<input>"
	}
	if e.Block >= 0 {
		return name + ": block " + strconv.Itoa(e.Block) + ": " + e.Msg
	}
	return name + ": " + e.Msg
}

// Unwrap returns the sentinel errors: ErrFormat unless the file only
// exceeds a limit of the reader, and Err.
func (e *Error) Unwrap() []error {
	switch {
	case e.limit || e.Err == ErrFormat:
		return []error{e.Err}
	case e.Err == nil:
		return []error{ErrFormat}
	}
	return []error{ErrFormat, e.Err}
}

// cacheCorrupt returns a *Error wrapping ErrFormat and, if non-nil,
// sentinel.
func cacheCorrupt(name string, block int, sentinel error, msg string) *Error {
	if sentinel == nil {
		sentinel = ErrFormat
	}
	return &Error{File: name, Block: block, Msg: msg, Err: sentinel}
}

// cacheLimit returns a *Error for a file beyond a reader's limit.
func cacheLimit(name string, block int, sentinel error, msg string) *Error {
	return &Error{File: name, Block: block, Msg: msg, Err: sentinel, limit: true}
}

// pad8 rounds x up to a multiple of 8.
func pad8(x int64) int64 { return (x + 7) &^ 7 }

// blockLayout gives the payload offsets of a block's arrays.
type blockLayout struct {
	rows, nnz int64
	qid       bool
	q, p      int64 // offsets of the query ids (if qid) and row pointers
	ind, val  int64 // offsets of the indices and values
	lists     int64 // offset of the label lists (with label lists)
	m         int64 // number of entries of the label lists
	size      int64 // payload length
}

// withLists returns l extended by label lists of m entries, which
// follow the values; m ≤ 2^32-1, as the index holds it.
func (l blockLayout) withLists(m uint64) blockLayout {
	l.lists, l.m = l.size, int64(m)
	l.size += pad8(4 * l.m)
	return l
}

// entryLayout returns the layout of the block an index entry describes.
func entryLayout(e *indexEntry) (blockLayout, bool) {
	lay, ok := layoutOf(uint64(e.rows), uint64(e.nnz), e.flags&cacheBlockQID != 0)
	if e.flags&cacheBlockLists != 0 {
		lay = lay.withLists(uint64(e.lists))
	}
	return lay, ok
}

// layoutOf returns the layout of a block with rows rows and nnz nonzeros;
// false if the counts are beyond the format.
func layoutOf(rows, nnz uint64, qid bool) (blockLayout, bool) {
	if rows > math.MaxUint32 || nnz > maxCacheNNZ {
		return blockLayout{}, false
	}
	r, n := int64(rows), int64(nnz)
	l := blockLayout{rows: r, nnz: n, qid: qid, q: 8 * r}
	l.p = l.q
	if qid {
		l.p += 8 * r
	}
	l.ind = l.p + 8*(r+1)
	l.val = l.ind + pad8(4*n)
	l.size = l.val + pad8(4*n)
	return l, true
}

// indexEntry describes one block, as the footer's index does.
type indexEntry struct {
	off    int64 // file offset of the block header
	nnz    int64
	rows   int64
	maxIdx int32
	flags  uint32
	lists  uint32 // entries of the label lists (0 without them)
}

func (e *indexEntry) encode(b []byte) {
	le := binary.LittleEndian
	le.PutUint64(b[0:], uint64(e.off))
	le.PutUint64(b[8:], uint64(e.nnz))
	le.PutUint32(b[16:], uint32(e.rows))
	le.PutUint32(b[20:], uint32(e.maxIdx))
	le.PutUint32(b[24:], e.flags)
	le.PutUint32(b[28:], e.lists)
}

// decodeIndexEntry decodes an entry; false if its offset or nnz are
// beyond the format, or it counts label-list entries without the flag.
func decodeIndexEntry(b []byte) (indexEntry, bool) {
	le := binary.LittleEndian
	e := indexEntry{
		off:    int64(le.Uint64(b[0:])),
		nnz:    int64(le.Uint64(b[8:])),
		rows:   int64(le.Uint32(b[16:])),
		maxIdx: int32(le.Uint32(b[20:])),
		flags:  le.Uint32(b[24:]),
		lists:  le.Uint32(b[28:]),
	}
	return e, (e.lists == 0 || e.flags&cacheBlockLists != 0) && le.Uint64(b[0:]) <= math.MaxInt64 && le.Uint64(b[8:]) <= maxCacheNNZ
}

// blockHeader is a decoded block header.
type blockHeader struct {
	flags       uint32
	rows        uint64
	maxIdx      int32
	nnz         uint64
	payloadLen  uint64
	payloadCRC  uint32
	headerValid bool // tag and header checksum are right
}

func encodeBlockHeader(b []byte, e *indexEntry, payloadLen int64, crc uint32) {
	le := binary.LittleEndian
	copy(b, cacheBlockTag)
	le.PutUint32(b[4:], e.flags)
	le.PutUint32(b[8:], uint32(e.rows))
	le.PutUint32(b[12:], uint32(e.maxIdx))
	le.PutUint64(b[16:], uint64(e.nnz))
	le.PutUint64(b[24:], uint64(payloadLen))
	le.PutUint32(b[32:], crc)
	le.PutUint32(b[36:], crc32.Checksum(b[:36], castagnoli))
}

func decodeBlockHeader(b []byte) blockHeader {
	le := binary.LittleEndian
	return blockHeader{
		flags:       le.Uint32(b[4:]),
		rows:        uint64(le.Uint32(b[8:])),
		maxIdx:      int32(le.Uint32(b[12:])),
		nnz:         le.Uint64(b[16:]),
		payloadLen:  le.Uint64(b[24:]),
		payloadCRC:  le.Uint32(b[32:]),
		headerValid: string(b[:4]) == cacheBlockTag && le.Uint32(b[36:]) == crc32.Checksum(b[:36], castagnoli),
	}
}

// checkBlockHeader checks a decoded header's own consistency and returns
// the block's layout. A header does not count the entries of its label
// lists: the layout of a block with them leaves them out (m = 0), and
// its payload may be longer by a multiple of 8 bytes, which the caller
// checks against the label counts in the payload.
func checkBlockHeader(h *blockHeader) (blockLayout, string) {
	if !h.headerValid {
		return blockLayout{}, "bad block header (tag or checksum)"
	}
	if h.flags&^(cacheBlockQID|cacheBlockLists) != 0 {
		return blockLayout{}, "unknown block flags " + strconv.FormatUint(uint64(h.flags), 16)
	}
	lay, ok := layoutOf(h.rows, h.nnz, h.flags&cacheBlockQID != 0)
	exact := uint64(lay.size) == h.payloadLen
	if h.flags&cacheBlockLists != 0 {
		exact = h.payloadLen >= uint64(lay.size) && h.payloadLen%8 == 0
	}
	if !ok || !exact {
		return blockLayout{}, "payload length " + strconv.FormatUint(h.payloadLen, 10) + " does not match its rows and nonzeros"
	}
	if (h.nnz == 0) != (h.maxIdx == -1) || h.maxIdx < -1 {
		return blockLayout{}, "largest index " + strconv.Itoa(int(h.maxIdx)) + " does not match its nonzeros"
	}
	return lay, ""
}

// encodeHeader returns the file header for dim: version 1, or version 2
// with the label-lists flag when lists is set, so that a file without
// label lists is the same as ever, and a reader of version 1 refuses one
// with them as a newer version.
func encodeHeader(dim int, lists bool) []byte {
	b := make([]byte, cacheHeaderSize)
	le := binary.LittleEndian
	copy(b, cacheMagic)
	le.PutUint16(b[4:], cacheVersionOne)
	le.PutUint16(b[6:], 0)
	if lists {
		le.PutUint16(b[4:], cacheVersion)
		le.PutUint16(b[6:], cacheFileLists)
	}
	le.PutUint32(b[8:], uint32(dim))
	le.PutUint32(b[12:], crc32.Checksum(b[:12], castagnoli))
	return b
}

// decodeHeader checks the file header and returns the fixed dim (0 if
// none) and whether the file holds label lists.
func decodeHeader(b []byte, name string) (int, bool, error) {
	le := binary.LittleEndian
	if len(b) < 4 || string(b[:4]) != cacheMagic {
		return 0, false, cacheCorrupt(name, -1, nil, "not a hyperplane cache file")
	}
	if len(b) < cacheHeaderSize {
		return 0, false, cacheCorrupt(name, -1, nil, "truncated in the file header")
	}
	if le.Uint32(b[12:]) != crc32.Checksum(b[:12], castagnoli) {
		return 0, false, cacheCorrupt(name, -1, nil, "file header checksum mismatch")
	}
	v := le.Uint16(b[4:])
	switch {
	case v > cacheVersion:
		return 0, false, cacheCorrupt(name, -1, nil, "newer version "+strconv.Itoa(int(v))+" (this build reads versions up to "+strconv.Itoa(cacheVersion)+")")
	case v == 0:
		return 0, false, cacheCorrupt(name, -1, nil, "version 0 does not exist")
	}
	// Version 1 has no file flags; version 2 adds the label-lists flag.
	known := uint16(0)
	if v >= 2 {
		known = cacheFileLists
	}
	f := le.Uint16(b[6:])
	if f&^known != 0 {
		return 0, false, cacheCorrupt(name, -1, nil, "unknown file flags "+strconv.FormatUint(uint64(f), 16)+" for version "+strconv.Itoa(int(v)))
	}
	dim := le.Uint32(b[8:])
	if dim > math.MaxInt32 {
		return 0, false, cacheCorrupt(name, -1, nil, "dim "+strconv.FormatUint(uint64(dim), 10)+" beyond the int32 index range")
	}
	return int(dim), f&cacheFileLists != 0, nil
}

// footerInfo is the fixed part of a footer.
type footerInfo struct {
	flags            uint32
	blocks           uint64
	rows, nnz, cols  uint64
	labels           uint64
	wantLen          uint64 // 56 + 32B + 8L, or 0 on overflow
	hasQID, labelSet bool
	lists            bool // the label-lists flag
}

func decodeFooterFix(b []byte) footerInfo {
	le := binary.LittleEndian
	f := footerInfo{
		flags:  le.Uint32(b[4:]),
		blocks: le.Uint64(b[8:]),
		rows:   le.Uint64(b[16:]),
		nnz:    le.Uint64(b[24:]),
		cols:   le.Uint64(b[32:]),
		labels: le.Uint64(b[40:]),
	}
	f.hasQID = f.flags&cacheFootQID != 0
	f.labelSet = f.flags&cacheFootLabels != 0
	f.lists = f.flags&cacheFootLists != 0
	if f.blocks < 1<<40 && f.labels < 1<<40 {
		f.wantLen = cacheFooterFix + cacheIndexEntry*f.blocks + 8*f.labels + 8
	}
	return f
}

// check verifies the footer's own fields; dim and lists are the
// header's.
func (f *footerInfo) check(dim int, lists bool) string {
	switch {
	case f.flags&^(cacheFootLabels|cacheFootQID|cacheFootLists) != 0:
		return "unknown footer flags " + strconv.FormatUint(uint64(f.flags), 16)
	case f.lists != lists:
		return "label-lists flag disagrees with the file header"
	case f.lists && f.hasQID:
		return "query ids with label lists"
	case !f.labelSet && f.labels != 0:
		return "labels listed without the label-set flag"
	case f.labels > MaxLabels:
		return strconv.FormatUint(f.labels, 10) + " labels listed, more than the format allows"
	case f.cols > math.MaxInt32:
		return "cols " + strconv.FormatUint(f.cols, 10) + " beyond the int32 index range"
	case dim > 0 && f.cols != uint64(dim):
		return "cols " + strconv.FormatUint(f.cols, 10) + " differ from the header's dim " + strconv.Itoa(dim)
	case f.rows > math.MaxInt64/16 || f.nnz > maxCacheNNZ:
		return "totals beyond the format"
	case f.wantLen == 0:
		return "block or label count beyond the format"
	}
	return ""
}

// checkLabelSet checks that labels are finite, strictly increasing and
// hold no -0.
func checkLabelSet(labels []float64) string {
	for i, y := range labels {
		if math.IsNaN(y) || math.IsInf(y, 0) || (y == 0 && math.Signbit(y)) {
			return "label set holds " + strconv.FormatFloat(y, 'g', -1, 64)
		}
		if i > 0 && !(labels[i-1] < y) {
			return "label set not strictly increasing"
		}
	}
	return ""
}

// hostLittleEndian reports whether the arrays of a block can be viewed in
// place: the host stores numbers little-endian.
var hostLittleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// cacheForceDecode, set by tests, makes readers decode copies as on a
// big-endian host.
var cacheForceDecode bool

// canView reports whether b's first byte is aligned for elements of size
// bytes and the host is little-endian.
func canView(b []byte, size uintptr) bool {
	return hostLittleEndian && !cacheForceDecode && (len(b) == 0 || uintptr(unsafe.Pointer(unsafe.SliceData(b)))%size == 0)
}

// asBytes views s as bytes (little-endian hosts only).
func asBytes[T int32 | int64 | float32 | float64](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(s[0])))
}

// viewAs views the first n elements of b as a []T; b must be long enough
// and aligned (see canView). The result is capacity-limited.
func viewAs[T int32 | int64 | float32 | float64](b []byte, n int) []T {
	if n == 0 {
		return []T{}
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// decodeInto decodes n little-endian elements of b into dst (reused when
// large enough).
func decodeInto[T int32 | int64 | float32 | float64](dst []T, b []byte, n int) []T {
	if cap(dst) < n {
		dst = make([]T, n)
	}
	dst = dst[:n]
	if n == 0 {
		return dst
	}
	// The elements' bits, as unsigned integers of their size.
	p := unsafe.Pointer(unsafe.SliceData(dst))
	le := binary.LittleEndian
	if unsafe.Sizeof(dst[0]) == 4 {
		d := unsafe.Slice((*uint32)(p), n)
		for i := range d {
			d[i] = le.Uint32(b[4*i:])
		}
	} else {
		d := unsafe.Slice((*uint64)(p), n)
		for i := range d {
			d[i] = le.Uint64(b[8*i:])
		}
	}
	return dst
}

// encodeLE appends the little-endian encoding of s to b (the big-endian
// path of the writer).
func encodeLE[T int32 | int64 | float32 | float64](b []byte, s []T) []byte {
	if len(s) == 0 {
		return b
	}
	// The elements' bits, as unsigned integers of their size.
	p := unsafe.Pointer(unsafe.SliceData(s))
	le := binary.LittleEndian
	if unsafe.Sizeof(s[0]) == 4 {
		for _, u := range unsafe.Slice((*uint32)(p), len(s)) {
			b = le.AppendUint32(b, u)
		}
	} else {
		for _, u := range unsafe.Slice((*uint64)(p), len(s)) {
			b = le.AppendUint64(b, u)
		}
	}
	return b
}
