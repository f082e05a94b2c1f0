package libsvm

import (
	"bytes"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

// randomDataset returns a random valid dataset with awkward values:
// arbitrary finite float32 bit patterns, denormals, ±0, small integers,
// integral and fractional labels, and optionally qids.
func randomDataset(rng *rand.Rand, rows int, withQID bool) *sparse.Dataset {
	cols := 1 + rng.IntN(5000)
	b := sparse.NewBuilder(cols)
	y := make([]float64, rows)
	var qid []int64
	if withQID {
		qid = make([]int64, rows)
	}
	for i := range rows {
		var ind []int32
		var val []float32
		for j := 0; j < cols; j += 1 + rng.IntN(200) {
			ind = append(ind, int32(j))
			var v float32
			switch rng.IntN(6) {
			case 0:
				v = float32(rng.IntN(20))
			case 1:
				v = float32(rng.NormFloat64())
			case 2:
				v = math.Float32frombits(rng.Uint32() & 0x807fffff) // denormal or ±0
			default:
				for {
					v = math.Float32frombits(rng.Uint32())
					if finite32(v) {
						break
					}
				}
			}
			val = append(val, v)
		}
		if err := b.Add(ind, val); err != nil {
			panic(err)
		}
		switch rng.IntN(4) {
		case 0:
			y[i] = float64(rng.IntN(11) - 5)
		case 1:
			y[i] = rng.NormFloat64() * 1e3
		case 2:
			y[i] = math.Copysign(0, -1)
		default:
			y[i] = math.Float64frombits(rng.Uint64() &^ (1 << 62)) // finite
		}
		if withQID {
			qid[i] = rng.Int64N(1 << 40)
		}
	}
	return &sparse.Dataset{X: b.Build(), Y: y, QID: qid}
}

func TestWriteReadRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := range 20 {
		d := randomDataset(rng, 1+rng.IntN(300), trial%2 == 0)
		var buf bytes.Buffer
		if err := Write(&buf, d); err != nil {
			t.Fatal(err)
		}
		got, err := readAllWays(t, buf.String(), sparse.ReadOptions{Dim: d.X.Cols})
		if err != nil {
			t.Fatal(err)
		}
		if diff := diffDatasets(d, got); diff != "" {
			t.Fatalf("trial %d: %s", trial, diff)
		}
	}
}

func TestWriteFormat(t *testing.T) {
	d := &sparse.Dataset{
		X: sparse.FromDense([][]float32{{1, 0, 2.5}, {}, {0, -3, 1e-7}, {0, 1e6, 0}}),
		Y: []float64{1, -1, 3, 0.5},
	}
	var buf bytes.Buffer
	if err := Write(&buf, d); err != nil {
		t.Fatal(err)
	}
	want := "1 1:1 3:2.5\n-1\n3 2:-3 3:1e-07\n0.5 2:1e+06\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
	d.QID = []int64{7, 7, 8, 9}
	buf.Reset()
	if err := Write(&buf, d); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "1 qid:7 1:1 3:2.5\n-1 qid:7\n") {
		t.Errorf("got %q", buf.String())
	}
}

func TestWriteInvalid(t *testing.T) {
	good := func() *sparse.Dataset {
		return &sparse.Dataset{X: sparse.FromDense([][]float32{{1, 2}, {0, 3}}), Y: []float64{1, -1}}
	}
	cases := map[string]struct {
		mod  func(d *sparse.Dataset)
		want error
	}{
		"nan label":     {func(d *sparse.Dataset) { d.Y[1] = math.NaN() }, sparse.ErrValue},
		"inf label":     {func(d *sparse.Dataset) { d.Y[0] = math.Inf(1) }, sparse.ErrValue},
		"short labels":  {func(d *sparse.Dataset) { d.Y = d.Y[:1] }, sparse.ErrShape},
		"short qid":     {func(d *sparse.Dataset) { d.QID = []int64{1} }, sparse.ErrShape},
		"nil matrix":    {func(d *sparse.Dataset) { d.X = nil }, sparse.ErrShape},
		"unsorted":      {func(d *sparse.Dataset) { d.X.Ind[0], d.X.Ind[1] = 1, 0 }, sparse.ErrIndexOrder},
		"nan value":     {func(d *sparse.Dataset) { d.X.Val[2] = float32(math.NaN()) }, sparse.ErrValue},
		"index too big": {func(d *sparse.Dataset) { d.X.Ind[2] = 2 }, sparse.ErrIndexRange},
		"broken indptr": {func(d *sparse.Dataset) { d.X.Indptr[2] = 5 }, sparse.ErrShape},
	}
	for name, c := range cases {
		d := good()
		c.mod(d)
		var buf bytes.Buffer
		if err := Write(&buf, d); !errors.Is(err, c.want) {
			t.Errorf("%s: error %v, want %v", name, err, c.want)
		}
		if buf.Len() != 0 {
			t.Errorf("%s: wrote %d bytes", name, buf.Len())
		}
	}
	if err := Write(io.Discard, nil); !errors.Is(err, sparse.ErrShape) {
		t.Errorf("nil dataset: %v", err)
	}
}

