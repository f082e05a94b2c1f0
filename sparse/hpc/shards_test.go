package hpc

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestShardNames: the names convert -shards writes.
func TestShardNames(t *testing.T) {
	got := ShardNames("dir.v1/train.hpc", 3)
	want := []string{"dir.v1/train-00000-of-00003.hpc", "dir.v1/train-00001-of-00003.hpc", "dir.v1/train-00002-of-00003.hpc"}
	if !slices.Equal(got, want) {
		t.Errorf("ShardNames: %q, want %q", got, want)
	}
	if err := CheckShards(got); err != nil {
		t.Errorf("the names of a whole set: %v", err)
	}
}

// TestCheckShards: a set of shards with some missing is refused with the
// missing ones named; names of other forms, and whole sets, pass.
func TestCheckShards(t *testing.T) {
	all := ShardNames("gs://b/sh/a9a.hpc", 3)
	for _, c := range []struct {
		names []string
		want  string // "" for no error
	}{
		{all, ""},
		{append(slices.Clone(all), "other.hpc", "x-1-of-2.hpc"), ""},
		{all[:2], "2 of the 3 shards of gs://b/sh/a9a-*-of-00003.hpc, missing gs://b/sh/a9a-00002-of-00003.hpc"},
		{[]string{all[1]}, "missing gs://b/sh/a9a-00000-of-00003.hpc, gs://b/sh/a9a-00002-of-00003.hpc"},
		{append(slices.Clone(all), ShardNames("a9a.hpc", 2)[1]), "missing a9a-00000-of-00002.hpc"},
		{[]string{"s-00003-of-00003.hpc"}, "s-00003-of-00003.hpc is shard 3 of a set of 3"},
		{[]string{"s-00000-of-99999999.hpc"}, "missing s-00001-of-99999999.hpc, s-00002-of-99999999.hpc, s-00003-of-99999999.hpc, s-00004-of-99999999.hpc, s-00005-of-99999999.hpc and 99999993 more"},
	} {
		err := CheckShards(c.names)
		if c.want == "" {
			if err != nil {
				t.Errorf("%q: %v", c.names, err)
			}
			continue
		}
		if !errors.Is(err, ErrShards) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want ErrShards with %q", c.names, err, c.want)
		}
	}
}
