// Command filesha prints the SHA-256 of every model file format the
// engine writes — linear, kernel, Mix and multi-label models, binary
// (MarshalBinary, WriteTo and Save, which must agree) and JSON — for a
// set of models fitted on generated data, and checks that each reads back
// to the same bytes. A change to the code of the file formats must leave
// its output unchanged: run it before and after and diff.
//
//	go run ./bench/filesha > before.txt
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/kernels"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// binaryModel is what every binary model type offers.
type binaryModel interface {
	MarshalBinary() ([]byte, error)
}

// rows returns n generated rows of dim features, each with a few small
// values, labelled in classes by the feature of largest value (mod
// classes), and the per-row label sets of a multi-label task.
func rows(n, dim, classes int, seed uint64) (*sparse.CSR, []float64, [][]int) {
	rng := rand.New(rand.NewPCG(seed, 3))
	var b sparse.Builder
	y := make([]float64, n)
	ys := make([][]int, n)
	for i := range n {
		seen := map[int32]bool{}
		var ind []int32
		for range 3 + rng.IntN(12) {
			if j := int32(rng.IntN(dim)); !seen[j] {
				seen[j] = true
				ind = append(ind, j)
			}
		}
		for a := range ind {
			for c := a + 1; c < len(ind); c++ {
				if ind[c] < ind[a] {
					ind[a], ind[c] = ind[c], ind[a]
				}
			}
		}
		val := make([]float32, len(ind))
		best, bj := float32(-1), int32(0)
		for k := range val {
			val[k] = float32(1 + rng.IntN(4))
			if val[k] > best {
				best, bj = val[k], ind[k]
			}
		}
		if err := b.Add(ind, val); err != nil {
			panic(err)
		}
		y[i] = float64(int(bj) % classes)
		ys[i] = []int{int(bj) % classes, int(bj/2) % classes}
	}
	X := b.Build()
	X.Cols = dim
	return X, y, ys
}

// loadMix reads a Mix file as ReadMix does.
func loadMix(p string) (binaryModel, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return engine.ReadMix(f, 0)
}

func sum(b []byte) string { s := sha256.Sum256(b); return fmt.Sprintf("%x", s[:8]) }

// report prints the hashes of m's binary and JSON encodings, after
// checking that WriteTo and Save write the same bytes as MarshalBinary
// and that load reads them back to the same encoding.
func report(name string, m binaryModel, load func(string) (binaryModel, error)) {
	b, err := m.MarshalBinary()
	if err != nil {
		fmt.Printf("%-28s marshal: %v\n", name, err)
		return
	}
	note := ""
	if w, ok := m.(interface {
		WriteTo(w io.Writer) (int64, error)
	}); ok {
		var buf bytes.Buffer
		if _, err := w.WriteTo(&buf); err != nil || !bytes.Equal(buf.Bytes(), b) {
			note += " WRITETO-DIFFERS"
		}
	}
	path := filepath.Join(os.TempDir(), "filesha.model")
	save := func(p string) error { return os.WriteFile(p, b, 0o644) }
	if s, ok := m.(interface{ Save(string) error }); ok {
		save = s.Save
	}
	{
		if err := save(path); err != nil {
			note += " SAVE-FAILED"
		} else if f, _ := os.ReadFile(path); !bytes.Equal(f, b) {
			note += " SAVE-DIFFERS"
		} else if back, err := load(path); err != nil {
			note += " LOAD-FAILED: " + err.Error()
		} else if bb, _ := back.MarshalBinary(); !bytes.Equal(bb, b) {
			note += " ROUNDTRIP-DIFFERS"
		}
		os.Remove(path)
	}
	js := "-"
	if _, ok := m.(json.Marshaler); ok {
		js = "err"
		if j, err := json.Marshal(m); err == nil {
			js = sum(j)
		}
	}
	fmt.Printf("%-28s %6d bytes  bin %s  json %s%s\n", name, len(b), sum(b), js, note)
}

