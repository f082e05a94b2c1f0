package engine

// Kernel model files.
//
// A KernelModel is stored in its own binary format, "HPKM" version 1,
// built like the linear model's (see modelio.go): little-endian
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
//
// Counts are checked against the format's limits and, when the reader
// knows how many bytes are left, against those before anything is
// allocated; otherwise arrays grow in bounded chunks as the data arrives.

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"

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
		return nil, modelErr("%v", err)
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

// encodedSize returns the length of m's binary encoding; m must pass
// checkFile.
func (m *KernelModel) encodedSize() int64 {
	K, N, nnz := int64(m.NumRows()), int64(m.SV.Rows), int64(len(m.SV.Ind))
	n := kmodelHeaderSize + 8*int64(len(m.Classes)) + 24 + 8*(N+1) + 8*nnz + 4*N*K + 4*K
	if v := m.Votes; v != nil {
		n += 16 + modelStepSize*int64(len(v.Steps))
	}
	return n + 4
}

// encodeKernel writes m, which must pass checkFile with kk, and the
// checksum.
func (e *modelEncoder) encodeKernel(m *KernelModel, kk kmodelKernel) {
	var flags uint16
	if m.Votes != nil {
		flags |= kmodelFlagVotes
	}
	e.buf = append(e.buf, kmodelMagic...)
	e.u16(kmodelFormatVersion)
	e.u16(flags)
	e.buf = append(e.buf, byte(m.Algorithm), byte(m.Bias), kk.kind, byte(m.Rule))
	e.u32(math.Float32bits(m.BiasScale))
	e.f64s([]float64{kk.degree, kk.gamma, kk.coef0})
	e.u32(uint32(len(m.Classes)))
	e.u32(uint32(m.NumRows()))
	e.u64(uint64(m.Dim))
	e.f64s(m.Classes)
	sv := m.SV
	e.u64(uint64(sv.Rows))
	e.u64(uint64(sv.Cols))
	e.u64(uint64(len(sv.Ind)))
	e.i64s(sv.Indptr)
	e.i32s(sv.Ind)
	e.f32s(sv.Val)
	e.f32s(m.Coef)
	e.f32s(m.B)
	if v := m.Votes; v != nil {
		e.u64(uint64(v.Count0))
		e.u64(uint64(len(v.Steps)))
		for _, s := range v.Steps {
			e.u32(uint32(s.Row))
			e.u32(uint32(s.Up))
			e.u32(uint32(s.Down))
			e.u32(math.Float32bits(s.A))
			e.u64(uint64(s.Count))
		}
	}
	e.finishKernel()
}

// finishKernel ends an encoding with the CRC-32C of what came before.
func (e *modelEncoder) finishKernel() {
	if e.w == nil {
		e.crc = crc32.Checksum(e.buf, modelCRC)
		e.u32(e.crc)
		return
	}
	e.flush()
	if e.err != nil {
		return
	}
	e.u32(e.crc)
	n, err := e.w.Write(e.buf)
	e.n += int64(n)
	e.err = err
	e.buf = e.buf[:0]
}

// MarshalBinary encodes m in the binary kernel model format (see
// WriteTo). It fails, without encoding anything, when m does not pass
// Check or the format's rules (ErrFormat), exceeds its limits (ErrDim), or
// has a kernel other than the four built-in ones (ErrConfig).
func (m *KernelModel) MarshalBinary() ([]byte, error) {
	kk, err := m.checkFile()
	if err != nil {
		return nil, err
	}
	e := modelEncoder{buf: make([]byte, 0, m.encodedSize())}
	e.encodeKernel(m, kk)
	return e.buf, nil
}

// WriteTo writes m to w in the binary kernel model format, "HPKM"
// version 1: a header with the kernel and its effective parameters, the
// classes, the support vectors in CSR form, their coefficients and the
// biases as raw little-endian bits, the voted perceptron's steps when
// there are any, and a CRC-32C checksum of it all. It writes through a
// small buffer of its own. It returns the number of bytes written; a
// model MarshalBinary refuses is refused before anything is written.
func (m *KernelModel) WriteTo(w io.Writer) (int64, error) {
	kk, err := m.checkFile()
	if err != nil {
		return 0, err
	}
	e := modelEncoder{w: w, buf: make([]byte, 0, modelChunk+16)}
	e.encodeKernel(m, kk)
	return e.n, e.err
}

