package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

type failWriter struct {
	w    io.Writer
	left int
}

var errInjected = errors.New("injected write failure")

func (f *failWriter) Write(p []byte) (int, error) {
	if len(p) > f.left {
		n, _ := f.w.Write(p[:f.left])
		f.left = 0
		return n, errInjected
	}
	f.left -= len(p)
	return f.w.Write(p)
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// TestWriteFailure: a write failing midway, in the write function or in
// the file underneath, leaves the old file untouched and no temporary file
// behind; a file replaced keeps its mode; a missing directory and a
// directory in the way are refused.
func TestWriteFailure(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "data")
	old := bytes.Repeat([]byte("old data\n"), 5000)
	if err := os.WriteFile(path, old, 0o600); err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("new data\n"), 50000)
	testWrapFile = func(w io.Writer) io.Writer { return &failWriter{w, 10000} }
	err := Write(path, func(w io.Writer) error { _, err := w.Write(big); return err })
	testWrapFile = nil
	if !errors.Is(err, errInjected) {
		t.Fatalf("error %v, want the injected failure", err)
	}
	errFn := errors.New("the data could not be made")
	if err := Write(path, func(w io.Writer) error { w.Write(big[:70000]); return errFn }); !errors.Is(err, errFn) {
		t.Fatalf("error %v, want the write function's", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(old, after) {
		t.Error("old file changed by a failed write")
	}
	if names := dirNames(t, dir); len(names) != 1 {
		t.Errorf("directory holds %v, want the data file only", names)
	}
	if err := Write(path, func(w io.Writer) error { _, err := w.Write(big); return err }); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(big, after) {
		t.Error("the replaced file does not hold what was written")
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode after replace: %v %v", fi.Mode(), err)
	}
	nop := func(io.Writer) error { return nil }
	if err := Write(filepath.Join(dir, "missing", "x"), nop); err == nil {
		t.Error("write into a missing directory succeeded")
	}
	if err := Write(dir, nop); err == nil {
		t.Error("write over a directory succeeded")
	}
}

// TestWritePanicAndSymlink: a write that panics leaves no
// temporary file behind (and the old file as it was); a path that is a
// symbolic link has the file it points to replaced, the link kept.
func TestWritePanicAndSymlink(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.bin")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() { _ = recover() }()
		_ = Write(path, func(w io.Writer) error {
			w.Write([]byte("partial"))
			panic("writer blew up")
		})
	}()
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("after a panicking write the directory holds %d entries", len(entries))
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("the old file became %q", b)
	}

	target := filepath.Join(dir, "versions", "v1.bin")
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, []byte("v1"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "current.bin")
	if err := os.Symlink(filepath.Join("versions", "v1.bin"), link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := Write(link, func(w io.Writer) error { _, err := w.Write([]byte("v2")); return err }); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced by a file (%v)", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "v2" {
		t.Fatalf("the link's target holds %q, want v2", b)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o600 {
		t.Fatalf("the target's mode became %v", fi.Mode().Perm())
	}
}

// TestFile: a pending file is checked when it is created (an empty
// name, a missing directory, a directory in the way), leaves no trace when
// cleaned up, and replaces its target when committed.
func TestFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := Create(""); !errors.Is(err, ErrEmptyName) {
		t.Errorf("empty name: %v, want ErrEmptyName", err)
	}
	for _, bad := range []string{filepath.Join(dir, "missing", "x"), dir, dir + "/"} {
		if p, err := Create(bad); err == nil {
			p.Cleanup()
			t.Errorf("%s: created", bad)
		}
	}
	path := filepath.Join(dir, "out")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if names := dirNames(t, dir); len(names) != 2 {
		t.Errorf("while pending the directory holds %v, want the target and a temporary file", names)
	}
	p.Write([]byte("abandoned"))
	if err := p.Cleanup(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" || len(dirNames(t, dir)) != 1 {
		t.Fatalf("after Cleanup: %q, directory %v", b, dirNames(t, dir))
	}
	if _, err := p.Write([]byte("x")); err == nil {
		t.Error("write after Cleanup succeeded")
	}
	p, err = Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Cleanup() // a no-op once replaced
	p.Write([]byte("new"))
	if err := p.CloseAtomicallyReplace(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" || len(dirNames(t, dir)) != 1 {
		t.Fatalf("after replace: %q, directory %v", b, dirNames(t, dir))
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600 kept", fi.Mode().Perm())
	}
}

