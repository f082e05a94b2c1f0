package engine

// Model files.
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
// sparse weights (flag bit 4) are encoded as fileio.go describes. The
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
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

const (
	modelMagic         = "HPLM"
	modelFormatVersion = 1
	modelHeaderSize    = 32

	modelFlagVotes  = 1 << 0 // the votes section follows the weights
	modelFlagStart  = 1 << 1 // the votes section holds W0 and B0
	modelFlagNorm   = 1 << 2 // Model.Normalize
	modelFlagCols   = 1 << 3 // Model.Cols follows the biases
	modelFlagSparse = 1 << 4 // W and W0 are stored sparse
	modelFlagScale  = 1 << 5 // Model.Scaling follows the votes' place
	modelFlagsKnown = modelFlagVotes | modelFlagStart | modelFlagNorm | modelFlagCols | modelFlagSparse | modelFlagScale
)

// votedRows names the voted model's rows in error messages.
var votedRows = csrNames{rows: "voted rows", indptr: "voted row pointers", ind: "voted row indices", val: "voted row values"}

// ---------------------------------------------------------------------------
// Encoding

// checkEncodable verifies m with Check and the limits of the file format.
func (m *Model) checkEncodable() error {
	if err := m.Check(); err != nil {
		return err
	}
	if m.Dim > modelMaxDim || len(m.Classes) > modelMaxDim {
		return fmt.Errorf("%w: dim %d or %d classes beyond the model file's limit %d", ErrDim, m.Dim, len(m.Classes), modelMaxDim)
	}
	if v := m.Votes; v != nil {
		if v.SV.Rows > modelMaxDim {
			return fmt.Errorf("%w: %d voted rows beyond the model file's limit %d", ErrDim, v.SV.Rows, modelMaxDim)
		}
		if v.Count0 < 0 {
			return modelErr("negative vote count %d of the start vector", v.Count0)
		}
	}
	return nil
}

// linearFile is a linear model's part of its file: m, which passes
// checkEncodable, with W and W0 in the sparse encoding when sparse is set.
type linearFile struct {
	m      *Model
	sparse bool
	wb     int64 // the bytes W and W0 take so
}

// file checks m and returns its file sections, choosing the smaller
// encoding of the weights.
func (m *Model) file() (linearFile, error) {
	if err := m.checkEncodable(); err != nil {
		return linearFile{}, err
	}
	dense, sparse := m.weightBytes()
	return linearFile{m, sparse < dense, min(dense, sparse)}, nil
}

// weightBytes returns the bytes that W and W0 (when m has start weights)
// take together in the dense and in the sparse encoding.
func (m *Model) weightBytes() (dense, sparse int64) {
	n := int64(len(m.W))
	dense, sparse = 4*n, modelSparseSize(n, modelNonzero(m.W))
	if v := m.Votes; v != nil && v.W0 != nil {
		n := int64(len(v.W0))
		dense += 4 * n
		sparse += modelSparseSize(n, modelNonzero(v.W0))
	}
	return dense, sparse
}

// encodedSize returns the length of m's binary encoding as the writer
// chooses it; m must pass checkEncodable.
func (m *Model) encodedSize() int64 {
	dense, sparse := m.weightBytes()
	return linearFile{m, sparse < dense, min(dense, sparse)}.size()
}

func (f linearFile) size() int64 {
	m := f.m
	K := int64(m.NumRows())
	n := modelHeaderSize + 8*int64(len(m.Classes)) + 4*K + f.wb
	if m.Cols != nil {
		n += 8 + 4*int64(len(m.Cols))
	}
	if v := m.Votes; v != nil {
		n += 8
		if v.W0 != nil {
			n += 4 * K
		}
		n += csrSize(v.SV) + voteStepsSize(len(v.Steps))
	}
	if sc := m.Scaling; sc != nil {
		n += 8 + 4*int64(len(sc.Factor)+len(sc.Center))
	}
	return n + 4
}

