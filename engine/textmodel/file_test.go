package textmodel

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
	"github.com/hyperplane-ml/hyperplane/sparse/budget/budgettest"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

// Files written by earlier builds read: testdata/v3.hptm, version 3, a
// vocabulary of word pairs fitted on 300 TREC questions, calibrated; and
// testdata/v4.hptm, the same model as the next build wrote it, version 4
// with the featurizer's binary form version 2. Each classifies the
// questions of testdata/v3.input.txt with the labels and probabilities
// that the first build's predict -proba wrote (testdata/v3.want.txt), read
// whole or for those questions; written again in the current version it
// reads back to the same vocabulary, labels and probabilities.
func TestReadOldFiles(t *testing.T) {
	in, err := os.ReadFile("testdata/v3.input.txt")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/v3.want.txt")
	if err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(strings.TrimSuffix(string(in), "\n"), "\n")
	lines := strings.Split(strings.TrimSuffix(string(want), "\n"), "\n")
	if len(docs) != len(lines) || len(docs) < 10 {
		t.Fatalf("%d documents, %d expected lines", len(docs), len(lines))
	}
	for _, file := range []string{"testdata/v3.hptm", "testdata/v4.hptm"} {
		m, err := Load(file)
		if err != nil {
			t.Fatal(err)
		}
		part, err := LoadFor(file, docs)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if _, err := m.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		if v := binary.LittleEndian.Uint16(buf.Bytes()[4:]); v != fileVersion {
			t.Fatalf("written as version %d", v)
		}
		again, err := Read(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Featurizer().Vocabulary()) < 100 || !slices.Equal(again.Featurizer().Vocabulary(), m.Featurizer().Vocabulary()) {
			t.Fatalf("%s: vocabulary of %d terms, %d read again", file, len(m.Featurizer().Vocabulary()), len(again.Featurizer().Vocabulary()))
		}
		for i, doc := range docs {
			label, p, _ := strings.Cut(lines[i], "\t")
			wp, err := strconv.ParseFloat(p, 64)
			if err != nil {
				t.Fatal(err)
			}
			for _, mm := range []*Model{m, part, again} {
				got := mm.Classify(doc)
				probs := mm.Proba(doc, nil)
				k := slices.Index(mm.Labels(), got)
				if got != label || math.Abs(probs[k]-wp) > 1e-5 {
					t.Errorf("%s: document %d %q: %s %.6g, want %s %s", file, i, doc, got, probs[k], label, p)
				}
			}
			if a, b, c := m.Proba(doc, nil), again.Proba(doc, nil), part.Proba(doc, nil); !slices.Equal(a, b) || !slices.Equal(a, c) {
				t.Errorf("%s: document %d: probabilities %v, read again %v, read for the documents %v", file, i, a, b, c)
			}
		}
	}
}

// withChecksum returns data with its checksums set right, as WriteTo ends
// a file: in version 5 the page checksums of the bytes before them (as
// many as the file's last bytes say, where the rest of its size agrees),
// before that the last 4 bytes, the checksum of the rest.
func withChecksum(data []byte) []byte {
	if len(data) < 4 {
		return data
	}
	out := slices.Clone(data)
	if len(out) >= 16+12 && binary.LittleEndian.Uint16(out[4:]) >= 5 {
		d := binary.LittleEndian.Uint64(out[len(out)-12:])
		if d < uint64(len(out)) && trailerSize(d) == uint64(len(out))-d {
			var sums pageSums
			sums.Write(out[:d])
			return appendTrailer(out[:d], sums.finish(), int64(d))
		}
		return out
	}
	binary.LittleEndian.PutUint32(out[len(out)-4:], crc32.Checksum(out[:len(out)-4], crcTable))
	return out
}

