package engine

// Kernel model files.
//
// A KernelModel is stored in its own binary format, "HPKM" version 1, in
// the same container as the linear model (fileio.go describes it, and how
// the support vectors and the steps are encoded): little-endian
// throughout, floats as their raw bits, a CRC-32C at the end.
//
//	offset  size        field
//	0       4           magic "HPKM"
//	4       2           format version (uint16, 1)
//	6       2           flags (uint16): bit 0 votes section present;
//	                    others 0
//	8       1           algorithm (uint8): 0 averaged, 1 plain, 2 voted
//	9       1           bias mode (uint8)
//	10      1           kernel kind (uint8): 0 linear, 1 poly, 2 rbf,
//	                    3 sigmoid
//	11      1           update rule (uint8): 0 perceptron (every file
//	                    written before the rule was recorded), 1 PA,
//	                    2 PA-I, 3 PA-II
//	12      4           bias scale (float32 bits)
//	16      8           kernel degree (float64 bits; poly only, else 0)
//	24      8           kernel gamma (float64 bits; 0 for linear)
//	32      8           kernel coef0 (float64 bits; poly and sigmoid
//	                    only, else 0)
//	40      4           number of classes C (uint32)
//	44      4           number of functions K (uint32; 1 if C = 2, else C)
//	48      8           dim (uint64)
//	56      8·C         classes (float64 bits)
//	        8, 8, 8     SV rows N, cols (= dim), nnz (uint64)
//	        8·(N+1)     SV Indptr (int64)
//	        4·nnz       SV Ind (int32)
//	        4·nnz       SV Val (float32 bits)
//	        4·N·K       Coef, row-major as KernelModel.Coef (float32 bits)
//	        4·K         biases B (float32 bits)
//	votes section, when flag bit 0 is set:
//	        8           Count0 (int64)
//	        8           number of steps S (uint64)
//	        24·S        steps: Row, Up, Down (int32), A (float32 bits),
//	                    Count (int64)
//	        4           CRC-32C (Castagnoli) of every byte before it
//
// The kernel's parameters are stored as the values the kernel computes
// with, not as the struct held them: an RBF Gamma of 0 (which means 1) is
// stored as 1, a Poly Degree of 0 (which means 3) as 3, and they read back
// as those explicit values. A parameter the kernel does not have is stored
// as 0, and a reader insists on it. The voted model's rows are the
// support vectors, so the votes section has no rows of its own: Votes.SV
// reads back as SV. Only the four built-in kernels can be stored; a model
// with a user-defined kernel fails to encode with ErrConfig.

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/hyperplane-ml/hyperplane/kernels"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

const (
	kmodelMagic         = "HPKM"
	kmodelFormatVersion = 1
	kmodelHeaderSize    = 56

	kmodelFlagVotes  = 1 << 0 // the votes section follows the biases
	kmodelFlagsKnown = kmodelFlagVotes

	// Kernel kinds as the header stores them.
	kmodelLinear  = 0
	kmodelPoly    = 1
	kmodelRBF     = 2
	kmodelSigmoid = 3
)

// kmodelKernel is a built-in kernel's kind and its effective parameters,
// as the file stores them.
type kmodelKernel struct {
	kind                 uint8
	degree, gamma, coef0 float64
}

var kmodelKindNames = [...]string{"linear", "poly", "rbf", "sigmoid"}

// kmodelKernelOf returns the stored form of k, which must pass
// kernels.Check; a kernel other than the four built-in types fails with
// ErrConfig.
func kmodelKernelOf(k kernels.Kernel) (kmodelKernel, error) {
	orOne := func(g float64) float64 {
		if g == 0 {
			return 1
		}
		return g
	}
	switch k := k.(type) {
	case kernels.Linear:
		return kmodelKernel{kind: kmodelLinear}, nil
	case kernels.Poly:
		d := k.Degree
		if d == 0 {
			d = 3
		}
		return kmodelKernel{kind: kmodelPoly, degree: float64(d), gamma: orOne(k.Gamma), coef0: k.Coef0}, nil
	case kernels.RBF:
		return kmodelKernel{kind: kmodelRBF, gamma: orOne(k.Gamma)}, nil
	case kernels.Sigmoid:
		return kmodelKernel{kind: kmodelSigmoid, gamma: orOne(k.Gamma), coef0: k.Coef0}, nil
	case *kernels.Linear, *kernels.Poly, *kernels.RBF, *kernels.Sigmoid:
		return kmodelKernel{}, fmt.Errorf("%w: kernel %T cannot be saved: model files hold the built-in kernels by value (use %s, not a pointer to it)", ErrConfig, k, fmt.Sprintf("%T", k)[1:])
	}
	return kmodelKernel{}, fmt.Errorf("%w: user-defined kernel %T cannot be saved: model files hold only the built-in linear, poly, rbf and sigmoid kernels", ErrConfig, k)
}