func (f linearFile) encode(e *modelEncoder) {
	m := f.m
	var flags uint16
	if v := m.Votes; v != nil {
		flags |= modelFlagVotes
		if v.W0 != nil {
			flags |= modelFlagStart
		}
	}
	if m.Normalize {
		flags |= modelFlagNorm
	}
	if m.Cols != nil {
		flags |= modelFlagCols
	}
	if f.sparse {
		flags |= modelFlagSparse
	}
	if m.Scaling != nil {
		flags |= modelFlagScale
	}
	e.header(modelMagic, modelFormatVersion, flags)
	e.buf = append(e.buf, byte(m.Algorithm), byte(m.Bias), byte(m.Rule), 0)
	e.u32(math.Float32bits(m.BiasScale))
	e.u32(uint32(len(m.Classes)))
	e.u32(uint32(m.NumRows()))
	e.u64(uint64(m.Dim))
	e.f64s(m.Classes)
	e.f32s(m.B)
	if m.Cols != nil {
		e.u64(uint64(len(m.Cols)))
		e.i32s(m.Cols)
	}
	e.weights(m.W, f.sparse)
	if v := m.Votes; v != nil {
		e.u64(uint64(v.Count0))
		if v.W0 != nil {
			e.weights(v.W0, f.sparse)
			e.f32s(v.B0)
		}
		e.csr(v.SV)
		e.voteSteps(v.Steps)
	}
	if sc := m.Scaling; sc != nil {
		e.u64(uint64(sc.Kind))
		e.f32s(sc.Factor)
		e.f32s(sc.Center)
	}
}

// MarshalBinary encodes m in the binary model format (see WriteTo). It
// fails, without encoding anything, when m does not pass Check or
// exceeds the format's limits (dim or classes beyond 2³¹−1).
func (m *Model) MarshalBinary() ([]byte, error) { return marshalFile(m.file) }

// WriteTo writes m to w in the binary model format, version 1: a header,
// the classes, biases and weights as raw little-endian float bits (the
// weights only those not zero, after a bitmap of them, when that is
// smaller), the voted perceptron's record when there is one, and a
// CRC-32C checksum of it all. It writes through a small buffer of its
// own, so a model needs no second copy in memory. It returns the number
// of bytes written; an invalid model (see MarshalBinary) is refused
// before anything is written.
func (m *Model) WriteTo(w io.Writer) (int64, error) { return writeFile(w, m.file) }

// Save writes m to the file path in the binary model format. The file is
// replaced atomically (see atomicfile.Write): on failure, including
// a model that cannot be encoded, an existing file at path is left as it
// was.
func (m *Model) Save(path string) error { return saveFile(path, m.file) }

// ---------------------------------------------------------------------------
// Decoding

// decodeLinear reads one linear model and its checksum, and checks the
// model.
func (d *modelDecoder) decodeLinear() (*Model, error) {
	if err := d.expectMagic(modelMagic, "model"); err != nil {
		return nil, err
	}
	return d.decodeLinearAfterMagic()
}

// decodeLinearAfterMagic is decodeLinear past the magic: the header,
// the classes and biases, the weights (of the kept features only, when
// the decoder keeps some), the votes and scaling sections, and the
// checksum.
func (d *modelDecoder) decodeLinearAfterMagic() (*Model, error) {
	m, h, err := d.linearHeader()
	if err != nil {
		return nil, err
	}
	flags, dim := h.flags, uint64(m.Dim)
	if m.Classes, m.B, err = d.classesBiases(h.nc, h.K); err != nil {
		return nil, err
	}
	wn, err := d.linearWeights(m, flags, h.K)
	if err != nil {
		return nil, err
	}
	if flags&modelFlagVotes != 0 {
		if m.Votes, err = d.votes(flags&modelFlagStart != 0, flags&modelFlagSparse != 0, wn, h.K, dim); err != nil {
			return nil, err
		}
	}
	if flags&modelFlagScale != 0 {
		if m.Scaling, err = d.scaling(m.Dim); err != nil {
			return nil, err
		}
	}
	if err := d.linearEnd(); err != nil {
		return nil, err
	}
	if err := m.Check(); err != nil {
		return nil, err
	}
	m.index()
	return m, nil
}

