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

	"github.com/hyperplane-ml/hyperplane/sparse/budget"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

// A version 3 file written by an earlier build (testdata/v3.hptm: a
// vocabulary of word pairs fitted on 300 TREC questions, calibrated)
// reads, and classifies the questions of testdata/v3.input.txt with the
// labels and probabilities that build's predict -proba wrote
// (testdata/v3.want.txt); written again as version 4 it reads back to the
// same vocabulary, labels and probabilities.
func TestReadVersion3File(t *testing.T) {
	m, err := Load("testdata/v3.hptm")
	if err != nil {
		t.Fatal(err)
	}
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
		t.Fatalf("vocabulary of %d terms, %d read again", len(m.Featurizer().Vocabulary()), len(again.Featurizer().Vocabulary()))
	}
	for i, doc := range docs {
		label, p, _ := strings.Cut(lines[i], "\t")
		wp, err := strconv.ParseFloat(p, 64)
		if err != nil {
			t.Fatal(err)
		}
		for _, mm := range []*Model{m, again} {
			got := mm.Classify(doc)
			probs := mm.Proba(doc, nil)
			k := slices.Index(mm.Labels(), got)
			if got != label || math.Abs(probs[k]-wp) > 1e-5 {
				t.Errorf("document %d %q: %s %.6g, want %s %s", i, doc, got, probs[k], label, p)
			}
		}
		if a, b := m.Proba(doc, nil), again.Proba(doc, nil); !slices.Equal(a, b) {
			t.Errorf("document %d: probabilities %v, read again %v", i, a, b)
		}
	}
}

// withChecksum returns data with its last 4 bytes set to the checksum of
// the rest, as WriteTo ends a file.
func withChecksum(data []byte) []byte {
	if len(data) < 4 {
		return data
	}
	out := slices.Clone(data)
	binary.LittleEndian.PutUint32(out[len(out)-4:], crc32.Checksum(out[:len(out)-4], crcTable))
	return out
}

// FuzzRead: any input to Read is a model that classifies, or an error
// wrapping ErrFormat or budget.ErrExceeded, never a panic. The input's
// checksum is set right before it is read, so that the parts behind it
// (the featurizer's vocabulary, terms and index above all) are reached;
// the seeds are files of every version, vocabulary and hashing.
//
//	go test -run '^$' -fuzz '^FuzzRead$' -fuzztime 60s ./engine/textmodel/
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
		defer budget.Set(budget.Set(16 << 20))
		for _, in := range [][]byte{data, withChecksum(data)} {
			m, err := Read(bufio.NewReader(bytes.NewReader(in)))
			if err != nil {
				if !errors.Is(err, ErrFormat) && !errors.Is(err, budget.ErrExceeded) {
					t.Fatalf("error %v is neither ErrFormat nor budget.ErrExceeded", err)
				}
				continue
			}
			m.Classify("the goal of the market study")
			m.Proba("the goal", nil)
			m.Featurizer().Vocabulary()
		}
	})
}