// FuzzRead: any input to Read is a model that classifies, or an error
// wrapping ErrFormat or budget.ErrExceeded, never a panic. The input's
// checksum is set right before it is read, so that the parts behind it
// (the featurizer's vocabulary, terms and index above all) are reached;
// the seeds are files of every version, vocabulary and hashing. Each input
// is also read by pages for one document: a format, budget or
// ErrNoSubset error, and for a file of version 5 that reads whole and
// ends where its trailer says, the whole model's probabilities.
//
// Its seeds are whole files, whose minimizing takes most of a short run
// unless it is cut short:
//
//	go test -run '^$' -fuzz '^FuzzRead$' -fuzztime 60s -fuzzminimizetime 1s ./engine/textmodel/
func FuzzRead(f *testing.F) {
	// Small models, so that an input reads in well under a millisecond.
	docs, labels := corpus(60)
	for _, tc := range []text.Config{{NGrams: 2, Bits: 8, IDF: true}, {NGrams: 2, Vocabulary: true, IDF: true}} {
		m, _, err := Fit(context.Background(), docs, labels, Config{Text: tc})
		if err != nil {
			f.Fatal(err)
		}
		var buf bytes.Buffer
		if _, err := m.WriteTo(&buf); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
		for v := uint16(1); v < fileVersion; v++ {
			f.Add(oldVersion(f, buf.Bytes(), v))
		}
	}
	if v3, err := os.ReadFile("testdata/v3.hptm"); err == nil {
		f.Add(v3)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// Under a small budget, within twice it (see budgettest.Within).
		defer budgettest.Within(t, 16<<20)()
		doc := "the goal of the market study"
		for _, in := range [][]byte{data, withChecksum(data)} {
			// Read in part, by pages, errors of the format or budget or
			// a refusal to read in part, and of a file that reads whole
			// a model that classifies doc alike.
			part, perr := readPart(bytes.NewReader(in), int64(len(in)), []string{doc})
			if perr != nil && !errors.Is(perr, ErrFormat) && !errors.Is(perr, budget.ErrExceeded) && !errors.Is(perr, engine.ErrNoSubset) {
				t.Fatalf("in part: error %v is neither ErrFormat, budget.ErrExceeded nor engine.ErrNoSubset", perr)
			}
			m, err := Read(bufio.NewReader(bytes.NewReader(in)))
			if err != nil {
				if !errors.Is(err, ErrFormat) && !errors.Is(err, budget.ErrExceeded) {
					t.Fatalf("error %v is neither ErrFormat nor budget.ErrExceeded", err)
				}
				continue
			}
			// (Read reads no more than the model: the input must end with
			// it, as a file must.)
			d := binary.LittleEndian.Uint64(in[len(in)-12:])
			ends := d < uint64(len(in)) && trailerSize(d) == uint64(len(in))-d
			if binary.LittleEndian.Uint16(in[4:]) >= 5 && ends && !errors.Is(perr, engine.ErrNoSubset) {
				if perr != nil {
					t.Fatalf("reads whole but not in part: %v", perr)
				}
				if a, b := m.Proba(doc, nil), part.Proba(doc, nil); !slices.Equal(a, b) {
					t.Fatalf("probabilities %v whole, %v in part", a, b)
				}
			}
			m.Classify(doc)
			m.Proba("the goal", nil)
			m.Featurizer().Vocabulary()
		}
	})
}

// TestBudgetIsNotFormat: a valid text model refused because the memory
// budget is too small says so (budget.ErrExceeded) and does not claim the
// file is bad (ErrFormat), in every version of the file read whole, and
// in the current one read for some documents.
func TestBudgetIsNotFormat(t *testing.T) {
	docs, labels := corpus(200)
	m, _, err := Fit(context.Background(), docs, labels, Config{Text: text.Config{NGrams: 2, Vocabulary: true, IDF: true}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := m.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"current": buf.Bytes()}
	for v := uint16(1); v < fileVersion; v++ {
		files["version "+strconv.Itoa(int(v))] = oldVersion(t, buf.Bytes(), v)
	}
	defer budget.Set(budget.Set(4 << 10))
	for name, b := range files {
		_, err := Read(bufio.NewReader(bytes.NewReader(b)))
		if !errors.Is(err, budget.ErrExceeded) || errors.Is(err, ErrFormat) {
			t.Errorf("%s, read whole: %v; want budget.ErrExceeded and not ErrFormat", name, err)
		}
		if name != "current" {
			continue // only the current version is read in part
		}
		_, err = readPart(bytes.NewReader(b), int64(len(b)), []string{docs[0]})
		if err != nil && (!errors.Is(err, budget.ErrExceeded) && !errors.Is(err, engine.ErrNoSubset) || errors.Is(err, ErrFormat)) {
			t.Errorf("%s, read in part: %v; want budget.ErrExceeded and not ErrFormat", name, err)
		}
	}
}
