package engine

// The sparse encoding of a linear model's weights (flag bit 4).

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// mioOdd is a negative subnormal with odd bits, which the sparse encoding
// must keep to the bit. (A NaN, once the test of that, is no longer a
// weight a model may hold.)
var mioOdd = math.Float32frombits(0x8000beef)

// mioWeightsSum returns the SHA-256 of the raw bits of w.
func mioWeightsSum(w []float32) [32]byte {
	b := make([]byte, 0, 4*len(w))
	for _, x := range w {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return sha256.Sum256(b)
}

// mioSparseCases are models for which the writer picks the sparse
// encoding.
func mioSparseCases() []mioCase {
	cols := mioSparse(21, Averaged, 5, 1000, false, 0.2)
	cols.Dim = 1 << 20
	cols.Cols = make([]int32, 1000)
	for i := range cols.Cols {
		cols.Cols[i] = int32(i*1000 + i%7)
	}
	allZero := mioModel(22, Averaged, 2, 700, false, false)
	clear(allZero.W)
	return []mioCase{
		{"binary", mioSparse(23, Averaged, 2, 3000, false, 0.3)},
		{"multiclass", mioSparse(24, Plain, 20, 500, false, 0.3)},
		{"cols", cols},
		{"all-zero", allZero},
		{"voted-start", mioSparse(25, Voted, 3, 300, true, 0.1)},
		{"voted", mioSparse(26, Voted, 2, 300, false, 0.1)},
	}
}

// The writer picks the sparse encoding when it is smaller, and every
// reader gives back W and W0 bit for bit.
func TestModelSparseRoundTrip(t *testing.T) {
	for _, c := range mioSparseCases() {
		t.Run(c.name, func(t *testing.T) {
			if err := c.m.Check(); err != nil {
				t.Fatal(err)
			}
			b := mioEncode(t, c.m)
			if mioFlags(b)&modelFlagSparse == 0 {
				t.Fatal("dense encoding chosen")
			}
			dense := mioMarshalAs(c.m, false)
			if len(b) >= len(dense) {
				t.Errorf("sparse encoding %d bytes, dense %d", len(b), len(dense))
			}
			if int64(len(b)) != c.m.encodedSize() {
				t.Errorf("encoding is %d bytes, encodedSize says %d", len(b), c.m.encodedSize())
			}
			var buf bytes.Buffer
			if n, err := c.m.WriteTo(&buf); err != nil || n != int64(len(b)) || !bytes.Equal(buf.Bytes(), b) {
				t.Fatalf("WriteTo wrote %d bytes (%v), unlike MarshalBinary", n, err)
			}
			path := filepath.Join(t.TempDir(), "m.hpm")
			if err := c.m.Save(path); err != nil {
				t.Fatal(err)
			}
			var um Model
			if err := um.UnmarshalBinary(b); err != nil {
				t.Fatal(err)
			}
			sm, err := ReadModel(mioOnlyReader{bytes.NewReader(b)})
			if err != nil {
				t.Fatal(err)
			}
			lm, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, got := range []*Model{&um, sm, lm} {
				if d := mioSame(got, c.m); d != "" {
					t.Fatal(d)
				}
				if mioWeightsSum(got.W) != mioWeightsSum(c.m.W) {
					t.Fatal("weights differ")
				}
				if (got.Cols == nil) != (c.m.Cols == nil) || !slices.Equal(got.Cols, c.m.Cols) {
					t.Fatalf("columns %v, want %v", got.Cols, c.m.Cols)
				}
				if b2 := mioEncode(t, got); !bytes.Equal(b, b2) {
					t.Fatal("re-encoding differs")
				}
			}
			// A dense encoding of the same model reads back the same.
			var dm Model
			if err := dm.UnmarshalBinary(dense); err != nil {
				t.Fatal(err)
			}
			if d := mioSame(&dm, c.m); d != "" {
				t.Fatal(d)
			}
		})
	}
}

// The writer keeps the dense encoding when the sparse one is not
// smaller: for dense weights, and at the break-even point.
func TestModelSparseChoice(t *testing.T) {
	full := mioModel(31, Averaged, 4, 50, false, true)
	for i, x := range full.W {
		if math.Float32bits(x) == 0 {
			full.W[i] = 1
		}
	}
	if b := mioEncode(t, full); mioFlags(b)&modelFlagSparse != 0 {
		t.Error("sparse encoding chosen for weights none of which is zero")
	}
	// The sparse encoding of an array pays a bit for each weight and 8
	// bytes for the count, and saves 4 bytes for each zero.
	for _, c := range append(mioCases(true), mioSparseCases()...) {
		t.Run(c.name, func(t *testing.T) {
			arrays := [][]float32{c.m.W}
			if v := c.m.Votes; v != nil && v.W0 != nil {
				arrays = append(arrays, v.W0)
			}
			var dense, sparse int
			for _, w := range arrays {
				dense += 4 * len(w)
				sparse += (len(w)+7)/8 + 8
				for _, x := range w {
					if math.Float32bits(x) != 0 {
						sparse += 4
					}
				}
			}
			if got := mioFlags(mioEncode(t, c.m))&modelFlagSparse != 0; got != (sparse < dense) {
				t.Errorf("%d bytes dense, %d sparse: sparse chosen %v", dense, sparse, got)
			}
		})
	}
	// 64 binary weights take 256 bytes dense and 8+8+4·nnz sparse: 60
	// non-zero weights break even, and the writer stays dense.
	for _, c := range []struct {
		nnz    int
		sparse bool
	}{{60, false}, {59, true}, {0, true}, {64, false}} {
		t.Run(fmt.Sprintf("nnz%d", c.nnz), func(t *testing.T) {
			m := &Model{Classes: []float64{-1, 1}, Dim: 64, W: make([]float32, 64), B: []float32{0}}
			for i := range c.nnz {
				m.W[i*64/max(c.nnz, 1)] = float32(i + 1)
			}
			b := mioEncode(t, m)
			if got := mioFlags(b)&modelFlagSparse != 0; got != c.sparse {
				t.Errorf("sparse %v, want %v", got, c.sparse)
			}
			if want := modelHeaderSize + 16 + 4 + min(256, 16+4*int64(c.nnz)) + 4; int64(len(b)) != want {
				t.Errorf("%d bytes, want %d", len(b), want)
			}
		})
	}
}

// Corrupt sparse sections fail with ErrFormat, even with a valid
// checksum.
func TestModelSparseCorrupt(t *testing.T) {
	good := mioEncode(t, mioSparseSmall())
	if mioFlags(good)&modelFlagSparse == 0 {
		t.Fatal("dense encoding chosen")
	}
	bm := modelHeaderSize + 16 + 4 // the bitmap
	cnt := bm + 3                  // the count of set bits
	vals := cnt + 8                // the values
	if len(good) != vals+12+4 {
		t.Fatalf("encoding of %d bytes", len(good))
	}
	patch := func(off int, v ...byte) []byte {
		b := bytes.Clone(good)
		copy(b[off:], v)
		return mioFixCRC(b)
	}
	count := func(n uint64) []byte {
		b := bytes.Clone(good)
		binary.LittleEndian.PutUint64(b[cnt:], n)
		return mioFixCRC(b)
	}
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"padding", patch(bm+2, good[bm+2]|0x80), "bits set past the last weight"},
		{"count-low", count(2), "2 values for 3 set bits"},
		{"count-high", count(4), "4 values for 3 set bits"},
		{"count-huge", count(1 << 62), "values for 3 set bits"},
		{"extra-bit", patch(bm, good[bm]|1), "3 values for 4 set bits"},
		{"zero-value", patch(vals+4, 0, 0, 0, 0), "a zero stored for a set bit"},
		{"dense-flag", patch(6, 0), "truncated in weights"},
		{"checksum", append(bytes.Clone(good[:vals]), append([]byte{good[vals] ^ 1}, good[vals+1:]...)...), "checksum mismatch"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var m Model
			err := m.UnmarshalBinary(c.data)
			if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v, want …%s…", err, c.want)
			}
			if _, err := ReadModel(mioOnlyReader{bytes.NewReader(c.data)}); !errors.Is(err, ErrFormat) {
				t.Errorf("stream: %v", err)
			}
		})
	}

	// Every proper prefix and every flipped bit fails too.
	for _, m := range []*Model{mioSparseSmall(), mioSparse(27, Voted, 3, 12, true, 0.2)} {
		b := mioEncode(t, m)
		if mioFlags(b)&modelFlagSparse == 0 {
			t.Fatal("dense encoding chosen")
		}
		for n := range len(b) {
			var got Model
			if err := got.UnmarshalBinary(b[:n]); !errors.Is(err, ErrFormat) {
				t.Fatalf("prefix of %d bytes: %v", n, err)
			}
			if _, err := ReadModel(mioOnlyReader{bytes.NewReader(b[:n])}); !errors.Is(err, ErrFormat) {
				t.Fatalf("prefix of %d bytes, stream: %v", n, err)
			}
		}
		for i := range 8 * len(b) {
			c := bytes.Clone(b)
			c[i/8] ^= 1 << (i % 8)
			var got Model
			if err := got.UnmarshalBinary(c); !errors.Is(err, ErrFormat) {
				t.Fatalf("bit %d flipped: %v", i, err)
			}
		}
	}
}

