package textmodel

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

// A model loaded for some documents classifies, scores and explains each
// of them as the whole model does, to the bit, whatever it is: a
// vocabulary's (read in part) or a hashing or kernel model (read whole).
func TestLoadFor(t *testing.T) {
	docs, labels := corpus(300)
	binLabels := make([]string, len(labels))
	for i, l := range labels {
		binLabels[i] = map[bool]string{true: "sport", false: "other"}[l == "sport"]
	}
	vocab := text.Config{Vocabulary: true, NGrams: 2, IDF: true}
	cases := map[string]struct {
		labels []string
		cfg    Config
		part   bool // read in part
	}{
		"vocabulary, multiclass": {labels, Config{Text: vocab, Learner: engine.Config{Rule: engine.PA2, Normalize: true}}, true},
		"vocabulary, binary":     {binLabels, Config{Text: vocab}, true},
		"vocabulary, plain":      {labels, Config{Text: text.Config{Vocabulary: true, NoNormalize: true}, Learner: engine.Config{Algorithm: engine.Plain}, NoCalibration: true}, true},
		"hashing":                {labels, Config{Text: text.Config{NGrams: 2}}, false},
		"kernel":                 {binLabels, Config{Text: vocab, Kernel: &engine.KernelConfig{}}, false},
	}
	query := []string{
		"the goal of the team this season",
		"bank shares and market rates, and a lab",
		"nothing the vocabulary knows: zzz qqq",
		"",
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			m, _, err := Fit(context.Background(), docs, c.labels, c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "m.hptm")
			if err := m.Save(path); err != nil {
				t.Fatal(err)
			}
			whole, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			part, err := LoadFor(path, query)
			if err != nil {
				t.Fatal(err)
			}
			if d := part.Featurizer().Dim(); c.part != (d < whole.Featurizer().Dim()) {
				t.Fatalf("read in part: %v, want %v (dim %d of %d)", !c.part, c.part, d, whole.Featurizer().Dim())
			}
			if !slices.Equal(part.Labels(), whole.Labels()) {
				t.Fatalf("labels %q, whole model %q", part.Labels(), whole.Labels())
			}
			for _, q := range query {
				if a, b := part.Classify(q), whole.Classify(q); a != b {
					t.Errorf("%q: %s, whole model %s", q, a, b)
				}
				s, ws := part.Scores(q, nil), whole.Scores(q, nil)
				p, wp := part.Proba(q, nil), whole.Proba(q, nil)
				for k := range ws {
					if math.Float32bits(s[k]) != math.Float32bits(ws[k]) {
						t.Errorf("%q: score %d is %v, whole model %v", q, k, s[k], ws[k])
					}
				}
				for k := range wp {
					if math.Float64bits(p[k]) != math.Float64bits(wp[k]) {
						t.Errorf("%q: probability %d is %v, whole model %v", q, k, p[k], wp[k])
					}
				}
				if _, isKernel := m.Classifier().(*engine.KernelModel); isKernel {
					continue
				}
				l, b, terms, err := part.Explain(q, -1)
				wl, wb, wterms, werr := whole.Explain(q, -1)
				if err != nil || werr != nil || l != wl || b != wb || len(terms) != len(wterms) {
					t.Fatalf("%q: explained as %s %v %d terms (%v), whole model %s %v %d terms (%v)", q, l, b, len(terms), err, wl, wb, len(wterms), werr)
				}
				for i := range terms {
					if terms[i].Term != wterms[i].Term || terms[i].Value != wterms[i].Value {
						t.Errorf("%q: term %d %+v, whole model %+v", q, i, terms[i], wterms[i])
					}
				}
			}
		})
	}
}

// pageLog is a ReaderAt of data that records the pages of the file that
// are read (the trailer's included).
type pageLog struct {
	data  []byte
	pages map[int64]bool
}

func (p *pageLog) ReadAt(b []byte, off int64) (int, error) {
	for pg := off / pageSize; pg*pageSize < off+int64(len(b)); pg++ {
		p.pages[pg] = true
	}
	return bytes.NewReader(p.data).ReadAt(b, off)
}

// wordsCorpus returns n documents of up to 30 words drawn from that many
// made-up words, labelled by one of three topics.
func wordsCorpus(n, words int) (docs, labels []string) {
	r := rand.New(rand.NewPCG(7, 8))
	vocab := make([]string, words)
	for i := range vocab {
		b := make([]byte, 3+r.IntN(6))
		for k := range b {
			b[k] = byte('a' + r.IntN(26))
		}
		vocab[i] = string(b)
	}
	for range n {
		t := r.IntN(3)
		doc := make([]string, 1+r.IntN(30))
		for k := range doc {
			doc[k] = vocab[(r.IntN(words)/3)*3+t]
		}
		docs = append(docs, strings.Join(doc, " "))
		labels = append(labels, []string{"a", "b", "c"}[t])
	}
	return docs, labels
}

