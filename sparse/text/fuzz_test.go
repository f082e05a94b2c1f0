package text

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/budget/budgettest"
)

// The seed corpus lives in testdata/fuzz/FuzzReadJSONL: valid lines (field
// order, extra and nested fields, escapes, surrogates, numeric labels,
// CRLF, BOM, blank lines, gzip) and every kind of error.
//
//	go test -run '^$' -fuzz '^FuzzReadJSONL$' -fuzztime 60s ./sparse/text/
//	go test -run '^$' -fuzz '^FuzzTransform$' -fuzztime 60s ./sparse/text/

// fuzzOptions are the option sets every input is read with: the defaults,
// and other field names with a small line limit, so that short inputs
// reach ErrLineTooLong.
var fuzzOptions = []ReadOptions{
	{Format: JSONL, Name: "fuzz"},
	{Format: JSONL, LabelField: "y", TextField: "x", MaxLineBytes: 40},
}

// oracleResult is what encoding/json makes of a JSONL input.
type oracleResult struct {
	docs []Doc
	err  error // sentinel of the first bad line, or nil
	line int   // its line
}

// jsonlOracle reads JSONL input line by line with encoding/json, following
// the documented rules. It is slow and simple, and shares no code with the
// reader.
func jsonlOracle(data []byte, opt ReadOptions) oracleResult {
	o, _ := opt.normalize()
	data = bytes.TrimPrefix(data, bom)
	var res oracleResult
	fail := func(line int, err error) oracleResult {
		res.err, res.line, res.docs = err, line, nil
		return res
	}
	str := func(raw json.RawMessage) (string, bool) {
		var s string
		return s, raw[0] == '"' && json.Unmarshal(raw, &s) == nil
	}
	for i, ln := range bytes.Split(data, []byte("\n")) {
		line := i + 1
		if len(ln) > o.MaxLineBytes {
			return fail(line, ErrLineTooLong)
		}
		trimmed := bytes.Trim(ln, " \t\r")
		if len(trimmed) == 0 {
			continue
		}
		var m map[string]json.RawMessage
		if trimmed[0] != '{' || !json.Valid(ln) || json.Unmarshal(ln, &m) != nil {
			return fail(line, ErrSyntax)
		}
		rawLabel, ok := m[o.LabelField]
		if !ok {
			return fail(line, ErrMissingField)
		}
		label, ok := str(rawLabel)
		if c := rawLabel[0]; c == '-' || c >= '0' && c <= '9' {
			label, ok = string(rawLabel), true
		}
		if !ok {
			return fail(line, ErrFieldType)
		}
		rawText, ok := m[o.TextField]
		if !ok {
			return fail(line, ErrMissingField)
		}
		text, ok := str(rawText)
		if !ok {
			return fail(line, ErrFieldType)
		}
		if label == "" {
			return fail(line, ErrLabel)
		}
		// A label is one field of one output line: no control
		// characters (C0, DEL, C1, the Unicode line and paragraph
		// separators).
		for _, r := range label {
			if r < 0x20 || r >= 0x7f && r <= 0x9f || r == 0x2028 || r == 0x2029 {
				return fail(line, ErrLabel)
			}
		}
		res.docs = append(res.docs, Doc{Label: label, Text: text, Line: line})
	}
	return res
}

