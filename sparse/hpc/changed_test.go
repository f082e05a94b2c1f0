package hpc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

// changedFixture is a one-block cache on disk, and a copy of its bytes
// in which row 0's last index is out of range (20 in a file of 10
// columns) with every checksum recomputed, so that the block verifies.
type changedFixture struct {
	path      string
	good, bad []byte
	mtime     time.Time // the file's modification time, set an hour back
	ind       int       // offset of the changed index in the file
}

func newChangedFixture(t *testing.T) *changedFixture {
	t.Helper()
	d := &sparse.Dataset{X: &sparse.CSR{Rows: 2, Cols: 10, Indptr: []int64{0, 3, 5}, Ind: []int32{3, 5, 9, 0, 7}, Val: []float32{1, 2, 3, 4, 5}}, Y: []float64{1, -1}}
	var buf bytes.Buffer
	if err := Write(&buf, d); err != nil {
		t.Fatal(err)
	}
	f := &changedFixture{path: filepath.Join(t.TempDir(), "c.hpc"), good: buf.Bytes()}
	k := bytes.Index(f.good, []byte{3, 0, 0, 0, 5, 0, 0, 0, 9, 0, 0, 0})
	if k < 0 {
		t.Fatal("indices not found in the file")
	}
	f.ind = k + 8
	f.bad = slices.Clone(f.good)
	f.bad[f.ind] = 20
	reseal(f.bad, spansOf(f.bad))
	if err := os.WriteFile(f.path, f.good, 0o644); err != nil {
		t.Fatal(err)
	}
	// A file made a while ago, as caches are: a write now moves its
	// time, whatever the granularity of the file system's clock.
	f.mtime = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(f.path, f.mtime, f.mtime); err != nil {
		t.Fatal(err)
	}
	return f
}

