package hpc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/budget/budgettest"
	"github.com/hyperplane-ml/hyperplane/sparse/libsvm"
)

// The seed corpus lives in testdata/fuzz/FuzzReadCache: valid files (empty,
// one row, several blocks with query ids, an inferred dim, fractional and
// negative labels) and broken ones (empty input, text, truncated, a flipped
// bit, a newer version, counts inflated with the checksums recomputed,
// indices out of order and a NaN value behind a valid checksum). It is
// written by
//
//	HYPERPLANE_WRITE_CACHE_SEEDS=1 go test -run '^TestWriteCacheFuzzSeeds$' ./sparse/hpc/
//
// and fuzzed with
//
//	go test -run '^$' -fuzz '^FuzzReadCache$' -fuzztime 60s ./sparse/hpc/

// fuzzCacheRestricted is a second option set, so that the fuzzer reaches
// the MaxDim and MaxRowNNZ limits with small files.
var fuzzCacheRestricted = sparse.ReadOptions{MaxDim: 50, MaxRowNNZ: 4}

// cacheFuzzAllocBound is the most reading a file of size bytes in every
// way may allocate: a fixed amount for buffers (the stream reader's 64 KiB
// bufio.Reader, its first 1 MiB block buffer) plus a constant factor of
// the size (Load's data set is at most about twice the file, Read's
// growing slices and block buffer a few times more). No number in the file
// may size an allocation beyond what the file holds.
func cacheFuzzAllocBound(size int) uint64 { return 8<<20 + 64*uint64(size) }

func FuzzReadCache(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		// Under a small budget, within twice it (see budgettest.Within).
		defer budgettest.Within(t, 64<<20)()
		// The checksums stop almost every mutation at once; the resealed
		// copy, with every checksum recomputed, lets the fuzzer reach the
		// structural checks behind them.
		fuzzReadCache(t, data)
		fuzzReadCache(t, resealLenient(data))
	})
}

// resealLenient returns a copy of b with the checksums of every part it
// can locate recomputed: the header, the blocks found by following their
// payload lengths from offset 16, and the footer and trailer the trailer
// points to.
func resealLenient(b []byte) []byte {
	b = slices.Clone(b)
	le := binary.LittleEndian
	if len(b) >= cacheHeaderSize {
		le.PutUint32(b[12:], crc32.Checksum(b[:12], castagnoli))
	}
	for off := uint64(cacheHeaderSize); off+cacheBlockHdr <= uint64(len(b)) && string(b[off:off+4]) == cacheBlockTag; {
		h := b[off : off+cacheBlockHdr]
		n := le.Uint64(h[24:])
		end := off + cacheBlockHdr + n
		if n <= uint64(len(b)) && end <= uint64(len(b)) {
			le.PutUint32(h[32:], crc32.Checksum(b[off+cacheBlockHdr:end], castagnoli))
		}
		le.PutUint32(h[36:], crc32.Checksum(h[:36], castagnoli))
		if n > uint64(len(b)) {
			break
		}
		off = end
	}
	if len(b) >= cacheTrailer {
		t := b[len(b)-cacheTrailer:]
		fo, fl := le.Uint64(t[0:]), le.Uint64(t[8:])
		if fl >= 8 && fo <= uint64(len(b)) && fl <= uint64(len(b)) && fo+fl <= uint64(len(b)) {
			le.PutUint32(b[fo+fl-8:], crc32.Checksum(b[fo:fo+fl-8], castagnoli))
		}
		le.PutUint32(t[16:], crc32.Checksum(t[:16], castagnoli))
	}
	return b
}

func fuzzReadCache(t *testing.T, data []byte) {
	{
		for _, opt := range []sparse.ReadOptions{{}, fuzzCacheRestricted} {
			var d, d2, d3 *sparse.Dataset
			var err, err2, err3 error
			n := cacheAllocDuring(func() {
				d, err = loadBytes(data, Options{ReadOptions: opt})
				d2, err2 = Read(bytes.NewReader(data), opt)
				d3, err3 = readBlocksInOrder(data, opt)
			})
			if len(data) <= 1<<20 && n > cacheFuzzAllocBound(len(data)) {
				t.Fatalf("reading %d bytes allocated %d", len(data), n)
			}
			for _, e := range []error{err, err2, err3} {
				if e != nil && !errors.Is(e, ErrFormat) && !errors.Is(e, sparse.ErrIndexRange) && !errors.Is(e, sparse.ErrRowTooLong) && !errors.Is(e, ErrLabelLists) {
					t.Fatalf("error wraps no sentinel: %v", e)
				}
			}
			if (err == nil) != (err2 == nil) || (err == nil) != (err3 == nil) {
				t.Fatalf("Load error %v, Read error %v, ReadBlock error %v", err, err2, err3)
			}
			if err != nil {
				continue
			}
			if verr := d.Validate(); verr != nil {
				t.Fatalf("loaded an invalid data set: %v", verr)
			}
			if diff := diffDatasets(d, d2); diff != "" {
				t.Fatalf("Read differs from Load: %s", diff)
			}
			if diff := diffDatasets(d, d3); diff != "" {
				t.Fatalf("ReadBlock differs from Load: %s", diff)
			}
		}
	}
	fuzzReadMultiLabel(t, data)
}

