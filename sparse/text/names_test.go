package text

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse/budget"
	"github.com/hyperplane-ml/hyperplane/sparse/budget/budgettest"
)

// namesOracle names features from the Terms of every document: per
// feature, the distinct terms by decreasing document frequency, then text,
// at most per of them.
func namesOracle(f *Featurizer, c *Corpus, features []int32, per int) map[int32][]NamedTerm {
	type key struct {
		feat int32
		text string
	}
	df := make(map[key]int)
	sign := make(map[key]float32)
	e := f.NewEncoder()
	var terms []Term
	for _, d := range c.Docs {
		terms = e.Terms(d.Text, terms)
		for _, tm := range terms {
			k := key{tm.Feature, tm.Text}
			df[k]++
			sign[k] = tm.Sign
		}
	}
	asked := make(map[int32]bool)
	for _, j := range features {
		asked[j] = true
	}
	out := make(map[int32][]NamedTerm)
	for k, n := range df {
		if asked[k.feat] {
			out[k.feat] = append(out[k.feat], NamedTerm{Text: k.text, Sign: sign[k], DF: n})
		}
	}
	for j, ts := range out {
		slices.SortFunc(ts, func(a, b NamedTerm) int { return cmp.Or(cmp.Compare(b.DF, a.DF), strings.Compare(a.Text, b.Text)) })
		out[j] = ts[:min(len(ts), per)]
	}
	return out
}

func checkNames(t *testing.T, name string, n *Names, want map[int32][]NamedTerm) {
	t.Helper()
	if n.Len() != len(want) {
		t.Fatalf("%s: %d features named, want %d", name, n.Len(), len(want))
	}
	feats := n.Features()
	if !slices.IsSorted(feats) || len(feats) != len(want) {
		t.Fatalf("%s: features %v", name, feats)
	}
	for _, j := range feats {
		if got := n.Lookup(j); !slices.Equal(got, want[j]) {
			t.Fatalf("%s: feature %d named %+v, want %+v", name, j, got, want[j])
		}
	}
}

// TestFeatureNamesHashing: with hashing, the names of features are the
// terms Terms finds in them, ranked by document frequency over the
// corpus, whatever the number of workers and in whatever order and
// repetition the features are asked for; unasked features, and asked
// ones no term lands in, get none.
func TestFeatureNamesHashing(t *testing.T) {
	small := &Corpus{}
	for i, d := range termDocs(200, 3) {
		small.Docs = append(small.Docs, Doc{Label: fmt.Sprint(i % 2), Text: d})
	}
	big := synthCorpus(500, 1300, 5) // several chunks, so several workers
	for _, tc := range []struct {
		name string
		c    *Corpus
		bits int
	}{{"small", small, 4}, {"small", small, 20}, {"big", big, 6}, {"big", big, 18}} {
		for ngrams := 1; ngrams <= 3; ngrams += 2 {
			t.Run(fmt.Sprintf("%s/bits=%d/ngrams=%d", tc.name, tc.bits, ngrams), func(t *testing.T) {
				if testing.Short() && tc.c == big && ngrams > 1 {
					t.Skip("-short: trigrams on the large corpus (the small one has them, and ngrams=1 covers the workers)")
				}
				f, err := Fit(tc.c, Config{NGrams: ngrams, Bits: tc.bits})
				if err != nil {
					t.Fatal(err)
				}
				// Every other bucket with few bits; else the features of some
				// documents, and one no term lands in.
				var features []int32
				if tc.bits <= 6 {
					for j := int32(0); j < int32(f.Dim()); j += 2 {
						features = append(features, j)
					}
				} else {
					for _, d := range tc.c.Docs[:20] {
						features = append(features, f.Transform(d.Text).Ind...)
					}
					features = append(features, int32(f.Dim()-1)) // likely empty
				}
				rand.New(rand.NewPCG(1, 1)).Shuffle(len(features), func(i, j int) { features[i], features[j] = features[j], features[i] })
				full := namesOracle(f, tc.c, features, 1<<30)
				for _, per := range []int{1, 3, 1 << 30} {
					want := make(map[int32][]NamedTerm)
					for j, ts := range full {
						want[j] = ts[:min(len(ts), per)]
					}
					for _, workers := range []int{1, 3} {
						f.cfg.Workers = workers
						n, err := f.FeatureNames(tc.c, features, per)
						if err != nil {
							t.Fatal(err)
						}
						checkNames(t, fmt.Sprintf("bits %d, %d-grams, %d per feature, %d workers", tc.bits, ngrams, per, workers), n, want)
					}
				}
			})
		}
	}
}

