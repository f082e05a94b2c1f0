package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/sparse/hpc"
)

func TestMain(m *testing.M) { ptest.MainWithDefault(m, "prism") }

// TestTrainCommand runs the command on Prism over two small shards with
// per-epoch jobs and checks that it writes a model file that the engine
// loads and that scores its training rows well.
func TestTrainCommand(t *testing.T) {
	dir := t.TempDir()
	// Two classes split by the sign of feature 0, over two shards.
	for s := range 2 {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("shard-%d.hpc", s)))
		if err != nil {
			t.Fatal(err)
		}
		w := hpc.NewWriter(f, hpc.WriterOptions{})
		for i := range 200 {
			v := float32(i%7+1) / 7
			y := 1.0
			if (i+s)%2 == 0 {
				v, y = -v, -1
			}
			if err := w.Add(y, []int32{0, int32(1 + i%5)}, []float32{v, 0.3}); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	out := filepath.Join(dir, "m.hpm")
	var stdout, stderr bytes.Buffer
	args := []string{"train", "-shards", filepath.Join(dir, "shard-*.hpc"), "-workdir", t.TempDir(),
		"-o", out, "-epochs", "3", "-per-epoch-jobs", "-v", "-test", filepath.Join(dir, "shard-1.hpc")}
	if err := run(args, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "test accuracy 1.0000") || !strings.Contains(stderr.String(), "epoch 1:") {
		t.Fatalf("stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	}
	m, err := engine.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if m.Algorithm != engine.Averaged || m.Rule != engine.PA2 || !m.Normalize || m.Weight(0, 0) <= 0 {
		t.Fatalf("model: algorithm %v, rule %v, normalize %v, weight of feature 0 %g", m.Algorithm, m.Rule, m.Normalize, m.Weight(0, 0))
	}
}

// TestMisuse checks that a wrong command line is refused with one line
// that says what is wrong.
func TestMisuse(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "want the subcommand train"},
		{[]string{"fit"}, "want the subcommand train"},
		{[]string{"train", "-epochs", "2"}, "-shards, -workdir and -o are required"},
		{[]string{"train", "-shards", filepath.Join(dir, "none-*.hpc"), "-workdir", dir, "-o", filepath.Join(dir, "m.hpm")}, "matches no file"},
		{[]string{"train", "-shards", "x", "-workdir", dir, "-o", "m", "-algo", "voted"}, "averaged and plain"},
		{[]string{"train", "-shards", "x", "-workdir", dir, "-o", "m", "-algo", "nonsense"}, "unknown algorithm"},
		{[]string{"train", "-shards", "x", "-workdir", dir, "-o", "m", "-bias", "sideways"}, "sideways"},
		{[]string{"train", "-shards", "x", "-workdir", dir, "-o", "m", "extra"}, "unexpected arguments"},
	} {
		var stdout, stderr bytes.Buffer
		err := run(c.args, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %v, want one line with %q", c.args, err, c.want)
		}
	}
}

// TestOwnFlags checks that ownFlags lists every flag this command
// defines, so that each run starts from their defaults.
func TestOwnFlags(t *testing.T) {
	for _, name := range ownFlags {
		if flag.Lookup(name) == nil {
			t.Errorf("-%s is not defined", name)
		}
	}
	want := 15
	if len(ownFlags) != want {
		t.Errorf("%d flags listed, want %d", len(ownFlags), want)
	}
}
