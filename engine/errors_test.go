package engine_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/engine/calibrate"
	"github.com/hyperplane-ml/hyperplane/engine/textmodel"
	"github.com/hyperplane-ml/hyperplane/kernels"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

// errUserKernel is a kernel that no model file can hold.
type errUserKernel struct{}

func (errUserKernel) Dense(x, z []float32) float64      { return kernels.Dot(x, z) }
func (errUserKernel) Sparse(x, z sparse.Vector) float64 { return kernels.SparseDot(x, z) }
func (errUserKernel) String() string                    { return "user" }

// TestErrorsWrapSentinels walks representative bad inputs of engine,
// engine/textmodel, engine/calibrate and kernels, and checks that each
// error wraps the sentinel its package documents for that problem, so a
// caller can tell them apart with errors.Is.
func TestErrorsWrapSentinels(t *testing.T) {
	ctx := context.Background()
	X := sparse.FromDense([][]float32{{1, 0}, {0, 1}, {1, 1}, {0, 2}})
	y := []float64{-1, 1, -1, 1}
	empty := &sparse.CSR{Cols: 2, Indptr: []int64{0}}
	nan := sparse.FromDense([][]float32{{float32(math.NaN()), 1}, {0, 1}})
	model, _, err := engine.Fit(ctx, X, y, engine.Config{Epochs: 1})
	if err != nil {
		t.Fatal(err)
	}
	kmodel, _, err := engine.FitKernel(ctx, X, y, engine.KernelConfig{Config: engine.Config{Epochs: 1}})
	if err != nil {
		t.Fatal(err)
	}
	learner, err := engine.NewLearner([]float64{-1, 1}, 2, engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	voted, _, err := engine.Fit(ctx, X, y, engine.Config{Algorithm: engine.Voted, Epochs: 1})
	if err != nil {
		t.Fatal(err)
	}
	wide := &engine.Model{Classes: []float64{0, 1}, Dim: 2, W: []float32{1}, B: []float32{0}}
	docs, labels := []string{"good fine", "bad awful", "fine good", "awful bad"}, []string{"pos", "neg", "pos", "neg"}
	tm, _, err := textmodel.Fit(ctx, docs, labels, textmodel.Config{NoCalibration: true})
	if err != nil {
		t.Fatal(err)
	}
	ktm, err := textmodel.New(tm.Featurizer(), mustKernel(t, tm))
	if err != nil {
		t.Fatal(err)
	}
	var tmFile bytes.Buffer
	if _, err := tm.WriteTo(&tmFile); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name string
		want error
		err  func() error
	}{
		// engine: data and labels.
		{"Fit no rows", engine.ErrNoData, func() error { _, _, err := engine.Fit(ctx, empty, nil, engine.Config{}); return err }},
		{"Fit labels short", engine.ErrLabels, func() error { _, _, err := engine.Fit(ctx, X, y[:3], engine.Config{}); return err }},
		{"Fit one class", engine.ErrLabels, func() error { _, _, err := engine.Fit(ctx, X, []float64{1, 1, 1, 1}, engine.Config{}); return err }},
		{"Fit NaN label", engine.ErrLabels, func() error {
			_, _, err := engine.Fit(ctx, X, []float64{1, math.NaN(), 1, 0}, engine.Config{})
			return err
		}},
		{"Fit NaN value", engine.ErrDiverged, func() error { _, _, err := engine.Fit(ctx, nan, y[:2], engine.Config{}); return err }},
		{"NewLearner too wide", engine.ErrDim, func() error {
			_, err := engine.NewLearner([]float64{0, 1}, 5, engine.Config{MaxDim: 4})
			return err
		}},
		{"Learn past MaxDim", engine.ErrDim, func() error {
			l, err := engine.NewLearner([]float64{0, 1}, 1, engine.Config{MaxDim: 1})
			if err != nil {
				return err
			}
			_, err = l.Learn(X.Row(1), 1)
			return err
		}},
		{"Fit memory", engine.ErrMemory, func() error {
			_, _, err := engine.Fit(ctx, X, y, engine.Config{MemoryBudget: 1})
			return err
		}},
		{"FitKernel labels short", engine.ErrLabels, func() error {
			_, _, err := engine.FitKernel(ctx, X, y[:1], engine.KernelConfig{})
			return err
		}},
		{"Learn unknown label", engine.ErrUnknownLabel, func() error { _, err := learner.Learn(X.Row(0), 7); return err }},
		{"Margins unknown label", engine.ErrUnknownLabel, func() error { _, err := engine.Margins(model, X, []float64{-1, 1, 5, 1}); return err }},
		{"CrossValidate no rows", engine.ErrNoData, func() error { _, err := engine.CrossValidate(ctx, empty, nil, engine.Config{}, 2); return err }},

		// engine: bad options, all ErrConfig.
		{"ParseAlgorithm", engine.ErrConfig, func() error { _, err := engine.ParseAlgorithm("best"); return err }},
		{"ParseRule", engine.ErrConfig, func() error { _, err := engine.ParseRule("pa9"); return err }},
		{"ParseBiasMode", engine.ErrConfig, func() error { _, err := engine.ParseBiasMode("sideways"); return err }},
		{"Config Epochs", engine.ErrConfig, func() error { _, _, err := engine.Fit(ctx, X, y, engine.Config{Epochs: -1}); return err }},
		{"Config LearningRate", engine.ErrConfig, func() error {
			_, _, err := engine.Fit(ctx, X, y, engine.Config{LearningRate: math.NaN()})
			return err
		}},
		{"Config ClassWeight", engine.ErrConfig, func() error {
			_, _, err := engine.Fit(ctx, X, y, engine.Config{ClassWeight: map[float64]float64{3: 1}})
			return err
		}},
		{"Config SampleWeight", engine.ErrConfig, func() error {
			_, _, err := engine.Fit(ctx, X, y, engine.Config{SampleWeight: []float64{1}})
			return err
		}},
		{"KernelConfig MaxSupportVectors", engine.ErrConfig, func() error {
			_, _, err := engine.FitKernel(ctx, X, y, engine.KernelConfig{MaxSupportVectors: -1})
			return err
		}},
		{"KernelConfig batch", engine.ErrConfig, func() error {
			_, _, err := engine.FitKernel(ctx, X, y, engine.KernelConfig{Config: engine.Config{Algorithm: engine.Batch}})
			return err
		}},
		{"KernelConfig bad kernel", engine.ErrConfig, func() error {
			_, _, err := engine.FitKernel(ctx, X, y, engine.KernelConfig{Kernel: kernels.Poly{Degree: 99}})
			return err
		}},
		{"NewLearner batch", engine.ErrConfig, func() error {
			_, err := engine.NewLearner([]float64{0, 1}, 2, engine.Config{Algorithm: engine.Batch})
			return err
		}},
		{"LearnWeighted weight", engine.ErrConfig, func() error { _, err := learner.LearnWeighted(X.Row(0), 1, -1); return err }},
		{"Folds k", engine.ErrConfig, func() error { _, err := engine.Folds(y, 1, 0); return err }},
		{"Margins voted", engine.ErrConfig, func() error { _, err := engine.Margins(voted, X, y); return err }},
		{"save user kernel", engine.ErrConfig, func() error {
			m := &engine.KernelModel{Kernel: errUserKernel{}, Algorithm: kmodel.Algorithm, Rule: kmodel.Rule, Bias: kmodel.Bias,
				BiasScale: kmodel.BiasScale, Classes: kmodel.Classes, Dim: kmodel.Dim, SV: kmodel.SV, Coef: kmodel.Coef, B: kmodel.B}
			_, err := m.MarshalBinary()
			return err
		}},

		// engine: model files and models.
		{"Model.Check", engine.ErrFormat, func() error { return wide.Check() }},
		{"MarshalBinary invalid", engine.ErrFormat, func() error { _, err := wide.MarshalBinary(); return err }},
		{"UnmarshalBinary garbage", engine.ErrFormat, func() error { return new(engine.Model).UnmarshalBinary([]byte("HPLMjunk")) }},
		{"UnmarshalBinary kernel", engine.ErrFormat, func() error { return new(engine.KernelModel).UnmarshalBinary([]byte("HPKM")) }},
		{"ReadClassifier magic", engine.ErrFormat, func() error { _, err := engine.ReadClassifier(strings.NewReader("HPXX....")); return err }},
		{"UnmarshalJSON", engine.ErrFormat, func() error { return new(engine.Model).UnmarshalJSON([]byte(`{"format":"x"}`)) }},
		{"kernel JSON bad kernel", kernels.ErrKernel, func() error {
			return new(engine.KernelModel).UnmarshalJSON([]byte(`{"format":"hyperplane-kernel-model","version":1,"kernel":"rbf:gamma=-1"}`))
		}},
		{"kernel JSON bad kernel is a format error", engine.ErrFormat, func() error {
			return new(engine.KernelModel).UnmarshalJSON([]byte(`{"format":"hyperplane-kernel-model","version":1,"kernel":"rbf:gamma=-1"}`))
		}},
		{"kernel file bad kernel", kernels.ErrKernel, func() error {
			b, err := kmodel.MarshalBinary()
			if err != nil {
				return err
			}
			binary.LittleEndian.PutUint64(b[24:], math.Float64bits(math.Inf(1))) // the kernel's gamma
			return new(engine.KernelModel).UnmarshalBinary(b)
		}},
		{"JSON not finite", engine.ErrFormat, func() error {
			m := *model
			m.B = []float32{float32(math.Inf(1))}
			_, err := m.MarshalJSON()
			return err
		}},

		// engine/textmodel.
		{"textmodel.Fit labels short", engine.ErrLabels, func() error {
			_, _, err := textmodel.Fit(ctx, docs, labels[:3], textmodel.Config{})
			return err
		}},
		{"textmodel.Fit Holdout", engine.ErrConfig, func() error {
			_, _, err := textmodel.Fit(ctx, docs, labels, textmodel.Config{Holdout: 0.9})
			return err
		}},
		{"textmodel.Fit text option", text.ErrConfig, func() error {
			_, _, err := textmodel.Fit(ctx, docs, labels, textmodel.Config{Text: text.Config{NGrams: -1}})
			return err
		}},
		{"textmodel.New mismatch", textmodel.ErrMismatch, func() error {
			_, err := textmodel.New(tm.Featurizer(), &engine.Model{Classes: []float64{5, 6}, Dim: 1, W: []float32{1}, B: []float32{0}})
			return err
		}},
		{"textmodel.New no classifier", textmodel.ErrMismatch, func() error { _, err := textmodel.New(tm.Featurizer(), nil); return err }},
		{"textmodel.New no featurizer", textmodel.ErrMismatch, func() error { _, err := textmodel.New(nil, tm.Classifier()); return err }},
		{"textmodel.NameFeatures", engine.ErrConfig, func() error { return tm.NameFeatures(nil, 0, 0) }},
		{"textmodel.Explain kernel", textmodel.ErrNotLinear, func() error { _, _, _, err := ktm.Explain("good", 3); return err }},
		{"textmodel.Read garbage", textmodel.ErrFormat, func() error { _, err := textmodel.Read(strings.NewReader("HPTMjunk")); return err }},
		{"textmodel.Read corrupt", textmodel.ErrFormat, func() error {
			b := bytes.Clone(tmFile.Bytes())
			b[len(b)-1] ^= 1
			_, err := textmodel.Read(bytes.NewReader(b))
			return err
		}},

		// engine/calibrate.
		{"NewPlatt", calibrate.ErrParam, func() error { _, err := calibrate.NewPlatt(math.NaN(), 0); return err }},
		{"NewTemperature", calibrate.ErrParam, func() error { _, err := calibrate.NewTemperature(-1); return err }},
		{"FitPlatt lengths", calibrate.ErrLength, func() error { _, err := calibrate.FitPlatt([]float32{1}, nil); return err }},
		{"FitPlatt no rows", calibrate.ErrNoData, func() error { _, err := calibrate.FitPlatt(nil, nil); return err }},
		{"FitTemperature class", calibrate.ErrClass, func() error {
			_, err := calibrate.FitTemperature([]float32{1, 2}, 2, []int{5})
			return err
		}},
		{"FitPlatt score", calibrate.ErrScore, func() error {
			_, err := calibrate.FitPlatt([]float32{float32(math.NaN()), 1}, []bool{true, false})
			return err
		}},
		{"Calibration.UnmarshalBinary", calibrate.ErrFormat, func() error { return new(calibrate.Calibration).UnmarshalBinary([]byte{9}) }},

		// kernels.
		{"kernels.Parse", kernels.ErrKernel, func() error { _, err := kernels.Parse("wavelet"); return err }},
		{"kernels.Check", kernels.ErrKernel, func() error { return kernels.Check(kernels.RBF{Gamma: -1}) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.err()
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want one wrapping %q", err, c.want)
			}
		})
	}
}

// mustKernel returns a kernel model trained on tm's features of a few
// documents, with tm's classes.
func mustKernel(t *testing.T, tm *textmodel.Model) *engine.KernelModel {
	t.Helper()
	f := tm.Featurizer()
	var rows [][]float32
	var y []float64
	for i, doc := range []string{"good fine", "bad awful"} {
		v := f.Transform(doc)
		row := make([]float32, f.Dim())
		for k, j := range v.Ind {
			row[j] = v.Val[k]
		}
		rows = append(rows, row)
		y = append(y, tm.Classes()[i])
	}
	km, _, err := engine.FitKernel(context.Background(), sparse.FromDense(rows), y, engine.KernelConfig{Config: engine.Config{Epochs: 1}})
	if err != nil {
		t.Fatal(err)
	}
	return km
}
