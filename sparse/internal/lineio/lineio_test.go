package lineio

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
	"testing/iotest"
)

func lines(t *testing.T, r *Reader) ([]string, Status) {
	t.Helper()
	var out []string
	for {
		ln, st := r.Next()
		if st != OK {
			return out, st
		}
		out = append(out, string(ln))
	}
}

// TestReader: a BOM is dropped at the start only, '\r' is kept for the
// caller, a last line needs no '\n', tiny buffers and one-byte reads give
// the same lines, Max refuses longer lines without growing past Max+1, and
// a source that never progresses is an error, not a hang.
func TestReader(t *testing.T) {
	in := "\ufeffa b\r\n\nlong line here\n\ufeffkept\nlast"
	want := []string{"a b\r", "", "long line here", "\ufeffkept", "last"}
	for _, size := range []int{0, 4, 5, 64} {
		for _, one := range []bool{false, true} {
			var src io.Reader = strings.NewReader(in)
			if one {
				src = iotest.OneByteReader(src)
			}
			got, st := lines(t, &Reader{Src: src, Size: size})
			if st != EOF || strings.Join(got, "|") != strings.Join(want, "|") {
				t.Fatalf("size %d, one-byte %v: %q, %v", size, one, got, st)
			}
		}
	}
	r := &Reader{Src: strings.NewReader("ok\n" + strings.Repeat("x", 1000) + "\n"), Max: 10}
	got, st := lines(t, r)
	if st != TooLong || len(got) != 1 || r.BufLen() > 11 {
		t.Fatalf("Max 10: %q, %v, buffer %d", got, st, r.BufLen())
	}
	// math.MaxInt asks for no limit: Max+1 must not wrap into a negative
	// buffer size when the first line outgrows the buffer.
	long := strings.Repeat("y", 200<<10)
	r = &Reader{Src: strings.NewReader(long + "\nz\n"), Max: math.MaxInt}
	if got, st := lines(t, r); st != EOF || len(got) != 2 || got[0] != long {
		t.Fatalf("Max = MaxInt: %d lines, %v", len(got), st)
	}
	r = &Reader{Src: iotest.ErrReader(errors.New("boom"))}
	if _, st := r.Next(); st != ReadErr || r.Err == nil {
		t.Fatalf("failing source: %v, %v", st, r.Err)
	}
	r = &Reader{Src: zeroReader{}}
	if _, st := r.Next(); st != ReadErr || !errors.Is(r.Err, io.ErrNoProgress) {
		t.Fatalf("source without progress: %v, %v", st, r.Err)
	}
}

type zeroReader struct{}

func (zeroReader) Read([]byte) (int, error) { return 0, nil }

// TestOpen: gzip input is decompressed, anything else passes through,
// and a truncated gzip header is an error.
func TestOpen(t *testing.T) {
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte("hello\n"))
	zw.Close()
	for in, want := range map[string]string{z.String(): "hello\n", "plain\n": "plain\n", "": ""} {
		r, err := Open(strings.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(r)
		if err != nil || string(b) != want {
			t.Fatalf("%q: %q, %v", in, b, err)
		}
	}
	if _, err := Open(strings.NewReader("\x1f\x8b")); err == nil {
		t.Fatal("a truncated gzip header opened without error")
	}
}

// TestReaderOpen: with Open set, the first Next decompresses a gzip
// source, passes a plain one through, and reports a bad gzip header as a
// ReadErr with Open's error.
func TestReaderOpen(t *testing.T) {
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte("\xef\xbb\xbfa\nb"))
	zw.Close()
	for _, in := range []string{z.String(), "\xef\xbb\xbfa\nb"} {
		got, st := lines(t, &Reader{Src: strings.NewReader(in), Open: true})
		if st != EOF || strings.Join(got, "|") != "a|b" {
			t.Errorf("%q: lines %q, status %v; want [a b] and EOF", in, got, st)
		}
	}
	r := &Reader{Src: strings.NewReader("\x1f\x8b"), Open: true}
	if _, st := r.Next(); st != ReadErr || r.Err == nil {
		t.Errorf("truncated gzip header: status %v, Err %v; want ReadErr and an error", st, r.Err)
	}
	if _, st := (&Reader{Src: strings.NewReader("\x1f\x8b")}).Next(); st != OK {
		t.Errorf("without Open the gzip magic is a line: status %v", st)
	}
}

// TestReaderErrorMidLine: a source that fails in the middle of a line
// gives ReadErr and its error, never the part of the line read before it
// as a line (bufio.Scanner hands such a part back as a last token, which
// a reader then parses as a truncated line), gzip too.
func TestReaderErrorMidLine(t *testing.T) {
	boom := errors.New("cancelled")
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte("first\nsecond line is long\n"))
	zw.Close()
	for name, src := range map[string]io.Reader{
		"plain": io.MultiReader(strings.NewReader("first\nsecond li"), iotest.ErrReader(boom)),
		"gzip":  io.MultiReader(bytes.NewReader(z.Bytes()[:z.Len()-12]), iotest.ErrReader(boom)),
	} {
		r := &Reader{Src: src, Size: 4, Open: true}
		got, st := lines(t, r)
		if st != ReadErr || !errors.Is(r.Err, boom) || len(got) > 1 || len(got) == 1 && got[0] != "first" {
			t.Errorf("%s: lines %q, status %v, error %v; want at most \"first\", then ReadErr", name, got, st, r.Err)
		}
	}
}
