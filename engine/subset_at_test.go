package engine

import (
	"bytes"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
)

// atRecorder is an io.ReaderAt over data that records the byte ranges
// read.
type atRecorder struct {
	data  []byte
	mu    sync.Mutex
	reads [][2]int64 // [off, end)
}

func (r *atRecorder) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("negative offset")
	}
	if off >= int64(len(r.data)) {
		return 0, io.EOF
	}
	n := copy(p, r.data[off:])
	r.mu.Lock()
	r.reads = append(r.reads, [2]int64{off, off + int64(n)})
	r.mu.Unlock()
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// sameSubset checks that ReadClassifierFeaturesAt reads data for keep as
// ReadClassifierFeatures does: the same model, weights to the bit, or
// the same refusal.
func sameSubset(t *testing.T, name string, data []byte, keep []int32) *Model {
	t.Helper()
	want, werr := ReadClassifierFeatures(bytes.NewReader(data), slices.Clone(keep))
	got, err := ReadClassifierFeaturesAt(bytes.NewReader(data), int64(len(data)), slices.Clone(keep))
	if werr != nil {
		if err == nil || !errors.Is(err, ErrNoSubset) && errors.Is(werr, ErrNoSubset) {
			t.Fatalf("%s: ReadClassifierFeaturesAt gives %v, ReadClassifierFeatures %v", name, err, werr)
		}
		return nil
	}
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(got.W) != len(want.W) {
		t.Fatalf("%s: %d weights, want %d", name, len(got.W), len(want.W))
	}
	for i := range want.W {
		if math.Float32bits(got.W[i]) != math.Float32bits(want.W[i]) {
			t.Fatalf("%s: weight %d is %v, want %v", name, i, got.W[i], want.W[i])
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: model\n%+v\nwant\n%+v", name, got, want)
	}
	return got
}

// subsetKeeps returns feature lists to keep of a model of dim features
// whose weight rows are the features cols (every feature when nil):
// none, the first, the last, the stored ones' ends, a run, random ones
// and ones past dim.
func subsetKeeps(rng *rand.Rand, dim int, cols []int32) map[string][]int32 {
	d := int32(dim)
	keeps := map[string][]int32{
		"none":     {},
		"nil":      nil,
		"first":    {0},
		"last":     {d - 1},
		"ends":     {0, d - 1},
		"run":      {d / 2, d/2 + 1, d/2 + 2, d/2 + 3, d/2 + 4},
		"past dim": {d, d + 1, d + 100},
		"all":      nil,
	}
	all := make([]int32, dim)
	for j := range all {
		all[j] = int32(j)
	}
	keeps["all"] = all
	if cols != nil {
		keeps["stored ends"] = []int32{cols[0], cols[len(cols)-1]}
		keeps["stored run"] = slices.Clone(cols[len(cols)/2 : len(cols)/2+6])
	}
	for i := range 4 {
		var keep []int32
		p := []float64{0.001, 0.01, 0.1, 0.5}[i]
		for j := range dim {
			if rng.Float64() < p {
				keep = append(keep, int32(j))
			}
		}
		keeps["random "+string(rune('a'+i))] = keep
		keeps["random past dim "+string(rune('a'+i))] = append(slices.Clone(keep), d+3, d+70)
	}
	return keeps
}

// TestReadClassifierFeaturesAtSame checks that ReadClassifierFeaturesAt
// returns what ReadClassifierFeatures does, for binary and multiclass
// models, weights stored dense and sparse, with and without Cols,
// normalizing or not, and feature lists from none to all.
func TestReadClassifierFeaturesAtSame(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const dim = 3000
	encodings := map[bool]int{}
	eachSubsetModel(t, rng, dim, []float64{0, 0.8, 0.99}, func(_ string, _ *Model, data []byte, cols []int32) {
		encodings[data[6]&modelFlagSparse != 0]++
		for name, keep := range subsetKeeps(rng, dim, cols) {
			sameSubset(t, name, data, keep)
		}
	})
	if encodings[false] == 0 || encodings[true] == 0 {
		t.Fatalf("models with weights dense and sparse: %v", encodings)
	}
}

// TestReadClassifierFeaturesAtReads checks that ReadClassifierFeaturesAt
// reads the values of the kept weight rows and not those of the others,
// nor the checksum, of large models with weights dense and sparse.
func TestReadClassifierFeaturesAtReads(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const dim = 200000
	var cols []int32
	for j := range dim {
		if rng.IntN(4) == 0 {
			cols = append(cols, int32(j))
		}
	}
	for _, c := range []struct {
		name   string
		K      int
		zeros  float64
		cols   []int32
		sparse bool
	}{
		{"dense binary", 1, 0, nil, false},
		{"dense multiclass", 4, 0, nil, false},
		{"dense compact", 3, 0, cols, false},
		{"sparse binary", 1, 0.9, nil, true},
		{"sparse multiclass", 4, 0.9, nil, true},
		{"sparse compact", 3, 0.9, cols, true},
	} {
		m := subsetModel(t, rng, dim, c.K, c.zeros, c.cols, false)
		var buf bytes.Buffer
		if _, err := m.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		data := buf.Bytes()
		if got := data[6]&modelFlagSparse != 0; got != c.sparse {
			t.Fatalf("%s: weights stored sparse %v", c.name, got)
		}
		// The byte ranges of the weight rows' values.
		nc := len(m.Classes)
		start := int64(modelHeaderSize + 8*nc + 4*c.K)
		rowsN := dim
		if c.cols != nil {
			start += 8 + 4*int64(len(c.cols))
			rowsN = len(c.cols)
		}
		if c.sparse {
			start += int64(rowsN*c.K+7)/8 + 8
		}
		rowAt := make([]int64, rowsN+1)
		rowAt[0] = start
		for p := range rowsN {
			n := c.K
			if c.sparse {
				n = int(modelNonzero(m.W[p*c.K : p*c.K+c.K]))
			}
			rowAt[p+1] = rowAt[p] + 4*int64(n)
		}
		if rowAt[rowsN]+4 != int64(len(data)) {
			t.Fatalf("%s: values end at %d in a file of %d bytes", c.name, rowAt[rowsN], len(data))
		}
		for _, keep := range [][]int32{
			{},
			{5, 6, 7, 8, 1000, 1001, 50000, dim - 1},
			{3, 17, 18, 19, 20, 900, 12345, 77777, 150000, 199998, dim + 5},
		} {
			var kept []int // the weight rows of keep
			for _, j := range keep {
				p, ok := int(j), int(j) < dim
				if c.cols != nil {
					p, ok = slices.BinarySearch(c.cols, j)
				}
				if ok {
					kept = append(kept, p)
				}
			}
			if c.cols != nil && len(kept) == 0 {
				continue
			}
			r := &atRecorder{data: data}
			got, err := ReadClassifierFeaturesAt(r, int64(len(data)), keep)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			want, err := ReadClassifierFeatures(bytes.NewReader(data), keep)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s keep %v: not the model ReadClassifierFeatures reads", c.name, keep)
			}
			var total, values int64
			var valueReads int
			for _, rd := range r.reads {
				total += rd[1] - rd[0]
				if rd[1] <= start {
					continue
				}
				valueReads++
				// A read of values lies within the kept rows' values.
				for x := rd[0]; x < rd[1]; {
					p, _ := slices.BinarySearch(rowAt, x+1)
					p-- // rowAt[p] ≤ x < rowAt[p+1]
					if p < 0 || p >= rowsN {
						t.Fatalf("%s keep %v: read [%d, %d) past the values [%d, %d)", c.name, keep, rd[0], rd[1], start, rowAt[rowsN])
					}
					if _, ok := slices.BinarySearch(kept, p); !ok {
						t.Fatalf("%s keep %v: read [%d, %d) holds values of row %d, not kept", c.name, keep, rd[0], rd[1], p)
					}
					values += min(rd[1], rowAt[p+1]) - x
					x = rowAt[p+1]
				}
			}
			var wantValues int64
			wantReads := 0 // one for each run of adjacent rows with values
			for i, p := range kept {
				wantValues += rowAt[p+1] - rowAt[p]
				if i == len(kept)-1 || kept[i+1] != p+1 {
					q := i
					for q > 0 && kept[q-1] == kept[q]-1 {
						q--
					}
					if rowAt[p+1] > rowAt[kept[q]] {
						wantReads++
					}
				}
			}
			if valueReads != wantReads {
				t.Fatalf("%s keep %v: %d reads of values, want %d", c.name, keep, valueReads, wantReads)
			}
			if values != wantValues || total != start+wantValues {
				t.Fatalf("%s keep %v: read %d bytes, %d of values; want %d and %d", c.name, keep, total, values, start+wantValues, wantValues)
			}
			if all := rowAt[rowsN] - start; values > all/100 {
				t.Fatalf("%s keep %v: read %d bytes of %d of values", c.name, keep, values, all)
			}
		}
	}
}

