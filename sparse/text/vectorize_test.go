package text

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

func sameDataset(a, b *sparse.Dataset) bool {
	return a.X.Rows == b.X.Rows && a.X.Cols == b.X.Cols && slices.Equal(a.X.Indptr, b.X.Indptr) &&
		slices.Equal(a.X.Ind, b.X.Ind) && slices.Equal(a.X.Val, b.X.Val) && slices.Equal(a.Y, b.Y)
}

// writeJSONL writes c as a JSONL file and returns its path.
func writeJSONL(t *testing.T, c *Corpus, compress bool) string {
	t.Helper()
	var buf bytes.Buffer
	for _, d := range c.Docs {
		line, _ := json.Marshal(map[string]any{"label": d.Label, "text": d.Text, "id": d.Line})
		buf.Write(line)
		buf.WriteByte('\n')
	}
	data := buf.Bytes()
	name := "docs.jsonl"
	if compress {
		data, name = gz(t, buf.String()), "docs.jsonl.gz"
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// bigCorpus is a corpus of several chunks.
func bigCorpus(seed uint64, n int) *Corpus {
	r := rand.New(rand.NewPCG(seed, 99))
	c := testCorpus(r, n)
	for i := range c.Docs {
		c.Docs[i].Text = strings.Repeat(c.Docs[i].Text+". ", 1+i%30)
	}
	return c
}

func TestFitFileMatchesFitVectorize(t *testing.T) {
	c := bigCorpus(1, 800)
	if n := len(chunkDocs(c.Docs)); n < 3 {
		t.Fatalf("only %d chunks", n)
	}
	path := writeJSONL(t, c, true)
	read, err := ReadFile(path, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	old := privateDFBytes
	defer func() { privateDFBytes = old }()
	for _, cfg := range []Config{
		{},
		{NGrams: 2, Bits: 14, IDF: true, TF: Log},
		{NGrams: 2, Bits: 10, IDF: true, TF: Binary, NoNormalize: true, Workers: 3},
		{Vocabulary: true, NGrams: 2, IDF: true},
		{Vocabulary: true, NGrams: 2, IDF: true, TF: Log, MinDF: 2, Workers: 3},
		{Vocabulary: true, NGrams: 3, TF: Binary, MinDF: 3, MaxFeatures: 500, NoNormalize: true},
		{Vocabulary: true, IDF: true, MaxFeatures: 50, Workers: 1},
	} {
		t.Run(fmt.Sprintf("ngrams=%d/bits=%d/vocabulary=%v/workers=%d", cfg.NGrams, cfg.Bits, cfg.Vocabulary, cfg.Workers), func(t *testing.T) {
			for _, limit := range []int64{old, 0} { // per-goroutine arrays, then atomics
				privateDFBytes = limit
				f1, err := Fit(read, cfg)
				if err != nil {
					t.Fatal(err)
				}
				d1, err := f1.Vectorize(read)
				if err != nil {
					t.Fatal(err)
				}
				f2, d2, err := FitFile(path, ReadOptions{}, cfg)
				if err != nil {
					t.Fatal(err)
				}
				if !sameDataset(d1, d2) || !slices.Equal(f1.dfs(), f2.dfs()) || !slices.Equal(f1.idfs(), f2.idfs()) || f1.Config() != f2.Config() || !slices.Equal(f1.Vocabulary(), f2.Vocabulary()) {
					t.Errorf("%+v (df arrays up to %d bytes): FitFile differs from Fit + Vectorize", cfg, limit)
				}
				d3, err := f2.VectorizeFile(path, ReadOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if !sameDataset(d1, d3) {
					t.Errorf("%+v: VectorizeFile differs from Vectorize", cfg)
				}
			}
		})
	}
	if _, _, err := FitFile(filepath.Join(t.TempDir(), "missing"), ReadOptions{}, Config{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if _, _, err := FitFile(path, ReadOptions{}, Config{Bits: 99}); !errors.Is(err, ErrConfig) {
		t.Errorf("bad config: %v", err)
	}
	if _, _, err := FitFile(path, ReadOptions{Format: TSV}, Config{}); !errors.Is(err, ErrMissingField) {
		t.Errorf("JSONL read as TSV: %v", err)
	}
	dir := t.TempDir()
	for name, content := range map[string]string{"empty.tsv": "", "blank.jsonl": "\n\n"} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o644)
		for _, cfg := range []Config{{}, {IDF: true}, {Vocabulary: true}} {
			if _, _, err := FitFile(p, ReadOptions{}, cfg); !errors.Is(err, ErrEmpty) {
				t.Errorf("%s %+v: %v, want ErrEmpty", name, cfg, err)
			}
		}
	}
	bad := filepath.Join(dir, "bad.tsv")
	os.WriteFile(bad, []byte("1\tgood\n-1\tbad\nno tab\n"), 0o644)
	var pe *sparse.ParseError
	if _, _, err := FitFile(bad, ReadOptions{}, Config{IDF: true}); !errors.As(err, &pe) || pe.Line != 3 || pe.File != bad {
		t.Errorf("bad line: %v", err)
	}
	good := filepath.Join(dir, "good.tsv")
	os.WriteFile(good, []byte("1\tgood\n-1\tbad\n3\tso so\n"), 0o644)
	f, d, err := FitFile(good, ReadOptions{}, Config{IDF: true})
	if err != nil || !slices.Equal(d.Y, []float64{1, -1, 3}) || !slices.Equal(f.Labels(), []string{"-1", "1", "3"}) || f.nDocs != 3 {
		t.Errorf("numeric labels: %v %v", d, err)
	}
}

func TestVectorizeReader(t *testing.T) {
	c := bigCorpus(2, 1200)
	if n := len(chunkDocs(c.Docs)); n < 3 {
		t.Fatalf("only %d chunks", n)
	}
	f, err := Fit(c, Config{NGrams: 2, Bits: 16, IDF: true})
	if err != nil {
		t.Fatal(err)
	}
	want, err := f.Vectorize(c)
	if err != nil {
		t.Fatal(err)
	}
	path := writeJSONL(t, c, false)
	data, _ := os.ReadFile(path)
	for _, workers := range []int{1, 2, 7} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			g, err := Fit(c, Config{NGrams: 2, Bits: 16, IDF: true, Workers: workers})
			if err != nil {
				t.Fatal(err)
			}
			got, err := g.VectorizeReader(bytes.NewReader(data), ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !sameDataset(got, want) {
				t.Errorf("workers %d: VectorizeReader differs from Vectorize", workers)
			}
		})
	}
	empty, err := f.VectorizeReader(strings.NewReader(""), ReadOptions{})
	if err != nil || empty.X.Rows != 0 || empty.X.Cols != f.Dim() || empty.Validate() != nil {
		t.Errorf("empty input: %v", err)
	}
}

func TestVectorizeReaderErrors(t *testing.T) {
	c := bigCorpus(3, 3000)
	f, err := Fit(c, Config{Workers: 4})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	for i, d := range c.Docs {
		label := d.Label
		switch i {
		case 1500:
			label = "unknown"
		case 2500:
			label = "mystery"
		}
		line, _ := json.Marshal(map[string]string{"label": label, "text": d.Text})
		buf.Write(line)
		buf.WriteByte('\n')
	}
	lines := strings.SplitAfter(buf.String(), "\n")
	check := func(name, input string, wantErr error, wantLine int) {
		t.Helper()
		_, err := f.VectorizeReader(strings.NewReader(input), ReadOptions{Name: "in.jsonl"})
		var pe *sparse.ParseError
		if !errors.As(err, &pe) || !errors.Is(err, wantErr) || pe.Line != wantLine || pe.File != "in.jsonl" {
			t.Errorf("%s: %v, want %v at line %d", name, err, wantErr, wantLine)
		}
	}
	check("first unknown label", buf.String(), ErrLabel, 1501)
	broken := strings.Join(lines[:2000], "") + "{broken\n" + strings.Join(lines[2000:], "")
	check("label error before a syntax error", broken, ErrLabel, 1501)
	early := strings.Join(lines[:1000], "") + "{broken\n" + strings.Join(lines[1000:], "")
	check("syntax error before a label error", early, ErrSyntax, 1001)

	// Read errors.
	full := gz(t, buf.String())
	if _, err := f.VectorizeReader(bytes.NewReader(full[:len(full)/3]), ReadOptions{}); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("truncated gzip: %v", err)
	}
	if _, err := f.VectorizeFile(filepath.Join(t.TempDir(), "missing"), ReadOptions{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := f.VectorizeReader(strings.NewReader("a\tb\n"), ReadOptions{MaxLineBytes: -1}); !errors.Is(err, ErrConfig) {
		t.Errorf("bad options: %v", err)
	}
}

func TestChunkDocs(t *testing.T) {
	for _, n := range []int{0, 1, 4095, 4096, 4097, 10000} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			docs := make([]Doc, n)
			chunks := chunkDocs(docs)
			next := 0
			for _, ch := range chunks {
				if ch.lo != next || ch.hi <= ch.lo || ch.hi-ch.lo > chunkMaxDocs {
					t.Fatalf("n=%d: bad chunk %v", n, ch)
				}
				next = ch.hi
			}
			if next != n {
				t.Fatalf("n=%d: chunks end at %d", n, next)
			}
		})
	}
	big := []Doc{{Text: strings.Repeat("x", 3*chunkBytes)}, {Text: "a"}, {Text: "b"}}
	if got := chunkDocs(big); len(got) != 2 || got[0] != (chunk{0, 1}) {
		t.Errorf("a huge document gets a chunk of its own: %v", got)
	}
}
