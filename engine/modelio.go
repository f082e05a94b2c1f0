package engine

// Model files: a Model in the linear model's file format and JSON export,
// whose layout package modelfile holds (linear.go, json.go there). This
// file converts a Model to and from the plain form that package encodes,
// and checks what the numbers of a file mean.

import (
	"fmt"
	"io"

	"github.com/hyperplane-ml/hyperplane/engine/internal/modelfile"
)

// modelErr returns an error wrapping ErrFormat.
func modelErr(format string, a ...any) error { return modelfile.Errf(format, a...) }

// checkEncodable verifies m with Check and the limits of the file format.
func (m *Model) checkEncodable() error {
	if err := m.Check(); err != nil {
		return err
	}
	if m.Dim > modelfile.MaxDim || len(m.Classes) > modelfile.MaxDim {
		return fmt.Errorf("%w: dim %d or %d classes beyond the model file's limit %d", ErrDim, m.Dim, len(m.Classes), modelfile.MaxDim)
	}
	if v := m.Votes; v != nil {
		if v.SV.Rows > modelfile.MaxDim {
			return fmt.Errorf("%w: %d voted rows beyond the model file's limit %d", ErrDim, v.SV.Rows, modelfile.MaxDim)
		}
		if v.Count0 < 0 {
			return modelErr("negative vote count %d of the start vector", v.Count0)
		}
	}
	return nil
}

// plain returns m as its file holds it, sharing m's arrays.
func (m *Model) plain() *modelfile.Linear {
	f := &modelfile.Linear{
		Algorithm: uint8(m.Algorithm), Bias: uint8(m.Bias), Rule: uint8(m.Rule), Normalize: m.Normalize,
		BiasScale: m.BiasScale, Classes: m.Classes, Dim: m.Dim, B: m.B, Cols: m.Cols, W: m.W,
		Votes: plainVotes(m.Votes),
	}
	if sc := m.Scaling; sc != nil {
		f.Scaling = &modelfile.Scaling{Kind: uint64(sc.Kind), Factor: sc.Factor, Center: sc.Center}
	}
	return f
}

// The scaling kinds are stored as their numbers (an index out of range
// fails to compile when they differ).
var (
	_ = [1]int{}[Standardize-modelfile.ScaleStandard]
	_ = [1]int{}[MaxAbs-modelfile.ScaleMaxAbs]
)

// modelOf returns the model f holds, sharing its arrays; its scaling's
// kind is f's number of it.
func modelOf(f *modelfile.Linear) *Model {
	m := &Model{
		Algorithm: Algorithm(f.Algorithm), Bias: BiasMode(f.Bias), Rule: Rule(f.Rule), Normalize: f.Normalize,
		BiasScale: f.BiasScale, Classes: f.Classes, Dim: f.Dim, B: f.B, Cols: f.Cols, W: f.W,
		Votes: votesOf(f.Votes),
	}
	if sc := f.Scaling; sc != nil {
		m.Scaling = &Scaling{Kind: Scale(sc.Kind), Factor: sc.Factor, Center: sc.Center}
	}
	return m
}

// plainVotes returns v as a file holds it, sharing its arrays but for the
// steps.
func plainVotes(v *Votes) *modelfile.Votes {
	if v == nil {
		return nil
	}
	f := &modelfile.Votes{Count0: v.Count0, W0: v.W0, B0: v.B0, SV: v.SV}
	if v.Steps != nil {
		f.Steps = make([]modelfile.Step, len(v.Steps))
		for i, s := range v.Steps {
			f.Steps[i] = modelfile.Step(s)
		}
	}
	return f
}

// votesOf returns the votes f holds, sharing its arrays but for the
// steps.
func votesOf(f *modelfile.Votes) *Votes {
	if f == nil {
		return nil
	}
	v := &Votes{Count0: f.Count0, W0: f.W0, B0: f.B0, SV: f.SV}
	if f.Steps != nil {
		v.Steps = make([]VoteStep, len(f.Steps))
		for i, s := range f.Steps {
			v.Steps[i] = VoteStep(s)
		}
	}
	return v
}

// file checks m and returns its file sections, with the smaller encoding
// of the weights.
func (m *Model) file() (*modelfile.Linear, error) {
	if err := m.checkEncodable(); err != nil {
		return nil, err
	}
	f := m.plain()
	f.ChooseWeights()
	return f, nil
}

// MarshalBinary encodes m in the binary model format (see WriteTo). It
// fails, without encoding anything, when m does not pass Check or
// exceeds the format's limits (dim or classes beyond 2³¹−1).
func (m *Model) MarshalBinary() ([]byte, error) { return modelfile.Marshal(m.file) }

// WriteTo writes m to w in the binary model format, version 1: a header,
// the classes, biases and weights as raw little-endian float bits (the
// weights only those not zero, after a bitmap of them, when that is
// smaller), the voted perceptron's record when there is one, and a
// CRC-32C checksum of it all. It writes through a small buffer of its
// own, so a model needs no second copy in memory. It returns the number
// of bytes written; an invalid model (see MarshalBinary) is refused
// before anything is written.
func (m *Model) WriteTo(w io.Writer) (int64, error) { return modelfile.Write(w, m.file) }

// Save writes m to the file path in the binary model format. The file is
// replaced atomically (see atomicfile.Write): on failure, including
// a model that cannot be encoded, an existing file at path is left as it
// was.
func (m *Model) Save(path string) error { return modelfile.Save(path, m.file) }

// decodeLinear reads one linear model and its checksum, and checks the
// model.
func decodeLinear(d *modelfile.Decoder) (*Model, error) {
	if err := d.ExpectMagic(modelfile.LinearMagic, "model"); err != nil {
		return nil, err
	}
	return decodeLinearAfterMagic(d)
}

