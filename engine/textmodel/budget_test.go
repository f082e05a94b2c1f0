package textmodel

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse/budget"
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
