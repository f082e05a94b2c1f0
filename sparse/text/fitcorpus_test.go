package text

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse/budget/budgettest"
)

// sameFit fails t unless FitVectorize on c gives the featurizer (its
// encoding) and the rows that Fit and Vectorize give in turn, or fails
// where they fail.
func sameFit(t *testing.T, c *Corpus, cfg Config) {
	t.Helper()
	f2, d2, err2 := FitVectorize(context.Background(), c, cfg)
	f1, err1 := Fit(c, cfg)
	if err1 != nil {
		if err2 == nil || err2.Error() != err1.Error() {
			t.Fatalf("%+v: Fit failed (%v), FitVectorize: %v", cfg, err1, err2)
		}
		return
	}
	d1, err := f1.Vectorize(c)
	if err != nil {
		t.Fatalf("Vectorize after Fit: %v", err)
	}
	if err2 != nil {
		t.Fatalf("%+v: FitVectorize failed (%v) where Fit and Vectorize did not", cfg, err2)
	}
	b1, err1 := f1.MarshalBinary()
	b2, err2 := f2.MarshalBinary()
	if err1 != nil || err2 != nil {
		t.Fatalf("MarshalBinary: %v, %v", err1, err2)
	}
	if !sameDataset(d1, d2) || !bytes.Equal(b1, b2) {
		t.Fatalf("%+v: FitVectorize differs from Fit and Vectorize", cfg)
	}
}

// TestFitVectorize: fitting and vectorizing at once gives what Fit and
// Vectorize give, on a corpus of many chunks, on one worker or several,
// in vocabulary and hashing mode alike.
func TestFitVectorize(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	words := make([]string, 3000)
	for i := range words {
		words[i] = fmt.Sprintf("w%x", r.Uint32()%(1<<uint(4+i%12)))
	}
	c := &Corpus{Name: "gen"}
	for i := range 3 * chunkMaxDocs {
		var sb strings.Builder
		for range 1 + r.IntN(60) {
			// Zipf-like: short words are frequent.
			sb.WriteString(words[int(float64(len(words))*r.Float64()*r.Float64()*r.Float64())])
			sb.WriteByte(' ')
		}
		c.Docs = append(c.Docs, Doc{Text: sb.String(), Label: []string{"a", "b", "c"}[i%3], Line: i + 1})
	}
	for _, cfg := range []Config{
		{NGrams: 2, TF: Log, IDF: true, Vocabulary: true, MinDF: 2},
		{NGrams: 1, Vocabulary: true, MaxFeatures: 500, Workers: 1},
		{NGrams: 3, TF: Binary, IDF: true, Vocabulary: true, MinDF: 3, Workers: 3, NoNormalize: true},
		{NGrams: 2, IDF: true, Bits: 12},
	} {
		sameFit(t, c, cfg)
	}
}

// TestFitVectorizeErrors: FitVectorize refuses what Fit refuses, with
// the same errors, and stops when its context is done.
func TestFitVectorizeErrors(t *testing.T) {
	sameFit(t, &Corpus{}, Config{Vocabulary: true})
	sameFit(t, &Corpus{Docs: []Doc{{Text: "x", Label: "a"}, {Text: "y", Label: ""}}}, Config{Vocabulary: true})
	sameFit(t, &Corpus{Docs: []Doc{{Text: "x", Label: "a"}}}, Config{Vocabulary: true, NGrams: -1})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := FitVectorize(ctx, &Corpus{Docs: []Doc{{Text: "x", Label: "a"}}}, Config{Vocabulary: true}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
}

// FuzzFitVectorize: FitVectorize gives what Fit and Vectorize give,
// whatever the text, with a vocabulary (n-grams, the tf and idf, a
// floor on the document frequency, a cap on the features) or hashing.
//
//	go test -run '^$' -fuzz '^FuzzFitVectorize$' -fuzztime 60s ./sparse/text/
func FuzzFitVectorize(f *testing.F) {
	f.Add([]byte("a\tgood good film\nb\tdull film\na\tÜber GOOD\n"))
	f.Add([]byte("x\t\xff\xfe y y\ny\t日本語 テキスト\nx\t\n"))
	configs := []Config{
		{Vocabulary: true},
		{NGrams: 2, TF: Log, IDF: true, Vocabulary: true, MinDF: 2, Workers: 2},
		{NGrams: 3, TF: Binary, Vocabulary: true, MaxFeatures: 3, NoNormalize: true, Workers: 1},
		{NGrams: 2, IDF: true, Bits: 6},
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Read(bytes.NewReader(data), ReadOptions{Format: TSV, Name: "fuzz.tsv"})
		if err != nil {
			return
		}
		for _, cfg := range configs {
			// The bytes allocated are counted for each fit on its own.
			done := budgettest.Within(t, 64<<20)
			sameFit(t, c, cfg)
			done()
		}
	})
}
