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

// TestMaxNNZFirstProblem: whichever comes first in the file is reported,
// every time, at any worker count and block size: a bad line before the
// data pass MaxNNZ, or MaxNNZ passed before a bad line.
func TestMaxNNZFirstProblem(t *testing.T) {
	row := "1 1:1 2:2 3:3\n" // 3 nonzeros
	early := strings.Repeat(row, 100) + "bad\n" + strings.Repeat(row, 20000)
	late := strings.Repeat(row, 2000) + "bad\n" + strings.Repeat(row, 100)
	for _, o := range []ReadOptions{{Workers: 1}, {Workers: 2}, {Workers: 4, chunkSize: 64}, {Workers: 3, chunkSize: 4096}} {
		o.MaxNNZ = 1000
		for k := range 20 {
			_, err := ReadLIBSVM(strings.NewReader(early), o)
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line != 101 {
				t.Fatalf("%+v, run %d: %v; want the bad line 101, which comes before the 1000th nonzero", o, k, err)
			}
			if _, err := ReadLIBSVM(strings.NewReader(late), o); !errors.Is(err, ErrTooLarge) {
				t.Fatalf("%+v, run %d: %v; want ErrTooLarge, which comes before the bad line 2001", o, k, err)
			}
		}
	}
}

// TestWorkersCapped: an absurd worker count is capped at MaxWorkers
// rather than sizing the reader's queues by it.
func TestWorkersCapped(t *testing.T) {
	o, err := ReadOptions{Workers: 1 << 40}.normalize()
	if err != nil || o.Workers != MaxWorkers {
		t.Fatalf("Workers 2^40: %d, %v", o.Workers, err)
	}
	d, err := ReadLIBSVM(strings.NewReader("1 1:1\n-1 2:1\n"), ReadOptions{Workers: 1 << 40})
	if err != nil || d.X.Rows != 2 {
		t.Fatalf("read with Workers 2^40: %v", err)
	}
}
