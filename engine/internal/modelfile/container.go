// Package modelfile reads and writes the engine's model files: the
// binary formats of linear models ("HPLM", linear.go), kernel models
// ("HPKM", kernel.go), Mix states ("HPMX", mix.go) and multi-label models
// ("HPML", multilabel.go), and the JSON exports of the first two
// (json.go). It works on plain data, slices and small structs that mirror
// what each file holds; the engine converts its types to and from them
// and checks what they mean (a model's Check), so that this package knows
// the layout of the bytes and the engine knows the learners.
//
// # The container
//
// The first three formats are built the same way, and container.go holds
// what they share; each kind supplies only its own header fields and
// sections (a Sections), and its own checks of them.
//
//	offset  size        field
//	0       4           magic ("HPLM", "HPKM" or "HPMX")
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
//	8, 8, 8     rows N, cols, nnz (uint64)
//	8·(N+1)     Indptr (int64)
//	4·nnz       Ind (int32)
//	4·nnz       Val (float32 bits)
//
// The voted perceptron's steps:
//
//	8           number of steps S (uint64)
//	24·S        steps: Row, Up, Down (int32), A (float32 bits),
//	            Count (int64)
//
// Sparse weights, an array of N float32 stored as:
//
//	⌈N/8⌉       bitmap: bit i (bit i%8 of byte i/8) is set when
//	            the raw bits of weight i are not 0, so that −0
//	            and NaNs are kept; the bits past N are 0
//	8           the number of set bits Z (uint64)
//	4·Z         the weights of the set bits, in order (float32
//	            bits, none 0)
//
// A reader checks every count against the format's limits and, when it
// knows how many bytes are left, against those before it allocates
// anything; otherwise it allocates in bounded chunks as the data arrives,
// so a short corrupt file cannot make it allocate more than a small
// multiple of its own size (at most 32 times what it read of a bitmap of
// sparse weights, which holds a bit per weight).
package modelfile

import (
	"bufio"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"

	"github.com/hyperplane-ml/hyperplane/sparse/atomicfile"
)

const (
	// MaxDim bounds Dim, the number of classes and the rows of a
	// CSR section: indices are int32.
	MaxDim = math.MaxInt32
	// maxElems bounds the length of any array in a model file, so
	// that its size in bytes fits an int on every platform.
	maxElems = math.MaxInt / 8
	// Chunk is the most bytes a reader takes, and allocates ahead of
	// the data, at a time when it does not know the input's size.
	Chunk = 64 << 10
	// StepSize is the encoded size of one Step.
	StepSize = 24
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

var (
	// ErrFormat: a model file is not one, is truncated or corrupt, or has
	// a version this build cannot read. The engine's ErrFormat.
	ErrFormat = errors.New("engine: bad model file")
	// ErrNoSubset: a model read for a subset of its features cannot be
	// read so. The engine's ErrNoSubset.
	ErrNoSubset = errors.New("engine: the model cannot be read for a subset of its features")
)

// Errf returns an error wrapping ErrFormat.
func Errf(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrFormat}, a...)...)
}

// Sections is one model kind's part of a binary model file: its
// header and sections, which the container frames and checksums. A value
// is made only for a model that has passed the kind's checks.
type Sections interface {
	// Size returns the length of the whole encoding, checksum included.
	Size() int64
	// encode writes everything before the checksum, magic first.
	encode(e *encoder)
}

// marshalSections returns the encoding of f and its checksum.
func marshalSections(f Sections) []byte {
	e := encoder{buf: make([]byte, 0, f.Size())}
	f.encode(&e)
	e.finish()
	return e.buf
}

// writeSections writes the encoding of f and its checksum to w through a
// buffer of about Chunk bytes, and returns the bytes written.
func writeSections(w io.Writer, f Sections) (int64, error) {
	e := encoder{w: w, buf: make([]byte, 0, Chunk+16)}
	f.encode(&e)
	e.finish()
	return e.n, e.err
}

// Each kind's MarshalBinary, WriteTo and Save are Marshal, Write
// and Save of its method that checks a model and returns its
// sections: a model it refuses is refused before anything is written.

// Marshal returns the encoding of the sections file returns, and its
// checksum.
func Marshal[F Sections](file func() (F, error)) ([]byte, error) {
	f, err := file()
	if err != nil {
		return nil, err
	}
	return marshalSections(f), nil
}

// Write writes the encoding of the sections file returns, and its
// checksum, to w, and returns the bytes written.
func Write[F Sections](w io.Writer, file func() (F, error)) (int64, error) {
	f, err := file()
	if err != nil {
		return 0, err
	}
	return writeSections(w, f)
}

// Save writes the encoding of the sections file returns to the file
// path, replacing it atomically (see atomicfile.Write).
func Save[F Sections](path string, file func() (F, error)) error {
	f, err := file()
	if err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := writeSections(w, f)
		return err
	})
}

// Unmarshal decodes data, which must hold one model and nothing
// after it, with decode, and gives the model to set only when all of it
// is valid, so that an UnmarshalBinary leaves its receiver as it was on
// failure.
func Unmarshal[T any](data []byte, decode func(*Decoder) (T, error), set func(T)) error {
	d := Decoder{buf: data, remain: int64(len(data))}
	m, err := decode(&d)
	if err == nil && d.remain != 0 {
		err = Errf("%d bytes of trailing data after the model", d.remain)
	}
	if err != nil {
		return err
	}
	set(m)
	return nil
}

// Load decodes the file at path, which must hold one model and
// nothing after it, with decode; errors in the file begin with path.
func Load[T any](path string, decode func(*Decoder) (T, error)) (T, error) {
	var zero T
	f, fi, err := open(path)
	if err != nil {
		return zero, err
	}
	defer f.Close()
	d := &Decoder{r: bufio.NewReaderSize(f, Chunk), remain: -1}
	if fi.Mode().IsRegular() {
		d.remain = fi.Size()
	}
	m, err := decode(d)
	if err == nil && d.remain > 0 {
		err = Errf("%d bytes of trailing data after the model", d.remain)
	}
	if err != nil {
		return zero, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// open opens the file at path and states it.
func open(path string) (*os.File, os.FileInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}
