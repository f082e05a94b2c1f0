package engine

// Kernel model files: a KernelModel in the kernel model's file format and
// JSON export, whose layout package modelfile holds (kernel.go, json.go
// there). This file converts a KernelModel to and from the plain form
// that package encodes, and checks what the numbers of a file mean. Only
// the four built-in kernels can be stored; a model with a user-defined
// kernel fails to encode with ErrConfig.

import (
	"fmt"
	"io"

	"github.com/hyperplane-ml/hyperplane/engine/internal/modelfile"
	"github.com/hyperplane-ml/hyperplane/kernels"
)

// kmodelKernelOf returns the stored form of k, which must pass
// kernels.Check; a kernel other than the four built-in types fails with
// ErrConfig.
func kmodelKernelOf(k kernels.Kernel) (modelfile.KernelParams, error) {
	if p, ok := modelfile.ParamsOf(k); ok {
		return p, nil
	}
	switch k.(type) {
	case *kernels.Linear, *kernels.Poly, *kernels.RBF, *kernels.Sigmoid:
		return modelfile.KernelParams{}, fmt.Errorf("%w: kernel %T cannot be saved: model files hold the built-in kernels by value (use %s, not a pointer to it)", ErrConfig, k, fmt.Sprintf("%T", k)[1:])
	}
	return modelfile.KernelParams{}, fmt.Errorf("%w: user-defined kernel %T cannot be saved: model files hold only the built-in linear, poly, rbf and sigmoid kernels", ErrConfig, k)
}

// checkFile verifies m with Check and the rules of the file format, and
// returns the stored form of its kernel. A user-defined kernel gives
// ErrConfig, a model beyond the format's limits ErrDim, anything else
// ErrFormat.
func (m *KernelModel) checkFile() (modelfile.KernelParams, error) {
	if err := m.Check(); err != nil {
		return modelfile.KernelParams{}, err
	}
	p, err := kmodelKernelOf(m.Kernel)
	if err != nil {
		return modelfile.KernelParams{}, err
	}
	if m.Dim > modelfile.MaxDim || len(m.Classes) > modelfile.MaxDim || m.SV.Rows > modelfile.MaxDim {
		return modelfile.KernelParams{}, fmt.Errorf("%w: dim %d, %d classes or %d support vectors beyond the model file's limit %d",
			ErrDim, m.Dim, len(m.Classes), m.SV.Rows, modelfile.MaxDim)
	}
	return p, nil
}

// plain returns m as its file holds it with its kernel stored as p,
// sharing m's arrays.
func (m *KernelModel) plain(p modelfile.KernelParams) *modelfile.Kernel {
	return &modelfile.Kernel{
		Params: p, Algorithm: uint8(m.Algorithm), Bias: uint8(m.Bias), Rule: uint8(m.Rule),
		BiasScale: m.BiasScale, Classes: m.Classes, Dim: m.Dim, SV: m.SV, Coef: m.Coef, B: m.B,
		Votes: plainVotes(m.Votes),
	}
}

// kernelModelOf returns the model f holds, with the kernel k, sharing
// f's arrays.
func kernelModelOf(f *modelfile.Kernel, k kernels.Kernel) *KernelModel {
	return &KernelModel{
		Kernel: k, Algorithm: Algorithm(f.Algorithm), Bias: BiasMode(f.Bias), Rule: Rule(f.Rule),
		BiasScale: f.BiasScale, Classes: f.Classes, Dim: f.Dim, SV: f.SV, Coef: f.Coef, B: f.B,
		Votes: votesOf(f.Votes),
	}
}

// file checks m and returns its file sections.
func (m *KernelModel) file() (*modelfile.Kernel, error) {
	p, err := m.checkFile()
	if err != nil {
		return nil, err
	}
	return m.plain(p), nil
}

// MarshalBinary encodes m in the binary kernel model format (see
// WriteTo). It fails, without encoding anything, when m does not pass
// Check or the format's rules (ErrFormat), exceeds its limits (ErrDim), or
// has a kernel other than the four built-in ones (ErrConfig).
func (m *KernelModel) MarshalBinary() ([]byte, error) { return modelfile.Marshal(m.file) }

// WriteTo writes m to w in the binary kernel model format, "HPKM"
// version 1: a header with the kernel and its effective parameters, the
// classes, the support vectors in CSR form, their coefficients and the
// biases as raw little-endian bits, the voted perceptron's steps when
// there are any, and a CRC-32C checksum of it all. It writes through a
// small buffer of its own. It returns the number of bytes written; a
// model MarshalBinary refuses is refused before anything is written.
func (m *KernelModel) WriteTo(w io.Writer) (int64, error) { return modelfile.Write(w, m.file) }

// Save writes m to the file path in the binary kernel model format. The
// file is replaced atomically (see atomicfile.Write): on failure,
// including a model that cannot be encoded, an existing file at path is
// left as it was.
func (m *KernelModel) Save(path string) error { return modelfile.Save(path, m.file) }

// decodeKernel reads one kernel model and its checksum, and checks the
// model.
func decodeKernel(d *modelfile.Decoder) (*KernelModel, error) {
	if err := d.ExpectMagic(modelfile.KernelMagic, "kernel model"); err != nil {
		return nil, err
	}
	return decodeKernelAfterMagic(d)
}

