package text

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

// scanDocs reads input with a Scanner (one byte a read, which splits
// every line across reads) and returns the documents' texts and labels.
func scanDocs(t *testing.T, input []byte, opt ReadOptions) (texts, labels []string, lines []int, err error) {
	t.Helper()
	sc := NewScanner(iotest.OneByteReader(bytes.NewReader(input)), opt)
	for sc.Scan() {
		d := sc.Doc()
		texts, labels, lines = append(texts, d.Text), append(labels, d.Label), append(lines, d.Line)
	}
	return texts, labels, lines, sc.Err()
}

// TestDocumentsMatchLabelled: one input read for its documents
// (Documents) and with its labels gives the same texts, whatever its form:
// JSONL with other members, a byte order mark, CRLF, gzip, a key in
// another case (a different member, not the text), TSV.
func TestDocumentsMatchLabelled(t *testing.T) {
	jsonl := "\ufeff{\"id\":1,\"label\":\"pos\",\"TEXT\":\"boring dull awful\",\"text\":\"a fine movie\"}\r\n" +
		"\r\n" +
		"{\"text\":\"dull\",\"Text\":\"x\",\"label\":\"neg\",\"extra\":{\"a\":[1,2]}}\n"
	tsv := "\ufeffpos\ta fine movie\r\n\nneg\tdull\n"
	want := []string{"a fine movie", "dull"}
	isLabel := func(s string) bool { return s == "pos" || s == "neg" }
	for name, in := range map[string][]byte{"jsonl": []byte(jsonl), "tsv": []byte(tsv), "jsonl.gz": gz(t, jsonl), "tsv.gz": gz(t, tsv)} {
		for _, docs := range []bool{false, true} {
			texts, labels, _, err := scanDocs(t, in, ReadOptions{Documents: docs, IsLabel: isLabel})
			if err != nil {
				t.Fatalf("%s, Documents %v: %v", name, docs, err)
			}
			if strings.Join(texts, "|") != strings.Join(want, "|") {
				t.Errorf("%s, Documents %v: texts %q, want %q", name, docs, texts, want)
			}
			wantLabels := "pos|neg"
			if docs {
				wantLabels = "|"
			}
			if strings.Join(labels, "|") != wantLabels {
				t.Errorf("%s, Documents %v: labels %q, want %q", name, docs, labels, wantLabels)
			}
		}
	}
}

