package text

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hyperplane-ml/hyperplane/sparse/budget"
)

func TestSaveLoad(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	train := testCorpus(r, 300)
	test := testCorpus(r, 100)
	dir := t.TempDir()
	configs := append(testConfigs(), Config{Vocabulary: true, MinDF: 1000})
	for k, cfg := range configs {
		t.Run(fmt.Sprintf("%+v", cfg), func(t *testing.T) {
			c := train
			if k%3 == 1 { // numeric labels too
				c = &Corpus{Docs: slices.Clone(train.Docs)}
				for i := range c.Docs {
					c.Docs[i].Label = map[string]string{"neg": "-1", "pos": "2.5"}[c.Docs[i].Label]
				}
			}
			f, err := Fit(c, cfg)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, fmt.Sprintf("f%d.json", k))
			if err := f.Save(path); err != nil {
				t.Fatal(err)
			}
			g, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			want := f.Config()
			want.Workers = 0
			if g.Config() != want || g.Dim() != f.Dim() || !slices.Equal(g.Labels(), f.Labels()) ||
				!slices.Equal(g.Vocabulary(), f.Vocabulary()) || !slices.Equal(g.idfs(), f.idfs()) {
				t.Fatalf("loaded featurizer differs: %+v vs %+v", g.Config(), want)
			}
			tc := &Corpus{Docs: slices.Clone(test.Docs)}
			for i := range tc.Docs {
				tc.Docs[i].Label = c.Docs[i].Label
			}
			d1, err1 := f.Vectorize(tc)
			d2, err2 := g.Vectorize(tc)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if !slices.Equal(d1.X.Ind, d2.X.Ind) || !slices.Equal(d1.X.Val, d2.X.Val) || !slices.Equal(d1.Y, d2.Y) {
				t.Fatal("loaded featurizer vectorizes differently")
			}
		})
	}
}