// TestFeatureNamesCollisions: in a bucket shared by terms of both signs,
// the names keep each term's sign, the more frequent term first.
func TestFeatureNamesCollisions(t *testing.T) {
	c := &Corpus{}
	for i, d := range termDocs(100, 4) {
		c.Docs = append(c.Docs, Doc{Label: "x", Text: d + fmt.Sprint(" w", i%7)})
	}
	f, err := Fit(c, Config{Bits: 2})
	if err != nil {
		t.Fatal(err)
	}
	n, err := f.FeatureNames(c, []int32{0, 1, 2, 3}, 100)
	if err != nil {
		t.Fatal(err)
	}
	signs := map[float32]bool{}
	for _, j := range n.Features() {
		ts := n.Lookup(j)
		for i, tm := range ts {
			signs[tm.Sign] = true
			if i > 0 && ts[i-1].DF < tm.DF {
				t.Fatalf("feature %d: %+v not by decreasing DF", j, ts)
			}
			if h := termHashOf(tm.Text); f.bucketKey(h)>>1 != uint32(j) {
				t.Fatalf("feature %d named by %q, which hashes elsewhere", j, tm.Text)
			}
		}
	}
	if !signs[1] || !signs[-1] {
		t.Fatalf("signs %v: want both", signs)
	}
	if got := n.Lookup(0); len(got) > 0 {
		got[0].Text = "changed"
		if n.Lookup(0)[0].Text == "changed" {
			t.Fatal("Lookup returns the names' own slice")
		}
	}
}

// TestFeatureNamesVocabulary: with a vocabulary the name of a feature is
// its term, with its training document frequency when the featurizer has
// idf, without reading a corpus.
func TestFeatureNamesVocabulary(t *testing.T) {
	c := &Corpus{Docs: []Doc{{Label: "a", Text: "great film"}, {Label: "b", Text: "great, great plot"}}}
	for _, idf := range []bool{false, true} {
		f, err := Fit(c, Config{Vocabulary: true, NGrams: 2, IDF: idf})
		if err != nil {
			t.Fatal(err)
		}
		// [film great great film great great great plot plot]
		n, err := f.FeatureNames(nil, []int32{1, 5, 1}, 5)
		if err != nil {
			t.Fatal(err)
		}
		want := map[int32][]NamedTerm{1: {{"great", 1, 2}}, 5: {{"plot", 1, 1}}}
		if !idf {
			want = map[int32][]NamedTerm{1: {{"great", 1, 0}}, 5: {{"plot", 1, 0}}}
		}
		checkNames(t, fmt.Sprint("idf ", idf), n, want)
	}
}

// TestFeatureNamesErrors: bad arguments are ErrConfig; terms beyond the
// memory budget are budget.ErrExceeded.
func TestFeatureNamesErrors(t *testing.T) {
	c := synthCorpus(300, 1300, 2)
	f, err := Fit(c, Config{NGrams: 3, Bits: 8})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		features []int32
		per      int
	}{{[]int32{0}, 0}, {[]int32{0}, -1}, {[]int32{-1}, 1}, {[]int32{3, 256}, 1}} {
		if _, err := f.FeatureNames(c, tc.features, tc.per); !errors.Is(err, ErrConfig) {
			t.Errorf("features %v, %d per feature: error %v, want ErrConfig", tc.features, tc.per, err)
		}
	}
	if n, err := f.FeatureNames(nil, []int32{1}, 1); err != nil || n.Len() != 0 {
		t.Fatalf("no corpus: %d names, %v", n.Len(), err)
	}

	all := make([]int32, f.Dim())
	for j := range all {
		all[j] = int32(j)
	}
	defer budget.Set(budget.Set(2 << 20))
	if _, err := f.FeatureNames(c, all, 1); !errors.Is(err, budget.ErrExceeded) {
		t.Fatalf("all trigrams in a 2 MiB budget: error %v, want budget.ErrExceeded", err)
	}
	if n, err := f.FeatureNames(c, all[:1], 1); err != nil || n.Len() != 1 {
		t.Fatalf("one feature in a 2 MiB budget: %d names, %v", n.Len(), err)
	}
}

