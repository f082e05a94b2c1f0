package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hyperplane-ml/hyperplane/engine/textmodel"
)

// train -stream on raw text trains from a cache written beside the model
// while the text is read, holds every 40th document out of the model to
// calibrate it on, and leaves nothing but the model behind, whether it
// succeeds or fails; the model classifies as the in-memory one does on
// easy text.
func TestTrainStreamText(t *testing.T) {
	dir := t.TempDir()
	tr := reviews(t, filepath.Join(dir), "train.jsonl", 400) // 800 documents
	te := reviews(t, dir, "test.jsonl", 20)
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, flags := range [][]string{{"-stream"}, {"-stream", "-bits", "16"}, {"-stream", "-no-calibrate"}} {
		model := filepath.Join(out, "m.hptm")
		args := append(append([]string{"train", "-json", "-test", te, "-o", model}, flags...), tr)
		code, stdout, e := runCmd(args...)
		if code != 0 {
			t.Fatalf("%v: %s", flags, e)
		}
		var r struct {
			Streamed bool    `json:"streamed"`
			Rows     int     `json:"rows"`
			Held     int     `json:"calibration_rows"`
			Acc      float64 `json:"test_accuracy"`
		}
		if err := json.Unmarshal([]byte(stdout), &r); err != nil {
			t.Fatalf("%v: %v\n%s", flags, err, stdout)
		}
		held := 20
		if flags[len(flags)-1] == "-no-calibrate" {
			held = 0
		}
		if !r.Streamed || r.Held != held || r.Rows != 800-held || r.Acc != 1 {
			t.Errorf("%v: %+v, want streamed, %d held out, %d rows, accuracy 1", flags, r, held, 800-held)
		}
		if code, pred, e := runCmd("predict", "-model", model, te); code != 0 || strings.Count(pred, "pos\n") != 20 {
			t.Errorf("%v: predict: %s %s", flags, pred, e)
		}
		if names, _ := os.ReadDir(out); len(names) != 1 {
			t.Errorf("%v: the output folder holds %v, want the model only", flags, names)
		}
		os.Remove(model)
	}
	// A bad line after many good ones: an error naming it, and nothing
	// left behind.
	bad := filepath.Join(dir, "bad.jsonl")
	body, _ := os.ReadFile(tr)
	os.WriteFile(bad, append(body, []byte("{\"label\": \"pos\", \"text\": 3}\n")...), 0o644)
	code, _, e := runCmd("train", "-stream", "-o", filepath.Join(out, "m.hptm"), bad)
	if code == 0 || !strings.Contains(e, "bad.jsonl:801") {
		t.Errorf("bad line: exit %d: %s", code, e)
	}
	if names, _ := os.ReadDir(out); len(names) != 0 {
		t.Errorf("after a failure the output folder holds %v", names)
	}
	for _, flags := range [][]string{{"-kernel", "rbf"}, {"-refit"}} {
		if code, _, e := runCmd(append(append([]string{"train", "-stream"}, flags...), tr)...); code != 2 || !strings.Contains(e, "-stream") {
			t.Errorf("%v: exit %d: %s", flags, code, e)
		}
	}
}

