package engine

// Multi-label model files, whose layout package modelfile holds
// (multilabel.go there).

import "github.com/hyperplane-ml/hyperplane/engine/internal/modelfile"

// MarshalBinary encodes m in the multi-label model's binary form,
// version 2: its counts, the weights that are not 0, the biases,
// thresholds and Platt scaling, and a CRC-32C checksum.
func (m *MultiLabelModel) MarshalBinary() ([]byte, error) {
	return modelfile.MarshalMultiLabel(&modelfile.MultiLabel{
		Classes: m.classes, Dim: m.dim, W: m.w, Split: m.split, Bias: m.bias, Thresholds: m.thresholds,
		PlattA: m.plattA, PlattB: m.plattB,
	}), nil
}

// UnmarshalMultiLabel decodes a model MarshalBinary encoded. A buffer
// that is not one, is cut short, corrupt or of another version is an
// error wrapping ErrFormat; a model larger than the memory budget one
// wrapping ErrMemory.
func UnmarshalMultiLabel(b []byte) (*MultiLabelModel, error) {
	f, err := modelfile.UnmarshalMultiLabel(b)
	if err != nil {
		return nil, err
	}
	return &MultiLabelModel{
		classes: f.Classes, dim: f.Dim, w: f.W, bias: f.Bias, thresholds: f.Thresholds,
		plattA: f.PlattA, plattB: f.PlattB,
	}, nil
}

// Save writes m to path atomically (see sparse/atomicfile).
func (m *MultiLabelModel) Save(path string) error { return modelfile.SaveWhole(path, m.MarshalBinary) }

// LoadMultiLabel reads a model Save wrote.
func LoadMultiLabel(path string) (*MultiLabelModel, error) {
	return modelfile.LoadWhole(path, 1, "the multi-label model", UnmarshalMultiLabel)
}
