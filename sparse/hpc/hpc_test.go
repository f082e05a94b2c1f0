package hpc

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
	"github.com/hyperplane-ml/hyperplane/sparse/libsvm"
)

// randCacheDataset returns a random data set of n rows: about a tenth of
// the rows empty, the others with 1..maxNNZ nonzeros below cols, labels
// drawn from a small set of integers and fractions (−0 included), values
// from a normal distribution mixed with zeros, subnormals and extremes.
// With qid, every row has a query id.
func randCacheDataset(r *rand.Rand, n, maxNNZ, cols int, qid bool) *sparse.Dataset {
	labels := []float64{-1, 1, 0, 2, -3, 0.5, -2.25, 1e300, math.Copysign(0, -1)}
	specials := []float32{0, float32(math.Copysign(0, -1)), math.SmallestNonzeroFloat32, math.MaxFloat32, -math.MaxFloat32, 1, -1}
	b := sparse.NewBuilder(cols)
	y := make([]float64, 0, n)
	var q []int64
	if qid {
		q = make([]int64, 0, n)
	}
	var ind []int32
	var val []float32
	for range n {
		ind, val = ind[:0], val[:0]
		if r.IntN(10) != 0 {
			k := 1 + r.IntN(maxNNZ)
			for range k {
				ind = append(ind, int32(r.IntN(cols)))
			}
			slices.Sort(ind)
			ind = slices.Compact(ind)
			for range ind {
				v := float32(r.NormFloat64())
				if r.IntN(8) == 0 {
					v = specials[r.IntN(len(specials))]
				}
				val = append(val, v)
			}
		}
		if err := b.Add(ind, val); err != nil {
			panic(err)
		}
		y = append(y, labels[r.IntN(len(labels))])
		if qid {
			q = append(q, int64(r.IntN(5))-1)
		}
	}
	return &sparse.Dataset{X: b.Build(), Y: y, QID: q}
}

