package hpc

import (
	"github.com/hyperplane-ml/hyperplane/sparse/internal/sparsetest"
)

// diffDatasets describes the first difference between two data sets, bit
// for bit, or returns "".
var diffDatasets = sparsetest.Diff