// TestDocumentsForms: with Documents, the first non-blank line settles
// the form of the whole input; a label field is not needed and not
// checked; Lines makes a document of every line, blank ones (before the
// first non-blank too) included.
func TestDocumentsForms(t *testing.T) {
	isLabel := func(s string) bool { return s == "pos" }
	tests := []struct {
		name, in string
		opt      ReadOptions
		texts    []string
		lines    []int
		err      error
	}{
		{"lines", "\n\na great film\r\n{\"text\":\"x\"}\n\n", ReadOptions{}, []string{"", "", "a great film", "{\"text\":\"x\"}", ""}, []int{1, 2, 3, 4, 5}, nil},
		{"lines with a tab but no label", "one\ttwo\nthree\n", ReadOptions{IsLabel: isLabel}, []string{"one\ttwo", "three"}, []int{1, 2}, nil},
		{"tsv by its label", "pos\ta\nneg\tb\n", ReadOptions{IsLabel: isLabel}, []string{"a", "b"}, []int{1, 2}, nil},
		{"tsv, a line without a tab", "pos\ta\nb\n", ReadOptions{IsLabel: isLabel}, nil, nil, ErrMissingField},
		{"forced tsv", "x\ta\n", ReadOptions{Format: TSV}, []string{"a"}, []int{1}, nil},
		{"forced lines", "{\"text\":\"x\"}\n", ReadOptions{Format: Lines}, []string{"{\"text\":\"x\"}"}, []int{1}, nil},
		{"jsonl, no label", "{\"text\":\"x\"}\n", ReadOptions{}, []string{"x"}, []int{1}, nil},
		{"jsonl, a label of any type", "{\"label\":[1],\"text\":\"x\"}\n", ReadOptions{}, []string{"x"}, []int{1}, nil},
		{"jsonl, custom field", "{\"body\":\"x\",\"text\":\"y\"}\n", ReadOptions{TextField: "body"}, []string{"x"}, []int{1}, nil},
		{"jsonl, key case", "{\"Text\":\"x\"}\n", ReadOptions{}, nil, nil, ErrMissingField},
		{"jsonl, a plain line after", "{\"text\":\"x\"}\nplain\n", ReadOptions{}, nil, nil, ErrSyntax},
		{"lines, NUL", "a\x00b\n", ReadOptions{}, nil, nil, ErrSyntax},
		{"libsvm", "+1 3:1 11:0.5\n", ReadOptions{}, nil, nil, ErrNotText},
		{"cache", "HPSC\x01\x00\x00\x00", ReadOptions{}, nil, nil, ErrNotText},
	}
	for _, tc := range tests {
		opt := tc.opt
		opt.Documents = true
		texts, labels, lines, err := scanDocs(t, []byte(tc.in), opt)
		if tc.err != nil {
			var pe *sparse.ParseError
			if !errors.Is(err, tc.err) || !errors.As(err, &pe) {
				t.Errorf("%s: error %v, want a ParseError wrapping %v", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if strings.Join(texts, "|") != strings.Join(tc.texts, "|") || len(texts) != len(tc.texts) {
			t.Errorf("%s: texts %q, want %q", tc.name, texts, tc.texts)
		}
		if !equalInts(lines, tc.lines) {
			t.Errorf("%s: lines %v, want %v", tc.name, lines, tc.lines)
		}
		for _, l := range labels {
			if l != "" {
				t.Errorf("%s: label %q read", tc.name, l)
			}
		}
	}
	if _, _, _, err := scanDocs(t, []byte("x\n"), ReadOptions{Format: Lines}); !errors.Is(err, ErrConfig) {
		t.Errorf("Lines without Documents: %v, want ErrConfig", err)
	}
	if _, _, err := FitFile(writeTemp(t, "{\"text\":\"x\"}\n"), ReadOptions{Documents: true}, Config{}); !errors.Is(err, ErrConfig) {
		t.Errorf("FitFile of documents without labels: %v, want ErrConfig", err)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestAutoRefusesNumbered: labelled text in Auto refuses LIBSVM and cache
// input, gzip too, rather than read their columns as words; a format
// set explicitly is read as it says.
func TestAutoRefusesNumbered(t *testing.T) {
	svm := "\n-1 3:1 11:1 14:1 # a comment\n+1 5:1\n"
	for name, in := range map[string][]byte{"libsvm": []byte(svm), "libsvm.gz": gz(t, svm), "multilabel": []byte("1,3 qid:2 7:0.5\n"), "cache": []byte("HPSC\x00\x01binary")} {
		_, err := Read(bytes.NewReader(in), ReadOptions{Name: "f"})
		var pe *sparse.ParseError
		if !errors.Is(err, ErrNotText) || !errors.As(err, &pe) || pe.File != "f" || pe.Line == 0 {
			t.Errorf("%s: %v, want a ParseError wrapping ErrNotText", name, err)
		}
	}
	if _, err := Read(strings.NewReader("-1\t3:1 5:1\n"), ReadOptions{Format: TSV}); err != nil {
		t.Errorf("TSV set explicitly: %v", err)
	}
}

// TestSniff: the kinds of first lines, and Sniff's reading of them from
// a buffered input, gzip and a byte order mark too, without consuming it.
func TestSniff(t *testing.T) {
	for line, want := range map[string]Kind{
		"-1 3:1 11:1 14:1":                 KindLIBSVM,
		"+1 qid:3 1:0.5 7:1e-3 # note":     KindLIBSVM,
		"1,2 4:1":                          KindLIBSVM,
		"1\t4:1 5:2":                       KindLIBSVM,
		`{"label":"pos","text":"a"}`:       KindJSONL,
		"  {":                              KindJSONL,
		"pos\ta fine movie":                KindText,
		"a great film from 1999":           KindText,
		"1 the movie was 10:30 long":       KindText,
		"1":                                KindUnknown,
		"":                                 KindUnknown,
		"HPSC\x01":                         KindCache,
		"x 3:1":                            KindUnknown, // no label: malformed LIBSVM, for its reader to say
		"1 3:1 4:1 a":                      KindUnknown,
		"neg\t3:1 means three to one odds": KindText,
	} {
		if got := SniffLine([]byte(line)); got != want {
			t.Errorf("SniffLine(%q) = %v, want %v", line, got, want)
		}
	}
	in := "\ufeff\n\r\n-1 3:1 11:1\r\n+1 2:1\n"
	for name, b := range map[string][]byte{"plain": []byte(in), "gzip": gz(t, in)} {
		br := bufio.NewReaderSize(bytes.NewReader(b), 1<<16)
		k, line, err := Sniff(br)
		if err != nil || k != KindLIBSVM || line != "-1 3:1 11:1" {
			t.Errorf("%s: Sniff = %v, %q, %v", name, k, line, err)
		}
		if rest, _ := io.ReadAll(br); !bytes.Equal(rest, b) {
			t.Errorf("%s: Sniff consumed its input", name)
		}
	}
}

// TestKindString: every kind has its name for messages, and a value
// beyond them prints as Kind(n).
func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{KindUnknown: "unknown", KindCache: "a cache file", KindLIBSVM: "LIBSVM", KindJSONL: "JSONL", KindText: "text", 9: "Kind(9)"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", k, got, want)
		}
	}
}

// TestFieldsKept: a featurizer keeps the JSONL fields its training text
// was read from through Save and Load and the binary form; a file
// without them (the defaults) reads as "label" and "text", and one with
// the defaults is written without them.
func TestFieldsKept(t *testing.T) {
	in := "{\"coarse\":\"a\",\"body\":\"x y\"}\n{\"coarse\":\"b\",\"body\":\"y z\"}\n"
	opt := ReadOptions{LabelField: "coarse", TextField: "body"}
	c, err := Read(strings.NewReader(in), opt)
	if err != nil {
		t.Fatal(err)
	}
	fv, err := Fit(c, Config{Vocabulary: true})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "f.json")
	fh, _, err := FitFile(writeTemp(t, in), opt, Config{})
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]*Featurizer{"vocabulary": fv, "hashing": fh} {
		if err := f.Save(path); err != nil {
			t.Fatal(err)
		}
		loaded, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		bin, err := f.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var fb Featurizer
		if err := fb.UnmarshalBinary(bin); err != nil {
			t.Fatal(err)
		}
		for how, g := range map[string]*Featurizer{"fitted": f, "loaded": loaded, "binary": &fb} {
			if ro := g.ReadOptions(); ro.LabelField != "coarse" || ro.TextField != "body" {
				t.Errorf("%s, %s: fields %q, %q", name, how, ro.LabelField, ro.TextField)
			}
		}
	}
	d, err := Read(strings.NewReader("{\"label\":\"a\",\"text\":\"x\"}\n"), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fd, err := Fit(d, Config{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := fd.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(buf.Bytes(), []byte("_field")) {
		t.Errorf("default fields written: %s", buf.Bytes())
	}
	old, err := ReadFeaturizer(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if ro := old.ReadOptions(); ro.LabelField != "label" || ro.TextField != "text" {
		t.Errorf("a file without fields reads as %q, %q", ro.LabelField, ro.TextField)
	}
	if !old.IsLabel("a") || old.IsLabel("b") || old.IsLabel("") {
		t.Error("IsLabel does not follow the training labels")
	}
}

func writeTemp(t *testing.T, s string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestScannerReadErrorMidLine: a read that fails in the middle of a line
// (a cancelled context, say) is the reader's error, not a parse error of
// the part of the line read before it, in every format.
func TestScannerReadErrorMidLine(t *testing.T) {
	boom := errors.New("interrupted")
	for _, tc := range []struct {
		in  string
		opt ReadOptions
	}{
		{"{\"label\":\"a\",\"text\":\"x\"}\n{\"label\":\"a\",\"te", ReadOptions{}},
		{"{\"text\":\"x\"}\n{\"te", ReadOptions{Documents: true}},
		{"a\tx\nb\tpart", ReadOptions{}},
		{"one\ntw", ReadOptions{Documents: true}},
	} {
		r := io.MultiReader(strings.NewReader(tc.in), iotest.ErrReader(boom))
		sc := NewScanner(r, tc.opt)
		n := 0
		for sc.Scan() {
			n++
		}
		var pe *sparse.ParseError
		if !errors.Is(sc.Err(), boom) || errors.As(sc.Err(), &pe) || n != 1 {
			t.Errorf("%q: %d documents, error %v; want 1 and the read error", tc.in, n, sc.Err())
		}
	}
}

// TestVectorizeDocuments: VectorizeReader with Documents gives the rows
// it gives the labelled input, whatever the form (TSV told by the
// featurizer's labels, plain lines), and class values of 0.
func TestVectorizeDocuments(t *testing.T) {
	tsv := "pos\tgood fine film\nneg\tawful dull film\npos\tfine\tgood\n"
	c, err := Read(strings.NewReader(tsv), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := Fit(c, Config{NGrams: 2, Vocabulary: true})
	if err != nil {
		t.Fatal(err)
	}
	want, err := f.VectorizeReader(strings.NewReader(tsv), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for name, in := range map[string]string{"tsv": tsv, "lines": "good fine film\nawful dull film\nfine\tgood\n"} {
		got, err := f.VectorizeReader(strings.NewReader(in), ReadOptions{Documents: true})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got.X.Rows != want.X.Rows || !slices.Equal(got.X.Ind, want.X.Ind) || !slices.Equal(got.X.Val, want.X.Val) || !slices.Equal(got.X.Indptr, want.X.Indptr) {
			t.Errorf("%s: rows differ from the labelled input's", name)
		}
		for _, y := range got.Y {
			if y != 0 {
				t.Errorf("%s: class value %v without labels", name, y)
			}
		}
	}
}
