package engine

// Model files written and read back: MarshalBinary, WriteTo and Save
// against UnmarshalBinary, the readers and the loaders, for both kinds.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/hyperplane-ml/hyperplane/kernels"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// TestModelFileReadStream: a model is read to its end and no further, so
// models can follow each other in a stream, of one kind or of both.
func TestModelFileReadStream(t *testing.T) {
	var all []Classifier
	for _, k := range fileKinds {
		t.Run(k.name, func(t *testing.T) {
			cases := k.cases()
			all = append(all, cases...)
			var stream bytes.Buffer
			for _, m := range cases {
				stream.Write(fileEncode(t, m))
			}
			stream.WriteString("tail")
			r := mioOnlyReader{&stream}
			for i, m := range cases {
				got, err := k.read(r)
				if err != nil {
					t.Fatalf("model %d: %v", i, err)
				}
				if d := fileSame(t, got, m); d != "" {
					t.Fatalf("model %d: %s", i, d)
				}
			}
			if rest, _ := io.ReadAll(r); string(rest) != "tail" {
				t.Errorf("left %q after the models, want %q", rest, "tail")
			}
		})
	}
	// Both kinds interleaved, through ReadClassifier.
	var stream bytes.Buffer
	for i := range all {
		stream.Write(fileEncode(t, all[(i*7)%len(all)]))
	}
	r := mioOnlyReader{&stream}
	for i := range all {
		got, err := ReadClassifier(r)
		if err != nil {
			t.Fatalf("model %d of the mixed stream: %v", i, err)
		}
		if d := fileSame(t, got, all[(i*7)%len(all)]); d != "" {
			t.Fatalf("model %d of the mixed stream: %s", i, d)
		}
	}
}

// TestModelFileWriteToError: a writer's error stops WriteTo wherever it
// comes, and WriteTo reports the bytes written until then; the same large
// model round-trips through a stream.
func TestModelFileWriteToError(t *testing.T) {
	for _, k := range fileKinds {
		t.Run(k.name, func(t *testing.T) {
			m := k.big()
			b := fileEncode(t, m)
			size := len(b)
			if size < 3*modelChunk {
				t.Fatalf("model of %d bytes is too small for the test", size)
			}
			for _, limit := range []int{0, 10, modelChunk + 3, size - 2} {
				n, err := m.WriteTo(&mioFailWriter{n: limit})
				if err == nil || err.Error() != "disk full" {
					t.Errorf("limit %d: err = %v, want disk full", limit, err)
				}
				if n != int64(limit) {
					t.Errorf("limit %d: WriteTo reported %d bytes", limit, n)
				}
			}
			got, err := k.read(mioOnlyReader{bytes.NewReader(b)})
			if err != nil {
				t.Fatal(err)
			}
			if d := fileSame(t, got, m); d != "" {
				t.Fatal(d)
			}
		})
	}
}

// TestModelFileSaveLoad: every model saved loads back the same, through
// its kind's loader and LoadClassifier.
func TestModelFileSaveLoad(t *testing.T) {
	dir := t.TempDir()
	for _, k := range fileKinds {
		for i, m := range k.cases() {
			t.Run(fmt.Sprintf("%s/%d", k.name, i), func(t *testing.T) {
				path := filepath.Join(dir, fmt.Sprintf("%s%d", k.name, i))
				if err := m.Save(path); err != nil {
					t.Fatal(err)
				}
				for _, load := range []func(string) (Classifier, error){k.load, LoadClassifier} {
					got, err := load(path)
					if err != nil {
						t.Fatal(err)
					}
					if d := fileSame(t, got, m); d != "" {
						t.Fatal(d)
					}
				}
			})
		}
	}
}

func TestModelBinaryRoundTrip(t *testing.T) {
	for _, c := range mioCases(true) {
		t.Run(c.name, func(t *testing.T) {
			b := mioEncode(t, c.m)
			if int64(len(b)) != c.m.encodedSize() {
				t.Errorf("encoding is %d bytes, encodedSize says %d", len(b), c.m.encodedSize())
			}
			var got Model
			if err := got.UnmarshalBinary(b); err != nil {
				t.Fatal(err)
			}
			if d := mioSame(&got, c.m); d != "" {
				t.Fatal(d)
			}
			if b2 := mioEncode(t, &got); !bytes.Equal(b, b2) {
				t.Error("re-encoding differs")
			}
		})
	}
}

