package engine

// The model file container.
//
// Both binary model formats, the linear model's "HPLM" (modelio.go) and
// the kernel model's "HPKM" (kmodelio.go), are built the same way, and
// this file holds what they share; each kind supplies only its own header
// fields and sections (a fileSections), and its own checks of them.
//
//	offset  size        field
//	0       4           magic ("HPLM" or "HPKM")
//	4       2           format version (uint16)
//	6       2           flags (uint16); bits a reader does not know
//	                    make it refuse the file
//	8       …           the kind's header fields and sections
//	        4           CRC-32C (Castagnoli) of every byte before it
//
// Everything is little-endian, floats stored as their raw bits, so that a
// model reads back bit for bit, NaN payloads included. The kinds encode
// some parts alike, with the codecs here:
//
// Rows in CSR form (a voted model's rows, a kernel model's support vectors):
//
//	        8, 8, 8     rows N, cols, nnz (uint64)
//	        8·(N+1)     Indptr (int64)
//	        4·nnz       Ind (int32)
//	        4·nnz       Val (float32 bits)
//
// The voted perceptron's steps:
//
//	        8           number of steps S (uint64)
//	        24·S        steps: Row, Up, Down (int32), A (float32 bits),
//	                    Count (int64)
//
// Sparse weights, an array of N float32 stored as:
//
//	        ⌈N/8⌉       bitmap: bit i (bit i%8 of byte i/8) is set when
//	                    the raw bits of weight i are not 0, so that −0
//	                    and NaNs are kept; the bits past N are 0
//	        8           the number of set bits Z (uint64)
//	        4·Z         the weights of the set bits, in order (float32
//	                    bits, none 0)
//
// A reader checks every count against the format's limits and, when it
// knows how many bytes are left, against those before it allocates
// anything; otherwise it allocates in bounded chunks as the data arrives,
// so a short corrupt file cannot make it allocate more than a small
// multiple of its own size (at most 32 times what it read of a bitmap of
// sparse weights, which holds a bit per weight).

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
	"slices"
	"strconv"

	"github.com/hyperplane-ml/hyperplane/engine/internal/kern"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/atomicfile"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
)

const (
	// modelMaxDim bounds Dim, the number of classes and the rows of a
	// CSR section: indices are int32.
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

// fileSections is one model kind's part of a binary model file: its
// header and sections, which the container frames and checksums. A value
// is made only for a model that has passed the kind's checks.
type fileSections interface {
	// size returns the length of the whole encoding, checksum included.
	size() int64
	// encode writes everything before the checksum, magic first.
	encode(e *modelEncoder)
}

// Each kind's MarshalBinary, WriteTo and Save are marshalFile, writeFile
// and saveFile of its method that checks a model and returns its
// sections: a model it refuses is refused before anything is written.

// marshalFile returns the encoding of the sections file returns, and its
// checksum.
func marshalFile[F fileSections](file func() (F, error)) ([]byte, error) {
	f, err := file()
	if err != nil {
		return nil, err
	}
	return marshalSections(f), nil
}

// writeFile writes the encoding of the sections file returns, and its
// checksum, to w, and returns the bytes written.
func writeFile[F fileSections](w io.Writer, file func() (F, error)) (int64, error) {
	f, err := file()
	if err != nil {
		return 0, err
	}
	return writeSections(w, f)
}

// saveFile writes the encoding of the sections file returns to the file
// path, replacing it atomically (see atomicfile.Write).
func saveFile[F fileSections](path string, file func() (F, error)) error {
	f, err := file()
	if err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := writeSections(w, f)
		return err
	})
}

// marshalSections returns the encoding of f and its checksum.
func marshalSections(f fileSections) []byte {
	e := modelEncoder{buf: make([]byte, 0, f.size())}
	f.encode(&e)
	e.finish()
	return e.buf
}

// writeSections writes the encoding of f and its checksum to w through a
// buffer of about modelChunk bytes, and returns the bytes written.
func writeSections(w io.Writer, f fileSections) (int64, error) {
	e := modelEncoder{w: w, buf: make([]byte, 0, modelChunk+16)}
	f.encode(&e)
	e.finish()
	return e.n, e.err
}

