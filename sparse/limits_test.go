package sparse

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestMaxNNZ: a data set with more nonzeros than ReadOptions.MaxNNZ is
// refused by the readers that load it whole (with a hint to stream it),
// at any worker count and block size, while the streaming readers ignore
// the cap; exactly MaxNNZ nonzeros load.
func TestMaxNNZ(t *testing.T) {
	var b strings.Builder
	for i := range 500 {
		b.WriteString("1 1:1 3:2 7:0.5\n") // 3 nonzeros a row
		if i%7 == 0 {
			b.WriteString("-1\n")
		}
	}
	data := []byte(b.String())
	const nnz = 1500
	for _, o := range []ReadOptions{{Workers: 1}, {Workers: 4}, {Workers: 3, chunkSize: 64}} {
		o.MaxNNZ = nnz - 1
		_, err := ReadLIBSVM(bytes.NewReader(data), o)
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "MaxNNZ = 1499") {
			t.Fatalf("%+v: err %v, want ErrTooLarge naming the cap", o, err)
		}
		o.MaxNNZ = nnz
		d, err := ReadLIBSVM(bytes.NewReader(data), o)
		if err != nil || d.X.NNZ() != nnz {
			t.Fatalf("%+v at the cap: err %v", o, err)
		}
	}
	sc := NewScanner(bytes.NewReader(data), ReadOptions{MaxNNZ: 1})
	rows := 0
	for sc.Scan() {
		rows++
	}
	if sc.Err() != nil || rows != 500+72 {
		t.Fatalf("Scanner with MaxNNZ 1: %d rows, err %v", rows, sc.Err())
	}
	if _, err := ReadLIBSVM(bytes.NewReader(data), ReadOptions{MaxNNZ: -1}); !errors.Is(err, ErrBadOption) {
		t.Fatalf("MaxNNZ -1: err %v", err)
	}

	d, err := ReadLIBSVM(bytes.NewReader(data), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "d.hpc")
	if err := WriteCacheFile(path, d); err != nil {
		t.Fatal(err)
	}
	c, err := OpenCache(path, ReadOptions{MaxNNZ: nnz - 1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Load(); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Cache.Load over the cap: err %v", err)
	}
	var blk CacheBlock
	if err := c.ReadBlock(0, &blk); err != nil {
		t.Fatalf("ReadBlock ignores the cap: %v", err)
	}
	if _, err := ReadFile(path, ReadOptions{MaxNNZ: nnz - 1}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("ReadFile of the cache over the cap: err %v", err)
	}
}
