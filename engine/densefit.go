package engine

import (
	"context"
	"fmt"
	"sync"

	"github.com/hyperplane-ml/hyperplane/asm"
	"github.com/hyperplane-ml/hyperplane/dense"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// FitDense is Fit for dense rows: row i of X, with label y[i]. It trains
// the learner that cfg names as Fit trains it on a sparse.CSR holding
// every value of X (zeros included), through the same epochs, steps and
// averaging, with the same options, except that the batch perceptron is
// Fit's only (ErrConfig here). A binary learner's dot products run on the
// dense kernel (asm.DotF32), which sums in another order than a sparse
// row's, so its model can differ from that CSR's in the last bits of the
// scores; a multiclass learner's is the CSR's bit for bit.
//
// X must have Cols ≤ Stride and Data holding every row; a NaN or infinite
// value is ErrDiverged (as in Fit), a bad shape ErrDim. The model's Dim is
// X.Cols; Model.PredictDense and Model.PredictDenseBatch score dense rows
// with it.
func FitDense(ctx context.Context, X *dense.Matrix[float32], y []float64, cfg Config) (*Model, []EpochStats, error) {
	s, err := cfg.settle()
	if err == nil {
		err = s.fitOnly("FitDense")
	}
	if err != nil {
		return nil, nil, err
	}
	if X == nil || X.Rows == 0 {
		return nil, nil, ErrNoData
	}
	if err := checkDense(X); err != nil {
		return nil, nil, err
	}
	if len(y) != X.Rows {
		return nil, nil, fmt.Errorf("%w: %d labels for %d rows", ErrLabels, len(y), X.Rows)
	}
	if s.Algorithm == Batch {
		return nil, nil, fmt.Errorf("%w: the batch perceptron trains on a sparse.CSR (Fit), not on dense rows", ErrConfig)
	}
	return fit(ctx, nil, X, y, s, true)
}

// checkDense checks X's shape against its storage and that its values
// are finite, as checkData does for a sparse matrix.
func checkDense(X *dense.Matrix[float32]) error {
	switch {
	case X.Rows < 0 || X.Cols < 0 || X.Stride < X.Cols:
		return fmt.Errorf("%w: dense matrix of %d×%d with stride %d", ErrDim, X.Rows, X.Cols, X.Stride)
	case X.Cols > maxWeights:
		return fmt.Errorf("%w: %d columns", ErrDim, X.Cols)
	case X.Rows > 0 && X.Stride > 0 && X.Rows-1 > (len(X.Data)-X.Cols)/X.Stride,
		X.Rows > 0 && len(X.Data) < X.Cols:
		return fmt.Errorf("%w: dense matrix of %d×%d with stride %d needs more than its %d values", ErrDim, X.Rows, X.Cols, X.Stride, len(X.Data))
	case X.Rows > 1<<31-1:
		return fmt.Errorf("%w: %d rows", ErrDim, X.Rows)
	}
	// On all cores, as Fit checks a sparse matrix; the first bad row
	// found in each block is kept, and the lowest reported.
	var mu sync.Mutex
	badRow, badCol := X.Rows, 0
	parallelRows(X.Rows, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row := X.Row(i)
			if s := asm.SumSqF32(row); s-s == 0 {
				continue // every value finite (or huge ones: look closer)
			}
			for j, v := range row {
				if v-v != 0 {
					mu.Lock()
					if i < badRow {
						badRow, badCol = i, j
					}
					mu.Unlock()
					return
				}
			}
		}
	})
	if badRow < X.Rows {
		return fmt.Errorf("%w: %w: row %d, column %d: value %v", ErrDiverged, sparse.ErrValue, badRow, badCol, X.Row(badRow)[badCol])
	}
	return nil
}

// denseIndices returns 0, 1, …, n−1: the indices of a dense row of n values seen
// as a sparse one.
func denseIndices(n int) []int32 {
	ind := make([]int32, n)
	for j := range ind {
		ind[j] = int32(j)
	}
	return ind
}

// denseScales returns 1/‖x‖ of every row of D, as rowScales does for a
// sparse matrix.
func denseScales(D *dense.Matrix[float32]) []float32 {
	sc := make([]float32, D.Rows)
	parallelRows(D.Rows, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			sc[i] = invNorm(D.Row(i))
		}
	})
	return sc
}