// ---------------------------------------------------------------------------
// Encoding

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

// finish ends an encoding with the CRC-32C of what came before.
func (e *modelEncoder) finish() {
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
	e.buf = e.buf[:0]
}

// header writes the magic, the format version and the flags.
func (e *modelEncoder) header(magic string, version, flags uint16) {
	e.buf = append(e.buf, magic...)
	e.u16(version)
	e.u16(flags)
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

// csr writes rows in CSR form.
func (e *modelEncoder) csr(X *sparse.CSR) {
	e.u64(uint64(X.Rows))
	e.u64(uint64(X.Cols))
	e.u64(uint64(len(X.Ind)))
	e.i64s(X.Indptr)
	e.i32s(X.Ind)
	e.f32s(X.Val)
}

// csrSize returns the length of the CSR encoding of X.
func csrSize(X *sparse.CSR) int64 {
	return 24 + 8*int64(X.Rows+1) + 8*int64(len(X.Ind))
}

// voteSteps writes the number of steps and the steps.
func (e *modelEncoder) voteSteps(steps []VoteStep) {
	e.u64(uint64(len(steps)))
	for _, s := range steps {
		e.u32(uint32(s.Row))
		e.u32(uint32(s.Up))
		e.u32(uint32(s.Down))
		e.u32(math.Float32bits(s.A))
		e.u64(uint64(s.Count))
	}
}

// voteStepsSize returns the length of the encoding of n steps.
func voteStepsSize(n int) int64 { return 8 + modelStepSize*int64(n) }

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
	// keep, when not nil, are the features of a linear model to keep
	// (ReadClassifierFeatures), in increasing order.
	keep []int32
	// at, when not nil, is the whole input, r reading it from offset 0
	// on, and remain its size less what r has read: the weights of the
	// kept rows are read from it (ReadClassifierFeaturesAt), the rest of
	// the weights and the checksum not at all.
	at *io.SectionReader
	// meter, when not nil, counts the arrays the decoder makes against
	// the memory budget before it makes them (linear and kernel models;
	// a Mix checks its own limit once from its header).
	meter *budget.Meter
}

// charge counts n bytes that the decoder is about to allocate for what
// against its meter, if it has one: an error wraps ErrMemory
// (budget.ErrExceeded), not ErrFormat, since the file may be sound.
func (d *modelDecoder) charge(n int64, what string) error {
	if d.meter == nil {
		return nil
	}
	return d.meter.Take(n, "reading the model's "+what)
}

// readerDecoder returns a decoder of r, which knows the input's size when
// r tells it (a Len method, as bytes.Reader and bytes.Buffer have).
func readerDecoder(r io.Reader) *modelDecoder {
	d := &modelDecoder{r: r, remain: -1}
	if l, ok := r.(interface{ Len() int }); ok {
		d.remain = int64(l.Len())
	}
	return d
}

// unmarshalFile decodes data, which must hold one model and nothing
// after it, with decode, and gives the model to set only when all of it
// is valid, so that an UnmarshalBinary leaves its receiver as it was on
// failure.
func unmarshalFile[T any](data []byte, decode func(*modelDecoder) (T, error), set func(T)) error {
	d := modelDecoder{buf: data, remain: int64(len(data))}
	m, err := decode(&d)
	if err == nil && d.remain != 0 {
		err = modelErr("%d bytes of trailing data after the model", d.remain)
	}
	if err != nil {
		return err
	}
	set(m)
	return nil
}

