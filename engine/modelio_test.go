package engine

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

// mioFloats returns n float32s drawn from rng, mixing ordinary values
// with the awkward ones: ±0, subnormals, the extremes and, when special is
// set, NaNs with payloads and infinities.
func mioFloats(rng *rand.Rand, n int, special bool) []float32 {
	s := make([]float32, n)
	for i := range s {
		var x float32
		switch r := rng.IntN(12); {
		case r == 0:
			x = float32(math.Copysign(0, -1))
		case r == 1:
			x = 0
		case r == 2:
			x = math.Float32frombits(rng.Uint32N(0x7fffff) + 1) // subnormal
		case r == 3:
			x = -math.Float32frombits(1) // smallest subnormal
		case r == 4:
			x = math.MaxFloat32
		case r == 5:
			x = -math.SmallestNonzeroFloat32 * (1 << 23) // smallest normal
		case r == 6 && special:
			x = math.Float32frombits(0x7f800000 | (rng.Uint32N(0x7fffff) + 1)) // NaN, payload
		case r == 7 && special:
			x = float32(math.Inf(1 - 2*rng.IntN(2)))
		default:
			x = float32(rng.NormFloat64() * 3)
		}
		s[i] = x
	}
	return s
}

// mioModel builds a valid model by hand: nc classes, dim features, the
// voted record (with start weights if start) for Voted, NaNs and
// infinities among the weights if special.
func mioModel(seed uint64, alg Algorithm, nc, dim int, start, special bool) *Model {
	rng := rand.New(rand.NewPCG(seed, 7))
	classes := make([]float64, nc)
	for i := range classes {
		classes[i] = float64(i) - 1
	}
	if nc == 2 {
		classes[0] = -1
		classes[1] = 1
	}
	m := &Model{
		Algorithm: alg,
		Bias:      BiasMode(rng.IntN(3)),
		BiasScale: float32(rng.Float64() * 2),
		Classes:   classes,
		Dim:       dim,
	}
	K := m.NumRows()
	m.W = mioFloats(rng, dim*K, special)
	m.B = mioFloats(rng, K, special)
	if alg != Voted {
		return m
	}
	v := &Votes{Count0: rng.Int64N(100)}
	if start {
		v.W0 = mioFloats(rng, dim*K, special)
		v.B0 = mioFloats(rng, K, special)
	}
	cols := dim
	if dim > 2 {
		cols = dim - 1
	}
	b := sparse.NewBuilder(cols)
	for i := 0; i < 5; i++ {
		var ind []int32
		for j := 0; j < cols; j++ {
			if rng.IntN(3) == 0 {
				ind = append(ind, int32(j))
			}
		}
		val := mioFloats(rng, len(ind), false)
		if err := b.Add(ind, val); err != nil {
			panic(err)
		}
	}
	v.SV = b.Build()
	v.SV.Cols = cols
	for i := 0; i < 9; i++ {
		s := VoteStep{Row: int32(rng.IntN(v.SV.Rows)), Down: -1, A: float32(rng.NormFloat64()), Count: rng.Int64N(1000)}
		if K > 1 {
			s.Up = int32(rng.IntN(K))
			s.Down = int32((int(s.Up) + 1 + rng.IntN(K-1)) % K)
		}
		v.Steps = append(v.Steps, s)
	}
	m.Votes = v
	if err := m.Check(); err != nil {
		panic(err)
	}
	return m
}

type mioCase struct {
	name string
	m    *Model
}

// mioCases returns the models the round-trip tests use; special puts
// NaNs and infinities among their weights.
func mioCases(special bool) []mioCase {
	return []mioCase{
		{"binary", mioModel(1, Averaged, 2, 9, false, special)},
		{"binary-dim0", mioModel(2, Plain, 2, 0, false, special)},
		{"multiclass3", mioModel(3, Averaged, 3, 7, false, special)},
		{"multiclass70", mioModel(4, Batch, 70, 33, false, special)},
		{"voted-binary", mioModel(5, Voted, 2, 6, false, special)},
		{"voted-binary-start", mioModel(6, Voted, 2, 6, true, special)},
		{"voted-multiclass", mioModel(7, Voted, 4, 5, false, special)},
		{"voted-multiclass-start", mioModel(8, Voted, 3, 8, true, special)},
		{"voted-dim0-start", mioModel(9, Voted, 3, 0, true, special)},
	}
}

// mioSmall is the small voted multiclass model whose encoding the
// truncation, bit-flip and golden-file tests use.
func mioSmall() *Model { return mioModel(42, Voted, 3, 3, true, true) }

