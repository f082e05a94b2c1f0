package sparse

import (
	"errors"
	"strconv"
)

// Sentinel errors. Errors about the content of the input wrap one of them
// (a *ParseError for malformed text input); test with errors.Is. A reader
// that would hold more than the memory budget returns an error wrapping
// budget.ErrExceeded (package sparse/budget) instead. Errors of
// the reader underneath, such as an I/O error or a corrupt gzip stream,
// are returned wrapped with their own cause instead.
var (
	// ErrSyntax reports malformed text: garbage where a token belongs, a
	// missing label, a missing ':' or value, text where a number belongs, or
	// a binary file read as text.
	ErrSyntax = errors.New("sparse: syntax error")
	// ErrIndex reports a feature index that is zero or negative (indices in
	// LIBSVM files are 1-based).
	ErrIndex = errors.New("sparse: index must be positive")
	// ErrIndexOrder reports feature indices of one row that are not strictly
	// increasing (unsorted or duplicated).
	ErrIndexOrder = errors.New("sparse: indices not strictly increasing")
	// ErrIndexRange reports an index beyond the dimension, beyond
	// ReadOptions.MaxDim, or beyond the int32 range.
	ErrIndexRange = errors.New("sparse: index out of range")
	// ErrValue reports a NaN or infinite value or label, or a number that
	// overflows its type (such as 1e999, or 1e39 as a float32 value), or a
	// nonzero number that its type rounds to zero (such as 1e-50 as a
	// float32 value, or 1e-400 as a label).
	ErrValue = errors.New("sparse: value not finite")
	// ErrRowTooLong reports a row with more than ReadOptions.MaxRowNNZ
	// features.
	ErrRowTooLong = errors.New("sparse: row has too many nonzeros")
	// ErrLineTooLong reports a line longer than ReadOptions.MaxLineBytes.
	ErrLineTooLong = errors.New("sparse: line too long")
	// ErrShape reports inconsistent lengths or row pointers in a Vector, CSR
	// or Dataset, or index and value slices of different lengths.
	ErrShape = errors.New("sparse: inconsistent shape")
	// ErrTooLarge reports a data set with more nonzeros than
	// ReadOptions.MaxNNZ allows in memory.
	ErrTooLarge = errors.New("sparse: data set too large for memory")
	// ErrBadOption reports a ReadOptions field with an invalid value.
	ErrBadOption = errors.New("sparse: invalid option")
)

// ParseError describes malformed LIBSVM input. Line and Col are 1-based;
// Col is the byte column, within the line, of the offending token (a UTF-8
// byte order mark at the start of the input is not counted). Err is one of
// the package's sentinel errors.
type ParseError struct {
	File string // the input's name (ReadOptions.Name), or "" if unnamed
	Line int    // 1-based line number, counting every line including blank ones
	Col  int    // 1-based byte column of the offending token
	Msg  string // human-readable description
	Err  error  // sentinel: ErrSyntax, ErrIndex, ErrIndexOrder, ErrIndexRange, ErrValue, ErrRowTooLong or ErrLineTooLong
}

// Error formats the error as file:line:col: msg. An unnamed input is
// written as "<input>".
func (e *ParseError) Error() string {
	name := e.File
	if name == "" {
		name = "<input>"
	}
	return name + ":" + strconv.Itoa(e.Line) + ":" + strconv.Itoa(e.Col) + ": " + e.Msg
}

// Unwrap returns the sentinel error, for errors.Is.
func (e *ParseError) Unwrap() error { return e.Err }
