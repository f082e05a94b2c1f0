package text

import (
	"bytes"
	"encoding/binary"
	"errors"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
)

// countingReaderAt is a ReaderAt of data that counts the bytes read.
type countingReaderAt struct {
	data []byte
	mu   sync.Mutex
	read int
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.read += len(p)
	return bytes.NewReader(c.data).ReadAt(p, off)
}

// A large vocabulary read for one short document is read in small part:
// its header, its directory and a few blocks.
func TestReadFeaturizerForReadsPart(t *testing.T) {
	r := rand.New(rand.NewPCG(45, 46))
	c0 := manyWordsCorpus(r, 2000, 3000)
	f, err := Fit(c0, Config{Vocabulary: true, NGrams: 2, IDF: true, MinDF: 1})
	if err != nil {
		t.Fatal(err)
	}
	data, err := f.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	docs := []string{c0.Docs[0].Text}
	c := &countingReaderAt{data: data}
	g, kept, err := ReadFeaturizerFor(c, int64(len(data)), docs)
	if err != nil {
		t.Fatal(err)
	}
	if len(kept) == 0 {
		t.Fatal("the document has no term of the vocabulary: the test checks nothing")
	}
	checkSubset(t, f, g, kept, docs, true)
	if c.read > len(data)/4 {
		t.Fatalf("read %d bytes of %d (vocabulary of %d terms, %d kept)", c.read, len(data), f.Dim(), len(kept))
	}
	t.Logf("read %d bytes of %d (vocabulary of %d terms, %d kept)", c.read, len(data), f.Dim(), len(kept))
}

// manyWordsCorpus returns n documents of up to 30 words drawn from a
// vocabulary of that many made-up words.
func manyWordsCorpus(r *rand.Rand, n, words int) *Corpus {
	vocab := make([]string, words)
	for i := range vocab {
		b := make([]byte, 3+r.IntN(6))
		for k := range b {
			b[k] = byte('a' + r.IntN(26))
		}
		vocab[i] = string(b)
	}
	c := &Corpus{Name: "words"}
	for i := range n {
		doc := make([]string, 1+r.IntN(30))
		for k := range doc {
			doc[k] = vocab[r.IntN(words)]
		}
		c.Docs = append(c.Docs, Doc{Label: []string{"neg", "pos"}[r.IntN(2)], Text: strings.Join(doc, " "), Line: i + 1})
	}
	return c
}

// dirAt returns where the directory of the version 3 form data begins and
// ends, and the directory.
func dirAt(t *testing.T, data []byte) (int, int, *termDir) {
	t.Helper()
	le := binary.LittleEndian
	off := 12 + int(le.Uint32(data[8:]))
	n, block, dl := le.Uint64(data[off:]), le.Uint64(data[off+16:]), int(le.Uint64(data[off+24:]))
	d, err := parseDirectory(data[off+32:off+32+dl], n, block, true, budget.NewMeter(0))
	if err != nil {
		t.Fatal(err)
	}
	return off + 32, off + 32 + dl, d
}

// withDir returns data with the directory d in place of its own.
func withDir(data []byte, start, end int, d *termDir) []byte {
	nd := d.appendTo(nil)
	out := slices.Concat(data[:start], nd, data[end:])
	binary.LittleEndian.PutUint64(out[start-8:], uint64(len(nd)))
	return out
}

// A directory that does not match its terms or document frequencies is
// refused by every reader, and a form cut short is an error, never a
// panic.
func TestReadFeaturizerForRefuses(t *testing.T) {
	defer func(b int) { vocabBlock = b }(vocabBlock)
	vocabBlock = 4
	r := rand.New(rand.NewPCG(47, 48))
	f, err := Fit(testCorpus(r, 60), Config{Vocabulary: true, NGrams: 2, IDF: true})
	if err != nil {
		t.Fatal(err)
	}
	data, err := f.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	start, end, _ := dirAt(t, data)
	vocab := f.Vocabulary()
	b := len(vocab) / 8 // a block in the middle
	// The part reader reads only the blocks of the documents' terms: here
	// those of blocks b − 1 to b + 1, and the last.
	docs := slices.Clone(vocab[(b-1)*vocabBlock : (b+2)*vocabBlock])
	docs = append(docs, vocab[len(vocab)-1])
	for _, c := range []struct {
		name string
		edit func(d *termDir)
	}{
		{"first term, shorter", func(d *termDir) { d.first[b] = d.first[b][:len(d.first[b])-1] }},
		{"first term, the block's second", func(d *termDir) { d.first[b] = vocab[b*vocabBlock+1] }},
		{"block start", func(d *termDir) { d.starts[b]++ }},
		{"document frequencies' start", func(d *termDir) { d.dfStarts[b]++ }},
	} {
		_, _, d := dirAt(t, data)
		c.edit(d)
		bad := withDir(data, start, end, d)
		var g Featurizer
		if err := g.UnmarshalBinary(bad); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: UnmarshalBinary: %v, want ErrFormat", c.name, err)
		}
		if _, err := g.UnmarshalBinaryFor(bad, docs); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: UnmarshalBinaryFor: %v, want ErrFormat", c.name, err)
		}
		if _, _, err := ReadFeaturizerFor(bytes.NewReader(bad), int64(len(bad)), docs); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: ReadFeaturizerFor: %v, want ErrFormat", c.name, err)
		}
	}
	// The unedited directory, written again, reads.
	_, _, d := dirAt(t, data)
	if _, _, err := ReadFeaturizerFor(bytes.NewReader(withDir(data, start, end, d)), int64(len(data)), docs); err != nil {
		t.Fatal(err)
	}
	for cut := range len(data) {
		if _, _, err := ReadFeaturizerFor(bytes.NewReader(data[:cut]), int64(cut), docs); !errors.Is(err, ErrFormat) {
			t.Fatalf("cut to %d bytes: %v, want ErrFormat", cut, err)
		}
	}
	// A size past the input's end is a short input.
	if _, _, err := ReadFeaturizerFor(bytes.NewReader(data), int64(len(data))+1, docs); !errors.Is(err, ErrFormat) {
		t.Fatalf("size past the end: %v, want ErrFormat", err)
	}
}
