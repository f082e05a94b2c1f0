package engine

// The fuzz targets of both model formats, their seeds and the seed files
// under testdata/fuzz.

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/kernels"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/budget/budgettest"
)

// mioSeeds are the inputs FuzzUnmarshalBinary starts from, besides the
// files in testdata/fuzz.
func mioSeeds() [][]byte {
	var seeds [][]byte
	for _, m := range []*Model{
		mioModel(1, Averaged, 2, 3, false, true),
		mioModel(2, Plain, 3, 2, false, true),
		mioModel(3, Voted, 2, 2, true, true),
		mioModel(4, Voted, 3, 0, false, false),
		{Classes: []float64{1, 2, 3}, Dim: 1 << 30, Cols: []int32{5, 1 << 20, 1 << 29},
			W: []float32{1, 2, 3, -1, -2, -3, 0.5, 0, 0}, B: []float32{0, 1, 2}, Rule: PA2, Normalize: true},
		mioSparseSmall(),
		mioSparse(27, Voted, 3, 12, true, 0.2),
		mioSmall(),
	} {
		b, err := m.MarshalBinary()
		if err != nil {
			panic(err)
		}
		seeds = append(seeds, b)
	}
	// A file written dense by a writer that knew no other encoding.
	return append(seeds, mioMarshalAs(mioSparseSmall(), false))
}

// mioFuzzCheck decodes data both ways and, when it decodes, checks that
// the model is valid and that its encoding is data itself.
func mioFuzzCheck(t *testing.T, data []byte) {
	var m Model
	err := m.UnmarshalBinary(data)
	sm, serr := ReadModel(mioOnlyReader{bytes.NewReader(data)})
	// Read for some of its features, the model gives a format error or
	// ErrNoSubset, or, when it reads whole, its weights of those features.
	keep := []int32{0, 2, 5}
	part, perr := ReadClassifierFeatures(mioOnlyReader{bytes.NewReader(data)}, keep)
	if perr != nil && !errors.Is(perr, ErrFormat) && !errors.Is(perr, ErrMemory) && !errors.Is(perr, ErrNoSubset) {
		t.Fatalf("reading for features %v: %v", keep, perr)
	}
	if err == nil && m.Votes == nil && !errors.Is(perr, ErrNoSubset) {
		if perr != nil {
			t.Fatalf("reading for features %v fails where the whole model reads: %v", keep, perr)
		}
		for i, j := range keep[:part.Dim] {
			for k := range m.NumRows() {
				if math.Float32bits(part.Weight(k, i)) != math.Float32bits(m.Weight(k, int(j))) {
					t.Fatalf("feature %d row %d weighs %v read for features %v, %v read whole", j, k, part.Weight(k, i), keep, m.Weight(k, int(j)))
				}
			}
		}
	}
	if err != nil {
		// A format error, or a refusal by the budget (budgettest.Within
		// runs each input under a small one).
		if !errors.Is(err, ErrFormat) && !errors.Is(err, ErrMemory) {
			t.Fatalf("error wrapping neither ErrFormat nor ErrMemory: %v", err)
		}
		if serr != nil && !errors.Is(serr, ErrFormat) && !errors.Is(serr, ErrMemory) {
			t.Fatalf("stream error wrapping neither ErrFormat nor ErrMemory: %v", serr)
		}
		if serr == nil && !strings.Contains(err.Error(), "trailing data") {
			t.Fatalf("stream decoded what UnmarshalBinary rejects: %v", err)
		}
		return
	}
	if serr != nil {
		t.Fatalf("UnmarshalBinary decoded what ReadModel rejects: %v", serr)
	}
	if d := mioSame(sm, &m); d != "" {
		t.Fatalf("ReadModel and UnmarshalBinary disagree: %s", d)
	}
	if err := m.Check(); err != nil {
		t.Fatalf("decoded model fails Check: %v", err)
	}
	b, err := m.MarshalBinary()
	if err != nil {
		t.Fatalf("decoded model does not encode: %v", err)
	}
	// The writer picks the smaller of the dense and sparse encodings of
	// the weights; data may hold the other, as an older writer's files
	// do, and must then be exactly that.
	if !bytes.Equal(b, data) && !bytes.Equal(mioMarshalAs(&m, mioFlags(data)&modelFlagSparse != 0), data) {
		t.Fatal("re-encoding differs from the input")
	}
	var m2 Model
	if err := m2.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if d := mioSame(&m2, &m); d != "" {
		t.Fatal(d)
	}
}

