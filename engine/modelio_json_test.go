package engine

// The JSON exports of both model kinds.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/kernels"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

func TestModelJSONRoundTrip(t *testing.T) {
	for _, c := range mioCases(false) {
		t.Run(c.name, func(t *testing.T) {
			b, err := json.Marshal(c.m)
			if err != nil {
				t.Fatal(err)
			}
			var got Model
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			if d := mioSame(&got, c.m); d != "" {
				t.Fatal(d)
			}
			// The weights are given per row.
			var raw struct {
				Weights [][]float32
				Bias    []float32
			}
			if err := json.Unmarshal(b, &raw); err != nil {
				t.Fatal(err)
			}
			K := c.m.NumRows()
			if len(raw.Weights) != K || len(raw.Bias) != K {
				t.Fatalf("%d weight rows and %d biases, want %d", len(raw.Weights), len(raw.Bias), K)
			}
			for k, row := range raw.Weights {
				if len(row) != c.m.Dim {
					t.Fatalf("row %d has %d weights, want %d", k, len(row), c.m.Dim)
				}
				for j, w := range row {
					if math.Float32bits(w) != math.Float32bits(c.m.Weight(k, j)) {
						t.Fatalf("weights[%d][%d] = %v, want %v", k, j, w, c.m.Weight(k, j))
					}
				}
			}
		})
	}
}

func TestModelJSONLayout(t *testing.T) {
	m := &Model{Classes: []float64{-1, 1}, Dim: 2, W: []float32{2, -1}, B: []float32{0.5}, BiasScale: 1}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"format":"hyperplane-model","version":1,"algorithm":"averaged","bias_mode":"separate","bias_scale":1,"classes":[-1,1],"dim":2,"bias":[0.5],"weights":[[2,-1]]}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	m3 := &Model{Algorithm: Plain, Bias: NoBias, Classes: []float64{0, 1, 2}, Dim: 2,
		W: []float32{1, 2, 3, 4, 5, 6}, B: []float32{0, 0, 0}}
	b, err = json.Marshal(m3)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"weights":[[1,4],[2,5],[3,6]]`) || !strings.Contains(string(b), `"bias_mode":"none"`) {
		t.Errorf("multiclass layout: %s", b)
	}
	v := mioModel(5, Voted, 2, 3, true, false)
	b, err = json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"votes":{"count0":`, `"start_weights":[[`, `"steps":[{"row":`, `"indptr":[0,`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("voted JSON lacks %s: %s", key, b)
		}
	}
}

func TestModelJSONNonFinite(t *testing.T) {
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	for i, mod := range []func(m *Model){
		func(m *Model) { m.W[4] = nan },
		func(m *Model) { m.B[0] = -inf },
		func(m *Model) { m.BiasScale = inf },
		func(m *Model) { m.Classes[0] = math.Inf(-1) },
		func(m *Model) { m.Votes.W0[1] = nan },
		func(m *Model) { m.Votes.B0[0] = inf },
		func(m *Model) { m.Votes.Steps[2].A = nan },
	} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			m := mioModel(5, Voted, 2, 6, true, false)
			mod(m)
			if _, err := json.Marshal(m); !errors.Is(err, ErrFormat) {
				t.Errorf("%v", err)
			}
		})
	}
	m := mioModel(5, Averaged, 3, 6, false, false)
	m.W[7] = nan
	_, err := m.MarshalJSON()
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "feature 2 in row 1 is not finite") {
		t.Errorf("NaN weight: %v", err)
	}
}