// TestWriteFile: sparse.WriteFile writes LIBSVM, gzip-compressed for a
// name ending in ".gz", that reads back bit for bit; an invalid data set
// leaves the old file as it was; a replaced file keeps its mode.
func TestWriteFile(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	dir := t.TempDir()
	for _, name := range []string{"data.svm", "data.svm.gz"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			d := randomDataset(rng, 2000, true)
			if err := sparse.WriteFile(path, d); err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if gz := len(raw) > 2 && raw[0] == 0x1f && raw[1] == 0x8b; gz != strings.HasSuffix(name, ".gz") {
				t.Errorf("%s: gzip = %v", name, gz)
			}
			got, err := ReadFile(path, sparse.ReadOptions{Dim: d.X.Cols})
			if err != nil {
				t.Fatal(err)
			}
			if diff := diffDatasets(d, got); diff != "" {
				t.Fatalf("%s: %s", name, diff)
			}

			// An invalid dataset fails before anything is written.
			bad := randomDataset(rng, 10, false)
			bad.Y[9] = math.NaN()
			if err := sparse.WriteFile(path, bad); !errors.Is(err, sparse.ErrValue) {
				t.Errorf("invalid dataset: %v", err)
			}
			after, _ := os.ReadFile(path)
			if !bytes.Equal(raw, after) {
				t.Errorf("%s: old file changed by an invalid dataset", name)
			}
		})
	}
	if names, _ := os.ReadDir(dir); len(names) != 2 {
		t.Errorf("directory holds %v, want the two data files only", names)
	}
	// Replacing a file keeps its mode.
	path := filepath.Join(dir, "data.svm")
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := sparse.WriteFile(path, randomDataset(rng, 3, false)); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode after replace: %v %v", fi.Mode(), err)
	}
	// Errors: missing directory, path is a directory.
	if err := sparse.WriteFile(filepath.Join(dir, "missing", "x.svm"), randomDataset(rng, 3, false)); err == nil {
		t.Error("write into a missing directory succeeded")
	}
	if err := sparse.WriteFile(dir, randomDataset(rng, 3, false)); err == nil {
		t.Error("write over a directory succeeded")
	}
	if _, err := ReadFile(filepath.Join(dir, "missing.svm"), sparse.ReadOptions{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("read missing file: %v", err)
	}
}

func TestTestdataFiles(t *testing.T) {
	d, err := ReadFile("testdata/small.svm", sparse.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dz, err := ReadFile("testdata/small.svm.gz", sparse.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := diffDatasets(d, dz); diff != "" {
		t.Fatal(diff)
	}
	if d.X.Rows != 6 || d.X.Cols != 12 || d.QID != nil || d.Y[2] != 3 || d.X.Row(0).Val[1] != 0.25 {
		t.Errorf("unexpected content: %d×%d %v", d.X.Rows, d.X.Cols, d.Y)
	}
	_, err = ReadFile("testdata/bad.svm", sparse.ReadOptions{})
	var pe *sparse.ParseError
	if !errors.As(err, &pe) || pe.File != "testdata/bad.svm" || pe.Line != 4 || pe.Col != 8 || !errors.Is(err, sparse.ErrIndexOrder) {
		t.Errorf("bad.svm: %v", err)
	}
}

// TestWriteLIBSVMOnlyReadable: Write refuses, writing nothing, the
// data its readers would refuse: an entry in column 2^31-1 (1-based index
// 2^31) and a negative qid; and a dangling symlink gets its target
// created, the link kept.
func TestWriteLIBSVMOnlyReadable(t *testing.T) {
	b := sparse.NewBuilder(0)
	if err := b.Add([]int32{math.MaxInt32}, []float32{1}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, &sparse.Dataset{X: b.Build(), Y: []float64{1}}); !errors.Is(err, sparse.ErrIndexRange) || buf.Len() != 0 {
		t.Fatalf("column 2^31-1: %v, %d bytes written", err, buf.Len())
	}
	neg := &sparse.Dataset{X: sparse.FromDense([][]float32{{1}}), Y: []float64{1}, QID: []int64{-3}}
	if err := Write(&buf, neg); !errors.Is(err, sparse.ErrSyntax) || buf.Len() != 0 {
		t.Fatalf("negative qid: %v, %d bytes written", err, buf.Len())
	}
	dir := t.TempDir()
	link := filepath.Join(dir, "link.svm")
	if err := os.Symlink("target.svm", link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := sparse.WriteFile(link, &sparse.Dataset{X: sparse.FromDense([][]float32{{1}}), Y: []float64{1}}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the dangling link was replaced (%v)", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "target.svm")); err != nil || string(b) != "1 1:1\n" {
		t.Fatalf("the link's target holds %q (%v)", b, err)
	}
}

// TestAppendRow: the rows AppendRow formats, one after another, are what
// Write writes for the data set.
func TestAppendRow(t *testing.T) {
	d := randomDataset(rand.New(rand.NewPCG(21, 22)), 500, false)
	var want bytes.Buffer
	if err := Write(&want, d); err != nil {
		t.Fatal(err)
	}
	var got []byte
	for i := range d.X.Rows {
		got = AppendRow(got, d.Y[i], d.X.Row(i))
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("AppendRow gives %d bytes differing from Write's %d", len(got), want.Len())
	}
}