// nnz is the number of values the rows hold (all of them for dense rows),
// which decides the shuffle's kind.
func (f *fitter) nnz() int64 {
	if f.D != nil {
		return int64(f.D.Rows) * int64(f.D.Cols)
	}
	return f.X.NNZ()
}

// row returns training row i as a sparse vector (a dense one with the
// indices f.all), for the measures taken between epochs.
func (f *fitter) row(i int32) sparse.Vector {
	if f.D != nil {
		return sparse.Vector{Ind: f.all, Val: f.D.Row(int(i))}
	}
	return f.X.Row(int(i))
}

// denseKernels makes a binary learner on dense rows take its dot product
// with the dense kernel. (A variable so that tests can turn it off and
// compare the dense fit with the sparse one bit for bit: off, stepDense
// takes the sparse step's product over the indices 0…n−1, and its
// updates, whose dense kernels give the sparse ones' bits, still run.)
var denseKernels = true

// densePrefetchAhead is how many rows ahead of the one being learned a
// pass over dense rows prefetches, whole: a dense row spans many cache
// lines (16 for 256 float32 values), and prefetching 6 rows ahead, as for
// sparse rows, asks for more lines at once than a core tracks: shuffled
// epochs of 256-wide rows were clearly slower that way than with 2 or 3.
const densePrefetchAhead = 2

// stepDense is step for a binary learner on a dense row x of the
// learner's width (ind is 0 to len(x)−1): the dot product runs on the
// dense kernel, and the judgement is step's, so that the rules, the
// averaging and the vote log are the same; if the row is learned, the
// update runs over the row in order (updateDense).
func (st *state) stepDense(ind []int32, x []float32, sc float32, cls int, weight float32, svRow int) outcome {
	if st.cw != nil {
		weight *= st.cw[cls]
	}
	var dot float32
	if denseKernels {
		dot = asm.DotF32(x, st.w)
	} else {
		dot = asm.DotIndF32(x, ind, st.w)
	}
	if st.s.Normalize {
		dot *= sc
	}
	o, a := st.judge(dot, x, sc, cls, weight, svRow)
	if o.update {
		st.updateDense(ind, x, a, st.rowStep(a, sc), svRow)
	}
	st.tick()
	return o
}

// updateDense is update1 for a dense row x of the learner's width, with
// the same bits: the plain learner's weights move by the dense kernel
// asm.AxpyF32, which multiplies and adds every value as asm.AxpyIndF32
// does (TestDenseUpdateBits); the averaged learner's weights and
// accumulators by asm.AxpyAvgDenseF32, which gives asm.AxpyAvgF32's bits
// over the indices 0…n−1 in vectors rather than one value at a time.
func (st *state) updateDense(ind []int32, x []float32, a, ax float32, svRow int) {
	st.b[0] += a * st.bb
	if st.u != nil {
		asm.AxpyAvgDenseF32(ax, st.clock()*float64(ax), x, st.w, st.u)
		st.ub[0] += st.clock() * float64(a) * float64(st.bb)
	} else {
		asm.AxpyF32(ax, x, st.w)
	}
	st.logVote(ind, x, svRow, 0, -1, a)
}

// DecisionDenseBatch writes DecisionDense of every row of X into dst
// (grown if needed) and returns it, on GOMAXPROCS goroutines. As for
// DecisionDense, X may be narrower or wider than Dim.
func (m *Model) DecisionDenseBatch(X *dense.Matrix[float32], dst []float32) []float32 {
	return denseRowsOf(X, dst, m.DecisionDense)
}

// PredictDenseBatch writes PredictDense of every row of X into dst (grown
// if needed) and returns it, on GOMAXPROCS goroutines.
func (m *Model) PredictDenseBatch(X *dense.Matrix[float32], dst []float64) []float64 {
	return denseRowsOf(X, dst, m.PredictDense)
}

// denseRowsOf writes f of every row of X into dst (grown if needed) and
// returns it, on GOMAXPROCS goroutines.
func denseRowsOf[T any](X *dense.Matrix[float32], dst []T, f func([]float32) T) []T {
	if cap(dst) < X.Rows {
		dst = make([]T, X.Rows)
	}
	dst = dst[:X.Rows]
	parallelRows(X.Rows, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			dst[i] = f(X.Row(i))
		}
	})
	return dst
}