// decodeKernelAfterMagic is decodeKernel past the magic: the header,
// whose algorithm, bias mode, rule and kernel it checks before the
// counts, and the rest.
func decodeKernelAfterMagic(d *modelfile.Decoder) (*KernelModel, error) {
	h, err := d.KernelHead()
	if err != nil {
		return nil, err
	}
	if err := checkKernelKinds(h); err != nil {
		return nil, err
	}
	k, err := h.Params.Kernel()
	if err != nil {
		return nil, err
	}
	if err := h.CheckShape(); err != nil {
		return nil, err
	}
	f, err := d.KernelBody(h)
	if err != nil {
		return nil, err
	}
	m := kernelModelOf(f, k)
	if _, err := m.checkFile(); err != nil {
		return nil, err
	}
	return m, nil
}

// checkKernelKinds checks the algorithm, bias mode and rule of the
// header h, and that they agree with its flags.
func checkKernelKinds(h modelfile.KernelHead) error {
	if h.Rule > byte(PA2) {
		return modelErr("unknown rule %d", h.Rule)
	}
	alg, rule := Algorithm(h.Algorithm), Rule(h.Rule)
	if alg > Voted || BiasMode(h.Bias) > NoBias {
		return modelErr("unknown algorithm %d or bias mode %d", h.Algorithm, h.Bias)
	}
	if rule != Perceptron && alg == Voted {
		return modelErr("rule %v with algorithm %v", rule, alg)
	}
	if (alg == Voted) != (h.Flags&modelfile.KernelVotes != 0) {
		return modelErr("votes present only and always for the voted algorithm")
	}
	return nil
}

// setDecoded replaces m's contents with those of dm, leaving m's prediction
// state fresh (a zero sync.Once and no prepared data) rather than copying
// any.
func (m *KernelModel) setDecoded(dm *KernelModel) {
	*m = KernelModel{
		Kernel:    dm.Kernel,
		Algorithm: dm.Algorithm,
		Rule:      dm.Rule,
		Bias:      dm.Bias,
		BiasScale: dm.BiasScale,
		Classes:   dm.Classes,
		Dim:       dm.Dim,
		SV:        dm.SV,
		Coef:      dm.Coef,
		B:         dm.B,
		Votes:     dm.Votes,
	}
}

// UnmarshalBinary decodes a kernel model encoded by MarshalBinary or
// WriteTo into m, replacing its contents; data must hold the one model
// and nothing after it. On failure m is left as it was and the error,
// which wraps ErrFormat, says what is wrong: not a kernel model file, a
// version newer than this build reads, truncation, a checksum mismatch,
// bad kernel parameters (which wrap kernels.ErrKernel as well), or a
// model that fails Check. m's prepared
// prediction state is reset, so m must not be in use by other goroutines.
func (m *KernelModel) UnmarshalBinary(data []byte) error {
	return modelfile.Unmarshal(data, decodeKernel, m.setDecoded)
}

// ReadKernelModel is ReadModel for a kernel model: it reads one written
// by KernelModel.WriteTo (or MarshalBinary) from r, and no more, reading
// and allocating as ReadModel does. Errors in the data wrap ErrFormat
// (see KernelModel.UnmarshalBinary).
func ReadKernelModel(r io.Reader) (*KernelModel, error) {
	return decodeKernel(modelfile.NewDecoder(r))
}

// LoadKernel reads the kernel model file at path, written by Save. Errors
// in the file wrap ErrFormat and begin with the path.
func LoadKernel(path string) (*KernelModel, error) {
	return modelfile.Load(path, decodeKernel)
}

// MarshalJSON exports m as a readable JSON object: "format"
// ("hyperplane-kernel-model"), "version" (1), "kernel" (its String form
// with every parameter explicit, as kernels.Parse reads it, e.g.
// "rbf:gamma=0.5"), "algorithm", "bias_mode", "bias_scale", "classes",
// "dim", "bias" (one per function), "support_vectors" (one object per
// support vector, in order: "ind" and "val", the indices and values of
// its nonzero entries as parallel arrays, and "coef", its K
// coefficients) and, for a voted model, "votes" with "count0" and the
// "steps" (whose "row" numbers a support vector). Floats are written with
// the fewest digits that read back to the same value, so UnmarshalJSON
// restores m exactly. JSON has no NaN or infinity: a model holding one (a
// non-finite bias scale or vote step) fails with ErrFormat; a user-defined
// kernel fails with ErrConfig.
func (m *KernelModel) MarshalJSON() ([]byte, error) {
	p, err := m.checkFile()
	if err != nil {
		return nil, err
	}
	n := modelfile.Names{Algorithm: m.Algorithm.String(), Bias: m.Bias.String()}
	if m.Rule != Perceptron {
		// Perceptron models leave the field out, as before it existed.
		n.Rule = m.Rule.String()
	}
	return modelfile.MarshalKernelJSON(m.plain(p), n)
}

// UnmarshalJSON reads a kernel model exported by MarshalJSON into m,
// replacing its contents; the kernel's parameters become explicit, as
// from a binary file. On failure m is left as it was and the error wraps
// ErrFormat. As encoding/json expects of an Unmarshaler, JSON null leaves
// m as it is and is no error. Like UnmarshalBinary it resets m's prepared
// prediction state.
func (m *KernelModel) UnmarshalJSON(data []byte) error {
	j, null, err := modelfile.ReadKernelJSON(data)
	if null || err != nil {
		return err
	}
	k, p, err := j.ParseKernel()
	if err != nil {
		return err
	}
	alg, bias, rule, err := jsonEnums(j.Algorithm, j.BiasMode, j.Rule, PA2)
	if err != nil {
		return err
	}
	f, err := j.Model(p)
	if err != nil {
		return err
	}
	dm := kernelModelOf(f, k)
	dm.Algorithm, dm.Bias, dm.Rule = alg, bias, rule
	if _, err := dm.checkFile(); err != nil {
		return err
	}
	m.setDecoded(dm)
	return nil
}
