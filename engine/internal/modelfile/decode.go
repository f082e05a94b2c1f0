package modelfile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/bits"
	"slices"

	"github.com/hyperplane-ml/hyperplane/engine/internal/kern"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
)

// Decoder reads the binary format from memory (buf, when r is nil)
// or from r.
type Decoder struct {
	buf     []byte
	r       io.Reader
	remain  int64 // bytes left in the input, −1 when unknown
	crc     uint32
	scratch []byte
	// keep, when not nil, are the features of a linear model to keep
	// (NewSubsetDecoder), in increasing order.
	keep []int32
	// at, when not nil, is the whole input, r reading it from offset 0
	// on, and remain its size less what r has read: the weights of the
	// kept rows are read from it (NewSubsetDecoderAt), the rest of
	// the weights and the checksum not at all.
	at *io.SectionReader
	// meter, when not nil, counts the arrays the decoder makes against
	// the memory budget before it makes them (linear and kernel models;
	// a Mix checks its own limit once from its header).
	meter *budget.Meter
}

// charge counts n bytes that the decoder is about to allocate for what
// against its meter, if it has one: an error wraps budget.ErrExceeded
// (the engine's ErrMemory), not ErrFormat, since the file may be sound.
func (d *Decoder) charge(n int64, what string) error {
	if d.meter == nil {
		return nil
	}
	return d.meter.Take(n, "reading the model's "+what)
}

// NewDecoder returns a decoder of r, which knows the input's size when
// r tells it (a Len method, as bytes.Reader and bytes.Buffer have).
func NewDecoder(r io.Reader) *Decoder {
	d := &Decoder{r: r, remain: -1}
	if l, ok := r.(interface{ Len() int }); ok {
		d.remain = int64(l.Len())
	}
	return d
}

// truncated reports an input that ended inside what.
func truncated(what string) error { return Errf("truncated in %s", what) }

// take consumes the next n bytes and adds them to the checksum; n is at
// most Chunk unless the input is in memory. The bytes are valid
// until the next call.
func (d *Decoder) take(n int, what string) ([]byte, error) {
	if d.remain >= 0 && int64(n) > d.remain {
		return nil, truncated(what)
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
				return nil, truncated(what)
			}
			return nil, fmt.Errorf("engine: reading model %s: %w", what, err)
		}
	}
	if d.remain >= 0 {
		d.remain -= int64(n)
	}
	d.crc = crc32.Update(d.crc, crcTable, b)
	return b, nil
}

// Magic reads the 4 bytes that begin a file, or as many of them as the
// input holds (fewer only when it ends), and adds them to the checksum.
// The bytes are valid until the next call.
func (d *Decoder) Magic() ([]byte, error) {
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
	d.crc = crc32.Update(d.crc, crcTable, b[:n])
	return b[:n], nil
}

// ExpectMagic reads the magic and checks that it is want, the magic of a
// file of kind.
func (d *Decoder) ExpectMagic(want, kind string) error {
	b, err := d.Magic()
	if err != nil && !errors.Is(err, ErrFormat) {
		return err
	}
	if err != nil || string(b) != want {
		return Errf("not a hyperplane %s file", kind)
	}
	return nil
}

// header reads the rest of a header of size bytes after the magic and
// checks its format version, from 1 to newest, and its flags, none
// outside known. It returns the header after the magic: version and
// flags at 0 and 2, the kind's fields from 4.
func (d *Decoder) header(size int, newest, known uint16) (b []byte, flags uint16, err error) {
	b, err = d.take(size-4, "header")
	if err != nil {
		return nil, 0, err
	}
	version, flags := binary.LittleEndian.Uint16(b), binary.LittleEndian.Uint16(b[2:])
	switch {
	case version > newest:
		return nil, 0, Errf("format version %d is newer than this build reads (%d)", version, newest)
	case version == 0:
		return nil, 0, Errf("format version 0 does not exist")
	case flags&^known != 0:
		return nil, 0, Errf("unknown flags %#x", flags)
	}
	return b, flags, nil
}

