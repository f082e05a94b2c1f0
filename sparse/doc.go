// Package sparse holds hyperplane's sparse data: Vector, a sparse
// vector; CSR, a compressed-sparse-row matrix with 64-bit row pointers;
// Builder, which assembles a CSR row by row with full validation; Dataset,
// a CSR with its labels; and ReadOptions, the limits every reader of data
// files obeys.
//
// # Invariants
//
// A Vector or a CSR row holds 0-based column indices that are strictly
// increasing and lie in [0, Dim) (respectively [0, Cols)), with one value per
// index, every value finite. Builder, FromDense and the readers establish
// these invariants; Validate checks them on values assembled by hand from
// user-supplied slices. The arithmetic methods (Vector.Dot, Vector.AddTo)
// rely on them: the SIMD kernels in package asm check every index and
// panic on one out of range, so Validate hand-built data first to get an
// error instead. The read-only methods of Vector and CSR may run
// concurrently; a Builder belongs to one goroutine.
//
// # File formats
//
// Each file format lives in a package of its own, which registers it
// with RegisterFormat when imported:
//
//   - sparse/libsvm: LIBSVM / SVMlight text, gzip-compressed or not; a
//     parallel reader, a streaming Scanner and the writer.
//   - sparse/hpc: HPSC, hyperplane's binary file of parsed blocks, which
//     later passes read without parsing, memory-mapped or streamed, and
//     engine.FitCache trains from out of core.
//
// ReadFile and Read read any registered format, told apart by the first
// bytes (Sniff, SniffFile); WriteFile and Write pick the format by the
// file name's ending (FormatForName): ".hpc" is HPSC, ".gz" gzip-compressed
// LIBSVM, anything else LIBSVM. WriteFile replaces its file atomically
// (package sparse/atomicfile).
//
// Malformed text is reported as a *ParseError carrying the file, line and
// column and wrapping one of the sentinel errors (ErrSyntax, ErrIndex,
// ErrIndexOrder, ErrIndexRange, ErrValue, ErrRowTooLong, ErrLineTooLong),
// to be tested with errors.Is; the readers of package sparse/text report
// theirs the same way.
//
// # Limits
//
// ReadOptions bounds what a reader accepts: MaxDim for indices, MaxRowNNZ
// for one row, MaxLineBytes for one line (ErrLineTooLong; 64 MiB by
// default, refused before the rest of the line is read), MaxNNZ for the
// nonzeros loaded into memory at once (ErrTooLarge; the default, 2^30,
// fits a 24 GiB machine), and MemoryBudget for the memory a whole-file reader holds
// for the rows and nonzeros read so far (an error wrapping
// budget.ErrExceeded; the default is budget.Default()). No number read
// from a file sizes an allocation before the data backing it has arrived,
// and the streaming readers hold one line or block at a time whatever the
// number of rows.
package sparse
