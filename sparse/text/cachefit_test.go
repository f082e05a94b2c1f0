package text

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/hpc"
)

// FitCache writes the rows FitReader returns, in input order, less the
// held documents, which it returns in memory; its featurizer is
// FitReader's; its temporary file is gone when it returns. The same holds
// when its second pass reads the text again (CacheOptions.Reread).
func TestFitCacheMatchesFitReader(t *testing.T) {
	c := bigCorpus(1, 800)
	var in strings.Builder
	for _, d := range c.Docs {
		fmt.Fprintf(&in, "%s\t%s\n", d.Label, strings.ReplaceAll(d.Text, "\n", " "))
	}
	opt := ReadOptions{Format: TSV, Name: "in.tsv"}
	hold := func(doc int64) bool { return doc%7 == 3 }
	for _, cfg := range []Config{
		{},
		{NGrams: 2, Bits: 14, IDF: true, TF: Log},
		{NGrams: 2, Bits: 10, TF: Binary, NoNormalize: true, Workers: 3},
		{Vocabulary: true, NGrams: 2, IDF: true, TF: Log, MinDF: 2},
		{Vocabulary: true, NGrams: 3, MaxFeatures: 300, Workers: 3},
	} {
		for _, reread := range []bool{false, true} {
			t.Run(fmt.Sprintf("%+v reread=%v", cfg, reread), func(t *testing.T) {
				f1, d1, err := FitReader(strings.NewReader(in.String()), opt, cfg)
				if err != nil {
					t.Fatal(err)
				}
				dir := t.TempDir()
				var buf bytes.Buffer
				co := CacheOptions{TempDir: dir, Hold: hold}
				if reread {
					co.Reread = func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(in.String())), nil }
				}
				res, err := FitCache(context.Background(), strings.NewReader(in.String()), opt, cfg, &buf, co)
				if err != nil {
					t.Fatal(err)
				}
				if left, _ := os.ReadDir(dir); len(left) != 0 {
					t.Errorf("left in the temporary folder: %v", left)
				}
				f2 := res.Featurizer
				if f1.Dim() != f2.Dim() || !slices.Equal(f1.Vocabulary(), f2.Vocabulary()) || !slices.Equal(f1.dfs(), f2.dfs()) || !slices.Equal(f1.idfs(), f2.idfs()) || !slices.Equal(f1.Labels(), f2.Labels()) {
					t.Fatal("FitCache's featurizer differs from FitReader's")
				}
				d2, err := hpc.Read(&buf, sparse.ReadOptions{})
				if err != nil {
					t.Fatal(err)
				}
				var kept, held []int
				for i := range d1.X.Rows {
					if hold(int64(i)) {
						held = append(held, i)
					} else {
						kept = append(kept, i)
					}
				}
				if int(res.Rows) != len(kept) || d2.X.Cols != d1.X.Cols {
					t.Fatalf("%d rows of %d columns written, want %d of %d", res.Rows, d2.X.Cols, len(kept), d1.X.Cols)
				}
				want := &sparse.Dataset{X: d1.X.SelectRows(kept), Y: pickRows(d1.Y, kept)}
				if !sameRows(want, d2) {
					t.Error("the cache's rows differ from FitReader's")
				}
				wantHeld := &sparse.Dataset{X: d1.X.SelectRows(held), Y: pickRows(d1.Y, held)}
				if res.Held == nil || !sameRows(wantHeld, res.Held) {
					t.Error("the held rows differ from FitReader's")
				}
			})
		}
	}
}

// With CacheOptions.Reread, an input that reads back with other
// documents is an error: fewer of them, or a label the first read did
// not have.
func TestFitCacheRereadChecksTheInput(t *testing.T) {
	in := "a\tone two\nb\tthree four\na\tone four\n"
	opt := ReadOptions{Format: TSV, Name: "in.tsv"}
	for _, again := range []string{"a\tone two\nb\tthree four\n", in + "b\tfive\n", "a\tone two\nc\tthree four\na\tone\n"} {
		co := CacheOptions{Reread: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(again)), nil }}
		_, err := FitCache(context.Background(), strings.NewReader(in), opt, Config{Vocabulary: true}, io.Discard, co)
		if err == nil {
			t.Errorf("read again as %q: no error", again)
		}
	}
	co := CacheOptions{Reread: func() (io.ReadCloser, error) { return nil, os.ErrNotExist }}
	if _, err := FitCache(context.Background(), strings.NewReader(in), opt, Config{}, io.Discard, co); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an input that does not open again: %v", err)
	}
}

