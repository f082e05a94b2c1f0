// Package lineio holds what the LIBSVM reader (package sparse) and the
// labelled-text reader (package sparse/text) share: opening a possibly
// gzip-compressed input, and cutting it into lines with a UTF-8 byte
// order mark dropped, in a buffer that keeps at most one line and a read.
package lineio

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math"

	"github.com/klauspost/compress/gzip"
)

// BOM is the UTF-8 byte order mark, dropped at the start of an input.
var BOM = []byte{0xef, 0xbb, 0xbf}

// Open returns r, or a decompressing reader when r starts with the gzip
// magic bytes.
func Open(r io.Reader) (io.Reader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	magic, err := br.Peek(2)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, err
		}
		return zr, nil
	}
	return br, nil
}

// Status is the outcome of Reader.Next.
type Status uint8

const (
	OK      Status = iota // a line
	EOF                   // the end of the input
	TooLong               // a line longer than Max
	ReadErr               // the source failed: see Reader.Err
)

// Reader cuts Src into lines. Size is the first buffer size (0: 64 KiB);
// Max, when > 0, the longest line accepted: the buffer never grows past
// Max+1 bytes. Without Max it grows to hold the longest line. With Open
// set, the first Next replaces Src by Open(Src), so that a scanner made
// before its input is read decompresses it; an error there is a ReadErr.
type Reader struct {
	Src  io.Reader
	Size int
	Max  int
	Open bool
	Err  error // the read error after ReadErr

	buf      []byte
	pos, end int // unconsumed bytes are buf[pos:end]
	scanned  int // buf[pos:scanned] holds no '\n'
	eof      bool
	bomDone  bool
}

// limit is the most the buffer needs: Max+1 bytes tell that a line is
// longer than Max. (Max+1 must not wrap when Max is math.MaxInt, a natural
// way to ask for no limit.)
func (r *Reader) limit() int {
	if r.Max <= 0 || r.Max == math.MaxInt {
		return math.MaxInt
	}
	return r.Max + 1
}

// Next returns the next line without its '\n' (a trailing '\r' is kept).
// The line stays valid until the next call.
func (r *Reader) Next() ([]byte, Status) {
	if r.Open {
		r.Open = false
		src, err := Open(r.Src)
		if err != nil {
			r.Err = err
			return nil, ReadErr
		}
		r.Src = src
	}
	if r.buf == nil {
		size := r.Size
		if size <= 0 {
			size = 64 << 10
		}
		size = min(size, r.limit())
		r.buf = make([]byte, max(size, 4))
	}
	empty := 0
	for {
		if !r.bomDone && (r.end-r.pos >= len(BOM) || r.eof) {
			r.bomDone = true
			if bytes.HasPrefix(r.buf[r.pos:r.end], BOM) {
				r.pos += len(BOM)
				r.scanned = r.pos
			}
		}
		if r.bomDone {
			if k := bytes.IndexByte(r.buf[r.scanned:r.end], '\n'); k >= 0 {
				n := r.scanned + k
				if r.Max > 0 && n-r.pos > r.Max {
					return nil, TooLong
				}
				ln := r.buf[r.pos:n]
				r.pos, r.scanned = n+1, n+1
				return ln, OK
			}
			r.scanned = r.end
			if r.Max > 0 && r.end-r.pos > r.Max {
				return nil, TooLong
			}
			if r.eof {
				if r.pos < r.end {
					ln := r.buf[r.pos:r.end]
					r.pos = r.end
					return ln, OK
				}
				return nil, EOF
			}
		}
		// Refill, keeping the partial line; grow the buffer when the line
		// fills it (with Max, never past Max+1 bytes, which is enough to
		// tell that a line is too long).
		if r.pos > 0 {
			n := copy(r.buf, r.buf[r.pos:r.end])
			r.scanned -= r.pos
			r.end, r.pos = n, 0
		}
		if r.end == len(r.buf) {
			size := min(2*len(r.buf), r.limit())
			nb := make([]byte, size)
			copy(nb, r.buf[:r.end])
			r.buf = nb
		}
		n, err := r.Src.Read(r.buf[r.end:])
		r.end += n
		switch {
		case err == io.EOF:
			r.eof = true
		case err != nil:
			r.Err = err
			return nil, ReadErr
		case n == 0:
			if empty++; empty > 100 {
				r.Err = io.ErrNoProgress
				return nil, ReadErr
			}
		}
	}
}

// BufLen returns the size of the buffer, which Max bounds.
func (r *Reader) BufLen() int { return len(r.buf) }
