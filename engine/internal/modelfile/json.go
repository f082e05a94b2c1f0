package modelfile

// The JSON exports of linear and kernel models.
//
// Both begin with "format" and "version" and give the enums by name (the
// engine's String forms, which it parses back), the weights per weight
// row and float32 values with the fewest digits that read back to the
// same value. JSON has no NaN or infinity: a model holding one cannot be
// exported.

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"

	"github.com/hyperplane-ml/hyperplane/kernels"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// jsonHead is the "format" and "version" members that begin an export of
// either kind (embedded first, so that they come first).
type jsonHead struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
}

// jsonOpen begins an UnmarshalJSON: it reports JSON null, which an
// Unmarshaler takes as no change and no error; otherwise it unmarshals
// data into v, the export's struct, and checks h, its head, for an
// export of kind with the given "format", of version 1 to newest.
func jsonOpen(data []byte, v any, h *jsonHead, format, kind string, newest int) (null bool, err error) {
	if string(bytes.TrimSpace(data)) == "null" {
		return true, nil
	}
	if err := json.Unmarshal(data, v); err != nil {
		return false, Errf("JSON: %v", err)
	}
	switch {
	case h.Format != format:
		return false, Errf("not a hyperplane %s file", kind)
	case h.Version > newest:
		return false, Errf("format version %d is newer than this build reads (%d)", h.Version, newest)
	case h.Version < 1:
		return false, Errf("format version %d does not exist", h.Version)
	}
	return false, nil
}

// jsonShape checks the number of classes and the dim of an export, and
// returns its number of weight rows.
func jsonShape(classes, dim int) (int, error) {
	if classes < 2 {
		return 0, Errf("%d classes", classes)
	}
	if dim < 0 || dim > MaxDim {
		return 0, Errf("dim %d", dim)
	}
	return rows(classes), nil
}

// Names are the names an export gives a model's enums: its algorithm,
// bias mode, rule ("" for the perceptron, which the export leaves out,
// as before the rule was recorded) and scaling kind.
type Names struct {
	Algorithm, Bias, Rule, Scaling string
}

type jsonStep struct {
	Row   int32   `json:"row"`
	Up    int32   `json:"up"`
	Down  int32   `json:"down"`
	A     jsonF32 `json:"a"`
	Count int64   `json:"count"`
}

// notJSON is the error for a non-finite value that JSON cannot hold.
func notJSON(what string, i int) error {
	return Errf("%s %d is not finite, which JSON cannot hold", what, i)
}

// jsonSteps converts vote steps for JSON; a non-finite step is an error.
func jsonSteps(steps []Step) ([]jsonStep, error) {
	out := make([]jsonStep, len(steps))
	for i, s := range steps {
		if nonFinite([]float32{s.A}) >= 0 {
			return nil, notJSON("vote step", i)
		}
		out[i] = jsonStep{Row: s.Row, Up: s.Up, Down: s.Down, A: jsonF32(s.A), Count: s.Count}
	}
	return out, nil
}

// stepsFromJSON converts vote steps read from JSON.
func stepsFromJSON(steps []jsonStep) []Step {
	out := make([]Step, len(steps))
	for i, s := range steps {
		out[i] = Step{Row: s.Row, Up: s.Up, Down: s.Down, A: float32(s.A), Count: s.Count}
	}
	return out
}

// jsonF32 and jsonF32s write float32 values with the fewest digits that
// read back to the same float32; encoding/json, decoding into a float32,
// reads them back exactly.
type jsonF32 float32
type jsonF32s []float32

func (x jsonF32) MarshalJSON() ([]byte, error) {
	return strconv.AppendFloat(nil, float64(x), 'g', -1, 32), nil
}

func (s jsonF32s) MarshalJSON() ([]byte, error) {
	if s == nil {
		return []byte("[]"), nil
	}
	b := make([]byte, 0, 2+len(s)*8)
	b = append(b, '[')
	for i, x := range s {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendFloat(b, float64(x), 'g', -1, 32)
	}
	return append(b, ']'), nil
}

// nonFinite returns the index of the first NaN or infinite value of s,
// or −1.
func nonFinite(s []float32) int {
	for i, x := range s {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return i
		}
	}
	return -1
}

// ---------------------------------------------------------------------------
// Linear models

// linearJSONFormat is the "format" member of the linear model's export.
const linearJSONFormat = "hyperplane-model"

// linearJSONVersion is the newest JSON version: 2 marks a model that
// normalizes rows, which a reader of version 1 would silently score
// unnormalized (it ignores fields it does not know); other models are
// written as version 1, as before.
//
// 3 marks a model that lists its columns ("cols"), whose weight rows a
// version 2 reader would refuse as too short.
const linearJSONVersion = 3