// fuzzReadMultiLabel reads data as a cache with label lists, from a
// file and from a stream: both readers must agree, allocate within the
// bound, and return only valid rows and label lists.
func fuzzReadMultiLabel(t *testing.T, data []byte) {
	for _, opt := range []sparse.ReadOptions{{}, fuzzCacheRestricted} {
		var d, d2 *libsvm.MultiLabelDataset
		var err, err2 error
		n := cacheAllocDuring(func() {
			d, err = loadMultiLabelBytes(data, opt)
			d2, err2 = ReadMultiLabel(bytes.NewReader(data), opt)
		})
		if len(data) <= 1<<20 && n > cacheFuzzAllocBound(len(data)) {
			t.Fatalf("reading %d bytes with label lists allocated %d", len(data), n)
		}
		if (err == nil) != (err2 == nil) {
			t.Fatalf("LoadMultiLabel error %v, ReadMultiLabel error %v", err, err2)
		}
		if err != nil {
			continue
		}
		if verr := d.X.Validate(); verr != nil || len(d.Labels) != d.X.Rows {
			t.Fatalf("loaded invalid rows: %v, %d label lists", verr, len(d.Labels))
		}
		for i, ls := range d.Labels {
			if cerr := checkRowLabels(ls); cerr != nil {
				t.Fatalf("row %d: %v", i, cerr)
			}
		}
		if !reflect.DeepEqual(d, d2) {
			t.Fatalf("ReadMultiLabel differs from LoadMultiLabel")
		}
	}
}

// readBlocksInOrder reads the cache in memory with ReadBlock.
func readBlocksInOrder(data []byte, opt sparse.ReadOptions) (*sparse.Dataset, error) {
	c, err := openCacheBytes(data, Options{ReadOptions: opt})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return readBlocksShuffled(c, rand.New(rand.NewPCG(1, 1)))
}

