// Package sparse holds hyperplane's sparse data structures and their file
// formats: Vector, a sparse vector; CSR, a compressed-sparse-row matrix with
// 64-bit row pointers; Builder, which assembles a CSR row by row with full
// validation; and a fast reader and writer for the LIBSVM / SVMlight text
// format.
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
// error instead.
//
// # LIBSVM / SVMlight format
//
// Each line holds one row:
//
//	<label> [qid:<n>] <index>:<value> <index>:<value> ... [# comment]
//
// Indices in the file are 1-based and strictly increasing; in memory they are
// 0-based, so file index k is column k-1. ReadLIBSVM parses a whole input in
// parallel into a Dataset; Scanner streams it one row at a time with no
// allocation per row, for data that does not fit in memory. Both detect
// gzip-compressed input by its magic bytes and share one line parser, so they
// accept and reject exactly the same inputs. Malformed input is reported as a
// *ParseError carrying the line and column and wrapping one of the sentinel
// errors (ErrSyntax, ErrIndex, ErrIndexOrder, ErrIndexRange, ErrValue,
// ErrRowTooLong, ErrLineTooLong), to be tested with errors.Is.
//
// Labels are read as float64 and values as float32, each rounded to the
// nearest. A number its type cannot hold is refused with ErrValue, both
// ways: one too large (1e39 as a value, 1e999 as a label) and one written
// with a nonzero digit that rounds to zero (1e-50 as a value, below
// float32's smallest magnitude of about 1.4e-45, or 1e-400 as a label), which
// would otherwise be stored as an explicit zero and counted as a nonzero.
// A zero written as such (0, 0.0, -0, 0e5) is an explicit zero, kept.
//
// ReadLIBSVM may be called from several goroutines at once; a Scanner or
// Builder belongs to one goroutine. The read-only methods of Vector and CSR
// may run concurrently.
//
// WriteLIBSVM and WriteLIBSVMFile write the same format back; every float32
// value is written with the fewest digits that read back to the same bits.
//
// # Binary cache
//
// A cache file ("HPSC", see cache.go for the layout) holds a parsed data
// set as checksummed blocks of the raw CSR arrays, so that later passes
// cost no parsing: WriteCacheFile or ConvertLIBSVMFile (row by row, in
// bounded memory) write one; OpenCache reads its index, ReadBlock and
// Scanner stream it (memory-mapped with CacheOptions.Map), Load reads it
// whole. ReadFile loads either format, told apart by the first bytes.
//
// # Limits
//
// ReadOptions bounds what a reader accepts: MaxDim for indices, MaxRowNNZ
// for one row, MaxLineBytes for one line (ErrLineTooLong; 64 MiB by
// default, refused before the rest of the line is read), MaxNNZ for the
// nonzeros loaded into memory at once (ErrTooLarge; the default, 2^30,
// fits a 24 GiB machine), and MemoryBudget for the memory ReadLIBSVM holds
// for the rows and nonzeros read so far (an error wrapping
// budget.ErrExceeded; the default is budget.Default()). No number read
// from a file sizes an allocation before the data backing it has arrived,
// and the streaming readers hold one line or block at a time whatever the
// number of rows.
package sparse
