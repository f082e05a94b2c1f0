package text

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
	"github.com/hyperplane-ml/hyperplane/sparse/budget/budgettest"
)

// The binary form reads back to a featurizer equal to the one saved, for
// every kind of featurizer: vocabulary or hashing, dense or sparse
// document frequencies, numeric labels.
func TestMarshalBinary(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	train := testCorpus(r, 300)
	test := testCorpus(r, 50)
	configs := append(testConfigs(), Config{Vocabulary: true, MinDF: 1000}, Config{Bits: 20, IDF: true})
	for k, cfg := range configs {
		t.Run(fmt.Sprintf("%+v", cfg), func(t *testing.T) {
			c := train
			if k%3 == 1 {
				c = &Corpus{Docs: slices.Clone(train.Docs)}
				for i := range c.Docs {
					c.Docs[i].Label = map[string]string{"neg": "-1", "pos": "2.5"}[c.Docs[i].Label]
				}
			}
			f, err := Fit(c, cfg)
			if err != nil {
				t.Fatal(err)
			}
			data, err := f.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if !isBinary(data) {
				t.Fatal("isBinary is false for MarshalBinary's output")
			}
			var g Featurizer
			if err := g.UnmarshalBinary(data); err != nil {
				t.Fatal(err)
			}
			want := f.Config()
			want.Workers = 0
			if g.Config() != want || g.Dim() != f.Dim() || !slices.Equal(g.Labels(), f.Labels()) ||
				!slices.Equal(g.Vocabulary(), f.Vocabulary()) || !slices.Equal(g.idfs(), f.idfs()) {
				t.Fatalf("read back differs: %+v vs %+v", g.Config(), want)
			}
			for _, d := range test.Docs {
				checkVector(t, f, d.Text, g.Transform(d.Text))
			}
			// Truncations and flipped bits all through the data
			// (every byte of a small one) are an error wrapping ErrFormat, or a featurizer
			// (a flipped df or term byte may still be valid), never a
			// panic.
			step := max(1, len(data)/3000)
			forDocs := []string{test.Docs[0].Text, test.Docs[1].Text}
			for n := 0; n < len(data); n += 1 + r.IntN(step) {
				var h Featurizer
				if err := h.UnmarshalBinary(data[:n]); !errors.Is(err, ErrFormat) {
					t.Fatalf("cut at %d of %d bytes: %v", n, len(data), err)
				}
				if _, err := h.UnmarshalBinaryFor(data[:n], forDocs); !errors.Is(err, ErrFormat) {
					t.Fatalf("read for documents, cut at %d of %d bytes: %v", n, len(data), err)
				}
			}
			for i := 0; i < len(data); i += 1 + r.IntN(step) {
				bad := slices.Clone(data)
				bad[i] ^= 1 << (i % 8)
				var h Featurizer
				if err := h.UnmarshalBinary(bad); err != nil && !errors.Is(err, ErrFormat) && !errors.Is(err, budget.ErrExceeded) {
					t.Fatalf("bit flipped in byte %d: %v", i, err)
				}
				if _, err := h.UnmarshalBinaryFor(bad, forDocs); err != nil && !errors.Is(err, ErrFormat) && !errors.Is(err, budget.ErrExceeded) {
					t.Fatalf("read for documents, bit flipped in byte %d: %v", i, err)
				}
			}
		})
	}
}