// savedJSON returns a saved featurizer as a generic JSON object.
func savedJSON(t *testing.T, f *Featurizer) map[string]any {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f.json")
	if err := f.Save(path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func loadBytes(t *testing.T, data []byte) (*Featurizer, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return Load(path)
}

func TestLoadCorrupt(t *testing.T) {
	docs := []Doc{{Label: "neg", Text: "bad movie"}, {Label: "pos", Text: "good film"}}
	hashed, _ := Fit(&Corpus{Docs: docs}, Config{Bits: 3, IDF: true, NGrams: 2})
	vocab, _ := Fit(&Corpus{Docs: docs}, Config{Vocabulary: true, NGrams: 2, IDF: true})
	numeric, _ := Fit(&Corpus{Docs: []Doc{{Label: "1", Text: "a"}, {Label: "-1", Text: "b"}}}, Config{Bits: 2})

	tests := []struct {
		name   string
		f      *Featurizer
		change func(m map[string]any)
	}{
		{"wrong format", hashed, func(m map[string]any) { m["format"] = "something else" }},
		{"future version", hashed, func(m map[string]any) { m["version"] = 3 }},
		{"other hash", hashed, func(m map[string]any) { m["hash"] = "md5" }},
		{"unknown field", hashed, func(m map[string]any) { m["extra"] = 1 }},
		{"df too short", hashed, func(m map[string]any) { m["df"] = m["df"].([]any)[1:] }},
		{"df too long", hashed, func(m map[string]any) { m["df"] = append(m["df"].([]any), 0.0) }},
		{"df missing", hashed, func(m map[string]any) { delete(m, "df") }},
		{"df negative", hashed, func(m map[string]any) { m["df"].([]any)[0] = -1 }},
		{"df above docs", hashed, func(m map[string]any) { m["df"].([]any)[0] = 3 }},
		{"df not a number", hashed, func(m map[string]any) { m["df"].([]any)[0] = "x" }},
		{"df without idf", hashed, func(m map[string]any) { m["idf"] = false }},
		{"bits too big", hashed, func(m map[string]any) { m["bits"] = 32 }},
		{"bits zero", hashed, func(m map[string]any) { delete(m, "bits") }},
		{"bits not integer", hashed, func(m map[string]any) { m["bits"] = 2.5 }},
		{"ngrams zero", hashed, func(m map[string]any) { m["ngrams"] = 0 }},
		{"ngrams too big", hashed, func(m map[string]any) { m["ngrams"] = 9 }},
		{"unknown tf", hashed, func(m map[string]any) { m["tf"] = "tfidf" }},
		{"no docs", hashed, func(m map[string]any) { m["docs"] = 0 }},
		{"min_df with hashing", hashed, func(m map[string]any) { m["min_df"] = 2 }},
		{"no labels", hashed, func(m map[string]any) { m["labels"] = map[string]any{"numeric": false, "names": []any{}} }},
		{"labels unsorted", hashed, func(m map[string]any) {
			m["labels"] = map[string]any{"numeric": false, "names": []any{"pos", "neg"}}
		}},
		{"labels repeated", hashed, func(m map[string]any) {
			m["labels"] = map[string]any{"numeric": false, "names": []any{"neg", "neg"}}
		}},
		{"empty label", hashed, func(m map[string]any) { m["labels"] = map[string]any{"numeric": false, "names": []any{""}} }},
		{"labels null", hashed, func(m map[string]any) { m["labels"] = nil }},
		{"numeric label not a number", numeric, func(m map[string]any) {
			m["labels"] = map[string]any{"numeric": true, "names": []any{"-1", "x"}}
		}},
		{"numeric labels not canonical", numeric, func(m map[string]any) {
			m["labels"] = map[string]any{"numeric": true, "names": []any{"-1", "1.0"}}
		}},
		{"numeric labels unsorted", numeric, func(m map[string]any) {
			m["labels"] = map[string]any{"numeric": true, "names": []any{"1", "-1"}}
		}},
		{"vocabulary unsorted", vocab, func(m map[string]any) {
			v := m["vocabulary"].([]any)
			v[0], v[1] = v[1], v[0]
		}},
		{"vocabulary repeated", vocab, func(m map[string]any) {
			v := m["vocabulary"].([]any)
			v[1] = v[0]
		}},
		{"vocabulary term uppercase", vocab, func(m map[string]any) { m["vocabulary"].([]any)[0] = "Bad" }},
		{"vocabulary term double space", vocab, func(m map[string]any) { m["vocabulary"].([]any)[0] = "a  b" }},
		{"vocabulary term punctuation", vocab, func(m map[string]any) { m["vocabulary"].([]any)[0] = "a.b" }},
		{"vocabulary term empty", vocab, func(m map[string]any) { m["vocabulary"].([]any)[0] = "" }},
		{"vocabulary n-gram too long", vocab, func(m map[string]any) { m["vocabulary"].([]any)[0] = "a b c" }},
		{"vocabulary with bits", vocab, func(m map[string]any) { m["bits"] = 20 }},
		{"vocabulary above max_features", vocab, func(m map[string]any) { m["max_features"] = 1 }},
		{"vocabulary df length", vocab, func(m map[string]any) { m["df"] = []any{1} }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := savedJSON(t, tc.f)
			tc.change(m)
			data, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := loadBytes(t, data); !errors.Is(err, ErrFormat) {
				t.Errorf("error %v, want ErrFormat", err)
			}
		})
	}
}

func TestLoadTruncatedAndGarbage(t *testing.T) {
	docs := []Doc{{Label: "neg", Text: "bad movie"}, {Label: "pos", Text: "good film"}}
	f, _ := Fit(&Corpus{Docs: docs}, Config{Vocabulary: true, IDF: true})
	path := filepath.Join(t.TempDir(), "f.json")
	if err := f.Save(path); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	for n := range len(data) - 1 { // the last byte is the newline
		if _, err := loadBytes(t, data[:n]); !errors.Is(err, ErrFormat) {
			t.Fatalf("truncated to %d of %d bytes: %v", n, len(data), err)
		}
	}
	for _, bad := range []string{"", "null", "[]", "{}", "garbage", "\x1f\x8b\x08", string(data) + "{}"} {
		if _, err := loadBytes(t, []byte(bad)); !errors.Is(err, ErrFormat) {
			t.Errorf("%.20q: %v", bad, err)
		}
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestSaveKeepsOldFileOnError(t *testing.T) {
	f, _ := Fit(&Corpus{Docs: []Doc{{Label: "a", Text: "x"}}}, Config{})
	dir := t.TempDir()
	// A directory in the way of the temporary file's rename.
	path := filepath.Join(dir, "sub")
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := f.Save(path); err == nil {
		t.Error("Save over a directory succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
	if err := f.Save(filepath.Join(dir, "no", "such", "dir", "f.json")); err == nil {
		t.Error("Save into a missing directory succeeded")
	}
}

func TestSavedFormat(t *testing.T) {
	f, _ := Fit(&Corpus{Docs: []Doc{{Label: "neg", Text: "bad"}, {Label: "pos", Text: "good"}}}, Config{Vocabulary: true, IDF: true, TF: Log})
	path := filepath.Join(t.TempDir(), "f.json")
	if err := f.Save(path); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	want := `{"format":"hyperplane.text.Featurizer","version":1,"hash":"xxh64-gram1","ngrams":1,"vocabulary":["bad","good"],"min_df":1,"tf":"log","idf":true,"normalize":true,"docs":2,"df":[1,1],"labels":{"numeric":false,"names":["neg","pos"]}}`
	if got := strings.TrimSpace(string(data)); got != want {
		t.Errorf("saved\n%s\nwant\n%s", got, want)
	}
	if !bytes.HasSuffix(data, []byte("\n")) {
		t.Error("no final newline")
	}
}

// TestSaveLoadInvalidUTF8Labels: TSV labels with invalid UTF-8 read as
// JSONL ones do (each bad byte U+FFFD), so the saved featurizer knows them
// after Load.
func TestSaveLoadInvalidUTF8Labels(t *testing.T) {
	for _, in := range []string{
		"caf\xe9\tone\nthe\ttwo\n",
		"x\x80\tone\nx\xc3\xa9\ttwo\n",
		"a\xfe\tone\na\xff\ttwo\nb\tthree\n",
	} {
		c, err := Read(strings.NewReader(in), ReadOptions{Format: TSV})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range c.Docs {
			if !utf8.ValidString(d.Label) {
				t.Fatalf("%q: label %q is not valid UTF-8", in, d.Label)
			}
		}
		f, err := Fit(c, Config{Bits: 4})
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(t.TempDir(), "f.json")
		if err := f.Save(p); err != nil {
			t.Fatal(err)
		}
		g, err := Load(p)
		if err != nil {
			t.Fatalf("%q: Load: %v", in, err)
		}
		if !slices.Equal(g.Labels(), f.Labels()) {
			t.Fatalf("%q: labels %q after Load, %q before", in, g.Labels(), f.Labels())
		}
		if _, err := g.Vectorize(c); err != nil {
			t.Fatalf("%q: the loaded featurizer: %v", in, err)
		}
	}
}

// TestNegativeZeroLabel: labels are strings, so "0" and "-0" are two
// classes, the same ones every time (names sorted, not in map order).
func TestNegativeZeroLabel(t *testing.T) {
	for range 50 {
		c := &Corpus{Docs: []Doc{{Label: "0", Text: "a"}, {Label: "-0", Text: "b"}, {Label: "1", Text: "c"}}}
		f, err := Fit(c, Config{Bits: 4})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(f.Labels(), ","); got != "-0,0,1" {
			t.Fatalf("labels %q, want -0,0,1", got)
		}
		d, err := f.Vectorize(c)
		if err != nil {
			t.Fatal(err)
		}
		if d.Y[0] != 1 || d.Y[1] != 0 || f.Name(d.Y[1]) != "-0" {
			t.Fatalf("Y = %v: want 0 → class 1 and -0 → class 0", d.Y)
		}
	}
}

// WriteTo writes what Save writes, and ReadFeaturizer reads it back into
// a featurizer that vectorizes the same; what is not a featurizer, or is
// larger than the budget allows, is refused.
func TestWriteToReadFeaturizer(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	train := testCorpus(r, 200)
	for _, cfg := range []Config{{}, {NGrams: 2, IDF: true, TF: Log}, {Vocabulary: true, IDF: true}} {
		t.Run(fmt.Sprintf("ngrams=%d/vocabulary=%v/idf=%v", cfg.NGrams, cfg.Vocabulary, cfg.IDF), func(t *testing.T) {
			f, err := Fit(train, cfg)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			n, err := f.WriteTo(&buf)
			if err != nil || n != int64(buf.Len()) {
				t.Fatalf("WriteTo: %d bytes reported, %d written, %v", n, buf.Len(), err)
			}
			path := filepath.Join(t.TempDir(), "f.json")
			if err := f.Save(path); err != nil {
				t.Fatal(err)
			}
			saved, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(saved, buf.Bytes()) {
				t.Fatalf("%+v: WriteTo and Save differ (%v)", cfg, err)
			}
			g, err := ReadFeaturizer(&buf)
			if err != nil {
				t.Fatal(err)
			}
			d1, _ := f.Vectorize(train)
			d2, _ := g.Vectorize(train)
			if !slices.Equal(d1.X.Ind, d2.X.Ind) || !slices.Equal(d1.X.Val, d2.X.Val) {
				t.Fatalf("%+v: read back, it vectorizes differently", cfg)
			}
			if _, err := ReadFeaturizer(bytes.NewReader(saved[:len(saved)/2])); !errors.Is(err, ErrFormat) {
				t.Errorf("half a featurizer: %v", err)
			}
			prev := budget.Set(int64(len(saved)) * 2)
			_, err = ReadFeaturizer(bytes.NewReader(saved))
			budget.Set(prev)
			if !errors.Is(err, budget.ErrExceeded) {
				t.Errorf("a featurizer over a quarter of the budget: %v", err)
			}
		})
	}
}
