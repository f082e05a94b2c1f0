package modelfile

// Kernel model files.
//
// A kernel model is stored in its own binary format, "HPKM" version 1, in
// the same container as the linear model (container.go describes it, and
// how the support vectors and the steps are encoded): little-endian
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
// reads back as SV. Only the four built-in kernels can be stored.

import (
	"encoding/binary"
	"errors"
	"math"

	"github.com/hyperplane-ml/hyperplane/kernels"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

const (
	KernelMagic      = "HPKM"
	kernelVersion    = 1
	KernelHeaderSize = 56

	KernelVotes = 1 << 0 // the votes section follows the biases
	kernelKnown = KernelVotes

	// Kernel kinds as the header stores them.
	kernelLinear  = 0
	kernelPoly    = 1
	kernelRBF     = 2
	kernelSigmoid = 3
)

// KernelParams is a built-in kernel's kind and its effective parameters,
// as the file stores them.
type KernelParams struct {
	Kind                 uint8
	Degree, Gamma, Coef0 float64
}

var kernelKindNames = [...]string{"linear", "poly", "rbf", "sigmoid"}

// ParamsOf returns the stored form of k, which must pass kernels.Check,
// and false for a kernel other than the four built-in types (given by
// value).
func ParamsOf(k kernels.Kernel) (KernelParams, bool) {
	orOne := func(g float64) float64 {
		if g == 0 {
			return 1
		}
		return g
	}
	switch k := k.(type) {
	case kernels.Linear:
		return KernelParams{Kind: kernelLinear}, true
	case kernels.Poly:
		d := k.Degree
		if d == 0 {
			d = 3
		}
		return KernelParams{Kind: kernelPoly, Degree: float64(d), Gamma: orOne(k.Gamma), Coef0: k.Coef0}, true
	case kernels.RBF:
		return KernelParams{Kind: kernelRBF, Gamma: orOne(k.Gamma)}, true
	case kernels.Sigmoid:
		return KernelParams{Kind: kernelSigmoid, Gamma: orOne(k.Gamma), Coef0: k.Coef0}, true
	}
	return KernelParams{}, false
}

// Kernel returns the kernel p stores, with its parameters explicit, or
// an error wrapping ErrFormat if p is not what ParamsOf returns.
func (p KernelParams) Kernel() (kernels.Kernel, error) {
	if int(p.Kind) >= len(kernelKindNames) {
		return nil, Errf("unknown kernel kind %d", p.Kind)
	}
	name := kernelKindNames[p.Kind]
	unused := func(param string, v float64) error {
		if math.Float64bits(v) != 0 {
			return Errf("%s kernel with %s %v: a parameter it does not have must be 0", name, param, v)
		}
		return nil
	}
	gamma := func() error {
		if p.Gamma == 0 {
			// The writer stores γ = 0 as the 1 it means.
			return Errf("%s kernel with gamma 0", name)
		}
		return nil
	}
	var k kernels.Kernel
	var err error
	switch p.Kind {
	case kernelLinear:
		err = errors.Join(unused("degree", p.Degree), unused("gamma", p.Gamma), unused("coef0", p.Coef0))
		k = kernels.Linear{}
	case kernelPoly:
		d := p.Degree
		if !(d >= 1 && d <= kernels.MaxDegree && d == math.Trunc(d)) {
			return nil, Errf("poly kernel with degree %v, not a whole number in [1, %d]", d, kernels.MaxDegree)
		}
		err = gamma()
		k = kernels.Poly{Degree: int(d), Gamma: p.Gamma, Coef0: p.Coef0}
	case kernelRBF:
		err = errors.Join(unused("degree", p.Degree), unused("coef0", p.Coef0), gamma())
		k = kernels.RBF{Gamma: p.Gamma}
	case kernelSigmoid:
		err = errors.Join(unused("degree", p.Degree), gamma())
		k = kernels.Sigmoid{Gamma: p.Gamma, Coef0: p.Coef0}
	}
	if err != nil {
		return nil, err
	}
	if err := kernels.Check(k); err != nil {
		return nil, Errf("%w", err)
	}
	return k, nil
}

// Kernel is a kernel model as its file holds it, the fields those of the
// engine's KernelModel; the enums are their numbers.
type Kernel struct {
	Params                KernelParams
	Algorithm, Bias, Rule uint8
	BiasScale             float32
	Classes               []float64
	Dim                   int
	SV                    *sparse.CSR
	Coef                  []float32
	B                     []float32
	// Votes, when not nil, holds the votes section, its SV that of the
	// model.
	Votes *Votes
}

// Size returns the length of f's encoding, checksum included.
func (f *Kernel) Size() int64 {
	K, N := int64(rows(len(f.Classes))), int64(f.SV.Rows)
	n := KernelHeaderSize + 8*int64(len(f.Classes)) + csrSize(f.SV) + 4*N*K + 4*K
	if v := f.Votes; v != nil {
		n += 8 + voteStepsSize(len(v.Steps))
	}
	return n + 4
}

func (f *Kernel) encode(e *encoder) {
	p := f.Params
	e.header(KernelMagic, kernelVersion, flagIf(f.Votes != nil, KernelVotes))
	e.buf = append(e.buf, f.Algorithm, f.Bias, p.Kind, f.Rule)
	e.u32(math.Float32bits(f.BiasScale))
	e.f64s([]float64{p.Degree, p.Gamma, p.Coef0})
	e.u32(uint32(len(f.Classes)))
	e.u32(uint32(rows(len(f.Classes))))
	e.u64(uint64(f.Dim))
	e.f64s(f.Classes)
	e.csr(f.SV)
	e.f32s(f.Coef)
	e.f32s(f.B)
	if v := f.Votes; v != nil {
		e.u64(uint64(v.Count0))
		e.voteSteps(v.Steps)
	}
}

// ---------------------------------------------------------------------------
// Decoding
//
// A kernel model is read in steps, as a linear model is: KernelHead reads
// the header past the magic, its CheckShape checks the counts, and
// KernelBody reads the rest.

// supportVectors names a kernel model's support vectors in error
// messages.
var supportVectors = csrNames{rows: "support vectors", indptr: "support vector row pointers", ind: "support vector indices", val: "support vector values"}

// KernelHead is a kernel model's header past the magic and the version.
type KernelHead struct {
	Flags                 uint16
	Algorithm, Bias, Rule uint8
	BiasScale             float32
	Params                KernelParams
	Classes, Rows         uint32
	Dim                   uint64
}

// KernelHead reads and checks the header of a kernel model past its
// magic: its version and flags.
func (d *Decoder) KernelHead() (KernelHead, error) {
	b, flags, err := d.meteredHeader(KernelHeaderSize, kernelVersion, kernelKnown)
	if err != nil {
		return KernelHead{}, err
	}
	le := binary.LittleEndian
	return KernelHead{
		Flags: flags, Algorithm: b[4], Bias: b[5], Rule: b[7],
		BiasScale: math.Float32frombits(le.Uint32(b[8:])),
		Params: KernelParams{
			Kind:   b[6],
			Degree: math.Float64frombits(le.Uint64(b[12:])),
			Gamma:  math.Float64frombits(le.Uint64(b[20:])),
			Coef0:  math.Float64frombits(le.Uint64(b[28:])),
		},
		Classes: le.Uint32(b[36:]), Rows: le.Uint32(b[40:]), Dim: le.Uint64(b[44:]),
	}, nil
}

// CheckShape checks the header's numbers of classes and of functions,
// and its dim.
func (h KernelHead) CheckShape() error { return checkShape(h.Classes, h.Rows, h.Dim, "functions") }

// KernelBody reads the rest of a kernel model whose header is h: the
// classes, the support vectors, their coefficients, the biases, the votes
// section and the checksum.
func (d *Decoder) KernelBody(h KernelHead) (*Kernel, error) {
	f := &Kernel{Params: h.Params, Algorithm: h.Algorithm, Bias: h.Bias, Rule: h.Rule, BiasScale: h.BiasScale, Dim: int(h.Dim)}
	var err error
	if f.Classes, err = readArray[float64](d, int(h.Classes), "classes"); err != nil {
		return nil, err
	}
	if f.SV, err = d.csr(supportVectors, h.Dim, true); err != nil {
		return nil, err
	}
	// The rows and K are below 2³¹, so their product fits a uint64.
	nk := uint64(f.SV.Rows) * uint64(h.Rows)
	if err := d.fits(nk, 4, "coefficients"); err != nil {
		return nil, err
	}
	if f.Coef, err = readArray[float32](d, int(nk), "coefficients"); err != nil {
		return nil, err
	}
	if f.B, err = readArray[float32](d, int(h.Rows), "biases"); err != nil {
		return nil, err
	}
	if h.Flags&KernelVotes != 0 {
		v := &Votes{SV: f.SV}
		if v.Count0, err = d.count0(); err != nil {
			return nil, err
		}
		if v.Steps, err = d.voteSteps(); err != nil {
			return nil, err
		}
		f.Votes = v
	}
	if err := d.checksum(); err != nil {
		return nil, err
	}
	return f, nil
}
