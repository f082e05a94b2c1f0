package text

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// refTerms lists the terms of text, in order: each as its hash and its
// string (the n-gram's tokens joined by spaces).
func refTerms(text string, ngrams int) (hashes []uint64, terms []string) {
	toks := refTokenize(text)
	th := make([]uint64, len(toks))
	for i, tok := range toks {
		th[i] = xxhash.Sum64String(tok)
	}
	for i := range toks {
		for n := 1; n <= ngrams && n <= i+1; n++ {
			h := th[i]
			if n > 1 {
				h = gramHash(th[i-n+1 : i+1])
			}
			hashes = append(hashes, h)
			terms = append(terms, strings.Join(toks[i-n+1:i+1], " "))
		}
	}
	return hashes, terms
}

// refCounts computes a document's raw counts from the definitions.
func refCounts(f *Featurizer, text string) map[int32]float64 {
	hashes, terms := refTerms(text, f.cfg.NGrams)
	counts := map[int32]float64{}
	for k, h := range hashes {
		if f.cfg.Vocabulary {
			if j, ok := slices.BinarySearch(f.vocab, terms[k]); ok {
				counts[int32(j)]++
			}
			continue
		}
		sign := 1.0
		if h>>63 == 1 {
			sign = -1
		}
		counts[int32(h&uint64(f.dim-1))] += sign
	}
	for j, c := range counts {
		if c == 0 {
			delete(counts, j)
		}
	}
	return counts
}

// refVector computes a document's vector from the definitions.
func refVector(f *Featurizer, text string) map[int32]float64 {
	v := refCounts(f, text)
	var ss float64
	for j, tf := range v {
		w := tf
		switch f.cfg.TF {
		case Binary:
			w = math.Copysign(1, tf)
		case Log:
			w = math.Copysign(1+math.Log(math.Abs(tf)), tf)
		}
		if f.cfg.IDF {
			n := float64(f.nDocs)
			w *= math.Log((1+n)/(1+float64(f.df.at(j)))) + 1
		}
		v[j] = w
		ss += w * w
	}
	if !f.cfg.NoNormalize && ss > 0 {
		for j := range v {
			v[j] /= math.Sqrt(ss)
		}
	}
	return v
}

func checkVector(t *testing.T, f *Featurizer, text string, got sparse.Vector) {
	t.Helper()
	if err := got.Validate(); err != nil {
		t.Fatalf("%q: invalid vector: %v", text, err)
	}
	if got.Dim != f.Dim() {
		t.Fatalf("Dim = %d, want %d", got.Dim, f.Dim())
	}
	want := refVector(f, text)
	if len(got.Ind) != len(want) {
		t.Fatalf("%q (%+v): %d features, want %d\ngot %v %v\nwant %v", text, f.cfg, len(got.Ind), len(want), got.Ind, got.Val, want)
	}
	for k, j := range got.Ind {
		w, ok := want[j]
		if !ok || math.Abs(float64(got.Val[k])-w) > 1e-5*max(1, math.Abs(w)) {
			t.Fatalf("%q (%+v): feature %d = %v, want %v (present %v)", text, f.cfg, j, got.Val[k], w, ok)
		}
		if got.Val[k] == 0 {
			t.Fatalf("%q: explicit zero at %d", text, j)
		}
	}
}

// testCorpus generates documents from a small word list, so that terms
// repeat, with case, accents, punctuation and invalid UTF-8 in the mix.
func testCorpus(r *rand.Rand, n int) *Corpus {
	words := []string{"good", "Bad", "movie", "FILM", "plot", "été", "Ünïcödé", "and", "the", "a", "2024", "it's", "très", "日本", "x\xffy", "ok!", "—", "no.", "Great,", "BORING"}
	labels := []string{"neg", "pos"}
	c := &Corpus{Name: "test"}
	for i := range n {
		var sb strings.Builder
		for k := range r.IntN(30) {
			if k > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(words[r.IntN(len(words))])
		}
		c.Docs = append(c.Docs, Doc{Label: labels[r.IntN(2)], Text: sb.String(), Line: i + 1})
	}
	return c
}

