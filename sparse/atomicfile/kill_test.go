//go:build unix

package atomicfile

import (
	"bufio"
	"bytes"
	"context"
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

// The helper process: TestAtomicWriterKilled and TestAtomicWriterFinishes
// re-run this test binary with only TestHelperAtomicWriter selected and
// these variables set. Without them the helper does nothing.
const (
	atomicHelperPath = "SPARSE_ATOMIC_HELPER_PATH" // file to replace
	atomicHelperMode = "SPARSE_ATOMIC_HELPER_MODE" // "kill" or "finish"
	atomicReady      = "HALF-WRITTEN"              // line the helper prints mid-write
)

// atomicHalf is how much the helper writes before signalling: well past
// Write's 64 KiB buffer, so the partial data really is in the
// temporary file on disk when the helper is killed.
const atomicHalf = 1 << 20

func atomicNewContent(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'a' + byte(i%26)
	}
	return b
}

func TestHelperAtomicWriter(t *testing.T) {
	path := os.Getenv(atomicHelperPath)
	if path == "" {
		return // not the helper process
	}
	mode := os.Getenv(atomicHelperMode)
	err := Write(path, func(w io.Writer) error {
		data := atomicNewContent(2 * atomicHalf)
		if _, err := w.Write(data[:atomicHalf]); err != nil {
			return err
		}
		if mode == "kill" {
			// Push the buffered part to the temporary file, tell the
			// parent, and wait to be killed. If the parent goes away
			// instead (stdin reaches EOF), fail the write.
			if f, ok := w.(interface{ Flush() error }); ok {
				if err := f.Flush(); err != nil {
					return err
				}
			}
			fmt.Println(atomicReady)
			_, _ = io.Copy(io.Discard, os.Stdin)
			return errors.New("helper: parent closed stdin instead of killing")
		}
		_, err := w.Write(data[atomicHalf:])
		return err
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(3)
	}
}

// runAtomicHelper starts the helper on path in mode; the returned command
// has its stdout and stdin connected to the returned pipes.
func runAtomicHelper(t *testing.T, ctx context.Context, path, mode string) (*exec.Cmd, io.Reader, io.WriteCloser, *bytes.Buffer) {
	t.Helper()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHelperAtomicWriter$", "-test.count=1", "-test.timeout=30s")
	cmd.Env = append(os.Environ(), atomicHelperPath+"="+path, atomicHelperMode+"="+mode)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, stdout, stdin, &stderr
}

// atomicTemps lists the entries of dir other than base.
func atomicTemps(t *testing.T, dir, base string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		if e.Name() != base {
			names = append(names, e.Name())
		}
	}
	return names
}

func TestAtomicWriterKilled(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "model.bin")
	old := []byte("old content: must survive a writer killed mid-write\n")
	if err := os.WriteFile(path, old, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd, stdout, stdin, stderr := runAtomicHelper(t, ctx, path, "kill")
	defer stdin.Close()

	// Wait for the helper to be half-way through its write.
	ready := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.TrimSpace(sc.Text()) == atomicReady {
				ready <- nil // the helper writes nothing more
				return
			}
		}
		ready <- fmt.Errorf("helper stdout ended without %q (scan error %v)", atomicReady, sc.Err())
	}()
	select {
	case err := <-ready:
		if err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("%v; stderr:\n%s", err, stderr)
		}
	case <-ctx.Done():
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("helper did not reach the middle of its write; stderr:\n%s", stderr)
	}

	// Mid-write: the partial data is on disk in a temporary file and the
	// old file is still there.
	temps := atomicTemps(t, dir, "model.bin")
	partial := false
	for _, name := range temps {
		if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && fi.Size() >= atomicHalf {
			partial = true
		}
	}
	if !partial {
		t.Errorf("mid-write: no temporary file holding the first %d bytes; directory holds %v", atomicHalf, temps)
	}

	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("helper wait: %v", err)
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("helper ended with %v, want death by SIGKILL; stderr:\n%s", err, stderr)
	}

	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("old file gone after the writer was killed: %v", err)
	}
	if !bytes.Equal(got, old) {
		n := min(len(got), 40)
		t.Fatalf("file replaced by a killed writer: %d bytes, starting %q; want the old %d bytes", len(got), got[:n], len(old))
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("old file mode changed: %v %v", fi, err)
	}
	// A killed process cannot clean up: its temporary file is expected
	// to remain (it is hidden, "."+base+".tmp*", and never renamed).
	left := atomicTemps(t, dir, "model.bin")
	for _, name := range left {
		if !strings.HasPrefix(name, ".model.bin.tmp") {
			t.Errorf("unexpected file %q left in the directory", name)
		}
	}
	t.Logf("temporary files left after SIGKILL (acceptable): %v", left)
}

func TestAtomicWriterFinishes(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "model.bin")
	if err := os.WriteFile(path, []byte("old content\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd, stdout, stdin, stderr := runAtomicHelper(t, ctx, path, "finish")
	stdin.Close()
	io.Copy(io.Discard, stdout)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("helper: %v; stderr:\n%s", err, stderr)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := atomicNewContent(2 * atomicHalf); !bytes.Equal(got, want) {
		t.Fatalf("after a completed write: %d bytes, want the new %d bytes", len(got), len(want))
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("replaced file mode: %v %v, want 0600 kept", fi, err)
	}
	if left := atomicTemps(t, dir, "model.bin"); len(left) != 0 {
		t.Errorf("temporary files left after a completed write: %v", left)
	}
}
