package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hyperplane-ml/hyperplane/engine"
)

// onLine is a standard error that runs f, once, when a line holding
// trigger is written, before the writer returns: so in the middle of
// training, at the moment the progress line is printed.
type onLine struct {
	buf     bytes.Buffer
	trigger string
	f       func()
	done    bool
}

func (w *onLine) Write(p []byte) (int, error) {
	w.buf.Write(p)
	if !w.done && strings.Contains(w.buf.String(), w.trigger) {
		w.done = true
		w.f()
	}
	return len(p), nil
}

// rewriteCacheBad rewrites the cache at path in place, same size: in
// every block, row 0's last index becomes one far beyond the columns,
// and the block's checksums are recomputed so that it verifies.
func rewriteCacheBad(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	castagnoli := crc32.MakeTable(crc32.Castagnoli)
	footer := int(le.Uint64(b[len(b)-24:]))
	for off := 16; off < footer; {
		h := b[off : off+40]
		rows, n := int(le.Uint32(h[8:])), int(le.Uint64(h[24:]))
		payload := b[off+40 : off+40+n]
		p := 8 * rows
		if le.Uint32(h[4:])&1 != 0 {
			p += 8 * rows
		}
		if end := int(le.Uint64(payload[p+8:])); end > 0 {
			le.PutUint32(payload[p+8*(rows+1)+4*(end-1):], 1<<20)
		}
		le.PutUint32(h[32:], crc32.Checksum(payload, castagnoli))
		le.PutUint32(h[36:], crc32.Checksum(h[:36], castagnoli))
		off += 40 + n
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(b, 0); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestTrainStreamFileChanged: train -stream on a cache that another
// process rewrites in place after epoch 1 (same size, every block still
// verifying, an index beyond the columns) fails with an error naming the
// file, exit 1, and with -o saves the model so far and says it is
// partial. It used to panic in a SIMD kernel (exit 2), the model lost.
func TestTrainStreamFileChanged(t *testing.T) {
	dir := t.TempDir()
	data, cache := filepath.Join(dir, "d.svm"), filepath.Join(dir, "d.hpc")
	if code, _, errOut := runCmd("gen", "-rows", "2000", "-dim", "2000", "-noise", "0.3", data); code != 0 {
		t.Fatal(errOut)
	}
	for _, withOut := range []bool{true, false} {
		if code, _, errOut := runCmd("convert", data, cache); code != 0 {
			t.Fatal(errOut)
		}
		// A file made long ago, as caches are: the rewrite then moves
		// its time, whatever the clock's granularity.
		old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
		if err := os.Chtimes(cache, old, old); err != nil {
			t.Fatal(err)
		}
		model := filepath.Join(dir, "m.hpm")
		os.Remove(model)
		args := []string{"train", "-stream", "-v", "-epochs", "50", cache}
		if withOut {
			args = append(args, "-o", model)
		}
		stderr := &onLine{trigger: "epoch 1:", f: func() { rewriteCacheBad(t, cache) }}
		code := runEnv(context.Background(), &Env{Stdout: new(bytes.Buffer), Stderr: stderr}, args)
		errOut := stderr.buf.String()
		if code != 1 || !stderr.done || !strings.Contains(errOut, "hyperplane train: "+cache+": ") || !strings.Contains(errOut, "changed while in use") {
			t.Fatalf("-o %v: exit %d; stderr:\n%s", withOut, code, tail(errOut))
		}
		_, err := engine.Load(model)
		switch {
		case withOut && (err != nil || !strings.Contains(errOut, "training stopped in epoch 2: the partial model (as of the end of epoch 1") || !strings.Contains(errOut, "saved to "+model)):
			t.Fatalf("-o: the model so far: %v; stderr:\n%s", err, tail(errOut))
		case !withOut && (err == nil || strings.Contains(errOut, "partial model")):
			t.Fatalf("no -o: a model was saved or announced; stderr:\n%s", tail(errOut))
		}
	}
}

// TestTrainStreamPartialModelBits: the partial model that train -stream
// saves when the cache changes under it after epoch 1 is, bit for bit,
// the model of one epoch on the file as it was (its blocks, kept in
// memory, are checked copies, and the change is found before epoch 2
// learns anything); and it replaces the file -o named, atomically.
func TestTrainStreamPartialModelBits(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.svm")
	cache, clean := filepath.Join(dir, "d.hpc"), filepath.Join(dir, "clean.hpc")
	for _, args := range [][]string{
		{"gen", "-rows", "3000", "-dim", "500", "-noise", "0.2", data},
		{"convert", data, cache},
		{"convert", data, clean},
	} {
		if code, _, errOut := runCmd(args...); code != 0 {
			t.Fatalf("%q: %s", args, errOut)
		}
	}
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(cache, old, old); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "m.hpm")
	if err := os.WriteFile(model, []byte("an earlier model"), 0o644); err != nil {
		t.Fatal(err)
	}
	stderr := &onLine{trigger: "epoch 1:", f: func() { rewriteCacheBad(t, cache) }}
	code := runEnv(context.Background(), &Env{Stdout: new(bytes.Buffer), Stderr: stderr},
		[]string{"train", "-stream", "-v", "-epochs", "5", "-o", model, cache})
	if errOut := stderr.buf.String(); code != 1 || !strings.Contains(errOut, "saved to "+model) {
		t.Fatalf("exit %d; stderr:\n%s", code, tail(errOut))
	}
	one := filepath.Join(dir, "one.hpm")
	if code, _, errOut := runCmd("train", "-stream", "-epochs", "1", "-o", one, clean); code != 0 {
		t.Fatal(errOut)
	}
	got, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(one)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("the partial model differs from one epoch on the unchanged file")
	}
	if names, _ := filepath.Glob(filepath.Join(dir, ".*")); len(names) > 0 {
		t.Errorf("temporary files left: %v", names)
	}
}

// TestTrainStreamFirstEpochError: a cache that fails in the first epoch
// (here a block rewritten, resealed, before training) leaves the file -o
// names as it was, and says so: a model of no finished epoch is not worth
// replacing it with.
func TestTrainStreamFirstEpochError(t *testing.T) {
	dir := t.TempDir()
	data, cache := filepath.Join(dir, "d.svm"), filepath.Join(dir, "d.hpc")
	for _, args := range [][]string{
		{"gen", "-rows", "500", "-dim", "100", data},
		{"convert", data, cache},
	} {
		if code, _, errOut := runCmd(args...); code != 0 {
			t.Fatalf("%q: %s", args, errOut)
		}
	}
	rewriteCacheBad(t, cache)
	model := filepath.Join(dir, "m.hpm")
	const earlier = "an earlier model"
	if err := os.WriteFile(model, []byte(earlier), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCmd("train", "-stream", "-o", model, cache)
	if code != 1 || !strings.Contains(errOut, cache+": block 0: ") || !strings.Contains(errOut, "no model saved ("+model+" is left as it was)") {
		t.Fatalf("exit %d; stderr:\n%s", code, tail(errOut))
	}
	if b, err := os.ReadFile(model); err != nil || string(b) != earlier {
		t.Fatalf("the -o file now holds %q (%v)", b, err)
	}
}