// cacheBytes writes d with the given block size.
func cacheBytes(t testing.TB, d *sparse.Dataset, blockSize int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := writeCache(&buf, d, WriterOptions{BlockSize: blockSize}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func openCacheBytes(b []byte, opt Options) (*File, error) {
	return openCache(bytes.NewReader(b), int64(len(b)), opt)
}

// loadBytes opens b in memory and loads it.
func loadBytes(b []byte, opt Options) (*sparse.Dataset, error) {
	c, err := openCacheBytes(b, opt)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return c.Load()
}

// scanCache reads every row of sc into a Dataset of cols columns.
func scanCache(sc *Scanner, cols int) (*sparse.Dataset, error) {
	defer sc.Close()
	b := sparse.NewBuilder(0)
	y := []float64{}
	var qid []int64
	has := false
	for sc.Scan() {
		label, v := sc.Row()
		if err := v.Validate(); err != nil {
			return nil, fmt.Errorf("row %d: %w", len(y), err)
		}
		if err := b.Add(v.Ind, v.Val); err != nil {
			return nil, err
		}
		y = append(y, label)
		q, ok := sc.QID()
		qid = append(qid, q)
		has = has || ok
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	d := &sparse.Dataset{X: b.Build(), Y: y}
	d.X.Cols = cols
	if has {
		d.QID = qid
	}
	return d, nil
}

// readBlocksShuffled reads the blocks of c in a random order with
// ReadBlock and assembles them.
func readBlocksShuffled(c *File, r *rand.Rand) (*sparse.Dataset, error) {
	parts := make([]*sparse.Dataset, c.NumBlocks())
	var blk Block
	for _, i := range r.Perm(c.NumBlocks()) {
		if err := c.ReadBlock(i, &blk); err != nil {
			return nil, err
		}
		if blk.Index != i || blk.Start != c.BlockInfo(i).Start || blk.Rows() != c.BlockInfo(i).Rows {
			return nil, fmt.Errorf("block %d: Index %d Start %d Rows %d, info %+v", i, blk.Index, blk.Start, blk.Rows(), c.BlockInfo(i))
		}
		if err := blk.X.Validate(); err != nil {
			return nil, fmt.Errorf("block %d: %w", i, err)
		}
		p := &sparse.Dataset{X: blk.X.Slice(0, blk.X.Rows), Y: slices.Clone(blk.Y), QID: slices.Clone(blk.QID)}
		if p.QID == nil && c.HasQID() {
			p.QID = make([]int64, len(p.Y))
		}
		parts[i] = p
	}
	d := &sparse.Dataset{X: &sparse.CSR{Cols: c.Cols(), Indptr: []int64{0}, Ind: []int32{}, Val: []float32{}}, Y: []float64{}}
	for _, p := range parts {
		n0 := int64(len(d.X.Ind))
		d.Y = append(d.Y, p.Y...)
		if c.HasQID() {
			d.QID = append(d.QID, p.QID...)
		}
		d.X.Ind = append(d.X.Ind, p.X.Ind...)
		d.X.Val = append(d.X.Val, p.X.Val...)
		for _, q := range p.X.Indptr[1:] {
			d.X.Indptr = append(d.X.Indptr, q+n0)
		}
	}
	d.X.Rows = len(d.Y)
	return d, nil
}

// readCacheAllWays reads the cache b (also written to a file, to test
// memory mapping) with every reader — Load (read, mapped, decoded as on a
// big-endian host), Read, a scanner over the File and over the
// stream, ReadBlock in a random order — checks that they agree (same data,
// or all an error) and returns Load's result.
func readCacheAllWays(t *testing.T, b []byte, opt sparse.ReadOptions) (*sparse.Dataset, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "x.hpc")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	opt.Name = path
	copt := Options{ReadOptions: opt}
	d, err := loadBytes(b, copt)
	withCache := func(o Options, f func(c *File) (*sparse.Dataset, error)) func() (*sparse.Dataset, error) {
		return func() (*sparse.Dataset, error) {
			c, err := Open(path, o)
			if err != nil {
				return nil, err
			}
			defer c.Close()
			if o.Map && mmapSupported && !c.Mapped() {
				t.Errorf("Map: file not mapped")
			}
			return f(c)
		}
	}
	load := func(c *File) (*sparse.Dataset, error) { return c.Load() }
	scan := func(c *File) (*sparse.Dataset, error) { return scanCache(c.Scanner(), c.Cols()) }
	shuffled := func(c *File) (*sparse.Dataset, error) {
		return readBlocksShuffled(c, rand.New(rand.NewPCG(7, uint64(len(b)))))
	}
	mapped := copt
	mapped.Map = true
	ways := []struct {
		name string
		read func() (*sparse.Dataset, error)
	}{
		{"file Load", withCache(copt, load)},
		{"mapped Load", withCache(mapped, load)},
		{"scanner", withCache(copt, scan)},
		{"mapped scanner", withCache(mapped, scan)},
		{"ReadBlock", withCache(copt, shuffled)},
		{"mapped ReadBlock", withCache(mapped, shuffled)},
		{"Read", func() (*sparse.Dataset, error) { return Read(bytes.NewReader(b), opt) }},
		{"Read one byte", func() (*sparse.Dataset, error) { return Read(iotest.OneByteReader(bytes.NewReader(b)), opt) }},
		{"stream scanner", func() (*sparse.Dataset, error) {
			if d == nil {
				return scanCache(NewScanner(bytes.NewReader(b), opt), 0)
			}
			return scanCache(NewScanner(bytes.NewReader(b), opt), d.X.Cols)
		}},
		{"decoded Load", func() (*sparse.Dataset, error) {
			cacheForceDecode = true
			defer func() { cacheForceDecode = false }()
			return loadBytes(b, copt)
		}},
		{"sparse.ReadFile", func() (*sparse.Dataset, error) { return sparse.ReadFile(path, opt) }},
	}
	for _, w := range ways {
		if w.name == "sparse.ReadFile" && !bytes.HasPrefix(b, []byte(cacheMagic)) {
			continue // not HPSC: sparse.ReadFile parses it as LIBSVM
		}
		d2, err2 := w.read()
		if (err == nil) != (err2 == nil) {
			t.Fatalf("%s: error %v, Load error %v", w.name, err2, err)
		}
		if err != nil {
			if !errors.Is(err2, ErrFormat) && errors.Is(err, ErrFormat) {
				t.Fatalf("%s: error %v does not wrap ErrFormat like Load's %v", w.name, err2, err)
			}
			continue
		}
		if diff := diffDatasets(d, d2); diff != "" {
			t.Fatalf("%s differs from Load: %s", w.name, diff)
		}
	}
	if err == nil {
		if verr := d.Validate(); verr != nil {
			t.Fatalf("result invalid: %v", verr)
		}
	}
	return d, err
}

func TestCacheRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, tc := range []struct {
		name             string
		rows, nnz, cols  int
		qid              bool
		blockSize        int
		wantMinNumBlocks int
	}{
		{"empty", 0, 1, 1, false, 0, 0},
		{"one empty row", 1, 1, 1, false, 0, 1},
		{"small", 50, 10, 40, false, 0, 1},
		{"one row per block", 40, 30, 1000, false, 1, 40},
		{"tiny blocks", 300, 300, 5000, false, 700, 20},
		{"qid", 200, 20, 100, true, 500, 5},
		{"default blocks", 6000, 300, 100000, false, 0, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := randCacheDataset(r, tc.rows, tc.nnz, tc.cols, tc.qid)
			b := cacheBytes(t, d, tc.blockSize)
			got, err := readCacheAllWays(t, b, sparse.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := diffDatasets(d, got); diff != "" {
				t.Fatalf("round trip differs: %s", diff)
			}
			c, err := openCacheBytes(b, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if c.NumBlocks() < tc.wantMinNumBlocks {
				t.Errorf("%d blocks, want at least %d", c.NumBlocks(), tc.wantMinNumBlocks)
			}
			if c.Rows() != int64(d.X.Rows) || c.NNZ() != d.X.NNZ() || c.Cols() != d.X.Cols || c.HasQID() != tc.qid {
				t.Errorf("Rows %d NNZ %d Cols %d HasQID %v", c.Rows(), c.NNZ(), c.Cols(), c.HasQID())
			}
			want := map[float64]bool{}
			for _, y := range d.Y {
				want[y] = true
			}
			labels := c.Labels()
			if len(labels) != len(want) || !slices.IsSorted(labels) {
				t.Errorf("Labels() = %v", labels)
			}
			for _, y := range labels {
				if !want[y] || math.Signbit(y) && y == 0 {
					t.Errorf("Labels() = %v", labels)
				}
			}
			// Writing the loaded data set again gives the same bytes.
			if b2 := cacheBytes(t, got, tc.blockSize); !bytes.Equal(b, b2) {
				t.Errorf("rewriting the loaded data set changed the file")
			}
		})
	}
}

func TestCacheBigEndianWriterPath(t *testing.T) {
	d := randCacheDataset(rand.New(rand.NewPCG(2, 2)), 300, 50, 500, true)
	want := cacheBytes(t, d, 2000)
	cacheForceDecode = true
	got := cacheBytes(t, d, 2000)
	cacheForceDecode = false
	if !bytes.Equal(want, got) {
		t.Fatal("the portable writer path wrote different bytes")
	}
}

func TestCacheInferredDim(t *testing.T) {
	// A Writer without Dim records the largest index + 1.
	var buf bytes.Buffer
	w := NewWriter(&buf, WriterOptions{BlockSize: 1})
	for _, row := range []struct {
		y   float64
		ind []int32
	}{{1, []int32{3, 7}}, {-1, nil}, {2, []int32{0, 41}}, {1, []int32{5}}} {
		if err := w.Add(row.y, row.ind, make([]float32, len(row.ind))); err != nil {
			t.Fatal(err)
		}
	}
	if w.Rows() != 4 {
		t.Errorf("Rows() = %d", w.Rows())
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err == nil {
		t.Error("second Close: no error")
	}
	if err := w.Add(1, nil, nil); err == nil {
		t.Error("Add after Close: no error")
	}
	d, err := readCacheAllWays(t, buf.Bytes(), sparse.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.X.Cols != 42 || d.X.Rows != 4 {
		t.Fatalf("%d×%d, want 4×42", d.X.Rows, d.X.Cols)
	}
	// A stream without a fixed dim reports each row's own dimension.
	sc := NewScanner(bytes.NewReader(buf.Bytes()), sparse.ReadOptions{})
	var dims []int
	for sc.Scan() {
		_, v := sc.Row()
		dims = append(dims, v.Dim)
	}
	if sc.Err() != nil || fmt.Sprint(dims) != "[8 0 42 6]" {
		t.Fatalf("dims %v, err %v", dims, sc.Err())
	}
	// ReadOptions.Dim widens; MaxDim and a smaller Dim refuse.
	if d, err := readCacheAllWays(t, buf.Bytes(), sparse.ReadOptions{Dim: 100}); err != nil || d.X.Cols != 100 {
		t.Fatalf("Dim 100: %v", err)
	}
	for _, opt := range []sparse.ReadOptions{{Dim: 41}, {MaxDim: 41}} {
		_, err := readCacheAllWays(t, buf.Bytes(), opt)
		if !errors.Is(err, sparse.ErrIndexRange) || errors.Is(err, ErrFormat) {
			t.Errorf("%+v: error %v, want sparse.ErrIndexRange only", opt, err)
		}
	}
	if _, err := readCacheAllWays(t, buf.Bytes(), sparse.ReadOptions{MaxDim: 42}); err != nil {
		t.Error(err)
	}
}

func TestCacheMaxRowNNZ(t *testing.T) {
	d := randCacheDataset(rand.New(rand.NewPCG(3, 3)), 100, 40, 100, false)
	b := cacheBytes(t, d, 300)
	longest := 0
	for i := range d.X.Rows {
		longest = max(longest, d.X.Row(i).NNZ())
	}
	if _, err := readCacheAllWays(t, b, sparse.ReadOptions{MaxRowNNZ: longest}); err != nil {
		t.Fatal(err)
	}
	_, err := readCacheAllWays(t, b, sparse.ReadOptions{MaxRowNNZ: longest - 1})
	if !errors.Is(err, sparse.ErrRowTooLong) || errors.Is(err, ErrFormat) {
		t.Fatalf("error %v, want sparse.ErrRowTooLong only", err)
	}
	if _, err := Open("x", Options{ReadOptions: sparse.ReadOptions{MaxRowNNZ: -1}}); !errors.Is(err, sparse.ErrBadOption) {
		t.Errorf("bad option: %v", err)
	}
}

func TestCacheManyLabels(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, WriterOptions{})
	for i := range MaxLabels + 1 {
		if err := w.Add(float64(i)/4, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	c, err := openCacheBytes(buf.Bytes(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Labels() != nil {
		t.Errorf("%d labels listed, want none", len(c.Labels()))
	}
	if _, err := readCacheAllWays(t, buf.Bytes(), sparse.ReadOptions{}); err != nil {
		t.Fatal(err)
	}
}

func TestCacheWriterRejects(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, WriterOptions{Dim: 10, BlockSize: 64})
	bad := []struct {
		y    float64
		ind  []int32
		val  []float32
		want error
	}{
		{1, []int32{1, 1}, []float32{1, 1}, sparse.ErrIndexOrder},
		{1, []int32{2, 1}, []float32{1, 1}, sparse.ErrIndexOrder},
		{1, []int32{10}, []float32{1}, sparse.ErrIndexRange},
		{1, []int32{-1}, []float32{1}, sparse.ErrIndexRange},
		{1, []int32{1}, []float32{float32(math.NaN())}, sparse.ErrValue},
		{1, []int32{1}, []float32{float32(math.Inf(-1))}, sparse.ErrValue},
		{math.NaN(), nil, nil, sparse.ErrValue},
		{math.Inf(1), nil, nil, sparse.ErrValue},
		{1, []int32{1}, nil, sparse.ErrShape},
	}
	b := sparse.NewBuilder(10)
	var y []float64
	for i, row := range bad {
		if err := w.Add(row.y, row.ind, row.val); !errors.Is(err, row.want) {
			t.Errorf("row %d: error %v, want %v", i, err, row.want)
		}
		// The writer stays usable.
		ind, val := []int32{int32(i)}, []float32{float32(i)}
		if err := w.Add(float64(i), ind, val); err != nil {
			t.Fatal(err)
		}
		b.Add(ind, val)
		y = append(y, float64(i))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := readCacheAllWays(t, buf.Bytes(), sparse.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := diffDatasets(&sparse.Dataset{X: b.Build(), Y: y}, got); diff != "" {
		t.Fatal(diff)
	}
	bigDim := math.MaxInt32
	bigDim++ // beyond the int32 index range (wraps negative on 32-bit hosts)
	for _, opt := range []WriterOptions{{Dim: -1}, {BlockSize: -1}, {BlockSize: maxCacheBlockSize + 1}, {Dim: bigDim}} {
		w := NewWriter(io.Discard, opt)
		if err := w.Add(1, nil, nil); !errors.Is(err, sparse.ErrBadOption) {
			t.Errorf("%+v: Add error %v", opt, err)
		}
		if err := w.Close(); !errors.Is(err, sparse.ErrBadOption) {
			t.Errorf("%+v: Close error %v", opt, err)
		}
	}
	if err := Write(io.Discard, &sparse.Dataset{X: &sparse.CSR{Rows: 1, Indptr: []int64{0, 0}}, Y: []float64{math.NaN()}}); !errors.Is(err, sparse.ErrValue) {
		t.Errorf("invalid data set: %v", err)
	}
}

// cacheFailWriter fails after n bytes.
type cacheFailWriter struct{ n int }

func (f *cacheFailWriter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		k := f.n
		f.n = 0
		return k, errors.New("disk full")
	}
	f.n -= len(p)
	return len(p), nil
}

func TestCacheWriterIOError(t *testing.T) {
	d := randCacheDataset(rand.New(rand.NewPCG(4, 4)), 200, 20, 100, false)
	size := len(cacheBytes(t, d, 500))
	for _, n := range []int{0, 10, 100, size / 2, size - 30, size - 1} {
		err := writeCache(&cacheFailWriter{n}, d, WriterOptions{BlockSize: 500})
		if err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("fail after %d bytes: error %v", n, err)
		}
	}
}

func TestCacheFiles(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join("..", "libsvm", "testdata", "small.svm")
	want, err := libsvm.ReadFile(src, sparse.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{src, src + ".gz"} {
		t.Run(filepath.Base(in), func(t *testing.T) {
			out := filepath.Join(dir, filepath.Base(in)+".hpc")
			if err := ConvertLIBSVMFile(out, in, sparse.ReadOptions{}, WriterOptions{BlockSize: 100}); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			got, err := readCacheAllWays(t, b, sparse.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := diffDatasets(want, got); diff != "" {
				t.Fatalf("%s: %s", in, diff)
			}
			for _, p := range []string{in, out} {
				d, err := sparse.ReadFile(p, sparse.ReadOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if diff := diffDatasets(want, d); diff != "" {
					t.Fatalf("sparse.ReadFile(%s): %s", p, diff)
				}
				format, err := sparse.SniffFile(p)
				if err != nil || (format == Name) != (p == out) {
					t.Errorf("sparse.SniffFile(%s) = %v, %v", p, format, err)
				}
			}
		})
	}
	// sparse.WriteFile writes HPSC for a name ending in .hpc, ReadFile
	// reads it, and a failed conversion leaves the old file alone.
	path := filepath.Join(dir, "d.hpc")
	if err := sparse.WriteFile(path, want); err != nil {
		t.Fatal(err)
	}
	if d, err := ReadFile(path, sparse.ReadOptions{}); err != nil || diffDatasets(want, d) != "" {
		t.Fatalf("WriteFile: %v", err)
	}
	if err := ConvertLIBSVMFile(path, filepath.Join("..", "libsvm", "testdata", "bad.svm"), sparse.ReadOptions{}, WriterOptions{}); err == nil {
		t.Fatal("converting bad.svm: no error")
	} else if !strings.Contains(err.Error(), "bad.svm") {
		t.Errorf("error %q does not name the file", err)
	}
	if d, err := ReadFile(path, sparse.ReadOptions{}); err != nil || diffDatasets(want, d) != "" {
		t.Fatalf("the failed conversion damaged the file: %v", err)
	}
	if err := sparse.WriteFile(path, &sparse.Dataset{}); err == nil {
		t.Fatal("sparse.WriteFile of an invalid data set: no error")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 3 {
		t.Errorf("temporary files left: %v", ents)
	}
	if _, err := Open(filepath.Join(dir, "missing"), Options{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := Open(src, Options{}); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), src+": not a hyperplane cache file") {
		t.Errorf("LIBSVM file opened as a cache: %v", err)
	}
}

// TestSniff: the registered formats are told apart by their first bytes,
// which sparse.Sniff peeks at without consuming them.
func TestSniff(t *testing.T) {
	for in, want := range map[string]string{"": libsvm.Name, "HPS": libsvm.Name, "HPSC": Name, "HPSCxyz": Name, "1 1:1\n": libsvm.Name, "\x1f\x8b\x08": libsvm.GzipName} {
		br := bufio.NewReader(strings.NewReader(in))
		if got, err := sparse.Sniff(br); got != want || err != nil {
			t.Errorf("Sniff(%q) = %v, %v; want %s", in, got, err, want)
		}
		if rest, _ := io.ReadAll(br); string(rest) != in {
			t.Errorf("Sniff(%q) consumed bytes: %q left", in, rest)
		}
	}
	for name, want := range map[string]string{"a.hpc": Name, "a.svm": libsvm.Name, "a.svm.gz": libsvm.GzipName, "a.hpc.gz": libsvm.GzipName, "a": libsvm.Name} {
		if got := sparse.FormatForName(name); got != want {
			t.Errorf("FormatForName(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestCacheCRLFIrrelevant(t *testing.T) {
	lf := "1 1:0.5 3:2\n-1 2:1 # c\n\n0\n2 qid:3 4:1\n"
	crlf := strings.ReplaceAll(lf, "\n", "\r\n")
	var a, b bytes.Buffer
	if err := ConvertLIBSVM(&a, strings.NewReader(lf), sparse.ReadOptions{}, WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := ConvertLIBSVM(&b, strings.NewReader(crlf), sparse.ReadOptions{}, WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("CRLF input gave a different cache")
	}
	want, err := libsvm.Read(strings.NewReader(lf), sparse.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := readCacheAllWays(t, a.Bytes(), sparse.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := diffDatasets(want, got); diff != "" {
		t.Fatal(diff)
	}
}

// smallCache is a small valid file of several blocks, with query ids.
func smallCache(t testing.TB) []byte {
	d := randCacheDataset(rand.New(rand.NewPCG(5, 5)), 12, 6, 20, true)
	return cacheBytes(t, d, 150)
}

func TestCacheTruncated(t *testing.T) {
	b := smallCache(t)
	// Every length is read five ways, through a file each; -short keeps
	// the first and last 48 lengths (the header and the end of the file)
	// and every sixteenth in between.
	keep := func(n int) bool { return true }
	if testing.Short() {
		t.Log("-short: truncations to every sixteenth length between the first and last 48")
		keep = func(n int) bool { return n < 48 || n >= len(b)-48 || n%16 == 0 }
	}
	for n := range len(b) {
		if !keep(n) {
			continue
		}
		_, err := readCacheAllWays(t, b[:n], sparse.ReadOptions{})
		if !errors.Is(err, ErrFormat) {
			t.Fatalf("truncated to %d of %d bytes: error %v", n, len(b), err)
		}
	}
	// Extra bytes are an error too.
	if _, err := readCacheAllWays(t, append(slices.Clone(b), 0), sparse.ReadOptions{}); !errors.Is(err, ErrFormat) {
		t.Fatalf("trailing byte: %v", err)
	}
}

func TestCacheBitFlips(t *testing.T) {
	b := smallCache(t)
	want, err := loadBytes(b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	accepted := 0
	for i := range 8 * len(b) {
		c := slices.Clone(b)
		c[i/8] ^= 1 << (i % 8)
		d, err := loadBytes(c, Options{})
		d2, err2 := Read(bytes.NewReader(c), sparse.ReadOptions{})
		if (err == nil) != (err2 == nil) {
			t.Fatalf("bit %d: Load error %v, Read error %v", i, err, err2)
		}
		if err != nil {
			if !errors.Is(err, ErrFormat) || !errors.Is(err2, ErrFormat) {
				t.Fatalf("bit %d: errors %v, %v do not wrap ErrFormat", i, err, err2)
			}
			continue
		}
		accepted++
		if verr := d.Validate(); verr != nil || diffDatasets(d, d2) != "" {
			t.Fatalf("bit %d: accepted an invalid or inconsistent data set: %v", i, verr)
		}
		if diffDatasets(want, d) == "" {
			t.Fatalf("bit %d: flip had no effect", i)
		}
	}
	if accepted > 0 {
		t.Errorf("%d of %d bit flips went undetected", accepted, 8*len(b))
	}
}

// cacheSpans locates the parts of a valid cache file b.
type cacheSpans struct {
	blocks  []int // offsets of the block headers
	footer  int
	trailer int
}

func spansOf(b []byte) cacheSpans {
	le := binary.LittleEndian
	s := cacheSpans{trailer: len(b) - cacheTrailer}
	s.footer = int(le.Uint64(b[s.trailer:]))
	for off := cacheHeaderSize; off < s.footer; {
		s.blocks = append(s.blocks, off)
		off += cacheBlockHdr + int(le.Uint64(b[off+24:]))
	}
	return s
}

// reseal recomputes every checksum of b, whose layout is s, so that a
// deliberately inconsistent file passes the checksums.
func reseal(b []byte, s cacheSpans) {
	le := binary.LittleEndian
	le.PutUint32(b[12:], crc32.Checksum(b[:12], castagnoli))
	for _, off := range s.blocks {
		h := b[off : off+cacheBlockHdr]
		n := le.Uint64(h[24:])
		if end := uint64(off+cacheBlockHdr) + n; n < uint64(len(b)) && end <= uint64(s.footer) {
			le.PutUint32(h[32:], crc32.Checksum(b[off+cacheBlockHdr:end], castagnoli))
		}
		le.PutUint32(h[36:], crc32.Checksum(h[:36], castagnoli))
	}
	fl := s.trailer - s.footer
	le.PutUint32(b[s.footer+fl-8:], crc32.Checksum(b[s.footer:s.footer+fl-8], castagnoli))
	le.PutUint32(b[s.trailer+16:], crc32.Checksum(b[s.trailer:s.trailer+16], castagnoli))
}

// cacheAllocDuring returns the bytes f allocates.
func cacheAllocDuring(f func()) uint64 {
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	f()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}

func TestCacheHostileCounts(t *testing.T) {
	b := smallCache(t)
	s := spansOf(b)
	le := binary.LittleEndian
	blk := s.blocks[1]
	idx := s.footer + cacheFooterFix + cacheIndexEntry // entry of block 1
	cases := []struct {
		name string
		edit func(c []byte)
	}{
		{"footer blocks", func(c []byte) { le.PutUint64(c[s.footer+8:], 1<<39) }},
		{"footer labels", func(c []byte) { le.PutUint64(c[s.footer+40:], 1<<39) }},
		{"footer rows", func(c []byte) { le.PutUint64(c[s.footer+16:], 1<<62) }},
		{"footer nnz", func(c []byte) { le.PutUint64(c[s.footer+24:], 1<<57) }},
		{"index rows", func(c []byte) { le.PutUint32(c[idx+16:], math.MaxUint32) }},
		{"index nnz", func(c []byte) { le.PutUint64(c[idx+8:], 1<<57) }},
		{"block rows", func(c []byte) {
			le.PutUint32(c[blk+8:], math.MaxUint32)
			l, _ := layoutOf(math.MaxUint32, le.Uint64(c[blk+16:]), true)
			le.PutUint64(c[blk+24:], uint64(l.size))
		}},
		{"block nnz", func(c []byte) {
			le.PutUint64(c[blk+16:], 1<<57)
			l, _ := layoutOf(uint64(le.Uint32(c[blk+8:])), 1<<57, true)
			le.PutUint64(c[blk+24:], uint64(l.size))
		}},
		{"trailer footer length", func(c []byte) { le.PutUint64(c[s.trailer+8:], 1<<62) }},
		{"trailer footer offset", func(c []byte) { le.PutUint64(c[s.trailer:], math.MaxUint64-7) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := slices.Clone(b)
			tc.edit(c)
			reseal(c, s)
			var err, err2 error
			n := cacheAllocDuring(func() {
				_, err = loadBytes(c, Options{})
				_, err2 = Read(bytes.NewReader(c), sparse.ReadOptions{})
			})
			if !errors.Is(err, ErrFormat) || !errors.Is(err2, ErrFormat) {
				t.Errorf("errors %v, %v", err, err2)
			}
			if n > 4<<20 {
				t.Errorf("allocated %d bytes for a %d-byte file", n, len(c))
			}
		})
	}
}

func TestCacheHostileContent(t *testing.T) {
	// Files whose checksums are right but whose data break the
	// invariants: caught by the value checks, with the right sentinel.
	var buf bytes.Buffer
	w := NewWriter(&buf, WriterOptions{Dim: 100})
	w.Add(1, []int32{3, 5, 9}, []float32{1, 2, 3})
	w.Add(-1, []int32{0, 99}, []float32{4, 5})
	w.Close()
	b := buf.Bytes()
	s := spansOf(b)
	payload := s.blocks[0] + cacheBlockHdr
	lay, _ := layoutOf(2, 5, false)
	le := binary.LittleEndian
	cases := []struct {
		name string
		edit func(c []byte)
		want error
	}{
		{"order", func(c []byte) { le.PutUint32(c[payload+int(lay.ind)+4:], 2) }, sparse.ErrIndexOrder},
		{"repeat", func(c []byte) { le.PutUint32(c[payload+int(lay.ind)+4:], 3) }, sparse.ErrIndexOrder},
		{"negative", func(c []byte) { le.PutUint32(c[payload+int(lay.ind)+12:], math.MaxUint32) }, sparse.ErrIndexRange},
		{"max index", func(c []byte) { le.PutUint32(c[payload+int(lay.ind)+16:], 98) }, sparse.ErrIndexRange},
		{"NaN value", func(c []byte) { le.PutUint32(c[payload+int(lay.val)+8:], 0x7fc00000) }, sparse.ErrValue},
		{"Inf value", func(c []byte) { le.PutUint32(c[payload+int(lay.val)+16:], 0xff800000) }, sparse.ErrValue},
		{"NaN label", func(c []byte) { le.PutUint64(c[payload+8:], math.Float64bits(math.NaN())) }, sparse.ErrValue},
		{"label not in set", func(c []byte) { le.PutUint64(c[payload+8:], math.Float64bits(2)) }, ErrFormat},
		{"row pointers", func(c []byte) { le.PutUint64(c[payload+int(lay.p)+8:], 6) }, sparse.ErrShape},
		{"row pointers end", func(c []byte) {
			le.PutUint64(c[payload+int(lay.p)+8:], 0)
			le.PutUint64(c[payload+int(lay.p)+16:], 4)
		}, sparse.ErrShape},
		{"row pointers start", func(c []byte) { le.PutUint64(c[payload+int(lay.p):], 1) }, sparse.ErrShape},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := slices.Clone(b)
			tc.edit(c)
			reseal(c, s)
			_, err := readCacheAllWays(t, c, sparse.ReadOptions{})
			if !errors.Is(err, tc.want) || !errors.Is(err, ErrFormat) {
				t.Fatalf("error %v, want %v and ErrFormat", err, tc.want)
			}
			if !strings.Contains(err.Error(), "x.hpc: block 0: ") {
				t.Errorf("error %q does not name the file and block", err)
			}
			// A block that failed is not taken as checked on a second read.
			cc, err := openCacheBytes(c, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for range 2 {
				if err := cc.ReadBlock(0, new(Block)); !errors.Is(err, tc.want) {
					t.Fatalf("ReadBlock: error %v, want %v", err, tc.want)
				}
			}
			// Skipping the value checks keeps the structural ones.
			_, err = loadBytes(c, Options{SkipValueChecks: true})
			if tc.want == sparse.ErrShape && !errors.Is(err, sparse.ErrShape) {
				t.Errorf("SkipValueChecks: error %v, want sparse.ErrShape", err)
			}
		})
	}
}

func TestCacheErrorMessages(t *testing.T) {
	b := smallCache(t)
	s := spansOf(b)
	le := binary.LittleEndian
	cases := []struct {
		name string
		edit func(c []byte)
		want string
	}{
		{"checksum", func(c []byte) { c[s.blocks[2]+cacheBlockHdr+3] ^= 1 }, "f.hpc: block 2: checksum mismatch"},
		{"version", func(c []byte) {
			le.PutUint16(c[4:], 3)
			reseal(c, s)
		}, "f.hpc: newer version 3 (this build reads versions up to 2)"},
		{"magic", func(c []byte) { c[0] = 'X' }, "f.hpc: not a hyperplane cache file"},
		{"truncated", func(c []byte) { copy(c[len(c)-4:], "XXXX") }, "f.hpc: truncated: no trailer"},
		{"header", func(c []byte) { c[9] ^= 1 }, "f.hpc: file header checksum mismatch"},
		{"footer", func(c []byte) { c[s.footer+50] ^= 1 }, "f.hpc: footer checksum mismatch"},
	}
	for _, tc := range cases {
		c := slices.Clone(b)
		tc.edit(c)
		_, err := loadBytes(c, Options{ReadOptions: sparse.ReadOptions{Name: "f.hpc"}})
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || !errors.Is(err, ErrFormat) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	var ce *Error
	_, err := Read(bytes.NewReader(b[:len(b)/2]), sparse.ReadOptions{})
	if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), "<input>: ") || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("truncated stream: %v", err)
	}
}

func TestCacheScanner(t *testing.T) {
	d := randCacheDataset(rand.New(rand.NewPCG(6, 6)), 500, 30, 300, false)
	b := cacheBytes(t, d, 1000)
	path := filepath.Join(t.TempDir(), "s.hpc")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, mapped := range []bool{false, true} {
		t.Run(fmt.Sprintf("mapped=%v", mapped), func(t *testing.T) {
			c, err := Open(path, Options{Map: mapped})
			if err != nil {
				t.Fatal(err)
			}
			// Blocks in a shuffled order, a block at a time.
			order := rand.New(rand.NewPCG(1, 2)).Perm(c.NumBlocks())
			sc := c.ScannerOrder(order)
			k := 0
			for sc.ScanBlock() {
				blk := sc.Block()
				if blk.Index != order[k] {
					t.Fatalf("block %d, want %d", blk.Index, order[k])
				}
				want := d.X.Slice(int(blk.Start), int(blk.Start)+blk.Rows())
				if diff := diffDatasets(&sparse.Dataset{X: want, Y: d.Y[blk.Start : blk.Start+int64(blk.Rows())]}, &sparse.Dataset{X: blk.X, Y: blk.Y}); diff != "" {
					t.Fatalf("block %d: %s", blk.Index, diff)
				}
				k++
			}
			if sc.Err() != nil || k != c.NumBlocks() {
				t.Fatalf("%d blocks, err %v", k, sc.Err())
			}
			if sc.Block() != nil || sc.Scan() {
				t.Fatal("scanner not at its end")
			}
			// A bad block number stops the scan with an error.
			sc = c.ScannerOrder([]int{0, c.NumBlocks()})
			for sc.Scan() {
			}
			if sc.Err() == nil {
				t.Error("no error for a bad block number")
			}
			// Stopping early, and the cache's Close stopping scanners.
			before := runtime.NumGoroutine()
			for range 5 {
				sc := c.Scanner()
				sc.Scan()
				sc.Scan()
				if sc.Close() != nil || sc.Scan() {
					t.Fatal("Scan after Close")
				}
			}
			sc1, sc2 := c.Scanner(), c.Scanner()
			sc1.Scan()
			sc2.ScanBlock()
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			if sc1.Scan() || sc2.ScanBlock() {
				t.Error("scanners go on after File.Close")
			}
			if err := c.ReadBlock(0, new(Block)); err == nil {
				t.Error("ReadBlock after Close: no error")
			}
			if _, err := c.Load(); err == nil {
				t.Error("Load after Close: no error")
			}
			for i := 0; runtime.NumGoroutine() > before && i < 100; i++ {
				time.Sleep(10 * time.Millisecond)
			}
			if n := runtime.NumGoroutine(); n > before {
				t.Errorf("%d goroutines left running, %d before", n, before)
			}
		})
	}
	// An unusable stream.
	sc := NewScanner(strings.NewReader("1 1:1\n"), sparse.ReadOptions{})
	if sc.Scan() || !errors.Is(sc.Err(), ErrFormat) {
		t.Errorf("text read as a cache: %v", sc.Err())
	}
	sc = NewScanner(bytes.NewReader(b), sparse.ReadOptions{Dim: -1})
	if sc.Scan() || !errors.Is(sc.Err(), sparse.ErrBadOption) {
		t.Errorf("bad option: %v", sc.Err())
	}
	if y, v := sc.Row(); y != 0 || v.Ind != nil {
		t.Error("Row without a row")
	}
}

func TestCacheConcurrentReads(t *testing.T) {
	d := randCacheDataset(rand.New(rand.NewPCG(8, 8)), 400, 40, 1000, false)
	b := cacheBytes(t, d, 2000)
	path := filepath.Join(t.TempDir(), "c.hpc")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, mapped := range []bool{false, true} {
		t.Run(fmt.Sprintf("mapped=%v", mapped), func(t *testing.T) {
			c, err := Open(path, Options{Map: mapped, ReadOptions: sparse.ReadOptions{Workers: 4}})
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error)
			for g := range 4 {
				go func() {
					var blk Block
					for k := range 3 * c.NumBlocks() {
						i := (k*7 + g) % c.NumBlocks()
						if err := c.ReadBlock(i, &blk); err != nil {
							done <- err
							return
						}
						if blk.Y[0] != d.Y[blk.Start] {
							done <- fmt.Errorf("block %d: wrong label", i)
							return
						}
					}
					_, err := c.Load()
					done <- err
				}()
			}
			for range 4 {
				if err := <-done; err != nil {
					t.Fatal(err)
				}
			}
			c.Close()
		})
	}
}

func TestCacheStreamGrowth(t *testing.T) {
	// A block larger than the reader's first buffer grows it in steps.
	d := randCacheDataset(rand.New(rand.NewPCG(9, 9)), 2000, 300, 100000, false)
	b := cacheBytes(t, d, 8<<20)
	got, err := Read(cacheChunkReader{bytes.NewReader(b), 4096}, sparse.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := diffDatasets(d, got); diff != "" {
		t.Fatal(diff)
	}
}

// cacheChunkReader returns at most n bytes per Read.
type cacheChunkReader struct {
	r io.Reader
	n int
}

func (o cacheChunkReader) Read(p []byte) (int, error) {
	if len(p) > o.n {
		p = p[:o.n]
	}
	return o.r.Read(p)
}

func TestCacheCloseWhileScanning(t *testing.T) {
	d := randCacheDataset(rand.New(rand.NewPCG(10, 10)), 2000, 30, 300, false)
	b := cacheBytes(t, d, 500)
	path := filepath.Join(t.TempDir(), "c.hpc")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for range 20 {
		c, err := Open(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		errc := make(chan error)
		ready := make(chan struct{})
		go func() {
			sc := c.Scanner()
			defer sc.Close()
			n := 0
			for sc.Scan() {
				if n++; n == 10 {
					close(ready)
				}
				sc.Row()
			}
			errc <- sc.Err()
		}()
		<-ready
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		if err := <-errc; err != nil && err != errScannerStopped && !errors.Is(err, errCacheClosed) {
			t.Fatalf("scan stopped with %v", err)
		}
	}
}

func TestCacheRowPointerOverflow(t *testing.T) {
	// Row pointers whose differences overflow must not pass as valid, even
	// with MaxRowNNZ at its largest.
	var buf bytes.Buffer
	w := NewWriter(&buf, WriterOptions{})
	w.Add(1, []int32{1}, []float32{1})
	w.Add(1, []int32{2}, []float32{1})
	w.Add(1, nil, nil)
	w.Close()
	b := buf.Bytes()
	s := spansOf(b)
	lay, _ := layoutOf(3, 2, false)
	le := binary.LittleEndian
	p := s.blocks[0] + cacheBlockHdr + int(lay.p)
	for _, ptrs := range [][4]int64{
		{0, math.MaxInt64 - 1, -5, 2},
		{0, math.MinInt64 + 1, 1, 2},
		{0, 3, 1, 2},
	} {
		c := slices.Clone(b)
		for k, v := range ptrs {
			le.PutUint64(c[p+8*k:], uint64(v))
		}
		reseal(c, s)
		for _, skip := range []bool{false, true} {
			_, err := loadBytes(c, Options{ReadOptions: sparse.ReadOptions{MaxRowNNZ: math.MaxInt}, SkipValueChecks: skip})
			if !errors.Is(err, sparse.ErrShape) || !errors.Is(err, ErrFormat) {
				t.Errorf("pointers %v: error %v", ptrs, err)
			}
		}
	}
}

// rowSource is the engine's RowSource interface, which Scanner must
// implement like Scanner does.
type rowSource interface {
	Scan() bool
	Row() (label float64, x sparse.Vector)
	Err() error
}

var (
	_ rowSource = (*Scanner)(nil)
	_ rowSource = (*Scanner)(nil)
)

// TestCacheCloseDuringLoad: Close while Load copies blocks out of the
// mapping waits for the copy (no fault on unmapped memory); Load then
// returns the data or the closed cache's error.
func TestCacheCloseDuringLoad(t *testing.T) {
	d := randCacheDataset(rand.New(rand.NewPCG(1, 1)), 60000, 30, 50000, false)
	path := filepath.Join(t.TempDir(), "big.hpc")
	if err := sparse.WriteFile(path, d); err != nil {
		t.Fatal(err)
	}
	for trial := range 20 {
		c, err := Open(path, Options{Map: true, ReadOptions: sparse.ReadOptions{Workers: 2}})
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error)
		go func() {
			_, err := c.Load()
			done <- err
		}()
		time.Sleep(time.Duration(trial*100) * time.Microsecond)
		c.Close()
		if err := <-done; err != nil && !errors.Is(err, errCacheClosed) {
			t.Fatalf("trial %d: Load: %v", trial, err)
		}
	}
}

// TestConvertLIBSVMDimErrorLine: an index past the cache writer's Dim is
// reported as the LIBSVM reader reports it, a *ParseError naming the file
// and line (blank and comment lines counted), not as a cache row.
func TestConvertLIBSVMDimErrorLine(t *testing.T) {
	in := "# header\n\n1 1:1\n1 2:1\n1 9:1\n"
	for _, ropt := range []sparse.ReadOptions{{Name: "in.svm"}, {Name: "in.svm", Dim: 20}} {
		var buf bytes.Buffer
		err := ConvertLIBSVM(&buf, strings.NewReader(in), ropt, WriterOptions{Dim: 5})
		var pe *sparse.ParseError
		if !errors.As(err, &pe) || pe.File != "in.svm" || pe.Line != 5 || !errors.Is(err, sparse.ErrIndexRange) {
			t.Fatalf("read Dim %d: %v; want a sparse.ParseError at in.svm:5 wrapping sparse.ErrIndexRange", ropt.Dim, err)
		}
	}
}

// Load brings a whole cache into memory: what its index says that takes
// is checked against the budget first.
func TestCacheLoadBudget(t *testing.T) {
	d := randCacheDataset(rand.New(rand.NewPCG(91, 1)), 2000, 20, 500, false)
	b := cacheBytes(t, d, 8<<10)
	need := int64(d.X.Rows)*16 + d.X.NNZ()*8
	if _, err := loadBytes(b, Options{ReadOptions: sparse.ReadOptions{MemoryBudget: need}}); err != nil {
		t.Fatalf("at its size: %v", err)
	}
	_, err := loadBytes(b, Options{ReadOptions: sparse.ReadOptions{MemoryBudget: need - 1}})
	if !errors.Is(err, budget.ErrExceeded) || !strings.Contains(err.Error(), "out of core") {
		t.Fatalf("one byte short: %v", err)
	}
}

// TestMaxNNZ: Load, and so ReadFile, refuse a file with more nonzeros
// than ReadOptions.MaxNNZ (ErrTooLarge); ReadBlock ignores the cap.
func TestMaxNNZ(t *testing.T) {
	const nnz = 1500
	data := strings.Repeat("1 1:1 3:2 7:0.5\n", nnz/3)
	d, err := libsvm.Read(strings.NewReader(data), sparse.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "d.hpc")
	if err := sparse.WriteFile(path, d); err != nil {
		t.Fatal(err)
	}
	c, err := Open(path, Options{ReadOptions: sparse.ReadOptions{MaxNNZ: nnz - 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Load(); !errors.Is(err, sparse.ErrTooLarge) {
		t.Fatalf("File.Load over the cap: err %v", err)
	}
	var blk Block
	if err := c.ReadBlock(0, &blk); err != nil {
		t.Fatalf("ReadBlock ignores the cap: %v", err)
	}
	if _, err := sparse.ReadFile(path, sparse.ReadOptions{MaxNNZ: nnz - 1}); !errors.Is(err, sparse.ErrTooLarge) {
		t.Fatalf("sparse.ReadFile of the file over the cap: err %v", err)
	}
}

// Flush ends a block where the caller asks: rows written with a flush
// after every third row read back in blocks of three, whatever BlockSize
// says; a flush of an empty block writes nothing, and a closed writer
// refuses it.
func TestCacheWriterFlush(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, WriterOptions{Dim: 5, BlockSize: 1 << 30})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if err := w.Add(float64(i%2), []int32{int32(i % 5)}, []float32{1}); err != nil {
			t.Fatal(err)
		}
		if i%3 == 2 {
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err == nil {
		t.Fatal("Flush after Close: no error")
	}
	c, err := openCache(bytes.NewReader(buf.Bytes()), int64(buf.Len()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var rows []int
	for i := range c.NumBlocks() {
		rows = append(rows, c.BlockInfo(i).Rows)
	}
	if fmt.Sprint(rows) != "[3 3 3 1]" {
		t.Fatalf("blocks of %v rows, want [3 3 3 1]", rows)
	}
}
