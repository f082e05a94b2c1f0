package text

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// A featurizer read for some documents, from its bytes or in part from a
// reader, transforms each of them into the whole featurizer's vector,
// renumbered by the features it keeps, to the bit; one that hashes is read
// whole. Blocks of a few terms put the documents' terms in many blocks.
func TestUnmarshalBinaryFor(t *testing.T) {
	defer func(b int) { vocabBlock = b }(vocabBlock)
	r := rand.New(rand.NewPCG(41, 42))
	train := testCorpus(r, 300)
	test := testCorpus(r, 40)
	for _, block := range []int{1, 4, 256} {
		vocabBlock = block
		for _, cfg := range testConfigs() {
			t.Run(fmt.Sprintf("%d/%+v", block, cfg), func(t *testing.T) {
				f, err := Fit(train, cfg)
				if err != nil {
					t.Fatal(err)
				}
				data, err := f.MarshalBinary()
				if err != nil {
					t.Fatal(err)
				}
				for _, n := range []int{0, 1, 5, len(test.Docs)} {
					var docs []string
					for _, d := range test.Docs[:n] {
						docs = append(docs, d.Text)
					}
					// A document of terms the vocabulary lacks too, before
					// its first term and after its last.
					docs = append(docs, "0 zzz qqq "+test.Docs[0].Text)
					var g Featurizer
					kept, err := g.UnmarshalBinaryFor(data, docs)
					if err != nil {
						t.Fatal(err)
					}
					checkSubset(t, f, &g, kept, docs, n > 0)
					h, kept2, err := ReadFeaturizerFor(bytes.NewReader(data), int64(len(data)), docs)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(kept, kept2) || (kept == nil) != (kept2 == nil) {
						t.Fatalf("ReadFeaturizerFor kept %d features, UnmarshalBinaryFor %d", len(kept2), len(kept))
					}
					checkSubset(t, f, h, kept2, docs, n > 0)
				}
			})
		}
	}
}

// checkSubset checks that g, f read for docs keeping the features kept,
// transforms each of docs as f does, renumbered; some must have a
// feature when used is set.
func checkSubset(t *testing.T, f, g *Featurizer, kept []int32, docs []string, used bool) {
	t.Helper()
	if !f.Config().Vocabulary {
		if kept != nil || g.Dim() != f.Dim() {
			t.Fatalf("hashing: kept %d features, dim %d; want the whole featurizer", len(kept), g.Dim())
		}
		return
	}
	if len(kept) != g.Dim() || !slices.IsSorted(kept) || len(kept) > f.Dim() {
		t.Fatalf("%d features kept of %d, dim %d", len(kept), f.Dim(), g.Dim())
	}
	if !slices.Equal(g.Labels(), f.Labels()) || g.Config() != (Config{Workers: 0, NGrams: f.Config().NGrams, Vocabulary: true, MinDF: f.Config().MinDF, MaxFeatures: f.Config().MaxFeatures, TF: f.Config().TF, IDF: f.Config().IDF, NoNormalize: f.Config().NoNormalize}) {
		t.Fatalf("config %+v, labels %q", g.Config(), g.Labels())
	}
	for i, j := range kept {
		if term, _ := f.Term(int(j)); term != g.Vocabulary()[i] {
			t.Fatalf("feature %d is %q, the whole vocabulary's %d %q", i, g.Vocabulary()[i], j, term)
		}
	}
	nnz := 0
	for _, d := range docs {
		want, got := f.Transform(d), g.Transform(d)
		nnz += len(want.Ind)
		if len(want.Ind) != len(got.Ind) {
			t.Fatalf("%q: %d features, whole featurizer %d", d, len(got.Ind), len(want.Ind))
		}
		for k, j := range want.Ind {
			if kept[got.Ind[k]] != j || math.Float32bits(got.Val[k]) != math.Float32bits(want.Val[k]) {
				t.Fatalf("%q: feature %d (%d) = %v, whole featurizer %d = %v", d, got.Ind[k], kept[got.Ind[k]], got.Val[k], j, want.Val[k])
			}
		}
	}
	if nnz == 0 && used {
		t.Fatal("no document has a feature: the test checks nothing")
	}
}

// A featurizer read for some documents still refuses a vocabulary that
// is not sorted, and a binary form that is cut short.
func TestUnmarshalBinaryForRefuses(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	f, err := Fit(testCorpus(r, 100), Config{Vocabulary: true, NGrams: 2, IDF: true})
	if err != nil {
		t.Fatal(err)
	}
	docs := []string{"good movie"}
	data, err := f.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	for _, cut := range []int{len(data) - 1, len(data) / 2, 20} {
		var g Featurizer
		if _, err := g.UnmarshalBinaryFor(data[:cut], docs); !errors.Is(err, ErrFormat) {
			t.Errorf("cut to %d bytes: %v, want ErrFormat", cut, err)
		}
	}
	// The same vocabulary with two terms swapped.
	vocab := f.Vocabulary()
	vocab[3], vocab[4] = vocab[4], vocab[3]
	fc := appendFrontCoded(nil, vocab)
	if _, _, err := subsetVocabularyFC(fc, uint64(len(vocab)), uint64(totalLen(vocab)), nil, []string{vocab[0]}); !errors.Is(err, ErrFormat) {
		t.Errorf("unsorted vocabulary: %v, want ErrFormat", err)
	}
}

func totalLen(terms []string) int {
	n := 0
	for _, s := range terms {
		n += len(s)
	}
	return n
}