// linearHead is what a linear model's header gives beyond the Model's
// own fields: its flags and the numbers of classes and of weight rows.
type linearHead struct {
	flags uint16
	nc, K int
}

// linearHeader reads and checks a linear model's header. It returns the
// model with its algorithm, bias, rule, Normalize, BiasScale and Dim set,
// and the rest of the header.
func (d *modelDecoder) linearHeader() (*Model, linearHead, error) {
	b, flags, err := d.meteredHeader(modelHeaderSize, modelFormatVersion, modelFlagsKnown)
	if err != nil {
		return nil, linearHead{}, err
	}
	switch {
	case flags&modelFlagStart != 0 && flags&modelFlagVotes == 0:
		return nil, linearHead{}, modelErr("start weights flagged without votes")
	case flags&modelFlagCols != 0 && flags&modelFlagVotes != 0:
		return nil, linearHead{}, modelErr("a voted model keeps all its columns")
	}
	if d.keep != nil && flags&(modelFlagVotes|modelFlagScale) != 0 {
		return nil, linearHead{}, ErrNoSubset
	}
	m := &Model{Algorithm: Algorithm(b[4]), Bias: BiasMode(b[5]), Rule: Rule(b[6]), Normalize: flags&modelFlagNorm != 0}
	if err := m.checkHeaderKinds(b, flags); err != nil {
		return nil, linearHead{}, err
	}
	le := binary.LittleEndian
	m.BiasScale = math.Float32frombits(le.Uint32(b[8:]))
	nc, K, dim := le.Uint32(b[12:]), le.Uint32(b[16:]), le.Uint64(b[20:])
	if err := checkShape(nc, K, dim, "weight rows"); err != nil {
		return nil, linearHead{}, err
	}
	if dim*uint64(K) > modelMaxElems {
		return nil, linearHead{}, modelErr("dim %d × %d rows is beyond any model", dim, K)
	}
	m.Dim = int(dim)
	return m, linearHead{flags, int(nc), int(K)}, nil
}

// checkHeaderKinds checks the algorithm, bias mode and rule that m has
// from the header b, and that they agree with the flags.
func (m *Model) checkHeaderKinds(b []byte, flags uint16) error {
	if m.Normalize && m.Algorithm == Voted {
		return modelErr("a voted model does not normalize rows")
	}
	if b[7] != 0 {
		return modelErr("reserved header byte is not zero")
	}
	if m.Algorithm > Batch || m.Bias > NoBias || m.Rule > lastRule {
		return modelErr("unknown algorithm %d, bias mode %d or rule %d", b[4], b[5], b[6])
	}
	if m.Rule != Perceptron && m.Algorithm != Averaged && m.Algorithm != Plain {
		return modelErr("rule %v with algorithm %v", m.Rule, m.Algorithm)
	}
	if (m.Algorithm == Voted) != (flags&modelFlagVotes != 0) {
		return modelErr("votes present only and always for the voted algorithm")
	}
	return nil
}

// linearWeights reads a linear model's columns, when flagged, and its
// weights, only the rows of the kept features when the decoder keeps
// some (m.Dim and m.Cols then become those of the kept features). It
// returns the number of weights in the file, which the start weights of
// the votes section share.
func (d *modelDecoder) linearWeights(m *Model, flags uint16, K int) (wn int, err error) {
	wn = m.Dim * K
	if flags&modelFlagCols != 0 {
		n, err := d.u64("columns")
		if err != nil {
			return 0, err
		}
		if n > uint64(m.Dim) {
			return 0, modelErr("%d columns for dim %d", n, m.Dim)
		}
		if m.Cols, err = modelReadArray[int32](d, int(n), "columns"); err != nil {
			return 0, err
		}
		wn = int(n) * K
	}
	sparseW := flags&modelFlagSparse != 0
	if d.keep == nil {
		m.W, err = d.weights(wn, sparseW, "weights")
		return wn, err
	}
	rows, cols, err := d.keptRows(m.Dim, m.Cols)
	if err != nil {
		return 0, err
	}
	if m.W, err = d.weightRows(wn, K, rows, sparseW, "weights"); err != nil {
		return 0, err
	}
	m.Dim, m.Cols = len(d.keep), cols
	return wn, nil
}