func TestModelJSONErrors(t *testing.T) {
	good, err := json.Marshal(mioModel(5, Voted, 3, 3, true, false))
	if err != nil {
		t.Fatal(err)
	}
	edit := func(f func(map[string]any)) string {
		var o map[string]any
		if err := json.Unmarshal(good, &o); err != nil {
			t.Fatal(err)
		}
		f(o)
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	votes := func(o map[string]any) map[string]any { return o["votes"].(map[string]any) }
	for _, c := range []struct{ name, data, want string }{
		{"syntax", `{"format":`, "JSON"},
		{"array", `[1,2]`, "JSON"},
		{"format", edit(func(o map[string]any) { o["format"] = "other" }), "not a hyperplane model file"},
		{"no-format", `{"version":1}`, "not a hyperplane model file"},
		{"newer", edit(func(o map[string]any) { o["version"] = 7 }), "format version 7 is newer than this build reads (3)"},
		{"version0", edit(func(o map[string]any) { delete(o, "version") }), "format version 0"},
		{"algorithm", edit(func(o map[string]any) { o["algorithm"] = "svm" }), `unknown algorithm "svm"`},
		{"bias-mode", edit(func(o map[string]any) { o["bias_mode"] = "x" }), `unknown bias mode "x"`},
		{"classes", edit(func(o map[string]any) { o["classes"] = []int{1} }), "1 classes"},
		{"dim", edit(func(o map[string]any) { o["dim"] = -1 }), "dim -1"},
		{"rows", edit(func(o map[string]any) { o["weights"] = [][]int{{1, 2, 3}} }), "1 rows of weights for 3"},
		{"row-length", edit(func(o map[string]any) { o["weights"].([]any)[1] = []int{1} }), "row 1 of weights has 1 values for dim 3"},
		{"bias", edit(func(o map[string]any) { o["bias"] = []int{1} }), "biases"},
		{"string-weight", edit(func(o map[string]any) { o["weights"].([]any)[0] = []any{"1", 2, 3} }), "JSON"},
		{"overflow", edit(func(o map[string]any) { o["weights"].([]any)[0] = []any{1e39, 2, 3} }), "JSON"},
		{"start-bias-only", edit(func(o map[string]any) { delete(votes(o), "start_weights") }), "0 rows of start weights"},
		{"start-weights-only", edit(func(o map[string]any) { delete(votes(o), "start_bias") }), "start weights do not match"},
		{"no-votes", edit(func(o map[string]any) { delete(o, "votes") }), "votes present only and always"},
		{"votes-on-averaged", edit(func(o map[string]any) { o["algorithm"] = "averaged" }), "votes present only and always"},
		{"count0", edit(func(o map[string]any) { votes(o)["count0"] = -2 }), "negative vote count"},
		{"sv-rows", edit(func(o map[string]any) { votes(o)["rows"].(map[string]any)["rows"] = 1 << 40 }), "voted rows"},
		{"step", edit(func(o map[string]any) { votes(o)["steps"].([]any)[0].(map[string]any)["up"] = 3 }), "vote step 0 out of range"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var m Model
			err := m.UnmarshalJSON([]byte(c.data))
			if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want …%s…", err, c.want)
			}
		})
	}
}

func TestKernelModelJSONRoundTrip(t *testing.T) {
	cases := append(kmioTrained(), kmioCase{"small", kmioSmall()},
		kmioCase{"no-sv", kmioModel(1, kernels.RBF{Gamma: 2}, Averaged, 3, 0, 5, 0.5)},
		kmioCase{"dim0", kmioModel(2, kernels.Sigmoid{}, Voted, 2, 3, 0, 0.5)})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := json.Marshal(c.m)
			if err != nil {
				t.Fatal(err)
			}
			var got KernelModel
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			if d := kmioSame(t, &got, c.m); d != "" {
				t.Fatal(d)
			}
			if !bytes.Equal(kmioEncode(t, &got), kmioEncode(t, c.m)) {
				t.Error("binary encodings differ after the JSON round trip")
			}
			if c.name != "small" {
				if d := kmioSamePredictions(t, &got, c.m); d != "" {
					t.Error(d)
				}
			}
			// The support vectors are given one object each.
			var raw struct {
				Kernel         string
				SupportVectors []struct {
					Ind  []int32
					Val  []float32
					Coef []float32
				} `json:"support_vectors"`
			}
			if err := json.Unmarshal(b, &raw); err != nil {
				t.Fatal(err)
			}
			if raw.Kernel != kmioEffective(t, c.m.Kernel).String() {
				t.Errorf("kernel %q, want %q", raw.Kernel, c.m.Kernel.String())
			}
			if len(raw.SupportVectors) != c.m.NumSV() {
				t.Fatalf("%d support vectors, want %d", len(raw.SupportVectors), c.m.NumSV())
			}
			K := c.m.NumRows()
			for i, s := range raw.SupportVectors {
				row := c.m.SV.Row(i)
				if fmt.Sprint(s.Ind) != fmt.Sprint(row.Ind) || !mioSameF32(s.Val, row.Val) && len(s.Val)+len(row.Val) > 0 ||
					!mioSameF32(s.Coef, c.m.Coef[i*K:(i+1)*K]) {
					t.Fatalf("support vector %d is %+v", i, s)
				}
			}
		})
	}
}