// FuzzUnmarshalBinary decodes arbitrary bytes, and the same bytes with
// their last four replaced by a valid checksum, so that the fuzzer gets
// past the checksum into the structure.
func FuzzUnmarshalBinary(f *testing.F) {
	for _, s := range mioSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// Under a small budget, within twice it (see budgettest.Within).
		defer budgettest.Within(t, 64<<20)()
		mioFuzzCheck(t, data)
		mioFuzzCheck(t, mioFixCRC(data))
	})
}

// kmioSeeds are the inputs FuzzUnmarshalKernelModel starts from, besides
// the files in testdata/fuzz. They are built by hand, so that a change to
// training does not change them.
func kmioSeeds() [][]byte {
	var seeds [][]byte
	for _, m := range []*KernelModel{
		kmioModel(1, kernels.RBF{Gamma: 0.5}, Averaged, 2, 3, 3, 0.5),
		kmioModel(2, kernels.Linear{}, Plain, 3, 2, 2, 0.7),
		kmioModel(3, kernels.Sigmoid{Gamma: 0.1, Coef0: -1}, Voted, 2, 2, 3, 0.5),
		kmioModel(4, kernels.Poly{}, Averaged, 3, 0, 2, 0.5),
		kmioSmall(),
	} {
		b, err := m.MarshalBinary()
		if err != nil {
			panic(err)
		}
		seeds = append(seeds, b)
	}
	return seeds
}

// kmioFuzzCheck decodes data both ways and, when it decodes, checks that
// the model is valid, that its encoding is data itself, that it survives
// JSON when JSON can hold it, and that it predicts without panicking.
func kmioFuzzCheck(t *testing.T, data []byte) {
	var m KernelModel
	err := m.UnmarshalBinary(data)
	sm, serr := ReadKernelModel(mioOnlyReader{bytes.NewReader(data)})
	if err != nil {
		// A format error, or a refusal by the budget (budgettest.Within
		// runs each input under a small one).
		if !errors.Is(err, ErrFormat) && !errors.Is(err, ErrMemory) {
			t.Fatalf("error wrapping neither ErrFormat nor ErrMemory: %v", err)
		}
		if serr != nil && !errors.Is(serr, ErrFormat) && !errors.Is(serr, ErrMemory) {
			t.Fatalf("stream error wrapping neither ErrFormat nor ErrMemory: %v", serr)
		}
		if serr == nil && !strings.Contains(err.Error(), "trailing data") {
			t.Fatalf("stream decoded what UnmarshalBinary rejects: %v", err)
		}
		return
	}
	if serr != nil {
		t.Fatalf("UnmarshalBinary decoded what ReadKernelModel rejects: %v", serr)
	}
	if d := kmioSame(t, sm, &m); d != "" {
		t.Fatalf("ReadKernelModel and UnmarshalBinary disagree: %s", d)
	}
	if err := m.Check(); err != nil {
		t.Fatalf("decoded model fails Check: %v", err)
	}
	b, err := m.MarshalBinary()
	if err != nil {
		t.Fatalf("decoded model does not encode: %v", err)
	}
	if !bytes.Equal(b, data) {
		t.Fatal("re-encoding differs from the input")
	}
	if js, err := json.Marshal(&m); err == nil {
		var jm KernelModel
		if err := json.Unmarshal(js, &jm); err != nil {
			t.Fatalf("JSON export does not read back: %v", err)
		}
		if d := kmioSame(t, &jm, &m); d != "" {
			t.Fatalf("JSON round trip: %s", d)
		}
	} else if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "not finite") {
		t.Fatalf("JSON export: %v", err)
	}
	// Prediction takes scratch of Dim floats (see kmodel.go), which a
	// short file can make huge; the fuzzer predicts only with small ones.
	if m.Dim <= 1<<16 {
		_ = m.Predict(sparse.Vector{Dim: m.Dim})
		_ = m.DecisionDense(make([]float32, m.Dim))
		_ = m.PredictBatch(m.SV, nil)
	}
}

// FuzzUnmarshalKernelModel decodes arbitrary bytes, and the same bytes
// with their last four replaced by a valid checksum, so that the fuzzer
// gets past the checksum into the structure.
func FuzzUnmarshalKernelModel(f *testing.F) {
	for _, s := range kmioSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// Under a small budget, within twice it (see budgettest.Within).
		defer budgettest.Within(t, 64<<20)()
		kmioFuzzCheck(t, data)
		kmioFuzzCheck(t, mioFixCRC(data))
	})
}

