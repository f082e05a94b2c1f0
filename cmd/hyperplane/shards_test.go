package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse/hpc"
)

// convert -shards deals a label-sorted file into shards that each hold
// every class, together every row once, all of the input's width, the
// same for the same seed and another for another; and refuses what
// cannot be sharded.
func TestConvertShards(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for c := range 3 {
		for i := range 100 {
			fmt.Fprintf(&b, "%d %d:1 %d:%d\n", c, 1+c, 4+i%7, i+1)
		}
	}
	in := filepath.Join(dir, "sorted.svm")
	if err := os.WriteFile(in, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "s", "train.hpc")
	os.Mkdir(filepath.Dir(out), 0o755)
	read := func(seed string) [][]float64 {
		if code, o, e := runCmd("convert", "-shards", "4", "-seed", seed, in, out); code != 0 {
			t.Fatalf("convert -shards: exit %d\n%s%s", code, o, e)
		}
		var labels [][]float64
		total := 0
		for k := range 4 {
			p := filepath.Join(dir, "s", fmt.Sprintf("train-%05d-of-00004.hpc", k))
			c, err := hpc.Open(p, hpc.Options{})
			if err != nil {
				t.Fatal(err)
			}
			d, err := c.Load()
			c.Close()
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(c.Labels(), []float64{0, 1, 2}) || d.X.Cols != 10 || (d.X.Rows != 75) {
				t.Fatalf("shard %d: labels %v, %d columns, %d rows", k, c.Labels(), d.X.Cols, d.X.Rows)
			}
			total += d.X.Rows
			labels = append(labels, d.Y)
		}
		if total != 300 {
			t.Fatalf("%d rows in the shards, want 300", total)
		}
		return labels
	}
	a, a2, c := read("1"), read("1"), read("2")
	for k := range a {
		if !slices.Equal(a[k], a2[k]) {
			t.Fatalf("shard %d differs between two runs of the same seed", k)
		}
	}
	if slices.Equal(a[0], c[0]) {
		t.Fatal("seeds 1 and 2 dealt shard 0 alike")
	}
	for _, args := range [][]string{
		{"-shards", "4", in, filepath.Join(dir, "x.svm")},
		{"-shards", "-1", in, out},
		{"-seed", "3", in, out},
		{"-shards", "301", in, out},
	} {
		if code, _, _ := runCmd(append([]string{"convert"}, args...)...); code == 0 {
			t.Fatalf("convert %v succeeded", args)
		}
	}
	// A shard named as the input is refused before anything is written.
	if code, _, e := runCmd("convert", "-shards", "4", filepath.Join(dir, "s", "train-00001-of-00004.hpc"), out); code == 0 || !strings.Contains(e, "destroy") {
		t.Fatalf("convert over its own input: exit %d: %s", code, e)
	}
}

// TestConvertShardsRemovesFolderOnFailure: convert -shards makes the
// shards' folder when it is missing, and removes it again (with the
// parents it made) when the conversion fails, so a failed run leaves
// nothing behind.
func TestConvertShardsRemovesFolderOnFailure(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "bad.svm")
	if err := os.WriteFile(in, []byte("1 1:1\n-1 2:x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "sh", "a", "t.hpc")
	if code, _, _ := runCmd("convert", "-shards", "2", in, out); code == 0 {
		t.Fatal("convert -shards of a bad file succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, "sh")); !os.IsNotExist(err) {
		t.Fatalf("the folder convert made is still there after it failed (stat: %v)", err)
	}
}