// decodeLinearAfterMagic is decodeLinear past the magic: the header,
// whose algorithm, bias mode and rule it checks before the counts, and
// the rest (of the kept features only, when d keeps some).
func decodeLinearAfterMagic(d *modelfile.Decoder) (*Model, error) {
	h, err := d.LinearHead()
	if err != nil {
		return nil, err
	}
	if err := checkHeaderKinds(h); err != nil {
		return nil, err
	}
	if err := h.CheckShape(); err != nil {
		return nil, err
	}
	f, err := d.LinearBody(h)
	if err != nil {
		return nil, err
	}
	m := modelOf(f)
	if err := m.Check(); err != nil {
		return nil, err
	}
	m.index()
	return m, nil
}

// checkHeaderKinds checks the algorithm, bias mode and rule of the
// header h, and that they agree with its flags.
func checkHeaderKinds(h modelfile.LinearHead) error {
	alg, bias, rule := Algorithm(h.Algorithm), BiasMode(h.Bias), Rule(h.Rule)
	if h.Flags&modelfile.LinearNorm != 0 && alg == Voted {
		return modelErr("a voted model does not normalize rows")
	}
	if h.Reserved != 0 {
		return modelErr("reserved header byte is not zero")
	}
	if alg > Batch || bias > NoBias || rule > lastRule {
		return modelErr("unknown algorithm %d, bias mode %d or rule %d", h.Algorithm, h.Bias, h.Rule)
	}
	if rule != Perceptron && alg != Averaged && alg != Plain {
		return modelErr("rule %v with algorithm %v", rule, alg)
	}
	if (alg == Voted) != (h.Flags&modelfile.LinearVotes != 0) {
		return modelErr("votes present only and always for the voted algorithm")
	}
	return nil
}

// UnmarshalBinary decodes a model encoded by MarshalBinary or WriteTo
// into m, replacing its contents; data must hold the one model and
// nothing after it. On failure m is left as it was and the error, which
// wraps ErrFormat, says what is wrong: not a model file, a version newer
// than this build reads, truncation, a checksum mismatch, or a model
// that fails Check.
func (m *Model) UnmarshalBinary(data []byte) error {
	return modelfile.Unmarshal(data, decodeLinear, func(dm *Model) { *m = *dm })
}

// ReadModel reads one model written by WriteTo (or MarshalBinary) from
// r and leaves r just past it: it reads no more than the model, so a
// file is best wrapped in a bufio.Reader. Errors in the data wrap
// ErrFormat (see UnmarshalBinary); a read error of r is returned with
// context but does not. Memory is allocated only as data arrives, or
// after the sizes read are checked against the input's length where r
// tells it (a Len method, as bytes.Reader and bytes.Buffer have).
func ReadModel(r io.Reader) (*Model, error) {
	return decodeLinear(modelfile.NewDecoder(r))
}

// Load reads the model file at path, written by Save. Errors in the file
// wrap ErrFormat and begin with the path.
func Load(path string) (*Model, error) {
	return modelfile.Load(path, decodeLinear)
}

// names returns the names the JSON export gives m's enums.
func (m *Model) names() modelfile.Names {
	n := modelfile.Names{Algorithm: m.Algorithm.String(), Bias: m.Bias.String()}
	if m.Rule != Perceptron {
		// Perceptron models leave the rule out, as before it existed.
		n.Rule = m.Rule.String()
	}
	if m.Scaling != nil {
		n.Scaling = m.Scaling.Kind.String()
	}
	return n
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
	return modelfile.MarshalLinearJSON(m.plain(), m.names())
}

// UnmarshalJSON reads a model exported by MarshalJSON into m, replacing
// its contents. On failure m is left as it was and the error wraps
// ErrFormat. As encoding/json expects of an Unmarshaler, JSON null
// leaves m as it is and is no error.
func (m *Model) UnmarshalJSON(data []byte) error {
	j, null, err := modelfile.ReadLinearJSON(data)
	if null || err != nil {
		return err
	}
	alg, bias, rule, err := jsonEnums(j.Algorithm, j.BiasMode, j.Rule, lastRule)
	if err != nil {
		return err
	}
	f, err := j.Model()
	if err != nil {
		return err
	}
	dm := modelOf(f)
	dm.Algorithm, dm.Bias, dm.Rule = alg, bias, rule
	if js := j.Scaling; js != nil {
		kind, err := ParseScale(js.Kind)
		if err != nil || kind == NoScale {
			return modelErr("unknown scaling %q", js.Kind)
		}
		dm.Scaling.Kind = kind
	}
	if err := dm.Check(); err != nil {
		return err
	}
	dm.index()
	*m = *dm
	return nil
}

// jsonEnums parses the "algorithm", "bias_mode" and "rule" members of an
// export; an absent rule is the perceptron's (files written before the
// rule was recorded), and a rule past maxRule is refused.
func jsonEnums(algorithm, biasMode, rule string, maxRule Rule) (Algorithm, BiasMode, Rule, error) {
	alg, err := ParseAlgorithm(algorithm)
	if err != nil {
		return 0, 0, 0, modelErr("unknown algorithm %q", algorithm)
	}
	bias, err := ParseBiasMode(biasMode)
	if err != nil {
		return 0, 0, 0, modelErr("unknown bias mode %q", biasMode)
	}
	r := Perceptron
	if rule != "" {
		if r, err = ParseRule(rule); err != nil || r > maxRule {
			return 0, 0, 0, modelErr("unknown rule %q", rule)
		}
	}
	return alg, bias, r, nil
}
