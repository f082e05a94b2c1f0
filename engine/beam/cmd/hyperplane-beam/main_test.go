package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
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
	writeShards(t, filepath.Join(dir, "shard-0.hpc"), filepath.Join(dir, "shard-1.hpc"))
	out := filepath.Join(dir, "m.hpm")
	var stdout, stderr bytes.Buffer
	args := []string{"train", "-shards", filepath.Join(dir, "shard-*.hpc"), "-workdir", t.TempDir(),
		"-o", out, "-epochs", "3", "-per-epoch-jobs", "-v", "-test", filepath.Join(dir, "shard-1.hpc"), "-keep", "0"}
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

// writeShards writes a small shard to every path: two classes split by
// the sign of feature 0, the shards' rows differing.
func writeShards(t *testing.T, paths ...string) {
	t.Helper()
	for s, path := range paths {
		f, err := os.Create(path)
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
}

// TestOutputChecks: a model file -o that is a shard, the -test file (by
// name, link or hard link), or a file the job writes in -workdir is
// refused before training, with one line, and the file is left as it
// was (a model used to be written over it); an incomplete set of shards
// is refused, naming the shard missing.
func TestOutputChecks(t *testing.T) {
	dir := t.TempDir()
	shards := hpc.ShardNames(filepath.Join(dir, "a9a.hpc"), 3)
	writeShards(t, shards...)
	test := filepath.Join(dir, "test.svm")
	if err := os.WriteFile(test, []byte("1 1:1\n-1 1:-1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link, hard := filepath.Join(dir, "link"), filepath.Join(dir, "hard")
	if err := os.Symlink(filepath.Base(shards[2]), link); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(test, hard); err != nil {
		t.Fatal(err)
	}
	before := map[string][]byte{}
	for _, p := range append(slices.Clone(shards), test) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		before[p] = b
	}
	wd := filepath.Join(dir, "wd")
	glob := filepath.Join(dir, "a9a-*-of-00003.hpc")
	for _, c := range []struct {
		out, test, want string
	}{
		{shards[0], "", "is the shard " + shards[0]},
		{link, "", "is the shard " + shards[2]},
		{test, test, "is the -test file"},
		{hard, test, "is the -test file"},
		{filepath.Join(wd, "state-0002.hpmix"), "", "a file the job writes there"},
		{wd, "", "is the -workdir"},
	} {
		args := []string{"train", "-shards", glob, "-workdir", wd, "-o", c.out, "-epochs", "2"}
		if c.test != "" {
			args = append(args, "-test", c.test)
		}
		var stdout, stderr bytes.Buffer
		err := run(args, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("-o %s: error %v, want one line with %q", c.out, err, c.want)
		}
	}
	for p, b := range before {
		if got, err := os.ReadFile(p); err != nil || !bytes.Equal(got, b) {
			t.Errorf("%s changed: %v", p, err)
		}
	}
	if _, err := os.Stat(wd); err == nil {
		t.Error("the job ran: the work directory was made")
	}
	if err := os.Remove(shards[1]); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	err := run([]string{"train", "-shards", glob, "-workdir", wd, "-o", filepath.Join(dir, "m.hpm")}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "missing "+shards[1]) {
		t.Errorf("a shard missing: error %v, want one naming %s", err, shards[1])
	}
}

// TestShardMatchedTwice: a shard that two globs match is learned once.
func TestShardMatchedTwice(t *testing.T) {
	dir := t.TempDir()
	writeShards(t, filepath.Join(dir, "shard-0.hpc"), filepath.Join(dir, "shard-1.hpc"))
	out := filepath.Join(dir, "m.hpm")
	var stdout, stderr bytes.Buffer
	args := []string{"train", "-shards", filepath.Join(dir, "shard-*.hpc") + "," + filepath.Join(dir, "shard-1.hpc"),
		"-workdir", t.TempDir(), "-o", out, "-epochs", "1", "-v"}
	if err := run(args, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "epoch 1: ") || !strings.Contains(stderr.String(), " over 2 shards") {
		t.Errorf("want epoch 1 over 2 shards; stderr:\n%s", stderr.String())
	}
	if _, err := engine.Load(out); err != nil {
		t.Fatal(err)
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
		{[]string{"train", "-shards", "x", "-workdir", dir, "-o", "m", "-keep", "lots"}, "-keep"},
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
	want := 25
	if len(ownFlags) != want {
		t.Errorf("%d flags listed, want %d", len(ownFlags), want)
	}
}

// TestModelToStdout: -o - writes the model to standard output and the
// report to standard error, with -progress a line for every epoch there,
// rewritten in place and ended after the last; with -o FILE and no
// -progress, standard error (not a terminal) shows no epoch.
func TestModelToStdout(t *testing.T) {
	dir := t.TempDir()
	writeShards(t, filepath.Join(dir, "shard-0.hpc"), filepath.Join(dir, "shard-1.hpc"))
	file := filepath.Join(dir, "m.hpm")
	var stdout, stderr bytes.Buffer
	args := []string{"train", "-shards", filepath.Join(dir, "shard-*.hpc"), "-workdir", t.TempDir(), "-epochs", "3"}
	if err := run(append(args, "-o", file), &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if strings.Contains(stderr.String(), "epoch") {
		t.Errorf("epochs shown on a standard error that is no terminal, without -progress:\n%s", stderr.String())
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	stderr.Reset()
	if err := run(append(args, "-o", "-", "-progress"), &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if !bytes.Equal(stdout.Bytes(), want) {
		t.Errorf("standard output holds %d bytes, not the %d of the model written to a file", stdout.Len(), len(want))
	}
	if _, err := engine.ReadModel(bytes.NewReader(stdout.Bytes())); err != nil {
		t.Errorf("standard output is no model: %v", err)
	}
	got := stderr.String()
	for _, s := range []string{"\repoch 1/3: ", "\repoch 2/3: ", "\repoch 3/3: ", "model written to standard output"} {
		if !strings.Contains(got, s) {
			t.Errorf("standard error lacks %q:\n%q", s, got)
		}
	}
	if i := strings.Index(got, "\repoch 3/3: "); i < 0 || !strings.Contains(got[i:], "\n") {
		t.Errorf("the progress line is not ended after the last epoch:\n%q", got)
	}
}