func TestModelWriteToReadModel(t *testing.T) {
	for _, c := range mioCases(true) {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			n, err := c.m.WriteTo(&buf)
			if err != nil {
				t.Fatal(err)
			}
			want := mioEncode(t, c.m)
			if n != int64(buf.Len()) || !bytes.Equal(buf.Bytes(), want) {
				t.Fatalf("WriteTo wrote %d (reported %d), not the MarshalBinary bytes", buf.Len(), n)
			}
			for _, r := range []io.Reader{bytes.NewReader(want), mioOnlyReader{bytes.NewReader(want)}} {
				got, err := ReadModel(r)
				if err != nil {
					t.Fatalf("%T: %v", r, err)
				}
				if d := mioSame(got, c.m); d != "" {
					t.Fatalf("%T: %s", r, d)
				}
			}
		})
	}
}

func TestModelSaveReplaces(t *testing.T) {
	path := filepath.Join(t.TempDir(), "model.hpm")
	a, b := mioModel(1, Averaged, 2, 50, false, false), mioModel(2, Voted, 3, 4, true, false)
	for _, m := range []*Model{a, b, a} {
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		got, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if d := mioSame(got, m); d != "" {
			t.Fatal(d)
		}
	}
	// A save that fails leaves the file as it was.
	bad := mioModel(1, Averaged, 2, 3, false, false)
	bad.W = bad.W[:2]
	if err := bad.Save(path); !errors.Is(err, ErrFormat) {
		t.Errorf("saving an invalid model: %v", err)
	}
	if got, err := Load(path); err != nil || mioSame(got, a) != "" {
		t.Errorf("file changed by a failed save: %v", err)
	}
	if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
		t.Errorf("%d files left in the directory, want 1", len(ents))
	}
	if err := a.Save(filepath.Join(t.TempDir(), "no", "such", "dir", "m.hpm")); err == nil {
		t.Error("saving into a missing directory succeeded")
	}
}

func TestModelUnmarshalKeepsModel(t *testing.T) {
	m := mioSmall()
	keep := *m
	b := mioEncode(t, mioModel(1, Averaged, 2, 3, false, false))
	if err := m.UnmarshalBinary(b[:len(b)-1]); err == nil {
		t.Fatal("truncated input decoded")
	}
	if err := m.UnmarshalJSON([]byte(`{"format":"hyperplane-model","version":1}`)); err == nil {
		t.Fatal("incomplete JSON decoded")
	}
	if d := mioSame(m, &keep); d != "" {
		t.Error("model changed by a failed decode:", d)
	}
}

func TestKernelModelBinaryRoundTrip(t *testing.T) {
	cases := append(kmioTrained(), kmioCase{"small", kmioSmall()},
		kmioCase{"no-sv", kmioModel(1, kernels.RBF{Gamma: 2}, Averaged, 3, 0, 5, 0.5)},
		kmioCase{"dim0", kmioModel(2, kernels.Sigmoid{}, Voted, 2, 3, 0, 0.5)})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := kmioEncode(t, c.m)
			kmioCheckedEncodedSize(t, c.m, b)
			if string(b[:4]) != "HPKM" {
				t.Fatalf("magic %q", b[:4])
			}
			var got KernelModel
			if err := got.UnmarshalBinary(b); err != nil {
				t.Fatal(err)
			}
			if d := kmioSame(t, &got, c.m); d != "" {
				t.Fatal(d)
			}
			if b2 := kmioEncode(t, &got); !bytes.Equal(b, b2) {
				t.Error("re-encoding differs")
			}
			if c.name != "small" { // its MaxFloat32 entries make NaN scores
				if d := kmioSamePredictions(t, &got, c.m); d != "" {
					t.Error(d)
				}
			}
		})
	}
}