// A text file over autoStreamBytes is streamed without -stream, with a
// warning that says so and how to keep it in memory; -stream=false does,
// and so does a flag streaming cannot honour (-cv).
func TestTrainStreamsBigText(t *testing.T) {
	old := autoStreamBytes
	defer func() { autoStreamBytes = old }()
	dir := t.TempDir()
	tr := reviews(t, dir, "train.jsonl", 100)
	fi, err := os.Stat(tr)
	if err != nil {
		t.Fatal(err)
	}
	autoStreamBytes = fi.Size()
	for _, c := range []struct {
		flags    []string
		streamed bool
	}{
		{nil, true},
		{[]string{"-stream=false"}, false},
		{[]string{"-balanced"}, false},
	} {
		args := append(append([]string{"train", "-json", "-o", filepath.Join(dir, "m.hptm")}, c.flags...), tr)
		code, out, e := runCmd(args...)
		if code != 0 {
			t.Fatalf("%v: %s", c.flags, e)
		}
		var r struct {
			Streamed bool `json:"streamed"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if r.Streamed != c.streamed || strings.Contains(e, "-stream=false keeps") != c.streamed {
			t.Errorf("%v: streamed %v, stderr %q; want streamed %v", c.flags, r.Streamed, e, c.streamed)
		}
	}
	autoStreamBytes = fi.Size() + 1
	if code, out, e := runCmd("train", "-json", "-o", filepath.Join(dir, "m.hptm"), tr); code != 0 || strings.Contains(out, `"streamed"`) || e != "" {
		t.Errorf("a file under the size: exit %d, %s %s", code, out, e)
	}
}

// Under a memory budget too small for the vocabulary's counts, train
// -stream drops the rarest terms as it reads, says so on standard error
// and in -json, and still trains.
func TestTrainStreamPrunesVocabulary(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 3000 {
		label, word := "pos", "good"
		if i%2 == 1 {
			label, word = "neg", "bad"
		}
		fmt.Fprintf(&b, "{\"label\": %q, \"text\": \"%s film", label, word)
		for k := range 20 {
			fmt.Fprintf(&b, " u%dx%d", i, k) // words of this document only
		}
		b.WriteString("\"}\n")
	}
	tr := writeFile(t, dir, "train.jsonl", b.String())
	code, out, e := runCmd("train", "-stream", "-json", "-mem", "4MiB", "-o", filepath.Join(dir, "m.hptm"), tr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	var r struct {
		Pruned   int     `json:"vocab_pruned"`
		Features int     `json:"features"`
		Acc      float64 `json:"train_accuracy"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Pruned < 1 || !strings.Contains(e, "were dropped while the text was read") {
		t.Errorf("pruned %d, stderr %q", r.Pruned, e)
	}
	if code, out, _ := runCmd("predict", "-model", filepath.Join(dir, "m.hptm"), writeFile(t, dir, "t.txt", "a good film\na bad film\n")); code != 0 || out != "pos\nneg\n" {
		t.Errorf("predict: %q", out)
	}
}

// SIGTERM during train -stream's epochs stops it after the current one
// with the model so far saved and its cache removed, as in memory.
func TestTrainStreamSignalSavesModel(t *testing.T) {
	dir := t.TempDir()
	// Labels the words do not tell: training never runs out of mistakes.
	var b strings.Builder
	x := uint32(1)
	for i := range 3000 {
		fmt.Fprintf(&b, "{\"label\": \"%d\", \"text\": \"", i%2)
		for range 8 {
			x = x*1664525 + 1013904223
			fmt.Fprintf(&b, " w%d", x>>22)
		}
		b.WriteString("\"}\n")
	}
	tr := writeFile(t, dir, "train.jsonl", b.String())
	model := filepath.Join(dir, "m.hptm")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd, lines := startHelper(t, ctx, "train", "-stream", "-v", "-algo", "averaged", "-epochs", "1000000", "-o", model, tr)
	var errOut bytes.Buffer
	sent := false
	for l := range lines {
		errOut.WriteString(l + "\n")
		if !sent && strings.HasPrefix(l, "epoch 2:") {
			cmd.Process.Signal(syscall.SIGTERM)
			sent = true
		}
	}
	err := cmd.Wait()
	if !sent {
		t.Fatalf("training ended before the signal: %v\n%s", err, errOut.String())
	}
	if cmd.ProcessState.ExitCode() != 1 || !strings.Contains(errOut.String(), "the model so far was saved to") {
		t.Fatalf("%v; stderr ends %q", err, tail(errOut.String()))
	}
	if _, err := textmodel.Load(model); err != nil {
		t.Fatalf("the model saved does not load: %v", err)
	}
	if names, _ := filepath.Glob(filepath.Join(dir, ".*")); len(names) > 0 {
		t.Errorf("left %v", names)
	}
}