// rewrite writes b over the file in place (same inode, same size).
func (f *changedFixture) rewrite(t *testing.T, b []byte) {
	t.Helper()
	w, err := os.OpenFile(f.path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteAt(b, 0); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestCacheBlockIsPrivate: a block ReadBlock returned keeps the data that
// were checked when the file is rewritten in place afterwards. A block of
// a mapped file used to view the mapping, so that a learner read the new
// bytes (here an index beyond the columns) after the old ones had passed
// the checks.
func TestCacheBlockIsPrivate(t *testing.T) {
	for _, mapped := range []bool{false, true} {
		t.Run(fmt.Sprintf("mapped=%v", mapped), func(t *testing.T) {
			f := newChangedFixture(t)
			c, err := Open(f.path, Options{Map: mapped})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if mapped && mmapSupported && !c.Mapped() {
				t.Fatal("not mapped")
			}
			var blk Block
			if err := c.ReadBlock(0, &blk); err != nil {
				t.Fatal(err)
			}
			want := slices.Clone(blk.X.Ind)
			f.rewrite(t, f.bad)
			if !slices.Equal(blk.X.Ind, want) {
				t.Fatalf("the block's indices changed with the file: %v, checked as %v", blk.X.Ind, want)
			}
		})
	}
}

// TestCacheRewrittenInPlace: a file rewritten in place (same inode) with
// a block that breaks the invariants under valid checksums is caught,
// mapped or not, as a changed file: ErrChanged, naming file and block.
func TestCacheRewrittenInPlace(t *testing.T) {
	for _, mapped := range []bool{false, true} {
		t.Run(fmt.Sprintf("mapped=%v", mapped), func(t *testing.T) {
			f := newChangedFixture(t)
			c, err := Open(f.path, Options{Map: mapped})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			var blk Block
			if err := c.ReadBlock(0, &blk); err != nil {
				t.Fatalf("first read: %v", err)
			}
			f.rewrite(t, f.bad)
			err = c.ReadBlock(0, &blk)
			if !errors.Is(err, ErrChanged) || !errors.Is(err, ErrFormat) || !strings.HasPrefix(fmt.Sprint(err), f.path+": block 0: the file changed while in use") {
				t.Fatalf("read after an in-place rewrite: %v (indices %v), want ErrChanged naming %s, block 0", err, blk.X.Ind, f.path)
			}
			// The same with the file's time put back: the block's
			// checksum differs from its first read's.
			if err := os.Chtimes(f.path, f.mtime, f.mtime); err != nil {
				t.Fatal(err)
			}
			err = c.ReadBlock(0, &blk)
			if !errors.Is(err, ErrChanged) || !strings.Contains(fmt.Sprint(err), "payload checksum") {
				t.Fatalf("read after an in-place rewrite, time restored: %v, want ErrChanged from the checksum", err)
			}
		})
	}
}

// forgeCRC sets the 4 bytes of p at pos so that p's CRC-32C is want. For
// a message of fixed length the checksum is affine in its bits: flipping
// bit j changes it by a fixed d_j, so it is a 32×32 linear system over
// GF(2) in the bits of the 4 bytes, which a 32-bit window always solves.
func forgeCRC(t *testing.T, p []byte, pos int, want uint32) {
	t.Helper()
	base := crc32.Checksum(p, castagnoli)
	var vec, mask [32]uint32 // basis[bit]: a column sum with that top bit, and which columns
	for j := range 32 {
		p[pos+j/8] ^= 1 << (j % 8)
		v, m := crc32.Checksum(p, castagnoli)^base, uint32(1)<<j
		p[pos+j/8] ^= 1 << (j % 8)
		for b := 31; b >= 0 && v != 0; b-- {
			if v>>b&1 == 0 {
				continue
			}
			if vec[b] == 0 {
				vec[b], mask[b] = v, m
				break
			}
			v, m = v^vec[b], m^mask[b]
		}
	}
	need, flip := base^want, uint32(0)
	for b := 31; b >= 0; b-- {
		if need>>b&1 == 0 {
			continue
		}
		if vec[b] == 0 {
			t.Fatal("forgeCRC: no solution")
		}
		need, flip = need^vec[b], flip^mask[b]
	}
	for j := range 32 {
		if flip>>j&1 != 0 {
			p[pos+j/8] ^= 1 << (j % 8)
		}
	}
	if crc32.Checksum(p, castagnoli) != want {
		t.Fatal("forgeCRC: the checksum did not come out")
	}
}

// TestCacheForgedChecksumNeverReachesKernel: a block rewritten in place
// with an index beyond the columns and the payload's checksum kept (by
// changing 4 other bytes), the file's time put back, looks unchanged to
// every check but the data: a later read must still find the index out of
// range, with or without SkipValueChecks, since such an index would make
// a SIMD kernel panic. Reads used to skip every check of the indices
// after the first.
func TestCacheForgedChecksumNeverReachesKernel(t *testing.T) {
	for _, skip := range []bool{false, true} {
		for _, mapped := range []bool{false, true} {
			t.Run(fmt.Sprintf("skip=%v/mapped=%v", skip, mapped), func(t *testing.T) {
				f := newChangedFixture(t)
				s := spansOf(f.good)
				payload := s.blocks[0] + cacheBlockHdr
				end := payload + int(binary.LittleEndian.Uint64(f.good[s.blocks[0]+24:]))
				forged := slices.Clone(f.good)
				forged[f.ind] = 20
				// Compensate in the last value (row 1's 5.0).
				forgeCRC(t, forged[payload:end], end-payload-8, crc32.Checksum(f.good[payload:end], castagnoli))
				if !bytes.Equal(forged[:payload], f.good[:payload]) || bytes.Equal(forged, f.good) {
					t.Fatal("the forged file should differ in its payload only")
				}
				c, err := Open(f.path, Options{Map: mapped, SkipValueChecks: skip})
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				var blk Block
				if err := c.ReadBlock(0, &blk); err != nil {
					t.Fatal(err)
				}
				f.rewrite(t, forged)
				if err := os.Chtimes(f.path, f.mtime, f.mtime); err != nil {
					t.Fatal(err)
				}
				err = c.ReadBlock(0, &blk)
				if !errors.Is(err, ErrChanged) || !strings.Contains(fmt.Sprint(err), "block 0: the file changed while in use") || !strings.Contains(fmt.Sprint(err), "row 0: index 20") {
					t.Fatalf("forged block: %v (indices %v), want ErrChanged for index 20", err, blk.X.Ind)
				}
			})
		}
	}
	// On a first read, SkipValueChecks or not, the index is out of range.
	for _, skip := range []bool{false, true} {
		f := newChangedFixture(t)
		f.rewrite(t, f.bad)
		c, err := Open(f.path, Options{SkipValueChecks: skip})
		if err != nil {
			t.Fatal(err)
		}
		var blk Block
		err = c.ReadBlock(0, &blk)
		c.Close()
		if !errors.Is(err, sparse.ErrIndexRange) || !strings.Contains(fmt.Sprint(err), "c.hpc: block 0: ") {
			t.Fatalf("skip %v: first read of an index beyond the header's largest: %v, want ErrIndexRange", skip, err)
		}
	}
}

// TestCacheChangedStamp: a file whose size or modification time moved
// since Open is ErrChanged for ReadBlock, Load and CheckUnchanged, even
// before its bytes differ; one replaced by a rename is not (the File
// reads the file it opened).
func TestCacheChangedStamp(t *testing.T) {
	for _, mapped := range []bool{false, true} {
		t.Run(fmt.Sprintf("mapped=%v", mapped), func(t *testing.T) {
			f := newChangedFixture(t)
			c, err := Open(f.path, Options{Map: mapped})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			// Replaced by a rename: not a change.
			other := f.path + ".new"
			if err := os.WriteFile(other, f.bad, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(other, f.path); err != nil {
				t.Fatal(err)
			}
			var blk Block
			if err := c.ReadBlock(0, &blk); err != nil {
				t.Fatalf("after a rename over the file: %v", err)
			}
			if err := c.CheckUnchanged(); err != nil {
				t.Fatalf("after a rename over the file: %v", err)
			}
			if _, err := c.Load(); err != nil {
				t.Fatalf("after a rename over the file: %v", err)
			}
		})
	}
	for _, change := range []string{"time", "size"} {
		for _, mapped := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/mapped=%v", change, mapped), func(t *testing.T) {
				f := newChangedFixture(t)
				c, err := Open(f.path, Options{Map: mapped})
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				switch change {
				case "time":
					later := f.mtime.Add(time.Minute)
					err = os.Chtimes(f.path, later, later)
				case "size":
					err = os.WriteFile(f.path, append(slices.Clone(f.good), 0), 0o644)
				}
				if err != nil {
					t.Fatal(err)
				}
				var blk Block
				for what, err := range map[string]error{
					"ReadBlock":      c.ReadBlock(0, &blk),
					"CheckUnchanged": c.CheckUnchanged(),
					"Load":           func() error { _, err := c.Load(); return err }(),
				} {
					if !errors.Is(err, ErrChanged) || !strings.HasPrefix(fmt.Sprint(err), f.path+": ") || !strings.Contains(fmt.Sprint(err), "changed while in use") {
						t.Errorf("%s: %v, want ErrChanged naming the file", what, err)
					}
				}
			})
		}
	}
}

