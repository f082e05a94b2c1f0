package engine_test

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/kernels"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// benchFiles returns models of each file format, large enough that
// encoding and decoding dominate: dense weights, sparse weights (a
// multiclass model whose classes use a few features each), a kernel
// model, a Mix with its accumulators, and a multi-label model.
func benchFiles(b *testing.B) map[string]interface {
	MarshalBinary() ([]byte, error)
} {
	rng := rand.New(rand.NewPCG(1, 2))
	dense := &engine.Model{Classes: []float64{-1, 1}, Dim: 1 << 20, W: make([]float32, 1<<20), B: []float32{0.5}}
	for i := range dense.W {
		dense.W[i] = rng.Float32() - 0.5
	}
	const classes, dim = 20, 100_000
	sp := &engine.Model{Classes: make([]float64, classes), Dim: dim, W: make([]float32, classes*dim), B: make([]float32, classes)}
	for c := range sp.Classes {
		sp.Classes[c] = float64(c)
	}
	for range len(sp.W) / 20 {
		sp.W[rng.IntN(len(sp.W))] = rng.Float32() + 0.1
	}
	var sb sparse.Builder
	for range 4000 {
		ind := make([]int32, 0, 64)
		for j := int32(rng.IntN(8)); j < 1000 && len(ind) < 64; j += 1 + int32(rng.IntN(30)) {
			ind = append(ind, j)
		}
		val := make([]float32, len(ind))
		for k := range val {
			val[k] = rng.Float32()
		}
		if err := sb.Add(ind, val); err != nil {
			b.Fatal(err)
		}
	}
	SV := sb.Build()
	SV.Cols = 1000
	km := &engine.KernelModel{Kernel: kernels.RBF{Gamma: 0.5}, Classes: []float64{-1, 1}, Dim: 1000, SV: SV,
		Coef: make([]float32, SV.Rows), B: []float32{0}}
	for i := range km.Coef {
		km.Coef[i] = rng.Float32() + 0.1
	}
	mix, err := dense.Warm()
	if err != nil {
		b.Fatal(err)
	}
	mix.U, mix.UB = make([]float64, len(mix.W)), make([]float64, 1)
	X := sparse.Builder{}
	Y := make([][]int, 2000)
	for i := range Y {
		ind := []int32{int32(rng.IntN(1000)), 1000 + int32(rng.IntN(49_000))}
		if err := X.Add(ind, []float32{1, 1}); err != nil {
			b.Fatal(err)
		}
		Y[i] = []int{rng.IntN(50), rng.IntN(50)}
	}
	XM := X.Build()
	XM.Cols = 50_000
	ml, err := engine.FitMultiLabel(context.Background(), XM, Y, 50, engine.MultiLabelConfig{Epochs: 2})
	if err != nil {
		b.Fatal(err)
	}
	return map[string]interface {
		MarshalBinary() ([]byte, error)
	}{"dense": dense, "sparse": sp, "kernel": km, "mix": mix, "multilabel": ml}
}

// BenchmarkModelFiles times writing and reading each file format: in
// memory (MarshalBinary, UnmarshalBinary or its equivalent), through a
// stream where the format has one (WriteTo, Read…), and as a file (Save,
// Load…).
func BenchmarkModelFiles(b *testing.B) {
	models := benchFiles(b)
	dir := b.TempDir()
	for _, name := range []string{"dense", "sparse", "kernel", "mix", "multilabel"} {
		m := models[name]
		data, err := m.MarshalBinary()
		if err != nil {
			b.Fatal(err)
		}
		path := filepath.Join(dir, name)
		var save func(string) error
		var unmarshal func([]byte) error
		var read func(*bytes.Reader) error
		var load func(string) error
		switch m := m.(type) {
		case *engine.Model:
			save = m.Save
			unmarshal = func(p []byte) error { var got engine.Model; return got.UnmarshalBinary(p) }
			read = func(r *bytes.Reader) error { _, err := engine.ReadModel(r); return err }
			load = func(p string) error { _, err := engine.Load(p); return err }
		case *engine.KernelModel:
			save = m.Save
			unmarshal = func(p []byte) error { var got engine.KernelModel; return got.UnmarshalBinary(p) }
			read = func(r *bytes.Reader) error { _, err := engine.ReadKernelModel(r); return err }
			load = func(p string) error { _, err := engine.LoadKernel(p); return err }
		case *engine.Mix:
			unmarshal = func(p []byte) error { var got engine.Mix; return got.UnmarshalBinary(p) }
			read = func(r *bytes.Reader) error { _, err := engine.ReadMix(r, 0); return err }
		case *engine.MultiLabelModel:
			save = m.Save
			unmarshal = func(p []byte) error { _, err := engine.UnmarshalMultiLabel(p); return err }
			load = func(p string) error { _, err := engine.LoadMultiLabel(p); return err }
		}
		b.Run(name+"/marshal", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := m.MarshalBinary(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/unmarshal", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if err := unmarshal(data); err != nil {
					b.Fatal(err)
				}
			}
		})
		if w, ok := m.(interface {
			WriteTo(io.Writer) (int64, error)
		}); ok {
			b.Run(name+"/write", func(b *testing.B) {
				var buf bytes.Buffer
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					buf.Reset()
					if _, err := w.WriteTo(&buf); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		if read != nil {
			b.Run(name+"/read", func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					if err := read(bytes.NewReader(data)); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		if save != nil {
			b.Run(name+"/save", func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					if err := save(path); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(name+"/load", func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					if err := load(path); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
