package text

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestContextStops: fitting, vectorizing and reading stop when their
// context is done and say so with its error, for a vocabulary and for
// hashing, from a corpus in memory and from a file.
func TestContextStops(t *testing.T) {
	c := &Corpus{}
	var b strings.Builder
	for i := range 20000 {
		l := []string{"pos", "neg"}[i%2]
		txt := strings.Repeat("good fine film ", 1+i%5) + l
		c.Docs = append(c.Docs, Doc{Label: l, Text: txt})
		b.WriteString(`{"label":"` + l + `","text":"` + txt + `"}` + "\n")
	}
	path := filepath.Join(t.TempDir(), "c.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, cfg := range []Config{{Vocabulary: true, NGrams: 2}, {Bits: 12, IDF: true}} {
		if _, err := FitContext(ctx, c, cfg); !errors.Is(err, context.Canceled) {
			t.Errorf("FitContext %+v: %v", cfg, err)
		}
		if _, _, err := FitFileContext(ctx, path, ReadOptions{}, cfg); !errors.Is(err, context.Canceled) {
			t.Errorf("FitFileContext %+v: %v", cfg, err)
		}
		f, err := Fit(c, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.VectorizeContext(ctx, c); !errors.Is(err, context.Canceled) {
			t.Errorf("VectorizeContext %+v: %v", cfg, err)
		}
		if d, err := f.VectorizeContext(context.Background(), c); err != nil || d.X.Rows != len(c.Docs) {
			t.Errorf("VectorizeContext, not cancelled: %v", err)
		}
	}
}