// kernel returns the kernel kk stores, with its parameters explicit, or
// an error wrapping ErrFormat if kk is not what kmodelKernelOf writes.
func (kk kmodelKernel) kernel() (kernels.Kernel, error) {
	if int(kk.kind) >= len(kmodelKindNames) {
		return nil, modelErr("unknown kernel kind %d", kk.kind)
	}
	name := kmodelKindNames[kk.kind]
	unused := func(param string, v float64) error {
		if math.Float64bits(v) != 0 {
			return modelErr("%s kernel with %s %v: a parameter it does not have must be 0", name, param, v)
		}
		return nil
	}
	gamma := func() error {
		if kk.gamma == 0 {
			// The writer stores γ = 0 as the 1 it means.
			return modelErr("%s kernel with gamma 0", name)
		}
		return nil
	}
	var k kernels.Kernel
	var err error
	switch kk.kind {
	case kmodelLinear:
		err = errors.Join(unused("degree", kk.degree), unused("gamma", kk.gamma), unused("coef0", kk.coef0))
		k = kernels.Linear{}
	case kmodelPoly:
		d := kk.degree
		if !(d >= 1 && d <= kernels.MaxDegree && d == math.Trunc(d)) {
			return nil, modelErr("poly kernel with degree %v, not a whole number in [1, %d]", d, kernels.MaxDegree)
		}
		err = gamma()
		k = kernels.Poly{Degree: int(d), Gamma: kk.gamma, Coef0: kk.coef0}
	case kmodelRBF:
		err = errors.Join(unused("degree", kk.degree), unused("coef0", kk.coef0), gamma())
		k = kernels.RBF{Gamma: kk.gamma}
	case kmodelSigmoid:
		err = errors.Join(unused("degree", kk.degree), gamma())
		k = kernels.Sigmoid{Gamma: kk.gamma, Coef0: kk.coef0}
	}
	if err != nil {
		return nil, err
	}
	if err := kernels.Check(k); err != nil {
		return nil, modelErr("%w", err)
	}
	return k, nil
}

// kmodelEffective returns k with its parameters explicit, as a file
// stores them: RBF{Gamma: 0} becomes RBF{Gamma: 1}, Poly{} becomes
// Poly{Degree: 3, Gamma: 1}.
func kmodelEffective(k kernels.Kernel) (kernels.Kernel, error) {
	kk, err := kmodelKernelOf(k)
	if err != nil {
		return nil, err
	}
	return kk.kernel()
}

// ---------------------------------------------------------------------------
// Encoding

// checkFile verifies m with Check and the rules of the file format, and
// returns the stored form of its kernel. A user-defined kernel gives
// ErrConfig, a model beyond the format's limits ErrDim, anything else
// ErrFormat.
func (m *KernelModel) checkFile() (kmodelKernel, error) {
	if err := m.Check(); err != nil {
		return kmodelKernel{}, err
	}
	kk, err := kmodelKernelOf(m.Kernel)
	if err != nil {
		return kmodelKernel{}, err
	}
	if m.Dim > modelMaxDim || len(m.Classes) > modelMaxDim || m.SV.Rows > modelMaxDim {
		return kmodelKernel{}, fmt.Errorf("%w: dim %d, %d classes or %d support vectors beyond the model file's limit %d",
			ErrDim, m.Dim, len(m.Classes), m.SV.Rows, modelMaxDim)
	}
	return kk, nil
}

// kernelFile is a kernel model's part of its file: m, which passes
// checkFile, and the stored form of its kernel.
type kernelFile struct {
	m  *KernelModel
	kk kmodelKernel
}

// file checks m and returns its file sections.
func (m *KernelModel) file() (kernelFile, error) {
	kk, err := m.checkFile()
	if err != nil {
		return kernelFile{}, err
	}
	return kernelFile{m, kk}, nil
}

