// Package readopt holds what the format packages under sparse share about
// reading: the defaults and checks of sparse.ReadOptions and the wording
// of read errors.
package readopt

import (
	"fmt"
	"io"
	"math"
	"os"
	"runtime"

	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
)

// Normalize validates o (errors wrap sparse.ErrBadOption) and fills in the
// defaults that sparse.ReadOptions documents.
func Normalize(o sparse.ReadOptions) (sparse.ReadOptions, error) {
	// (A Dim past the int32 range is not also negative: reporting it
	// first keeps the order of the checks.)
	if o.Dim > math.MaxInt32 {
		return o, fmt.Errorf("%w: Dim = %d exceeds the int32 index range", sparse.ErrBadOption, o.Dim)
	}
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"Dim", int64(o.Dim)}, {"MaxDim", int64(o.MaxDim)}, {"MaxRowNNZ", int64(o.MaxRowNNZ)}, {"Workers", int64(o.Workers)},
		{"MaxNNZ", o.MaxNNZ}, {"MaxLineBytes", int64(o.MaxLineBytes)}, {"MemoryBudget", o.MemoryBudget},
	} {
		if f.v < 0 {
			return o, fmt.Errorf("%w: %s = %d is negative", sparse.ErrBadOption, f.name, f.v)
		}
	}
	if o.MaxLineBytes == 0 {
		o.MaxLineBytes = sparse.DefaultMaxLineBytes
	}
	o.MemoryBudget = budget.Resolve(o.MemoryBudget)
	if o.MaxNNZ == 0 {
		o.MaxNNZ = sparse.DefaultMaxNNZ
	}
	if o.MaxDim == 0 || o.MaxDim > math.MaxInt32 {
		o.MaxDim = math.MaxInt32
	}
	if o.Dim > o.MaxDim {
		return o, fmt.Errorf("%w: Dim = %d exceeds MaxDim = %d", sparse.ErrBadOption, o.Dim, o.MaxDim)
	}
	if o.MaxRowNNZ == 0 {
		o.MaxRowNNZ = sparse.DefaultMaxRowNNZ
	}
	if o.Workers == 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	o.Workers = min(o.Workers, sparse.MaxReadWorkers)
	return o, nil
}

// ReadErr wraps err, an error of the reader underneath (I/O, gzip), with
// the input's name.
func ReadErr(name string, err error) error {
	if name == "" {
		return fmt.Errorf("sparse: reading input: %w", err)
	}
	return fmt.Errorf("sparse: reading %s: %w", name, err)
}

// ReadFile is the ReadFile of a format package: it opens the file at path,
// sets *name, the Name of the options read uses, to path when it is empty
// (so that errors name the file), reads the file with read and closes it.
func ReadFile[T any](path string, name *string, read func(io.Reader) (T, error)) (T, error) {
	f, err := os.Open(path)
	if err != nil {
		var zero T
		return zero, err
	}
	defer f.Close()
	if *name == "" {
		*name = path
	}
	return read(f)
}