// buildVocabIndex maps every key to its feature, at sizes below and above
// the one where it groups the keys first, with and without tags in the
// slots, finds no absent key, and finds a duplicate.
func TestBuildVocabIndex(t *testing.T) {
	defer func(v int) { vocabTagged = v }(vocabTagged)
	for _, tagged := range []int{vocabTagged, 0} {
		vocabTagged = tagged
		for _, n := range []int{0, 1, 5, 4095, 4096, 100_000} {
			hs := make([]uint64, n)
			for i := range hs {
				hs[i] = xxhash.Sum64String(fmt.Sprint(i))
				if i%3 == 1 {
					// A key of the same slot and tag as the one
					// before, but another hash.
					hs[i] = hs[i-1] ^ 1<<20
				}
			}
			idx, dup := buildVocabIndex(hs)
			if dup != -1 || idx.len() != n || (idx.id == 1<<32-1) == (n <= tagged) {
				t.Fatalf("n = %d: dup %d, len %d, id bits %#x", n, dup, idx.len(), idx.id)
			}
			for i, h := range hs {
				if v, ok := idx.get(h); !ok || v != int32(i) {
					t.Fatalf("n = %d: key %d gives %d, %v", n, i, v, ok)
				}
			}
			for i := range min(n, 1000) {
				// Absent keys, of the same slot and tag as one
				// present.
				if v, ok := idx.get(hs[i] ^ 1<<30); ok {
					t.Fatalf("n = %d: an absent key found (%d)", n, v)
				}
			}
			if _, ok := idx.get(xxhash.Sum64String("absent")); ok {
				t.Fatalf("n = %d: an absent key found", n)
			}
			if n > 2 {
				hs[n-1] = hs[n/2]
				if _, dup := buildVocabIndex(hs); dup != n-1 {
					t.Errorf("n = %d: duplicate reported at %d, want %d", n, dup, n-1)
				}
			}
		}
	}
}

// Term gives vocabulary terms by feature, nothing with hashing or out of
// range.
func TestTerm(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	c := testCorpus(r, 50)
	f, err := Fit(c, Config{Vocabulary: true})
	if err != nil {
		t.Fatal(err)
	}
	v := f.Vocabulary()
	for j, want := range v {
		if got, ok := f.Term(j); !ok || got != want {
			t.Fatalf("Term(%d) = %q, %v; want %q", j, got, ok, want)
		}
	}
	if _, ok := f.Term(len(v)); ok {
		t.Error("Term past the vocabulary")
	}
	if _, ok := f.Term(-1); ok {
		t.Error("Term(-1)")
	}
	h, _ := Fit(c, Config{Bits: 8})
	if _, ok := h.Term(0); ok {
		t.Error("Term with hashing")
	}
}

