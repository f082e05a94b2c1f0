package modelfile

import (
	"encoding/binary"
	"hash/crc32"
	"io"
	"math"
	"math/bits"
	"unsafe"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

// encoder writes the binary format, through a buffer of about
// Chunk bytes when w is set, or into buf alone when it is not.
type encoder struct {
	w   io.Writer
	buf []byte
	crc uint32
	n   int64
	err error
}

func (e *encoder) flush() {
	if e.w != nil && e.err != nil {
		// The write failed: what follows is dropped, not gathered into a
		// buffer the size of the model.
		e.buf = e.buf[:0]
		return
	}
	if e.w == nil || len(e.buf) == 0 {
		return
	}
	e.crc = crc32.Update(e.crc, crcTable, e.buf)
	n, err := e.w.Write(e.buf)
	e.n += int64(n)
	e.err = err
	e.buf = e.buf[:0]
}

func (e *encoder) spill() {
	if len(e.buf) >= Chunk {
		e.flush()
	}
}

// finish ends an encoding with the CRC-32C of what came before.
func (e *encoder) finish() {
	if e.w == nil {
		e.crc = crc32.Checksum(e.buf, crcTable)
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
func (e *encoder) header(magic string, version, flags uint16) {
	e.buf = append(e.buf, magic...)
	e.u16(version)
	e.u16(flags)
}

func (e *encoder) u16(x uint16) { e.buf = binary.LittleEndian.AppendUint16(e.buf, x) }
func (e *encoder) u32(x uint32) { e.buf = binary.LittleEndian.AppendUint32(e.buf, x) }
func (e *encoder) u64(x uint64) { e.buf = binary.LittleEndian.AppendUint64(e.buf, x); e.spill() }

func (e *encoder) f32s(s []float32) { putElems(e, s) }
func (e *encoder) f64s(s []float64) { putElems(e, s) }
func (e *encoder) i32s(s []int32)   { putElems(e, s) }
func (e *encoder) i64s(s []int64)   { putElems(e, s) }

// putElems writes the elements of s little-endian. Where the machine is
// little-endian, s's memory is its encoding: an array of Chunk bytes or
// more goes to w in pieces of Chunk bytes straight from s, checksummed
// as it goes, and a shorter one, or any into buf alone, is copied into
// buf. Elsewhere the elements are encoded into buf a piece at a time.
// The bytes are the same either way; only the writes to w differ.
func putElems[T elem](e *encoder, s []T) {
	if e.err != nil {
		return
	}
	if !littleEndian {
		putElemsPortable(e, s)
		return
	}
	raw := rawBytes(s)
	if e.w == nil || len(raw) < Chunk {
		for len(raw) > 0 {
			k := len(raw)
			if e.w != nil {
				k = min(k, max(Chunk-len(e.buf), 1))
			}
			e.buf = append(e.buf, raw[:k]...)
			raw = raw[k:]
			e.spill()
		}
		return
	}
	e.flush()
	for len(raw) > 0 && e.err == nil {
		k := min(len(raw), Chunk)
		e.crc = crc32.Update(e.crc, crcTable, raw[:k])
		n, err := e.w.Write(raw[:k])
		e.n += int64(n)
		e.err = err
		raw = raw[k:]
	}
}

// putElemsPortable is putElems on a machine that is not little-endian:
// the elements are encoded into buf up to Chunk bytes at a time.
func putElemsPortable[T elem](e *encoder, s []T) {
	size := elemSize[T]()
	for len(s) > 0 && e.err == nil {
		k := len(s)
		if e.w != nil {
			k = min(k, max((Chunk-len(e.buf))/size, 1))
		}
		n := len(e.buf)
		e.buf = append(e.buf, make([]byte, k*size)...)
		encodeElems(e.buf[n:], s[:k])
		s = s[k:]
		e.spill()
	}
}

// encodeElems writes the elements of s into b, little-endian.
func encodeElems[T elem](b []byte, s []T) {
	le := binary.LittleEndian
	switch s := any(s).(type) {
	case []float32:
		for i, x := range s {
			le.PutUint32(b[4*i:], math.Float32bits(x))
		}
	case []int32:
		for i, x := range s {
			le.PutUint32(b[4*i:], uint32(x))
		}
	case []float64:
		for i, x := range s {
			le.PutUint64(b[8*i:], math.Float64bits(x))
		}
	case []int64:
		for i, x := range s {
			le.PutUint64(b[8*i:], uint64(x))
		}
	}
}

// elemSize returns the encoded size of a T.
func elemSize[T elem]() int {
	var zero T
	return int(unsafe.Sizeof(zero))
}

// rawBytes views the memory of s as bytes: on a little-endian machine,
// the elements' encoding.
func rawBytes[T elem](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*elemSize[T]())
}

// csr writes rows in CSR form.
func (e *encoder) csr(X *sparse.CSR) {
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
func (e *encoder) voteSteps(steps []Step) {
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
func voteStepsSize(n int) int64 { return 8 + StepSize*int64(n) }

// sparseSize returns the length of the sparse encoding of n weights
// of which nnz are not zero.
func sparseSize(n, nnz int64) int64 { return (n+7)/8 + 8 + 4*nnz }

// Nonzero returns the number of weights of w whose bits are not 0.
func Nonzero(w []float32) int64 {
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
func (e *encoder) sparseF32s(s []float32) {
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
func (e *encoder) weights(w []float32, sparse bool) {
	if sparse {
		e.sparseF32s(w)
	} else {
		e.f32s(w)
	}
}

// flagIf returns flag when set, else 0: a file's header flags are the OR
// of one flagIf per flag, each beside the field that sets it.
func flagIf(set bool, flag uint16) uint16 {
	if set {
		return flag
	}
	return 0
}
