package text

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse/budget"
	"github.com/hyperplane-ml/hyperplane/sparse/budget/budgettest"
)

// hostileVocabulary returns a featurizer document of about size bytes
// whose vocabulary lists empty terms, three bytes each, which encoding/json
// decodes into 16 bytes of string header each.
func hostileVocabulary(size int) []byte {
	head := `{"format":"hyperplane.text.Featurizer","version":1,"hash":"xxh64-gram1","ngrams":1,"tf":"count","idf":false,"normalize":true,"docs":1,"labels":{"numeric":false,"names":["a","b"]},"vocabulary":[`
	var b bytes.Buffer
	b.Grow(size + 64)
	b.WriteString(head)
	b.WriteString(`""`)
	for b.Len() < size {
		b.WriteString(`,""`)
	}
	b.WriteString("]}")
	return b.Bytes()
}

// A featurizer whose bytes fit the budget but whose decoded term list
// would not is refused for the budget, without ever allocating more than
// twice the budget: the terms are counted before they are made.
func TestHostileTermListWithinBudget(t *testing.T) {
	const limit = 16 << 20
	doc := hostileVocabulary(limit/4 - 1024) // what ReadFeaturizer takes in
	for _, name := range []string{"ReadFeaturizer", "decode"} {
		t.Run(name, func(t *testing.T) {
			var err error
			budgettest.Run(t, limit, func() {
				if name == "ReadFeaturizer" {
					_, err = ReadFeaturizer(bytes.NewReader(doc))
				} else {
					_, err = decode(doc)
				}
			})
			if !errors.Is(err, budget.ErrExceeded) || errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "vocabulary") {
				t.Fatalf("got %v, want a refusal of the vocabulary for the budget", err)
			}
		})
	}
}

// scanArray counts what json.Unmarshal decodes, at most.
func TestScanArray(t *testing.T) {
	for _, c := range []struct {
		raw   string
		n     int
		bytes int64
		ok    bool
	}{
		{`[]`, 0, 0, true},
		{` [ ] `, 0, 0, true},
		{`[1, 2,3]`, 3, 0, true},
		{`["a", "b,c", "d\"]"]`, 3, 24, true},
		{`["é"]`, 1, 8, true},
		{`[[1,2],{"a":[3]}]`, 2, 8, true},
		{`{"a":1}`, 0, 0, false},
		{`null`, 0, 0, false},
	} {
		n, b, ok := scanArray([]byte(c.raw))
		if n != c.n || b != c.bytes || ok != c.ok {
			t.Errorf("scanArray(%s) = %d, %d, %v; want %d, %d, %v", c.raw, n, b, ok, c.n, c.bytes, c.ok)
		}
	}
}