// meteredHeader is header for a linear or kernel model: it first gives
// the decoder a meter of the default memory budget if it has none, which
// counts the arrays it makes from then on.
func (d *Decoder) meteredHeader(size int, newest, known uint16) ([]byte, uint16, error) {
	if d.meter == nil {
		d.meter = budget.NewMeter(0)
	}
	return d.header(size, newest, known)
}

// classesBiases reads the classes, nc of them, and the biases of K rows,
// which follow each other in a linear model's file and a Mix's.
func (d *Decoder) classesBiases(nc, K int) (classes []float64, B []float32, err error) {
	if classes, err = readArray[float64](d, nc, "classes"); err != nil {
		return nil, nil, err
	}
	if B, err = readArray[float32](d, K, "biases"); err != nil {
		return nil, nil, err
	}
	return classes, B, nil
}

// checkShape checks a header's number of classes nc, of rows K (rows
// names them in errors: a linear model's weight rows, a kernel model's
// functions) and dim.
func checkShape(nc, K uint32, dim uint64, rows string) error {
	switch {
	case nc < 2 || nc > MaxDim:
		return Errf("%d classes", nc)
	case (nc == 2 && K != 1) || (nc > 2 && K != nc):
		return Errf("%d %s for %d classes", K, rows, nc)
	case dim > MaxDim:
		return Errf("dim %d is beyond the limit %d", dim, MaxDim)
	}
	return nil
}

// checksum reads the checksum and compares it with that of what came
// before.
func (d *Decoder) checksum() error {
	sum := d.crc
	b, err := d.take(4, "checksum")
	if err != nil {
		return err
	}
	if binary.LittleEndian.Uint32(b) != sum {
		return Errf("checksum mismatch: file is corrupt")
	}
	return nil
}