// loadFile decodes the file at path, which must hold one model and
// nothing after it, with decode; errors in the file begin with path.
func loadFile[T any](path string, decode func(*modelDecoder) (T, error)) (T, error) {
	var zero T
	f, err := os.Open(path)
	if err != nil {
		return zero, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return zero, err
	}
	d := &modelDecoder{r: bufio.NewReaderSize(f, modelChunk), remain: -1}
	if fi.Mode().IsRegular() {
		d.remain = fi.Size()
	}
	m, err := decode(d)
	if err == nil && d.remain > 0 {
		err = modelErr("%d bytes of trailing data after the model", d.remain)
	}
	if err != nil {
		return zero, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
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

// magic reads the 4 bytes that begin a file, or as many of them as the
// input holds (fewer only when it ends), and adds them to the checksum.
// The bytes are valid until the next call.
func (d *modelDecoder) magic() ([]byte, error) {
	if d.remain >= 0 {
		return d.take(int(min(4, d.remain)), "magic")
	}
	if cap(d.scratch) < 64 {
		d.scratch = make([]byte, 64)
	}
	b := d.scratch[:4]
	n, err := io.ReadFull(d.r, b)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, fmt.Errorf("engine: reading model magic: %w", err)
	}
	d.crc = crc32.Update(d.crc, modelCRC, b[:n])
	return b[:n], nil
}

// expectMagic reads the magic and checks that it is want, the magic of a
// file of kind.
func (d *modelDecoder) expectMagic(want, kind string) error {
	b, err := d.magic()
	if err != nil && !errors.Is(err, ErrFormat) {
		return err
	}
	if err != nil || string(b) != want {
		return modelErr("not a hyperplane %s file", kind)
	}
	return nil
}

// header reads the rest of a header of size bytes after the magic and
// checks its format version, from 1 to newest, and its flags, none
// outside known. It returns the header after the magic: version and
// flags at 0 and 2, the kind's fields from 4.
func (d *modelDecoder) header(size int, newest, known uint16) (b []byte, flags uint16, err error) {
	b, err = d.take(size-4, "header")
	if err != nil {
		return nil, 0, err
	}
	version, flags := binary.LittleEndian.Uint16(b), binary.LittleEndian.Uint16(b[2:])
	switch {
	case version > newest:
		return nil, 0, modelErr("format version %d is newer than this build reads (%d)", version, newest)
	case version == 0:
		return nil, 0, modelErr("format version 0 does not exist")
	case flags&^known != 0:
		return nil, 0, modelErr("unknown flags %#x", flags)
	}
	return b, flags, nil
}

// meteredHeader is header for a linear or kernel model: it first gives
// the decoder a meter of the default memory budget if it has none, which
// counts the arrays it makes from then on.
func (d *modelDecoder) meteredHeader(size int, newest, known uint16) ([]byte, uint16, error) {
	if d.meter == nil {
		d.meter = budget.NewMeter(0)
	}
	return d.header(size, newest, known)
}

// classesBiases reads the classes, nc of them, and the biases of K rows,
// which follow each other in a linear model's file and a Mix's.
func (d *modelDecoder) classesBiases(nc, K int) (classes []float64, B []float32, err error) {
	if classes, err = modelReadArray[float64](d, nc, "classes"); err != nil {
		return nil, nil, err
	}
	if B, err = modelReadArray[float32](d, K, "biases"); err != nil {
		return nil, nil, err
	}
	return classes, B, nil
}

// checkShape checks a header's number of classes nc, of rows K (rows
// names them in errors: a linear model's weight rows, a kernel model's
// functions) and dim.
func checkShape(nc, K uint32, dim uint64, rows string) error {
	switch {
	case nc < 2 || nc > modelMaxDim:
		return modelErr("%d classes", nc)
	case (nc == 2 && K != 1) || (nc > 2 && K != nc):
		return modelErr("%d %s for %d classes", K, rows, nc)
	case dim > modelMaxDim:
		return modelErr("dim %d is beyond the limit %d", dim, modelMaxDim)
	}
	return nil
}

// checksum reads the checksum and compares it with that of what came
// before.
func (d *modelDecoder) checksum() error {
	sum := d.crc
	b, err := d.take(4, "checksum")
	if err != nil {
		return err
	}
	if binary.LittleEndian.Uint32(b) != sum {
		return modelErr("checksum mismatch: file is corrupt")
	}
	return nil
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
	// The array is counted against the budget whole when the input is
	// known to hold it, else chunk by chunk as the data arrive, so that a
	// stream claiming more than it holds ends as truncated.
	c := n
	if d.remain < 0 {
		c = min(n, modelChunk/size)
	} else if err := d.charge(budget.Mul(int64(n), int64(size)), what); err != nil {
		return nil, err
	}
	out := make([]T, 0, c)
	for len(out) < n {
		k := min(n-len(out), modelChunk/size)
		if d.r == nil {
			k = n - len(out)
		}
		if d.remain < 0 {
			if err := d.charge(int64(k*size), what); err != nil {
				return nil, err
			}
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

// csrNames names the parts of a CSR section in error messages.
type csrNames struct {
	rows, indptr, ind, val string
}

// csr reads rows in CSR form, at most dim wide, or exactly dim wide when
// exact is set. It checks the counts, not the structure (CSR.Check does).
func (d *modelDecoder) csr(n csrNames, dim uint64, exact bool) (*sparse.CSR, error) {
	rows, err := d.u64(n.rows)
	if err != nil {
		return nil, err
	}
	cols, err := d.u64(n.rows)
	if err != nil {
		return nil, err
	}
	switch {
	case rows > modelMaxDim:
		return nil, modelErr("%d %s is beyond the limit %d", rows, n.rows, modelMaxDim)
	case cols > dim || exact && cols != dim:
		return nil, modelErr("%s are %d wide, model %d", n.rows, cols, dim)
	}
	X := &sparse.CSR{Rows: int(rows), Cols: int(cols)}
	nnz, err := d.count(n.rows, 8)
	if err != nil {
		return nil, err
	}
	if X.Indptr, err = modelReadArray[int64](d, X.Rows+1, n.indptr); err != nil {
		return nil, err
	}
	if X.Ind, err = modelReadArray[int32](d, nnz, n.ind); err != nil {
		return nil, err
	}
	if X.Val, err = modelReadArray[float32](d, nnz, n.val); err != nil {
		return nil, err
	}
	return X, nil
}

// count0 reads the votes of the voted perceptron's start vector.
func (d *modelDecoder) count0() (int64, error) {
	c, err := d.u64("votes")
	if err != nil {
		return 0, err
	}
	if int64(c) < 0 {
		return 0, modelErr("negative vote count %d of the start vector", int64(c))
	}
	return int64(c), nil
}

// voteSteps reads the number of steps and the steps.
func (d *modelDecoder) voteSteps() ([]VoteStep, error) {
	ns, err := d.count("vote steps", modelStepSize)
	if err != nil {
		return nil, err
	}
	c0 := ns
	if d.remain < 0 {
		c0 = min(ns, modelChunk/modelStepSize)
	}
	steps := make([]VoteStep, 0, c0)
	le := binary.LittleEndian
	for len(steps) < ns {
		k := min(ns-len(steps), modelChunk/modelStepSize)
		b, err := d.take(k*modelStepSize, "vote steps")
		if err != nil {
			return nil, err
		}
		for ; len(b) >= modelStepSize; b = b[modelStepSize:] {
			steps = append(steps, VoteStep{
				Row:   int32(le.Uint32(b)),
				Up:    int32(le.Uint32(b[4:])),
				Down:  int32(le.Uint32(b[8:])),
				A:     math.Float32frombits(le.Uint32(b[12:])),
				Count: int64(le.Uint64(b[16:])),
			})
		}
	}
	return steps, nil
}

// weights reads n weights, dense or, when sparse is set, in the sparse
// encoding, n already checked against the format's limits.
func (d *modelDecoder) weights(n int, sparse bool, what string) ([]float32, error) {
	if !sparse {
		return modelReadArray[float32](d, n, what)
	}
	bm, nnz, err := d.bitmap(n, what)
	if err != nil {
		return nil, err
	}
	nb := (n + 7) / 8
	if err := d.charge(budget.Mul(int64(n), 4), what); err != nil {
		return nil, err
	}
	w := make([]float32, n)
	// The values are read in pieces of whole bitmap bytes, each as many
	// bytes as take at most modelChunk/4 values (all of them from
	// memory), and expanded into their weights by ExpandF32, 8 at a time.
	limit := modelChunk / 4
	if d.r == nil {
		limit = int(nnz)
	}
	for pb := 0; pb < nb; {
		pe, k := pb, 0
		for pe+8 <= nb {
			c := bits.OnesCount64(binary.LittleEndian.Uint64(bm[pe:]))
			if k+c > limit {
				break
			}
			pe, k = pe+8, k+c
		}
		for pe < nb && k+bits.OnesCount8(bm[pe]) <= limit {
			pe, k = pe+1, k+bits.OnesCount8(bm[pe])
		}
		b, err := d.take(4*k, what)
		if err != nil {
			return nil, err
		}
		if _, zero := kern.ExpandF32(w[8*pb:min(8*pe, n)], bm[pb:pe], b); zero {
			return nil, modelErr("%s: a zero stored for a set bit", what)
		}
		pb = pe
	}
	return w, nil
}

// bitmap reads the bitmap of a sparse weights section of n weights and
// the count of values after it, which it checks against the bits set.
// The bitmap is padded with zeros to whole words of 64 bits.
func (d *modelDecoder) bitmap(n int, what string) ([]byte, uint64, error) {
	// The bitmap is read first and whole: the weights are allocated only
	// once it is known to be there, and hold no more than 32 bytes for
	// each of its bytes.
	nb := (n + 7) / 8
	if err := d.fits(uint64(nb)+8, 1, what); err != nil {
		return nil, 0, err
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
			return nil, 0, err
		}
		bm = append(bm, b...)
	}
	if n%8 != 0 && bm[nb-1]>>(n%8) != 0 {
		return nil, 0, modelErr("%s: bits set past the last weight", what)
	}
	bm = append(bm, make([]byte, 8*words-nb)...)
	var set uint64
	for i := 0; i < len(bm); i += 8 {
		set += uint64(bits.OnesCount64(binary.LittleEndian.Uint64(bm[i:])))
	}
	nnz, err := d.u64(what)
	if err != nil {
		return nil, 0, err
	}
	if nnz != set {
		return nil, 0, modelErr("%s: %d values for %d set bits", what, nnz, set)
	}
	if err := d.fits(nnz, 4, what); err != nil {
		return nil, 0, err
	}
	return bm, nnz, nil
}

// ---------------------------------------------------------------------------
// Either kind

// decodeClassifier reads one model of either kind, told apart by its
// magic.
func (d *modelDecoder) decodeClassifier() (Classifier, error) {
	b, err := d.magic()
	if err != nil {
		return nil, err
	}
	switch string(b) {
	case modelMagic:
		return d.decodeLinearAfterMagic()
	case kmodelMagic:
		if d.keep != nil {
			return nil, ErrNoSubset
		}
		return d.decodeKernelAfterMagic()
	}
	return nil, modelErr("not a hyperplane model file (magic %q; want %q or %q)", b, modelMagic, kmodelMagic)
}

// LoadClassifier reads the model file at path, linear (written by
// Model.Save) or kernel (written by KernelModel.Save), telling them apart
// by their magic: it returns a *Model or a *KernelModel. Errors in the
// file, an unknown magic included, wrap ErrFormat and begin with the
// path.
func LoadClassifier(path string) (Classifier, error) {
	return loadFile(path, (*modelDecoder).decodeClassifier)
}

// ReadClassifier reads one model written by Model.WriteTo or
// KernelModel.WriteTo from r, telling them apart by their magic, and
// returns a *Model or a *KernelModel; it reads no more than the model, as
// ReadModel and ReadKernelModel do. Errors in the data wrap ErrFormat.
func ReadClassifier(r io.Reader) (Classifier, error) {
	return readerDecoder(r).decodeClassifier()
}

// ReadClassifierFeatures is ReadClassifier for a linear model of which
// only the features keep (increasing) are wanted: it returns a *Model
// whose feature i is the model's feature keep[i], and whose Dim is the
// number of keep below the model's Dim (those past it weigh zero in the
// model, as they do past the result's). For a row whose features all lie
// in keep, the result, given the row renumbered the same way, gives the
// same scores to the bit, for it keeps the model's layout (its weights
// dense or its Cols) and sums the same products in the same order. It
// reads the whole model, checksum included, but allocates weights only
// for keep. A kernel or voted model, whose scores involve every feature,
// and a compact model (with Cols) that holds none of keep give
// ErrNoSubset.
func ReadClassifierFeatures(r io.Reader, keep []int32) (*Model, error) {
	keep, err := checkKeep(keep)
	if err != nil {
		return nil, err
	}
	d := readerDecoder(r)
	d.keep = keep
	c, err := d.decodeClassifier()
	if err != nil {
		return nil, err
	}
	return c.(*Model), nil
}

// ReadClassifierFeaturesAt is ReadClassifierFeatures for a linear model
// file of size bytes that r holds, read through ReadAt: it returns the
// same model, but reads only what that model needs: the header, classes,
// biases and Cols, the bitmap of weights stored sparse and its count, and
// the values of the kept weight rows, those of adjacent rows in one
// ReadAt. It reads neither the values of the other rows nor the checksum,
// and so it does not verify the checksum, which covers bytes it does not
// read: it is for callers that verify what r returns themselves, as a
// text model file's page checksums do. What it reads it checks as
// ReadClassifierFeatures does, and it checks that the file's layout
// accounts for size: a file whose weights and checksum do not end at
// size, and a read that r cannot satisfy within size, give an error
// wrapping ErrFormat. A kernel or voted model, and a compact model (with
// Cols) that holds none of keep, give ErrNoSubset; keep not increasing
// and non-negative gives ErrDim.
func ReadClassifierFeaturesAt(r io.ReaderAt, size int64, keep []int32) (*Model, error) {
	keep, err := checkKeep(keep)
	if err != nil {
		return nil, err
	}
	if size < 0 {
		return nil, modelErr("size %d is negative", size)
	}
	sr := io.NewSectionReader(r, 0, size)
	d := &modelDecoder{r: sr, remain: size, keep: keep, at: sr}
	c, err := d.decodeClassifier()
	if err != nil {
		return nil, err
	}
	return c.(*Model), nil
}

// checkKeep checks that keep, the features ReadClassifierFeatures is to
// keep, are increasing and non-negative, and returns them, not nil.
func checkKeep(keep []int32) ([]int32, error) {
	if keep == nil {
		keep = []int32{}
	}
	for i, j := range keep {
		if j < 0 || i > 0 && j <= keep[i-1] {
			return nil, fmt.Errorf("%w: the features to keep are not increasing and non-negative at %d", ErrDim, i)
		}
	}
	return keep, nil
}

// keptRows leaves out of d.keep the features at or past dim and returns,
// for a model of dim features whose weight rows are the features cols
// (all of them when cols is nil), the rows that hold the features d.keep,
// and the Cols of the model that keeps them: nil for a model of every
// feature, otherwise the new numbers of the kept features it holds.
func (d *modelDecoder) keptRows(dim int, cols []int32) (rows []int, newCols []int32, err error) {
	n, _ := slices.BinarySearch(d.keep, int32(min(dim, math.MaxInt32)))
	d.keep = d.keep[:n]
	if cols == nil {
		rows = make([]int, len(d.keep))
		for i, j := range d.keep {
			rows[i] = int(j)
		}
		return rows, nil, nil
	}
	p := 0
	for i, j := range d.keep {
		for p < len(cols) && cols[p] < j {
			p++
		}
		if p < len(cols) && cols[p] == j {
			rows = append(rows, p)
			newCols = append(newCols, int32(i))
		}
	}
	if len(rows) == 0 {
		// A model of no columns is not one (Check); dense zero weights
		// would add zero products the compact model leaves out.
		return nil, nil, ErrNoSubset
	}
	return rows, newCols, nil
}

// weightRows is weights for a model of K weights a row, returning only
// the rows rows (increasing), one after another. It reads and checks
// what weights reads, but keeps the values of those rows only.
func (d *modelDecoder) weightRows(n, K int, rows []int, sparse bool, what string) ([]float32, error) {
	if d.at != nil {
		return d.weightRowsAt(n, K, rows, sparse, what)
	}
	if !sparse {
		return d.denseWeightRows(n, K, rows, what)
	}
	return d.sparseWeightRows(n, K, rows, what)
}

// denseWeightRows is weightRows for dense weights: it reads them in
// chunks and copies the kept rows' values out of each.
func (d *modelDecoder) denseWeightRows(n, K int, rows []int, what string) ([]float32, error) {
	if err := d.fits(uint64(n), 4, what); err != nil {
		return nil, err
	}
	out := make([]float32, len(rows)*K)
	le := binary.LittleEndian
	next := 0
	for e := 0; e < n; {
		k := min(n-e, modelChunk/4)
		b, err := d.take(4*k, what)
		if err != nil {
			return nil, err
		}
		for ; next < len(rows); next++ {
			r0 := rows[next] * K
			if r0 >= e+k {
				break
			}
			for x := max(r0, e); x < min(r0+K, e+k); x++ {
				out[next*K+x-r0] = math.Float32frombits(le.Uint32(b[4*(x-e):]))
			}
			if r0+K > e+k {
				break
			}
		}
		e += k
	}
	return out, nil
}

// sparseWeightRows is weightRows for sparse weights: it reads the bitmap
// whole, then the values in chunks, keeping those of the kept rows.
func (d *modelDecoder) sparseWeightRows(n, K int, rows []int, what string) ([]float32, error) {
	bm, nnz, err := d.bitmap(n, what)
	if err != nil {
		return nil, err
	}
	out := make([]float32, len(rows)*K)
	le := binary.LittleEndian
	// The values stream in chunks; rank counts the set bits before bit
	// pos, so that a kept weight's value is value number rank.
	pos, rank := 0, 0
	var chunk []byte
	c0, read := 0, 0 // chunk holds values c0..read−1
	value := func(v int) (float32, error) {
		for v >= read {
			k := min(int(nnz)-read, modelChunk/4)
			b, err := d.take(4*k, what)
			if err != nil {
				return 0, err
			}
			chunk, c0, read = b, read, read+k
		}
		return math.Float32frombits(le.Uint32(chunk[4*(v-c0):])), nil
	}
	for i, r := range rows {
		for x := r * K; x < r*K+K; x++ {
			for ; pos < x; pos++ {
				if pos%64 == 0 && pos+64 <= x {
					rank += bits.OnesCount64(le.Uint64(bm[pos/8:]))
					pos += 63
					continue
				}
				rank += int(bm[pos/8] >> (pos % 8) & 1)
			}
			if bm[x/8]>>(x%8)&1 == 0 {
				continue
			}
			w, err := value(rank)
			if err != nil {
				return nil, err
			}
			if w == 0 {
				return nil, modelErr("%s: a zero stored for a set bit", what)
			}
			out[i*K+x-r*K] = w
		}
	}
	// The rest is read for the checksum.
	for read < int(nnz) {
		k := min(int(nnz)-read, modelChunk/4)
		if _, err := d.take(4*k, what); err != nil {
			return nil, err
		}
		read += k
	}
	return out, nil
}

// weightRowsAt is weightRows for a decoder with at: it reads the bitmap
// of sparse weights and its count as weightRows does, then only the
// values of the rows rows, by ReadAt, each run of adjacent rows in one
// read of at most modelChunk bytes (or one row), and checks them as
// weightRows does. It leaves remain as though it had read all the
// weights.
func (d *modelDecoder) weightRowsAt(n, K int, rows []int, sparse bool, what string) ([]float32, error) {
	var bm []byte
	var nnz uint64
	if !sparse {
		nnz = uint64(n)
	} else {
		var err error
		if bm, nnz, err = d.bitmap(n, what); err != nil {
			return nil, err
		}
	}
	if err := d.fits(nnz, 4, what); err != nil {
		return nil, err
	}
	// The values begin at start, the weights of bit x (dense: weight x)
	// at value number rank(x), the set bits before x.
	start := d.at.Size() - d.remain
	out := make([]float32, len(rows)*K)
	var buf []byte
	le := binary.LittleEndian
	pos, rank := 0, 0 // rank is the set bits before bit pos
	for i := 0; i < len(rows); {
		x0 := rows[i] * K
		if sparse {
			rank += modelOnes(bm, pos, x0)
		} else {
			rank = x0
		}
		// The run rows[i:j] of adjacent rows holds k values.
		j, k := i, 0
		for j < len(rows) && rows[j] == rows[i]+j-i {
			c := K
			if sparse {
				c = modelOnes(bm, rows[j]*K, rows[j]*K+K)
			}
			if j > i && 4*(k+c) > modelChunk {
				break
			}
			j, k = j+1, k+c
		}
		x1 := rows[j-1]*K + K
		if cap(buf) < 4*k {
			buf = make([]byte, 4*k)
		}
		b := buf[:4*k]
		if k > 0 {
			if err := d.readAt(b, start+4*int64(rank), what); err != nil {
				return nil, err
			}
		}
		o := out[i*K : j*K]
		if !sparse {
			for v := range o {
				o[v] = math.Float32frombits(le.Uint32(b[4*v:]))
			}
		} else {
			v := 0
			for x := x0; x < x1; x++ {
				if bm[x/8]>>(x%8)&1 == 0 {
					continue
				}
				w := math.Float32frombits(le.Uint32(b[4*v:]))
				if w == 0 {
					return nil, modelErr("%s: a zero stored for a set bit", what)
				}
				o[x-x0] = w
				v++
			}
		}
		pos, rank, i = x1, rank+k, j
	}
	d.remain -= 4 * int64(nnz)
	return out, nil
}

// modelOnes returns the number of bits set in the bitmap bm, padded to
// whole words of 64 bits, from bit a up to bit b.
func modelOnes(bm []byte, a, b int) int {
	n := 0
	for ; a < b && a%64 != 0; a++ {
		n += int(bm[a/8] >> (a % 8) & 1)
	}
	for ; a+64 <= b; a += 64 {
		n += bits.OnesCount64(binary.LittleEndian.Uint64(bm[a/8:]))
	}
	for ; a < b; a++ {
		n += int(bm[a/8] >> (a % 8) & 1)
	}
	return n
}

// readAt reads len(p) bytes of what at offset off of d.at; the input
// ending first is a truncation.
func (d *modelDecoder) readAt(p []byte, off int64, what string) error {
	n, err := d.at.ReadAt(p, off)
	switch {
	case n == len(p) && (err == nil || err == io.EOF):
		return nil
	case err == nil || err == io.EOF || err == io.ErrUnexpectedEOF:
		return modelTruncated(what)
	}
	return fmt.Errorf("engine: reading model %s: %w", what, err)
}

// ---------------------------------------------------------------------------
// JSON, shared by both kinds' exports

// jsonHead is the "format" and "version" members that begin an export of
// either kind (embedded first, so that they come first).
type jsonHead struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
}

// jsonOpen begins an UnmarshalJSON: it reports JSON null, which an
// Unmarshaler takes as no change and no error; otherwise it unmarshals
// data into v, the export's struct, and checks h, its head, for an
// export of kind with the given "format", of version 1 to newest.
func jsonOpen(data []byte, v any, h *jsonHead, format, kind string, newest int) (null bool, err error) {
	if string(bytes.TrimSpace(data)) == "null" {
		return true, nil
	}
	if err := json.Unmarshal(data, v); err != nil {
		return false, modelErr("JSON: %v", err)
	}
	switch {
	case h.Format != format:
		return false, modelErr("not a hyperplane %s file", kind)
	case h.Version > newest:
		return false, modelErr("format version %d is newer than this build reads (%d)", h.Version, newest)
	case h.Version < 1:
		return false, modelErr("format version %d does not exist", h.Version)
	}
	return false, nil
}

// jsonShape checks the number of classes and the dim of an export.
func jsonShape(classes, dim int) error {
	if classes < 2 {
		return modelErr("%d classes", classes)
	}
	if dim < 0 || dim > modelMaxDim {
		return modelErr("dim %d", dim)
	}
	return nil
}

// jsonEnums parses the "algorithm", "bias_mode" and "rule" members of an
// export; an absent rule is the perceptron's (files written before the
// rule was recorded), and a rule past maxRule is refused.
func jsonEnums(algorithm, biasMode, rule string, maxRule Rule) (Algorithm, BiasMode, Rule, error) {
	alg, err := ParseAlgorithm(algorithm)
	if err != nil {
		return 0, 0, 0, modelErr("unknown algorithm %q", algorithm)
	}
	bias, err := ParseBiasMode(biasMode)
	if err != nil {
		return 0, 0, 0, modelErr("unknown bias mode %q", biasMode)
	}
	r := Perceptron
	if rule != "" {
		if r, err = ParseRule(rule); err != nil || r > maxRule {
			return 0, 0, 0, modelErr("unknown rule %q", rule)
		}
	}
	return alg, bias, r, nil
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
