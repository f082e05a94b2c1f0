package text

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse/budget"
)

// allocated returns the bytes fn allocates on the heap.
func allocated(fn func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	fn()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// TestIDFMemoryGrowsWithData: fitting idf on two documents hashed into
// 2^30 buckets takes memory, and a saved file, the size of the two
// documents' buckets, not of 2^30 (4 GiB each for df and idf arrays); the
// file loads back in a small budget and vectorizes as the fitted one.
func TestIDFMemoryGrowsWithData(t *testing.T) {
	defer budget.Set(budget.Set(64 << 20))
	c := &Corpus{Docs: []Doc{{Label: "pos", Text: "a great film"}, {Label: "neg", Text: "a dull film"}}}
	path := writeJSONL(t, c, false)
	for _, bits := range []int{24, MaxBits} {
		t.Run(fmt.Sprintf("bits=%d", bits), func(t *testing.T) {
			cfg := Config{Bits: bits, IDF: true, NGrams: 2}
			var f *Featurizer
			var err error
			if n := allocated(func() { f, err = Fit(c, cfg) }); err != nil || n > 4<<20 {
				t.Fatalf("bits %d: Fit allocated %d bytes: %v", bits, n, err)
			}
			var g *Featurizer
			if n := allocated(func() { g, _, err = FitFile(path, ReadOptions{}, cfg) }); err != nil || n > 4<<20 {
				t.Fatalf("bits %d: FitFile allocated %d bytes: %v", bits, n, err)
			}
			p := filepath.Join(t.TempDir(), "f.json")
			if err := f.Save(p); err != nil {
				t.Fatal(err)
			}
			if st, _ := os.Stat(p); st.Size() > 1024 {
				t.Fatalf("bits %d: the featurizer file takes %d bytes", bits, st.Size())
			}
			var h *Featurizer
			if n := allocated(func() { h, err = Load(p) }); err != nil || n > 1<<20 {
				t.Fatalf("bits %d: Load allocated %d bytes: %v", bits, n, err)
			}
			for _, text := range []string{"a great film", "a dull film", "an unseen word", ""} {
				u, v, w := f.Transform(text), g.Transform(text), h.Transform(text)
				if !slices.Equal(v.Ind, w.Ind) || !slices.Equal(v.Val, w.Val) || v.Dim != 1<<bits ||
					!slices.Equal(u.Ind, v.Ind) || !slices.Equal(u.Val, v.Val) {
					t.Fatalf("bits %d: %q: %v by Fit, %v by FitFile, %v loaded", bits, text, u, v, w)
				}
			}
		})
	}
}

// TestDFForms: document frequencies counted in hash tables, per-goroutine
// arrays or one shared array, and kept sparse or dense, agree with the
// definition, and so do the idf weights.
func TestDFForms(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	c := testCorpus(r, 400)
	old, floor := privateDFBytes, denseFloorBytes
	defer func() { privateDFBytes, denseFloorBytes = old, floor }()
	for _, bits := range []int{3, 8, 12, 16} {
		t.Run(fmt.Sprintf("bits=%d", bits), func(t *testing.T) {
			for k, private := range []int64{old, 0, old} {
				privateDFBytes = private
				// Tables are only used above the floor.
				denseFloorBytes = []int64{0, 0, floor}[k]
				for _, workers := range []int{1, 3} {
					f, err := Fit(c, Config{Bits: bits, NGrams: 2, IDF: true, Workers: workers})
					if err != nil {
						t.Fatal(err)
					}
					want := make([]int32, f.Dim())
					for _, d := range c.Docs {
						for j := range refCounts(f, d.Text) {
							want[j]++
						}
					}
					if !slices.Equal(f.dfs(), want) {
						t.Fatalf("bits %d, workers %d: df differs", bits, workers)
					}
					for j, df := range want {
						if w := f.idf.at(int32(j)); w != f.idfOfDF(df) {
							t.Fatalf("bits %d: idf(%d) = %g, want %g for df %d", bits, j, w, f.idfOfDF(df), df)
						}
					}
					if dense := f.idf.dense != nil; bits == 3 && !dense || bits == 16 && dense != (denseFloorBytes > 0) {
						t.Errorf("bits %d: dense idf %v", bits, dense)
					}
				}
			}
		})
	}
}

// idfOfDF is the definition of the idf weight.
func (f *Featurizer) idfOfDF(df int32) float32 {
	n := float64(f.nDocs)
	return float32(math.Log((1+n)/(1+float64(df))) + 1)
}

// TestIDFOverBudget: counting the document frequencies of many buckets
// stops at the memory budget with an error wrapping budget.ErrExceeded
// that says what would need less, in Fit and FitFile alike, and so does a
// vocabulary.
func TestIDFOverBudget(t *testing.T) {
	c := &Corpus{}
	for i := range 4000 {
		var sb strings.Builder
		for k := range 50 {
			fmt.Fprintf(&sb, "w%d ", i*50+k)
		}
		c.Docs = append(c.Docs, Doc{Label: "x", Text: sb.String()})
	}
	path := writeJSONL(t, c, false)
	defer budget.Set(budget.Set(1 << 20))
	for _, cfg := range []Config{{Bits: 30, IDF: true}, {Bits: 26, IDF: true, Workers: 1}} {
		_, err := Fit(c, cfg)
		if !errors.Is(err, budget.ErrExceeded) || !strings.Contains(err.Error(), "-bits") {
			t.Errorf("%+v: Fit: %v", cfg, err)
		}
		// (The rows FitFile keeps may reach the budget first.)
		_, _, err = FitFile(path, ReadOptions{}, cfg)
		if !errors.Is(err, budget.ErrExceeded) {
			t.Errorf("%+v: FitFile: %v", cfg, err)
		}
	}
	_, err := Fit(c, Config{Vocabulary: true})
	if !errors.Is(err, budget.ErrExceeded) || !strings.Contains(err.Error(), "instead of -vocab") {
		t.Errorf("vocabulary: %v", err)
	}
}

// TestLoadOldDenseForm: a version 1 file, whose df holds one entry per
// bucket, still loads and works as the sparse form of the same counts;
// saved again it takes the sparse form.
func TestLoadOldDenseForm(t *testing.T) {
	c := &Corpus{Docs: []Doc{{Label: "pos", Text: "a great film"}, {Label: "neg", Text: "a dull film"}}}
	f, err := Fit(c, Config{Bits: 12, IDF: true})
	if err != nil {
		t.Fatal(err)
	}
	m := savedJSON(t, f)
	if m["version"] != 2.0 {
		t.Fatalf("version %v, want 2", m["version"])
	}
	m["version"] = 1
	m["df"] = f.dfs()
	delete(m, "df_sparse")
	data, _ := json.Marshal(m)
	g, err := loadBytes(t, data)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(g.idfs(), f.idfs()) || !slices.Equal(g.dfs(), f.dfs()) {
		t.Fatal("the dense form loads differently")
	}
	if m2 := savedJSON(t, g); m2["version"] != 2.0 || m2["df"] != nil {
		t.Fatalf("saved again: %v", m2)
	}
}

// TestLoadSparseCorrupt: a sparse df that is inconsistent is ErrFormat.
func TestLoadSparseCorrupt(t *testing.T) {
	c := &Corpus{Docs: []Doc{{Label: "pos", Text: "a great film"}, {Label: "neg", Text: "a dull film"}}}
	f, _ := Fit(c, Config{Bits: 12, IDF: true})
	for name, change := range map[string]func(m, ds map[string]any){
		"unsorted":         func(m, ds map[string]any) { fs := ds["features"].([]any); fs[0], fs[1] = fs[1], fs[0] },
		"repeated":         func(m, ds map[string]any) { fs := ds["features"].([]any); fs[1] = fs[0] },
		"negative":         func(m, ds map[string]any) { ds["features"].([]any)[0] = -1 },
		"beyond the width": func(m, ds map[string]any) { ds["features"].([]any)[3] = 4096 },
		"zero count":       func(m, ds map[string]any) { ds["counts"].([]any)[0] = 0 },
		"count over docs":  func(m, ds map[string]any) { ds["counts"].([]any)[0] = 3 },
		"lengths differ":   func(m, ds map[string]any) { ds["counts"] = ds["counts"].([]any)[1:] },
		"no features":      func(m, ds map[string]any) { delete(ds, "features") },
		"null":             func(m, ds map[string]any) { m["df_sparse"] = nil },
		"in version 1":     func(m, ds map[string]any) { m["version"] = 1 },
		"with dense df":    func(m, ds map[string]any) { m["df"] = []int{1} },
		"without idf":      func(m, ds map[string]any) { m["idf"] = false },
		"with vocabulary":  func(m, ds map[string]any) { delete(m, "bits"); m["vocabulary"] = []string{"a"}; m["min_df"] = 1 },
	} {
		m := savedJSON(t, f)
		change(m, m["df_sparse"].(map[string]any))
		data, _ := json.Marshal(m)
		if _, err := loadBytes(t, data); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestLoadOverBudget: a featurizer file larger than the budget allows, or
// whose idf table would be, is refused with budget.ErrExceeded.
func TestLoadOverBudget(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	f, err := Fit(testCorpus(r, 300), Config{Bits: 16, IDF: true, NGrams: 2})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "f.json")
	if err := f.Save(p); err != nil {
		t.Fatal(err)
	}
	g, err := Fit(testCorpus(r, 3000), Config{Bits: 10, IDF: true, NGrams: 2})
	if err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(p)
	defer budget.Set(budget.Set(st.Size()))
	if _, err := Load(p); !errors.Is(err, budget.ErrExceeded) {
		t.Errorf("file of %d bytes in a budget of as many: %v", st.Size(), err)
	}
	// A dense table of 2^20 weights (4 MiB) in a budget of 2 MiB, which
	// the file's own lists fit.
	m := savedJSON(t, g)
	m["bits"] = 20
	m["version"] = 2
	ds := map[string]any{"features": []int{}, "counts": []int{}}
	for j := range 1 << 15 {
		ds["features"] = append(ds["features"].([]int), 2*j)
		ds["counts"] = append(ds["counts"].([]int), 1)
	}
	m["df_sparse"] = ds
	delete(m, "df")
	data, _ := json.Marshal(m)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	budget.Set(1 << 30)
	if _, err := Load(p); err != nil {
		t.Fatalf("in a large budget: %v", err)
	}
	// (Load checks the file against the budget first.) The bytes (twice:
	// the decoder copies them) and the two arrays of 2^15 frequencies
	// fit; the weights do not.
	budget.Set(2*int64(len(data)) + 256<<10 + 64<<10)
	if _, err := decode(data); !errors.Is(err, budget.ErrExceeded) || !strings.Contains(err.Error(), "idf") {
		t.Errorf("idf table over the budget: %v", err)
	}
}

// endless is a reader of small documents without end.
type endless struct {
	line []byte
	off  int
}

func (e *endless) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		k := copy(p[n:], e.line[e.off:])
		n += k
		e.off = (e.off + k) % len(e.line)
	}
	return n, nil
}

