package modelfile

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"testing/iotest"
)

// testMix returns a sparse averaged state of F features out of dim, K
// rows, with random bits in every array.
func testMix(F, dim, K int, seed uint64) *Mix {
	r := rand.New(rand.NewPCG(seed, 1))
	f := &Mix{Classes: []float64{-1, 1}, Dim: dim, Sparse: true, N: 0, SumN: 12345, Updates: 67}
	if K > 1 {
		f.Classes = make([]float64, K)
		for c := range f.Classes {
			f.Classes[c] = float64(c)
		}
	}
	step := dim / F
	for i := range F {
		f.Features = append(f.Features, int32(i*step+r.IntN(step)))
	}
	for range F * K {
		f.W = append(f.W, math.Float32frombits(r.Uint32()))
		f.Sum = append(f.Sum, math.Float64frombits(r.Uint64()))
	}
	for range K {
		f.B = append(f.B, math.Float32frombits(r.Uint32()))
		f.SumB = append(f.SumB, math.Float64frombits(r.Uint64()))
	}
	return f
}

// BenchmarkMixWrite encodes a state of a million features through the
// streaming writer.
func BenchmarkMixWrite(b *testing.B) {
	f := testMix(1<<20, 1<<24, 1, 1)
	b.SetBytes(f.Size())
	for b.Loop() {
		if _, err := writeSections(io.Discard, f); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMixRead decodes a state of a million features from a reader
// that tells its length, as a file read into memory is given to ReadMix,
// and from memory.
func BenchmarkMixRead(b *testing.B) {
	data := marshalSections(testMix(1<<20, 1<<24, 1, 1))
	decoders := map[string]func() *Decoder{
		"reader": func() *Decoder { return NewDecoder(bytes.NewReader(data)) },
		"memory": func() *Decoder { return &Decoder{buf: data, remain: int64(len(data))} },
	}
	for name, d := range decoders {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := d().Mix(0, math.MaxInt64); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// naiveElems is the format's encoding of s: each element's little-endian
// bits, one after the other.
func naiveElems[T elem](s []T) []byte {
	var b []byte
	le := binary.LittleEndian
	for _, x := range any(s).([]T) {
		switch v := any(x).(type) {
		case float32:
			b = le.AppendUint32(b, math.Float32bits(v))
		case int32:
			b = le.AppendUint32(b, uint32(v))
		case float64:
			b = le.AppendUint64(b, math.Float64bits(v))
		case int64:
			b = le.AppendUint64(b, uint64(v))
		}
	}
	return b
}

// hideLen hides the Len method of a reader, so that the decoder does not
// know the input's size.
type hideLen struct{ r io.Reader }

func (h hideLen) Read(p []byte) (int, error) { return h.r.Read(p) }

// checkElems encodes s after a prefix of a few bytes, into memory and
// streamed, and checks the bytes and checksum against naiveElems; then it
// decodes them from memory, from a reader that tells its length and from
// one that does not, and checks every element's bits.
func checkElems[T elem](t *testing.T, s []T, prefix []byte) {
	t.Helper()
	want := append(slices.Clone(prefix), naiveElems(s)...)
	want = binary.LittleEndian.AppendUint32(want, crc32.Checksum(want, crcTable))
	for _, stream := range []bool{false, true} {
		var out bytes.Buffer
		e := encoder{buf: slices.Clone(prefix)}
		if stream {
			e.w = &out
		}
		putElems(&e, s)
		e.finish()
		got := e.buf
		if stream {
			got = out.Bytes()
		}
		if e.err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%T of %d after %d bytes, streamed %v: encoding differs (error %v)", s, len(s), len(prefix), stream, e.err)
		}
	}
	decoders := map[string]*Decoder{
		"memory":         {buf: want, remain: int64(len(want))},
		"reader":         NewDecoder(bytes.NewReader(want)),
		"unsized reader": NewDecoder(hideLen{iotest.HalfReader(bytes.NewReader(want))}),
	}
	for name, d := range decoders {
		if _, err := d.take(len(prefix), "prefix"); err != nil {
			t.Fatal(err)
		}
		back, err := readArray[T](d, len(s), "elements")
		if err == nil {
			err = d.checksum()
		}
		if err != nil {
			t.Fatalf("%T of %d from %s: %v", s, len(s), name, err)
		}
		if !bytes.Equal(naiveElems(back), naiveElems(s)) {
			t.Fatalf("%T of %d from %s: elements differ", s, len(s), name)
		}
	}
}

// TestElemsEncoding checks the arrays' encoding and decoding, on this
// machine's path and on the portable one, for arrays shorter and longer
// than a chunk, after a few bytes or none.
func TestElemsEncoding(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	defer func(le bool) { littleEndian = le }(littleEndian)
	for _, le := range []bool{littleEndian, false} {
		littleEndian = le
		for _, n := range []int{0, 1, 7, Chunk/8 - 1, Chunk / 4, Chunk/4 + 5, 3*Chunk/8 + 3} {
			for _, prefix := range [][]byte{nil, {1, 2, 3}} {
				f32, f64 := make([]float32, n), make([]float64, n)
				i32, i64 := make([]int32, n), make([]int64, n)
				for i := range n {
					f32[i], f64[i] = math.Float32frombits(r.Uint32()), math.Float64frombits(r.Uint64())
					i32[i], i64[i] = int32(r.Uint32()), int64(r.Uint64())
				}
				checkElems(t, f32, prefix)
				checkElems(t, f64, prefix)
				checkElems(t, i32, prefix)
				checkElems(t, i64, prefix)
			}
		}
	}
}

// TestSparseF32sEncoding checks the sparse encoding of weights, into
// memory and streamed, against the bitmap, count and values made weight
// by weight, for bitmaps shorter and longer than a chunk; and that it
// decodes to the same weights.
func TestSparseF32sEncoding(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 5, 64, 8*Chunk + 13} {
		s := make([]float32, n)
		for i := range s {
			if r.IntN(3) == 0 {
				s[i] = math.Float32frombits(r.Uint32() | 1)
			}
		}
		var want []byte
		var vals []byte
		var nnz uint64
		for i := 0; i < n; i += 8 {
			var b byte
			for j := i; j < min(i+8, n); j++ {
				if u := math.Float32bits(s[j]); u != 0 {
					b |= 1 << (j - i)
					vals = binary.LittleEndian.AppendUint32(vals, u)
					nnz++
				}
			}
			want = append(want, b)
		}
		want = binary.LittleEndian.AppendUint64(want, nnz)
		want = append(want, vals...)
		want = binary.LittleEndian.AppendUint32(want, crc32.Checksum(want, crcTable))
		for _, stream := range []bool{false, true} {
			var out bytes.Buffer
			e := encoder{}
			if stream {
				e.w = &out
			}
			e.sparseF32s(s)
			e.finish()
			got := e.buf
			if stream {
				got = out.Bytes()
			}
			if e.err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%d weights, streamed %v: encoding differs (error %v)", n, stream, e.err)
			}
		}
		d := NewDecoder(hideLen{bytes.NewReader(want)})
		back, err := d.weights(n, true, "weights")
		if err == nil {
			err = d.checksum()
		}
		if err != nil || !bytes.Equal(naiveElems(back), naiveElems(s)) {
			t.Fatalf("%d weights decode differently (%v)", n, err)
		}
	}
}