// encodedSize returns the length of m's binary encoding; m must pass
// checkFile.
func (m *KernelModel) encodedSize() int64 { return kernelFile{m: m}.size() }

func (f kernelFile) size() int64 {
	m := f.m
	K, N := int64(m.NumRows()), int64(m.SV.Rows)
	n := kmodelHeaderSize + 8*int64(len(m.Classes)) + csrSize(m.SV) + 4*N*K + 4*K
	if v := m.Votes; v != nil {
		n += 8 + voteStepsSize(len(v.Steps))
	}
	return n + 4
}

func (f kernelFile) encode(e *modelEncoder) {
	m, kk := f.m, f.kk
	var flags uint16
	if m.Votes != nil {
		flags |= kmodelFlagVotes
	}
	e.header(kmodelMagic, kmodelFormatVersion, flags)
	e.buf = append(e.buf, byte(m.Algorithm), byte(m.Bias), kk.kind, byte(m.Rule))
	e.u32(math.Float32bits(m.BiasScale))
	e.f64s([]float64{kk.degree, kk.gamma, kk.coef0})
	e.u32(uint32(len(m.Classes)))
	e.u32(uint32(m.NumRows()))
	e.u64(uint64(m.Dim))
	e.f64s(m.Classes)
	e.csr(m.SV)
	e.f32s(m.Coef)
	e.f32s(m.B)
	if v := m.Votes; v != nil {
		e.u64(uint64(v.Count0))
		e.voteSteps(v.Steps)
	}
}

// MarshalBinary encodes m in the binary kernel model format (see
// WriteTo). It fails, without encoding anything, when m does not pass
// Check or the format's rules (ErrFormat), exceeds its limits (ErrDim), or
// has a kernel other than the four built-in ones (ErrConfig).
func (m *KernelModel) MarshalBinary() ([]byte, error) { return marshalFile(m.file) }

// WriteTo writes m to w in the binary kernel model format, "HPKM"
// version 1: a header with the kernel and its effective parameters, the
// classes, the support vectors in CSR form, their coefficients and the
// biases as raw little-endian bits, the voted perceptron's steps when
// there are any, and a CRC-32C checksum of it all. It writes through a
// small buffer of its own. It returns the number of bytes written; a
// model MarshalBinary refuses is refused before anything is written.
func (m *KernelModel) WriteTo(w io.Writer) (int64, error) { return writeFile(w, m.file) }

// Save writes m to the file path in the binary kernel model format. The
// file is replaced atomically (see atomicfile.Write): on failure,
// including a model that cannot be encoded, an existing file at path is
// left as it was.
func (m *KernelModel) Save(path string) error { return saveFile(path, m.file) }

// ---------------------------------------------------------------------------
// Decoding

// supportVectors names a kernel model's support vectors in error
// messages.
var supportVectors = csrNames{rows: "support vectors", indptr: "support vector row pointers", ind: "support vector indices", val: "support vector values"}

// decodeKernel reads one kernel model and its checksum, and checks the
// model.
func (d *modelDecoder) decodeKernel() (*KernelModel, error) {
	if err := d.expectMagic(kmodelMagic, "kernel model"); err != nil {
		return nil, err
	}
	return d.decodeKernelAfterMagic()
}