func testConfigs() []Config {
	return []Config{
		{},
		{Bits: 1},
		{Bits: 3, NGrams: 2},
		{Bits: MaxBits, NGrams: 3},
		{NGrams: 2, TF: Binary},
		{NGrams: 2, TF: Log, IDF: true},
		{Bits: 4, TF: Log, IDF: true, NoNormalize: true},
		{Bits: 2, TF: Count, NoNormalize: true},
		{Vocabulary: true},
		{Vocabulary: true, NGrams: 2, IDF: true, TF: Log},
		{Vocabulary: true, NGrams: 3, MinDF: 3, NoNormalize: true},
		{Vocabulary: true, NGrams: 2, MaxFeatures: 10, TF: Binary},
		{NGrams: 8, Bits: 10},
	}
}

func TestTransformMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	train := testCorpus(r, 200)
	extra := []string{"", " ", "!!!", "Ünïcödé ÉTÉ", "good good good Bad bad", "a a a a a a a a a a a", "never seen words here", strings.Repeat("movie ", 300), randomText(r, 200)}
	for _, cfg := range testConfigs() {
		t.Run(fmt.Sprintf("%+v", cfg), func(t *testing.T) {
			f, err := Fit(train, cfg)
			if err != nil {
				t.Fatal(err)
			}
			e := f.NewEncoder()
			for _, d := range train.Docs[:50] {
				checkVector(t, f, d.Text, e.Transform(d.Text))
			}
			for _, s := range extra {
				checkVector(t, f, s, e.Transform(s))
				checkVector(t, f, s, f.Transform(s))
			}
		})
	}
}

func TestSignedHashingCancels(t *testing.T) {
	// With one bit, two buckets: find two words whose signs differ in the
	// same bucket; together they must leave no entry.
	f, err := Fit(&Corpus{Docs: []Doc{{Label: "a", Text: "x"}}}, Config{Bits: 1, NoNormalize: true})
	if err != nil {
		t.Fatal(err)
	}
	type key struct{ bucket, sign uint64 }
	seen := map[key]string{}
	var pair [2]string
	for i := 0; pair[0] == ""; i++ {
		w := fmt.Sprintf("w%d", i)
		h := xxhash.Sum64String(w)
		if other, ok := seen[key{h & 1, 1 - h>>63}]; ok {
			pair = [2]string{other, w}
		}
		seen[key{h & 1, h >> 63}] = w
	}
	v := f.NewEncoder().Transform(pair[0] + " " + pair[1])
	if len(v.Ind) != 0 {
		t.Errorf("%q and %q collide with opposite signs but leave %v %v", pair[0], pair[1], v.Ind, v.Val)
	}
	v = f.NewEncoder().Transform(pair[0] + " " + pair[1] + " " + pair[1])
	if len(v.Ind) != 1 || math.Abs(float64(v.Val[0])) != 1 {
		t.Errorf("one word left over: got %v %v", v.Ind, v.Val)
	}
}

