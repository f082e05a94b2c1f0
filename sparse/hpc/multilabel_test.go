package hpc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/libsvm"
)

// multiLabelSVM is a multi-label LIBSVM file: label lists in an order
// that is not sorted, a row with no label, a label of one.
const multiLabelSVM = "3,1,5 1:0.5 4:2\n 2:1\n0 1:1 7:-1\n2,0 3:0.25\n4,3,2,1 5:3 6:1\n"

// randMultiLabel returns n random multi-label rows of up to maxNNZ
// nonzeros and up to 6 labels below 40.
func randMultiLabel(r *rand.Rand, n, maxNNZ, cols int) *libsvm.MultiLabelDataset {
	b := sparse.NewBuilder(cols)
	d := &libsvm.MultiLabelDataset{Labels: make([][]int, n)}
	for i := range n {
		var ind []int32
		var val []float32
		for j := range cols {
			if len(ind) < maxNNZ && r.IntN(3) == 0 {
				ind, val = append(ind, int32(j)), append(val, float32(r.NormFloat64()))
			}
		}
		b.Add(ind, val)
		d.Labels[i] = append([]int{}, r.Perm(40)[:r.IntN(7)]...)
	}
	d.X = b.Build()
	return d
}

func writeMultiLabelBytes(t testing.TB, d *libsvm.MultiLabelDataset, opt WriterOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	opt.LabelLists = true
	if opt.Dim == 0 {
		opt.Dim = d.X.Cols
	}
	if err := writeLists(NewWriter(&buf, opt), d); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// loadMultiLabelBytes reads a cache with label lists held in b with
// File.LoadMultiLabel.
func loadMultiLabelBytes(b []byte, opt sparse.ReadOptions) (*libsvm.MultiLabelDataset, error) {
	c, err := openCacheBytes(b, Options{ReadOptions: opt, LabelLists: true})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return c.LoadMultiLabel()
}

func TestMultiLabelRoundTrip(t *testing.T) {
	want, err := libsvm.ReadMultiLabel(strings.NewReader(multiLabelSVM), sparse.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := ConvertLIBSVM(&buf, strings.NewReader(multiLabelSVM), sparse.ReadOptions{}, WriterOptions{LabelLists: true, BlockSize: 64}); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	if v := binary.LittleEndian.Uint16(b[4:]); v != 2 {
		t.Errorf("format version %d, want 2", v)
	}
	if n := len(spansOf(b).blocks); n < 2 {
		t.Errorf("%d blocks, want several", n)
	}
	got, err := loadMultiLabelBytes(b, sparse.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("LoadMultiLabel:\n got %+v %+v\nwant %+v %+v", got.X, got.Labels, want.X, want.Labels)
	}
	streamed, err := ReadMultiLabel(bytes.NewReader(b), sparse.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(streamed, want) {
		t.Errorf("ReadMultiLabel:\n got %+v %+v\nwant %+v %+v", streamed.X, streamed.Labels, want.X, want.Labels)
	}
	path := filepath.Join(t.TempDir(), "m.hpc")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	fromFile, err := ReadMultiLabelFile(path, sparse.ReadOptions{})
	if err != nil || !reflect.DeepEqual(fromFile, want) {
		t.Errorf("ReadMultiLabelFile: %v", err)
	}
	info, err := ReadInfo(bytes.NewReader(b), sparse.ReadOptions{})
	if err != nil || info.Rows != 5 || info.NNZ != 8 || !info.LabelLists {
		t.Errorf("ReadInfo: %+v, %v", info, err)
	}
	info, err = ReadInfo(struct{ *bytes.Buffer }{bytes.NewBuffer(b)}, sparse.ReadOptions{})
	if err != nil || info.Rows != 5 || !info.LabelLists {
		t.Errorf("ReadInfo of a stream: %+v, %v", info, err)
	}
}

// TestMultiLabelRandom writes random multi-label data sets in blocks of
// several sizes, on both the viewing and the decoding paths, and reads
// them back by every reader.
func TestMultiLabelRandom(t *testing.T) {
	for _, decode := range []bool{false, true} {
		cacheForceDecode = decode
		for seed := range uint64(8) {
			d := randMultiLabel(rand.New(rand.NewPCG(seed, 3)), 1+int(seed)*7, 5, 12)
			for _, bs := range []int{1, 100, 0} {
				b := writeMultiLabelBytes(t, d, WriterOptions{BlockSize: bs})
				got, err := loadMultiLabelBytes(b, sparse.ReadOptions{})
				if err != nil || !reflect.DeepEqual(got, d) {
					t.Fatalf("seed %d, block size %d, decode %v: LoadMultiLabel %v", seed, bs, decode, err)
				}
				got, err = ReadMultiLabel(bytes.NewReader(b), sparse.ReadOptions{})
				if err != nil || !reflect.DeepEqual(got, d) {
					t.Fatalf("seed %d, block size %d, decode %v: ReadMultiLabel %v", seed, bs, decode, err)
				}
			}
		}
	}
	cacheForceDecode = false
}

// TestMultiLabelRefusedBySingleLabelReaders checks that a reader of one
// label per row refuses a file with label lists by ErrLabelLists, and
// that the multi-label readers refuse a file without them.
func TestMultiLabelRefusedBySingleLabelReaders(t *testing.T) {
	d := randMultiLabel(rand.New(rand.NewPCG(1, 2)), 20, 4, 9)
	b := writeMultiLabelBytes(t, d, WriterOptions{})
	path := filepath.Join(t.TempDir(), "m.hpc")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOpen := Open(path, Options{})
	_, errRead := Read(bytes.NewReader(b), sparse.ReadOptions{})
	_, errFile := ReadFile(path, sparse.ReadOptions{})
	_, errData := sparse.ReadFile(path, sparse.ReadOptions{})
	sc := NewScanner(bytes.NewReader(b), sparse.ReadOptions{})
	for sc.Scan() {
	}
	for i, err := range []error{errOpen, errRead, errFile, errData, sc.Err()} {
		if !errors.Is(err, ErrLabelLists) || errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "label lists") {
			t.Errorf("reader %d: %v, want ErrLabelLists", i, err)
		}
	}
	c, err := Open(path, Options{LabelLists: true})
	if err != nil {
		t.Fatal(err)
	}
	if !c.HasLabelLists() {
		t.Error("HasLabelLists false")
	}
	if _, err := c.Load(); !errors.Is(err, ErrLabelLists) {
		t.Errorf("Load of label lists: %v", err)
	}
	c.Close()
	single := randCacheDataset(rand.New(rand.NewPCG(1, 1)), 5, 3, 6, false)
	var sb bytes.Buffer
	if err := Write(&sb, single); err != nil {
		t.Fatal(err)
	}
	if _, err := loadMultiLabelBytes(sb.Bytes(), sparse.ReadOptions{}); err == nil || !strings.Contains(err.Error(), "no label lists") {
		t.Errorf("LoadMultiLabel of one label per row: %v", err)
	}
	if _, err := ReadMultiLabel(bytes.NewReader(sb.Bytes()), sparse.ReadOptions{}); err == nil || !strings.Contains(err.Error(), "no label lists") {
		t.Errorf("ReadMultiLabel of one label per row: %v", err)
	}
	if binary.LittleEndian.Uint16(sb.Bytes()[4:]) != 1 {
		t.Error("a file without label lists is not of version 1")
	}
}

func TestMultiLabelWriterRefusals(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, WriterOptions{LabelLists: true})
	if err := w.Add(1, nil, nil); !errors.Is(err, sparse.ErrBadOption) {
		t.Errorf("Add to a writer of label lists: %v", err)
	}
	if err := w.AddWithQID(1, 2, nil, nil); !errors.Is(err, sparse.ErrBadOption) {
		t.Errorf("AddWithQID to a writer of label lists: %v", err)
	}
	for _, ls := range [][]int{{-1}, {1, 2, 1}, {1 << 31}} {
		if err := w.AddLabels(ls, nil, nil); !errors.Is(err, sparse.ErrValue) {
			t.Errorf("AddLabels(%v): %v", ls, err)
		}
	}
	if err := w.AddLabels([]int{1}, []int32{2, 1}, []float32{1, 1}); !errors.Is(err, sparse.ErrIndexOrder) {
		t.Errorf("AddLabels of unsorted indices: %v", err)
	}
	if err := w.AddLabels([]int{3, 1}, []int32{1}, []float32{1}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadMultiLabel(bytes.NewReader(buf.Bytes()), sparse.ReadOptions{})
	if err != nil || !reflect.DeepEqual(got.Labels, [][]int{{3, 1}}) {
		t.Errorf("after refused rows: %v, %v", got, err)
	}
	if err := NewWriter(&buf, WriterOptions{}).AddLabels([]int{1}, nil, nil); !errors.Is(err, sparse.ErrBadOption) {
		t.Errorf("AddLabels without LabelLists: %v", err)
	}
	bad := &libsvm.MultiLabelDataset{X: sparse.NewBuilder(2).Build(), Labels: [][]int{{1}}}
	if err := WriteMultiLabel(&buf, bad); !errors.Is(err, sparse.ErrShape) {
		t.Errorf("WriteMultiLabel of mismatched lists: %v", err)
	}
}

// TestMultiLabelCorrupt checks the label lists' own checks behind valid
// checksums, through the file reader and the stream reader.
func TestMultiLabelCorrupt(t *testing.T) {
	d := &libsvm.MultiLabelDataset{Labels: [][]int{{2, 0}, {}, {1, 3, 4}}}
	bl := sparse.NewBuilder(4)
	bl.Add([]int32{1}, []float32{1})
	bl.Add(nil, nil)
	bl.Add([]int32{0, 3}, []float32{1, 2})
	d.X = bl.Build()
	base := writeMultiLabelBytes(t, d, WriterOptions{})
	s := spansOf(base)
	lay, _ := layoutOf(3, 3, false)
	lay = lay.withLists(5)
	payload := s.blocks[0] + cacheBlockHdr
	le := binary.LittleEndian
	cases := []struct {
		name string
		edit func(c []byte)
		want string
	}{
		{"negative", func(c []byte) { le.PutUint32(c[payload+int(lay.lists)+4:], 0xffffffff) }, "negative label"},
		{"repeat", func(c []byte) { le.PutUint32(c[payload+int(lay.lists)+4:], 2) }, "listed twice"},
		{"count", func(c []byte) { le.PutUint64(c[payload+8:], 0x3ff8000000000000) }, "not a whole number"},
		{"counts", func(c []byte) { le.PutUint64(c[payload+8:], 0x3ff0000000000000) }, ""},
		{"flag", func(c []byte) { c[6] = 0 }, ""},
		{"block flag", func(c []byte) { c[s.blocks[0]+4] = 0 }, ""},
	}
	for _, tc := range cases {
		c := bytes.Clone(base)
		tc.edit(c)
		reseal(c, s)
		_, err := loadMultiLabelBytes(c, sparse.ReadOptions{})
		_, err2 := ReadMultiLabel(bytes.NewReader(c), sparse.ReadOptions{})
		for _, e := range []error{err, err2} {
			if e == nil || !strings.Contains(e.Error(), tc.want) {
				t.Errorf("%s: %v, want %q", tc.name, e, tc.want)
			}
		}
	}
}