// decodeKernelAfterMagic is decodeKernel past the magic.
func (d *modelDecoder) decodeKernelAfterMagic() (*KernelModel, error) {
	b, flags, err := d.meteredHeader(kmodelHeaderSize, kmodelFormatVersion, kmodelFlagsKnown)
	if err != nil {
		return nil, err
	}
	if b[7] > byte(PA2) {
		return nil, modelErr("unknown rule %d", b[7])
	}
	m := &KernelModel{Algorithm: Algorithm(b[4]), Bias: BiasMode(b[5]), Rule: Rule(b[7])}
	if m.Algorithm > Voted || m.Bias > NoBias {
		return nil, modelErr("unknown algorithm %d or bias mode %d", b[4], b[5])
	}
	if m.Rule != Perceptron && m.Algorithm == Voted {
		return nil, modelErr("rule %v with algorithm %v", m.Rule, m.Algorithm)
	}
	if (m.Algorithm == Voted) != (flags&kmodelFlagVotes != 0) {
		return nil, modelErr("votes present only and always for the voted algorithm")
	}
	le := binary.LittleEndian
	m.BiasScale = math.Float32frombits(le.Uint32(b[8:]))
	kk := kmodelKernel{
		kind:   b[6],
		degree: math.Float64frombits(le.Uint64(b[12:])),
		gamma:  math.Float64frombits(le.Uint64(b[20:])),
		coef0:  math.Float64frombits(le.Uint64(b[28:])),
	}
	nc, K, dim := le.Uint32(b[36:]), le.Uint32(b[40:]), le.Uint64(b[44:])
	if m.Kernel, err = kk.kernel(); err != nil {
		return nil, err
	}
	if err := checkShape(nc, K, dim, "functions"); err != nil {
		return nil, err
	}
	m.Dim = int(dim)
	if m.Classes, err = modelReadArray[float64](d, int(nc), "classes"); err != nil {
		return nil, err
	}
	if m.SV, err = d.csr(supportVectors, dim, true); err != nil {
		return nil, err
	}
	// The rows and K are below 2³¹, so their product fits a uint64.
	nk := uint64(m.SV.Rows) * uint64(K)
	if err := d.fits(nk, 4, "coefficients"); err != nil {
		return nil, err
	}
	if m.Coef, err = modelReadArray[float32](d, int(nk), "coefficients"); err != nil {
		return nil, err
	}
	if m.B, err = modelReadArray[float32](d, int(K), "biases"); err != nil {
		return nil, err
	}
	if flags&kmodelFlagVotes != 0 {
		v := &Votes{SV: m.SV}
		if v.Count0, err = d.count0(); err != nil {
			return nil, err
		}
		if v.Steps, err = d.voteSteps(); err != nil {
			return nil, err
		}
		m.Votes = v
	}
	if err := d.checksum(); err != nil {
		return nil, err
	}
	if _, err := m.checkFile(); err != nil {
		return nil, err
	}
	return m, nil
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
	return unmarshalFile(data, (*modelDecoder).decodeKernel, m.setDecoded)
}

// ReadKernelModel is ReadModel for a kernel model: it reads one written
// by KernelModel.WriteTo (or MarshalBinary) from r, and no more, reading
// and allocating as ReadModel does. Errors in the data wrap ErrFormat
// (see KernelModel.UnmarshalBinary).
func ReadKernelModel(r io.Reader) (*KernelModel, error) {
	return readerDecoder(r).decodeKernel()
}

// LoadKernel reads the kernel model file at path, written by Save. Errors
// in the file wrap ErrFormat and begin with the path.
func LoadKernel(path string) (*KernelModel, error) {
	return loadFile(path, (*modelDecoder).decodeKernel)
}

// ---------------------------------------------------------------------------
// JSON

// kmodelJSONFormat is the "format" member of the JSON export.
const kmodelJSONFormat = "hyperplane-kernel-model"

// kmodelJSON is the JSON export of a KernelModel.
type kmodelJSON struct {
	jsonHead
	Kernel         string          `json:"kernel"`
	Algorithm      string          `json:"algorithm"`
	Rule           string          `json:"rule,omitempty"`
	BiasMode       string          `json:"bias_mode"`
	BiasScale      modelJSONF32    `json:"bias_scale"`
	Classes        []float64       `json:"classes"`
	Dim            int             `json:"dim"`
	Bias           modelJSONF32s   `json:"bias"`
	SupportVectors []kmodelJSONSV  `json:"support_vectors"`
	Votes          *kmodelJSONVote `json:"votes,omitempty"`
}

// kmodelJSONSV is one support vector: its nonzero entries as parallel
// arrays of indices and values, and its K coefficients.
type kmodelJSONSV struct {
	Ind  []int32       `json:"ind"`
	Val  modelJSONF32s `json:"val"`
	Coef modelJSONF32s `json:"coef"`
}