func TestFitVocabulary(t *testing.T) {
	docs := []Doc{
		{Label: "a", Text: "the cat sat on the mat"},
		{Label: "b", Text: "The dog sat"},
		{Label: "a", Text: "a cat, a dog; the end"},
	}
	c := &Corpus{Docs: docs}
	tests := []struct {
		cfg  Config
		want []string
	}{
		{Config{Vocabulary: true}, []string{"a", "cat", "dog", "end", "mat", "on", "sat", "the"}},
		{Config{Vocabulary: true, MinDF: 2}, []string{"cat", "dog", "sat", "the"}},
		{Config{Vocabulary: true, MinDF: 3}, []string{"the"}},
		{Config{Vocabulary: true, MinDF: 4}, []string{}},
		// By count: the 4, a 2, cat 2, dog 2, sat 2; ties alphabetical.
		{Config{Vocabulary: true, MaxFeatures: 3}, []string{"a", "cat", "the"}},
		{Config{Vocabulary: true, NGrams: 2, MinDF: 2}, []string{"cat", "dog", "sat", "the"}},
		{Config{Vocabulary: true, NGrams: 2, MaxFeatures: 6}, []string{"a", "a cat", "cat", "dog", "sat", "the"}},
	}
	for _, tc := range tests {
		f, err := Fit(c, tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.Vocabulary(); !slices.Equal(got, tc.want) || f.Dim() != len(tc.want) {
			t.Errorf("%+v: vocabulary %q (dim %d), want %q", tc.cfg, got, f.Dim(), tc.want)
		}
	}
	// Document frequencies and unseen terms.
	f, err := Fit(c, Config{Vocabulary: true, IDF: true, NoNormalize: true})
	if err != nil {
		t.Fatal(err)
	}
	wantDF := map[string]int32{"a": 1, "cat": 2, "dog": 2, "end": 1, "mat": 1, "on": 1, "sat": 2, "the": 3}
	for i, term := range f.Vocabulary() {
		if f.df.at(int32(i)) != wantDF[term] {
			t.Errorf("df(%q) = %d, want %d", term, f.df.at(int32(i)), wantDF[term])
		}
	}
	v := f.NewEncoder().Transform("THE unicorn the")
	const nDocs, df = 4.0, 4.0 // "the" is in every document
	theIDF := float32(math.Log(nDocs/df) + 1)
	if !slices.Equal(v.Ind, []int32{7}) || v.Val[0] != 2*theIDF {
		t.Errorf("Transform: %v %v, want [7] [%v]", v.Ind, v.Val, 2*theIDF)
	}
	if f.Vocabulary() == nil || (&Featurizer{}).Vocabulary() != nil {
		t.Error("Vocabulary: want a slice with a vocabulary, nil without")
	}
}

func TestFitVocabularyMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	// Several chunks, so that several workers count and their counts are
	// merged, with terms each worker sees alone.
	c := testCorpus(r, 1500)
	for i := range c.Docs {
		c.Docs[i].Text = strings.Repeat(c.Docs[i].Text+" ", 1+i%20) + fmt.Sprintf(" u%d u%d", i/10, i%7)
	}
	if n := len(chunkDocs(c.Docs)); n < 3 {
		t.Fatalf("only %d chunks", n)
	}
	for _, cfg := range []Config{
		{Vocabulary: true, NGrams: 2, MinDF: 2, Workers: 3},
		{Vocabulary: true, NGrams: 3, MaxFeatures: 50, Workers: 1},
		{Vocabulary: true, NGrams: 1, Workers: 4},
	} {
		f, err := Fit(c, cfg)
		if err != nil {
			t.Fatal(err)
		}
		df, cf := map[string]int{}, map[string]int{}
		for _, d := range c.Docs {
			_, terms := refTerms(d.Text, cfg.NGrams)
			seen := map[string]bool{}
			for _, term := range terms {
				cf[term]++
				if !seen[term] {
					seen[term] = true
					df[term]++
				}
			}
		}
		var want []string
		for term, n := range df {
			if n >= max(cfg.MinDF, 1) {
				want = append(want, term)
			}
		}
		if cfg.MaxFeatures > 0 {
			slices.SortFunc(want, func(a, b string) int {
				return cmp.Or(cmp.Compare(cf[b], cf[a]), strings.Compare(a, b))
			})
			want = want[:min(len(want), cfg.MaxFeatures)]
		}
		slices.Sort(want)
		if got := f.Vocabulary(); !slices.Equal(got, want) {
			t.Errorf("%+v: vocabulary of %d terms, want %d", cfg, len(got), len(want))
		}
	}
}