func mioSameF32(a, b []float32) bool {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

// mioSame reports how got differs from want, bit for bit, or "".
func mioSame(got, want *Model) string {
	switch {
	case got.Algorithm != want.Algorithm || got.Bias != want.Bias:
		return fmt.Sprintf("algorithm %v/%v, want %v/%v", got.Algorithm, got.Bias, want.Algorithm, want.Bias)
	case math.Float32bits(got.BiasScale) != math.Float32bits(want.BiasScale):
		return fmt.Sprintf("bias scale %v, want %v", got.BiasScale, want.BiasScale)
	case got.Dim != want.Dim:
		return fmt.Sprintf("dim %d, want %d", got.Dim, want.Dim)
	case len(got.Classes) != len(want.Classes):
		return fmt.Sprintf("classes %v, want %v", got.Classes, want.Classes)
	case !mioSameF32(got.W, want.W):
		return "weights differ"
	case !mioSameF32(got.B, want.B):
		return "biases differ"
	case (got.Votes == nil) != (want.Votes == nil):
		return "votes present in one only"
	}
	for i := range got.Classes {
		if math.Float64bits(got.Classes[i]) != math.Float64bits(want.Classes[i]) {
			return fmt.Sprintf("classes %v, want %v", got.Classes, want.Classes)
		}
	}
	g, w := got.Votes, want.Votes
	if g == nil {
		return ""
	}
	switch {
	case g.Count0 != w.Count0:
		return fmt.Sprintf("count0 %d, want %d", g.Count0, w.Count0)
	case !mioSameF32(g.W0, w.W0) || !mioSameF32(g.B0, w.B0):
		return "start weights differ"
	case g.SV.Rows != w.SV.Rows || g.SV.Cols != w.SV.Cols:
		return fmt.Sprintf("voted rows %d×%d, want %d×%d", g.SV.Rows, g.SV.Cols, w.SV.Rows, w.SV.Cols)
	case fmt.Sprint(g.SV.Indptr) != fmt.Sprint(w.SV.Indptr) || fmt.Sprint(g.SV.Ind) != fmt.Sprint(w.SV.Ind):
		return "voted row structure differs"
	case len(g.SV.Val) != len(w.SV.Val) || (len(g.SV.Val) > 0 && !mioSameF32(g.SV.Val, w.SV.Val)):
		return "voted row values differ"
	case len(g.Steps) != len(w.Steps):
		return fmt.Sprintf("%d steps, want %d", len(g.Steps), len(w.Steps))
	}
	for i := range g.Steps {
		a, b := g.Steps[i], w.Steps[i]
		if a.Row != b.Row || a.Up != b.Up || a.Down != b.Down || a.Count != b.Count ||
			math.Float32bits(a.A) != math.Float32bits(b.A) {
			return fmt.Sprintf("step %d is %+v, want %+v", i, a, b)
		}
	}
	return ""
}

// mioOnlyReader hides every method but Read, so the reader cannot learn
// the input's size.
type mioOnlyReader struct{ r io.Reader }

func (o mioOnlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// mioFixCRC returns b with its last 4 bytes replaced by the checksum of
// the rest.
func mioFixCRC(b []byte) []byte {
	b = bytes.Clone(b)
	if len(b) >= 4 {
		n := len(b) - 4
		binary.LittleEndian.PutUint32(b[n:], crc32.Checksum(b[:n], crc32.MakeTable(crc32.Castagnoli)))
	}
	return b
}

func mioEncode(t testing.TB, m *Model) []byte {
	t.Helper()
	b, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestModelBinaryRoundTrip(t *testing.T) {
	for _, c := range mioCases(true) {
		t.Run(c.name, func(t *testing.T) {
			b := mioEncode(t, c.m)
			if int64(len(b)) != c.m.encodedSize() {
				t.Errorf("encoding is %d bytes, encodedSize says %d", len(b), c.m.encodedSize())
			}
			var got Model
			if err := got.UnmarshalBinary(b); err != nil {
				t.Fatal(err)
			}
			if d := mioSame(&got, c.m); d != "" {
				t.Fatal(d)
			}
			if b2 := mioEncode(t, &got); !bytes.Equal(b, b2) {
				t.Error("re-encoding differs")
			}
		})
	}
}

func TestModelWriteToReadModel(t *testing.T) {
	for _, c := range mioCases(true) {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			n, err := c.m.WriteTo(&buf)
			if err != nil {
				t.Fatal(err)
			}
			want := mioEncode(t, c.m)
			if n != int64(buf.Len()) || !bytes.Equal(buf.Bytes(), want) {
				t.Fatalf("WriteTo wrote %d (reported %d), not the MarshalBinary bytes", buf.Len(), n)
			}
			for _, r := range []io.Reader{bytes.NewReader(want), mioOnlyReader{bytes.NewReader(want)}} {
				got, err := ReadModel(r)
				if err != nil {
					t.Fatalf("%T: %v", r, err)
				}
				if d := mioSame(got, c.m); d != "" {
					t.Fatalf("%T: %s", r, d)
				}
			}
		})
	}
}

// A model is read to its end and no further: models can follow each
// other in a stream.
func TestModelReadModelStream(t *testing.T) {
	cases := mioCases(true)
	var stream bytes.Buffer
	for _, c := range cases {
		if _, err := c.m.WriteTo(&stream); err != nil {
			t.Fatal(err)
		}
	}
	stream.WriteString("tail")
	r := mioOnlyReader{&stream}
	for _, c := range cases {
		got, err := ReadModel(r)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if d := mioSame(got, c.m); d != "" {
			t.Fatalf("%s: %s", c.name, d)
		}
	}
	if rest, _ := io.ReadAll(r); string(rest) != "tail" {
		t.Errorf("left %q after the models, want %q", rest, "tail")
	}
}

type mioFailWriter struct{ n int }

func (w *mioFailWriter) Write(p []byte) (int, error) {
	if w.n < len(p) {
		k := w.n
		w.n = 0
		return k, errors.New("disk full")
	}
	w.n -= len(p)
	return len(p), nil
}

func TestModelWriteToError(t *testing.T) {
	m := mioModel(3, Averaged, 70, 2000, false, false) // several buffers
	size := m.encodedSize()
	for _, limit := range []int{0, 10, modelChunk + 3, int(size) - 2} {
		n, err := m.WriteTo(&mioFailWriter{n: limit})
		if err == nil || err.Error() != "disk full" {
			t.Errorf("limit %d: err = %v, want disk full", limit, err)
		}
		if n != int64(limit) {
			t.Errorf("limit %d: WriteTo reported %d bytes", limit, n)
		}
	}
}

func TestModelSaveLoad(t *testing.T) {
	dir := t.TempDir()
	for _, c := range mioCases(true) {
		path := filepath.Join(dir, c.name+".hpm")
		if err := c.m.Save(path); err != nil {
			t.Fatal(err)
		}
		got, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if d := mioSame(got, c.m); d != "" {
			t.Fatalf("%s: %s", c.name, d)
		}
	}
}

func TestModelSaveReplaces(t *testing.T) {
	path := filepath.Join(t.TempDir(), "model.hpm")
	a, b := mioModel(1, Averaged, 2, 50, false, false), mioModel(2, Voted, 3, 4, true, false)
	for _, m := range []*Model{a, b, a} {
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		got, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if d := mioSame(got, m); d != "" {
			t.Fatal(d)
		}
	}
	// A save that fails leaves the file as it was.
	bad := mioModel(1, Averaged, 2, 3, false, false)
	bad.W = bad.W[:2]
	if err := bad.Save(path); !errors.Is(err, ErrFormat) {
		t.Errorf("saving an invalid model: %v", err)
	}
	if got, err := Load(path); err != nil || mioSame(got, a) != "" {
		t.Errorf("file changed by a failed save: %v", err)
	}
	if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
		t.Errorf("%d files left in the directory, want 1", len(ents))
	}
	if err := a.Save(filepath.Join(t.TempDir(), "no", "such", "dir", "m.hpm")); err == nil {
		t.Error("saving into a missing directory succeeded")
	}
}

func TestModelLoadErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(filepath.Join(dir, "missing.hpm")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	good := mioEncode(t, mioSmall())
	corrupt := bytes.Clone(good)
	corrupt[len(corrupt)/2] ^= 0x10
	for _, c := range []struct {
		name, want string
		data       []byte
	}{
		{"corrupt.hpm", "corrupt.hpm: engine: bad model file: checksum mismatch: file is corrupt", corrupt},
		{"empty.hpm", "empty.hpm: engine: bad model file: not a hyperplane model file", nil},
		{"short.hpm", "short.hpm: engine: bad model file: truncated in", good[:len(good)-1]},
		{"long.hpm", "long.hpm: engine: bad model file: 1 bytes of trailing data after the model", append(bytes.Clone(good), 0)},
		{"json.hpm", "json.hpm: engine: bad model file: not a hyperplane model file", []byte(`{"format":"hyperplane-model"}`)},
	} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(path)
		if !errors.Is(err, ErrFormat) || !strings.HasPrefix(err.Error(), filepath.Join(dir, c.want)) {
			t.Errorf("%s: err = %v, want %s…", c.name, err, c.want)
		}
	}
	if _, err := Load(dir); err == nil {
		t.Error("loading a directory succeeded")
	}
}

// Every proper prefix of an encoding fails with ErrFormat, whether the
// reader knows the input's size or not.
func TestModelBinaryTruncated(t *testing.T) {
	for _, m := range []*Model{mioSmall(), mioModel(11, Averaged, 2, 4, false, false)} {
		b := mioEncode(t, m)
		for n := 0; n < len(b); n++ {
			var got Model
			err := got.UnmarshalBinary(b[:n])
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("prefix of %d bytes: %v", n, err)
			}
			want := "truncated in"
			if n < 4 {
				want = "not a hyperplane model file"
			}
			if !strings.Contains(err.Error(), want) {
				t.Errorf("prefix of %d bytes: %v, want %q", n, err, want)
			}
			if _, err := ReadModel(mioOnlyReader{bytes.NewReader(b[:n])}); !errors.Is(err, ErrFormat) {
				t.Fatalf("prefix of %d bytes, stream: %v", n, err)
			}
		}
	}
}

