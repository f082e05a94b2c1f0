package text

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
)

// termDocs returns documents exercising the tokenizer's paths: upper
// case, accents, punctuation, invalid UTF-8, repeats, an empty one, and
// random ones from a small vocabulary, in which terms repeat and, with few
// buckets, collide with opposite signs.
func termDocs(n int, seed uint64) []string {
	docs := []string{
		"",
		"   ,.;  ",
		"a",
		"A wonderful film, great acting and a great story.",
		"Great GREAT great! not bad, not bad at all — NOT BAD",
		"Ünïcödé ÉTÉ, it's 2024! \xff\xfe été ÉTÉ été",
		"x\xc3 y\xe2\x82 z: x y z x y z",
		"Straße STRASSE straße İstanbul ǅemal",
		"the the the the the the",
	}
	words := []string{"the", "a", "Good", "bad", "not", "great", "film", "été", "x1", "Z"}
	r := rand.New(rand.NewPCG(seed, 2))
	for range n {
		var sb strings.Builder
		for range r.IntN(60) {
			sb.WriteString(words[r.IntN(len(words))])
			sb.WriteString([]string{" ", " ", ", ", ". ", "\n", "—"}[r.IntN(6)])
		}
		docs = append(docs, sb.String())
	}
	return docs
}

// termHashOf hashes a term's text as a saved vocabulary term is hashed:
// xxHash64 of each space-separated token, mixed by gramHash.
func termHashOf(text string) uint64 {
	parts := strings.Split(text, " ")
	if len(parts) == 1 {
		return xxhash.Sum64String(text)
	}
	hs := make([]uint64, len(parts))
	for i, p := range parts {
		hs[i] = xxhash.Sum64String(p)
	}
	return gramHash(hs)
}

// gramCounts counts the n-grams of doc, 1 ≤ n ≤ ngrams, from Tokenize:
// an oracle independent of the walkers.
func gramCounts(doc string, ngrams int) map[string]int32 {
	toks := Tokenize(doc)
	out := make(map[string]int32)
	for i := range toks {
		for n := 1; n <= ngrams && n <= i+1; n++ {
			out[strings.Join(toks[i-n+1:i+1], " ")]++
		}
	}
	return out
}

// TestTermsMatchTransform: for hashing (with few buckets, so that terms
// collide and cancel, and with many) and for a vocabulary, with 1- to
// 3-grams, the terms of every document are its n-grams as Tokenize gives
// them (those in the vocabulary), each once with its count and the
// feature and sign its text hashes to, sorted; their features are the
// nonzero features of Transform, but for features whose signed counts
// cancel; and Σ Sign·Count per feature is the raw count Transform gives
// with TF Count, no IDF and no normalization.
func TestTermsMatchTransform(t *testing.T) {
	docs := termDocs(300, 1)
	train := &Corpus{}
	for i, d := range docs[:150] {
		train.Docs = append(train.Docs, Doc{Label: fmt.Sprint(i % 2), Text: d})
	}
	cancelled := 0
	for ngrams := 1; ngrams <= 3; ngrams++ {
		for _, cfg := range []Config{
			{NGrams: ngrams, Bits: 3, NoNormalize: true},
			{NGrams: ngrams, Bits: 20, NoNormalize: true},
			{NGrams: ngrams, Vocabulary: true, MinDF: 2, NoNormalize: true},
		} {
			f, err := Fit(train, cfg)
			if err != nil {
				t.Fatal(err)
			}
			e := f.NewEncoder()
			var terms []Term
			for _, doc := range docs {
				terms = e.Terms(doc, terms)
				v := e.Transform(doc)
				name := fmt.Sprintf("%+v on %q", cfg, doc)

				// The terms are the document's n-grams.
				want := gramCounts(doc, ngrams)
				seen := 0
				for i, tm := range terms {
					if i > 0 && (terms[i-1].Feature > tm.Feature || terms[i-1].Feature == tm.Feature && terms[i-1].Text >= tm.Text) {
						t.Fatalf("%s: terms out of order at %d: %+v", name, i, terms)
					}
					if c, ok := want[tm.Text]; !ok || c != tm.Count {
						t.Fatalf("%s: term %+v, the document has it %d times", name, tm, c)
					}
					h := termHashOf(tm.Text)
					feat, sign, ok := f.termFeature(h)
					if !ok || feat != tm.Feature || sign != tm.Sign {
						t.Fatalf("%s: term %+v, its text maps to %d, %v, %v", name, tm, feat, sign, ok)
					}
					if cfg.Vocabulary && f.vocab[tm.Feature] != tm.Text {
						t.Fatalf("%s: term %+v is %q in the vocabulary", name, tm, f.vocab[tm.Feature])
					}
					seen++
				}
				if !cfg.Vocabulary && seen != len(want) {
					t.Fatalf("%s: %d terms, the document has %d n-grams", name, seen, len(want))
				}
				if cfg.Vocabulary {
					for g := range want {
						if _, in := f.index.get(termHashOf(g)); in {
							seen--
						}
					}
					if seen != 0 {
						t.Fatalf("%s: the terms miss %d vocabulary terms", name, -seen)
					}
				}

				// Their signed counts are Transform's.
				sum := make(map[int32]float32)
				for _, tm := range terms {
					sum[tm.Feature] += tm.Sign * float32(tm.Count)
				}
				for i, j := range v.Ind {
					if sum[j] != v.Val[i] {
						t.Fatalf("%s: feature %d: Transform %v, terms sum to %v", name, j, v.Val[i], sum[j])
					}
					delete(sum, j)
				}
				for j, s := range sum {
					if s != 0 {
						t.Fatalf("%s: feature %d sums to %v in the terms, is not in Transform", name, j, s)
					}
					cancelled++
				}
			}
		}
	}
	if cancelled == 0 {
		t.Fatal("no feature cancelled out: the test misses that case")
	}
}

// TestTermsReusesDst: Terms writes into dst's array when it is big
// enough and leaves nothing of an earlier call.
func TestTermsReusesDst(t *testing.T) {
	f, err := Fit(&Corpus{Docs: []Doc{{Label: "a", Text: "x"}}}, Config{NGrams: 2})
	if err != nil {
		t.Fatal(err)
	}
	e := f.NewEncoder()
	dst := make([]Term, 0, 64)
	got := e.Terms("one two three four five", dst)
	if len(got) != 9 || &got[:1][0] != &dst[:1][0] {
		t.Fatalf("got %d terms, in dst's array: %v", len(got), &got[:1][0] == &dst[:1][0])
	}
	got = e.Terms("One one ONE", got)
	if len(got) != 2 {
		t.Fatalf("terms %+v, want one and one one", got)
	}
	for _, tm := range got {
		if want := map[string]int32{"one": 3, "one one": 2}[tm.Text]; tm.Count != want {
			t.Fatalf("term %+v, want count %d", tm, want)
		}
	}
	if got = e.Terms(" !! ", got); len(got) != 0 {
		t.Fatalf("terms of no tokens: %+v", got)
	}
}
