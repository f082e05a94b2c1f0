package engine

// The names the tests of the model files use for what package modelfile
// now holds, and the helpers they need from it.

import (
	"hash/crc32"

	"github.com/hyperplane-ml/hyperplane/engine/internal/modelfile"
	"github.com/hyperplane-ml/hyperplane/kernels"
)

const (
	modelMagic       = modelfile.LinearMagic
	kmodelMagic      = modelfile.KernelMagic
	modelHeaderSize  = modelfile.LinearHeaderSize
	kmodelHeaderSize = modelfile.KernelHeaderSize
	modelStepSize    = modelfile.StepSize
	modelFlagSparse  = modelfile.LinearSparse
	modelChunk       = modelfile.Chunk
	mixFlagState     = modelfile.MixState
	mixFlagSeen      = modelfile.MixSeen
)

var (
	castagnoli   = crc32.MakeTable(crc32.Castagnoli)
	mlMagic      = [4]byte{'H', 'P', 'M', 'L'}
	modelNonzero = modelfile.Nonzero
	modelOnes    = modelfile.Ones
)

// mixFile is a Mix's file sections.
type mixFile struct{ m *Mix }

func (f mixFile) size() int64 { return f.m.plain().Size() }

// linearFile is a linear model's file sections with W and W0 in the
// sparse encoding when sparse is set, which take wb bytes so.
type linearFile struct {
	m      *Model
	sparse bool
	wb     int64
}

// marshalSections returns the encoding of f.
func marshalSections(f linearFile) []byte {
	p := f.m.plain()
	p.Sparse, p.WeightBytes = f.sparse, f.wb
	b, err := modelfile.Marshal(func() (*modelfile.Linear, error) { return p, nil })
	if err != nil {
		panic(err)
	}
	return b
}

// weightBytes returns the bytes that W and W0 (when m has start weights)
// take together in the dense and in the sparse encoding.
func (m *Model) weightBytes() (dense, sparse int64) {
	var w0 []float32
	if m.Votes != nil {
		w0 = m.Votes.W0
	}
	return modelfile.WeightBytes(m.W, w0)
}

// encodedSize returns the length of m's binary encoding as the writer
// chooses it; m must pass checkEncodable.
func (m *Model) encodedSize() int64 {
	f := m.plain()
	f.ChooseWeights()
	return f.Size()
}

// encodedSize returns the length of m's binary encoding; m must pass
// checkFile.
func (m *KernelModel) encodedSize() int64 { return m.plain(modelfile.KernelParams{}).Size() }

// kmodelEffective returns k with its parameters explicit, as a file
// stores them: RBF{Gamma: 0} becomes RBF{Gamma: 1}, Poly{} becomes
// Poly{Degree: 3, Gamma: 1}.
func kmodelEffective(k kernels.Kernel) (kernels.Kernel, error) {
	p, err := kmodelKernelOf(k)
	if err != nil {
		return nil, err
	}
	return p.Kernel()
}
