package hpc

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// ErrShards reports a set of shard files that is not whole: a name of
// the form NAME-KKKKK-of-NNNNN.EXT without the other shards of its set, or
// with K not below N.
var ErrShards = errors.New("hpc: incomplete set of shards")

// ShardNames returns the names of the n shards of the cache file name (a
// name ending in .hpc): NAME-00000-of-0000n.hpc and on, as hyperplane
// convert -shards writes them.
func ShardNames(name string, n int) []string {
	ext := ""
	if i := strings.LastIndexByte(name, '.'); i > strings.LastIndexByte(name, '/') {
		name, ext = name[:i], name[i:]
	}
	if ext == "" {
		ext = ".hpc"
	}
	p := make([]string, n)
	for k := range p {
		p[k] = fmt.Sprintf("%s-%05d-of-%05d%s", name, k, n, ext)
	}
	return p
}

// shardName matches a name of ShardNames's form: its set's prefix, the
// shard's number, the set's size, and the extension.
var shardName = regexp.MustCompile(`^(.*)-([0-9]{5,9})-of-([0-9]{5,9})(\.[^/]*)?$`)

// CheckShards checks that the names hold whole sets of shards: every
// name of the form NAME-KKKKK-of-NNNNN.EXT (see ShardNames) must come with
// all N shards of its set, NAME and EXT the same, and K must be below N;
// names of other forms are not checked. The error, wrapping ErrShards,
// names the first shards missing and how many are. names must hold no
// name twice.
func CheckShards(names []string) error {
	type set struct{ prefix, of, ext string }
	have := map[set]map[int]bool{}
	var order []set
	for _, name := range names {
		m := shardName.FindStringSubmatch(name)
		if m == nil {
			continue
		}
		k, _ := strconv.Atoi(m[2])
		n, _ := strconv.Atoi(m[3])
		if k >= n {
			return fmt.Errorf("%w: %s is shard %d of a set of %d", ErrShards, name, k, n)
		}
		s := set{m[1], m[3], m[4]}
		if have[s] == nil {
			have[s] = map[int]bool{}
			order = append(order, s)
		}
		have[s][k] = true
	}
	for _, s := range order {
		n, _ := strconv.Atoi(s.of)
		got := have[s]
		if len(got) == n {
			continue
		}
		// The first few missing, found among the first len(got)+5
		// numbers: a set of a million claimed costs no million steps.
		var missing []string
		for k := 0; k < n && len(missing) < 5; k++ {
			if !got[k] {
				missing = append(missing, fmt.Sprintf("%s-%05d-of-%s%s", s.prefix, k, s.of, s.ext))
			}
		}
		more := ""
		if left := n - len(got) - len(missing); left > 0 {
			more = fmt.Sprintf(" and %d more", left)
		}
		return fmt.Errorf("%w: %d of the %d shards of %s-*-of-%s%s, missing %s%s",
			ErrShards, len(got), n, s.prefix, s.of, s.ext, strings.Join(missing, ", "), more)
	}
	return nil
}