// The kernel's defaults read back as the explicit values they mean.
func TestKernelModelEffectiveKernel(t *testing.T) {
	for _, c := range []struct{ in, want kernels.Kernel }{
		{kernels.Linear{}, kernels.Linear{}},
		{kernels.Poly{}, kernels.Poly{Degree: 3, Gamma: 1}},
		{kernels.Poly{Degree: 5, Gamma: -2, Coef0: math.Copysign(0, -1)}, kernels.Poly{Degree: 5, Gamma: -2, Coef0: math.Copysign(0, -1)}},
		{kernels.RBF{}, kernels.RBF{Gamma: 1}},
		{kernels.RBF{Gamma: 1e-300}, kernels.RBF{Gamma: 1e-300}},
		{kernels.Sigmoid{Coef0: 2}, kernels.Sigmoid{Gamma: 1, Coef0: 2}},
	} {
		t.Run(fmt.Sprintf("%#v", c.in), func(t *testing.T) {
			m := kmioModel(3, c.in, Averaged, 2, 3, 4, 0.5)
			var got KernelModel
			if err := got.UnmarshalBinary(kmioEncode(t, m)); err != nil {
				t.Fatal(err)
			}
			if got.Kernel != c.want || math.Signbit(kmioCoef0(got.Kernel)) != math.Signbit(kmioCoef0(c.want)) {
				t.Errorf("%#v read back as %#v, want %#v", c.in, got.Kernel, c.want)
			}
			var jgot KernelModel
			b, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &jgot); err != nil {
				t.Fatal(err)
			}
			if jgot.Kernel != c.want || math.Signbit(kmioCoef0(jgot.Kernel)) != math.Signbit(kmioCoef0(c.want)) {
				t.Errorf("JSON: %#v read back as %#v, want %#v", c.in, jgot.Kernel, c.want)
			}
		})
	}
}

func TestKernelModelWriteToReadKernelModel(t *testing.T) {
	for _, c := range append(kmioTrained(), kmioCase{"small", kmioSmall()}) {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			n, err := c.m.WriteTo(&buf)
			if err != nil {
				t.Fatal(err)
			}
			want := kmioEncode(t, c.m)
			if n != int64(buf.Len()) || !bytes.Equal(buf.Bytes(), want) {
				t.Fatalf("WriteTo wrote %d (reported %d), not the MarshalBinary bytes", buf.Len(), n)
			}
			for _, r := range []io.Reader{bytes.NewReader(want), mioOnlyReader{bytes.NewReader(want)}} {
				got, err := ReadKernelModel(r)
				if err != nil {
					t.Fatalf("%T: %v", r, err)
				}
				if d := kmioSame(t, got, c.m); d != "" {
					t.Fatalf("%T: %s", r, d)
				}
			}
		})
	}
}

