package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/engine/textmodel"
)

// TestTrainTextCommand runs the command with -text on Prism over two
// JSONL shards with custom fields and checks that it writes a text model
// that textmodel loads and that classifies the -test text well.
func TestTrainTextCommand(t *testing.T) {
	dir := t.TempDir()
	for s := range 2 {
		var b strings.Builder
		for i := range 100 {
			label, word := "good", "fine"
			if (i+s)%2 == 0 {
				label, word = "bad", "awful"
			}
			fmt.Fprintf(&b, "{\"y\":%q,\"body\":\"a %s thing number %d\"}\n", label, word, i%9)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("part%d.jsonl", s)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "m.hptm")
	var stdout, stderr bytes.Buffer
	args := []string{"train", "-text", "-label-field", "y", "-text-field", "body", "-bits", "16", "-shards", filepath.Join(dir, "part*.jsonl"),
		"-workdir", t.TempDir(), "-o", out, "-epochs", "2", "-test", filepath.Join(dir, "part1.jsonl")}
	if err := run(args, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "test accuracy 1.0000") {
		t.Fatalf("stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	}
	m, err := textmodel.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Classify("an awful one"); got != "bad" {
		t.Errorf("classified an awful one as %q", got)
	}
	if f := m.Featurizer(); f.Dim() != 1<<16 || f.Config().NGrams != 2 || f.ReadOptions().LabelField != "y" {
		t.Errorf("featurizer: width %d, config %+v, fields %+v", f.Dim(), f.Config(), f.ReadOptions())
	}
}
