package text

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
	"github.com/hyperplane-ml/hyperplane/sparse/budget/budgettest"
	"github.com/hyperplane-ml/hyperplane/sparse/hpc"
)

// FuzzFitReader: fitting while reading (FitReader) gives the featurizer
// and the rows that Read, Fit and Vectorize give in turn, bit for bit, in
// vocabulary and hashing mode alike, whatever the text, and FitCache
// writes those rows; and FitReader fails where they fail.
//
//	go test -run '^$' -fuzz '^FuzzFitReader$' -fuzztime 60s ./sparse/text/
func FuzzFitReader(f *testing.F) {
	for _, s := range []string{
		"pos\tgreat film great\nneg\tdull dull film\npos\tGREAT Ünïcödé\n",
		"a\tx y z x y\nb\ty z\na\tz z z z\nb\t\xff\xfe x\n",
		"a\tit's it's it's\nb\t日本語 テキスト 日本語\n",
		"a\t\nb\t\n",
		"no tab\n",
	} {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(77))
	}
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		defer budgettest.Within(t, 64<<20)()
		opt := ReadOptions{Format: TSV, Name: "fuzz.tsv"}
		cfg := Config{NGrams: 1 + int(mode%3), TF: TF(mode / 3 % 3), IDF: mode&16 != 0, Vocabulary: mode&32 == 0,
			MinDF: 1 + int(mode/64%2), NoNormalize: mode&128 != 0, Workers: 1 + int(mode/9%2)}
		if !cfg.Vocabulary {
			cfg.Bits, cfg.MinDF = 8, 0
		}
		f2, d2, err2 := FitReader(bytes.NewReader(data), opt, cfg)
		c, err := Read(bytes.NewReader(data), opt)
		var err1 error
		if err == nil {
			f1, err := Fit(c, cfg)
			if err == nil {
				d1, err := f1.Vectorize(c)
				if err != nil {
					t.Fatalf("Vectorize after Fit: %v", err)
				}
				if err2 != nil {
					t.Fatalf("%+v: FitReader failed (%v) where Fit and Vectorize did not", cfg, err2)
				}
				if !sameDataset(d1, d2) || !slices.Equal(f1.Vocabulary(), f2.Vocabulary()) || !slices.Equal(f1.dfs(), f2.dfs()) || f1.Dim() != f2.Dim() || !slices.Equal(f1.Labels(), f2.Labels()) {
					t.Fatalf("%+v: FitReader differs from Read, Fit and Vectorize", cfg)
				}
				// FitCache writes the same rows, holding every third
				// document out.
				var buf bytes.Buffer
				hold := func(doc int64) bool { return doc%3 == 1 }
				res, err := FitCache(context.Background(), bytes.NewReader(data), opt, cfg, &buf, CacheOptions{TempDir: t.TempDir(), Hold: hold})
				if err != nil {
					t.Fatalf("%+v: FitCache: %v", cfg, err)
				}
				d3, err := hpc.Read(&buf, sparse.ReadOptions{})
				if err != nil {
					t.Fatalf("%+v: the cache FitCache wrote: %v", cfg, err)
				}
				var kept, held []int
				for i := range d1.X.Rows {
					if hold(int64(i)) {
						held = append(held, i)
					} else {
						kept = append(kept, i)
					}
				}
				if !sameRows(&sparse.Dataset{X: d1.X.SelectRows(kept), Y: pickRows(d1.Y, kept)}, d3) || res.Featurizer.Dim() != f1.Dim() {
					t.Fatalf("%+v: FitCache's rows differ from FitReader's", cfg)
				}
				if len(held) > 0 && !sameRows(&sparse.Dataset{X: d1.X.SelectRows(held), Y: pickRows(d1.Y, held)}, res.Held) {
					t.Fatalf("%+v: FitCache's held rows differ from FitReader's", cfg)
				}
				return
			}
			err1 = err
		} else {
			err1 = err
		}
		if err2 == nil {
			t.Fatalf("%+v: FitReader succeeded where Read or Fit failed: %v", cfg, err1)
		}
		if errors.Is(err1, budget.ErrExceeded) || errors.Is(err2, budget.ErrExceeded) {
			return // the two hold different amounts at once
		}
		for _, e := range []error{ErrEmpty, ErrLabel, ErrSyntax, ErrMissingField} {
			if errors.Is(err1, e) != errors.Is(err2, e) {
				t.Fatalf("FitReader: %v; Read or Fit: %v", err2, err1)
			}
		}
	})
}

// TestFitReaderVocabularyAcrossWorkers: terms that every worker sees only
// once are counted in as many documents as hold them once the counters
// are merged, and each document's row is mapped from its own worker's
// term numbers.
func TestFitReaderVocabularyAcrossWorkers(t *testing.T) {
	var b strings.Builder
	for i := range 6000 {
		// Term t<i> in documents i and i+1 only, so every term has a
		// document frequency of 2 and crosses a chunk boundary now and
		// then; a common word in all.
		fmt.Fprintf(&b, "%d\tcommon t%d t%d filler%s\n", i%2, i, i+1, strings.Repeat(" pad", 40))
	}
	cfg := Config{Vocabulary: true, MinDF: 2, IDF: true, Workers: 4}
	c, err := Read(strings.NewReader(b.String()), ReadOptions{Format: TSV})
	if err != nil {
		t.Fatal(err)
	}
	if len(chunkDocs(c.Docs)) < 4 {
		t.Fatalf("%d chunks: the test wants several", len(chunkDocs(c.Docs)))
	}
	f1, err := Fit(c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	d1, err := f1.Vectorize(c)
	if err != nil {
		t.Fatal(err)
	}
	f2, d2, err := FitReader(strings.NewReader(b.String()), ReadOptions{Format: TSV}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !sameDataset(d1, d2) || !slices.Equal(f1.Vocabulary(), f2.Vocabulary()) || !slices.Equal(f1.dfs(), f2.dfs()) {
		t.Fatal("FitReader differs from Fit and Vectorize")
	}
	// t1 … t5999 are in two documents each; t0 and t6000 in one.
	if _, ok := f2.index.get(xxhash.Sum64String("t0")); ok {
		t.Error("t0, in one document, is in the vocabulary")
	}
	j, ok := f2.index.get(xxhash.Sum64String("t1500"))
	if !ok || f2.df.dense[j] != 2 {
		t.Errorf("t1500: in vocabulary %v, df %d; want 2", ok, f2.df.dense[j])
	}
	if n := len(f2.Vocabulary()); n < 6000 {
		t.Errorf("%d terms", n)
	}
}