func (d *Decoder) u64(what string) (uint64, error) {
	b, err := d.take(8, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

// count reads an array length and checks that that many elements of size
// bytes are within the format's limits and, when the input's size is
// known, within what is left of it.
func (d *Decoder) count(what string, size int) (int, error) {
	n, err := d.u64(what)
	if err != nil {
		return 0, err
	}
	return int(n), d.fits(n, size, what)
}

// fits checks that n elements of size bytes may follow.
func (d *Decoder) fits(n uint64, size int, what string) error {
	if n > maxElems || n > uint64(math.MaxInt/size) {
		return Errf("%s: %d elements is beyond any model", what, n)
	}
	if need := int64(n) * int64(size); d.remain >= 0 && need > d.remain {
		return Errf("truncated in %s: %d bytes needed, %d left", what, need, d.remain)
	}
	return nil
}

type elem interface {
	float32 | float64 | int32 | int64
}

// readArray reads n elements, n already checked by fits. It allocates
// the whole array at once when the input's size is known (and so bounds
// n); otherwise it grows the array as chunks of data arrive. The data
// are taken Chunk bytes at a time, each piece checksummed and decoded
// while it is in the cache; where the machine is little-endian, straight
// into the array's memory, which is the elements' encoding.
func readArray[T elem](d *Decoder, n int, what string) ([]T, error) {
	size := elemSize[T]()
	if err := d.fits(uint64(n), size, what); err != nil {
		return nil, err
	}
	// The array is counted against the budget whole when the input is
	// known to hold it, else chunk by chunk as the data arrive, so that a
	// stream claiming more than it holds ends as truncated.
	c := n
	if d.remain < 0 {
		c = min(n, Chunk/size)
	} else if err := d.charge(budget.Mul(int64(n), int64(size)), what); err != nil {
		return nil, err
	}
	out := make([]T, 0, c)
	for len(out) < n {
		k := min(n-len(out), Chunk/size)
		if d.remain < 0 {
			if err := d.charge(int64(k*size), what); err != nil {
				return nil, err
			}
		}
		if !littleEndian {
			b, err := d.take(k*size, what)
			if err != nil {
				return nil, err
			}
			out = appendElems(out, b)
			continue
		}
		m := len(out)
		out = slices.Grow(out, k)[:m+k]
		if err := d.fill(rawBytes(out[m:]), what); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// fill reads len(p) bytes into p and adds them to the checksum, as take
// does without a buffer of its own.
func (d *Decoder) fill(p []byte, what string) error {
	n := len(p)
	if d.remain >= 0 && int64(n) > d.remain {
		return truncated(what)
	}
	if d.r == nil {
		copy(p, d.buf[:n])
		d.buf = d.buf[n:]
	} else if _, err := io.ReadFull(d.r, p); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return truncated(what)
		}
		return fmt.Errorf("engine: reading model %s: %w", what, err)
	}
	if d.remain >= 0 {
		d.remain -= int64(n)
	}
	d.crc = crc32.Update(d.crc, crcTable, p)
	return nil
}

// appendElems appends the little-endian elements in b to out.
func appendElems[T elem](out []T, b []byte) []T {
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
func (d *Decoder) csr(n csrNames, dim uint64, exact bool) (*sparse.CSR, error) {
	rows, err := d.u64(n.rows)
	if err != nil {
		return nil, err
	}
	cols, err := d.u64(n.rows)
	if err != nil {
		return nil, err
	}
	switch {
	case rows > MaxDim:
		return nil, Errf("%d %s is beyond the limit %d", rows, n.rows, MaxDim)
	case cols > dim || exact && cols != dim:
		return nil, Errf("%s are %d wide, model %d", n.rows, cols, dim)
	}
	X := &sparse.CSR{Rows: int(rows), Cols: int(cols)}
	nnz, err := d.count(n.rows, 8)
	if err != nil {
		return nil, err
	}
	if X.Indptr, err = readArray[int64](d, X.Rows+1, n.indptr); err != nil {
		return nil, err
	}
	if X.Ind, err = readArray[int32](d, nnz, n.ind); err != nil {
		return nil, err
	}
	if X.Val, err = readArray[float32](d, nnz, n.val); err != nil {
		return nil, err
	}
	return X, nil
}

// count0 reads the votes of the voted perceptron's start vector.
func (d *Decoder) count0() (int64, error) {
	c, err := d.u64("votes")
	if err != nil {
		return 0, err
	}
	if int64(c) < 0 {
		return 0, Errf("negative vote count %d of the start vector", int64(c))
	}
	return int64(c), nil
}

// voteSteps reads the number of steps and the steps.
func (d *Decoder) voteSteps() ([]Step, error) {
	ns, err := d.count("vote steps", StepSize)
	if err != nil {
		return nil, err
	}
	c0 := ns
	if d.remain < 0 {
		c0 = min(ns, Chunk/StepSize)
	}
	steps := make([]Step, 0, c0)
	le := binary.LittleEndian
	for len(steps) < ns {
		k := min(ns-len(steps), Chunk/StepSize)
		b, err := d.take(k*StepSize, "vote steps")
		if err != nil {
			return nil, err
		}
		for ; len(b) >= StepSize; b = b[StepSize:] {
			steps = append(steps, Step{
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
func (d *Decoder) weights(n int, sparse bool, what string) ([]float32, error) {
	if !sparse {
		return readArray[float32](d, n, what)
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
	// bytes as take at most Chunk/4 values (all of them from
	// memory), and expanded into their weights by ExpandF32, 8 at a time.
	limit := Chunk / 4
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
			return nil, Errf("%s: a zero stored for a set bit", what)
		}
		pb = pe
	}
	return w, nil
}

// bitmap reads the bitmap of a sparse weights section of n weights and
// the count of values after it, which it checks against the bits set.
// The bitmap is padded with zeros to whole words of 64 bits.
func (d *Decoder) bitmap(n int, what string) ([]byte, uint64, error) {
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
		c = min(c, Chunk)
	}
	bm := make([]byte, 0, c)
	for len(bm) < nb {
		k := min(nb-len(bm), Chunk)
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
		return nil, 0, Errf("%s: bits set past the last weight", what)
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
		return nil, 0, Errf("%s: %d values for %d set bits", what, nnz, set)
	}
	if err := d.fits(nnz, 4, what); err != nil {
		return nil, 0, err
	}
	return bm, nnz, nil
}
