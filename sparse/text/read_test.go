package text

import (
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
	"github.com/klauspost/compress/gzip"
)

func gz(t testing.TB, s string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// readAll reads input with Read and with a Scanner, checks that both give
// the same documents or the same error, and returns them.
func readAll(t *testing.T, input []byte, opt ReadOptions) ([]Doc, error) {
	t.Helper()
	c, err := Read(bytes.NewReader(input), opt)
	sc := NewScanner(iotest.OneByteReader(bytes.NewReader(input)), opt)
	var docs []Doc
	for sc.Scan() {
		docs = append(docs, sc.Doc())
	}
	if (err == nil) != (sc.Err() == nil) || err != nil && err.Error() != sc.Err().Error() {
		t.Fatalf("Read error %v, Scanner error %v", err, sc.Err())
	}
	if err != nil {
		return nil, err
	}
	if !slices.Equal(c.Docs, docs) {
		t.Fatalf("Read gives %q, Scanner gives %q", c.Docs, docs)
	}
	if c.Name != opt.Name {
		t.Fatalf("corpus name %q, want %q", c.Name, opt.Name)
	}
	return docs, nil
}

func TestRead(t *testing.T) {
	const bomStr = "\xef\xbb\xbf"
	tests := []struct {
		name  string
		input string
		opt   ReadOptions
		want  []Doc
	}{
		{"empty", "", ReadOptions{}, nil},
		{"blank lines only", "\n \n\t\r\n", ReadOptions{}, nil},
		{"jsonl", "{\"label\":\"pos\",\"text\":\"good\"}\n{\"label\":\"neg\",\"text\":\"bad\"}\n", ReadOptions{},
			[]Doc{{"pos", "good", 1}, {"neg", "bad", 2}}},
		{"jsonl no final newline", "{\"label\":\"pos\",\"text\":\"good\"}", ReadOptions{}, []Doc{{"pos", "good", 1}}},
		{"jsonl CRLF", "{\"label\":\"pos\",\"text\":\"good\"}\r\n{\"label\":\"neg\",\"text\":\"bad\"}\r\n", ReadOptions{},
			[]Doc{{"pos", "good", 1}, {"neg", "bad", 2}}},
		{"jsonl BOM", bomStr + "{\"label\":\"pos\",\"text\":\"good\"}\n", ReadOptions{}, []Doc{{"pos", "good", 1}}},
		{"jsonl blank lines counted", "\n\n  {\"label\":\"pos\",\"text\":\"good\"}\n\n{\"label\":\"neg\",\"text\":\"\"}\n\n", ReadOptions{},
			[]Doc{{"pos", "good", 3}, {"neg", "", 5}}},
		{"jsonl numeric labels", "{\"label\":1,\"text\":\"a\"}\n{\"label\":-1.5,\"text\":\"b\"}\n", ReadOptions{},
			[]Doc{{"1", "a", 1}, {"-1.5", "b", 2}}},
		{"jsonl other fields", `{"label":"a","text":"b","id":3,"meta":{"x":[1,{"y":null}]}}`, ReadOptions{}, []Doc{{"a", "b", 1}}},
		{"jsonl escapes", `{"label":"a","text":"line1\nline2 \u00c9t\u00e9 \ud83d\ude00"}`, ReadOptions{}, []Doc{{"a", "line1\nline2 Été 😀", 1}}},
		{"jsonl custom fields", `{"y":"spam","body":"win","text":7,"label":[]}`, ReadOptions{LabelField: "y", TextField: "body"}, []Doc{{"spam", "win", 1}}},
		{"jsonl explicit", `{"label":"a","text":"b"}`, ReadOptions{Format: JSONL}, []Doc{{"a", "b", 1}}},
		{"tsv", "pos\tgood movie\nneg\tbad\tmovie\n", ReadOptions{}, []Doc{{"pos", "good movie", 1}, {"neg", "bad\tmovie", 2}}},
		{"tsv CRLF", "pos\tgood\r\nneg\tbad\r\n", ReadOptions{}, []Doc{{"pos", "good", 1}, {"neg", "bad", 2}}},
		{"tsv BOM", bomStr + "pos\tgood\n", ReadOptions{}, []Doc{{"pos", "good", 1}}},
		{"tsv spaces around label", " pos \tgood\n", ReadOptions{}, []Doc{{"pos", "good", 1}}},
		{"tsv empty text", "pos\t\n", ReadOptions{}, []Doc{{"pos", "", 1}}},
		{"tsv blank lines", "\n\npos\tgood\n\n", ReadOptions{}, []Doc{{"pos", "good", 3}}},
		{"tsv text with braces", "1\t{not json}\n", ReadOptions{}, []Doc{{"1", "{not json}", 1}}},
		{"tsv explicit although it looks like JSON", "{x\ty\n", ReadOptions{Format: TSV}, []Doc{{"{x", "y", 1}}},
		{"tsv invalid UTF-8 kept", "a\tb\xffc\n", ReadOptions{}, []Doc{{"a", "b\xffc", 1}}},
		{"named", "a\tb\n", ReadOptions{Name: "in.tsv"}, []Doc{{"a", "b", 1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, compress := range []bool{false, true} {
				input := []byte(tc.input)
				if compress {
					input = gz(t, tc.input)
				}
				docs, err := readAll(t, input, tc.opt)
				if err != nil {
					t.Fatalf("gzip %v: %v", compress, err)
				}
				if !slices.Equal(docs, tc.want) {
					t.Errorf("gzip %v: got %q, want %q", compress, docs, tc.want)
				}
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name       string
		input      string
		opt        ReadOptions
		err        error
		line, col  int
		msgContain string
	}{
		{"jsonl syntax", "{\"label\":\"a\",\"text\":\"b\"}\n{\"label\":\"a\" \"text\":\"b\"}\n", ReadOptions{}, ErrSyntax, 2, 14, "expected ','"},
		{"jsonl syntax after blank lines", "\n\n{\"label\":\"a\",\"text\":\"b\",}\n", ReadOptions{}, ErrSyntax, 3, 25, "string key"},
		{"jsonl not json on line 2", "{\"label\":\"a\",\"text\":\"b\"}\npos\tgood\n", ReadOptions{}, ErrSyntax, 2, 1, "'{'"},
		{"jsonl missing text", `{"label":"a"}`, ReadOptions{}, ErrMissingField, 1, 1, `no text field "text"`},
		{"jsonl missing custom label", `{"label":"a","text":"b"}`, ReadOptions{LabelField: "y"}, ErrMissingField, 1, 1, `no label field "y"`},
		{"jsonl empty label", `{"text":"b", "label":""}`, ReadOptions{}, ErrLabel, 1, 22, "empty label"},
		{"jsonl null label", `{"label":null,"text":"b"}`, ReadOptions{}, ErrFieldType, 1, 10, "string or a number"},
		{"jsonl CRLF error column", "{\"label\":1,\"text\":2}\r\n", ReadOptions{}, ErrFieldType, 1, 19, "must be a string"},
		{"jsonl BOM error column", "\xef\xbb\xbf{\"label\":1,\"text\":2}\n", ReadOptions{}, ErrFieldType, 1, 19, "must be a string"},
		{"tsv no tab", "pos\tgood\nno tab here\n", ReadOptions{}, ErrMissingField, 2, 1, "no tab"},
		{"tsv empty label", "\tgood\n", ReadOptions{}, ErrLabel, 1, 1, "empty label"},
		{"tsv spaces label", "  \tgood\n", ReadOptions{}, ErrLabel, 1, 3, "empty label"},
		{"tsv NUL", "a\tb\x00c\n", ReadOptions{}, ErrSyntax, 1, 4, "NUL"},
		{"binary as tsv", "\x01\x02\x00\x03", ReadOptions{}, ErrSyntax, 1, 3, "NUL"},
		{"line too long", "a\tb\n" + "a\t" + strings.Repeat("x", 30) + "\n", ReadOptions{MaxLineBytes: 31}, ErrLineTooLong, 2, 32, "longer than 31 bytes"},
		{"last line too long", "a\t" + strings.Repeat("x", 30), ReadOptions{MaxLineBytes: 16}, ErrLineTooLong, 1, 17, "longer than 16"},
		{"too long with CR", "a\t" + strings.Repeat("x", 14) + "\r\n", ReadOptions{MaxLineBytes: 16}, ErrLineTooLong, 1, 17, "longer than 16"},
		{"named", "x\n", ReadOptions{Name: "data.tsv"}, ErrMissingField, 1, 1, "data.tsv:1:1: no tab"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, compress := range []bool{false, true} {
				input := []byte(tc.input)
				if compress {
					input = gz(t, tc.input)
				}
				_, err := readAll(t, input, tc.opt)
				var pe *sparse.ParseError
				if !errors.As(err, &pe) {
					t.Fatalf("gzip %v: error %v, want a *sparse.ParseError", compress, err)
				}
				if !errors.Is(err, tc.err) || pe.Line != tc.line || pe.Col != tc.col || pe.File != tc.opt.Name {
					t.Errorf("gzip %v: %v (%s:%d:%d), want %v at %s:%d:%d", compress, err, pe.File, pe.Line, pe.Col, tc.err, tc.opt.Name, tc.line, tc.col)
				}
				if !strings.Contains(err.Error(), tc.msgContain) {
					t.Errorf("error %q does not contain %q", err, tc.msgContain)
				}
			}
		})
	}
}

func TestReadLineLimitBoundary(t *testing.T) {
	line := "a\t" + strings.Repeat("x", 14) // 16 bytes
	for _, tail := range []string{"", "\n", "\r"} {
		max := len(line + tail)
		docs, err := readAll(t, []byte(line+tail+"\n"+line+tail), ReadOptions{MaxLineBytes: max})
		if err != nil || len(docs) != 2 {
			t.Errorf("tail %q, lines of exactly MaxLineBytes = %d: %d docs, %v", tail, max, len(docs), err)
		}
	}
	// The scanner's buffer stays within the limit even for a huge line.
	sc := NewScanner(strings.NewReader("a\t"+strings.Repeat("x", 1<<20)+"\n"), ReadOptions{MaxLineBytes: 100})
	if sc.Scan() || !errors.Is(sc.Err(), ErrLineTooLong) {
		t.Fatalf("Scan: %v", sc.Err())
	}
	if n := sc.lr.BufLen(); n > 101 {
		t.Errorf("buffer grew to %d bytes for MaxLineBytes 100", n)
	}
	// Long lines within the default limit are fine.
	long := strings.Repeat("word ", 100000)
	docs, err := readAll(t, []byte(`{"label":"a","text":"`+long+`"}`+"\n"), ReadOptions{})
	if err != nil || len(docs) != 1 || docs[0].Text != long {
		t.Errorf("long line: %v", err)
	}
}

func TestReadGzipErrors(t *testing.T) {
	full := gz(t, strings.Repeat("{\"label\":\"a\",\"text\":\"some text\"}\n", 2000))
	for _, n := range []int{2, 10, len(full) / 2, len(full) - 4} {
		_, err := Read(bytes.NewReader(full[:n]), ReadOptions{Name: "t.gz"})
		var pe *sparse.ParseError
		if err == nil || errors.As(err, &pe) || !strings.Contains(err.Error(), "t.gz") {
			t.Errorf("gzip truncated to %d of %d bytes: error %v, want a read error naming the input", n, len(full), err)
		}
		if n > 10 && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("truncated gzip: %v, want io.ErrUnexpectedEOF", err)
		}
	}
	// Gzip magic followed by garbage.
	if _, err := Read(bytes.NewReader([]byte("\x1f\x8bgarbage")), ReadOptions{}); err == nil {
		t.Error("gzip magic with garbage accepted")
	}
}

func TestReadIOError(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader("a\tb\n"), iotest.ErrReader(boom))
	sc := NewScanner(r, ReadOptions{})
	n := 0
	for sc.Scan() {
		n++
	}
	if n != 1 || !errors.Is(sc.Err(), boom) {
		t.Errorf("%d docs, error %v; want 1 doc then boom", n, sc.Err())
	}
	if sc.Scan() {
		t.Error("Scan after an error returned true")
	}
}

func TestReadOptionsInvalid(t *testing.T) {
	for _, opt := range []ReadOptions{
		{Format: 7},
		{MaxLineBytes: -1},
		{LabelField: "text"},
		{TextField: "label"},
		{LabelField: "x", TextField: "x"},
	} {
		if _, err := Read(strings.NewReader("a\tb\n"), opt); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: error %v, want ErrConfig", opt, err)
		}
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "docs.jsonl.gz")
	if err := os.WriteFile(path, gz(t, "{\"label\":\"a\",\"text\":\"b\"}\n{\"label\":\"a\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile(path, ReadOptions{})
	var pe *sparse.ParseError
	if !errors.As(err, &pe) || pe.File != path || pe.Line != 2 {
		t.Errorf("error %v, want a ParseError naming %s line 2", err, path)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing"), ReadOptions{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestFormatString(t *testing.T) {
	for f, want := range map[Format]string{Auto: "auto", JSONL: "jsonl", TSV: "tsv", 9: "Format(9)"} {
		if got := f.String(); got != want {
			t.Errorf("Format(%d).String() = %q, want %q", f, got, want)
		}
	}
}
