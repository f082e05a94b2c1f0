package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A text file is opened again for FitCache's second pass, from its start
// and as it was; standard input is not.
func TestRereaderOpensTheFileAgain(t *testing.T) {
	env := &Env{Stdin: strings.NewReader("pos\tgood\n"), Stdout: io.Discard, Stderr: io.Discard}
	if rereader(context.Background(), env, "-") != nil {
		t.Error("standard input would be read again")
	}
	if rereader(context.Background(), env, os.DevNull) != nil {
		t.Error("a device would be read again")
	}
	path := filepath.Join(t.TempDir(), "in.tsv")
	want := []byte("pos\tgood film\nneg\tbad film\n")
	if err := os.WriteFile(path, want, 0o644); err != nil {
		t.Fatal(err)
	}
	open := rereader(context.Background(), env, path)
	if open == nil {
		t.Fatal("a regular file is not read again")
	}
	for range 2 {
		r, err := open()
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		r.Close()
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("read again: %q, %v", got, err)
		}
	}
}