// FuzzUnmarshalBinary: any input to Featurizer.UnmarshalBinary is a
// featurizer that makes valid rows, or an error wrapping ErrFormat or
// budget.ErrExceeded, never a panic; the seeds are every kind of
// featurizer in the binary form.
//
//	go test -run '^$' -fuzz '^FuzzUnmarshalBinary$' -fuzztime 60s ./sparse/text/
func FuzzUnmarshalBinary(f *testing.F) {
	c := &Corpus{Docs: []Doc{{Label: "a", Text: "red apple pie"}, {Label: "b", Text: "blue sky pie"}, {Label: "-1.5", Text: "red sky"}}}
	for _, cfg := range []Config{{}, {NGrams: 2, Bits: 8, TF: Log, IDF: true}, {Vocabulary: true, MinDF: 1},
		{NGrams: 3, Vocabulary: true, IDF: true}, {NGrams: 2, Bits: 24, IDF: true}, {Vocabulary: true, IDF: true, MaxFeatures: 3}} {
		ft, err := Fit(c, cfg)
		if err != nil {
			f.Fatal(err)
		}
		for v := uint16(1); v <= binVersion; v++ {
			b, err := ft.marshalBinary(v)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Add([]byte(binMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Under a small budget, within twice it (see budgettest.Within).
		defer budgettest.Within(t, 64<<20)()
		// Read for a document, in part or from the bytes: errors of the
		// format or the budget only, and a form that reads from the
		// bytes reads in part to the same featurizer, for the part
		// reader checks no more.
		docs := []string{"Red apple, blue SKY pie! ünï 42"}
		var g0 Featurizer
		kept, errFor := g0.UnmarshalBinaryFor(data, docs)
		h, kept2, err := ReadFeaturizerFor(bytes.NewReader(data), int64(len(data)), docs)
		for _, err := range []error{errFor, err} {
			if err != nil && !errors.Is(err, ErrFormat) && !errors.Is(err, budget.ErrExceeded) {
				t.Fatalf("error %v is neither ErrFormat nor budget.ErrExceeded", err)
			}
		}
		if errFor == nil {
			if err != nil {
				t.Fatalf("reads from the bytes, but not in part: %v", err)
			}
			if !slices.Equal(kept, kept2) || h.Dim() != g0.Dim() || !slices.Equal(h.Transform(docs[0]).Val, g0.Transform(docs[0]).Val) {
				t.Fatalf("read in part: %d features kept, dim %d; from the bytes %d, dim %d", len(kept2), h.Dim(), len(kept), g0.Dim())
			}
		}
		var ft Featurizer
		if err := ft.UnmarshalBinary(data); err != nil {
			if !errors.Is(err, ErrFormat) && !errors.Is(err, budget.ErrExceeded) {
				t.Fatalf("error %v is neither ErrFormat nor budget.ErrExceeded", err)
			}
			return
		}
		v := ft.Transform("Red apple, blue SKY pie! ünï 42")
		if err := v.Validate(); err != nil || v.Dim != ft.Dim() {
			t.Fatalf("read featurizer makes an invalid row %+v (dim %d): %v", v, ft.Dim(), err)
		}
		// What reads back writes the same bytes, up to the JSON header's
		// spelling, and reads back again.
		b, err := ft.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var g Featurizer
		if err := g.UnmarshalBinary(b); err != nil {
			t.Fatalf("a featurizer read back does not read again: %v", err)
		}
	})
}

// Every version of the binary form reads back to the same featurizer:
// version 1, whose vocabulary is hashed again as it is read, version 2,
// compressed, and version 3 in blocks, here of a few terms each.
func TestUnmarshalBinaryVersions(t *testing.T) {
	defer func(b int) { vocabBlock = b }(vocabBlock)
	vocabBlock = 4
	r := rand.New(rand.NewPCG(41, 42))
	train := testCorpus(r, 200)
	for _, cfg := range []Config{{NGrams: 2, Vocabulary: true, IDF: true}, {Vocabulary: true}, {Bits: 12, IDF: true}} {
		f, err := Fit(train, cfg)
		if err != nil {
			t.Fatal(err)
		}
		var got [binVersion + 1]Featurizer
		for v := uint16(1); v <= binVersion; v++ {
			data, err := f.marshalBinary(v)
			if err != nil {
				t.Fatal(err)
			}
			if err := got[v].UnmarshalBinary(data); err != nil {
				t.Fatalf("version %d: %v", v, err)
			}
		}
		for v := 1; v <= binVersion; v++ {
			g := &got[v]
			if g.Dim() != f.Dim() || !slices.Equal(g.Vocabulary(), f.Vocabulary()) || !slices.Equal(g.idfs(), f.idfs()) {
				t.Fatalf("%+v version %d reads back different", cfg, v)
			}
			for j := range f.Dim() {
				a, _ := f.Term(j)
				if b, _ := g.Term(j); a != b {
					t.Fatalf("version %d: term %d %q, want %q", v, j, b, a)
				}
			}
			for _, d := range train.Docs[:20] {
				checkVector(t, f, d.Text, g.Transform(d.Text))
			}
		}
	}
}

// indexFromOrder finds every key where put would, also keys that run
// past the end of the table and wrap to its start, and no other key.
func TestIndexFromOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 3, 4, 100, 5000} {
		for _, crowded := range []bool{false, true} {
			hs := make([]uint64, n)
			for i := range hs {
				hs[i] = r.Uint64()
				if crowded { // all in the table's last slots: they wrap
					hs[i] |= 0xfff << 52
				}
			}
			slices.Sort(hs)
			hs = slices.Compact(hs)
			feat := r.Perm(len(hs))
			// hs sorted; feature feat[i] has hash hs[i].
			byFeature := make([]uint64, len(hs))
			var part []byte
			for i, h := range hs {
				byFeature[feat[i]] = h
				part = binary.AppendUvarint(part, uint64(feat[i]))
			}
			ix, err := indexFromOrder(part, byFeature)
			if err != nil {
				t.Fatal(err)
			}
			if ix.len() != len(hs) {
				t.Fatalf("n %d: %d keys", len(hs), ix.len())
			}
			for i, h := range hs {
				if v, ok := ix.get(h); !ok || int(v) != feat[i] {
					t.Fatalf("n %d crowded %v: key %d gives %d %v, want %d", len(hs), crowded, i, v, ok, feat[i])
				}
				if _, ok := ix.get(h ^ 1); ok && !slices.Contains(hs, h^1) {
					t.Fatalf("an absent key is found")
				}
			}
		}
	}
	// Hashes not increasing, a repeated or too large feature, and bytes
	// left over are format errors.
	enc := func(v ...uint64) []byte {
		var b []byte
		for _, x := range v {
			b = binary.AppendUvarint(b, x)
		}
		return b
	}
	hs := []uint64{10, 20, 20}
	// Features 0 to 2047 in order, with the hashes of features 1023 and
	// 1024, the last of one block and the first of the next, swapped.
	var blockEdge []byte
	blockHashes := make([]uint64, 2048)
	for i := range blockHashes {
		blockEdge = binary.AppendUvarint(blockEdge, uint64(i))
		blockHashes[i] = uint64(i+1) << 40
	}
	blockHashes[1023], blockHashes[1024] = blockHashes[1024], blockHashes[1023]
	for name, c := range map[string]struct {
		p  []byte
		hs []uint64
	}{
		"decreasing":      {enc(1, 0), hs[:2]},
		"equal hashes":    {enc(0, 1, 2), hs},
		"repeated":        {enc(0, 0), hs[:2]},
		"feature too big": {enc(0, 2), hs[:2]},
		"left over":       {enc(0, 1, 7), hs[:2]},
		"truncated":       {enc(0), hs[:2]},
		// Out of order where a block of entries ends.
		"between blocks": {blockEdge, blockHashes},
	} {
		if _, err := indexFromOrder(c.p, c.hs); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v, want ErrFormat", name, err)
		}
	}
}