// LinearJSON is the JSON export of a linear model. Weights and start
// weights are given per weight row, Dim values each.
type LinearJSON struct {
	jsonHead
	Algorithm string     `json:"algorithm"`
	Rule      string     `json:"rule,omitempty"`
	Normalize bool       `json:"normalize,omitempty"`
	BiasMode  string     `json:"bias_mode"`
	BiasScale jsonF32    `json:"bias_scale"`
	Classes   []float64  `json:"classes"`
	Dim       int        `json:"dim"`
	Cols      []int32    `json:"cols,omitempty"`
	Bias      jsonF32s   `json:"bias"`
	Weights   []jsonF32s `json:"weights"`
	Votes     *jsonVotes `json:"votes,omitempty"`
	// Scaling records the model's scaling. The weights already include
	// it, so a reader that ignores it still scores rows right: no new
	// version.
	Scaling *JSONScaling `json:"scaling,omitempty"`
}

// JSONScaling is the "scaling" member of a linear model's export.
type JSONScaling struct {
	Kind   string   `json:"kind"`
	Factor jsonF32s `json:"factor"`
	Center jsonF32s `json:"center,omitempty"`
}

type jsonVotes struct {
	Count0      int64      `json:"count0"`
	StartBias   jsonF32s   `json:"start_bias,omitempty"`
	StartWeight []jsonF32s `json:"start_weights,omitempty"`
	SV          jsonCSR    `json:"rows"`
	Steps       []jsonStep `json:"steps"`
}

type jsonCSR struct {
	Rows   int      `json:"rows"`
	Cols   int      `json:"cols"`
	Indptr []int64  `json:"indptr"`
	Ind    []int32  `json:"ind"`
	Val    jsonF32s `json:"val"`
}

// jsonRows splits feature-major weights into K rows of dim values.
func jsonRows(w []float32, dim, K int) []jsonF32s {
	rows := make([]jsonF32s, K)
	for k := range rows {
		r := make(jsonF32s, dim)
		for j := range r {
			r[j] = w[j*K+k]
		}
		rows[k] = r
	}
	return rows
}

// stored returns the number of features whose weights f holds.
func (f *Linear) stored() int {
	if f.Cols != nil {
		return len(f.Cols)
	}
	return f.Dim
}

// MarshalLinearJSON returns the JSON export of f, a model that passes
// the engine's checks, whose enums are named n. A model holding a value
// that is not finite fails with ErrFormat.
func MarshalLinearJSON(f *Linear, n Names) ([]byte, error) {
	K := rows(len(f.Classes))
	for i, c := range f.Classes {
		if math.IsInf(c, 0) {
			return nil, notJSON("class", i)
		}
	}
	if nonFinite([]float32{f.BiasScale}) >= 0 {
		return nil, notJSON("bias scale", 0)
	}
	if i := nonFinite(f.B); i >= 0 {
		return nil, notJSON("bias", i)
	}
	if i := nonFinite(f.W); i >= 0 {
		return nil, Errf("weight of feature %d in row %d is not finite, which JSON cannot hold", i/K, i%K)
	}
	jm := LinearJSON{
		jsonHead:  jsonHead{Format: linearJSONFormat, Version: linearVersion},
		Algorithm: n.Algorithm,
		Rule:      n.Rule,
		BiasMode:  n.Bias,
		BiasScale: jsonF32(f.BiasScale),
		Classes:   f.Classes,
		Dim:       f.Dim,
		Bias:      f.B,
		Weights:   jsonRows(f.W, f.stored(), K),
		Cols:      f.Cols,
	}
	if f.Normalize {
		jm.Normalize, jm.Version = true, 2
	}
	if f.Cols != nil {
		jm.Version = 3
	}
	if sc := f.Scaling; sc != nil {
		jm.Scaling = &JSONScaling{Kind: n.Scaling, Factor: sc.Factor, Center: sc.Center}
	}
	if v := f.Votes; v != nil {
		jv, err := votesJSON(v, f.Dim, K)
		if err != nil {
			return nil, err
		}
		jm.Votes = jv
	}
	return json.Marshal(&jm)
}

