package textmodel

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/klauspost/compress/flate"

	"github.com/hyperplane-ml/hyperplane/sparse/budget"
	"github.com/hyperplane-ml/hyperplane/sparse/budget/budgettest"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

// A valid model that a small memory budget refuses is refused for the
// budget: the error wraps budget.ErrExceeded and not ErrFormat, whatever
// the file's version and however it is read.
func TestBudgetRefusalIsNotFormat(t *testing.T) {
	docs, labels := corpus(300)
	m, _, err := Fit(context.Background(), docs, labels, Config{Text: text.Config{NGrams: 2, Vocabulary: true, IDF: true}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := m.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for v := uint16(2); v <= fileVersion; v++ {
		b := buf.Bytes()
		if v < fileVersion {
			b = oldVersion(t, b, v)
		}
		path := filepath.Join(dir, fmt.Sprintf("v%d.hptm", v))
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		// A budget that holds each part's stored bytes but not what
		// decoding the vocabulary builds.
		flen := binary.LittleEndian.Uint64(b[8:])
		mlen := binary.LittleEndian.Uint64(b[16+flen:])
		limit := int64(max(flen, mlen)) + 64
		if v <= 3 {
			// The inflated featurizer is held to a quarter of the
			// budget: let it through, so that decoding is what fails.
			limit = int64(max(flen, mlen))*4 + 64
		}
		prev := budget.Set(limit)
		_, lerr := Load(path)
		_, ferr := LoadFor(path, docs[:2])
		_, rerr := Read(bytes.NewReader(b))
		budget.Set(prev)
		// (LoadFor of version 5 reads only what two documents need,
		// which may fit.)
		if ferr == nil && v < 5 {
			t.Errorf("version %d: LoadFor reads the whole file under a budget of %d bytes", v, limit)
		}
		for what, err := range map[string]error{"Load": lerr, "LoadFor": ferr, "Read": rerr} {
			if what == "LoadFor" && err == nil {
				continue
			}
			if !errors.Is(err, budget.ErrExceeded) || errors.Is(err, ErrFormat) {
				t.Errorf("version %d, %s under a budget of %d bytes: %v", v, what, limit, err)
			}
		}
		if _, err := Load(path); err != nil {
			t.Errorf("version %d: the default budget refuses the file: %v", v, err)
		}
	}
}

// hostileV2 returns a text model file of version 2 (its featurizer a
// DEFLATE-compressed JSON document) whose featurizer inflates to about
// size bytes listing one-letter terms, from the current file cur.
func hostileV2(t testing.TB, cur []byte, size int) []byte {
	t.Helper()
	v2 := oldVersion(t, cur, 2)
	flen := binary.LittleEndian.Uint64(v2[8:])
	var doc bytes.Buffer
	doc.WriteString(`{"format":"hyperplane.text.Featurizer","version":1,"hash":"xxh64-gram1","ngrams":1,"tf":"count","idf":false,"normalize":true,"docs":1,"labels":{"numeric":false,"names":["a","b"]},"vocabulary":["a"`)
	for doc.Len() < size {
		doc.WriteString(`,"a"`)
	}
	doc.WriteString("]}")
	var feat bytes.Buffer
	fw, err := flate.NewWriter(&feat, flate.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	fw.Write(doc.Bytes())
	fw.Close()
	out := slices.Clone(v2[:16])
	binary.LittleEndian.PutUint64(out[8:], uint64(feat.Len()))
	out = append(out, feat.Bytes()...)
	out = append(out, v2[16+flen:]...)
	return withChecksum(out)
}

// A version 2 file of a few KB whose featurizer inflates to a quarter of
// the budget, listing a million one-letter terms, is refused for the
// budget without allocating more than twice the budget: the terms are
// counted before they are made (decoded, they would take several times
// the budget in string headers).
func TestHostileOldTermList(t *testing.T) {
	const limit = 16 << 20
	var cur bytes.Buffer
	if _, err := fit(t).WriteTo(&cur); err != nil {
		t.Fatal(err)
	}
	b := hostileV2(t, cur.Bytes(), limit/4-4096)
	path := filepath.Join(t.TempDir(), "hostile.hptm")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var err error
	budgettest.Run(t, limit, func() { _, err = Load(path) })
	if !errors.Is(err, budget.ErrExceeded) || errors.Is(err, ErrFormat) {
		t.Fatalf("got %v, want a refusal for the budget", err)
	}
	t.Logf("%d bytes: %v", len(b), err)
}
