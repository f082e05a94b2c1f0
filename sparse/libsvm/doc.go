// Package libsvm reads and writes the LIBSVM / SVMlight text format, and
// registers it with package sparse (as "libsvm", and "libsvm.gz" for its
// gzip-compressed form) for sparse.ReadFile and sparse.WriteFile.
//
// # Format
//
// Each line holds one row:
//
//	<label> [qid:<n>] <index>:<value> <index>:<value> ... [# comment]
//
// Indices in the file are 1-based and strictly increasing; in memory they
// are 0-based, so file index k is column k-1. Read parses a whole input in
// parallel into a sparse.Dataset; Scanner streams it one row at a time with
// no allocation per row, for data that does not fit in memory. Both detect
// gzip-compressed input by its magic bytes and share one line parser, so
// they accept and reject exactly the same inputs. Malformed input is
// reported as a *sparse.ParseError carrying the line and column and
// wrapping one of package sparse's sentinel errors (sparse.ErrSyntax,
// sparse.ErrIndex, sparse.ErrIndexOrder, sparse.ErrIndexRange,
// sparse.ErrValue, sparse.ErrRowTooLong, sparse.ErrLineTooLong), to be
// tested with errors.Is. sparse.ReadOptions bounds what the readers accept.
//
// Labels are read as float64 and values as float32, each rounded to the
// nearest. A number its type cannot hold is refused with sparse.ErrValue, both
// ways: one too large (1e39 as a value, 1e999 as a label) and one written
// with a nonzero digit that rounds to zero (1e-50 as a value, below
// float32's smallest magnitude of about 1.4e-45, or 1e-400 as a label), which
// would otherwise be stored as an explicit zero and counted as a nonzero.
// A zero written as such (0, 0.0, -0, 0e5) is an explicit zero, kept.
// A label of magnitude 2⁵³ or more must be the number its float64
// prints as (9007199254740994, 1e300), or it is refused with
// sparse.ErrValue: there float64 holds only some integers, and rounding
// would make distinct labels (9007199254740992 and 9007199254740993) one
// class.
//
// Read may be called from several goroutines at once; a Scanner belongs
// to one goroutine.
//
// Write (and sparse.WriteFile, for a name not ending in ".hpc") writes the
// same format back; every float32 value is written with the fewest digits
// that read back to the same bits. AppendRow formats one row as Write
// does, for writers that make their rows themselves.
package libsvm
