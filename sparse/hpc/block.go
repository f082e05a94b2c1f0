package hpc

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"unsafe"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

// Block is one block of a cache file: rows Start .. Start+len(Y)-1
// of the data set. X holds the block's rows with row pointers local to the
// block (X.Indptr[0] == 0) and passes sparse.CSR.Validate. Its Cols is the
// cache's number of columns (for a stream without a fixed dim, the
// block's largest index + 1).
//
// File.ReadBlock and Scanner fill a Block in place, reusing its
// buffers. The block is read (or copied out of a mapped file) into the
// Block's own buffer and checked there; on a little-endian host Y, QID
// and X's slices point into that buffer without decoding it. They stay
// valid, and unchanged whatever happens to the file, until the next fill
// of the same Block. Use a Block through a pointer: X points into it.
type Block struct {
	Index int         // the block's number in the file
	Start int64       // the global index of the block's first row
	Y     []float64   // labels, one per row; with label lists, each row's number of labels
	QID   []int64     // query ids, one per row; nil when the block has none
	X     *sparse.CSR // the rows; Indptr local to the block
	// Lists holds, in a file with label lists (Options.LabelLists), the
	// labels of all the block's rows one row after another (RowLabels
	// gives one row's); nil otherwise.
	Lists []int32

	lptr     []int64 // with label lists: row r's labels are Lists[lptr[r]:lptr[r+1]]
	x        sparse.CSR
	fixedDim bool     // X.Cols is the data set's, not the block's own
	buf      []uint64 // the block as read, 8-byte aligned
	// Decoded copies, when the arrays cannot be viewed in place.
	dy  []float64
	dq  []int64
	dp  []int64
	di  []int32
	dv  []float32
	dl  []int32
	max int32 // largest index, from the block header
}

// RowLabels returns the labels of row r of the block (0-based within
// the block) of a file with label lists, in the order written; the
// slice views the block's memory.
func (b *Block) RowLabels(r int) []int32 { return b.Lists[b.lptr[r]:b.lptr[r+1]] }

// Rows returns the number of rows in the block.
func (b *Block) Rows() int { return len(b.Y) }

// buffer returns b's own buffer resized to n bytes, 8-byte aligned.
func (b *Block) buffer(n int) []byte { return b.bufferFor(n, n) }

// bufferFor is buffer for a Block that will be filled again with up to
// most bytes: when it must grow it grows to most at once, so that a
// Block reused for blocks of a file (whose sizes differ by a row or so)
// is allocated once rather than at every slightly larger block.
func (b *Block) bufferFor(n, most int) []byte {
	words := (n + 7) / 8
	if cap(b.buf) < words {
		b.buf = make([]uint64, (max(n, most)+7)/8)
	}
	b.buf = b.buf[:words]
	if words == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(b.buf))), n)
}

// readGrow reads n bytes from r into b's buffer. When the buffer must
// grow it grows as the data arrives, by at most a factor of two or
// cacheChunk bytes ahead of what was received, so that a stream whose
// header claims a huge block cannot make the reader allocate more than a
// small multiple of what the stream holds.
func (b *Block) readGrow(r io.Reader, n int) ([]byte, error) {
	if n <= 8*cap(b.buf) {
		p := b.buffer(n)
		_, err := io.ReadFull(r, p)
		return p, err
	}
	got := 0
	p := b.buffer(min(n, max(8*cap(b.buf), cacheChunk)))
	for {
		k, err := io.ReadFull(r, p[got:])
		got += k
		if err != nil {
			return nil, err
		}
		if got == n {
			return p, nil
		}
		size := min(n, 2*got)
		nb := make([]uint64, (size+7)/8)
		np := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(nb))), size)
		copy(np, p[:got])
		b.buf, p = nb, np
	}
}