// namesSample returns names with features and terms of every kind: both
// signs, several terms a feature, DF 0 and large, multibyte text.
func namesSample(t testing.TB) *Names {
	c := &Corpus{}
	for i, d := range termDocs(60, 7) {
		c.Docs = append(c.Docs, Doc{Label: "x", Text: d + fmt.Sprint(" w", i)})
	}
	f, err := Fit(c, Config{NGrams: 2, Bits: 5})
	if err != nil {
		t.Fatal(err)
	}
	n, err := f.FeatureNames(c, []int32{0, 1, 7, 30, 31}, 4)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestNamesBinary: names encode and decode to the same names and the same
// bytes; every truncation, every single-bit flip, data after the end and
// another version are refused with ErrFormat, leaving the target as it was.
func TestNamesBinary(t *testing.T) {
	for _, n := range []*Names{namesSample(t), {}, {feats: []int32{1 << 30}, off: []int{0, 1}, terms: []NamedTerm{{"é b", -1, 1 << 40}}}} {
		t.Run(fmt.Sprintf("features=%d", len(n.feats)), func(t *testing.T) {
			data, err := n.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			var m Names
			if err := m.UnmarshalBinary(data); err != nil {
				t.Fatal(err)
			}
			if m.Len() != n.Len() {
				t.Fatalf("%d features decoded, want %d", m.Len(), n.Len())
			}
			for _, j := range n.Features() {
				if !slices.Equal(m.Lookup(j), n.Lookup(j)) {
					t.Fatalf("feature %d decodes to %+v, want %+v", j, m.Lookup(j), n.Lookup(j))
				}
			}
			again, _ := m.MarshalBinary()
			if !bytes.Equal(again, data) {
				t.Fatal("encoding the decoded names gives other bytes")
			}

			keep := namesSample(t)
			refuse := func(what string, bad []byte) {
				t.Helper()
				m := *keep
				if err := m.UnmarshalBinary(bad); !errors.Is(err, ErrFormat) {
					t.Fatalf("%s: error %v, want ErrFormat", what, err)
				}
				if m.Len() != keep.Len() || &m.terms[0] != &keep.terms[0] {
					t.Fatalf("%s: a failed decode changed the names", what)
				}
			}
			for k := range data {
				refuse(fmt.Sprint("truncated to ", k), data[:k])
				for bit := range 8 {
					flipped := slices.Clone(data)
					flipped[k] ^= 1 << bit
					refuse(fmt.Sprintf("bit %d of byte %d flipped", bit, k), flipped)
				}
			}
			refuse("trailing byte", append(slices.Clone(data), 0))
			v2 := slices.Clone(data)
			v2[len(namesMagic)] = 2
			refuse("version 2", v2)
		})
	}
}

// FuzzNamesUnmarshal: any data UnmarshalBinary accepts encode back to the
// same bytes (the encoding is canonical) with features increasing and
// terms non-empty, signed ±1 and ranked; anything else is an error
// wrapping ErrFormat or budget.ErrExceeded, never a panic.
//
//	go test -run '^$' -fuzz '^FuzzNamesUnmarshal$' -fuzztime 60s ./sparse/text/
func FuzzNamesUnmarshal(f *testing.F) {
	for _, n := range []*Names{namesSample(f), {}, {feats: []int32{5, 9}, off: []int{0, 2, 3}, terms: []NamedTerm{{"b", 1, 3}, {"a b", -1, 1}, {"ü", -1, 0}}}} {
		data, err := n.MarshalBinary()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(data[:len(data)-4]) // no checksum
	}
	f.Add([]byte(namesMagic))
	f.Add([]byte(namesMagic + "\x01\xff\xff\xff\xff\x0f\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Under a small budget, within twice it (see budgettest.Within).
		defer budgettest.Within(t, 64<<20)()
		var n Names
		err := n.UnmarshalBinary(data)
		if err != nil {
			if !errors.Is(err, ErrFormat) && !errors.Is(err, budget.ErrExceeded) {
				t.Fatalf("error %v wraps neither ErrFormat nor budget.ErrExceeded", err)
			}
			return
		}
		again, err := n.MarshalBinary()
		if err != nil || !bytes.Equal(again, data) {
			t.Fatalf("decoded names encode to other bytes (%v)", err)
		}
		feats := n.Features()
		for i, j := range feats {
			if j < 0 || i > 0 && feats[i-1] >= j {
				t.Fatalf("features %v", feats)
			}
			ts := n.Lookup(j)
			if len(ts) == 0 {
				t.Fatalf("feature %d has no terms", j)
			}
			for k, tm := range ts {
				if tm.Text == "" || tm.Sign != 1 && tm.Sign != -1 || tm.DF < 0 || k > 0 && ts[k-1].DF < tm.DF {
					t.Fatalf("feature %d: terms %+v", j, ts)
				}
			}
		}
	})
}

// news20Path is the 20 Newsgroups training set, when the shared data are
// checked out beside the module.
const news20Path = "../../shared/data/text/20newsgroups/20ng.train.jsonl.gz"

// BenchmarkFeatureNames20NG names 1000 random buckets of bigrams hashed
// into 2^20 over the 20 Newsgroups training set (11314 posts, 22 MB), and,
// for scale, vectorizes the same documents.
func BenchmarkFeatureNames20NG(b *testing.B) {
	if _, err := os.Stat(news20Path); err != nil {
		b.Skip("20 Newsgroups data not available:", err)
	}
	c, err := ReadFile(news20Path, ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	f, err := Fit(c, Config{NGrams: 2, Bits: 20})
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 20))
	features := make([]int32, 1000)
	for i := range features {
		features[i] = int32(r.IntN(f.Dim()))
	}
	b.Run("names", func(b *testing.B) {
		b.SetBytes(corpusBytes(c))
		b.ReportAllocs()
		var n *Names
		for b.Loop() {
			if n, err = f.FeatureNames(c, features, 5); err != nil {
				b.Fatal(err)
			}
		}
		data, _ := n.MarshalBinary()
		b.ReportMetric(float64(n.Len()), "features")
		b.ReportMetric(float64(len(n.terms)), "terms")
		b.ReportMetric(float64(len(data)), "encoded-B")
		b.ReportMetric(float64(runtime.GOMAXPROCS(0)), "workers")
	})
	b.Run("vectorize", func(b *testing.B) {
		b.SetBytes(corpusBytes(c))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := f.Vectorize(c); err != nil {
				b.Fatal(err)
			}
		}
	})
}
