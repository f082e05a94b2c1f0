// Package engine holds hyperplane's learners: the perceptron family on
// sparse or dense rows and the kernel (dual) perceptron.
//
// # Linear perceptrons
//
// Fit trains on a sparse.CSR matrix with a Config whose zero value is the
// averaged perceptron, 10 epochs, shuffled with seed 0. Algorithms: Averaged
// (exact lazy averaging), Plain (Rosenblatt), Voted (Freund & Schapire) and
// Batch (full gradient of the perceptron risk). Two labels give a binary
// model, more a multiclass one (a weight vector per class, argmax).
// Config.Workers trains on several cores by iterative parameter mixing;
// Mix carries a learner's state between epochs out of the process (Merge
// mixes shard states with the same arithmetic, Delta keeps the features a
// shard changed, WriteTo and ReadMix move it), and Config.Warm or
// NewLearnerFrom start training from one.
// FitDense trains the same learners (but Batch) on dense rows, a
// dense.Matrix[float32] (dense.Convert brings a gonum matrix to one), with
// the same steps and averaging as a CSR of the same values, the binary
// learners' dot products on the dense SIMD kernel; Model.PredictDense and
// PredictDenseBatch score dense rows. FitCache trains out of core from a
// sparse cache file, a window of blocks at a time; Learner learns one
// example at a time or from a stream. Every method runs its epochs
// through one driver, so they stop, report (OnEpoch) and count alike.
//
// A Model predicts without allocating and is safe for concurrent use; it
// saves to a versioned, checksummed file (Save, written atomically), reads
// back bit for bit (Load, ReadModel), and exports to JSON. Margins reports
// the functional and geometric margin, the radius R and the mistake bound
// (R/γ)² of a model on a data set.
//
// # Kernel perceptron
//
// FitKernel trains the dual perceptron with a kernel from package kernels
// (linear, polynomial, RBF, sigmoid or user-defined) over a Gram matrix
// that is computed whole or row by row into a bounded cache. A KernelModel
// keeps the support vectors and their coefficients; LoadClassifier reads a
// model file of either kind.
//
// # Errors
//
// Errors wrap one of the sentinels (ErrNoData, ErrLabels, ErrUnknownLabel,
// ErrConfig, ErrDim, ErrDiverged, ErrFormat, ErrMemory), to be tested with
// errors.Is; errors from outside (cancellation, an OnEpoch callback, I/O)
// are passed on as they come.
// A weight that becomes NaN or infinite stops training with ErrDiverged
// rather than going on silently.
package engine