// cacheFuzzSeeds returns the seed corpus by name.
func cacheFuzzSeeds(t testing.TB) map[string][]byte {
	le := binary.LittleEndian
	seeds := map[string][]byte{}
	write := func(d *sparse.Dataset, opt WriterOptions) []byte {
		var buf bytes.Buffer
		if err := writeCache(&buf, d, opt); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	empty := &sparse.Dataset{X: sparse.NewBuilder(0).Build(), Y: []float64{}}
	seeds["valid_empty"] = write(empty, WriterOptions{})
	one := sparse.NewBuilder(5)
	one.Add([]int32{0, 4}, []float32{1.5, -2})
	seeds["valid_one_row"] = write(&sparse.Dataset{X: one.Build(), Y: []float64{-1}}, WriterOptions{})
	multi := randCacheDataset(rand.New(rand.NewPCG(11, 11)), 9, 5, 12, true)
	seeds["valid_blocks_qid"] = write(multi, WriterOptions{BlockSize: 100})
	var inf bytes.Buffer
	w := NewWriter(&inf, WriterOptions{BlockSize: 64})
	w.Add(0.5, []int32{2, 3}, []float32{1, 2})
	w.Add(-2.25, nil, nil)
	w.Add(3, []int32{7}, []float32{float32(math.SmallestNonzeroFloat32)})
	w.Add(math.Copysign(0, -1), []int32{0, 1, 2, 3, 4, 5}, []float32{1, 2, 3, 4, 5, 6})
	w.Close()
	seeds["valid_inferred_dim"] = inf.Bytes()
	multiLabelFuzzSeeds(t, seeds)

	base := seeds["valid_blocks_qid"]
	s := spansOf(base)
	edit := func(name string, f func(c []byte) []byte) {
		seeds[name] = f(slices.Clone(base))
	}
	seeds["err_empty_input"] = []byte{}
	seeds["err_text"] = []byte("1 1:1 2:3\n-1 4:1\n")
	seeds["err_header_only"] = slices.Clone(base[:cacheHeaderSize])
	edit("err_truncated_block", func(c []byte) []byte { return c[:s.blocks[1]+20] })
	edit("err_truncated_at_block", func(c []byte) []byte { return c[:s.blocks[1]] })
	edit("err_truncated_trailer", func(c []byte) []byte { return c[:len(c)-1] })
	edit("err_bit_flip", func(c []byte) []byte { c[s.blocks[0]+cacheBlockHdr+9] ^= 4; return c })
	edit("err_newer_version", func(c []byte) []byte { le.PutUint16(c[4:], 3); reseal(c, s); return c })
	edit("err_huge_blocks", func(c []byte) []byte { le.PutUint64(c[s.footer+8:], 1<<39); reseal(c, s); return c })
	edit("err_huge_block_nnz", func(c []byte) []byte {
		b := s.blocks[0]
		le.PutUint64(c[b+16:], 1<<40)
		l, _ := layoutOf(uint64(le.Uint32(c[b+8:])), 1<<40, true)
		le.PutUint64(c[b+24:], uint64(l.size))
		reseal(c, s)
		return c
	})
	edit("err_huge_index_rows", func(c []byte) []byte {
		le.PutUint32(c[s.footer+cacheFooterFix+16:], math.MaxUint32)
		reseal(c, s)
		return c
	})
	lay, _ := layoutOf(uint64(le.Uint32(base[s.blocks[0]+8:])), le.Uint64(base[s.blocks[0]+16:]), true)
	payload := s.blocks[0] + cacheBlockHdr
	edit("err_index_order", func(c []byte) []byte {
		copy(c[payload+int(lay.ind):], []byte{0xff, 0xff, 0, 0, 0xff, 0xff, 0, 0})
		reseal(c, s)
		return c
	})
	edit("err_nan_value", func(c []byte) []byte {
		le.PutUint32(c[payload+int(lay.val):], 0x7fc00000)
		reseal(c, s)
		return c
	})
	return seeds
}

func TestWriteCacheFuzzSeeds(t *testing.T) {
	if os.Getenv("HYPERPLANE_WRITE_CACHE_SEEDS") == "" {
		t.Skip("set HYPERPLANE_WRITE_CACHE_SEEDS=1 to rewrite testdata/fuzz/FuzzReadCache")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzReadCache")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, b := range cacheFuzzSeeds(t) {
		text := "go test fuzz v1\n[]byte(" + strconv.Quote(string(b)) + ")\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCacheFuzzSeeds checks that the checked-in corpus is current and
// that each seed gives the expected outcome.
func TestCacheFuzzSeeds(t *testing.T) {
	for name, b := range cacheFuzzSeeds(t) {
		path := filepath.Join("testdata", "fuzz", "FuzzReadCache", name)
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("seed missing (see TestWriteCacheFuzzSeeds): %v", err)
		}
		if want := "go test fuzz v1\n[]byte(" + strconv.Quote(string(b)) + ")\n"; string(text) != want {
			t.Errorf("%s is out of date (see TestWriteCacheFuzzSeeds)", path)
		}
		if strings.Contains(name, "_lists") {
			_, err = loadMultiLabelBytes(b, sparse.ReadOptions{})
		} else {
			_, err = loadBytes(b, Options{})
		}
		if valid := strings.HasPrefix(name, "valid"); valid != (err == nil) {
			t.Errorf("%s: error %v", name, err)
		}
	}
}

// multiLabelFuzzSeeds adds to seeds files with label lists: valid ones,
// and broken ones behind valid checksums (an entry count inflated in the
// index, a label count that is no whole number, a list flag dropped).
func multiLabelFuzzSeeds(t testing.TB, seeds map[string][]byte) {
	le := binary.LittleEndian
	d := randMultiLabel(rand.New(rand.NewPCG(5, 5)), 9, 4, 10)
	base := writeMultiLabelBytes(t, d, WriterOptions{BlockSize: 120})
	seeds["valid_lists_blocks"] = base
	seeds["valid_lists_empty"] = writeMultiLabelBytes(t, &libsvm.MultiLabelDataset{X: sparse.NewBuilder(0).Build(), Labels: [][]int{}}, WriterOptions{})
	s := spansOf(base)
	edit := func(name string, f func(c []byte)) {
		c := slices.Clone(base)
		f(c)
		reseal(c, s)
		seeds[name] = c
	}
	edit("err_lists_huge_count", func(c []byte) { le.PutUint32(c[s.footer+cacheFooterFix+28:], math.MaxUint32) })
	edit("err_lists_fraction", func(c []byte) { le.PutUint64(c[s.blocks[0]+cacheBlockHdr:], math.Float64bits(1.5)) })
	edit("err_lists_no_file_flag", func(c []byte) { le.PutUint16(c[6:], 0) })
	edit("err_lists_v1", func(c []byte) { le.PutUint16(c[4:], 1) })
}