// The checksum catches every single-bit error, if the parse did not
// already fail.
func TestModelBinaryBitFlips(t *testing.T) {
	b := mioEncode(t, mioSmall())
	for i := range 8 * len(b) {
		c := bytes.Clone(b)
		c[i/8] ^= 1 << (i % 8)
		var got Model
		if err := got.UnmarshalBinary(c); !errors.Is(err, ErrFormat) {
			t.Fatalf("bit %d flipped: %v", i, err)
		}
		if _, err := ReadModel(mioOnlyReader{bytes.NewReader(c)}); !errors.Is(err, ErrFormat) {
			t.Fatalf("bit %d flipped, stream: %v", i, err)
		}
	}
	c := bytes.Clone(b)
	c[len(c)-10] ^= 0x80
	var got Model
	if err := got.UnmarshalBinary(c); err == nil || err.Error() != "engine: bad model file: checksum mismatch: file is corrupt" {
		t.Errorf("flipped step bit: %v", err)
	}
}

// mioHeader returns a header with the given fields.
func mioHeader(version, flags uint16, alg, bias byte, nc, K uint32, dim uint64) []byte {
	b := []byte(modelMagic)
	b = binary.LittleEndian.AppendUint16(b, version)
	b = binary.LittleEndian.AppendUint16(b, flags)
	b = append(b, alg, bias, 0, 0)
	b = binary.LittleEndian.AppendUint32(b, math.Float32bits(1))
	b = binary.LittleEndian.AppendUint32(b, nc)
	b = binary.LittleEndian.AppendUint32(b, K)
	return binary.LittleEndian.AppendUint64(b, dim)
}

func TestModelBinaryHeaderErrors(t *testing.T) {
	good := mioEncode(t, mioSmall())
	withCRC := func(b []byte) []byte { return mioFixCRC(append(b, 0, 0, 0, 0)) }
	patch := func(off int, v ...byte) []byte {
		b := bytes.Clone(good)
		copy(b[off:], v)
		return mioFixCRC(b)
	}
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "engine: bad model file: not a hyperplane model file"},
		{"magic", []byte("HPLX0123456789"), "engine: bad model file: not a hyperplane model file"},
		{"newer", withCRC(mioHeader(7, 0, 0, 0, 2, 1, 0)), "engine: bad model file: format version 7 is newer than this build reads (1)"},
		{"version0", withCRC(mioHeader(0, 0, 0, 0, 2, 1, 0)), "format version 0 does not exist"},
		{"flags", withCRC(mioHeader(1, 32, 0, 0, 2, 1, 0)), "unknown flags 0x20"},
		{"normalized-voted", withCRC(mioHeader(1, 5, 2, 0, 2, 1, 0)), "a voted model does not normalize rows"},
		{"start-without-votes", withCRC(mioHeader(1, 2, 0, 0, 2, 1, 0)), "start weights flagged without votes"},
		{"reserved", patch(11, 1), "reserved header byte is not zero"},
		{"rule", patch(10, 5), "rule 5"},
		{"rule-voted", patch(10, 1), "rule pa with algorithm voted"},
		{"algorithm", withCRC(mioHeader(1, 0, 9, 0, 2, 1, 0)), "unknown algorithm 9"},
		{"bias", withCRC(mioHeader(1, 0, 0, 3, 2, 1, 0)), "bias mode 3"},
		{"votes-not-voted", withCRC(mioHeader(1, 1, 0, 0, 2, 1, 0)), "votes present only and always for the voted algorithm"},
		{"voted-no-votes", withCRC(mioHeader(1, 0, 2, 0, 2, 1, 0)), "votes present only and always for the voted algorithm"},
		{"one-class", withCRC(mioHeader(1, 0, 0, 0, 1, 1, 0)), "1 classes"},
		{"rows", withCRC(mioHeader(1, 0, 0, 0, 3, 1, 0)), "1 weight rows for 3 classes"},
		{"binary-rows", withCRC(mioHeader(1, 0, 0, 0, 2, 2, 0)), "2 weight rows for 2 classes"},
		{"dim", withCRC(mioHeader(1, 0, 0, 0, 2, 1, 1<<31)), "dim 2147483648 is beyond the limit 2147483647"},
		{"dim-times-rows", withCRC(mioHeader(1, 0, 0, 0, 1<<31-1, 1<<31-1, 1<<31-1)), "is beyond any model"},
		{"classes", withCRC(mioHeader(1, 0, 0, 0, 1<<20, 1<<20, 0)), "truncated in classes: 8388608 bytes needed, 4 left"},
		{"weights", append(mioHeader(1, 0, 0, 0, 2, 1, 1<<31-1), make([]byte, 104)...), "truncated in weights: 8589934588 bytes needed, 84 left"},
		{"unsorted-classes", patch(32, 0, 0, 0, 0, 0, 0, 0xf0, 0x7f), "classes not strictly ascending"},
		{"checksum", append(bytes.Clone(good[:len(good)-1]), good[len(good)-1]^1), "engine: bad model file: checksum mismatch: file is corrupt"},
		{"trailing", append(bytes.Clone(good), 1, 2, 3), "engine: bad model file: 3 bytes of trailing data after the model"},
	} {
		var m Model
		err := m.UnmarshalBinary(c.data)
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want …%s…", c.name, err, c.want)
		}
	}
}