// TestReadClassifierFeaturesAtRefuses checks the models, feature lists
// and sizes that ReadClassifierFeaturesAt refuses: every truncation of a
// model file, sizes past its end, corrupt parts it reads, and the models
// ReadClassifierFeatures refuses; and that it reads none of what it does
// not need, the checksum included.
func TestReadClassifierFeaturesAtRefuses(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	read := func(data []byte, size int64, keep []int32) (m *Model, err error) {
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("size %d of %d keep %v: panic %v", size, len(data), keep, p)
			}
		}()
		return ReadClassifierFeaturesAt(bytes.NewReader(data), size, keep)
	}
	for _, c := range []struct {
		name  string
		K     int
		zeros float64
		cols  []int32
	}{
		{"dense", 3, 0, nil},
		{"sparse", 3, 0.8, nil},
		{"dense binary compact", 1, 0, []int32{1, 4, 9, 20, 49}},
		{"sparse compact", 3, 0.8, []int32{1, 4, 9, 20, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 49}},
	} {
		m := subsetModel(t, rng, 50, c.K, c.zeros, c.cols, false)
		var buf bytes.Buffer
		if _, err := m.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		data := buf.Bytes()
		n := int64(len(data))
		keep := []int32{0, 1, 4, 20, 49}
		whole, err := read(data, n, keep)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for size := range n {
			// The input ends at size, or goes on but size says it ends.
			if _, err := read(data[:size], size, keep); !errors.Is(err, ErrFormat) {
				t.Fatalf("%s truncated to %d of %d bytes: %v, want ErrFormat", c.name, size, n, err)
			}
			if _, err := read(data, size, keep); !errors.Is(err, ErrFormat) {
				t.Fatalf("%s of %d bytes read as %d: %v, want ErrFormat", c.name, n, size, err)
			}
			// Size says more than the input holds: the reads that reach
			// past its end fail, but the checksum and the values of the
			// last rows, when not kept, are not read.
			if short := n - size; short > 0 {
				sub, err := read(data[:size], n, keep)
				switch {
				case short <= 4 && err != nil:
					t.Fatalf("%s short of its checksum's last %d bytes: %v", c.name, short, err)
				case err != nil && !errors.Is(err, ErrFormat):
					t.Fatalf("%s short of %d of %d bytes: %v, want ErrFormat", c.name, short, n, err)
				case err == nil && !reflect.DeepEqual(sub, whole):
					t.Fatalf("%s short of %d of %d bytes: a model not in the file", c.name, short, n)
				case short > n/2 && err == nil:
					t.Fatalf("%s short of %d of %d bytes: no error", c.name, short, n)
				}
			}
		}
		long := append(bytes.Clone(data), 0, 0, 0, 0, 0, 0, 0, 0)
		for extra := int64(1); extra <= 8; extra++ {
			if _, err := read(long, n+extra, keep); !errors.Is(err, ErrFormat) {
				t.Errorf("%s with %d trailing bytes: %v, want ErrFormat", c.name, extra, err)
			}
			if _, err := read(data, n+extra, keep); !errors.Is(err, ErrFormat) {
				t.Errorf("%s read as %d bytes more than it has: %v, want ErrFormat", c.name, extra, err)
			}
		}
		if _, err := read(data, -1, keep); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "negative") {
			t.Errorf("%s of negative size: %v, want ErrFormat", c.name, err)
		}
		// Random corruptions give an error or a valid model, never a
		// panic.
		for range 2000 {
			bad := bytes.Clone(data)
			for range 1 + rng.IntN(3) {
				bad[rng.IntN(len(bad))] ^= byte(1 + rng.IntN(255))
			}
			if sub, err := read(bad, n, keep); err == nil {
				if err := sub.Check(); err != nil {
					t.Fatalf("%s corrupt: a model failing Check: %v", c.name, err)
				}
			} else if !errors.Is(err, ErrFormat) && !errors.Is(err, ErrNoSubset) {
				t.Fatalf("%s corrupt: %v, want ErrFormat", c.name, err)
			}
		}
		// The checksum and the values of rows not kept are not read, and
		// so not checked.
		bad := bytes.Clone(data)
		bad[n-1] ^= 1
		if _, err := read(bad, n, keep); err != nil {
			t.Errorf("%s with a corrupt checksum: %v; it is not read", c.name, err)
		}
		if _, err := ReadClassifierFeatures(bytes.NewReader(bad), keep); !errors.Is(err, ErrFormat) {
			t.Errorf("%s with a corrupt checksum read whole: %v, want ErrFormat", c.name, err)
		}
	}

	// Corrupt parts that are read.
	m := subsetModel(t, rng, 50, 3, 0.8, nil, false)
	var buf bytes.Buffer
	if _, err := m.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	data := bytes.Clone(buf.Bytes())
	if data[6]&modelFlagSparse == 0 {
		t.Fatal("weights stored dense")
	}
	bmAt := modelHeaderSize + 8*3 + 4*3 // the bitmap of 150 bits
	countAt := bmAt + (150+7)/8
	valuesAt := countAt + 8
	for name, c := range map[string]struct {
		corrupt func(b []byte)
		want    string // in the error
	}{
		"bit past the last weight": {func(b []byte) { b[countAt-1] |= 0x80 }, "bits set past the last weight"},
		"value count":              {func(b []byte) { b[countAt]++ }, "values for"},
		// The first set bit's value, read with the rows up to it.
		"zero value": {func(b []byte) { copy(b[valuesAt:], []byte{0, 0, 0, 0}) }, "a zero stored for a set bit"},
		"version":    {func(b []byte) { b[4] = 9 }, "format version 9"},
		"flags":      {func(b []byte) { b[7] = 0x80 }, "unknown flags"},
		"reserved":   {func(b []byte) { b[11] = 1 }, "reserved header byte"},
		"classes": {func(b []byte) {
			copy(b[modelHeaderSize+8:], b[modelHeaderSize:modelHeaderSize+8])
		}, "classes not strictly ascending"},
		"shape": {func(b []byte) { b[20] = 2 }, "2 weight rows for 3 classes"},
	} {
		bad := bytes.Clone(data)
		c.corrupt(bad)
		var keep []int32
		for j := range int32(50) {
			keep = append(keep, j)
			if modelOnes(data[bmAt:countAt+8], 0, 3*int(j)+3) > 0 {
				break
			}
		}
		_, err := read(bad, int64(len(bad)), keep)
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("corrupt %s: %v, want ErrFormat: %s", name, err, c.want)
		}
	}

	// The features and models ReadClassifierFeatures refuses.
	for _, keep := range [][]int32{{3, 3}, {4, 3}, {-1, 3}} {
		if _, err := read(data, int64(len(data)), keep); !errors.Is(err, ErrDim) {
			t.Errorf("features %v: %v, want ErrDim", keep, err)
		}
	}
	if sub, err := read(data, int64(len(data)), []int32{3, 49, 50, 70}); err != nil || sub.Dim != 2 {
		t.Errorf("features past Dim: %v, want them left out", err)
	}
	checkNoSubset(t, rng, func(data []byte, keep []int32) error {
		_, err := read(data, int64(len(data)), keep)
		return err
	})

	// A read error of r is returned, not taken for a corrupt file.
	failing := errors.New("read failed")
	if _, err := ReadClassifierFeaturesAt(failAfter{data, int64(valuesAt), failing}, int64(len(data)), []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}); !errors.Is(err, failing) || errors.Is(err, ErrFormat) {
		t.Errorf("failing reader: %v, want %v", err, failing)
	}
}

// failAfter is an io.ReaderAt over data that fails reads past off.
type failAfter struct {
	data []byte
	off  int64
	err  error
}

func (r failAfter) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > r.off {
		return 0, r.err
	}
	return copy(p, r.data[off:]), nil
}