// A zero vocabIndex finds nothing.
func TestVocabIndexZero(t *testing.T) {
	var idx vocabIndex
	for _, h := range []uint64{0, 1, 1 << 63, 1<<64 - 1} {
		if v, ok := idx.get(h); ok {
			t.Fatalf("key %#x found (%d) in an empty index", h, v)
		}
	}
}

// frontCode front-codes terms as the binary form writes them.
func frontCode(terms []string) (fc []byte, total uint64) {
	for _, t := range terms {
		total += uint64(len(t))
	}
	return appendFrontCoded(nil, terms), total
}

// hashTerms gives every term the hash of its words that the encoder
// gives it, where a term keeps words of the one before (and where a
// word only begins like one of them), with empty words between spaces
// too; it refuses terms out of order, repeated, or of too many words.
func TestHashTerms(t *testing.T) {
	want := func(term string) uint64 {
		var parts []uint64
		for _, w := range strings.Split(term, " ") {
			parts = append(parts, xxhash.Sum64String(w))
		}
		if len(parts) == 1 {
			return parts[0]
		}
		return gramHash(parts)
	}
	terms := []string{
		" a", "a", "a  b", "a b", "a b c", "a b cd", "a bc", "a bc d", "ab", "ab cd", "ab cd e", "abc",
		"abc d", "abc de", "abc de f", "abd", "b", "b a", "b a ", "ba", "ba b", "c", "c c c",
	}
	fc, total := frontCode(terms)
	hs := make([]uint64, len(terms))
	if err := hashTerms(fc, hs, total, 3, nil); err != nil {
		t.Fatal(err)
	}
	for i, term := range terms {
		if hs[i] != want(term) {
			t.Errorf("term %d %q: hash %#x, want %#x", i, term, hs[i], want(term))
		}
	}
	for name, c := range map[string]struct {
		terms  []string
		ngrams int
	}{
		"repeated":         {[]string{"a b", "a b"}, 3},
		"out of order":     {[]string{"a c", "a b"}, 3},
		"prefix after":     {[]string{"ab", "a"}, 3},
		"too many words":   {[]string{"a", "a b c d"}, 3},
		"kept words count": {[]string{"a b c", "a b c d"}, 3},
		"ngrams 0":         {[]string{"a"}, 0},
		"ngrams past max":  {[]string{strings.Repeat("a ", maxNGrams) + "a"}, maxNGrams + 5},
	} {
		fc, total := frontCode(c.terms)
		if err := hashTerms(fc, make([]uint64, len(c.terms)), total, c.ngrams, nil); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v, want ErrFormat", name, err)
		}
	}
}
