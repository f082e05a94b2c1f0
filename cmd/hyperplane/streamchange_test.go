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