// fill points (or decodes) b's arrays at the payload of a block with
// layout l and largest index maxIdx; X gets cols columns.
func (b *Block) fill(payload []byte, l *blockLayout, maxIdx int32, cols int, fixed bool) {
	r, n := int(l.rows), int(l.nnz)
	b.x = sparse.CSR{Rows: r, Cols: cols}
	b.max = maxIdx
	b.fixedDim = fixed
	if canView(payload, 8) {
		b.Y = viewAs[float64](payload, r)
		b.QID = nil
		if l.qid {
			b.QID = viewAs[int64](payload[l.q:], r)
		}
		b.x.Indptr = viewAs[int64](payload[l.p:], r+1)
		b.x.Ind = viewAs[int32](payload[l.ind:], n)
		b.x.Val = viewAs[float32](payload[l.val:], n)
		b.Lists = nil
		if l.lists > 0 {
			b.Lists = viewAs[int32](payload[l.lists:], int(l.m))
		}
	} else {
		b.dy = decodeInto(b.dy, payload, r)
		b.Y = b.dy
		b.QID = nil
		if l.qid {
			b.dq = decodeInto(b.dq, payload[l.q:], r)
			b.QID = b.dq
		}
		b.dp = decodeInto(b.dp, payload[l.p:], r+1)
		b.di = decodeInto(b.di, payload[l.ind:], n)
		b.dv = decodeInto(b.dv, payload[l.val:], n)
		b.x.Indptr, b.x.Ind, b.x.Val = b.dp, b.di, b.dv
		b.Lists = nil
		if l.lists > 0 {
			b.dl = decodeInto(b.dl, payload[l.lists:], int(l.m))
			b.Lists = b.dl
		}
	}
	b.X = &b.x
}

// labelCount returns a label count of a block with label lists as an
// integer: false unless it is a whole number in [0, MaxRowLabels].
func labelCount(y float64) (int64, bool) {
	if !(y >= 0 && y <= MaxRowLabels) || y != math.Trunc(y) {
		return 0, false
	}
	return int64(y), true
}

// checkLists checks the label lists of a block that has them: every
// row's count a whole number, the counts adding up to the entries, every
// label non-negative (these always: they slice and index) and, with
// full, no label twice in a row. It sets the rows' label pointers.
func (b *Block) checkLists(full bool) *Error {
	b.lptr = append(b.lptr[:0], 0)
	var at int64
	for r, y := range b.Y {
		k, ok := labelCount(y)
		if !ok {
			return cacheCorrupt("", -1, sparse.ErrValue, fmt.Sprintf("row %d: label count %v is not a whole number in [0, %d]", b.Start+int64(r), y, MaxRowLabels))
		}
		at += k
		b.lptr = append(b.lptr, at)
	}
	if at != int64(len(b.Lists)) {
		return cacheCorrupt("", -1, sparse.ErrShape, fmt.Sprintf("label counts add up to %d, the block holds %d labels", at, len(b.Lists)))
	}
	for k, l := range b.Lists {
		if l < 0 {
			r, _ := slices.BinarySearch(b.lptr[1:], int64(k)+1)
			return cacheCorrupt("", -1, sparse.ErrValue, fmt.Sprintf("row %d: negative label %d", b.Start+int64(r), l))
		}
	}
	if !full {
		return nil
	}
	for r := range b.Y {
		if l, dup := repeatedLabel(b.RowLabels(r)); dup {
			return cacheCorrupt("", -1, sparse.ErrValue, fmt.Sprintf("row %d: label %d listed twice", b.Start+int64(r), l))
		}
	}
	return nil
}

// repeatedLabel returns a label that ls lists twice, if any.
func repeatedLabel[T int32 | int](ls []T) (T, bool) {
	if len(ls) <= 16 {
		for i, l := range ls {
			if slices.Contains(ls[:i], l) {
				return l, true
			}
		}
		return 0, false
	}
	s := slices.Clone(ls)
	slices.Sort(s)
	for i := 1; i < len(s); i++ {
		if s[i] == s[i-1] {
			return s[i], true
		}
	}
	return 0, false
}

// blockChecks says what check verifies beyond the row pointers.
type blockChecks struct {
	maxRowNNZ int
	labels    []float64 // the label set, or nil
	full      bool      // labels, indices and values
	lists     bool      // the blocks hold label lists
}

// check verifies the block's content: always its row pointers (which
// must be safe to slice with), the MaxRowNNZ limit and that every index
// lies in [0, the header's largest] (which the caller has checked against
// the columns), so that whatever the checksums say no kernel is handed an
// index outside the model; with c.full also finite labels in the label
// set, strictly increasing indices whose largest is the header's, and
// finite values. The error's File and Block are for the caller to set.
func (b *Block) check(c *blockChecks) *Error {
	if err := b.checkPointers(c.maxRowNNZ); err != nil {
		return err
	}
	if c.lists {
		if err := b.checkLists(c.full); err != nil {
			return err
		}
	}
	if !c.full {
		if k := indexAbove(b.x.Ind, b.max); k >= 0 {
			r, _ := slices.BinarySearch(b.x.Indptr[1:], int64(k)+1)
			return cacheCorrupt("", -1, sparse.ErrIndexRange, fmt.Sprintf("row %d: index %d, the block header says the largest is %d", b.Start+int64(r), b.x.Ind[k], b.max))
		}
		return nil
	}
	if err := b.checkLabels(c.labels); err != nil {
		return err
	}
	if err := b.checkIndices(); err != nil {
		return err
	}
	return b.checkValues()
}

