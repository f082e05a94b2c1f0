package engine

// Model files.
//
// The binary format, version 1, is little-endian throughout:
//
//	offset  size        field
//	0       4           magic "HPLM"
//	4       2           format version (uint16, 1)
//	6       2           flags (uint16): bit 0 votes section present,
//	                    bit 1 start weights W0/B0 present, bit 2 rows
//	                    normalized (Model.Normalize), bit 3 columns
//	                    listed (Model.Cols), bit 4 weights stored sparse
//	                    (below); others 0
//	8       1           algorithm (uint8)
//	9       1           bias mode (uint8)
//	10      1           update rule (uint8; 0, the perceptron, in files
//	                    written before the rule was recorded)
//	11      1           reserved, 0
//	12      4           bias scale (float32 bits)
//	16      4           number of classes C (uint32)
//	20      4           number of weight rows K (uint32; 1 if C = 2, else C)
//	24      8           dim (uint64)
//	32      8·C         classes (float64 bits)
//	        4·K         biases B (float32 bits)
//	columns, when flag bit 3 is set (n = their number, else n = dim):
//	        8           n (uint64)
//	        4·n         Model.Cols, strictly increasing, below dim (int32)
//	        4·n·K       weights W, feature-major as Model.W (float32 bits),
//	                    or sparse when flag bit 4 is set
//	votes section, when flag bit 0 is set:
//	        8           Count0 (int64)
//	        4·dim·K     W0, when flag bit 1 is set; sparse when bit 4 is
//	        4·K         B0, when flag bit 1 is set
//	        8, 8, 8     SV rows, cols, nnz (uint64)
//	        8·(rows+1)  SV Indptr (int64)
//	        4·nnz       SV Ind (int32)
//	        4·nnz       SV Val (float32 bits)
//	        8           number of steps S (uint64)
//	        24·S        steps: Row, Up, Down (int32), A (float32 bits),
//	                    Count (int64)
//	        4           CRC-32C (Castagnoli) of every byte before it
//
// Sparse weights (flag bit 4), an array of N float32 stored as:
//
//	        ⌈N/8⌉       bitmap: bit i (bit i%8 of byte i/8) is set when
//	                    the raw bits of weight i are not 0, so that −0
//	                    and NaNs are kept; the bits past N are 0
//	        8           the number of set bits Z (uint64)
//	        4·Z         the weights of the set bits, in order (float32
//	                    bits, none 0)
//
// The writer stores W and W0 sparse when that takes fewer bytes than
// dense, as it does for a model that leaves most of its weights zero (a
// multiclass model whose classes each use a few of the features); readers
// that predate flag bit 4 refuse such a file as having unknown flags, and
// read every other file as before.
//
// Floats are stored as their raw bits, so a model reads back bit for bit,
// NaN payloads included. A reader checks every count against the format's
// limits and, when it knows how many bytes are left, against those before
// it allocates anything; otherwise it allocates in bounded chunks as the
// data arrives, so a short corrupt file cannot make it allocate more than
// a small multiple of its own size (at most 32 times what it read of a
// bitmap of sparse weights, which holds a bit per weight).

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/bits"
	"os"
	"strconv"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

const (
	modelMagic         = "HPLM"
	modelFormatVersion = 1
	modelHeaderSize    = 32

	modelFlagVotes  = 1 << 0 // the votes section follows the weights
	modelFlagStart  = 1 << 1 // the votes section holds W0 and B0
	modelFlagNorm   = 1 << 2 // Model.Normalize
	modelFlagCols   = 1 << 3 // Model.Cols follows the biases
	modelFlagSparse = 1 << 4 // W and W0 are stored sparse
	modelFlagsKnown = modelFlagVotes | modelFlagStart | modelFlagNorm | modelFlagCols | modelFlagSparse

	// modelMaxDim bounds Dim, the number of classes and the rows of the
	// voted model's SV: indices are int32.
	modelMaxDim = math.MaxInt32
	// modelMaxElems bounds the length of any array in a model file, so
	// that its size in bytes fits an int on every platform.
	modelMaxElems = math.MaxInt / 8
	// modelChunk is the most bytes a reader takes, and allocates ahead of
	// the data, at a time when it does not know the input's size.
	modelChunk = 64 << 10
	// modelStepSize is the encoded size of one VoteStep.
	modelStepSize = 24
)

var modelCRC = crc32.MakeTable(crc32.Castagnoli)

// modelErr returns an error wrapping ErrFormat.
func modelErr(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrFormat}, a...)...)
}

// ---------------------------------------------------------------------------
// Encoding

// checkEncodable verifies m with Check and the limits of the file format.
func (m *Model) checkEncodable() error {
	if err := m.Check(); err != nil {
		return err
	}
	if m.Dim > modelMaxDim || len(m.Classes) > modelMaxDim {
		return fmt.Errorf("%w: dim %d or %d classes beyond the model file's limit %d", ErrDim, m.Dim, len(m.Classes), modelMaxDim)
	}
	if v := m.Votes; v != nil {
		if v.SV.Rows > modelMaxDim {
			return fmt.Errorf("%w: %d voted rows beyond the model file's limit %d", ErrDim, v.SV.Rows, modelMaxDim)
		}
		if v.Count0 < 0 {
			return modelErr("negative vote count %d of the start vector", v.Count0)
		}
	}
	return nil
}

