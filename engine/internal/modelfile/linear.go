package modelfile

// Linear model files.
//
// The binary format, version 1, is little-endian throughout:
//
//	offset  size        field
//	0       4           magic "HPLM"
//	4       2           format version (uint16, 1)
//	6       2           flags (uint16): bit 0 votes section present,
//	                    bit 1 start weights W0/B0 present, bit 2 rows
//	                    normalized (Model.Normalize), bit 3 columns
//	                    listed (Model.Cols), bit 4 weights stored sparse
//	                    (below); others 0
//	8       1           algorithm (uint8)
//	9       1           bias mode (uint8)
//	10      1           update rule (uint8; 0, the perceptron, in files
//	                    written before the rule was recorded)
//	11      1           reserved, 0
//	12      4           bias scale (float32 bits)
//	16      4           number of classes C (uint32)
//	20      4           number of weight rows K (uint32; 1 if C = 2, else C)
//	24      8           dim (uint64)
//	32      8·C         classes (float64 bits)
//	        4·K         biases B (float32 bits)
//	columns, when flag bit 3 is set (n = their number, else n = dim):
//	        8           n (uint64)
//	        4·n         Model.Cols, strictly increasing, below dim (int32)
//	        4·n·K       weights W, feature-major as Model.W (float32 bits),
//	                    or sparse when flag bit 4 is set
//	votes section, when flag bit 0 is set:
//	        8           Count0 (int64)
//	        4·dim·K     W0, when flag bit 1 is set; sparse when bit 4 is
//	        4·K         B0, when flag bit 1 is set
//	        8, 8, 8     SV rows, cols, nnz (uint64)
//	        8·(rows+1)  SV Indptr (int64)
//	        4·nnz       SV Ind (int32)
//	        4·nnz       SV Val (float32 bits)
//	        8           number of steps S (uint64)
//	        24·S        steps: Row, Up, Down (int32), A (float32 bits),
//	                    Count (int64)
//	scaling section, when flag bit 5 is set (Model.Scaling):
//	        8           kind (uint64; 1 standard, 2 max-abs)
//	        4·dim       factors (float32 bits)
//	        4·dim       centers (float32 bits), for kind 1 only
//	        4           CRC-32C (Castagnoli) of every byte before it
//
// The container around the sections, the SV rows, the steps and the
// sparse weights (flag bit 4) are encoded as container.go describes. The
// writer stores W and W0 sparse when that takes fewer bytes than dense, as
// it does for a model that leaves most of its weights zero (a multiclass
// model whose classes each use a few of the features); readers that
// predate flag bit 4 refuse such a file as having unknown flags, and read
// every other file as before. Flag bit 5, the scaling section, came
// later still, in the same way: the weights of a scaled model already
// include its scaling, and the section records it for continuing the
// training; files without it read as before.

