package sparse

import (
	"fmt"
	"math"
)

// DefaultMaxNNZ is the default ReadOptions.MaxNNZ: 2^30 nonzeros are
// 8 GiB as a CSR matrix, and the parallel reader needs up to about twice
// that while it assembles, which a 24 GiB machine can hold.
const DefaultMaxNNZ = 1 << 30

// DefaultMaxRowNNZ is the default limit on the number of features in one
// row (ReadOptions.MaxRowNNZ).
const DefaultMaxRowNNZ = 1 << 24

// DefaultMaxLineBytes is the default limit on the length of one line
// (ReadOptions.MaxLineBytes): 64 MiB, as for the labelled-text reader. A
// line of DefaultMaxRowNNZ features of the shortest form, " 1:1", does not
// fit, but one of 1<<24 features is already far beyond any real row.
const DefaultMaxLineBytes = 64 << 20

// ReadOptions controls the readers of data files: ReadFile and Read, and
// those of the format packages (sparse/libsvm, sparse/hpc). The zero value
// reads any valid file with the defaults documented on each field.
type ReadOptions struct {
	// Dim fixes the number of columns. If Dim > 0 the matrix has exactly
	// Dim columns and a file index above Dim is an error (ErrIndexRange).
	// If Dim == 0 the number of columns is the largest index in the file.
	Dim int
	// MaxDim limits every file index (ErrIndexRange beyond it). 0 means
	// the int32 limit, 2^31-1, which is also the most any value can raise
	// it to.
	MaxDim int
	// MaxRowNNZ limits the number of features in one row (ErrRowTooLong
	// beyond it). 0 means DefaultMaxRowNNZ.
	MaxRowNNZ int
	// MaxLineBytes limits the length of one line, not counting its '\n'
	// (ErrLineTooLong beyond it), and so the buffer that one line needs:
	// a line is refused once MaxLineBytes+1 bytes of it have been read,
	// without reading the rest. 0 means DefaultMaxLineBytes.
	MaxLineBytes int
	// Name names the input in error messages; the readers of a file
	// default it to the path.
	Name string
	// Workers is the number of goroutines libsvm.Read parses with (and
	// hpc.File.Load decodes with). 0 means runtime.GOMAXPROCS(0); more
	// than MaxReadWorkers means MaxReadWorkers. The streaming readers
	// ignore it.
	Workers int
	// MaxNNZ caps the nonzeros that libsvm.Read and hpc.File.Load bring
	// into memory (ErrTooLarge beyond it). 0 means DefaultMaxNNZ. The
	// readers that hold one row or block at a time (libsvm.Scanner,
	// hpc.Scanner, hpc.File.ReadBlock, hpc.ConvertLIBSVM) ignore it: they
	// are the way to larger data.
	MaxNNZ int64
	// MemoryBudget is the memory in bytes that libsvm.Read may hold for
	// the data set, checked as the rows arrive: the labels, row pointers,
	// query ids and nonzeros of the parsed blocks, and as much again for
	// the copy they are assembled into at the end. Past it libsvm.Read
	// stops reading and returns an error wrapping budget.ErrExceeded. 0
	// means budget.Default(). libsvm.Scanner ignores it.
	MemoryBudget int64
}

// MaxReadWorkers is the most goroutines a reader or featurizer uses
// (ReadOptions.Workers, text.Config.Workers); more are capped to it, as
// the readers' queues grow with their number.
const MaxReadWorkers = 1024

// Dataset is a labelled sparse data set: row i of X has label Y[i] and, if
// the input had query ids, query id QID[i].
type Dataset struct {
	X   *CSR
	Y   []float64
	QID []int64 // nil if no row had a qid; else one per row, 0 where a row had none
}

// Len returns the number of rows.
func (d *Dataset) Len() int { return len(d.Y) }

// Validate checks d: X valid (see CSR.Validate), one finite label per row,
// QID nil or one per row.
func (d *Dataset) Validate() error {
	if d == nil || d.X == nil {
		return fmt.Errorf("%w: nil dataset or matrix", ErrShape)
	}
	if err := d.X.Validate(); err != nil {
		return err
	}
	if len(d.Y) != d.X.Rows {
		return fmt.Errorf("%w: %d labels for %d rows", ErrShape, len(d.Y), d.X.Rows)
	}
	if d.QID != nil && len(d.QID) != d.X.Rows {
		return fmt.Errorf("%w: %d qids for %d rows", ErrShape, len(d.QID), d.X.Rows)
	}
	for i, y := range d.Y {
		if math.IsNaN(y) || math.IsInf(y, 0) {
			return fmt.Errorf("%w: label of row %d is %v", ErrValue, i, y)
		}
	}
	return nil
}