// A header claiming a huge model fails on its few bytes, allocating
// little, whether the reader knows the input's size or not.
func TestModelBinaryHugeClaims(t *testing.T) {
	tiny := append(mioHeader(1, 0, 0, 0, 2, 1, 1<<31-1), make([]byte, 100)...)
	manyClasses := append(mioHeader(1, 0, 0, 0, 1<<31-1, 1<<31-1, 0), make([]byte, 100)...)

	// A voted model whose counts of voted entries or steps are huge.
	m := mioModel(3, Voted, 3, 4, false, false)
	enc := mioEncode(t, m)
	off := modelHeaderSize + 8*3 + 4*3 + 4*12 + 8 + 16 // nnz
	hugeNNZ := bytes.Clone(enc)
	binary.LittleEndian.PutUint64(hugeNNZ[off:], 1<<40)
	hugeNNZ = mioFixCRC(hugeNNZ)
	hugeSteps := bytes.Clone(enc)
	binary.LittleEndian.PutUint64(hugeSteps[len(enc)-4-modelStepSize*len(m.Votes.Steps)-8:], 1<<58)
	hugeSteps = mioFixCRC(hugeSteps)
	hugeRows := bytes.Clone(enc)
	binary.LittleEndian.PutUint64(hugeRows[off-16:], 1<<31-2)
	hugeRows = mioFixCRC(hugeRows)

	for name, data := range map[string][]byte{
		"dim": tiny, "classes": manyClasses, "nnz": hugeNNZ, "steps": hugeSteps, "rows": hugeRows,
	} {
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
				t.Fatalf("%s (sized %v): %v", name, sized, err)
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
				t.Errorf("%s (sized %v): allocated %d bytes per decode", name, sized, per)
			}
		}
	}
}

func TestModelBinaryGarbage(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		n := rng.IntN(300)
		b := make([]byte, n)
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		if i%2 == 1 && n >= 4 {
			copy(b, modelMagic) // get past the magic
		}
		var m Model
		if err := m.UnmarshalBinary(b); !errors.Is(err, ErrFormat) {
			t.Fatalf("%d random bytes: %v", n, err)
		}
		if _, err := ReadModel(bytes.NewReader(b)); !errors.Is(err, ErrFormat) {
			t.Fatalf("%d random bytes, stream: %v", n, err)
		}
	}
	var m Model
	if err := m.UnmarshalBinary(nil); !errors.Is(err, ErrFormat) {
		t.Errorf("empty input: %v", err)
	}
	if _, err := ReadModel(strings.NewReader("")); !errors.Is(err, ErrFormat) {
		t.Errorf("empty stream: %v", err)
	}
}

type mioErrReader struct{}

func (mioErrReader) Read([]byte) (int, error) { return 0, errors.New("device on fire") }

// A read error is passed on, not mistaken for a bad file.
func TestModelReadModelIOError(t *testing.T) {
	b := mioEncode(t, mioSmall())
	for _, n := range []int{0, 2, 40} {
		_, err := ReadModel(io.MultiReader(bytes.NewReader(b[:n]), mioErrReader{}))
		if err == nil || errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "device on fire") {
			t.Errorf("error after %d bytes: %v", n, err)
		}
	}
}

func TestModelUnmarshalKeepsModel(t *testing.T) {
	m := mioSmall()
	keep := *m
	b := mioEncode(t, mioModel(1, Averaged, 2, 3, false, false))
	if err := m.UnmarshalBinary(b[:len(b)-1]); err == nil {
		t.Fatal("truncated input decoded")
	}
	if err := m.UnmarshalJSON([]byte(`{"format":"hyperplane-model","version":1}`)); err == nil {
		t.Fatal("incomplete JSON decoded")
	}
	if d := mioSame(m, &keep); d != "" {
		t.Error("model changed by a failed decode:", d)
	}
}