func TestHashedDF(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	c := testCorpus(r, 300)
	for _, workers := range []int{1, 2, 5} {
		f, err := Fit(c, Config{Bits: 5, NGrams: 2, IDF: true, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		want := make([]int32, f.Dim())
		for _, d := range c.Docs {
			for j := range refCounts(f, d.Text) {
				want[j]++
			}
		}
		if !slices.Equal(f.dfs(), want) {
			t.Errorf("workers %d: df %v, want %v", workers, f.dfs(), want)
		}
	}
}

func TestLabels(t *testing.T) {
	tests := []struct {
		name    string
		labels  []string
		numeric bool
		names   []string
		values  map[string]float64
	}{
		{"binary names", []string{"pos", "neg", "pos"}, false, []string{"neg", "pos"}, map[string]float64{"neg": -1, "pos": 1}},
		{"spam", []string{"spam", "ham"}, false, []string{"ham", "spam"}, map[string]float64{"ham": -1, "spam": 1}},
		{"multiclass", []string{"sci.space", "alt.atheism", "comp.graphics", "alt.atheism"}, false,
			[]string{"alt.atheism", "comp.graphics", "sci.space"}, map[string]float64{"alt.atheism": 0, "comp.graphics": 1, "sci.space": 2}},
		{"one name", []string{"only"}, false, []string{"only"}, map[string]float64{"only": 0}},
		{"numbers", []string{"1", "-1", "1"}, true, []string{"-1", "1"}, map[string]float64{"1": 1, "-1": -1, "7": 7}},
		// Labels are strings: numbers written two ways are two labels.
		{"one number written three ways", []string{"1", "-1", "+1", "1.0"}, false, []string{"+1", "-1", "1", "1.0"},
			map[string]float64{"+1": 0, "-1": 1, "1": 2, "1.0": 3}},
		{"leading zero", []string{"1", "01"}, false, []string{"01", "1"}, map[string]float64{"01": -1, "1": 1}},
		{"one float64, three integers", []string{"9007199254740992", "9007199254740993", "9007199254740995"}, false,
			[]string{"9007199254740992", "9007199254740993", "9007199254740995"},
			map[string]float64{"9007199254740992": 0, "9007199254740993": 1, "9007199254740995": 2}},
		{"minus zero", []string{"0", "-0"}, false, []string{"-0", "0"}, map[string]float64{"-0": -1, "0": 1}},
		{"multiclass numbers", []string{"3", "10", "2"}, true, []string{"2", "3", "10"}, map[string]float64{"3": 3, "10": 10, "2": 2, "2.5": 2.5}},
		{"numbers and a name", []string{"1", "2", "x"}, false, []string{"1", "2", "x"}, map[string]float64{"1": 0, "2": 1, "x": 2}},
		{"NaN is a name", []string{"1", "NaN"}, false, []string{"1", "NaN"}, map[string]float64{"1": -1, "NaN": 1}},
		{"Inf is a name", []string{"inf", "0"}, false, []string{"0", "inf"}, map[string]float64{"0": -1, "inf": 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &Corpus{}
			for _, l := range tc.labels {
				c.Docs = append(c.Docs, Doc{Label: l, Text: "t"})
			}
			f, err := Fit(c, Config{})
			if err != nil {
				t.Fatal(err)
			}
			if f.labels.numeric != tc.numeric || !slices.Equal(f.Labels(), tc.names) {
				t.Errorf("numeric %v, names %q; want %v, %q", f.labels.numeric, f.Labels(), tc.numeric, tc.names)
			}
			for name, want := range tc.values {
				got, err := f.Label(name)
				if err != nil || got != want {
					t.Errorf("Label(%q) = %v, %v; want %v", name, got, err, want)
				}
				if !tc.numeric && f.Name(want) != name {
					t.Errorf("Name(%v) = %q, want %q", want, f.Name(want), name)
				}
			}
			if _, err := f.Label(""); !errors.Is(err, ErrLabel) {
				t.Errorf("Label(\"\"): %v, want ErrLabel", err)
			}
			if _, err := f.Label("never-seen"); !errors.Is(err, ErrLabel) {
				t.Errorf("Label(never-seen): %v, want ErrLabel", err)
			}
		})
	}
	f, _ := Fit(&Corpus{Docs: []Doc{{Label: "2", Text: ""}, {Label: "1e+21", Text: ""}}}, Config{})
	if !f.labels.numeric || f.Name(1e21) != "1e+21" || f.Name(0.5) != "0.5" {
		t.Errorf("numeric Name: %v %q %q", f.labels.numeric, f.Name(1e21), f.Name(0.5))
	}
	// A number written otherwise than the training labels is no label of
	// theirs, and the error says how it would be written.
	if _, err := f.Label("2.0"); !errors.Is(err, ErrLabel) || !strings.Contains(err.Error(), `"2.0"`) {
		t.Errorf("Label(2.0) with numeric labels: %v, want ErrLabel naming it", err)
	}
	f, _ = Fit(&Corpus{Docs: []Doc{{Label: "a", Text: ""}, {Label: "b", Text: ""}}}, Config{})
	if f.Name(3) != "3" {
		t.Errorf("Name of an unknown class = %q, want \"3\"", f.Name(3))
	}
}

func TestVectorize(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	// Enough text for several chunks.
	c := testCorpus(r, 1500)
	for i := range c.Docs {
		c.Docs[i].Text = strings.Repeat(c.Docs[i].Text+" ", 1+i%20)
	}
	if n := len(chunkDocs(c.Docs)); n < 3 {
		t.Fatalf("only %d chunks", n)
	}
	for _, cfg := range []Config{{}, {NGrams: 2, Bits: 12, TF: Log, IDF: true}, {Vocabulary: true, NGrams: 2, IDF: true}} {
		t.Run(fmt.Sprintf("ngrams=%d/bits=%d/vocabulary=%v", cfg.NGrams, cfg.Bits, cfg.Vocabulary), func(t *testing.T) {
			var first *sparse.Dataset
			for _, workers := range []int{1, 2, 3, 8} {
				cfg.Workers = workers
				f, err := Fit(c, cfg)
				if err != nil {
					t.Fatal(err)
				}
				d, err := f.Vectorize(c)
				if err != nil {
					t.Fatal(err)
				}
				if err := d.Validate(); err != nil {
					t.Fatal(err)
				}
				if d.X.Rows != len(c.Docs) || d.X.Cols != f.Dim() || d.QID != nil {
					t.Fatalf("shape %d×%d, want %d×%d", d.X.Rows, d.X.Cols, len(c.Docs), f.Dim())
				}
				if first == nil {
					first = d
					e := f.NewEncoder()
					for i, doc := range c.Docs {
						v := e.Transform(doc.Text)
						row := d.X.Row(i)
						if !slices.Equal(v.Ind, row.Ind) || !slices.Equal(v.Val, row.Val) {
							t.Fatalf("row %d differs from Transform", i)
						}
						if y, _ := f.Label(doc.Label); d.Y[i] != y {
							t.Fatalf("Y[%d] = %v, want %v", i, d.Y[i], y)
						}
					}
					continue
				}
				if !slices.Equal(d.X.Indptr, first.X.Indptr) || !slices.Equal(d.X.Ind, first.X.Ind) ||
					!slices.Equal(d.X.Val, first.X.Val) || !slices.Equal(d.Y, first.Y) {
					t.Errorf("%+v: result with %d workers differs from 1 worker", cfg, workers)
				}
			}
		})
	}
}

func TestVectorizeEmpty(t *testing.T) {
	f, err := Fit(&Corpus{Docs: []Doc{{Label: "a", Text: "x"}}}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []*Corpus{nil, {}, {Docs: []Doc{{Label: "a"}, {Label: "a", Text: "..."}}}} {
		d, err := f.Vectorize(c)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Validate(); err != nil || d.X.NNZ() != 0 || d.X.Cols != 1<<20 {
			t.Errorf("%v: %v, nnz %d, cols %d", c, err, d.X.NNZ(), d.X.Cols)
		}
	}
}

func TestVectorizeUnknownLabel(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	train := testCorpus(r, 100)
	f, err := Fit(train, Config{Workers: 4})
	if err != nil {
		t.Fatal(err)
	}
	test := testCorpus(r, 5000)
	test.Name = "test.jsonl"
	test.Docs[4000].Label = "mystery"
	test.Docs[2500].Label = "unknown"
	_, err = f.Vectorize(test)
	var pe *sparse.ParseError
	if !errors.As(err, &pe) || !errors.Is(err, ErrLabel) || pe.File != "test.jsonl" || pe.Line != 2501 || pe.Col != 1 {
		t.Fatalf("error %v, want ErrLabel at test.jsonl:2501", err)
	}
	if !strings.Contains(err.Error(), `unknown label "unknown"`) {
		t.Errorf("message %q", err)
	}
	// Documents not read from a file are named by index.
	test.Docs[2500].Line = 0
	_, err = f.Vectorize(test)
	if !errors.Is(err, ErrLabel) || errors.As(err, &pe) || !strings.Contains(err.Error(), "test.jsonl: document 2500") {
		t.Errorf("error %v, want ErrLabel naming document 2500", err)
	}
	// Numeric labels accept any number, but no name.
	fn, _ := Fit(&Corpus{Docs: []Doc{{Label: "1", Text: "a"}, {Label: "-1", Text: "b"}}}, Config{})
	d, err := fn.Vectorize(&Corpus{Docs: []Doc{{Label: "3", Text: "a"}}})
	if err != nil || d.Y[0] != 3 {
		t.Errorf("numeric label 3: %v", err)
	}
	if _, err := fn.Vectorize(&Corpus{Docs: []Doc{{Label: "pos", Text: "a", Line: 9}}}); !errors.Is(err, ErrLabel) {
		t.Errorf("name where numbers were trained: %v", err)
	}
}

func TestFitErrors(t *testing.T) {
	c := &Corpus{Docs: []Doc{{Label: "a", Text: "x"}}}
	for _, cfg := range []Config{
		{NGrams: -1}, {NGrams: 9}, {Bits: -1}, {Bits: 31}, {Bits: 32},
		{Vocabulary: true, Bits: 20}, {MinDF: 2}, {MaxFeatures: 5},
		{Vocabulary: true, MinDF: -1}, {Vocabulary: true, MaxFeatures: -1},
		{TF: 3}, {Workers: -1},
	} {
		if _, err := Fit(c, cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: %v, want ErrConfig", cfg, err)
		}
	}
	if _, err := Fit(&Corpus{}, Config{}); !errors.Is(err, ErrEmpty) {
		t.Errorf("empty corpus: %v", err)
	}
	if _, err := Fit(nil, Config{}); !errors.Is(err, ErrEmpty) {
		t.Errorf("nil corpus: %v", err)
	}
	_, err := Fit(&Corpus{Name: "f", Docs: []Doc{{Label: "a"}, {Label: "", Line: 3}}}, Config{})
	var pe *sparse.ParseError
	if !errors.Is(err, ErrLabel) || !errors.As(err, &pe) || pe.Line != 3 {
		t.Errorf("empty label: %v", err)
	}
}

func TestConfigDefaults(t *testing.T) {
	f, err := Fit(&Corpus{Docs: []Doc{{Label: "a", Text: "x"}}}, Config{Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	want := Config{NGrams: 1, Bits: DefaultBits, Workers: 3}
	if f.Config() != want || f.Dim() != 1<<20 {
		t.Errorf("Config() = %+v, Dim %d; want %+v, 2^20", f.Config(), f.Dim(), want)
	}
	f, _ = Fit(&Corpus{Docs: []Doc{{Label: "a", Text: "x"}}}, Config{Vocabulary: true})
	if want := (Config{NGrams: 1, Vocabulary: true, MinDF: 1}); f.Config() != want {
		t.Errorf("Config() = %+v, want %+v", f.Config(), want)
	}
}

func TestTF(t *testing.T) {
	for _, tf := range []TF{Count, Binary, Log} {
		got, err := ParseTF(strings.ToUpper(tf.String()))
		if err != nil || got != tf {
			t.Errorf("ParseTF(%q) = %v, %v", tf.String(), got, err)
		}
	}
	if _, err := ParseTF("tfidf"); !errors.Is(err, ErrConfig) {
		t.Errorf("ParseTF(tfidf): %v", err)
	}
	if s := TF(9).String(); s != "TF(9)" {
		t.Errorf("TF(9).String() = %q", s)
	}
}

func TestTransformNoAlloc(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	c := testCorpus(r, 50)
	for _, cfg := range []Config{{}, {NGrams: 2, IDF: true}, {NGrams: 3, TF: Log, IDF: true}, {Vocabulary: true, NGrams: 2}} {
		f, err := Fit(c, cfg)
		if err != nil {
			t.Fatal(err)
		}
		e := f.NewEncoder()
		for _, d := range c.Docs {
			e.Transform(d.Text)
		}
		i := 0
		allocs := testing.AllocsPerRun(200, func() {
			e.Transform(c.Docs[i%len(c.Docs)].Text)
			i++
		})
		if allocs != 0 {
			t.Errorf("%+v: %v allocations per Transform", cfg, allocs)
		}
	}
}

func TestConcurrentTransform(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	c := testCorpus(r, 200)
	f, err := Fit(c, Config{NGrams: 2, IDF: true})
	if err != nil {
		t.Fatal(err)
	}
	want := make([]sparse.Vector, len(c.Docs))
	for i, d := range c.Docs {
		want[i] = f.Transform(d.Text)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e := f.NewEncoder()
			for i, d := range c.Docs {
				var v sparse.Vector
				if (i+g)%2 == 0 {
					v = e.Transform(d.Text)
				} else {
					v = f.Transform(d.Text)
				}
				if !slices.Equal(v.Ind, want[i].Ind) || !slices.Equal(v.Val, want[i].Val) {
					t.Errorf("goroutine %d doc %d differs", g, i)
					return
				}
			}
		}()
	}
	wg.Wait()
}
