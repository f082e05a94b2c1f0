package beam

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse/hpc"
)

// TestShardsSet: a shard matched by two patterns, or named twice through
// a link, is listed once; a set of convert -shards's names with a shard
// missing is refused, naming it (it used to be trained on in part).
func TestShardsSet(t *testing.T) {
	dir := t.TempDir()
	names := hpc.ShardNames(filepath.Join(dir, "a9a.hpc"), 3)
	for _, n := range names {
		if err := os.WriteFile(n, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(dir, "link.hpc")
	if err := os.Symlink(filepath.Base(names[1]), link); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	got, err := Shards(ctx, []string{filepath.Join(dir, "a9a-*.hpc"), names[0], link, filepath.Join(dir, "a9a-0000[12]-*.hpc")})
	if err != nil || !slices.Equal(got, names) {
		t.Errorf("overlapping patterns: %q, %v; want %q", got, err, names)
	}
	if err := os.Remove(names[1]); err != nil {
		t.Fatal(err)
	}
	_, err = Shards(ctx, []string{filepath.Join(dir, "a9a-*.hpc")})
	if !errors.Is(err, ErrOptions) || !errors.Is(err, hpc.ErrShards) || !strings.Contains(err.Error(), "missing "+names[1]) {
		t.Errorf("a shard missing: error %v, want ErrOptions and hpc.ErrShards naming %s", err, names[1])
	}
	if _, _, err := Train(ctx, Options{Shards: []string{filepath.Join(dir, "a9a-*.hpc")}, Workdir: t.TempDir()}); !errors.Is(err, hpc.ErrShards) {
		t.Errorf("Train on an incomplete set: error %v, want hpc.ErrShards", err)
	}
}

// TestWorkFile: the files Train writes in the work directory are told
// from others, under any spelling of the directory.
func TestWorkFile(t *testing.T) {
	wd := t.TempDir()
	for _, c := range []struct {
		name string
		want bool
	}{
		{statePath(wd, 3), true},
		{weightsPath(wd, 0), true},
		{statsPath(wd, 12), true},
		{filepath.Join(wd, "sub", "..", "state-0001.hpmix"), true},
		{filepath.Join(wd, "model.hpm"), false},
		{"state-0001.hpmix", false},
		{filepath.Join(wd, "sub", "state-0001.hpmix"), false},
	} {
		if got := WorkFile(wd, c.name); got != c.want {
			t.Errorf("WorkFile(%s) = %v, want %v", c.name, got, c.want)
		}
	}
	if !WorkFile("gs://b/wd/", "gs://b/wd/epoch-0002.json") || WorkFile("gs://b/wd", "gs://b/other/epoch-0002.json") {
		t.Error("WorkFile on gs:// names")
	}
}
