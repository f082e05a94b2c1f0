package engine

import (
	"sync/atomic"

	"github.com/hyperplane-ml/hyperplane/asm"
	"github.com/hyperplane-ml/hyperplane/engine/internal/kern"
	"github.com/hyperplane-ml/hyperplane/internal/par"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
)

// fusedBinary turns binaryRows on. (A variable so that tests can compare
// it with the general pass.)
var fusedBinary = true

// plainBinary reports whether st's steps are those of the plain binary
// perceptron rule with nothing else to do per example: one weight vector,
// the Perceptron rule, no row normalization, no sample or class weights,
// no voted log and no mistake trace. Such a learner's pass can run
// binaryRows.
func (st *state) plainBinary(sw []float64) bool {
	s := &st.s
	return fusedBinary && st.K == 1 && s.Rule == Perceptron && !s.Normalize && sw == nil && st.cw == nil &&
		st.votes == nil && traceMistake == nil
}

// packedBinary reports whether st's steps can read packed rows: a binary
// averaged or plain learner with nothing else to do per example (no
// sample or class weights, no voted log, no mistake trace) whose step
// reads a row's values only through the dot product and the update,
// whose packed kernels give the unpacked bits (AxpyAvgP32F32 for the
// averaged learner, AxpyIndP32F32 for the plain one): the Perceptron
// rule, or the passive-aggressive rules on normalized rows, where ‖x‖² is
// 1 and not summed from the values. (The SGD rules scale their weights
// otherwise.)
func (st *state) packedBinary(sw []float64) bool {
	s := &st.s
	rule := s.Rule == Perceptron || (s.Normalize && (s.Rule == PA || s.Rule == PA1 || s.Rule == PA2))
	return st.K == 1 && rule && sw == nil && st.cw == nil && st.votes == nil && traceMistake == nil
}

// packRows packs the rows of f.X (kern.PackP32) for passes that can use
// them: a learner for which packedBinary holds, with rows whose values
// pack without loss (term counts do; a normalized learner scales them by
// the row's scale as it goes, so they stay counts), and room in the
// memory budget for 4 bytes a nonzero, in a fit of packMinEpochs epochs
// or more. A shuffled epoch then fetches half the bytes per row and, the
// packed kernels giving the unpacked ones' bits on every tier (and those
// of the stride-4 kernels of the interleaved layout), trains the same
// model bit for bit. Packed rows take the place of the interleaved layout
// for weights larger than the caches: the row bytes they save outweigh
// the slots' locality there (and a prefetch of a packed row's weights,
// tried, did not help). The packed rows go on huge pages where the
// system gives them (hugeAlloc): a shuffled epoch lands on a different
// page at almost every row; releaseRows unmaps them. Otherwise it leaves
// f.p32 nil and the passes read X.
//
// With check set the rows of X have not been validated yet (Fit leaves
// that to here, see checkRows): packRows checks them as it packs, in one
// pass over the matrix instead of two, and returns Validate's error for
// rows that are not valid. Whatever it returns, a nil error means the
// rows are valid.
func (f *fitter) packRows(s *settings, check bool) error {
	st, X := f.st, f.X
	if X == nil {
		return nil
	}
	if !packing || f.D != nil || (s.Algorithm != Averaged && s.Algorithm != Plain) || !st.packedBinary(s.SampleWeight) || s.epochs < packMinEpochs {
		return f.checkRows(check)
	}
	sh := kern.P32Shift(X.Cols)
	if sh > 31 || X.Rows == 0 {
		return f.checkRows(check)
	}
	nnz := X.Indptr[X.Rows]
	if budget.Check(s.MemoryBudget, 4*nnz, "packed rows") != nil {
		return f.checkRows(check)
	}
	p, free := hugeAlloc(int(nnz))
	if p == nil {
		p, free = make([]uint32, nnz), func() {}
	}
	if check {
		if !packChecked(p, X, f.rowCols, sh) {
			// A bad row, or a value that does not pack: Validate tells
			// which, and the passes read X.
			free()
			return f.checkRows(check)
		}
	} else if !kern.PackP32(p, X.Ind[:nnz], X.Val[:nnz], sh) {
		free()
		return nil
	}
	f.p32, f.p32Shift, f.freeP32 = p, sh, free
	return nil
}