// votesJSON returns the export of the votes of a model of dim features
// and K weight rows.
func votesJSON(v *Votes, dim, K int) (*jsonVotes, error) {
	if i := nonFinite(v.W0); i >= 0 {
		return nil, notJSON("start weight", i)
	}
	if i := nonFinite(v.B0); i >= 0 {
		return nil, notJSON("start bias", i)
	}
	jv := &jsonVotes{
		Count0: v.Count0,
		SV:     jsonCSR{Rows: v.SV.Rows, Cols: v.SV.Cols, Indptr: v.SV.Indptr, Ind: v.SV.Ind, Val: v.SV.Val},
	}
	if jv.SV.Ind == nil {
		jv.SV.Ind = []int32{}
	}
	if v.W0 != nil {
		jv.StartBias = v.B0
		jv.StartWeight = jsonRows(v.W0, dim, K)
	}
	steps, err := jsonSteps(v.Steps)
	if err != nil {
		return nil, err
	}
	jv.Steps = steps
	return jv, nil
}

// ReadLinearJSON unmarshals a linear model's export and checks its format
// and version; null reports JSON null, which leaves a model as it is.
// The engine parses the enums' names, then Model returns the model.
func ReadLinearJSON(data []byte) (j *LinearJSON, null bool, err error) {
	j = new(LinearJSON)
	if null, err := jsonOpen(data, j, &j.jsonHead, linearJSONFormat, "model", linearJSONVersion); null || err != nil {
		return nil, null, err
	}
	return j, false, nil
}

// Model returns the model j exports, its enums and scaling kind left 0
// for the engine to set from their names. It checks the shapes of the
// arrays against the counts; the engine's checks do the rest.
func (j *LinearJSON) Model() (*Linear, error) {
	K, err := jsonShape(len(j.Classes), j.Dim)
	if err != nil {
		return nil, err
	}
	f := &Linear{
		Normalize: j.Normalize,
		BiasScale: float32(j.BiasScale),
		Classes:   j.Classes,
		Dim:       j.Dim,
		B:         j.Bias,
		Cols:      j.Cols,
	}
	if f.Cols != nil && len(f.Cols) > f.Dim {
		return nil, Errf("%d columns for dim %d", len(f.Cols), f.Dim)
	}
	if f.W, err = jsonWeights(j.Weights, f.stored(), K, "weights"); err != nil {
		return nil, err
	}
	if jv := j.Votes; jv != nil {
		v := &Votes{
			Count0: jv.Count0,
			SV: &sparse.CSR{Rows: jv.SV.Rows, Cols: jv.SV.Cols, Indptr: jv.SV.Indptr,
				Ind: jv.SV.Ind, Val: jv.SV.Val},
			B0: jv.StartBias,
		}
		if v.Count0 < 0 {
			return nil, Errf("negative vote count %d of the start vector", v.Count0)
		}
		if jv.StartWeight != nil || jv.StartBias != nil {
			if v.W0, err = jsonWeights(jv.StartWeight, f.Dim, K, "start weights"); err != nil {
				return nil, err
			}
			if v.B0 == nil {
				v.B0 = []float32{}
			}
		}
		v.Steps = stepsFromJSON(jv.Steps)
		f.Votes = v
	}
	if js := j.Scaling; js != nil {
		f.Scaling = &Scaling{Factor: js.Factor, Center: js.Center}
	}
	return f, nil
}

