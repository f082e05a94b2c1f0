package engine

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse/budget/budgettest"
)

// mixSamples returns Mix values of every form: dense plain, averaged
// with a history, multiclass, and sparse deltas.
func mixSamples() []*Mix {
	avg := &Mix{
		Classes: []float64{-1, 1}, Dim: 4,
		W: []float32{1, -2, 0, 3.5}, B: []float32{0.25},
		N: 7, U: []float64{3, -4, 0, 1}, UB: []float64{0.5},
		Sum: []float64{10, 11, 12, 13}, SumB: []float64{1}, SumN: 20, Updates: 5,
	}
	multi := &Mix{
		Classes: []float64{0, 1, 2}, Dim: 2,
		W: []float32{1, 2, 3, 4, 5, 6}, B: []float32{0, 1, -1}, N: 3, Updates: 2,
	}
	delta := &Mix{
		Classes: []float64{0, 1, 2}, Dim: 1 << 20, Features: []int32{3, 1 << 19},
		W: []float32{1, 2, 3, 4, 5, 6}, B: []float32{0, 1, -1}, N: 9,
		U: []float64{1, 2, 3, 4, 5, 6}, UB: []float64{0, 0, 1}, Updates: 4,
	}
	empty := &Mix{Classes: []float64{1, 2}, Dim: 1 << 24, Features: []int32{}, W: []float32{}, B: []float32{0}}
	state := &Mix{
		Classes: []float64{-1, 1}, Dim: 1 << 24, Features: []int32{5, 1 << 23}, Sparse: true,
		W: []float32{1, -2}, B: []float32{0.5}, Sum: []float64{3, -7}, SumB: []float64{2}, SumN: 40, Updates: 6,
	}
	seen := &Mix{
		Classes: []float64{-1, 1}, Dim: 100, Features: []int32{4, 50}, Seen: []int32{3, 5, 99},
		W: []float32{1, 2}, B: []float32{0}, N: 3, U: []float64{1, 0}, UB: []float64{0}, Updates: 1,
	}
	return []*Mix{avg, multi, delta, empty, fxZeroMix([]float64{0, 1}, 3), state, seen}
}

// A Mix reads back as it was written, from memory and from a stream.
func TestMixRoundTrip(t *testing.T) {
	for i, m := range mixSamples() {
		b, err := m.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		n, err := m.WriteTo(&buf)
		if err != nil || n != int64(len(b)) || !bytes.Equal(buf.Bytes(), b) {
			t.Fatalf("sample %d: WriteTo wrote %d bytes (%v), MarshalBinary %d", i, n, err, len(b))
		}
		if int64(len(b)) != (mixFile{m}).size() {
			t.Fatalf("sample %d: %d bytes, size says %d", i, len(b), mixFile{m}.size())
		}
		var got Mix
		if err := got.UnmarshalBinary(b); err != nil {
			t.Fatalf("sample %d: %v", i, err)
		}
		if !reflect.DeepEqual(&got, m) {
			t.Fatalf("sample %d: read back %+v, want %+v", i, got, *m)
		}
		sm, err := ReadMix(mioOnlyReader{bytes.NewReader(b)}, 0)
		if err != nil || !reflect.DeepEqual(sm, m) {
			t.Fatalf("sample %d: stream read %+v, %v", i, sm, err)
		}
	}
}

