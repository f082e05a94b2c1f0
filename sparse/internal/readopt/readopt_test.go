package readopt

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestReadFile: the file's bytes reach read, an empty name becomes the
// path and a given one is kept, and a missing file is the open error.
func TestReadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "in.txt")
	if err := os.WriteFile(path, []byte("1 1:2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, given := range []string{"", "mine"} {
		name := given
		got, err := ReadFile(path, &name, func(r io.Reader) (string, error) {
			b, err := io.ReadAll(r)
			return name + "|" + string(b), err
		})
		want := given
		if want == "" {
			want = path
		}
		if err != nil || got != want+"|1 1:2\n" {
			t.Errorf("name %q: ReadFile = %q, %v; want %q", given, got, err, want+"|1 1:2\n")
		}
	}
	name := ""
	called := false
	_, err := ReadFile(filepath.Join(t.TempDir(), "missing"), &name, func(io.Reader) (int, error) {
		called = true
		return 0, nil
	})
	if !errors.Is(err, fs.ErrNotExist) || called {
		t.Errorf("missing file: err %v, read called %v; want fs.ErrNotExist and no call", err, called)
	}
}