// TestModelTestdata checks that the fuzz seed files are the ones the
// current seeds give (so a format change cannot leave stale seeds behind);
// with HYPERPLANE_WRITE_TESTDATA=1 it rewrites them and the golden file
// instead.
func TestModelTestdata(t *testing.T) {
	write := os.Getenv("HYPERPLANE_WRITE_TESTDATA") == "1"
	if write {
		if err := os.WriteFile(filepath.Join("testdata", "model_v1.hpm"), mioEncode(t, mioSmall()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzUnmarshalBinary")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	seeds := mioSeeds()
	small := seeds[7]
	named := map[string][]byte{
		"binary":          seeds[0],
		"multiclass":      seeds[1],
		"voted-start":     seeds[2],
		"voted-dim0":      seeds[3],
		"compact":         seeds[4],
		"sparse":          seeds[5],
		"sparse-voted":    seeds[6],
		"dense-zeros":     seeds[8],
		"small":           small,
		"truncated":       small[:len(small)/2],
		"bad-checksum":    append(bytes.Clone(small[:len(small)-4]), 0, 0, 0, 0),
		"huge-dim":        append(mioHeader(1, 0, 0, 0, 2, 1, 1<<31-1), 1, 2, 3, 4, 5, 6, 7, 8),
		"newer-version":   append(mioHeader(2, 0, 0, 0, 2, 1, 0), 0, 0, 0, 0),
		"magic-only":      []byte(modelMagic),
		"multiclass-huge": append(mioHeader(1, 0, 0, 0, 1<<30, 1<<30, 1<<30), 0, 0, 0, 0),
	}
	for name, b := range named {
		content := "go test fuzz v1\n[]byte(" + strconv.Quote(string(b)) + ")\n"
		path := filepath.Join(dir, name)
		if write {
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if got, err := os.ReadFile(path); err != nil || string(got) != content {
			t.Errorf("%s is missing or stale (%v): regenerate with HYPERPLANE_WRITE_TESTDATA=1", path, err)
		}
	}
}

// TestKernelModelTestdata checks that the fuzz seed files are the ones
// the current seeds give (so a format change cannot leave stale seeds
// behind) and runs them; with HYPERPLANE_WRITE_TESTDATA=1 it rewrites
// them and the golden file instead.
func TestKernelModelTestdata(t *testing.T) {
	write := os.Getenv("HYPERPLANE_WRITE_TESTDATA") == "1"
	if write {
		if err := os.WriteFile(filepath.Join("testdata", "kmodel_v1.hpk"), kmioEncode(t, kmioSmall()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzUnmarshalKernelModel")
	if write {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	seeds := kmioSeeds()
	small := seeds[len(seeds)-1]
	named := map[string][]byte{
		"binary-rbf":        seeds[0],
		"multiclass-linear": seeds[1],
		"voted-sigmoid":     seeds[2],
		"poly-no-sv":        seeds[3],
		"small":             small,
		"truncated":         small[:len(small)/2],
		"bad-checksum":      append(bytes.Clone(small[:len(small)-4]), 0, 0, 0, 0),
		"bad-kernel":        mioFixCRC(append(kmioHeader(1, 0, 0, 0, 2, 0, 0, 0, 2, 1, 0), 0, 0, 0, 0)),
		"huge-dim":          append(kmioHeader(1, 0, 0, 0, 0, 0, 0, 0, 2, 1, 1<<31-1), 1, 2, 3, 4, 5, 6, 7, 8),
		"huge-classes":      append(kmioHeader(1, 0, 0, 0, 0, 0, 0, 0, 1<<30, 1<<30, 1<<30), 0, 0, 0, 0),
		"newer-version":     append(kmioHeader(2, 0, 0, 0, 0, 0, 0, 0, 2, 1, 0), 0, 0, 0, 0),
		"magic-only":        []byte(kmodelMagic),
	}
	for name, b := range named {
		content := "go test fuzz v1\n[]byte(" + strconv.Quote(string(b)) + ")\n"
		path := filepath.Join(dir, name)
		if write {
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if got, err := os.ReadFile(path); err != nil || string(got) != content {
			t.Errorf("%s is missing or stale (%v): regenerate with HYPERPLANE_WRITE_TESTDATA=1", path, err)
		}
		t.Run(name, func(t *testing.T) {
			kmioFuzzCheck(t, b)
			kmioFuzzCheck(t, mioFixCRC(b))
		})
	}
}