// A large model read for one short document reads a few of its pages, and
// refuses a file with a byte changed in any page it reads; a change in a
// page it does not read changes nothing it returns. Every page of the
// file, the page checksums' too, is changed in turn.
func TestLoadForReadsPages(t *testing.T) {
	docs, labels := wordsCorpus(6000, 30000)
	m, _, err := Fit(context.Background(), docs, labels, Config{Text: text.Config{Vocabulary: true, NGrams: 2, IDF: true, MinDF: 1}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := m.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	query := []string{strings.Join(strings.Fields(docs[0])[:min(4, len(strings.Fields(docs[0])))], " ")}
	log := &pageLog{data: data, pages: map[int64]bool{}}
	part, err := readPart(log, int64(len(data)), query)
	if err != nil {
		t.Fatal(err)
	}
	want := m.Proba(query[0], nil)
	if got := part.Proba(query[0], nil); !slices.Equal(got, want) || part.Featurizer().Dim() >= m.Featurizer().Dim()/100 {
		t.Fatalf("read in part: probabilities %v (dim %d), whole model %v (dim %d)", got, part.Featurizer().Dim(), want, m.Featurizer().Dim())
	}
	pages := (int64(len(data)) + pageSize - 1) / pageSize
	if int64(len(log.pages)) > pages/5 {
		t.Fatalf("read %d pages of %d", len(log.pages), pages)
	}
	t.Logf("read %d pages of %d", len(log.pages), pages)
	refused := 0
	for pg := range pages {
		bad := slices.Clone(data)
		at := min(pg*pageSize+pageSize/2, int64(len(bad))-1)
		bad[at] ^= 0x10
		got, err := readPart(bytes.NewReader(bad), int64(len(bad)), query)
		if log.pages[pg] {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("byte %d changed, in page %d that is read: %v, want ErrFormat", at, pg, err)
			}
			refused++
			continue
		}
		if err != nil || !slices.Equal(got.Proba(query[0], nil), want) {
			t.Fatalf("byte %d changed, in page %d that is not read: %v", at, pg, err)
		}
	}
	if refused == 0 {
		t.Fatal("no page refused: the test checks nothing")
	}
}

// LoadFor checks what it reads as Load does: a corrupt file is refused,
// also where it lies in a part that is read but not kept; Load refuses a
// corrupt page wherever it is.
func TestLoadForRefusesCorrupt(t *testing.T) {
	docs, labels := corpus(300)
	m, _, err := Fit(context.Background(), docs, labels, Config{Text: text.Config{Vocabulary: true, NGrams: 2}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.hptm")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []int{len(data) - 30, len(data) - 5, len(data) / 2, 40} {
		bad := slices.Clone(data)
		bad[at] ^= 0x10
		p := filepath.Join(t.TempDir(), "bad.hptm")
		if err := os.WriteFile(p, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadFor(p, []string{"the goal"}); !errors.Is(err, ErrFormat) {
			t.Errorf("byte %d flipped: %v, want ErrFormat", at, err)
		}
		if _, err := Load(p); !errors.Is(err, ErrFormat) {
			t.Errorf("byte %d flipped: Load: %v, want ErrFormat", at, err)
		}
	}
	// Data after the model is refused, read in part or whole; so is a
	// reader that holds less than the size it is said to.
	p := filepath.Join(t.TempDir(), "long.hptm")
	if err := os.WriteFile(p, append(slices.Clone(data), 0), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(p); !errors.Is(err, ErrFormat) {
		t.Errorf("a byte after the model: Load: %v, want ErrFormat", err)
	}
	if _, err := LoadFor(p, []string{"the goal"}); !errors.Is(err, ErrFormat) {
		t.Errorf("a byte after the model: LoadFor: %v, want ErrFormat", err)
	}
	for _, short := range []int{1, 5, 13, 100} {
		if _, err := readPart(bytes.NewReader(data[:len(data)-short]), int64(len(data)), []string{"the goal"}); !errors.Is(err, ErrFormat) {
			t.Errorf("a reader %d bytes short: %v, want ErrFormat", short, err)
		}
	}
	// Another magic, its checksums redone, is not a text model.
	other := slices.Clone(data)
	copy(other, "HPTX")
	if _, err := readPart(bytes.NewReader(withChecksum(other)), int64(len(other)), []string{"the goal"}); !errors.Is(err, ErrFormat) {
		t.Errorf("another magic: %v, want ErrFormat", err)
	}
	// Cut short anywhere, it is refused, read in part or whole.
	for cut := range len(data) {
		if _, err := readPart(bytes.NewReader(data[:cut]), int64(cut), []string{"the goal"}); !errors.Is(err, ErrFormat) {
			t.Fatalf("cut to %d bytes: %v, want ErrFormat", cut, err)
		}
	}
}