func TestModelMarshalInvalid(t *testing.T) {
	invalid := []*Model{
		{Classes: []float64{1}, B: []float32{0}},
		{Classes: []float64{1, 0}, B: []float32{0}},
		{Classes: []float64{0, 1}, Dim: 2, W: []float32{1}, B: []float32{0}},
		{Classes: []float64{0, 1}, B: []float32{0}, Algorithm: Voted},
		{Classes: []float64{0, 1}, B: []float32{0}, Algorithm: 7},
	}
	neg := mioModel(1, Voted, 2, 3, false, false)
	neg.Votes.Count0 = -1
	invalid = append(invalid, neg)
	for i, m := range invalid {
		if _, err := m.MarshalBinary(); !errors.Is(err, ErrFormat) {
			t.Errorf("model %d: MarshalBinary: %v", i, err)
		}
		var buf bytes.Buffer
		if n, err := m.WriteTo(&buf); !errors.Is(err, ErrFormat) || n != 0 || buf.Len() != 0 {
			t.Errorf("model %d: WriteTo: %d bytes, %v", i, n, err)
		}
		if _, err := m.MarshalJSON(); !errors.Is(err, ErrFormat) {
			t.Errorf("model %d: MarshalJSON: %v", i, err)
		}
	}
}

// The encoding of a fixed model is pinned: a change to the format must
// come with a new version, not change what version 1 means.
func TestModelBinaryGolden(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("testdata", "model_v1.hpm"))
	if err != nil {
		t.Fatal(err)
	}
	if got := mioEncode(t, mioSmall()); !bytes.Equal(got, want) {
		t.Error("the encoding of mioSmall differs from testdata/model_v1.hpm")
	}
	m, err := Load(filepath.Join("testdata", "model_v1.hpm"))
	if err != nil {
		t.Fatal(err)
	}
	if d := mioSame(m, mioSmall()); d != "" {
		t.Error(d)
	}
}

func TestModelJSONRoundTrip(t *testing.T) {
	for _, c := range mioCases(false) {
		t.Run(c.name, func(t *testing.T) {
			b, err := json.Marshal(c.m)
			if err != nil {
				t.Fatal(err)
			}
			var got Model
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			if d := mioSame(&got, c.m); d != "" {
				t.Fatal(d)
			}
			// The weights are given per row.
			var raw struct {
				Weights [][]float32
				Bias    []float32
			}
			if err := json.Unmarshal(b, &raw); err != nil {
				t.Fatal(err)
			}
			K := c.m.NumRows()
			if len(raw.Weights) != K || len(raw.Bias) != K {
				t.Fatalf("%d weight rows and %d biases, want %d", len(raw.Weights), len(raw.Bias), K)
			}
			for k, row := range raw.Weights {
				if len(row) != c.m.Dim {
					t.Fatalf("row %d has %d weights, want %d", k, len(row), c.m.Dim)
				}
				for j, w := range row {
					if math.Float32bits(w) != math.Float32bits(c.m.Weight(k, j)) {
						t.Fatalf("weights[%d][%d] = %v, want %v", k, j, w, c.m.Weight(k, j))
					}
				}
			}
		})
	}
}

func TestModelJSONLayout(t *testing.T) {
	m := &Model{Classes: []float64{-1, 1}, Dim: 2, W: []float32{2, -1}, B: []float32{0.5}, BiasScale: 1}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"format":"hyperplane-model","version":1,"algorithm":"averaged","bias_mode":"separate","bias_scale":1,"classes":[-1,1],"dim":2,"bias":[0.5],"weights":[[2,-1]]}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	m3 := &Model{Algorithm: Plain, Bias: NoBias, Classes: []float64{0, 1, 2}, Dim: 2,
		W: []float32{1, 2, 3, 4, 5, 6}, B: []float32{0, 0, 0}}
	b, err = json.Marshal(m3)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"weights":[[1,4],[2,5],[3,6]]`) || !strings.Contains(string(b), `"bias_mode":"none"`) {
		t.Errorf("multiclass layout: %s", b)
	}
	v := mioModel(5, Voted, 2, 3, true, false)
	b, err = json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"votes":{"count0":`, `"start_weights":[[`, `"steps":[{"row":`, `"indptr":[0,`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("voted JSON lacks %s: %s", key, b)
		}
	}
}

func TestModelJSONNonFinite(t *testing.T) {
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	for i, mod := range []func(m *Model){
		func(m *Model) { m.W[4] = nan },
		func(m *Model) { m.B[0] = -inf },
		func(m *Model) { m.BiasScale = inf },
		func(m *Model) { m.Classes[0] = math.Inf(-1) },
		func(m *Model) { m.Votes.W0[1] = nan },
		func(m *Model) { m.Votes.B0[0] = inf },
		func(m *Model) { m.Votes.Steps[2].A = nan },
	} {
		m := mioModel(5, Voted, 2, 6, true, false)
		mod(m)
		if _, err := json.Marshal(m); !errors.Is(err, ErrFormat) {
			t.Errorf("case %d: %v", i, err)
		}
	}
	m := mioModel(5, Averaged, 3, 6, false, false)
	m.W[7] = nan
	_, err := m.MarshalJSON()
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "feature 2 in row 1 is not finite") {
		t.Errorf("NaN weight: %v", err)
	}
}

