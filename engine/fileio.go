package engine

// Reading a model file of either kind, linear or kernel, told apart by
// its magic, and reading a linear model for a subset of its features.

import (
	"fmt"
	"io"

	"github.com/hyperplane-ml/hyperplane/engine/internal/modelfile"
)

// decodeClassifier reads one model of either kind, told apart by its
// magic.
func decodeClassifier(d *modelfile.Decoder) (Classifier, error) {
	b, err := d.Magic()
	if err != nil {
		return nil, err
	}
	switch string(b) {
	case modelfile.LinearMagic:
		return decodeLinearAfterMagic(d)
	case modelfile.KernelMagic:
		if d.Subset() {
			return nil, ErrNoSubset
		}
		return decodeKernelAfterMagic(d)
	}
	return nil, modelErr("not a hyperplane model file (magic %q; want %q or %q)", b, modelfile.LinearMagic, modelfile.KernelMagic)
}

// LoadClassifier reads the model file at path, linear (written by
// Model.Save) or kernel (written by KernelModel.Save), telling them apart
// by their magic: it returns a *Model or a *KernelModel. Errors in the
// file, an unknown magic included, wrap ErrFormat and begin with the
// path.
func LoadClassifier(path string) (Classifier, error) {
	return modelfile.Load(path, decodeClassifier)
}

// ReadClassifier reads one model written by Model.WriteTo or
// KernelModel.WriteTo from r, telling them apart by their magic, and
// returns a *Model or a *KernelModel; it reads no more than the model, as
// ReadModel and ReadKernelModel do. Errors in the data wrap ErrFormat.
func ReadClassifier(r io.Reader) (Classifier, error) {
	return decodeClassifier(modelfile.NewDecoder(r))
}

// ReadClassifierFeatures is ReadClassifier for a linear model of which
// only the features keep (increasing) are wanted: it returns a *Model
// whose feature i is the model's feature keep[i], and whose Dim is the
// number of keep below the model's Dim (those past it weigh zero in the
// model, as they do past the result's). For a row whose features all lie
// in keep, the result, given the row renumbered the same way, gives the
// same scores to the bit, for it keeps the model's layout (its weights
// dense or its Cols) and sums the same products in the same order. It
// reads the whole model, checksum included, but allocates weights only
// for keep. A kernel or voted model, whose scores involve every feature,
// and a compact model (with Cols) that holds none of keep give
// ErrNoSubset.
func ReadClassifierFeatures(r io.Reader, keep []int32) (*Model, error) {
	keep, err := checkKeep(keep)
	if err != nil {
		return nil, err
	}
	c, err := decodeClassifier(modelfile.NewSubsetDecoder(r, keep))
	if err != nil {
		return nil, err
	}
	return c.(*Model), nil
}

// ReadClassifierFeaturesAt is ReadClassifierFeatures for a linear model
// file of size bytes that r holds, read through ReadAt: it returns the
// same model, but reads only what that model needs: the header, classes,
// biases and Cols, the bitmap of weights stored sparse and its count, and
// the values of the kept weight rows, those of adjacent rows in one
// ReadAt. It reads neither the values of the other rows nor the checksum,
// and so it does not verify the checksum, which covers bytes it does not
// read: it is for callers that verify what r returns themselves, as a
// text model file's page checksums do. What it reads it checks as
// ReadClassifierFeatures does, and it checks that the file's layout
// accounts for size: a file whose weights and checksum do not end at
// size, and a read that r cannot satisfy within size, give an error
// wrapping ErrFormat. A kernel or voted model, and a compact model (with
// Cols) that holds none of keep, give ErrNoSubset; keep not increasing
// and non-negative gives ErrDim.
func ReadClassifierFeaturesAt(r io.ReaderAt, size int64, keep []int32) (*Model, error) {
	keep, err := checkKeep(keep)
	if err != nil {
		return nil, err
	}
	if size < 0 {
		return nil, modelErr("size %d is negative", size)
	}
	c, err := decodeClassifier(modelfile.NewSubsetDecoderAt(r, size, keep))
	if err != nil {
		return nil, err
	}
	return c.(*Model), nil
}

// checkKeep checks that keep, the features ReadClassifierFeatures is to
// keep, are increasing and non-negative, and returns them, not nil.
func checkKeep(keep []int32) ([]int32, error) {
	if keep == nil {
		keep = []int32{}
	}
	for i, j := range keep {
		if j < 0 || i > 0 && j <= keep[i-1] {
			return nil, fmt.Errorf("%w: the features to keep are not increasing and non-negative at %d", ErrDim, i)
		}
	}
	return keep, nil
}