// linearEnd reads the checksum that ends a linear model's file. A
// decoder that reads the kept rows at their offsets (at) has not read
// all that came before, so it only checks that the input ends with the
// checksum.
func (d *modelDecoder) linearEnd() error {
	if d.at == nil {
		return d.checksum()
	}
	switch {
	case d.remain < 4:
		return modelTruncated("checksum")
	case d.remain > 4:
		return modelErr("%d bytes of trailing data after the model", d.remain-4)
	}
	return nil
}

// scaling reads the scaling section of a model of dim features.
func (d *modelDecoder) scaling(dim int) (*Scaling, error) {
	kind, err := d.u64("scaling")
	if err != nil {
		return nil, err
	}
	if kind != uint64(Standardize) && kind != uint64(MaxAbs) {
		return nil, modelErr("unknown scaling %d", kind)
	}
	s := &Scaling{Kind: Scale(kind)}
	if s.Factor, err = modelReadArray[float32](d, dim, "scaling factors"); err != nil {
		return nil, err
	}
	if s.Kind == Standardize {
		if s.Center, err = modelReadArray[float32](d, dim, "scaling centers"); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// votes reads the votes section.
func (d *modelDecoder) votes(start, sparseW bool, wn, K int, dim uint64) (*Votes, error) {
	v := new(Votes)
	var err error
	if v.Count0, err = d.count0(); err != nil {
		return nil, err
	}
	if start {
		if v.W0, err = d.weights(wn, sparseW, "start weights"); err != nil {
			return nil, err
		}
		if v.B0, err = modelReadArray[float32](d, K, "start biases"); err != nil {
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

// UnmarshalBinary decodes a model encoded by MarshalBinary or WriteTo
// into m, replacing its contents; data must hold the one model and
// nothing after it. On failure m is left as it was and the error, which
// wraps ErrFormat, says what is wrong: not a model file, a version newer
// than this build reads, truncation, a checksum mismatch, or a model
// that fails Check.
func (m *Model) UnmarshalBinary(data []byte) error {
	return unmarshalFile(data, (*modelDecoder).decodeLinear, func(dm *Model) { *m = *dm })
}

// ReadModel reads one model written by WriteTo (or MarshalBinary) from
// r and leaves r just past it: it reads no more than the model, so a
// file is best wrapped in a bufio.Reader. Errors in the data wrap
// ErrFormat (see UnmarshalBinary); a read error of r is returned with
// context but does not. Memory is allocated only as data arrives, or
// after the sizes read are checked against the input's length where r
// tells it (a Len method, as bytes.Reader and bytes.Buffer have).
func ReadModel(r io.Reader) (*Model, error) {
	return readerDecoder(r).decodeLinear()
}

// Load reads the model file at path, written by Save. Errors in the file
// wrap ErrFormat and begin with the path.
func Load(path string) (*Model, error) {
	return loadFile(path, (*modelDecoder).decodeLinear)
}

// ---------------------------------------------------------------------------
// JSON

// modelJSONFormat is the "format" member of the JSON export.
const modelJSONFormat = "hyperplane-model"

// modelJSONVersion is the newest JSON version: 2 marks a model that
// normalizes rows, which a reader of version 1 would silently score
// unnormalized (it ignores fields it does not know); other models are
// written as version 1, as before.
//
// 3 marks a model that lists its columns ("cols"), whose weight rows a
// version 2 reader would refuse as too short.
const modelJSONVersion = 3

// modelJSON is the JSON export. Weights and start weights are given per
// weight row, Dim values each.
type modelJSON struct {
	jsonHead
	Algorithm string          `json:"algorithm"`
	Rule      string          `json:"rule,omitempty"`
	Normalize bool            `json:"normalize,omitempty"`
	BiasMode  string          `json:"bias_mode"`
	BiasScale modelJSONF32    `json:"bias_scale"`
	Classes   []float64       `json:"classes"`
	Dim       int             `json:"dim"`
	Cols      []int32         `json:"cols,omitempty"`
	Bias      modelJSONF32s   `json:"bias"`
	Weights   []modelJSONF32s `json:"weights"`
	Votes     *modelJSONVotes `json:"votes,omitempty"`
	// Scaling records Model.Scaling. The weights already include it, so
	// a reader that ignores it still scores rows right: no new version.
	Scaling *modelJSONScaling `json:"scaling,omitempty"`
}

type modelJSONScaling struct {
	Kind   string        `json:"kind"`
	Factor modelJSONF32s `json:"factor"`
	Center modelJSONF32s `json:"center,omitempty"`
}

type modelJSONVotes struct {
	Count0      int64           `json:"count0"`
	StartBias   modelJSONF32s   `json:"start_bias,omitempty"`
	StartWeight []modelJSONF32s `json:"start_weights,omitempty"`
	SV          modelJSONCSR    `json:"rows"`
	Steps       []modelJSONStep `json:"steps"`
}

type modelJSONCSR struct {
	Rows   int           `json:"rows"`
	Cols   int           `json:"cols"`
	Indptr []int64       `json:"indptr"`
	Ind    []int32       `json:"ind"`
	Val    modelJSONF32s `json:"val"`
}

// modelJSONRows splits feature-major weights into K rows of dim values.
func modelJSONRows(w []float32, dim, K int) []modelJSONF32s {
	rows := make([]modelJSONF32s, K)
	for k := range rows {
		r := make(modelJSONF32s, dim)
		for j := range r {
			r[j] = w[j*K+k]
		}
		rows[k] = r
	}
	return rows
}

// MarshalJSON exports m as a readable JSON object: "format"
// ("hyperplane-model"), "version" (1), "algorithm", "bias_mode",
// "bias_scale", "classes", "dim", "bias" (one per weight row), "weights"
// (one array of dim values per weight row, unlike the feature-major
// Model.W) and, for a voted model, "votes" with "count0", optional
// "start_bias" and "start_weights", the voted "rows" in CSR form and the
// "steps"; for a scaled model "scaling" with its "kind", "factor" and
// "center" (the weights include it, so readers that skip it score rows
// the same). Float32 values are written with the fewest digits that read
// back to the same value, so UnmarshalJSON restores m exactly. JSON has
// no NaN or infinity: a model holding one fails with ErrFormat.
func (m *Model) MarshalJSON() ([]byte, error) {
	if err := m.checkEncodable(); err != nil {
		return nil, err
	}
	K := m.NumRows()
	notJSON := modelNotJSON
	for i, c := range m.Classes {
		if math.IsInf(c, 0) {
			return nil, notJSON("class", i)
		}
	}
	if modelNonFinite([]float32{m.BiasScale}) >= 0 {
		return nil, notJSON("bias scale", 0)
	}
	if i := modelNonFinite(m.B); i >= 0 {
		return nil, notJSON("bias", i)
	}
	if i := modelNonFinite(m.W); i >= 0 {
		return nil, modelErr("weight of feature %d in row %d is not finite, which JSON cannot hold", i/K, i%K)
	}
	jm := modelJSON{
		jsonHead:  jsonHead{Format: modelJSONFormat, Version: modelFormatVersion},
		Algorithm: m.Algorithm.String(),
		BiasMode:  m.Bias.String(),
		BiasScale: modelJSONF32(m.BiasScale),
		Classes:   m.Classes,
		Dim:       m.Dim,
		Bias:      m.B,
		Weights:   modelJSONRows(m.W, m.stored(), K),
		Cols:      m.Cols,
	}
	if m.Rule != Perceptron {
		// Perceptron models leave the field out, as before it existed.
		jm.Rule = m.Rule.String()
	}
	if m.Normalize {
		jm.Normalize, jm.Version = true, 2
	}
	if m.Cols != nil {
		jm.Version = 3
	}
	if sc := m.Scaling; sc != nil {
		jm.Scaling = &modelJSONScaling{Kind: sc.Kind.String(), Factor: sc.Factor, Center: sc.Center}
	}
	if v := m.Votes; v != nil {
		if i := modelNonFinite(v.W0); i >= 0 {
			return nil, notJSON("start weight", i)
		}
		if i := modelNonFinite(v.B0); i >= 0 {
			return nil, notJSON("start bias", i)
		}
		jv := &modelJSONVotes{
			Count0: v.Count0,
			SV: modelJSONCSR{Rows: v.SV.Rows, Cols: v.SV.Cols, Indptr: v.SV.Indptr,
				Ind: v.SV.Ind, Val: v.SV.Val},
		}
		if jv.SV.Ind == nil {
			jv.SV.Ind = []int32{}
		}
		if v.W0 != nil {
			jv.StartBias = v.B0
			jv.StartWeight = modelJSONRows(v.W0, m.Dim, K)
		}
		steps, err := modelJSONSteps(v.Steps)
		if err != nil {
			return nil, err
		}
		jv.Steps = steps
		jm.Votes = jv
	}
	return json.Marshal(&jm)
}

// UnmarshalJSON reads a model exported by MarshalJSON into m, replacing
// its contents. On failure m is left as it was and the error wraps
// ErrFormat. As encoding/json expects of an Unmarshaler, JSON null
// leaves m as it is and is no error.
func (m *Model) UnmarshalJSON(data []byte) error {
	var jm modelJSON
	if null, err := jsonOpen(data, &jm, &jm.jsonHead, modelJSONFormat, "model", modelJSONVersion); null || err != nil {
		return err
	}
	alg, bias, rule, err := jsonEnums(jm.Algorithm, jm.BiasMode, jm.Rule, lastRule)
	if err != nil {
		return err
	}
	dm := &Model{
		Algorithm: alg,
		Rule:      rule,
		Normalize: jm.Normalize,
		Bias:      bias,
		BiasScale: float32(jm.BiasScale),
		Classes:   jm.Classes,
		Dim:       jm.Dim,
		B:         jm.Bias,
		Cols:      jm.Cols,
	}
	if err := jsonShape(len(dm.Classes), dm.Dim); err != nil {
		return err
	}
	K := dm.NumRows()
	if dm.Cols != nil && len(dm.Cols) > dm.Dim {
		return modelErr("%d columns for dim %d", len(dm.Cols), dm.Dim)
	}
	if dm.W, err = modelJSONWeights(jm.Weights, dm.stored(), K, "weights"); err != nil {
		return err
	}
	if jv := jm.Votes; jv != nil {
		v := &Votes{
			Count0: jv.Count0,
			SV: &sparse.CSR{Rows: jv.SV.Rows, Cols: jv.SV.Cols, Indptr: jv.SV.Indptr,
				Ind: jv.SV.Ind, Val: jv.SV.Val},
			B0: jv.StartBias,
		}
		if v.Count0 < 0 {
			return modelErr("negative vote count %d of the start vector", v.Count0)
		}
		if jv.StartWeight != nil || jv.StartBias != nil {
			if v.W0, err = modelJSONWeights(jv.StartWeight, dm.Dim, K, "start weights"); err != nil {
				return err
			}
			if v.B0 == nil {
				v.B0 = []float32{}
			}
		}
		v.Steps = modelStepsFromJSON(jv.Steps)
		dm.Votes = v
	}
	if js := jm.Scaling; js != nil {
		kind, err := ParseScale(js.Kind)
		if err != nil || kind == NoScale {
			return modelErr("unknown scaling %q", js.Kind)
		}
		dm.Scaling = &Scaling{Kind: kind, Factor: js.Factor, Center: js.Center}
	}
	if err := dm.Check(); err != nil {
		return err
	}
	dm.index()
	*m = *dm
	return nil
}

// modelJSONWeights checks that rows holds K rows of dim values and returns
// them feature-major.
func modelJSONWeights(rows []modelJSONF32s, dim, K int, what string) ([]float32, error) {
	if len(rows) != K {
		return nil, modelErr("%d rows of %s for %d", len(rows), what, K)
	}
	for k, r := range rows {
		if len(r) != dim {
			return nil, modelErr("row %d of %s has %d values for dim %d", k, what, len(r), dim)
		}
	}
	w := make([]float32, dim*K)
	for k, r := range rows {
		for j, x := range r {
			w[j*K+k] = x
		}
	}
	return w, nil
}