// Save replaces a file atomically, and a model that cannot be encoded
// leaves the file as it was.
func TestKernelModelSaveAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "model.hpk")
	a, b := kmioTrained()[3].m, kmioSmall()
	for _, m := range []*KernelModel{a, b, a} {
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		got, err := LoadKernel(path)
		if err != nil {
			t.Fatal(err)
		}
		if d := kmioSame(t, got, m); d != "" {
			t.Fatal(d)
		}
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	invalid := kmioModel(1, kernels.RBF{}, Averaged, 2, 4, 3, 0.5)
	invalid.Coef = invalid.Coef[:2]
	user := kmioModel(1, kernels.RBF{}, Averaged, 2, 4, 3, 0.5)
	user.Kernel = kmioUserKernel{}
	for _, c := range []struct {
		m    *KernelModel
		want error
	}{{invalid, ErrFormat}, {user, ErrConfig}} {
		t.Run(c.want.Error(), func(t *testing.T) {
			if err := c.m.Save(path); !errors.Is(err, c.want) {
				t.Errorf("saving an unencodable model: %v, want %v", err, c.want)
			}
			if after, err := os.ReadFile(path); err != nil || !bytes.Equal(after, before) {
				t.Errorf("file changed by a failed save: %v", err)
			}
		})
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d files left in the directory, want 1", len(ents))
	}
	if err := a.Save(filepath.Join(dir, "no", "such", "dir", "m.hpk")); err == nil {
		t.Error("saving into a missing directory succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, "user.hpk")); err == nil {
		t.Error("user.hpk exists")
	}
	if err := user.Save(filepath.Join(dir, "user.hpk")); !errors.Is(err, ErrConfig) {
		t.Errorf("user kernel: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "user.hpk")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed save created a file: %v", err)
	}
}

func TestKernelModelUnmarshalKeepsModel(t *testing.T) {
	m := kmioSmall()
	want := kmioSmall()
	b := kmioEncode(t, kmioModel(1, kernels.RBF{}, Averaged, 2, 3, 3, 0.5))
	if err := m.UnmarshalBinary(b[:len(b)-1]); err == nil {
		t.Fatal("truncated input decoded")
	}
	if err := m.UnmarshalJSON([]byte(`{"format":"hyperplane-kernel-model","version":1}`)); err == nil {
		t.Fatal("incomplete JSON decoded")
	}
	if d := kmioSame(t, m, want); d != "" {
		t.Error("model changed by a failed decode:", d)
	}
	if err := m.UnmarshalJSON([]byte(" null ")); err != nil {
		t.Errorf("null: %v", err)
	}
	if d := kmioSame(t, m, want); d != "" {
		t.Error("model changed by null:", d)
	}
}

// Decoding into a model that has already predicted replaces its prepared
// state along with its fields.
func TestKernelModelUnmarshalResetsPrediction(t *testing.T) {
	cases := kmioTrained()
	a, b := cases[0].m, cases[len(cases)-1].m
	var m KernelModel
	if err := m.UnmarshalBinary(kmioEncode(t, a)); err != nil {
		t.Fatal(err)
	}
	if d := kmioSamePredictions(t, &m, a); d != "" {
		t.Fatal(d)
	}
	if err := m.UnmarshalBinary(kmioEncode(t, b)); err != nil {
		t.Fatal(err)
	}
	if d := kmioSamePredictions(t, &m, b); d != "" {
		t.Fatal("after a second decode:", d)
	}
	js, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(js, &m); err != nil {
		t.Fatal(err)
	}
	if d := kmioSamePredictions(t, &m, a); d != "" {
		t.Fatal("after a JSON decode:", d)
	}
}

// A loaded model serves predictions from many goroutines at once.
func TestKernelModelLoadConcurrentPredict(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.hpk")
	want := kmioTrained()[9].m
	if err := want.Save(path); err != nil {
		t.Fatal(err)
	}
	c, err := LoadClassifier(path)
	if err != nil {
		t.Fatal(err)
	}
	X, _ := kmioData(5, 64, want.Dim, 2, 0.5)
	wantP := want.PredictBatch(X, nil)
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range X.Rows {
				i = (i + g*7) % X.Rows
				if p := c.Predict(X.Row(i)); p != wantP[i] {
					errs <- fmt.Sprintf("row %d: %v, want %v", i, p, wantP[i])
					return
				}
				_ = c.Decision(X.Row(i))
			}
			if p := c.PredictBatch(X, nil); fmt.Sprint(p) != fmt.Sprint(wantP) {
				errs <- "PredictBatch differs"
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestLoadClassifier(t *testing.T) {
	dir := t.TempDir()
	lin, kern := kmioLinear(), kmioTrained()[7].m
	linPath, kernPath := filepath.Join(dir, "linear.hpm"), filepath.Join(dir, "kernel.hpk")
	if err := lin.Save(linPath); err != nil {
		t.Fatal(err)
	}
	if err := kern.Save(kernPath); err != nil {
		t.Fatal(err)
	}
	c, err := LoadClassifier(linPath)
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := c.(*Model); !ok {
		t.Fatalf("linear file loaded as %T", c)
	} else if d := mioSame(m, lin); d != "" {
		t.Fatal(d)
	}
	x := sparse.Vector{Dim: 2, Ind: []int32{0}, Val: []float32{1}}
	if c.Predict(x) != 1 || c.Decision(x) != 1.5 || !c.Binary() {
		t.Errorf("linear classifier: %v %v %v", c.Predict(x), c.Decision(x), c.Binary())
	}
	c, err = LoadClassifier(kernPath)
	if err != nil {
		t.Fatal(err)
	}
	m, ok := c.(*KernelModel)
	if !ok {
		t.Fatalf("kernel file loaded as %T", c)
	}
	if d := kmioSame(t, m, kern); d != "" {
		t.Fatal(d)
	}
	if d := kmioSamePredictions(t, m, kern); d != "" {
		t.Fatal(d)
	}
	if c.Binary() != kern.Binary() {
		t.Error("Binary differs")
	}

	if _, err := LoadClassifier(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	good := kmioEncode(t, kmioSmall())
	corrupt := bytes.Clone(good)
	corrupt[len(corrupt)-20] ^= 1
	linBytes, err := os.ReadFile(linPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, want string
		data       []byte
	}{
		{"garbage", `garbage: engine: bad model file: not a hyperplane model file (magic "GARB"; want "HPLM" or "HPKM")`, []byte("GARBAGE GARBAGE")},
		{"empty", `empty: engine: bad model file: not a hyperplane model file (magic ""`, nil},
		{"short", `short: engine: bad model file: not a hyperplane model file (magic "HP"`, []byte("HP")},
		{"json", `json: engine: bad model file: not a hyperplane model file (magic "{\"fo"`, []byte(`{"format":"hyperplane-kernel-model"}`)},
		{"corrupt", "corrupt: engine: bad model file: checksum mismatch", corrupt},
		{"truncated", "truncated: engine: bad model file: truncated in", good[:60]},
		{"trailing", "trailing: engine: bad model file: 2 bytes of trailing data", append(bytes.Clone(good), 0, 0)},
		{"linear-trailing", "linear-trailing: engine: bad model file: 1 bytes of trailing data", append(bytes.Clone(linBytes), 0)},
		{"linear-magic-only", "linear-magic-only: engine: bad model file: truncated in header", []byte(modelMagic)},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.name)
			if err := os.WriteFile(path, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := LoadClassifier(path)
			if !errors.Is(err, ErrFormat) || !strings.HasPrefix(err.Error(), filepath.Join(dir, c.want)) {
				t.Errorf("err = %v, want %s…", err, c.want)
			}
		})
	}
	if _, err := LoadClassifier(dir); err == nil || errors.Is(err, ErrFormat) {
		t.Errorf("loading a directory: %v", err)
	}
}

// ReadClassifier reads either kind from a stream by its magic, and no
// further than the model.
func TestReadClassifier(t *testing.T) {
	lin := mioSmall()
	var buf bytes.Buffer
	if _, err := lin.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	buf.WriteString("after")
	c, err := ReadClassifier(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := c.(*Model); !ok {
		t.Fatalf("got %T", c)
	} else {
		fxSameModel(t, "ReadClassifier", m, lin)
	}
	if buf.String() != "after" {
		t.Errorf("read past the model: %q left", buf.String())
	}
	km := kmioSmall()
	kc, err := ReadClassifier(bytes.NewReader(kmioEncode(t, km)))
	if err != nil {
		t.Fatal(err)
	}
	if k, ok := kc.(*KernelModel); !ok {
		t.Fatalf("got %T", kc)
	} else if d := kmioSame(t, k, km); d != "" {
		t.Fatal(d)
	}
	for _, bad := range []string{"", "HP", "HPXXXXXXXX"} {
		t.Run(fmt.Sprintf("%q", bad), func(t *testing.T) {
			if _, err := ReadClassifier(strings.NewReader(bad)); !errors.Is(err, ErrFormat) {
				t.Errorf("%v", err)
			}
		})
	}
}

// TestWriteToStopsAfterFailure: once a write fails, WriteTo drops the rest
// instead of gathering the whole model into its buffer (it promises no
// second copy of the model in memory), for linear and kernel models.
func TestWriteToStopsAfterFailure(t *testing.T) {
	const dim = 8 << 20 // 32 MiB of weights
	lin := &Model{Classes: []float64{0, 1}, Dim: dim, W: make([]float32, dim), B: []float32{0}}
	for _, c := range []struct {
		name string
		m    io.WriterTo
	}{
		{"linear", lin},
		{"kernel", kmioBig()},
	} {
		t.Run(c.name, func(t *testing.T) {
			var w failingWriter
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err := c.m.WriteTo(&w)
			runtime.ReadMemStats(&after)
			if err == nil || w.calls != 1 {
				t.Fatalf("WriteTo = %v after %d writes; want the writer's error after one", err, w.calls)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4*modelChunk {
				t.Fatalf("WriteTo allocated %d bytes after the write failed (chunk %d)", alloc, modelChunk)
			}
		})
	}
}