type kmodelJSONVote struct {
	Count0 int64           `json:"count0"`
	Steps  []modelJSONStep `json:"steps"`
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
	kk, err := m.checkFile()
	if err != nil {
		return nil, err
	}
	k, err := kk.kernel()
	if err != nil {
		return nil, err
	}
	notJSON := modelNotJSON
	if modelNonFinite([]float32{m.BiasScale}) >= 0 {
		return nil, notJSON("bias scale", 0)
	}
	K := m.NumRows()
	jm := kmodelJSON{
		jsonHead:       jsonHead{Format: kmodelJSONFormat, Version: kmodelFormatVersion},
		Kernel:         k.String(),
		Algorithm:      m.Algorithm.String(),
		BiasMode:       m.Bias.String(),
		BiasScale:      modelJSONF32(m.BiasScale),
		Classes:        m.Classes,
		Dim:            m.Dim,
		Bias:           m.B,
		SupportVectors: make([]kmodelJSONSV, m.SV.Rows),
	}
	if m.Rule != Perceptron {
		// Perceptron models leave the field out, as before it existed.
		jm.Rule = m.Rule.String()
	}
	for i := range jm.SupportVectors {
		a, b := m.SV.Indptr[i], m.SV.Indptr[i+1]
		ind := m.SV.Ind[a:b:b]
		if ind == nil {
			ind = []int32{}
		}
		jm.SupportVectors[i] = kmodelJSONSV{
			Ind:  ind,
			Val:  m.SV.Val[a:b:b],
			Coef: m.Coef[i*K : (i+1)*K],
		}
	}
	if v := m.Votes; v != nil {
		steps, err := modelJSONSteps(v.Steps)
		if err != nil {
			return nil, err
		}
		jm.Votes = &kmodelJSONVote{Count0: v.Count0, Steps: steps}
	}
	return json.Marshal(&jm)
}

// UnmarshalJSON reads a kernel model exported by MarshalJSON into m,
// replacing its contents; the kernel's parameters become explicit, as
// from a binary file. On failure m is left as it was and the error wraps
// ErrFormat. As encoding/json expects of an Unmarshaler, JSON null leaves
// m as it is and is no error. Like UnmarshalBinary it resets m's prepared
// prediction state.
func (m *KernelModel) UnmarshalJSON(data []byte) error {
	var jm kmodelJSON
	if null, err := jsonOpen(data, &jm, &jm.jsonHead, kmodelJSONFormat, "kernel model", kmodelFormatVersion); null || err != nil {
		return err
	}
	k, err := kernels.Parse(jm.Kernel)
	if err != nil {
		return modelErr("kernel %q: %w", jm.Kernel, err)
	}
	if k, err = kmodelEffective(k); err != nil {
		return err
	}
	alg, bias, rule, err := jsonEnums(jm.Algorithm, jm.BiasMode, jm.Rule, PA2)
	if err != nil {
		return err
	}
	dm := &KernelModel{
		Kernel:    k,
		Rule:      rule,
		Algorithm: alg,
		Bias:      bias,
		BiasScale: float32(jm.BiasScale),
		Classes:   jm.Classes,
		Dim:       jm.Dim,
		B:         jm.Bias,
	}
	if err := jsonShape(len(dm.Classes), dm.Dim); err != nil {
		return err
	}
	K := dm.NumRows()
	var nnz int
	for i, s := range jm.SupportVectors {
		if len(s.Ind) != len(s.Val) {
			return modelErr("support vector %d has %d indices and %d values", i, len(s.Ind), len(s.Val))
		}
		if len(s.Coef) != K {
			return modelErr("support vector %d has %d coefficients for %d functions", i, len(s.Coef), K)
		}
		nnz += len(s.Ind)
	}
	sv := &sparse.CSR{
		Rows:   len(jm.SupportVectors),
		Cols:   dm.Dim,
		Indptr: make([]int64, len(jm.SupportVectors)+1),
		Ind:    make([]int32, 0, nnz),
		Val:    make([]float32, 0, nnz),
	}
	dm.Coef = make([]float32, 0, sv.Rows*K)
	for i, s := range jm.SupportVectors {
		sv.Ind = append(sv.Ind, s.Ind...)
		sv.Val = append(sv.Val, s.Val...)
		sv.Indptr[i+1] = int64(len(sv.Ind))
		dm.Coef = append(dm.Coef, s.Coef...)
	}
	dm.SV = sv
	if jv := jm.Votes; jv != nil {
		dm.Votes = &Votes{SV: sv, Count0: jv.Count0, Steps: modelStepsFromJSON(jv.Steps)}
	}
	if _, err := dm.checkFile(); err != nil {
		return err
	}
	m.setDecoded(dm)
	return nil
}
