//go:build unix

package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// appendTarget makes a file holding earlier lines and opens it for
// appending, as a shell's >> does; it returns the file, its path and its
// inode.
func appendTarget(t *testing.T, dir string) (*os.File, string, uint64) {
	t.Helper()
	path := filepath.Join(dir, "log.txt")
	if err := os.WriteFile(path, []byte("earlier line 1\nearlier line 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f, path, inode(t, path)
}

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

// checkAppended checks that path still holds its earlier lines, then
// want, and is the same file (inode) as before.
func checkAppended(t *testing.T, path string, ino uint64, want string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "earlier line 1\nearlier line 2\n"+want {
		t.Errorf("%s holds %q, want the earlier lines and then %q", path, got, want)
	}
	if inode(t, path) != ino {
		t.Errorf("%s was replaced by another file (new inode)", path)
	}
}

// TestDescriptorNames: a name of one of this process's descriptors
// (/dev/fd/N, /proc/self/fd/N, /proc/PID/fd/N, a link to one), whose file
// was opened for appending, is written through that descriptor: the
// file's earlier lines stay and it remains the same file (the name used
// to be resolved to the file behind the descriptor, and a temporary file
// renamed over it).
func TestDescriptorNames(t *testing.T) {
	dir := t.TempDir()
	f, path, ino := appendTarget(t, dir)
	fd := int(f.Fd())
	link := filepath.Join(dir, "out")
	if err := os.Symlink(fmt.Sprintf("/dev/fd/%d", fd), link); err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for _, name := range []string{
		fmt.Sprintf("/dev/fd/%d", fd),
		fmt.Sprintf("/proc/self/fd/%d", fd),
		fmt.Sprintf("/proc/%d/fd/%d", os.Getpid(), fd),
		fmt.Sprintf("/proc/thread-self/fd/%d", fd),
		link,
	} {
		if _, err := os.Stat(name); err != nil {
			continue // no /proc here
		}
		line := "written to " + name + "\n"
		if err := Write(name, func(w io.Writer) error { _, err := io.WriteString(w, line); return err }); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want.WriteString(line)
	}
	if want.Len() == 0 {
		t.Fatal("no descriptor name could be tried")
	}
	checkAppended(t, path, ino, want.String())
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link %s is gone: %v", link, err)
	}
	if names := dirNames(t, dir); len(names) != 2 {
		t.Errorf("directory holds %v, want the file and the link only", names)
	}
	// The descriptor stays open for the caller.
	if _, err := f.WriteString("after\n"); err != nil {
		t.Fatalf("the descriptor was closed: %v", err)
	}
}

// TestDescriptorNotWritable: a descriptor open for reading only, or not
// open at all, is refused up front with ErrNotWritable, its file left as
// it was.
func TestDescriptorNotWritable(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "in.txt")
	if err := os.WriteFile(path, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := Create(fmt.Sprintf("/dev/fd/%d", f.Fd())); !errors.Is(err, ErrNotWritable) {
		t.Errorf("a read-only descriptor: error %v, want ErrNotWritable", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "keep\n" {
		t.Errorf("the file behind it holds %q", got)
	}
	if err := Write(dir, func(io.Writer) error { return nil }); !errors.Is(err, ErrNotWritable) {
		t.Errorf("a directory: error %v, want ErrNotWritable", err)
	}
}

// TestDevNull: /dev/null is written to, not replaced (it used to be
// refused as not a regular file), and keeps its mode.
func TestDevNull(t *testing.T) {
	before, err := os.Stat(os.DevNull)
	if err != nil {
		t.Skip("no", os.DevNull)
	}
	p, err := Create(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Cleanup()
	if !p.Stream() {
		t.Error("/dev/null is not written as a stream")
	}
	if _, err := p.Write(bytes.Repeat([]byte("x"), 200000)); err != nil {
		t.Fatal(err)
	}
	if err := p.CloseAtomicallyReplace(); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(os.DevNull)
	if err != nil || after.Mode() != before.Mode() || after.Mode()&os.ModeCharDevice == 0 {
		t.Errorf("%s after the write: %v %v, before: %v", os.DevNull, after.Mode(), err, before.Mode())
	}
}

// TestFIFO: a FIFO is written as a stream that its reader reads whole,
// and remains a FIFO; a File created and abandoned never opens it (it
// would wait for a reader); one closed with nothing written gives its
// reader an end of file.
func TestFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "p")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	read := func() <-chan []byte {
		c := make(chan []byte, 1)
		go func() {
			b, err := os.ReadFile(fifo)
			if err != nil {
				b = []byte(err.Error())
			}
			c <- b
		}()
		return c
	}
	wait := func(c <-chan []byte) []byte {
		select {
		case b := <-c:
			return b
		case <-time.After(time.Minute):
			t.Fatal("the FIFO's reader saw no end of file")
			return nil
		}
	}
	// Abandoned: returns at once, without a reader.
	p, err := Create(fifo)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Cleanup(); err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("0123456789\n"), 30000) // past the pipe's and the File's buffers
	c := read()
	if err := Write(fifo, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
		t.Fatal(err)
	}
	if got := wait(c); !bytes.Equal(got, data) {
		t.Errorf("the reader got %d bytes, want %d", len(got), len(data))
	}
	c = read()
	if err := Write(fifo, func(io.Writer) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if got := wait(c); len(got) != 0 {
		t.Errorf("the reader of an empty write got %q", got)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("%s is no longer a FIFO: %v", fifo, err)
	}
	if names := dirNames(t, dir); len(names) != 1 {
		t.Errorf("directory holds %v, want the FIFO only", names)
	}
}

// TestReplaceTogetherStream: a stream among the files of ReplaceTogether
// is written, and the regular files replaced.
func TestReplaceTogetherStream(t *testing.T) {
	dir := t.TempDir()
	f, path, ino := appendTarget(t, dir)
	s, err := Create(fmt.Sprintf("/dev/fd/%d", f.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	reg := filepath.Join(dir, "model")
	r, err := Create(reg)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(s, "stream\n")
	io.WriteString(r, "regular\n")
	if err := ReplaceTogether(s, r); err != nil {
		t.Fatal(err)
	}
	checkAppended(t, path, ino, "stream\n")
	if got, _ := os.ReadFile(reg); string(got) != "regular\n" {
		t.Errorf("%s holds %q", reg, got)
	}
}

// stdoutHelper, when set, makes TestHelperStdout write its value to the
// name it holds (after a newline) and exit.
const stdoutHelper = "SPARSE_ATOMIC_STDOUT_HELPER"

func TestHelperStdout(t *testing.T) {
	v := os.Getenv(stdoutHelper)
	if v == "" {
		return
	}
	name, text, _ := strings.Cut(v, "\n")
	if err := Write(name, func(w io.Writer) error { _, err := io.WriteString(w, text); return err }); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// TestStdoutAppended: a process whose standard output is a file opened
// for appending (cmd >> log) and that writes to /dev/stdout or
// /proc/self/fd/1 appends to that file: the earlier lines stay, the file
// is the same. Before, the file was replaced by the new output alone.
func TestStdoutAppended(t *testing.T) {
	dir := t.TempDir()
	f, path, ino := appendTarget(t, dir)
	var want string
	for _, name := range []string{"/dev/stdout", "/proc/self/fd/1", "/dev/fd/1"} {
		if _, err := os.Stat(name); err != nil {
			continue
		}
		line := "through " + name + "\n"
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperStdout$", "-test.count=1")
		cmd.Env = append(os.Environ(), stdoutHelper+"="+name+"\n"+line)
		cmd.Stdout = f
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, stderr.String())
		}
		want += line
	}
	if want == "" {
		t.Skip("no /dev/stdout here")
	}
	checkAppended(t, path, ino, want)
}