// Save writes m to the file path in the binary kernel model format. The
// file is replaced atomically (see sparse.WriteFileAtomic): on failure,
// including a model that cannot be encoded, an existing file at path is
// left as it was.
func (m *KernelModel) Save(path string) error {
	if _, err := m.checkFile(); err != nil {
		return err
	}
	return sparse.WriteFileAtomic(path, func(w io.Writer) error {
		_, err := m.WriteTo(w)
		return err
	})
}

// ---------------------------------------------------------------------------
// Decoding

// decodeKernel reads one kernel model and its checksum, and checks the
// model.
func (d *modelDecoder) decodeKernel() (*KernelModel, error) {
	b, err := d.take(4, "magic")
	if err != nil && !errors.Is(err, ErrFormat) {
		return nil, err
	}
	if err != nil || string(b) != kmodelMagic {
		return nil, modelErr("not a hyperplane kernel model file")
	}
	b, err = d.take(kmodelHeaderSize-4, "header")
	if err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	version, flags := le.Uint16(b), le.Uint16(b[2:])
	switch {
	case version > kmodelFormatVersion:
		return nil, modelErr("format version %d is newer than this build reads (%d)", version, kmodelFormatVersion)
	case version == 0:
		return nil, modelErr("format version 0 does not exist")
	case flags&^kmodelFlagsKnown != 0:
		return nil, modelErr("unknown flags %#x", flags)
	case b[7] > byte(PA2):
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
	m.BiasScale = math.Float32frombits(le.Uint32(b[8:]))
	kk := kmodelKernel{
		kind:   b[6],
		degree: math.Float64frombits(le.Uint64(b[12:])),
		gamma:  math.Float64frombits(le.Uint64(b[20:])),
		coef0:  math.Float64frombits(le.Uint64(b[28:])),
	}
	if m.Kernel, err = kk.kernel(); err != nil {
		return nil, err
	}
	nc, K, dim := le.Uint32(b[36:]), le.Uint32(b[40:]), le.Uint64(b[44:])
	switch {
	case nc < 2 || nc > modelMaxDim:
		return nil, modelErr("%d classes", nc)
	case (nc == 2 && K != 1) || (nc > 2 && K != nc):
		return nil, modelErr("%d functions for %d classes", K, nc)
	case dim > modelMaxDim:
		return nil, modelErr("dim %d is beyond the limit %d", dim, modelMaxDim)
	}
	m.Dim = int(dim)
	if m.Classes, err = modelReadArray[float64](d, int(nc), "classes"); err != nil {
		return nil, err
	}
	rows, err := d.u64("support vectors")
	if err != nil {
		return nil, err
	}
	cols, err := d.u64("support vectors")
	if err != nil {
		return nil, err
	}
	switch {
	case rows > modelMaxDim:
		return nil, modelErr("%d support vectors is beyond the limit %d", rows, modelMaxDim)
	case cols != dim:
		return nil, modelErr("support vectors are %d wide, model %d", cols, dim)
	}
	sv := &sparse.CSR{Rows: int(rows), Cols: int(cols)}
	nnz, err := d.count("support vectors", 8)
	if err != nil {
		return nil, err
	}
	if sv.Indptr, err = modelReadArray[int64](d, sv.Rows+1, "support vector row pointers"); err != nil {
		return nil, err
	}
	if sv.Ind, err = modelReadArray[int32](d, nnz, "support vector indices"); err != nil {
		return nil, err
	}
	if sv.Val, err = modelReadArray[float32](d, nnz, "support vector values"); err != nil {
		return nil, err
	}
	m.SV = sv
	// rows and K are below 2³¹, so their product fits a uint64.
	if err := d.fits(rows*uint64(K), 4, "coefficients"); err != nil {
		return nil, err
	}
	if m.Coef, err = modelReadArray[float32](d, int(rows*uint64(K)), "coefficients"); err != nil {
		return nil, err
	}
	if m.B, err = modelReadArray[float32](d, int(K), "biases"); err != nil {
		return nil, err
	}
	if flags&kmodelFlagVotes != 0 {
		if m.Votes, err = d.kernelVotes(); err != nil {
			return nil, err
		}
		m.Votes.SV = m.SV
	}
	sum := d.crc
	b, err = d.take(4, "checksum")
	if err != nil {
		return nil, err
	}
	if le.Uint32(b) != sum {
		return nil, modelErr("checksum mismatch: file is corrupt")
	}
	if _, err := m.checkFile(); err != nil {
		return nil, err
	}
	return m, nil
}

// kernelVotes reads the votes section of a kernel model.
func (d *modelDecoder) kernelVotes() (*Votes, error) {
	v := new(Votes)
	c, err := d.u64("votes")
	if err != nil {
		return nil, err
	}
	if v.Count0 = int64(c); v.Count0 < 0 {
		return nil, modelErr("negative vote count %d of the start vector", v.Count0)
	}
	ns, err := d.count("vote steps", modelStepSize)
	if err != nil {
		return nil, err
	}
	c0 := ns
	if d.remain < 0 {
		c0 = min(ns, modelChunk/modelStepSize)
	}
	v.Steps = make([]VoteStep, 0, c0)
	le := binary.LittleEndian
	for len(v.Steps) < ns {
		k := min(ns-len(v.Steps), modelChunk/modelStepSize)
		b, err := d.take(k*modelStepSize, "vote steps")
		if err != nil {
			return nil, err
		}
		for ; len(b) >= modelStepSize; b = b[modelStepSize:] {
			v.Steps = append(v.Steps, VoteStep{
				Row:   int32(le.Uint32(b)),
				Up:    int32(le.Uint32(b[4:])),
				Down:  int32(le.Uint32(b[8:])),
				A:     math.Float32frombits(le.Uint32(b[12:])),
				Count: int64(le.Uint64(b[16:])),
			})
		}
	}
	return v, nil
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
// bad kernel parameters, or a model that fails Check. m's prepared
// prediction state is reset, so m must not be in use by other goroutines.
func (m *KernelModel) UnmarshalBinary(data []byte) error {
	d := modelDecoder{buf: data, remain: int64(len(data))}
	dm, err := d.decodeKernel()
	if err != nil {
		return err
	}
	if d.remain != 0 {
		return modelErr("%d bytes of trailing data after the model", d.remain)
	}
	m.setDecoded(dm)
	return nil
}

// ReadKernelModel reads one kernel model written by WriteTo (or
// MarshalBinary) from r and leaves r just past it: it reads no more than
// the model, so a file is best wrapped in a bufio.Reader. Errors in the
// data wrap ErrFormat (see UnmarshalBinary); a read error of r is
// returned with context but does not. Memory is allocated only as data
// arrives, or after the sizes read are checked against the input's length
// where r tells it (a Len method, as bytes.Reader and bytes.Buffer have).
func ReadKernelModel(r io.Reader) (*KernelModel, error) {
	d := modelDecoder{r: r, remain: -1}
	if l, ok := r.(interface{ Len() int }); ok {
		d.remain = int64(l.Len())
	}
	return d.decodeKernel()
}

// kmodelOpen opens the file at path for decoding, with its size known
// when it is a regular file; the caller closes f.
func kmodelOpen(path string) (f *os.File, br *bufio.Reader, d *modelDecoder, err error) {
	f, err = os.Open(path)
	if err != nil {
		return nil, nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, nil, err
	}
	br = bufio.NewReaderSize(f, modelChunk)
	d = &modelDecoder{r: br, remain: -1}
	if fi.Mode().IsRegular() {
		d.remain = fi.Size()
	}
	return f, br, d, nil
}

// kmodelLoadWith decodes the whole file behind d with decode; errors in the
// file begin with path.
func kmodelLoadWith[T any](path string, d *modelDecoder, decode func() (T, error)) (T, error) {
	m, err := decode()
	if err == nil && d.remain > 0 {
		err = modelErr("%d bytes of trailing data after the model", d.remain)
	}
	if err != nil {
		var zero T
		return zero, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// LoadKernel reads the kernel model file at path, written by Save. Errors
// in the file wrap ErrFormat and begin with the path.
func LoadKernel(path string) (*KernelModel, error) {
	f, _, d, err := kmodelOpen(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return kmodelLoadWith(path, d, d.decodeKernel)
}

// LoadClassifier reads the model file at path, linear (written by
// Model.Save) or kernel (written by KernelModel.Save), telling them apart
// by their magic: it returns a *Model or a *KernelModel. Errors in the
// file, an unknown magic included, wrap ErrFormat and begin with the
// path.
func LoadClassifier(path string) (Classifier, error) {
	f, br, d, err := kmodelOpen(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	magic, err := br.Peek(4)
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("%s: reading model: %w", path, err)
	}
	switch string(magic) {
	case modelMagic:
		return kmodelLoadWith(path, d, d.decode)
	case kmodelMagic:
		return kmodelLoadWith(path, d, d.decodeKernel)
	}
	return nil, fmt.Errorf("%s: %w", path, modelErr("not a hyperplane model file (magic %q; want %q or %q)", magic, modelMagic, kmodelMagic))
}

// ReadClassifier reads one model written by Model.WriteTo or
// KernelModel.WriteTo from r, telling them apart by their magic, and
// returns a *Model or a *KernelModel; it reads no more than the model, as
// ReadModel and ReadKernelModel do. Errors in the data wrap ErrFormat.
func ReadClassifier(r io.Reader) (Classifier, error) {
	d := modelDecoder{remain: -1}
	if l, ok := r.(interface{ Len() int }); ok {
		d.remain = int64(l.Len())
	}
	var magic [4]byte
	n, err := io.ReadFull(r, magic[:])
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, fmt.Errorf("reading model: %w", err)
	}
	// The decoders read the magic again, from here.
	d.r = io.MultiReader(bytes.NewReader(magic[:n]), r)
	switch string(magic[:n]) {
	case modelMagic:
		return d.decode()
	case kmodelMagic:
		return d.decodeKernel()
	}
	return nil, modelErr("not a hyperplane model file (magic %q; want %q or %q)", magic[:n], modelMagic, kmodelMagic)
}

// ---------------------------------------------------------------------------
// JSON

// kmodelJSONFormat is the "format" member of the JSON export.
const kmodelJSONFormat = "hyperplane-kernel-model"

// kmodelJSON is the JSON export of a KernelModel.
type kmodelJSON struct {
	Format         string          `json:"format"`
	Version        int             `json:"version"`
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
		Format:         kmodelJSONFormat,
		Version:        kmodelFormatVersion,
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
	if string(bytes.TrimSpace(data)) == "null" {
		return nil
	}
	var jm kmodelJSON
	if err := json.Unmarshal(data, &jm); err != nil {
		return modelErr("JSON: %v", err)
	}
	switch {
	case jm.Format != kmodelJSONFormat:
		return modelErr("not a hyperplane kernel model file")
	case jm.Version > kmodelFormatVersion:
		return modelErr("format version %d is newer than this build reads (%d)", jm.Version, kmodelFormatVersion)
	case jm.Version < 1:
		return modelErr("format version %d does not exist", jm.Version)
	}
	k, err := kernels.Parse(jm.Kernel)
	if err != nil {
		return modelErr("kernel %q: %v", jm.Kernel, err)
	}
	if k, err = kmodelEffective(k); err != nil {
		return err
	}
	alg, err := ParseAlgorithm(jm.Algorithm)
	if err != nil {
		return modelErr("unknown algorithm %q", jm.Algorithm)
	}
	bias, err := ParseBiasMode(jm.BiasMode)
	if err != nil {
		return modelErr("unknown bias mode %q", jm.BiasMode)
	}
	rule := Perceptron // files written before the rule was recorded
	if jm.Rule != "" {
		if rule, err = ParseRule(jm.Rule); err != nil || rule > PA2 {
			return modelErr("unknown rule %q", jm.Rule)
		}
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
	if len(dm.Classes) < 2 {
		return modelErr("%d classes", len(dm.Classes))
	}
	if dm.Dim < 0 || dm.Dim > modelMaxDim {
		return modelErr("dim %d", dm.Dim)
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