// modelSparseSize returns the length of the sparse encoding of n weights
// of which nnz are not zero.
func modelSparseSize(n, nnz int64) int64 { return (n+7)/8 + 8 + 4*nnz }

// modelNonzero returns the number of weights of w whose bits are not 0.
func modelNonzero(w []float32) int64 {
	var nnz int64
	for _, x := range w {
		if math.Float32bits(x) != 0 {
			nnz++
		}
	}
	return nnz
}

// weightBytes returns the bytes that W and W0 (when m has start weights)
// take together in the dense and in the sparse encoding.
func (m *Model) weightBytes() (dense, sparse int64) {
	n := int64(len(m.W))
	dense, sparse = 4*n, modelSparseSize(n, modelNonzero(m.W))
	if v := m.Votes; v != nil && v.W0 != nil {
		n := int64(len(v.W0))
		dense += 4 * n
		sparse += modelSparseSize(n, modelNonzero(v.W0))
	}
	return dense, sparse
}

// encodedSize returns the length of m's binary encoding as the writer
// chooses it; m must pass checkEncodable.
func (m *Model) encodedSize() int64 {
	dense, sparse := m.weightBytes()
	return m.encodedSizeWith(min(dense, sparse))
}

// encodedSizeWith returns the length of m's binary encoding when W and W0
// take wb bytes.
func (m *Model) encodedSizeWith(wb int64) int64 {
	K := int64(m.NumRows())
	n := modelHeaderSize + 8*int64(len(m.Classes)) + 4*K + wb
	if m.Cols != nil {
		n += 8 + 4*int64(len(m.Cols))
	}
	if v := m.Votes; v != nil {
		n += 8
		if v.W0 != nil {
			n += 4 * K
		}
		nnz := int64(len(v.SV.Ind))
		n += 24 + 8*int64(v.SV.Rows+1) + 8*nnz + 8 + modelStepSize*int64(len(v.Steps))
	}
	return n + 4
}

// modelEncoder writes the binary format, through a buffer of about
// modelChunk bytes when w is set, or into buf alone when it is not.
type modelEncoder struct {
	w   io.Writer
	buf []byte
	crc uint32
	n   int64
	err error
}

func (e *modelEncoder) flush() {
	if e.w != nil && e.err != nil {
		// The write failed: what follows is dropped, not gathered into a
		// buffer the size of the model.
		e.buf = e.buf[:0]
		return
	}
	if e.w == nil || len(e.buf) == 0 {
		return
	}
	e.crc = crc32.Update(e.crc, modelCRC, e.buf)
	n, err := e.w.Write(e.buf)
	e.n += int64(n)
	e.err = err
	e.buf = e.buf[:0]
}

func (e *modelEncoder) spill() {
	if len(e.buf) >= modelChunk {
		e.flush()
	}
}

func (e *modelEncoder) u16(x uint16) { e.buf = binary.LittleEndian.AppendUint16(e.buf, x) }
func (e *modelEncoder) u32(x uint32) { e.buf = binary.LittleEndian.AppendUint32(e.buf, x) }
func (e *modelEncoder) u64(x uint64) { e.buf = binary.LittleEndian.AppendUint64(e.buf, x); e.spill() }

func (e *modelEncoder) f32s(s []float32) {
	if e.err != nil {
		return
	}
	for _, x := range s {
		e.buf = binary.LittleEndian.AppendUint32(e.buf, math.Float32bits(x))
		e.spill()
	}
}

func (e *modelEncoder) f64s(s []float64) {
	if e.err != nil {
		return
	}
	for _, x := range s {
		e.buf = binary.LittleEndian.AppendUint64(e.buf, math.Float64bits(x))
		e.spill()
	}
}

func (e *modelEncoder) i32s(s []int32) {
	if e.err != nil {
		return
	}
	for _, x := range s {
		e.buf = binary.LittleEndian.AppendUint32(e.buf, uint32(x))
		e.spill()
	}
}

func (e *modelEncoder) i64s(s []int64) {
	if e.err != nil {
		return
	}
	for _, x := range s {
		e.buf = binary.LittleEndian.AppendUint64(e.buf, uint64(x))
		e.spill()
	}
}

// sparseF32s writes s in the sparse encoding: the bitmap of its weights
// whose bits are not 0, their number and their values.
func (e *modelEncoder) sparseF32s(s []float32) {
	if e.err != nil {
		return
	}
	var nnz uint64
	for i := 0; i < len(s); i += 8 {
		var b byte
		for j, x := range s[i:min(i+8, len(s))] {
			if math.Float32bits(x) != 0 {
				b |= 1 << j
			}
		}
		nnz += uint64(bits.OnesCount8(b))
		e.buf = append(e.buf, b)
		e.spill()
	}
	e.u64(nnz)
	for _, x := range s {
		if u := math.Float32bits(x); u != 0 {
			e.buf = binary.LittleEndian.AppendUint32(e.buf, u)
			e.spill()
		}
	}
}