// TestCacheBlockBufferGrowsOnce: a Block that reads a file's blocks one
// after another, each a little larger than the last, allocates its
// buffer once, at the size of the largest. It used to reallocate at every
// larger block, so that streamed epochs churned block-sized buffers.
func TestCacheBlockBufferGrowsOnce(t *testing.T) {
	// Rows of growing length, a few to a block: every block is larger
	// than the one before.
	var bl []int32
	d := &sparse.Dataset{X: &sparse.CSR{Cols: 4000, Indptr: []int64{0}}}
	for r := range 400 {
		bl = bl[:0]
		for k := range 10 + 5*r {
			bl = append(bl, int32(k))
		}
		d.X.Ind = append(d.X.Ind, bl...)
		for range bl {
			d.X.Val = append(d.X.Val, 1)
		}
		d.X.Indptr = append(d.X.Indptr, int64(len(d.X.Ind)))
		d.X.Rows++
		d.Y = append(d.Y, float64(r%2))
	}
	c, err := openCacheBytes(cacheBytes(t, d, 64<<10), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c.NumBlocks() < 10 {
		t.Fatalf("%d blocks: the test wants many", c.NumBlocks())
	}
	var blk Block
	var errs []error
	got := cacheAllocDuring(func() {
		for i := range c.NumBlocks() {
			errs = append(errs, c.ReadBlock(i, &blk))
		}
	})
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	// One buffer of the largest block, and change for the rest.
	if most := uint64(c.maxBlock); got > most+most/4 {
		t.Fatalf("reading %d blocks, the largest %d bytes, allocated %d bytes", c.NumBlocks(), most, got)
	}
}