// TestReadersStopAtBudget: reading, fitting on or vectorizing an endless
// input of small documents stops at the memory budget with an error
// wrapping budget.ErrExceeded, in JSONL and TSV alike, rather than
// growing until the process is killed.
func TestReadersStopAtBudget(t *testing.T) {
	f, err := Fit(&Corpus{Docs: []Doc{{Label: "a", Text: "x"}, {Label: "b", Text: "y"}}}, Config{Bits: 10})
	if err != nil {
		t.Fatal(err)
	}
	defer budget.Set(budget.Set(8 << 20))
	for _, line := range []string{`{"label": "a", "text": "one small document"}` + "\n", "b\tanother small document\n"} {
		src := func() io.Reader { return &endless{line: []byte(line)} }
		if _, err := Read(src(), ReadOptions{}); !errors.Is(err, budget.ErrExceeded) {
			t.Errorf("%q: Read: %v", line, err)
		}
		if _, _, err := fitReader(nil, src(), ReadOptions{}, Config{Bits: 10, NGrams: 1}); !errors.Is(err, budget.ErrExceeded) {
			t.Errorf("%q: fitting: %v", line, err)
		}
		if _, _, err := fitReader(nil, src(), ReadOptions{}, Config{Bits: 10, NGrams: 1, IDF: true}); !errors.Is(err, budget.ErrExceeded) {
			t.Errorf("%q: fitting idf: %v", line, err)
		}
		if _, err := f.VectorizeReader(src(), ReadOptions{}); !errors.Is(err, budget.ErrExceeded) {
			t.Errorf("%q: VectorizeReader: %v", line, err)
		}
	}
}