// A sparse header claiming huge weights, or a huge count of values,
// fails on its few bytes, allocating little, whether the reader knows the
// input's size or not.
func TestModelSparseHugeClaims(t *testing.T) {
	huge := append(mioHeader(1, modelFlagSparse, 0, 0, 2, 1, 1<<31-1), make([]byte, 100)...)
	multi := append(mioHeader(1, modelFlagSparse, 0, 0, 20, 20, 1<<31-1), make([]byte, 8*20+4*20+100)...)
	// A bitmap with a byte of 8 set bits followed by a count that agrees
	// and no values.
	small := append(mioHeader(1, modelFlagSparse, 0, 0, 2, 1, 8), make([]byte, 16+4)...)
	small = append(small, 0xff)
	small = binary.LittleEndian.AppendUint64(small, 8)
	small = append(small, 0, 0, 0, 0)
	for name, data := range map[string][]byte{"dim": huge, "multiclass": multi, "values": small} {
		t.Run(name, func(t *testing.T) {
			for _, sized := range []bool{true, false} {
				decode := func() error {
					if sized {
						var m Model
						return m.UnmarshalBinary(data)
					}
					_, err := ReadModel(mioOnlyReader{bytes.NewReader(data)})
					return err
				}
				if err := decode(); !errors.Is(err, ErrFormat) {
					t.Fatalf("sized %v: %v", sized, err)
				}
				const runs = 10
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				for range runs {
					_ = decode()
				}
				runtime.ReadMemStats(&after)
				if per := (after.TotalAlloc - before.TotalAlloc) / runs; per >= 1<<20 {
					t.Errorf("sized %v: allocated %d bytes per decode", sized, per)
				}
			}
		})
	}
}

