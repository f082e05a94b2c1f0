package text

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// The rows of FitCache's first pass wait in a temporary file of this
// form, written and read by this process only: for each row, its label's
// number and its number of entries (unsigned varints), then each entry's
// key (8 bytes: a term's hash, or a bucket) and raw count (a float32's 4
// bytes), little-endian. Keys by hash rather than by a counter's term
// number let the counters drop terms while the text streams by.

// rawWriter writes rows of raw counts.
type rawWriter struct {
	w   *bufio.Writer
	buf []byte
}

func newRawWriter(w io.Writer) *rawWriter {
	return &rawWriter{w: bufio.NewWriterSize(w, 1<<20)}
}

// add writes a row: label number k, keys and counts.
func (rw *rawWriter) add(k int, keys []uint64, counts []float32) error {
	b := binary.AppendUvarint(rw.buf[:0], uint64(k))
	b = binary.AppendUvarint(b, uint64(len(keys)))
	for i, h := range keys {
		b = binary.LittleEndian.AppendUint64(b, h)
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(counts[i]))
	}
	rw.buf = b
	_, err := rw.w.Write(b)
	return err
}

func (rw *rawWriter) flush() error { return rw.w.Flush() }

// rawReader reads the rows a rawWriter wrote.
type rawReader struct {
	r      *bufio.Reader
	keys   []uint64
	counts []float32
	entry  [12]byte
}

func newRawReader(r io.Reader) *rawReader {
	return &rawReader{r: bufio.NewReaderSize(r, 1<<20)}
}

// errRawRows reports a temporary file of rows that does not read back as
// written (changed by another process, or a full disk).
var errRawRows = errors.New("the temporary file of the first pass's rows does not read back as written")

// next reads the next row into rr.keys and rr.counts and returns its
// label number, or io.EOF after the last row.
func (rr *rawReader) next(maxEntries int) (int, error) {
	k, err := binary.ReadUvarint(rr.r)
	if err == io.EOF {
		return 0, io.EOF
	}
	if err != nil {
		return 0, fmt.Errorf("%w: %v", errRawRows, err)
	}
	n, err := binary.ReadUvarint(rr.r)
	if err != nil || n > uint64(maxEntries) {
		return 0, fmt.Errorf("%w: a row of %d entries (%v)", errRawRows, n, err)
	}
	rr.keys, rr.counts = rr.keys[:0], rr.counts[:0]
	for range n {
		if _, err := io.ReadFull(rr.r, rr.entry[:]); err != nil {
			return 0, fmt.Errorf("%w: %v", errRawRows, err)
		}
		rr.keys = append(rr.keys, binary.LittleEndian.Uint64(rr.entry[:8]))
		rr.counts = append(rr.counts, math.Float32frombits(binary.LittleEndian.Uint32(rr.entry[8:])))
	}
	return int(k), nil
}