// weights writes the weights w dense, or sparse when sparse is set.
func (e *modelEncoder) weights(w []float32, sparse bool) {
	if sparse {
		e.sparseF32s(w)
	} else {
		e.f32s(w)
	}
}

// encode writes m, which must pass checkEncodable, and the checksum, with
// W and W0 in the sparse encoding when sparse is set.
func (e *modelEncoder) encode(m *Model, sparse bool) {
	var flags uint16
	if v := m.Votes; v != nil {
		flags |= modelFlagVotes
		if v.W0 != nil {
			flags |= modelFlagStart
		}
	}
	if m.Normalize {
		flags |= modelFlagNorm
	}
	if m.Cols != nil {
		flags |= modelFlagCols
	}
	if sparse {
		flags |= modelFlagSparse
	}
	e.buf = append(e.buf, modelMagic...)
	e.u16(modelFormatVersion)
	e.u16(flags)
	e.buf = append(e.buf, byte(m.Algorithm), byte(m.Bias), byte(m.Rule), 0)
	e.u32(math.Float32bits(m.BiasScale))
	e.u32(uint32(len(m.Classes)))
	e.u32(uint32(m.NumRows()))
	e.u64(uint64(m.Dim))
	e.f64s(m.Classes)
	e.f32s(m.B)
	if m.Cols != nil {
		e.u64(uint64(len(m.Cols)))
		e.i32s(m.Cols)
	}
	e.weights(m.W, sparse)
	if v := m.Votes; v != nil {
		e.u64(uint64(v.Count0))
		if v.W0 != nil {
			e.weights(v.W0, sparse)
			e.f32s(v.B0)
		}
		e.u64(uint64(v.SV.Rows))
		e.u64(uint64(v.SV.Cols))
		e.u64(uint64(len(v.SV.Ind)))
		e.i64s(v.SV.Indptr)
		e.i32s(v.SV.Ind)
		e.f32s(v.SV.Val)
		e.u64(uint64(len(v.Steps)))
		for _, s := range v.Steps {
			e.u32(uint32(s.Row))
			e.u32(uint32(s.Up))
			e.u32(uint32(s.Down))
			e.u32(math.Float32bits(s.A))
			e.u64(uint64(s.Count))
		}
	}
	if e.w == nil {
		e.crc = crc32.Checksum(e.buf, modelCRC)
		e.u32(e.crc)
		return
	}
	e.flush()
	if e.err != nil {
		return
	}
	e.u32(e.crc)
	n, err := e.w.Write(e.buf)
	e.n += int64(n)
	e.err = err
}

// MarshalBinary encodes m in the binary model format (see WriteTo). It
// fails, without encoding anything, when m does not pass Check or
// exceeds the format's limits (dim or classes beyond 2³¹−1).
func (m *Model) MarshalBinary() ([]byte, error) {
	if err := m.checkEncodable(); err != nil {
		return nil, err
	}
	dense, sparse := m.weightBytes()
	e := modelEncoder{buf: make([]byte, 0, m.encodedSizeWith(min(dense, sparse)))}
	e.encode(m, sparse < dense)
	return e.buf, nil
}

// WriteTo writes m to w in the binary model format, version 1: a header,
// the classes, biases and weights as raw little-endian float bits (the
// weights only those not zero, after a bitmap of them, when that is
// smaller), the voted perceptron's record when there is one, and a
// CRC-32C checksum of it all. It writes through a small buffer of its
// own, so a model needs no second copy in memory. It returns the number
// of bytes written; an invalid model (see MarshalBinary) is refused
// before anything is written.
func (m *Model) WriteTo(w io.Writer) (int64, error) {
	if err := m.checkEncodable(); err != nil {
		return 0, err
	}
	dense, sparse := m.weightBytes()
	e := modelEncoder{w: w, buf: make([]byte, 0, modelChunk+16)}
	e.encode(m, sparse < dense)
	return e.n, e.err
}

// Save writes m to the file path in the binary model format. The file is
// replaced atomically (see sparse.WriteFileAtomic): on failure an
// existing file at path is left as it was.
func (m *Model) Save(path string) error {
	if err := m.checkEncodable(); err != nil {
		return err
	}
	return sparse.WriteFileAtomic(path, func(w io.Writer) error {
		_, err := m.WriteTo(w)
		return err
	})
}

// ---------------------------------------------------------------------------
// Decoding

// modelDecoder reads the binary format from memory (buf, when r is nil)
// or from r.
type modelDecoder struct {
	buf     []byte
	r       io.Reader
	remain  int64 // bytes left in the input, −1 when unknown
	crc     uint32
	scratch []byte
}

// modelTruncated reports an input that ended inside what.
func modelTruncated(what string) error { return modelErr("truncated in %s", what) }

// take consumes the next n bytes and adds them to the checksum; n is at
// most modelChunk unless the input is in memory. The bytes are valid
// until the next call.
func (d *modelDecoder) take(n int, what string) ([]byte, error) {
	if d.remain >= 0 && int64(n) > d.remain {
		return nil, modelTruncated(what)
	}
	var b []byte
	if d.r == nil {
		b, d.buf = d.buf[:n], d.buf[n:]
	} else {
		if cap(d.scratch) < n {
			d.scratch = make([]byte, max(n, 64))
		}
		b = d.scratch[:n]
		if _, err := io.ReadFull(d.r, b); err != nil {
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				return nil, modelTruncated(what)
			}
			return nil, fmt.Errorf("engine: reading model %s: %w", what, err)
		}
	}
	if d.remain >= 0 {
		d.remain -= int64(n)
	}
	d.crc = crc32.Update(d.crc, modelCRC, b)
	return b, nil
}