func TestModelJSONErrors(t *testing.T) {
	good, err := json.Marshal(mioModel(5, Voted, 3, 3, true, false))
	if err != nil {
		t.Fatal(err)
	}
	edit := func(f func(map[string]any)) string {
		var o map[string]any
		if err := json.Unmarshal(good, &o); err != nil {
			t.Fatal(err)
		}
		f(o)
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	votes := func(o map[string]any) map[string]any { return o["votes"].(map[string]any) }
	for _, c := range []struct{ name, data, want string }{
		{"syntax", `{"format":`, "JSON"},
		{"array", `[1,2]`, "JSON"},
		{"format", edit(func(o map[string]any) { o["format"] = "other" }), "not a hyperplane model file"},
		{"no-format", `{"version":1}`, "not a hyperplane model file"},
		{"newer", edit(func(o map[string]any) { o["version"] = 7 }), "format version 7 is newer than this build reads (3)"},
		{"version0", edit(func(o map[string]any) { delete(o, "version") }), "format version 0"},
		{"algorithm", edit(func(o map[string]any) { o["algorithm"] = "svm" }), `unknown algorithm "svm"`},
		{"bias-mode", edit(func(o map[string]any) { o["bias_mode"] = "x" }), `unknown bias mode "x"`},
		{"classes", edit(func(o map[string]any) { o["classes"] = []int{1} }), "1 classes"},
		{"dim", edit(func(o map[string]any) { o["dim"] = -1 }), "dim -1"},
		{"rows", edit(func(o map[string]any) { o["weights"] = [][]int{{1, 2, 3}} }), "1 rows of weights for 3"},
		{"row-length", edit(func(o map[string]any) { o["weights"].([]any)[1] = []int{1} }), "row 1 of weights has 1 values for dim 3"},
		{"bias", edit(func(o map[string]any) { o["bias"] = []int{1} }), "biases"},
		{"string-weight", edit(func(o map[string]any) { o["weights"].([]any)[0] = []any{"1", 2, 3} }), "JSON"},
		{"overflow", edit(func(o map[string]any) { o["weights"].([]any)[0] = []any{1e39, 2, 3} }), "JSON"},
		{"start-bias-only", edit(func(o map[string]any) { delete(votes(o), "start_weights") }), "0 rows of start weights"},
		{"start-weights-only", edit(func(o map[string]any) { delete(votes(o), "start_bias") }), "start weights do not match"},
		{"no-votes", edit(func(o map[string]any) { delete(o, "votes") }), "votes present only and always"},
		{"votes-on-averaged", edit(func(o map[string]any) { o["algorithm"] = "averaged" }), "votes present only and always"},
		{"count0", edit(func(o map[string]any) { votes(o)["count0"] = -2 }), "negative vote count"},
		{"sv-rows", edit(func(o map[string]any) { votes(o)["rows"].(map[string]any)["rows"] = 1 << 40 }), "voted rows"},
		{"step", edit(func(o map[string]any) { votes(o)["steps"].([]any)[0].(map[string]any)["up"] = 3 }), "vote step 0 out of range"},
	} {
		var m Model
		err := m.UnmarshalJSON([]byte(c.data))
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want …%s…", c.name, err, c.want)
		}
	}
}

// mioSeeds are the inputs FuzzUnmarshalBinary starts from, besides the
// files in testdata/fuzz.
func mioSeeds() [][]byte {
	var seeds [][]byte
	for _, m := range []*Model{
		mioModel(1, Averaged, 2, 3, false, true),
		mioModel(2, Plain, 3, 2, false, true),
		mioModel(3, Voted, 2, 2, true, true),
		mioModel(4, Voted, 3, 0, false, false),
		{Classes: []float64{1, 2, 3}, Dim: 1 << 30, Cols: []int32{5, 1 << 20, 1 << 29},
			W: []float32{1, 2, 3, -1, -2, -3, 0.5, 0, 0}, B: []float32{0, 1, 2}, Rule: PA2, Normalize: true},
		mioSparseSmall(),
		mioSparse(27, Voted, 3, 12, true, 0.2),
		mioSmall(),
	} {
		b, err := m.MarshalBinary()
		if err != nil {
			panic(err)
		}
		seeds = append(seeds, b)
	}
	// A file written dense by a writer that knew no other encoding.
	return append(seeds, mioMarshalAs(mioSparseSmall(), false))
}

