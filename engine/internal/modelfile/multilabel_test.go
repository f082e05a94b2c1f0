package modelfile

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// TestF32sEncoding: the float32 runs of a model file are the
// little-endian bits of each float, whether copied as memory or encoded
// one by one, and decode to the same bits.
func TestF32sEncoding(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	s := make([]float32, 1000)
	for i := range s {
		s[i] = math.Float32frombits(r.Uint32())
	}
	var want []byte
	for _, v := range s {
		want = binary.LittleEndian.AppendUint32(want, math.Float32bits(v))
	}
	got := appendF32s([]byte{9}, s)
	if !bytes.Equal(got[1:], want) || got[0] != 9 {
		t.Fatal("appendF32s differs from the float-by-float little-endian encoding")
	}
	back := make([]float32, len(s))
	readF32s(back, want)
	for i := range s {
		if math.Float32bits(back[i]) != math.Float32bits(s[i]) {
			t.Fatalf("float %d decodes to %#x, want %#x", i, math.Float32bits(back[i]), math.Float32bits(s[i]))
		}
	}
}
