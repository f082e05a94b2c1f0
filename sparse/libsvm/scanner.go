package libsvm

import (
	"io"

	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/internal/lineio"
	"github.com/hyperplane-ml/hyperplane/sparse/internal/readopt"
)

// Scanner reads a LIBSVM / SVMlight input one row at a time, for data that
// does not fit in memory. It accepts and rejects exactly what Read
// does (gzip input included) and, once its buffers have grown to the
// longest line, allocates nothing per row.
//
//	sc := libsvm.NewScanner(r, sparse.ReadOptions{})
//	for sc.Scan() {
//		y, x := sc.Row()
//		...
//	}
//	if err := sc.Err(); err != nil { ... }
type Scanner struct {
	opt sparse.ReadOptions
	p   lineParser

	// lr opens the input at the first Scan. Max bounds its buffer: a
	// longer line is refused after MaxLineBytes+1 bytes of it, as Read
	// refuses it.
	lr lineio.Reader

	line int
	r    row
	ind  []int32
	val  []float32
	err  error
}

// NewScanner returns a Scanner reading r with the given options (Workers is
// ignored). With invalid options Scan returns false at once and Err
// reports an error wrapping sparse.ErrBadOption. A Scanner is not safe for
// concurrent use.
func NewScanner(r io.Reader, opt sparse.ReadOptions) *Scanner {
	return newScanner(r, opt, firstChunkSize)
}

// newScanner is NewScanner starting with a buffer of chunk bytes, 0
// meaning the default (tests use tiny ones).
func newScanner(r io.Reader, opt sparse.ReadOptions, chunk int) *Scanner {
	if chunk == 0 {
		chunk = firstChunkSize
	}
	o, err := readopt.Normalize(opt)
	s := &Scanner{opt: o, err: err}
	s.lr = lineio.Reader{Src: r, Open: true, Size: max(chunk, minChunkSize), Max: o.MaxLineBytes}
	if err == nil {
		s.p = newLineParser(&o)
	}
	return s
}

// Scan advances to the next row, skipping blank and comment lines. It
// returns false at the end of the input or on an error; Err tells which.
func (s *Scanner) Scan() bool {
	if s.err != nil {
		return false
	}
	for {
		ln, ok := s.nextLine()
		if !ok {
			return false
		}
		s.line++
		r, ind, val, blank, le := s.p.parseLine(ln, s.ind[:0], s.val[:0])
		s.ind, s.val = ind, val
		if le != nil {
			s.ind, s.val = s.ind[:0], s.val[:0]
			s.err = &sparse.ParseError{File: s.opt.Name, Line: s.line, Col: le.col, Msg: le.msg, Err: le.err}
			return false
		}
		if !blank {
			s.r = r
			return true
		}
	}
}

// nextLine returns the next line without its '\n', reading more input as
// needed; false at the end of the input, on a read error or on a line
// longer than MaxLineBytes (s.err set for both).
func (s *Scanner) nextLine() ([]byte, bool) {
	ln, st := s.lr.Next()
	switch st {
	case lineio.ReadErr:
		s.err = readopt.ReadErr(s.opt.Name, s.lr.Err)
	case lineio.TooLong:
		s.line++
		le := lineTooLong(s.opt.MaxLineBytes)
		s.err = &sparse.ParseError{File: s.opt.Name, Line: s.line, Col: le.col, Msg: le.msg, Err: le.err}
	}
	return ln, st == lineio.OK
}

// Row returns the current row's label and features. The vector's slices
// are reused by the next Scan: copy them to keep them. Its Dim is
// sparse.ReadOptions.Dim if set, else one more than the row's largest index (the
// smallest dimension that holds it).
func (s *Scanner) Row() (label float64, v sparse.Vector) {
	dim := s.opt.Dim
	if dim == 0 && len(s.ind) > 0 {
		dim = int(s.ind[len(s.ind)-1]) + 1
	}
	return s.r.label, sparse.Vector{Dim: dim, Ind: s.ind, Val: s.val}
}

// QID returns the current row's query id and whether the row had one.
func (s *Scanner) QID() (qid int64, ok bool) { return s.r.qid, s.r.hasQID }

// Line returns the 1-based line number of the current row, or of the line
// that caused the error.
func (s *Scanner) Line() int { return s.line }

// Err returns the error that stopped Scan, or nil at a clean end of input.
// Malformed input yields a *sparse.ParseError.
func (s *Scanner) Err() error { return s.err }