// releaseRows gives back the packed rows' memory, if any, once no pass
// will read them again.
func (f *fitter) releaseRows() {
	if f.freeP32 != nil {
		f.p32 = nil
		f.freeP32()
		f.freeP32 = nil
	}
}

// packMinEpochs is the fewest epochs for which packRows packs: packing
// costs about what two epochs save on rows of term counts (it reads the
// matrix once and writes half its size to fresh memory), so a fit of
// fewer epochs is faster on the rows as they are.
const packMinEpochs = 3

// checkRows validates the rows of X where check says that Fit has not,
// against the columns they came with (a warm start may have widened X).
func (f *fitter) checkRows(check bool) error {
	if !check {
		return nil
	}
	return checkDataCols(f.X, f.rowCols)
}

// checkDataCols is checkData of X's rows with their indices below cols
// (X's columns before a warm start widened them).
func checkDataCols(X *sparse.CSR, cols int) error {
	Y := *X
	Y.Cols = cols
	return checkData(&Y)
}

// packChecked packs the rows of X into p with sh index bits (as
// kern.PackP32 does) and checks them as Validate does, in one pass: each
// row's indices strictly increasing from 0 or more to below cols, and its
// values finite, which every value that packs is (a non-negative
// integer). It reports whether every row was valid and packed; if not, a
// row is bad or a value does not pack, and p must not be used. The rows
// go in blocks of about packBlock values, each checked and then packed
// while it is in cache, on the goroutines of parallelNNZ. X's shape must
// be valid (ValidateShape).
func packChecked(p []uint32, X *sparse.CSR, cols int, sh uint) bool {
	var failed atomic.Bool
	parallelNNZ(X, func(lo, hi int) {
		ind, val, ptr := X.Ind, X.Val, X.Indptr
		for r := lo; r < hi && !failed.Load(); {
			// A block of rows: at least one, up to about packBlock values.
			r1 := r + 1
			for r1 < hi && ptr[r1+1]-ptr[r] <= packBlock {
				r1++
			}
			for i := r; i < r1; i++ {
				if a, b := ptr[i], ptr[i+1]; a < b && !rowIndicesOK(ind[a:b], cols) {
					failed.Store(true)
					return
				}
			}
			a, b := ptr[r], ptr[r1]
			if !kern.PackP32(p[a:b], ind[a:b], val[a:b], sh) {
				failed.Store(true)
				return
			}
			r = r1
		}
	})
	return !failed.Load()
}

// parallelNNZ runs f over rows [0, X.Rows) in contiguous parts of about
// equal numbers of values, on goroutines when there is more than one part
// (see par.ByNNZ, whose split Validate uses too).
func parallelNNZ(X *sparse.CSR, f func(lo, hi int)) { par.ByNNZ(X.Indptr[:X.Rows+1], f) }

// packBlock is the number of values packChecked checks and packs at a
// time: 64 KiB of indices and as much of values, which stay in L2
// between the check and the packing.
const packBlock = 16 << 10

// rowIndicesOK reports whether the indices of a row with at least one are
// strictly increasing, the first 0 or more and the last below cols:
// Validate's test of a row's indices.
func rowIndicesOK(ind []int32, cols int) bool {
	return ind[0] >= 0 && int64(ind[len(ind)-1]) < int64(cols) && asm.IncreasingI32(ind)
}

// p32Passes counts the passes over packed rows, for tests.
var p32Passes atomic.Int64

// packing turns packRows on. (A variable so that tests can compare the
// packed passes with the unpacked ones.)
var packing = true