// TestReplaceTogether: two files replace their targets together or not at
// all: when the second rename fails, the first target is put back as it
// was (or removed, if it did not exist), and no temporary file is left.
func TestReplaceTogether(t *testing.T) {
	for _, firstExists := range []bool{true, false} {
		t.Run(fmt.Sprintf("firstExists=%v", firstExists), func(t *testing.T) {
			for failAt := 0; failAt <= 2; failAt++ {
				dir := t.TempDir()
				a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
				if firstExists {
					if err := os.WriteFile(a, []byte("A0"), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				if err := os.WriteFile(b, []byte("B0"), 0o644); err != nil {
					t.Fatal(err)
				}
				pa, err := Create(a)
				if err != nil {
					t.Fatal(err)
				}
				pb, err := Create(b)
				if err != nil {
					t.Fatal(err)
				}
				pa.Write([]byte("A1"))
				pb.Write([]byte("B1"))
				n := 0
				renameHook = func(from, to string) error {
					if n++; n == failAt {
						return errInjected
					}
					return os.Rename(from, to)
				}
				err = ReplaceTogether(pa, pb)
				renameHook = os.Rename
				wantA, wantB := "A1", "B1"
				if failAt > 0 {
					if !errors.Is(err, errInjected) {
						t.Fatalf("rename %d fails: error %v", failAt, err)
					}
					wantA, wantB = "A0", "B0"
				} else if err != nil {
					t.Fatal(err)
				}
				gotA, errA := os.ReadFile(a)
				if !firstExists && failAt > 0 {
					if !errors.Is(errA, os.ErrNotExist) {
						t.Errorf("first exists %v, rename %d fails: a new first target stays (%q, %v)", firstExists, failAt, gotA, errA)
					}
				} else if string(gotA) != wantA {
					t.Errorf("first exists %v, rename %d fails: first target %q, want %q", firstExists, failAt, gotA, wantA)
				}
				if gotB, _ := os.ReadFile(b); string(gotB) != wantB {
					t.Errorf("first exists %v, rename %d fails: second target %q, want %q", firstExists, failAt, gotB, wantB)
				}
				want := 2
				if !firstExists && failAt > 0 {
					want = 1
				}
				if names := dirNames(t, dir); len(names) != want {
					t.Errorf("first exists %v, rename %d fails: directory holds %v", firstExists, failAt, names)
				}
			}
		})
	}
}

// TestSameFile: one file under other names (a hard link, a symbolic link,
// a relative spelling) is the same file, as is one path not made yet;
// two files are not.
func TestSameFile(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	hard, soft := filepath.Join(dir, "hard"), filepath.Join(dir, "soft")
	if err := os.Link(a, hard); err != nil {
		t.Skip("no hard links here:", err)
	}
	if err := os.Symlink("a", soft); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		x, y string
		want bool
	}{
		{a, a, true},
		{a, hard, true},
		{a, soft, true},
		{a, filepath.Join(sub, "..", "a"), true},
		{filepath.Join(dir, "new"), filepath.Join(sub, "..", "new"), true},
		{a, b, false},
		{a, filepath.Join(dir, "new"), false},
	} {
		if got := SameFile(c.x, c.y); got != c.want {
			t.Errorf("SameFile(%s, %s) = %v, want %v", c.x, c.y, got, c.want)
		}
	}
}