// jsonWeights checks that rows holds K rows of dim values and returns
// them feature-major.
func jsonWeights(rows []jsonF32s, dim, K int, what string) ([]float32, error) {
	if len(rows) != K {
		return nil, Errf("%d rows of %s for %d", len(rows), what, K)
	}
	for k, r := range rows {
		if len(r) != dim {
			return nil, Errf("row %d of %s has %d values for dim %d", k, what, len(r), dim)
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

// ---------------------------------------------------------------------------
// Kernel models

// kernelJSONFormat is the "format" member of the kernel model's export.
const kernelJSONFormat = "hyperplane-kernel-model"

// KernelJSON is the JSON export of a kernel model.
type KernelJSON struct {
	jsonHead
	Kernel         string           `json:"kernel"`
	Algorithm      string           `json:"algorithm"`
	Rule           string           `json:"rule,omitempty"`
	BiasMode       string           `json:"bias_mode"`
	BiasScale      jsonF32          `json:"bias_scale"`
	Classes        []float64        `json:"classes"`
	Dim            int              `json:"dim"`
	Bias           jsonF32s         `json:"bias"`
	SupportVectors []jsonSV         `json:"support_vectors"`
	Votes          *jsonKernelVotes `json:"votes,omitempty"`
}

// jsonSV is one support vector: its nonzero entries as parallel arrays
// of indices and values, and its K coefficients.
type jsonSV struct {
	Ind  []int32  `json:"ind"`
	Val  jsonF32s `json:"val"`
	Coef jsonF32s `json:"coef"`
}

type jsonKernelVotes struct {
	Count0 int64      `json:"count0"`
	Steps  []jsonStep `json:"steps"`
}

// MarshalKernelJSON returns the JSON export of f, a model that passes
// the engine's checks, whose enums are named n. A model holding a value
// that is not finite fails with ErrFormat.
func MarshalKernelJSON(f *Kernel, n Names) ([]byte, error) {
	k, err := f.Params.Kernel()
	if err != nil {
		return nil, err
	}
	if nonFinite([]float32{f.BiasScale}) >= 0 {
		return nil, notJSON("bias scale", 0)
	}
	K := rows(len(f.Classes))
	jm := KernelJSON{
		jsonHead:       jsonHead{Format: kernelJSONFormat, Version: kernelVersion},
		Kernel:         k.String(),
		Algorithm:      n.Algorithm,
		Rule:           n.Rule,
		BiasMode:       n.Bias,
		BiasScale:      jsonF32(f.BiasScale),
		Classes:        f.Classes,
		Dim:            f.Dim,
		Bias:           f.B,
		SupportVectors: make([]jsonSV, f.SV.Rows),
	}
	for i := range jm.SupportVectors {
		a, b := f.SV.Indptr[i], f.SV.Indptr[i+1]
		ind := f.SV.Ind[a:b:b]
		if ind == nil {
			ind = []int32{}
		}
		jm.SupportVectors[i] = jsonSV{
			Ind:  ind,
			Val:  f.SV.Val[a:b:b],
			Coef: f.Coef[i*K : (i+1)*K],
		}
	}
	if v := f.Votes; v != nil {
		steps, err := jsonSteps(v.Steps)
		if err != nil {
			return nil, err
		}
		jm.Votes = &jsonKernelVotes{Count0: v.Count0, Steps: steps}
	}
	return json.Marshal(&jm)
}

// ReadKernelJSON unmarshals a kernel model's export and checks its
// format and version; null reports JSON null, which leaves a model as it
// is. Then ParseKernel returns its kernel, the engine parses the enums'
// names, and Model returns the model.
func ReadKernelJSON(data []byte) (j *KernelJSON, null bool, err error) {
	j = new(KernelJSON)
	if null, err := jsonOpen(data, j, &j.jsonHead, kernelJSONFormat, "kernel model", kernelVersion); null || err != nil {
		return nil, null, err
	}
	return j, false, nil
}

// ParseKernel returns the kernel j names, with its parameters explicit
// as a binary file stores them, and their stored form.
func (j *KernelJSON) ParseKernel() (kernels.Kernel, KernelParams, error) {
	k, err := kernels.Parse(j.Kernel)
	if err != nil {
		return nil, KernelParams{}, Errf("kernel %q: %w", j.Kernel, err)
	}
	p, ok := ParamsOf(k)
	if !ok {
		return nil, KernelParams{}, Errf("kernel %q is not one a file holds", j.Kernel)
	}
	if k, err = p.Kernel(); err != nil {
		return nil, KernelParams{}, err
	}
	return k, p, nil
}

// Model returns the model j exports with the kernel p, its enums left 0
// for the engine to set from their names. It checks the shapes of the
// arrays against the counts; the engine's checks do the rest.
func (j *KernelJSON) Model(p KernelParams) (*Kernel, error) {
	K, err := jsonShape(len(j.Classes), j.Dim)
	if err != nil {
		return nil, err
	}
	f := &Kernel{
		Params:    p,
		BiasScale: float32(j.BiasScale),
		Classes:   j.Classes,
		Dim:       j.Dim,
		B:         j.Bias,
	}
	var nnz int
	for i, s := range j.SupportVectors {
		if len(s.Ind) != len(s.Val) {
			return nil, Errf("support vector %d has %d indices and %d values", i, len(s.Ind), len(s.Val))
		}
		if len(s.Coef) != K {
			return nil, Errf("support vector %d has %d coefficients for %d functions", i, len(s.Coef), K)
		}
		nnz += len(s.Ind)
	}
	sv := &sparse.CSR{
		Rows:   len(j.SupportVectors),
		Cols:   f.Dim,
		Indptr: make([]int64, len(j.SupportVectors)+1),
		Ind:    make([]int32, 0, nnz),
		Val:    make([]float32, 0, nnz),
	}
	f.Coef = make([]float32, 0, sv.Rows*K)
	for i, s := range j.SupportVectors {
		sv.Ind = append(sv.Ind, s.Ind...)
		sv.Val = append(sv.Val, s.Val...)
		sv.Indptr[i+1] = int64(len(sv.Ind))
		f.Coef = append(f.Coef, s.Coef...)
	}
	f.SV = sv
	if jv := j.Votes; jv != nil {
		f.Votes = &Votes{SV: sv, Count0: jv.Count0, Steps: stepsFromJSON(jv.Steps)}
	}
	return f, nil
}