// checkPointers checks the row pointers: from 0 to nnz, every row within
// [0, maxRowNNZ] long.
func (b *Block) checkPointers(maxRowNNZ int) *Error {
	p := b.x.Indptr
	rows := len(b.Y)
	if p[0] != 0 {
		return cacheCorrupt("", -1, sparse.ErrShape, "row pointers start at "+strconv.FormatInt(p[0], 10))
	}
	// Every pointer within [0, nnz] (so no difference overflows), each
	// row within [0, MaxRowNNZ] long.
	lim, nnz := uint64(maxRowNNZ), int64(len(b.x.Ind))
	for r := range rows {
		if d := p[r+1] - p[r]; uint64(d) > lim || uint64(p[r+1]) > uint64(nnz) {
			switch {
			case uint64(p[r+1]) > uint64(nnz):
				return cacheCorrupt("", -1, sparse.ErrShape, fmt.Sprintf("row %d: row pointer %d outside [0, nnz %d]", b.Start+int64(r), p[r+1], nnz))
			case d < 0:
				return cacheCorrupt("", -1, sparse.ErrShape, fmt.Sprintf("row %d: row pointers decrease", b.Start+int64(r)))
			}
			return cacheLimit("", -1, sparse.ErrRowTooLong, fmt.Sprintf("row %d has %d nonzeros, more than MaxRowNNZ = %d", b.Start+int64(r), d, maxRowNNZ))
		}
	}
	if p[rows] != nnz {
		return cacheCorrupt("", -1, sparse.ErrShape, fmt.Sprintf("row pointers end at %d, not at nnz %d", p[rows], nnz))
	}
	return nil
}

// checkLabels checks that the labels are finite and, with labels not
// nil, in that label set.
func (b *Block) checkLabels(labels []float64) *Error {
	// Finite: an all-ones exponent carries into the sign bit.
	var acc uint64
	for _, y := range b.Y {
		acc |= math.Float64bits(y)&0x7ff0000000000000 + 0x0010000000000000
	}
	if acc>>63 != 0 {
		for r, y := range b.Y {
			if math.IsNaN(y) || math.IsInf(y, 0) {
				return cacheCorrupt("", -1, sparse.ErrValue, fmt.Sprintf("row %d: label %v is not finite", b.Start+int64(r), y))
			}
		}
	}
	if labels != nil {
		last := math.NaN()
		for r, y := range b.Y {
			if y == last {
				continue
			}
			if _, ok := slices.BinarySearch(labels, y); !ok {
				return cacheCorrupt("", -1, nil, fmt.Sprintf("row %d: label %v is not in the file's label set", b.Start+int64(r), y))
			}
			last = y
		}
	}
	return nil
}

// checkIndices checks that each row's indices are strictly increasing
// and non-negative, and that the largest is the header's. As unsigned
// numbers (zero-extended to int64) they must increase, so prev - x < 0
// for every pair: the AND of those differences keeps its sign bit. A
// negative index is then the row's last, above 2^31-1 as unsigned.
func (b *Block) checkIndices() *Error {
	p, ind := b.x.Indptr, b.x.Ind
	bmax := int64(-1)
	for r := range len(b.Y) {
		row := ind[p[r]:p[r+1]]
		if len(row) == 0 {
			continue
		}
		prev := int64(uint32(row[0]))
		and0, and1 := int64(-1), int64(-1)
		k := 1
		for ; k+4 <= len(row); k += 4 {
			q := row[k : k+4 : k+4]
			x0, x1, x2, x3 := int64(uint32(q[0])), int64(uint32(q[1])), int64(uint32(q[2])), int64(uint32(q[3]))
			and0 &= (prev - x0) & (x0 - x1)
			and1 &= (x1 - x2) & (x2 - x3)
			prev = x3
		}
		for ; k < len(row); k++ {
			x := int64(uint32(row[k]))
			and0 &= prev - x
			prev = x
		}
		if and0&and1 >= 0 || prev > math.MaxInt32 {
			return b.indexError(r, row)
		}
		bmax = max(bmax, prev)
	}
	if bmax != int64(b.max) {
		return cacheCorrupt("", -1, sparse.ErrIndexRange, fmt.Sprintf("largest index %d, the block header says %d", bmax, b.max))
	}
	return nil
}

