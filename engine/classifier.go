package engine

import (
	"io"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

// Classifier is what a trained model of either kind offers: *Model and
// *KernelModel both satisfy it, and LoadClassifier and ReadClassifier
// return one of them. A caller that needs the model's own fields (a
// linear model's weights, a kernel model's support vectors) asserts the
// concrete type; everything else goes through the interface.
//
// The methods have no error to return, so a row that breaks their
// preconditions panics with a message naming the method and the
// precondition: a sparse.Vector whose Ind and Val differ in length, or a
// matrix that is nil or whose row pointers do not fit its Ind and Val
// (sparse.CSR.ValidateShape).
type Classifier interface {
	// Predict returns the label of x, one of ClassValues.
	Predict(x sparse.Vector) float64
	// Decision returns the score of x: a binary model's one score (> 0
	// means the second class), a multiclass model's highest class score.
	Decision(x sparse.Vector) float32
	// Scores writes into dst (grown if needed) and returns the NumRows
	// scores of x: one for a binary model, one per class otherwise (vote
	// shares for a voted model).
	Scores(x sparse.Vector, dst []float32) []float32
	// PredictDense and DecisionDense are Predict and Decision for a dense
	// row, which may be shorter or longer than NumFeatures.
	PredictDense(x []float32) float64
	DecisionDense(x []float32) float32

	// PredictBatch, DecisionBatch and ScoresBatch do the same for every
	// row of X on all cores, writing into dst (grown if needed): one
	// value a row, or NumRows values a row for ScoresBatch.
	PredictBatch(X *sparse.CSR, dst []float64) []float64
	DecisionBatch(X *sparse.CSR, dst []float32) []float32
	ScoresBatch(X *sparse.CSR, dst []float32) []float32

	// ClassValues returns a copy of the labels, ascending; Binary reports
	// whether there are two; NumRows is the number of scores a row gets
	// (1 for a binary model, else the number of classes).
	ClassValues() []float64
	Binary() bool
	NumRows() int
	// NumFeatures returns the width of the rows the model was trained on.
	NumFeatures() int

	// Check reports whether the model is consistent (ErrFormat if not).
	Check() error
	// WriteTo writes the model in its binary file format, which
	// ReadClassifier reads back; Save writes it to a file, atomically,
	// which LoadClassifier reads back.
	io.WriterTo
	Save(path string) error
}

var (
	_ Classifier = (*Model)(nil)
	_ Classifier = (*KernelModel)(nil)
)
