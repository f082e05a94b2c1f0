package engine

import "github.com/hyperplane-ml/hyperplane/sparse"

// Classifier is what the command line needs of a model of either kind:
// *Model and *KernelModel both satisfy it.
type Classifier interface {
	Predict(sparse.Vector) float64
	Decision(sparse.Vector) float32
	PredictBatch(*sparse.CSR, []float64) []float64
	DecisionBatch(*sparse.CSR, []float32) []float32
	Binary() bool
}

var (
	_ Classifier = (*Model)(nil)
	_ Classifier = (*KernelModel)(nil)
)