// checkValues checks that the values are finite.
func (b *Block) checkValues() *Error {
	if allFinite32(b.x.Val) {
		return nil
	}
	p := b.x.Indptr
	for r := range len(b.Y) {
		for k := p[r]; k < p[r+1]; k++ {
			if v := b.x.Val[k]; !finite32(v) {
				return cacheCorrupt("", -1, sparse.ErrValue, fmt.Sprintf("row %d: value %v at index %d is not finite", b.Start+int64(r), v, b.x.Ind[k]))
			}
		}
	}
	return nil
}

// allFinite32 reports whether no value in v is NaN or infinite: an
// all-ones exponent carries into the sign bit when 2^23 is added to the
// exponent bits alone. It tests two values at a time as the halves of a
// uint64 (neither half carries into the other).
func allFinite32(v []float32) bool {
	var acc uint64
	if len(v) > 0 && uintptr(unsafe.Pointer(unsafe.SliceData(v)))%8 != 0 {
		acc = uint64(math.Float32bits(v[0])&0x7f800000 + 0x00800000)
		v = v[1:]
	}
	if n := len(v) / 2; n > 0 {
		u := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(v))), n)
		var a0, a1 uint64
		k := 0
		for ; k+2 <= n; k += 2 {
			a0 |= u[k]&0x7f8000007f800000 + 0x0080000000800000
			a1 |= u[k+1]&0x7f8000007f800000 + 0x0080000000800000
		}
		if k < n {
			a0 |= u[k]&0x7f8000007f800000 + 0x0080000000800000
		}
		acc |= a0 | a1
	}
	if len(v)%2 == 1 {
		acc |= uint64(math.Float32bits(v[len(v)-1])&0x7f800000 + 0x00800000)
	}
	return acc&0x8000000080000000 == 0
}

// indexAbove returns the position of the first index in ind that is
// negative or above max, or -1 if there is none. It compares the indices
// as unsigned numbers (a negative one is then above 2^31), eight at a
// time, and ORs the borrows, so that the scan is one branch per eight.
func indexAbove(ind []int32, max int32) int {
	if max < 0 {
		if len(ind) > 0 {
			return 0
		}
		return -1
	}
	lim := int64(max)
	k := 0
	for ; k+8 <= len(ind); k += 8 {
		q := ind[k : k+8 : k+8]
		if (lim-int64(uint32(q[0])))|(lim-int64(uint32(q[1])))|(lim-int64(uint32(q[2])))|(lim-int64(uint32(q[3])))|
			(lim-int64(uint32(q[4])))|(lim-int64(uint32(q[5])))|(lim-int64(uint32(q[6])))|(lim-int64(uint32(q[7]))) < 0 {
			break
		}
	}
	for ; k < len(ind); k++ {
		if int64(uint32(ind[k])) > lim {
			return k
		}
	}
	return -1
}

// indexError describes the first bad index of row r.
func (b *Block) indexError(r int, row []int32) *Error {
	g := b.Start + int64(r)
	if row[0] < 0 {
		return cacheCorrupt("", -1, sparse.ErrIndexRange, fmt.Sprintf("row %d: negative index %d", g, row[0]))
	}
	for k := 1; k < len(row); k++ {
		if row[k] <= row[k-1] {
			return cacheCorrupt("", -1, sparse.ErrIndexOrder, fmt.Sprintf("row %d: index %d after %d", g, row[k], row[k-1]))
		}
	}
	return cacheCorrupt("", -1, sparse.ErrIndexOrder, fmt.Sprintf("row %d: bad indices", g))
}

// locate sets the file name and block of a *Error; other errors are
// returned unchanged.
func locate(err error, name string, block int) error {
	var ce *Error
	if errors.As(err, &ce) {
		ce.File, ce.Block = name, block
	}
	return err
}

// finite32 reports whether x is neither NaN nor infinite.
func finite32(x float32) bool { return x-x == 0 }