// mioFuzzCheck decodes data both ways and, when it decodes, checks that
// the model is valid and that its encoding is data itself.
func mioFuzzCheck(t *testing.T, data []byte) {
	var m Model
	err := m.UnmarshalBinary(data)
	sm, serr := ReadModel(mioOnlyReader{bytes.NewReader(data)})
	if err != nil {
		if !errors.Is(err, ErrFormat) {
			t.Fatalf("error not wrapping ErrFormat: %v", err)
		}
		if serr != nil && !errors.Is(serr, ErrFormat) {
			t.Fatalf("stream error not wrapping ErrFormat: %v", serr)
		}
		if serr == nil && !strings.Contains(err.Error(), "trailing data") {
			t.Fatalf("stream decoded what UnmarshalBinary rejects: %v", err)
		}
		return
	}
	if serr != nil {
		t.Fatalf("UnmarshalBinary decoded what ReadModel rejects: %v", serr)
	}
	if d := mioSame(sm, &m); d != "" {
		t.Fatalf("ReadModel and UnmarshalBinary disagree: %s", d)
	}
	if err := m.Check(); err != nil {
		t.Fatalf("decoded model fails Check: %v", err)
	}
	b, err := m.MarshalBinary()
	if err != nil {
		t.Fatalf("decoded model does not encode: %v", err)
	}
	// The writer picks the smaller of the dense and sparse encodings of
	// the weights; data may hold the other, as an older writer's files
	// do, and must then be exactly that.
	if !bytes.Equal(b, data) && !bytes.Equal(mioMarshalAs(&m, mioFlags(data)&modelFlagSparse != 0), data) {
		t.Fatal("re-encoding differs from the input")
	}
	var m2 Model
	if err := m2.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if d := mioSame(&m2, &m); d != "" {
		t.Fatal(d)
	}
}

// FuzzUnmarshalBinary decodes arbitrary bytes, and the same bytes with
// their last four replaced by a valid checksum, so that the fuzzer gets
// past the checksum into the structure.
func FuzzUnmarshalBinary(f *testing.F) {
	for _, s := range mioSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		mioFuzzCheck(t, data)
		mioFuzzCheck(t, mioFixCRC(data))
	})
}

// TestModelTestdata checks that the fuzz seed files are the ones the
// current seeds give (so a format change cannot leave stale seeds behind);
// with HYPERPLANE_WRITE_TESTDATA=1 it rewrites them and the golden file
// instead.
func TestModelTestdata(t *testing.T) {
	write := os.Getenv("HYPERPLANE_WRITE_TESTDATA") == "1"
	if write {
		if err := os.WriteFile(filepath.Join("testdata", "model_v1.hpm"), mioEncode(t, mioSmall()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzUnmarshalBinary")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	seeds := mioSeeds()
	small := seeds[7]
	named := map[string][]byte{
		"binary":          seeds[0],
		"multiclass":      seeds[1],
		"voted-start":     seeds[2],
		"voted-dim0":      seeds[3],
		"compact":         seeds[4],
		"sparse":          seeds[5],
		"sparse-voted":    seeds[6],
		"dense-zeros":     seeds[8],
		"small":           small,
		"truncated":       small[:len(small)/2],
		"bad-checksum":    append(bytes.Clone(small[:len(small)-4]), 0, 0, 0, 0),
		"huge-dim":        append(mioHeader(1, 0, 0, 0, 2, 1, 1<<31-1), 1, 2, 3, 4, 5, 6, 7, 8),
		"newer-version":   append(mioHeader(2, 0, 0, 0, 2, 1, 0), 0, 0, 0, 0),
		"magic-only":      []byte(modelMagic),
		"multiclass-huge": append(mioHeader(1, 0, 0, 0, 1<<30, 1<<30, 1<<30), 0, 0, 0, 0),
	}
	for name, b := range named {
		content := "go test fuzz v1\n[]byte(" + strconv.Quote(string(b)) + ")\n"
		path := filepath.Join(dir, name)
		if write {
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if got, err := os.ReadFile(path); err != nil || string(got) != content {
			t.Errorf("%s is missing or stale (%v): regenerate with HYPERPLANE_WRITE_TESTDATA=1", path, err)
		}
	}
}

// failingWriter fails every write and counts them.
type failingWriter struct{ calls int }

func (w *failingWriter) Write([]byte) (int, error) {
	w.calls++
	return 0, errors.New("disk full")
}

// TestWriteToStopsAfterFailure: once a write fails, WriteTo drops the rest
// instead of gathering the whole model into its buffer (it promises no
// second copy of the model in memory), for linear and kernel models.
func TestWriteToStopsAfterFailure(t *testing.T) {
	const dim = 8 << 20 // 32 MiB of weights
	lin := &Model{Classes: []float64{0, 1}, Dim: dim, W: make([]float32, dim), B: []float32{0}}
	for _, c := range []struct {
		name string
		m    io.WriterTo
	}{
		{"linear", lin},
		{"kernel", kmioBig()},
	} {
		var w failingWriter
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := c.m.WriteTo(&w)
		runtime.ReadMemStats(&after)
		if err == nil || w.calls != 1 {
			t.Fatalf("%s: WriteTo = %v after %d writes; want the writer's error after one", c.name, err, w.calls)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4*modelChunk {
			t.Fatalf("%s: WriteTo allocated %d bytes after the write failed (chunk %d)", c.name, alloc, modelChunk)
		}
	}
}