func TestKernelModelJSONLayout(t *testing.T) {
	sv := &sparse.CSR{Rows: 2, Cols: 3, Indptr: []int64{0, 2, 2}, Ind: []int32{0, 2}, Val: []float32{1, -0.5}}
	m := &KernelModel{
		Kernel: kernels.RBF{}, Classes: []float64{-1, 1}, Dim: 3, SV: sv, BiasScale: 1,
		Coef: []float32{0.25, -1}, B: []float32{0.5},
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"format":"hyperplane-kernel-model","version":1,"kernel":"rbf:gamma=1","algorithm":"averaged",` +
		`"bias_mode":"separate","bias_scale":1,"classes":[-1,1],"dim":3,"bias":[0.5],` +
		`"support_vectors":[{"ind":[0,2],"val":[1,-0.5],"coef":[0.25]},{"ind":[],"val":[],"coef":[-1]}]}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	v := kmioModel(5, kernels.Poly{Degree: 2}, Voted, 3, 2, 3, 0.5)
	b, err = json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"kernel":"poly:degree=2,gamma=1,coef0=0"`, `"votes":{"count0":`, `"steps":[{"row":`, `"coef":[`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("voted JSON lacks %s: %s", key, b)
		}
	}
}

func TestKernelModelJSONNonFinite(t *testing.T) {
	for i, mod := range []func(m *KernelModel){
		func(m *KernelModel) { m.BiasScale = float32(math.Inf(1)) },
		func(m *KernelModel) { m.BiasScale = float32(math.NaN()) },
		func(m *KernelModel) { m.Votes.Steps[1].A = float32(math.NaN()) },
		func(m *KernelModel) { m.Votes.Steps[0].A = float32(math.Inf(-1)) },
	} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			m := kmioModel(5, kernels.RBF{}, Voted, 2, 3, 3, 0.5)
			mod(m)
			if _, err := json.Marshal(m); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "not finite") {
				t.Errorf("%v", err)
			}
			// Nor does the binary format: Check refuses them (a loaded model
			// with a NaN step would vote at chance).
			if _, err := m.MarshalBinary(); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "not finite") {
				t.Errorf("binary: %v", err)
			}
		})
	}
}

func TestKernelModelJSONErrors(t *testing.T) {
	good, err := json.Marshal(kmioModel(5, kernels.RBF{}, Voted, 3, 3, 3, 0.6))
	if err != nil {
		t.Fatal(err)
	}
	edit := func(f func(map[string]any)) string {
		var o map[string]any
		if err := json.Unmarshal(good, &o); err != nil {
			t.Fatal(err)
		}
		f(o)
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	votes := func(o map[string]any) map[string]any { return o["votes"].(map[string]any) }
	sv := func(o map[string]any, i int) map[string]any { return o["support_vectors"].([]any)[i].(map[string]any) }
	for _, c := range []struct{ name, data, want string }{
		{"syntax", `{"format":`, "JSON"},
		{"array", `[1,2]`, "JSON"},
		{"format", edit(func(o map[string]any) { o["format"] = "hyperplane-model" }), "not a hyperplane kernel model file"},
		{"newer", edit(func(o map[string]any) { o["version"] = 7 }), "format version 7 is newer than this build reads (1)"},
		{"version0", edit(func(o map[string]any) { delete(o, "version") }), "format version 0"},
		{"kernel", edit(func(o map[string]any) { o["kernel"] = "svm" }), `kernel "svm"`},
		{"kernel-param", edit(func(o map[string]any) { o["kernel"] = "rbf:gamma=-1" }), "negative"},
		{"kernel-missing", edit(func(o map[string]any) { delete(o, "kernel") }), `kernel ""`},
		{"algorithm", edit(func(o map[string]any) { o["algorithm"] = "svm" }), `unknown algorithm "svm"`},
		{"batch", edit(func(o map[string]any) { o["algorithm"] = "batch"; delete(o, "votes") }), "has no kernel model"},
		{"bias-mode", edit(func(o map[string]any) { o["bias_mode"] = "x" }), `unknown bias mode "x"`},
		{"classes", edit(func(o map[string]any) { o["classes"] = []int{1} }), "1 classes"},
		{"dim", edit(func(o map[string]any) { o["dim"] = -1 }), "dim -1"},
		{"bias", edit(func(o map[string]any) { o["bias"] = []int{1} }), "biases"},
		{"ind-val", edit(func(o map[string]any) { sv(o, 0)["ind"] = []int{0}; sv(o, 0)["val"] = []int{} }), "support vector 0 has 1 indices and 0 values"},
		{"coef", edit(func(o map[string]any) { sv(o, 1)["coef"] = []int{1} }), "support vector 1 has 1 coefficients for 3 functions"},
		{"index", edit(func(o map[string]any) { sv(o, 0)["ind"] = []int{7}; sv(o, 0)["val"] = []int{1} }), "index 7 outside [0, 3)"},
		{"order", edit(func(o map[string]any) { sv(o, 0)["ind"] = []int{2, 1}; sv(o, 0)["val"] = []int{1, 1} }), "support vectors:"},
		{"overflow", edit(func(o map[string]any) { sv(o, 0)["coef"] = []any{1e39, 2, 3} }), "JSON"},
		{"no-votes", edit(func(o map[string]any) { delete(o, "votes") }), "votes present only and always"},
		{"votes-on-averaged", edit(func(o map[string]any) { o["algorithm"] = "averaged" }), "votes present only and always"},
		{"count0", edit(func(o map[string]any) { votes(o)["count0"] = -2 }), "negative vote count"},
		{"step", edit(func(o map[string]any) { votes(o)["steps"].([]any)[0].(map[string]any)["row"] = 3 }), "vote step 0 out of range"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var m KernelModel
			err := m.UnmarshalJSON([]byte(c.data))
			if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want …%s…", err, c.want)
			}
		})
	}
}