func (d *modelDecoder) u64(what string) (uint64, error) {
	b, err := d.take(8, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

// count reads an array length and checks that that many elements of size
// bytes are within the format's limits and, when the input's size is
// known, within what is left of it.
func (d *modelDecoder) count(what string, size int) (int, error) {
	n, err := d.u64(what)
	if err != nil {
		return 0, err
	}
	return int(n), d.fits(n, size, what)
}

// fits checks that n elements of size bytes may follow.
func (d *modelDecoder) fits(n uint64, size int, what string) error {
	if n > modelMaxElems || n > uint64(math.MaxInt/size) {
		return modelErr("%s: %d elements is beyond any model", what, n)
	}
	if need := int64(n) * int64(size); d.remain >= 0 && need > d.remain {
		return modelErr("truncated in %s: %d bytes needed, %d left", what, need, d.remain)
	}
	return nil
}

type modelElem interface {
	float32 | float64 | int32 | int64
}

// modelReadArray reads n elements, n already checked by fits. It allocates
// the whole array at once when the input's size is known (and so bounds
// n); otherwise it grows the array as chunks of data arrive.
func modelReadArray[T modelElem](d *modelDecoder, n int, what string) ([]T, error) {
	var zero T
	size := 4
	switch any(zero).(type) {
	case float64, int64:
		size = 8
	}
	if err := d.fits(uint64(n), size, what); err != nil {
		return nil, err
	}
	c := n
	if d.remain < 0 {
		c = min(n, modelChunk/size)
	}
	out := make([]T, 0, c)
	for len(out) < n {
		k := min(n-len(out), modelChunk/size)
		if d.r == nil {
			k = n - len(out)
		}
		b, err := d.take(k*size, what)
		if err != nil {
			return nil, err
		}
		out = modelAppendElems(out, b)
	}
	return out, nil
}

// modelAppendElems appends the little-endian elements in b to out.
func modelAppendElems[T modelElem](out []T, b []byte) []T {
	le := binary.LittleEndian
	switch o := any(out).(type) {
	case []float32:
		for i := 0; i+4 <= len(b); i += 4 {
			o = append(o, math.Float32frombits(le.Uint32(b[i:])))
		}
		return any(o).([]T)
	case []int32:
		for i := 0; i+4 <= len(b); i += 4 {
			o = append(o, int32(le.Uint32(b[i:])))
		}
		return any(o).([]T)
	case []float64:
		for i := 0; i+8 <= len(b); i += 8 {
			o = append(o, math.Float64frombits(le.Uint64(b[i:])))
		}
		return any(o).([]T)
	case []int64:
		for i := 0; i+8 <= len(b); i += 8 {
			o = append(o, int64(le.Uint64(b[i:])))
		}
		return any(o).([]T)
	}
	panic("unreachable")
}

// weights reads n weights, dense or, when sparse is set, in the sparse
// encoding, n already checked against the format's limits.
func (d *modelDecoder) weights(n int, sparse bool, what string) ([]float32, error) {
	if !sparse {
		return modelReadArray[float32](d, n, what)
	}
	// The bitmap, padded with zeros to whole words of 64 bits, is read
	// first and whole: the weights are allocated only once it is known
	// to be there, and hold no more than 32 bytes for each of its bytes.
	nb := (n + 7) / 8
	if err := d.fits(uint64(nb)+8, 1, what); err != nil {
		return nil, err
	}
	words := (nb + 7) / 8
	c := 8 * words
	if d.remain < 0 {
		c = min(c, modelChunk)
	}
	bm := make([]byte, 0, c)
	for len(bm) < nb {
		k := min(nb-len(bm), modelChunk)
		if d.r == nil {
			k = nb - len(bm)
		}
		b, err := d.take(k, what)
		if err != nil {
			return nil, err
		}
		bm = append(bm, b...)
	}
	if n%8 != 0 && bm[nb-1]>>(n%8) != 0 {
		return nil, modelErr("%s: bits set past the last weight", what)
	}
	bm = append(bm, make([]byte, 8*words-nb)...)
	var set uint64
	for i := 0; i < len(bm); i += 8 {
		set += uint64(bits.OnesCount64(binary.LittleEndian.Uint64(bm[i:])))
	}
	nnz, err := d.u64(what)
	if err != nil {
		return nil, err
	}
	if nnz != set {
		return nil, modelErr("%s: %d values for %d set bits", what, nnz, set)
	}
	if err := d.fits(nnz, 4, what); err != nil {
		return nil, err
	}
	w := make([]float32, n)
	// wi and word are the bitmap word being read and its set bits not
	// yet given a value.
	wi, word := 0, uint64(0)
	if words > 0 {
		word = binary.LittleEndian.Uint64(bm)
	}
	for left := int(nnz); left > 0; {
		k := min(left, modelChunk/4)
		if d.r == nil {
			k = left
		}
		b, err := d.take(4*k, what)
		if err != nil {
			return nil, err
		}
		left -= k
		for i := 0; i < len(b); i += 4 {
			for word == 0 {
				wi++
				word = binary.LittleEndian.Uint64(bm[8*wi:])
			}
			u := binary.LittleEndian.Uint32(b[i:])
			if u == 0 {
				return nil, modelErr("%s: a zero stored for a set bit", what)
			}
			w[64*wi+bits.TrailingZeros64(word)] = math.Float32frombits(u)
			word &= word - 1
		}
	}
	return w, nil
}

// decode reads one model and its checksum, and checks the model.
func (d *modelDecoder) decode() (*Model, error) {
	b, err := d.take(4, "magic")
	if err != nil && !errors.Is(err, ErrFormat) {
		return nil, err
	}
	if err != nil || string(b) != modelMagic {
		return nil, modelErr("not a hyperplane model file")
	}
	b, err = d.take(modelHeaderSize-4, "header")
	if err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	version, flags := le.Uint16(b), le.Uint16(b[2:])
	switch {
	case version > modelFormatVersion:
		return nil, modelErr("format version %d is newer than this build reads (%d)", version, modelFormatVersion)
	case version == 0:
		return nil, modelErr("format version 0 does not exist")
	case flags&^modelFlagsKnown != 0:
		return nil, modelErr("unknown flags %#x", flags)
	case flags&modelFlagStart != 0 && flags&modelFlagVotes == 0:
		return nil, modelErr("start weights flagged without votes")
	case flags&modelFlagCols != 0 && flags&modelFlagVotes != 0:
		return nil, modelErr("a voted model keeps all its columns")
	}
	m := &Model{Algorithm: Algorithm(b[4]), Bias: BiasMode(b[5]), Rule: Rule(b[6]), Normalize: flags&modelFlagNorm != 0}
	if m.Normalize && m.Algorithm == Voted {
		return nil, modelErr("a voted model does not normalize rows")
	}
	if b[7] != 0 {
		return nil, modelErr("reserved header byte is not zero")
	}
	if m.Algorithm > Batch || m.Bias > NoBias || m.Rule > Pegasos {
		return nil, modelErr("unknown algorithm %d, bias mode %d or rule %d", b[4], b[5], b[6])
	}
	if m.Rule != Perceptron && m.Algorithm != Averaged && m.Algorithm != Plain {
		return nil, modelErr("rule %v with algorithm %v", m.Rule, m.Algorithm)
	}
	if (m.Algorithm == Voted) != (flags&modelFlagVotes != 0) {
		return nil, modelErr("votes present only and always for the voted algorithm")
	}
	m.BiasScale = math.Float32frombits(le.Uint32(b[8:]))
	nc, K, dim := le.Uint32(b[12:]), le.Uint32(b[16:]), le.Uint64(b[20:])
	switch {
	case nc < 2 || nc > modelMaxDim:
		return nil, modelErr("%d classes", nc)
	case (nc == 2 && K != 1) || (nc > 2 && K != nc):
		return nil, modelErr("%d weight rows for %d classes", K, nc)
	case dim > modelMaxDim:
		return nil, modelErr("dim %d is beyond the limit %d", dim, modelMaxDim)
	case dim*uint64(K) > modelMaxElems:
		return nil, modelErr("dim %d × %d rows is beyond any model", dim, K)
	}
	m.Dim = int(dim)
	wn := int(dim) * int(K)
	if m.Classes, err = modelReadArray[float64](d, int(nc), "classes"); err != nil {
		return nil, err
	}
	if m.B, err = modelReadArray[float32](d, int(K), "biases"); err != nil {
		return nil, err
	}
	if flags&modelFlagCols != 0 {
		n, err := d.u64("columns")
		if err != nil {
			return nil, err
		}
		if n > dim {
			return nil, modelErr("%d columns for dim %d", n, dim)
		}
		if m.Cols, err = modelReadArray[int32](d, int(n), "columns"); err != nil {
			return nil, err
		}
		wn = int(n) * int(K)
	}
	sparseW := flags&modelFlagSparse != 0
	if m.W, err = d.weights(wn, sparseW, "weights"); err != nil {
		return nil, err
	}
	if flags&modelFlagVotes != 0 {
		if m.Votes, err = d.votes(flags&modelFlagStart != 0, sparseW, wn, int(K), m.Dim); err != nil {
			return nil, err
		}
	}
	sum := d.crc
	b, err = d.take(4, "checksum")
	if err != nil {
		return nil, err
	}
	if le.Uint32(b) != sum {
		return nil, modelErr("checksum mismatch: file is corrupt")
	}
	if err := m.Check(); err != nil {
		return nil, err
	}
	m.index()
	return m, nil
}

// votes reads the votes section.
func (d *modelDecoder) votes(start, sparseW bool, wn, K, dim int) (*Votes, error) {
	v := new(Votes)
	c, err := d.u64("votes")
	if err != nil {
		return nil, err
	}
	if v.Count0 = int64(c); v.Count0 < 0 {
		return nil, modelErr("negative vote count %d of the start vector", v.Count0)
	}
	if start {
		if v.W0, err = d.weights(wn, sparseW, "start weights"); err != nil {
			return nil, err
		}
		if v.B0, err = modelReadArray[float32](d, K, "start biases"); err != nil {
			return nil, err
		}
	}
	rows, err := d.u64("voted rows")
	if err != nil {
		return nil, err
	}
	cols, err := d.u64("voted rows")
	if err != nil {
		return nil, err
	}
	switch {
	case rows > modelMaxDim:
		return nil, modelErr("%d voted rows is beyond the limit %d", rows, modelMaxDim)
	case cols > uint64(dim):
		return nil, modelErr("voted rows are %d wide, model %d", cols, dim)
	}
	sv := &sparse.CSR{Rows: int(rows), Cols: int(cols)}
	nnz, err := d.count("voted rows", 8)
	if err != nil {
		return nil, err
	}
	if sv.Indptr, err = modelReadArray[int64](d, sv.Rows+1, "voted row pointers"); err != nil {
		return nil, err
	}
	if sv.Ind, err = modelReadArray[int32](d, nnz, "voted row indices"); err != nil {
		return nil, err
	}
	if sv.Val, err = modelReadArray[float32](d, nnz, "voted row values"); err != nil {
		return nil, err
	}
	v.SV = sv
	ns, err := d.count("vote steps", modelStepSize)
	if err != nil {
		return nil, err
	}
	c0 := ns
	if d.remain < 0 {
		c0 = min(ns, modelChunk/modelStepSize)
	}
	v.Steps = make([]VoteStep, 0, c0)
	le := binary.LittleEndian
	for len(v.Steps) < ns {
		k := min(ns-len(v.Steps), modelChunk/modelStepSize)
		b, err := d.take(k*modelStepSize, "vote steps")
		if err != nil {
			return nil, err
		}
		for ; len(b) >= modelStepSize; b = b[modelStepSize:] {
			v.Steps = append(v.Steps, VoteStep{
				Row:   int32(le.Uint32(b)),
				Up:    int32(le.Uint32(b[4:])),
				Down:  int32(le.Uint32(b[8:])),
				A:     math.Float32frombits(le.Uint32(b[12:])),
				Count: int64(le.Uint64(b[16:])),
			})
		}
	}
	return v, nil
}

// UnmarshalBinary decodes a model encoded by MarshalBinary or WriteTo
// into m, replacing its contents; data must hold the one model and
// nothing after it. On failure m is left as it was and the error, which
// wraps ErrFormat, says what is wrong: not a model file, a version newer
// than this build reads, truncation, a checksum mismatch, or a model
// that fails Check.
func (m *Model) UnmarshalBinary(data []byte) error {
	d := modelDecoder{buf: data, remain: int64(len(data))}
	dm, err := d.decode()
	if err != nil {
		return err
	}
	if d.remain != 0 {
		return modelErr("%d bytes of trailing data after the model", d.remain)
	}
	*m = *dm
	return nil
}

// ReadModel reads one model written by WriteTo (or MarshalBinary) from
// r and leaves r just past it: it reads no more than the model, so a
// file is best wrapped in a bufio.Reader. Errors in the data wrap
// ErrFormat (see UnmarshalBinary); a read error of r is returned with
// context but does not. Memory is allocated only as data arrives, or
// after the sizes read are checked against the input's length where r
// tells it (a Len method, as bytes.Reader and bytes.Buffer have).
func ReadModel(r io.Reader) (*Model, error) {
	d := modelDecoder{r: r, remain: -1}
	if l, ok := r.(interface{ Len() int }); ok {
		d.remain = int64(l.Len())
	}
	return d.decode()
}

// Load reads the model file at path, written by Save. Errors in the file
// wrap ErrFormat and begin with the path.
func Load(path string) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	d := modelDecoder{r: bufio.NewReaderSize(f, modelChunk), remain: -1}
	if fi.Mode().IsRegular() {
		d.remain = fi.Size()
	}
	m, err := d.decode()
	if err == nil && d.remain > 0 {
		err = modelErr("%d bytes of trailing data after the model", d.remain)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// ---------------------------------------------------------------------------
// JSON

// modelJSONFormat is the "format" member of the JSON export.
const modelJSONFormat = "hyperplane-model"

// modelJSONVersion is the newest JSON version: 2 marks a model that
// normalizes rows, which a reader of version 1 would silently score
// unnormalized (it ignores fields it does not know); other models are
// written as version 1, as before.
//
// 3 marks a model that lists its columns ("cols"), whose weight rows a
// version 2 reader would refuse as too short.
const modelJSONVersion = 3

// modelJSON is the JSON export. Weights and start weights are given per
// weight row, Dim values each.
type modelJSON struct {
	Format    string          `json:"format"`
	Version   int             `json:"version"`
	Algorithm string          `json:"algorithm"`
	Rule      string          `json:"rule,omitempty"`
	Normalize bool            `json:"normalize,omitempty"`
	BiasMode  string          `json:"bias_mode"`
	BiasScale modelJSONF32    `json:"bias_scale"`
	Classes   []float64       `json:"classes"`
	Dim       int             `json:"dim"`
	Cols      []int32         `json:"cols,omitempty"`
	Bias      modelJSONF32s   `json:"bias"`
	Weights   []modelJSONF32s `json:"weights"`
	Votes     *modelJSONVotes `json:"votes,omitempty"`
}

type modelJSONVotes struct {
	Count0      int64           `json:"count0"`
	StartBias   modelJSONF32s   `json:"start_bias,omitempty"`
	StartWeight []modelJSONF32s `json:"start_weights,omitempty"`
	SV          modelJSONCSR    `json:"rows"`
	Steps       []modelJSONStep `json:"steps"`
}

type modelJSONCSR struct {
	Rows   int           `json:"rows"`
	Cols   int           `json:"cols"`
	Indptr []int64       `json:"indptr"`
	Ind    []int32       `json:"ind"`
	Val    modelJSONF32s `json:"val"`
}

type modelJSONStep struct {
	Row   int32        `json:"row"`
	Up    int32        `json:"up"`
	Down  int32        `json:"down"`
	A     modelJSONF32 `json:"a"`
	Count int64        `json:"count"`
}

// modelNotJSON is the error for a non-finite value that JSON cannot hold.
func modelNotJSON(what string, i int) error {
	return modelErr("%s %d is not finite, which JSON cannot hold", what, i)
}

// modelJSONSteps converts vote steps for JSON; a non-finite step is an
// error.
func modelJSONSteps(steps []VoteStep) ([]modelJSONStep, error) {
	out := make([]modelJSONStep, len(steps))
	for i, s := range steps {
		if modelNonFinite([]float32{s.A}) >= 0 {
			return nil, modelNotJSON("vote step", i)
		}
		out[i] = modelJSONStep{Row: s.Row, Up: s.Up, Down: s.Down, A: modelJSONF32(s.A), Count: s.Count}
	}
	return out, nil
}

// modelStepsFromJSON converts vote steps read from JSON.
func modelStepsFromJSON(steps []modelJSONStep) []VoteStep {
	out := make([]VoteStep, len(steps))
	for i, s := range steps {
		out[i] = VoteStep{Row: s.Row, Up: s.Up, Down: s.Down, A: float32(s.A), Count: s.Count}
	}
	return out
}

// modelJSONF32 and modelJSONF32s write float32 values with the fewest
// digits that read back to the same float32; encoding/json, decoding into
// a float32, reads them back exactly.
type modelJSONF32 float32
type modelJSONF32s []float32

func (x modelJSONF32) MarshalJSON() ([]byte, error) {
	return strconv.AppendFloat(nil, float64(x), 'g', -1, 32), nil
}

func (s modelJSONF32s) MarshalJSON() ([]byte, error) {
	if s == nil {
		return []byte("[]"), nil
	}
	b := make([]byte, 0, 2+len(s)*8)
	b = append(b, '[')
	for i, x := range s {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendFloat(b, float64(x), 'g', -1, 32)
	}
	return append(b, ']'), nil
}

// modelNonFinite returns the index of the first NaN or infinite value of
// s, or −1.
func modelNonFinite(s []float32) int {
	for i, x := range s {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return i
		}
	}
	return -1
}

// modelJSONRows splits feature-major weights into K rows of dim values.
func modelJSONRows(w []float32, dim, K int) []modelJSONF32s {
	rows := make([]modelJSONF32s, K)
	for k := range rows {
		r := make(modelJSONF32s, dim)
		for j := range r {
			r[j] = w[j*K+k]
		}
		rows[k] = r
	}
	return rows
}

// MarshalJSON exports m as a readable JSON object: "format"
// ("hyperplane-model"), "version" (1), "algorithm", "bias_mode",
// "bias_scale", "classes", "dim", "bias" (one per weight row), "weights"
// (one array of dim values per weight row, unlike the feature-major
// Model.W) and, for a voted model, "votes" with "count0", optional
// "start_bias" and "start_weights", the voted "rows" in CSR form and the
// "steps". Float32 values are written with the fewest digits that read
// back to the same value, so UnmarshalJSON restores m exactly. JSON has
// no NaN or infinity: a model holding one fails with ErrFormat.
func (m *Model) MarshalJSON() ([]byte, error) {
	if err := m.checkEncodable(); err != nil {
		return nil, err
	}
	K := m.NumRows()
	notJSON := modelNotJSON
	for i, c := range m.Classes {
		if math.IsInf(c, 0) {
			return nil, notJSON("class", i)
		}
	}
	if modelNonFinite([]float32{m.BiasScale}) >= 0 {
		return nil, notJSON("bias scale", 0)
	}
	if i := modelNonFinite(m.B); i >= 0 {
		return nil, notJSON("bias", i)
	}
	if i := modelNonFinite(m.W); i >= 0 {
		return nil, modelErr("weight of feature %d in row %d is not finite, which JSON cannot hold", i/K, i%K)
	}
	jm := modelJSON{
		Format:    modelJSONFormat,
		Version:   modelFormatVersion,
		Algorithm: m.Algorithm.String(),
		BiasMode:  m.Bias.String(),
		BiasScale: modelJSONF32(m.BiasScale),
		Classes:   m.Classes,
		Dim:       m.Dim,
		Bias:      m.B,
		Weights:   modelJSONRows(m.W, m.stored(), K),
		Cols:      m.Cols,
	}
	if m.Rule != Perceptron {
		// Perceptron models leave the field out, as before it existed.
		jm.Rule = m.Rule.String()
	}
	if m.Normalize {
		jm.Normalize, jm.Version = true, 2
	}
	if m.Cols != nil {
		jm.Version = 3
	}
	if v := m.Votes; v != nil {
		if i := modelNonFinite(v.W0); i >= 0 {
			return nil, notJSON("start weight", i)
		}
		if i := modelNonFinite(v.B0); i >= 0 {
			return nil, notJSON("start bias", i)
		}
		jv := &modelJSONVotes{
			Count0: v.Count0,
			SV: modelJSONCSR{Rows: v.SV.Rows, Cols: v.SV.Cols, Indptr: v.SV.Indptr,
				Ind: v.SV.Ind, Val: v.SV.Val},
		}
		if jv.SV.Ind == nil {
			jv.SV.Ind = []int32{}
		}
		if v.W0 != nil {
			jv.StartBias = v.B0
			jv.StartWeight = modelJSONRows(v.W0, m.Dim, K)
		}
		steps, err := modelJSONSteps(v.Steps)
		if err != nil {
			return nil, err
		}
		jv.Steps = steps
		jm.Votes = jv
	}
	return json.Marshal(&jm)
}

// UnmarshalJSON reads a model exported by MarshalJSON into m, replacing
// its contents. On failure m is left as it was and the error wraps
// ErrFormat. As encoding/json expects of an Unmarshaler, JSON null
// leaves m as it is and is no error.
func (m *Model) UnmarshalJSON(data []byte) error {
	if string(bytes.TrimSpace(data)) == "null" {
		return nil
	}
	var jm modelJSON
	if err := json.Unmarshal(data, &jm); err != nil {
		return modelErr("JSON: %v", err)
	}
	switch {
	case jm.Format != modelJSONFormat:
		return modelErr("not a hyperplane model file")
	case jm.Version > modelJSONVersion:
		return modelErr("format version %d is newer than this build reads (%d)", jm.Version, modelJSONVersion)
	case jm.Version < 1:
		return modelErr("format version %d does not exist", jm.Version)
	}
	alg, err := ParseAlgorithm(jm.Algorithm)
	if err != nil {
		return modelErr("unknown algorithm %q", jm.Algorithm)
	}
	bias, err := ParseBiasMode(jm.BiasMode)
	if err != nil {
		return modelErr("unknown bias mode %q", jm.BiasMode)
	}
	rule := Perceptron // files written before the rule was recorded
	if jm.Rule != "" {
		if rule, err = ParseRule(jm.Rule); err != nil {
			return modelErr("unknown rule %q", jm.Rule)
		}
	}
	dm := &Model{
		Algorithm: alg,
		Rule:      rule,
		Normalize: jm.Normalize,
		Bias:      bias,
		BiasScale: float32(jm.BiasScale),
		Classes:   jm.Classes,
		Dim:       jm.Dim,
		B:         jm.Bias,
		Cols:      jm.Cols,
	}
	if len(dm.Classes) < 2 {
		return modelErr("%d classes", len(dm.Classes))
	}
	if dm.Dim < 0 || dm.Dim > modelMaxDim {
		return modelErr("dim %d", dm.Dim)
	}
	K := dm.NumRows()
	if dm.Cols != nil && len(dm.Cols) > dm.Dim {
		return modelErr("%d columns for dim %d", len(dm.Cols), dm.Dim)
	}
	if dm.W, err = modelJSONWeights(jm.Weights, dm.stored(), K, "weights"); err != nil {
		return err
	}
	if jv := jm.Votes; jv != nil {
		v := &Votes{
			Count0: jv.Count0,
			SV: &sparse.CSR{Rows: jv.SV.Rows, Cols: jv.SV.Cols, Indptr: jv.SV.Indptr,
				Ind: jv.SV.Ind, Val: jv.SV.Val},
			B0: jv.StartBias,
		}
		if v.Count0 < 0 {
			return modelErr("negative vote count %d of the start vector", v.Count0)
		}
		if jv.StartWeight != nil || jv.StartBias != nil {
			if v.W0, err = modelJSONWeights(jv.StartWeight, dm.Dim, K, "start weights"); err != nil {
				return err
			}
			if v.B0 == nil {
				v.B0 = []float32{}
			}
		}
		v.Steps = modelStepsFromJSON(jv.Steps)
		dm.Votes = v
	}
	if err := dm.Check(); err != nil {
		return err
	}
	dm.index()
	*m = *dm
	return nil
}

// modelJSONWeights checks that rows holds K rows of dim values and returns
// them feature-major.
func modelJSONWeights(rows []modelJSONF32s, dim, K int, what string) ([]float32, error) {
	if len(rows) != K {
		return nil, modelErr("%d rows of %s for %d", len(rows), what, K)
	}
	for k, r := range rows {
		if len(r) != dim {
			return nil, modelErr("row %d of %s has %d values for dim %d", k, what, len(r), dim)
		}
	}
	w := make([]float32, dim*K)
	for k, r := range rows {
		for j, x := range r {
			w[j*K+k] = x
		}
	}
	return w, nil
}