func pickRows(y []float64, idx []int) []float64 {
	out := make([]float64, len(idx))
	for j, i := range idx {
		out[j] = y[i]
	}
	return out
}

// sameRows compares rows, labels and values, not the column count, which
// a cache read back infers.
func sameRows(a, b *sparse.Dataset) bool {
	if a.X.Rows != b.X.Rows || !slices.Equal(a.Y, b.Y) {
		return false
	}
	for i := range a.X.Rows {
		x, y := a.X.Row(i), b.X.Row(i)
		if !slices.Equal(x.Ind, y.Ind) || !slices.Equal(x.Val, y.Val) {
			return false
		}
	}
	return true
}

// A failing FitCache (a bad line, an empty input, a cancelled context)
// says why and leaves no temporary file.
func TestFitCacheErrorsLeaveNothing(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		in   string
		ctx  context.Context
		want error
	}{
		{"pos\tgood\nno tab here\n", context.Background(), ErrMissingField},
		{"", context.Background(), ErrEmpty},
		{"pos\tgood\nneg\tbad\n", ctx, context.Canceled},
	} {
		for _, cfg := range []Config{{}, {Vocabulary: true}} {
			var buf bytes.Buffer
			_, err := FitCache(c.ctx, strings.NewReader(c.in), ReadOptions{Format: TSV}, cfg, &buf, CacheOptions{TempDir: dir})
			if !errors.Is(err, c.want) {
				t.Errorf("%q %+v: %v, want %v", c.in, cfg, err, c.want)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Errorf("%q: left %v", c.in, left)
			}
		}
	}
}

// With term counts bounded (CacheOptions.VocabBytes), FitCache drops the
// rarest terms as it goes and says so (Pruned): every term it keeps is
// in the exact vocabulary, its document frequency is never above the
// exact one, and the common terms are all kept, counted within the
// floor's error.
func TestFitCachePrunesTheRarest(t *testing.T) {
	var in strings.Builder
	words := 3000
	for i := range 4000 {
		// A Zipf-like mix: word w in about 1/w of the documents, plus
		// a pair of rare words.
		var b strings.Builder
		for w := 1; w <= words; w++ {
			if (i*7919+w*104729)%(w*3) == 0 {
				fmt.Fprintf(&b, " w%d", w)
			}
		}
		fmt.Fprintf(&in, "%d\tcommon%s r%d s%d\n", i%2, b.String(), i, i/2)
	}
	cfg := Config{Vocabulary: true, IDF: true, Workers: 2}
	opt := ReadOptions{Format: TSV}
	exact, _, err := FitReader(strings.NewReader(in.String()), opt, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	res, err := FitCache(context.Background(), strings.NewReader(in.String()), opt, cfg, &buf, CacheOptions{TempDir: t.TempDir(), VocabBytes: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	if res.Pruned < 1 {
		t.Fatalf("Pruned %d: the counts were never bounded", res.Pruned)
	}
	f := res.Featurizer
	if f.Dim() >= exact.Dim() || f.Dim() == 0 {
		t.Errorf("%d terms kept of %d", f.Dim(), exact.Dim())
	}
	exactDF := map[string]int32{}
	for j, term := range exact.Vocabulary() {
		exactDF[term] = exact.df.dense[j]
	}
	for j, term := range f.Vocabulary() {
		want, ok := exactDF[term]
		if !ok || f.df.dense[j] > want {
			t.Fatalf("%q: df %d, exact %d (in the exact vocabulary: %v)", term, f.df.dense[j], want, ok)
		}
	}
	for term, df := range exactDF {
		if df < 400 {
			continue
		}
		j, ok := f.index.get(xxhash.Sum64String(term))
		if !ok {
			t.Errorf("%q, in %d documents, was dropped", term, df)
		} else if got := f.df.dense[j]; float64(df-got) > 0.1*float64(df) {
			t.Errorf("%q: df %d, exact %d", term, got, df)
		}
	}
	// Read again instead of from the raw counts, the text gives the same
	// cache: a pruned vocabulary still holds whole rows.
	var again bytes.Buffer
	co := CacheOptions{VocabBytes: 64 << 10, Reread: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(in.String())), nil }}
	if _, err := FitCache(context.Background(), strings.NewReader(in.String()), opt, cfg, &again, co); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Bytes(), buf.Bytes()) {
		t.Error("the cache made by reading the text again differs")
	}
	// The rows are still the cache's, in the pruned vocabulary's terms.
	d, err := hpc.Read(&buf, sparse.ReadOptions{})
	if err != nil || d.X.Rows != 4000 {
		t.Fatalf("%v rows: %v", d.X.Rows, err)
	}
}