func FuzzReadJSONL(f *testing.F) {
	f.Add([]byte(`{"label":"pos","text":"good"}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Under a small budget, within twice it (see budgettest.Within).
		defer budgettest.Within(t, 64<<20)()
		gzipped := len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b
		for _, opt := range fuzzOptions {
			c, err := Read(bytes.NewReader(data), opt)

			// The Scanner agrees with Read.
			sc := NewScanner(bytes.NewReader(data), opt)
			var docs []Doc
			for sc.Scan() {
				docs = append(docs, sc.Doc())
			}
			if (err == nil) != (sc.Err() == nil) || err != nil && err.Error() != sc.Err().Error() {
				t.Fatalf("Read error %v, Scanner error %v", err, sc.Err())
			}
			if err == nil && !slices.Equal(c.Docs, docs) {
				t.Fatalf("Read and Scanner differ")
			}
			if gzipped {
				continue // the oracle reads plain text only
			}

			// encoding/json agrees (it refuses nesting deeper than 10000,
			// which only lines that long can reach).
			if bytes.Contains(data, bytes.Repeat([]byte("["), 9000)) || bytes.Contains(data, bytes.Repeat([]byte("{\"\":"), 2000)) {
				continue
			}
			want := jsonlOracle(data, opt)
			var pe *sparse.ParseError
			switch {
			case want.err == nil && err != nil:
				t.Fatalf("%+v: rejected: %v", opt, err)
			case want.err != nil && err == nil:
				t.Fatalf("%+v: accepted; encoding/json finds %v on line %d", opt, want.err, want.line)
			case want.err != nil:
				if !errors.As(err, &pe) || !errors.Is(err, want.err) || pe.Line != want.line || pe.File != opt.Name {
					t.Fatalf("%+v: error %v, want %v on line %d", opt, err, want.err, want.line)
				}
				lines := bytes.Split(bytes.TrimPrefix(data, bom), []byte("\n"))
				if n := len(lines[pe.Line-1]); pe.Col < 1 || pe.Col > n+1 && !errors.Is(err, ErrLineTooLong) {
					t.Fatalf("column %d outside a line of %d bytes", pe.Col, n)
				}
				continue
			}
			if !slices.Equal(c.Docs, want.docs) {
				t.Fatalf("%+v: read %q, encoding/json reads %q", opt, c.Docs, want.docs)
			}

			// What was read writes back as JSONL and reads again the same.
			o, _ := opt.normalize()
			var buf bytes.Buffer
			for _, d := range c.Docs {
				for range d.Line - 1 - bytes.Count(buf.Bytes(), []byte("\n")) {
					buf.WriteByte('\n')
				}
				line, _ := json.Marshal(map[string]string{o.LabelField: d.Label, o.TextField: d.Text})
				buf.Write(line)
				buf.WriteByte('\n')
			}
			again, err := Read(&buf, ReadOptions{Format: JSONL, LabelField: opt.LabelField, TextField: opt.TextField})
			if err != nil || !slices.Equal(again.Docs, c.Docs) {
				t.Fatalf("round trip: %v", err)
			}

			// And it vectorizes into a valid dataset.
			if len(c.Docs) > 0 {
				fz, err := Fit(c, Config{Bits: 8, NGrams: 2, IDF: true, Workers: 2})
				if err != nil {
					t.Fatal(err)
				}
				d, err := fz.Vectorize(c)
				if err != nil {
					t.Fatal(err)
				}
				if err := d.Validate(); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}

// FuzzTransform checks the featurizer against its definition on arbitrary
// text: tokens, hashes, signs, weights and norm.
func FuzzTransform(f *testing.F) {
	for _, s := range []string{"", "Hello, World!", "Ünïcödé ÉTÉ", "a\xffb", "it's it's it's", "日本語 テキスト", "x x x y y z"} {
		f.Add(s, uint8(2))
	}
	f.Fuzz(func(t *testing.T, s string, mode uint8) {
		// Under a small budget, within twice it (see budgettest.Within).
		defer budgettest.Within(t, 64<<20)()
		if !slices.Equal(Tokenize(s), refTokenize(s)) {
			t.Fatalf("Tokenize(%q) = %q, want %q", s, Tokenize(s), refTokenize(s))
		}
		cfg := Config{NGrams: 1 + int(mode%3), Bits: 1 + int(mode/3%20), TF: TF(mode / 60 % 3)}
		train := &Corpus{Docs: []Doc{{Label: "a", Text: s}, {Label: "b", Text: "other words"}}}
		for _, vocab := range []bool{false, true} {
			c := cfg
			if vocab {
				c.Bits, c.Vocabulary, c.IDF = 0, true, true
			}
			fz, err := Fit(train, c)
			if err != nil {
				t.Fatal(err)
			}
			v := fz.NewEncoder().Transform(s)
			checkVector(t, fz, s, v)
			var ss float64
			for _, x := range v.Val {
				ss += float64(x) * float64(x)
			}
			if len(v.Val) > 0 && math.Abs(ss-1) > 1e-4 {
				t.Fatalf("norm² = %v", ss)
			}
		}
	})
}

// TestFuzzSeedsCover checks that the seed corpus holds every error kind
// and a gzip input, so that it keeps exercising what it was made for.
func TestFuzzSeedsCover(t *testing.T) {
	seeds, err := readSeedCorpus("testdata/fuzz/FuzzReadJSONL")
	if err != nil {
		t.Fatal(err)
	}
	found := map[error]bool{}
	gzipped, valid := false, 0
	for _, data := range seeds {
		gzipped = gzipped || bytes.HasPrefix(data, []byte{0x1f, 0x8b})
		_, err := Read(bytes.NewReader(data), fuzzOptions[0])
		if err == nil {
			valid++
		}
		for _, e := range []error{ErrSyntax, ErrMissingField, ErrFieldType, ErrLabel} {
			if errors.Is(err, e) {
				found[e] = true
			}
		}
		if _, err := Read(bytes.NewReader(data), fuzzOptions[1]); errors.Is(err, ErrLineTooLong) {
			found[ErrLineTooLong] = true
		}
	}
	for _, e := range []error{ErrSyntax, ErrMissingField, ErrFieldType, ErrLabel, ErrLineTooLong} {
		if !found[e] {
			t.Errorf("no seed gives %v", e)
		}
	}
	if !gzipped || valid < 5 {
		t.Errorf("gzip seed %v, %d valid seeds", gzipped, valid)
	}
	if len(seeds) < 20 {
		t.Errorf("only %d seeds", len(seeds))
	}
}

// readSeedCorpus reads the []byte inputs of a Go fuzz corpus directory.
func readSeedCorpus(dir string) ([][]byte, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out [][]byte
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		body, ok := bytes.CutPrefix(data, []byte("go test fuzz v1\n[]byte("))
		body, ok2 := bytes.CutSuffix(bytes.TrimSpace(body), []byte(")"))
		if !ok || !ok2 {
			return nil, fmt.Errorf("%s: not a one-[]byte fuzz input", e.Name())
		}
		s, err := strconv.Unquote(string(body))
		if err != nil {
			return nil, fmt.Errorf("%s: %v", e.Name(), err)
		}
		out = append(out, []byte(s))
	}
	return out, nil
}