import (
	"encoding/binary"
	"math"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

const (
	LinearMagic      = "HPLM"
	linearVersion    = 1
	LinearHeaderSize = 32

	LinearVotes  = 1 << 0 // the votes section follows the weights
	LinearStart  = 1 << 1 // the votes section holds W0 and B0
	LinearNorm   = 1 << 2 // Model.Normalize
	LinearCols   = 1 << 3 // Model.Cols follows the biases
	LinearSparse = 1 << 4 // W and W0 are stored sparse
	LinearScale  = 1 << 5 // Model.Scaling follows the votes' place
	linearKnown  = LinearVotes | LinearStart | LinearNorm | LinearCols | LinearSparse | LinearScale

	// The scaling kinds the scaling section stores.
	ScaleStandard = 1
	ScaleMaxAbs   = 2
)

// Step is a step of the voted perceptron, as the engine's VoteStep.
type Step struct {
	Row      int32
	Up, Down int32
	A        float32
	Count    int64
}

// Votes is the voted perceptron's record, as the engine's Votes.
type Votes struct {
	Count0 int64
	W0, B0 []float32
	SV     *sparse.CSR
	Steps  []Step
}

// Scaling is the scaling section, as the engine's Scaling.
type Scaling struct {
	Kind           uint64
	Factor, Center []float32
}

// Linear is a linear model as its file holds it, the fields those of the
// engine's Model; the enums are their numbers.
type Linear struct {
	Algorithm, Bias, Rule uint8
	Normalize             bool
	BiasScale             float32
	Classes               []float64
	Dim                   int
	B                     []float32
	Cols                  []int32
	W                     []float32
	Votes                 *Votes
	Scaling               *Scaling
	// Sparse is set to store W and W0 in the sparse encoding, and
	// WeightBytes is the bytes they take so (see WeightBytes): the writer
	// sets both, choosing the smaller encoding.
	Sparse      bool
	WeightBytes int64
}

// rows returns the number of weight rows: 1 for two classes, else one a
// class.
func rows(classes int) int {
	if classes == 2 {
		return 1
	}
	return classes
}

// WeightBytes returns the bytes that the weights w and the start weights
// w0 (nil when the model has none) take together in the dense and in the
// sparse encoding.
func WeightBytes(w, w0 []float32) (dense, sparse int64) {
	n := int64(len(w))
	dense, sparse = 4*n, sparseSize(n, Nonzero(w))
	if w0 != nil {
		n := int64(len(w0))
		dense += 4 * n
		sparse += sparseSize(n, Nonzero(w0))
	}
	return dense, sparse
}

// ChooseWeights sets f.Sparse and f.WeightBytes to the smaller encoding
// of its weights.
func (f *Linear) ChooseWeights() {
	var w0 []float32
	if f.Votes != nil {
		w0 = f.Votes.W0
	}
	dense, sparse := WeightBytes(f.W, w0)
	f.Sparse, f.WeightBytes = sparse < dense, min(dense, sparse)
}

// Size returns the length of f's encoding, checksum included.
func (f *Linear) Size() int64 {
	K := int64(rows(len(f.Classes)))
	n := LinearHeaderSize + 8*int64(len(f.Classes)) + 4*K + f.WeightBytes
	if f.Cols != nil {
		n += 8 + 4*int64(len(f.Cols))
	}
	if v := f.Votes; v != nil {
		n += 8
		if v.W0 != nil {
			n += 4 * K
		}
		n += csrSize(v.SV) + voteStepsSize(len(v.Steps))
	}
	if sc := f.Scaling; sc != nil {
		n += 8 + 4*int64(len(sc.Factor)+len(sc.Center))
	}
	return n + 4
}

func (f *Linear) encode(e *encoder) {
	v := f.Votes
	flags := flagIf(v != nil, LinearVotes) | flagIf(v != nil && v.W0 != nil, LinearStart) |
		flagIf(f.Normalize, LinearNorm) | flagIf(f.Cols != nil, LinearCols) |
		flagIf(f.Sparse, LinearSparse) | flagIf(f.Scaling != nil, LinearScale)
	e.header(LinearMagic, linearVersion, flags)
	e.buf = append(e.buf, f.Algorithm, f.Bias, f.Rule, 0)
	e.u32(math.Float32bits(f.BiasScale))
	e.u32(uint32(len(f.Classes)))
	e.u32(uint32(rows(len(f.Classes))))
	e.u64(uint64(f.Dim))
	e.f64s(f.Classes)
	e.f32s(f.B)
	if f.Cols != nil {
		e.u64(uint64(len(f.Cols)))
		e.i32s(f.Cols)
	}
	e.weights(f.W, f.Sparse)
	if v := f.Votes; v != nil {
		e.u64(uint64(v.Count0))
		if v.W0 != nil {
			e.weights(v.W0, f.Sparse)
			e.f32s(v.B0)
		}
		e.csr(v.SV)
		e.voteSteps(v.Steps)
	}
	if sc := f.Scaling; sc != nil {
		e.u64(sc.Kind)
		e.f32s(sc.Factor)
		e.f32s(sc.Center)
	}
}

// ---------------------------------------------------------------------------
// Decoding
//
// A linear model is read in three steps, so that the engine checks what
// the header's numbers mean between them, where a reader has always
// checked them: LinearHead reads the header past the magic, its
// CheckShape checks the counts, and LinearBody reads the rest.

// votedRows names the voted model's rows in error messages.
var votedRows = csrNames{rows: "voted rows", indptr: "voted row pointers", ind: "voted row indices", val: "voted row values"}

// LinearHead is a linear model's header past the magic and the version.
type LinearHead struct {
	Flags                           uint16
	Algorithm, Bias, Rule, Reserved uint8
	BiasScale                       float32
	Classes, Rows                   uint32
	Dim                             uint64
}

// LinearHead reads and checks the header of a linear model past its
// magic: its version, its flags, and, when d reads a subset of the
// features, that the model has no votes or scaling (ErrNoSubset).
func (d *Decoder) LinearHead() (LinearHead, error) {
	b, flags, err := d.meteredHeader(LinearHeaderSize, linearVersion, linearKnown)
	if err != nil {
		return LinearHead{}, err
	}
	switch {
	case flags&LinearStart != 0 && flags&LinearVotes == 0:
		return LinearHead{}, Errf("start weights flagged without votes")
	case flags&LinearCols != 0 && flags&LinearVotes != 0:
		return LinearHead{}, Errf("a voted model keeps all its columns")
	}
	if d.keep != nil && flags&(LinearVotes|LinearScale) != 0 {
		return LinearHead{}, ErrNoSubset
	}
	le := binary.LittleEndian
	return LinearHead{
		Flags: flags, Algorithm: b[4], Bias: b[5], Rule: b[6], Reserved: b[7],
		BiasScale: math.Float32frombits(le.Uint32(b[8:])),
		Classes:   le.Uint32(b[12:]), Rows: le.Uint32(b[16:]), Dim: le.Uint64(b[20:]),
	}, nil
}

// CheckShape checks the header's numbers of classes and of weight rows,
// and its dim.
func (h LinearHead) CheckShape() error {
	if err := checkShape(h.Classes, h.Rows, h.Dim, "weight rows"); err != nil {
		return err
	}
	if h.Dim*uint64(h.Rows) > maxElems {
		return Errf("dim %d × %d rows is beyond any model", h.Dim, h.Rows)
	}
	return nil
}

// LinearBody reads the rest of a linear model whose header is h: the
// classes and biases, the weights (of the kept features only, when d
// reads a subset of them: Dim and Cols are then those of the kept
// features), the votes and scaling sections, and the checksum.
func (d *Decoder) LinearBody(h LinearHead) (*Linear, error) {
	f := &Linear{
		Algorithm: h.Algorithm, Bias: h.Bias, Rule: h.Rule, Normalize: h.Flags&LinearNorm != 0,
		BiasScale: h.BiasScale, Dim: int(h.Dim), Sparse: h.Flags&LinearSparse != 0,
	}
	K := int(h.Rows)
	var err error
	if f.Classes, f.B, err = d.classesBiases(int(h.Classes), K); err != nil {
		return nil, err
	}
	wn, err := d.linearWeights(f, h.Flags, K)
	if err != nil {
		return nil, err
	}
	if h.Flags&LinearVotes != 0 {
		if f.Votes, err = d.votes(h.Flags&LinearStart != 0, f.Sparse, wn, K, h.Dim); err != nil {
			return nil, err
		}
	}
	if h.Flags&LinearScale != 0 {
		if f.Scaling, err = d.scaling(f.Dim); err != nil {
			return nil, err
		}
	}
	if err := d.linearEnd(); err != nil {
		return nil, err
	}
	return f, nil
}

// linearWeights reads a linear model's columns, when flagged, and its
// weights, only the rows of the kept features when the decoder keeps
// some (f.Dim and f.Cols then become those of the kept features). It
// returns the number of weights in the file, which the start weights of
// the votes section share.
func (d *Decoder) linearWeights(f *Linear, flags uint16, K int) (wn int, err error) {
	wn = f.Dim * K
	if flags&LinearCols != 0 {
		n, err := d.u64("columns")
		if err != nil {
			return 0, err
		}
		if n > uint64(f.Dim) {
			return 0, Errf("%d columns for dim %d", n, f.Dim)
		}
		if f.Cols, err = readArray[int32](d, int(n), "columns"); err != nil {
			return 0, err
		}
		wn = int(n) * K
	}
	if d.keep == nil {
		f.W, err = d.weights(wn, f.Sparse, "weights")
		return wn, err
	}
	rows, cols, err := d.keptRows(f.Dim, f.Cols)
	if err != nil {
		return 0, err
	}
	if f.W, err = d.weightRows(wn, K, rows, f.Sparse, "weights"); err != nil {
		return 0, err
	}
	f.Dim, f.Cols = len(d.keep), cols
	return wn, nil
}

// linearEnd reads the checksum that ends a linear model's file. A
// decoder that reads the kept rows at their offsets (at) has not read
// all that came before, so it only checks that the input ends with the
// checksum.
func (d *Decoder) linearEnd() error {
	if d.at == nil {
		return d.checksum()
	}
	switch {
	case d.remain < 4:
		return truncated("checksum")
	case d.remain > 4:
		return Errf("%d bytes of trailing data after the model", d.remain-4)
	}
	return nil
}

// scaling reads the scaling section of a model of dim features.
func (d *Decoder) scaling(dim int) (*Scaling, error) {
	kind, err := d.u64("scaling")
	if err != nil {
		return nil, err
	}
	if kind != ScaleStandard && kind != ScaleMaxAbs {
		return nil, Errf("unknown scaling %d", kind)
	}
	s := &Scaling{Kind: kind}
	if s.Factor, err = readArray[float32](d, dim, "scaling factors"); err != nil {
		return nil, err
	}
	if s.Kind == ScaleStandard {
		if s.Center, err = readArray[float32](d, dim, "scaling centers"); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// votes reads the votes section.
func (d *Decoder) votes(start, sparseW bool, wn, K int, dim uint64) (*Votes, error) {
	v := new(Votes)
	var err error
	if v.Count0, err = d.count0(); err != nil {
		return nil, err
	}
	if start {
		if v.W0, err = d.weights(wn, sparseW, "start weights"); err != nil {
			return nil, err
		}
		if v.B0, err = readArray[float32](d, K, "start biases"); err != nil {
			return nil, err
		}
	}
	if v.SV, err = d.csr(votedRows, dim, false); err != nil {
		return nil, err
	}
	if v.Steps, err = d.voteSteps(); err != nil {
		return nil, err
	}
	return v, nil
}