// A model far larger than the reader's chunks reads back bit for bit
// from a stream, its bitmap and values arriving in many chunks.
func TestModelSparseLarge(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	const dim, K = 40000, 20
	m := &Model{Classes: make([]float64, K), Dim: dim, W: make([]float32, dim*K), B: make([]float32, K)}
	for i := range m.Classes {
		m.Classes[i] = float64(i)
	}
	for i := range m.W {
		if rng.IntN(3) == 0 {
			m.W[i] = float32(rng.NormFloat64())
		}
	}
	m.W[0] = mioOdd
	m.W[len(m.W)-1] = float32(math.Copysign(0, -1))
	var buf bytes.Buffer
	if _, err := m.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	if mioFlags(buf.Bytes())&modelFlagSparse == 0 {
		t.Fatal("dense encoding chosen")
	}
	got, err := ReadModel(mioOnlyReader{bytes.NewReader(buf.Bytes())})
	if err != nil {
		t.Fatal(err)
	}
	if mioWeightsSum(got.W) != mioWeightsSum(m.W) {
		t.Fatal("weights differ")
	}
}

// Sparse weights of more values than one piece of a streamed read
// (modelChunk/4) read back the same from memory, from a stream of unknown
// length and from one of known length; a zero value in a later piece,
// and an end inside one, are refused in each.
func TestModelSparseStreamPieces(t *testing.T) {
	m := mioSparse(28, Plain, 20, 4000, false, 0.45)
	b := mioEncode(t, m)
	if mioFlags(b)&modelFlagSparse == 0 || m.Votes != nil {
		t.Fatal("not a sparse encoding without votes")
	}
	nnz := 0
	for _, x := range m.W {
		if math.Float32bits(x) != 0 {
			nnz++
		}
	}
	if nnz < 2*modelChunk/4+100 {
		t.Fatalf("%d values, fewer than three pieces", nnz)
	}
	read := map[string]func(data []byte) (*Model, error){
		"memory": func(data []byte) (*Model, error) {
			var got Model
			return &got, got.UnmarshalBinary(data)
		},
		"stream": func(data []byte) (*Model, error) { return ReadModel(mioOnlyReader{bytes.NewReader(data)}) },
		"sized":  func(data []byte) (*Model, error) { return ReadModel(bytes.NewReader(data)) },
	}
	// The values are the last section before the checksum.
	vals := len(b) - 4 - 4*nnz
	zero := bytes.Clone(b)
	copy(zero[vals+4*(modelChunk/4+7):], []byte{0, 0, 0, 0})
	zero = mioFixCRC(zero)
	for name, rd := range read {
		got, err := rd(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if d := mioSame(got, m); d != "" {
			t.Fatalf("%s: %s", name, d)
		}
		if _, err := rd(zero); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "a zero stored for a set bit") {
			t.Errorf("%s: a zero value in the second piece: %v", name, err)
		}
		if _, err := rd(b[:vals+4*(2*modelChunk/4+5)]); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "truncated") {
			t.Errorf("%s: cut in the third piece: %v", name, err)
		}
	}
}
