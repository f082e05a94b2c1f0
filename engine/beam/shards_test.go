//go:build unix

package beam

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/engine"
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
		{shardWeightsPath(wd, 2, 7), true},
		{deltaPath(wd, 0, 12345), true},
		{renumberedPath(wd, 3), true},
		{filepath.Join(wd, "shard-00003.hpc"), false},
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
	// A shard that is one of those files is refused before anything is
	// written: the job would overwrite it.
	dir := t.TempDir()
	glob, _, _ := writeShards(t, dir, 1, 20, 10, 2, 3)
	shards, err := expand(context.Background(), []string{glob})
	if err != nil {
		t.Fatal(err)
	}
	clash := renumberedPath(dir, 0)
	if err := os.Rename(shards[0], clash); err != nil {
		t.Fatal(err)
	}
	_, _, err = Train(context.Background(), Options{Shards: []string{clash}, Workdir: dir})
	if !errors.Is(err, ErrOptions) || !strings.Contains(err.Error(), clash) {
		t.Errorf("a shard named as a work file: error %v, want ErrOptions naming it", err)
	}
}

// TestSaveModelAppends: SaveModel to the name of a descriptor whose file
// was opened for appending (as /dev/stdout is under >>) appends the model
// to it, the file's earlier bytes kept (Beam's local file system
// truncated it).
func TestSaveModelAppends(t *testing.T) {
	_, X, y := writeShards(t, t.TempDir(), 1, 20, 5, 2, 3)
	m, _, err := engine.Fit(context.Background(), X, y, engine.Config{Epochs: 1})
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	want.WriteString("earlier\n")
	if _, err := m.WriteTo(&want); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "log")
	if err := os.WriteFile(path, []byte("earlier\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := SaveModel(context.Background(), m, fmt.Sprintf("/dev/fd/%d", f.Fd())); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, want.Bytes()) {
		t.Errorf("the file holds %d bytes, want the earlier line and the model, %d", len(got), want.Len())
	}
}
