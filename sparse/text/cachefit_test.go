package text

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/hpc"
)

// FitCache writes the rows FitReader returns, in input order, less the
// held documents, which it returns in memory; its featurizer is
// FitReader's; its temporary file is gone when it returns.
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
		t.Run(fmt.Sprintf("%+v", cfg), func(t *testing.T) {
			f1, d1, err := FitReader(strings.NewReader(in.String()), opt, cfg)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			var buf bytes.Buffer
			res, err := FitCache(context.Background(), strings.NewReader(in.String()), opt, cfg, &buf, CacheOptions{TempDir: dir, Hold: hold})
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