func main() {
	ctx := context.Background()
	X, y, ys := rows(600, 300, 2, 1)
	Xm, ym, ysm := rows(600, 300, 5, 2)
	Xw, yw, _ := rows(400, 1<<21, 7, 3)
	loadLinear := func(p string) (binaryModel, error) { return engine.Load(p) }
	linear := []struct {
		name string
		X    *sparse.CSR
		y    []float64
		cfg  engine.Config
	}{
		{"averaged binary", X, y, engine.Config{Epochs: 3}},
		{"averaged multiclass", Xm, ym, engine.Config{Epochs: 3}},
		{"plain normalized", Xm, ym, engine.Config{Epochs: 3, Algorithm: engine.Plain, Normalize: true}},
		{"voted binary", X, y, engine.Config{Epochs: 2, Algorithm: engine.Voted}},
		{"voted init", Xm, ym, engine.Config{Epochs: 2, Algorithm: engine.Voted, InitScale: 0.01}},
		{"batch", X, y, engine.Config{Epochs: 3, Algorithm: engine.Batch}},
		{"pa1", Xm, ym, engine.Config{Epochs: 3, Rule: engine.PA1}},
		{"pegasos", X, y, engine.Config{Epochs: 3, Rule: engine.Pegasos}},
		{"logistic", Xm, ym, engine.Config{Epochs: 3, Rule: engine.Logistic}},
		{"standardized", Xm, ym, engine.Config{Epochs: 3, Scale: engine.Standardize}},
		{"maxabs", X, y, engine.Config{Epochs: 3, Scale: engine.MaxAbs}},
		{"wide compact", Xw, yw, engine.Config{Epochs: 2}},
		{"wide plain", Xw, yw, engine.Config{Epochs: 2, Algorithm: engine.Plain}},
	}
	for _, c := range linear {
		m, _, err := engine.Fit(ctx, c.X, c.y, c.cfg)
		if err != nil {
			fmt.Printf("%-28s fit: %v\n", c.name, err)
			continue
		}
		report("linear "+c.name, m, loadLinear)
		if mix, err := m.Warm(); err == nil {
			report("mix of "+c.name, mix, loadMix)
		}
	}
	loadKernel := func(p string) (binaryModel, error) { return engine.LoadKernel(p) }
	kern := []struct {
		name string
		cfg  engine.KernelConfig
	}{
		{"rbf", engine.KernelConfig{Config: engine.Config{Epochs: 2}, Kernel: kernels.RBF{Gamma: 0.1}}},
		{"poly voted", engine.KernelConfig{Config: engine.Config{Epochs: 2, Algorithm: engine.Voted}, Kernel: kernels.Poly{Degree: 2}}},
		{"sigmoid pa2", engine.KernelConfig{Config: engine.Config{Epochs: 2, Rule: engine.PA2}, Kernel: kernels.Sigmoid{Gamma: 0.01}}},
		{"linear budget", engine.KernelConfig{Config: engine.Config{Epochs: 2, Algorithm: engine.Plain}, Kernel: kernels.Linear{}, MaxSupportVectors: 50}},
	}
	for i, c := range kern {
		Xk, yk := X, y
		if i%2 == 1 {
			Xk, yk = Xm, ym
		}
		m, _, err := engine.FitKernel(ctx, Xk, yk, c.cfg)
		if err != nil {
			fmt.Printf("%-28s fit: %v\n", c.name, err)
			continue
		}
		report("kernel "+c.name, m, loadKernel)
	}
	mixes(X, y, Xm, ym)
	loadML := func(p string) (binaryModel, error) { return engine.LoadMultiLabel(p) }
	for _, c := range []struct {
		name    string
		X       *sparse.CSR
		Y       [][]int
		classes int
		cfg     engine.MultiLabelConfig
	}{
		{"multilabel", X, ys, 2, engine.MultiLabelConfig{Epochs: 3}},
		{"multilabel platt", Xm, ysm, 5, engine.MultiLabelConfig{Epochs: 3, Holdout: 0.2}},
		{"multilabel ranking", Xm, ysm, 5, engine.MultiLabelConfig{Epochs: 2, Ranking: true, Rule: engine.PA1}},
	} {
		m, err := engine.FitMultiLabel(ctx, c.X, c.Y, c.classes, c.cfg)
		if err != nil {
			fmt.Printf("%-28s fit: %v\n", c.name, err)
			continue
		}
		report(c.name, m, loadML)
	}
}

// mixes reports the Mix files of online learners: a state with its
// history, a delta, a sparse state and its dense form.
func mixes(X *sparse.CSR, y []float64, Xm *sparse.CSR, ym []float64) {
	ctx := context.Background()
	for _, c := range []struct {
		name    string
		X       *sparse.CSR
		y       []float64
		classes []float64
	}{{"binary", X, y, []float64{0, 1}}, {"multiclass", Xm, ym, []float64{0, 1, 2, 3, 4}}} {
		l, err := engine.NewLearner(c.classes, c.X.Cols, engine.Config{})
		if err != nil {
			fmt.Printf("mix %s: %v\n", c.name, err)
			continue
		}
		half := c.X.Rows / 2
		if _, err := l.PartialFit(ctx, c.X.Slice(0, half), c.y[:half]); err != nil {
			fmt.Printf("mix %s: %v\n", c.name, err)
			continue
		}
		base, _ := l.Mix()
		if _, err := l.PartialFit(ctx, c.X.Slice(half, c.X.Rows), c.y[half:]); err != nil {
			fmt.Printf("mix %s: %v\n", c.name, err)
			continue
		}
		st, _ := l.Mix()
		report("mix state "+c.name, st, loadMix)
		if d, err := st.Delta(base); err == nil {
			report("mix delta "+c.name, d, loadMix)
		}
		if ld, err := l.Delta(); err == nil {
			report("mix learner delta "+c.name, ld, loadMix)
		}
		if sp, err := st.Compact(); err == nil {
			report("mix sparse "+c.name, sp, loadMix)
			if de, err := sp.Dense(); err == nil {
				report("mix dense "+c.name, de, loadMix)
			}
		}
	}
}
