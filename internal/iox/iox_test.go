package iox

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReaderStopsWhenTheContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r := Reader(ctx, strings.NewReader("abcdef"))
	buf := make([]byte, 3)
	if n, err := r.Read(buf); n != 3 || err != nil || string(buf) != "abc" {
		t.Fatalf("first read: %d %v %q", n, err, buf)
	}
	cancel()
	if n, err := r.Read(buf); n != 0 || !errors.Is(err, context.Canceled) {
		t.Fatalf("read after cancel: %d %v, want 0 and context.Canceled", n, err)
	}
}

func TestWriterStopsWhenTheContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var b bytes.Buffer
	w := Writer(ctx, &b)
	if _, err := io.WriteString(w, "abc"); err != nil {
		t.Fatal(err)
	}
	cancel()
	if n, err := io.WriteString(w, "def"); n != 0 || !errors.Is(err, context.Canceled) {
		t.Fatalf("write after cancel: %d %v, want 0 and context.Canceled", n, err)
	}
	if b.String() != "abc" {
		t.Fatalf("wrote %q, want %q", b.String(), "abc")
	}
}

func TestCounters(t *testing.T) {
	cr := &CountReader{R: strings.NewReader(strings.Repeat("x", 10000))}
	var b bytes.Buffer
	cw := &CountWriter{W: &b}
	n, err := io.Copy(cw, cr)
	if err != nil || n != 10000 || cr.N != 10000 || cw.N != 10000 || b.Len() != 10000 {
		t.Fatalf("copied %d (%v); counted %d read, %d written", n, err, cr.N, cw.N)
	}
}

func TestIsTerminalAndIsFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	other := filepath.Join(dir, "g")
	if err := os.WriteFile(other, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	if IsTerminal(f) || IsTerminal(pw) || IsTerminal(&bytes.Buffer{}) {
		t.Error("a file, a pipe or a buffer taken for a terminal")
	}
	if null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0); err == nil {
		defer null.Close()
		if !IsTerminal(null) {
			t.Errorf("%s is a character device, and was not taken for one", os.DevNull)
		}
	}
	if !IsFile(f, path) {
		t.Error("a file is not the file its path names")
	}
	if !IsFile(f, filepath.Join(dir, ".", "f")) {
		t.Error("another name of the same file is not it")
	}
	for _, p := range []string{other, filepath.Join(dir, "missing"), "-"} {
		if IsFile(f, p) {
			t.Errorf("%s taken for the file", p)
		}
	}
	if IsFile(&bytes.Buffer{}, path) {
		t.Error("a buffer taken for a file")
	}
}