// Corrupt, truncated and hostile inputs give errors wrapping ErrFormat
// (or ErrMemory past the budget), never a panic or an allocation the
// input does not pay for.
func TestMixCorrupt(t *testing.T) {
	good, _ := mixSamples()[0].MarshalBinary()
	for n := range len(good) {
		if _, err := ReadMix(mioOnlyReader{bytes.NewReader(good[:n])}, 0); !errors.Is(err, ErrFormat) {
			t.Fatalf("truncated to %d bytes: %v", n, err)
		}
		var m Mix
		if err := m.UnmarshalBinary(good[:n]); !errors.Is(err, ErrFormat) {
			t.Fatalf("truncated to %d bytes (memory): %v", n, err)
		}
	}
	for i := range len(good) {
		b := bytes.Clone(good)
		b[i] ^= 0x10
		if _, err := ReadMix(bytes.NewReader(b), 0); !errors.Is(err, ErrFormat) {
			t.Fatalf("byte %d flipped: %v", i, err)
		}
	}
	set := func(kv ...uint64) []byte {
		b := bytes.Clone(good)
		for i := 0; i < len(kv); i += 2 {
			binary.LittleEndian.PutUint64(b[kv[i]:], kv[i+1])
		}
		return mioFixCRC(b)
	}
	for _, tc := range []struct {
		name string
		b    []byte
		want error
	}{
		{"huge dim", set(16, 1<<40), ErrFormat},
		{"dim past the budget", set(16, 1<<29, 48, 1<<29), ErrMemory},
		{"N NaN", set(24, math.Float64bits(math.NaN())), ErrFormat},
		{"negative updates", set(40, 1<<63), ErrFormat},
		{"features past dim", set(48, 5), ErrFormat},
		{"trailing data", append(bytes.Clone(good), 0), ErrFormat},
		{"version 2", func() []byte { b := bytes.Clone(good); b[4] = 2; return mioFixCRC(b) }(), ErrFormat},
		{"unknown flag", func() []byte { b := bytes.Clone(good); b[6] |= 0x80; return mioFixCRC(b) }(), ErrFormat},
		{"not a mix", []byte("HPLM...."), ErrFormat},
		// Flag bit 3 (a sparse state) needs bit 0 (features listed); a
		// delta (bit 0 alone) carries no history.
		{"state flag without features", func() []byte { b := bytes.Clone(good); b[6] |= mixFlagState; return mioFixCRC(b) }(), ErrFormat},
		{"features seen on a state", func() []byte {
			b, _ := mixSamples()[5].MarshalBinary()
			b[6] |= mixFlagSeen
			return mioFixCRC(b)
		}(), ErrFormat},
		{"a feature changed and seen", func() []byte {
			m := *mixSamples()[6]
			m.Seen = []int32{4}
			b, _ := (&Mix{Classes: m.Classes, Dim: m.Dim, Features: m.Features, W: m.W, B: m.B, N: m.N, U: m.U, UB: m.UB}).MarshalBinary()
			// The sample without Seen, then the flag and a list of
			// feature 4 spliced in after the features.
			at := 56 + 8*2 + 4 + 4*2
			ins := binary.LittleEndian.AppendUint64(nil, 1)
			ins = binary.LittleEndian.AppendUint32(ins, 4)
			b = append(b[:at:at], append(ins, b[at:]...)...)
			b[6] |= mixFlagSeen
			return mioFixCRC(b)
		}(), ErrFormat},
		{"delta with a history", func() []byte {
			b, _ := mixSamples()[5].MarshalBinary()
			b[6] &^= mixFlagState
			return mioFixCRC(b)
		}(), ErrFormat},
	} {
		var m Mix
		err := m.UnmarshalBinary(tc.b)
		if tc.name == "dim past the budget" {
			// In memory the input's own size bounds the arrays.
			_, err = ReadMix(mioOnlyReader{bytes.NewReader(tc.b)}, 1<<20)
		}
		if !errors.Is(err, tc.want) {
			t.Fatalf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	// A header that promises 2^31 weights on a stream of a few bytes
	// allocates in chunks as data arrives: it fails, without the 8 GiB.
	b := set(16, 1<<31-1, 48, 1<<31-1)
	if _, err := ReadMix(mioOnlyReader{bytes.NewReader(b)}, 1<<40); !errors.Is(err, ErrFormat) {
		t.Fatalf("huge header on a short stream: %v", err)
	}
	// A Mix that fails its checks is not written.
	bad := *mixSamples()[0]
	bad.W = bad.W[:2]
	if _, err := bad.WriteTo(&bytes.Buffer{}); !errors.Is(err, ErrConfig) {
		t.Fatalf("short W written: %v", err)
	}
	bad = *mixSamples()[0]
	bad.W = []float32{1, float32(math.Inf(1)), 0, 0}
	if _, err := bad.MarshalBinary(); !errors.Is(err, ErrDiverged) {
		t.Fatalf("infinite weight written: %v", err)
	}
}

// FuzzReadMix decodes arbitrary bytes as a Mix: an error wrapping
// ErrFormat or ErrMemory, or a valid Mix whose encoding is the input.
func FuzzReadMix(f *testing.F) {
	for _, m := range mixSamples() {
		b, _ := m.MarshalBinary()
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// Under a small budget, within twice it (see budgettest.Within).
		defer budgettest.Within(t, 64<<20)()
		var m Mix
		err := m.UnmarshalBinary(data)
		sm, serr := ReadMix(mioOnlyReader{bytes.NewReader(data)}, 1<<26)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error not wrapping ErrFormat: %v", err)
			}
			if serr != nil && !errors.Is(serr, ErrFormat) && !errors.Is(serr, ErrMemory) {
				t.Fatalf("stream error wraps neither ErrFormat nor ErrMemory: %v", serr)
			}
			return
		}
		if serr != nil && !errors.Is(serr, ErrMemory) {
			t.Fatalf("stream refused what memory decoded: %v", serr)
		}
		if err := m.check(); err != nil {
			t.Fatalf("decoded Mix fails check: %v", err)
		}
		b, err := m.MarshalBinary()
		if err != nil || !bytes.Equal(b, data) {
			t.Fatalf("re-encoding differs (%v)", err)
		}
		if serr == nil && !reflect.DeepEqual(sm, &m) {
			t.Fatal("stream and memory decode differ")
		}
	})
}
