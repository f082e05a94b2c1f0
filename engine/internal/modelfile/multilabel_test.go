package modelfile

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
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

// TestSparseWeightRanges: the weights encode to the same bytes in any
// ranges of features, in blocks of classes or not, and decode in any
// ranges to the same weights; a bitmap that sets a bit past the classes
// is found in whichever range it lies.
func TestSparseWeightRanges(t *testing.T) {
	const K, D = 37, 50
	r := rand.New(rand.NewPCG(37, 50))
	m := &MultiLabel{Classes: K, Dim: D, W: make([]float32, D*K)}
	for k := range m.W {
		if r.IntN(4) == 0 {
			m.W[k] = float32(r.NormFloat64())
		}
	}
	m.W[0] = float32(math.Copysign(0, -1))
	clear(m.W[K : 3*K])
	for c := range K {
		m.W[(D-1)*K+c] = float32(c + 1) // the last feature stores every class
	}
	// The same weights in blocks of 16, 16 and 5 classes.
	blocked := &MultiLabel{Classes: K, Dim: D, W: make([]float32, D*K), Split: []int{0, 16, 32, K}}
	for j := range D {
		for c := range K {
			b := min(c/16, 2)
			c0, n := 16*b, []int{16, 16, 5}[b]
			blocked.W[D*c0+j*n+c-c0] = m.W[j*K+c]
		}
	}
	all := []int{0, D}
	want := m.sparse(all).appendTo([]byte{1, 2})
	for _, bounds := range [][]int{all, {0, 1, D}, {0, 17, 17, 40, D}, {0, 10, 20, 30, 40, D}, {0, D, D}} {
		for _, mm := range []*MultiLabel{m, blocked} {
			sw := mm.sparse(bounds)
			if got := sw.appendTo([]byte{1, 2}); !bytes.Equal(got, want) || sw.len() != len(want)-2 {
				t.Fatalf("ranges %v, blocks %v: the bytes differ from one range's", bounds, mm.Split)
			}
		}
		n, starts, ok := sparseWeightsSize(K, D, want[2:], bounds)
		if !ok || n != len(want)-2 || len(starts) != len(bounds) || starts[len(starts)-1] != n {
			t.Fatalf("ranges %v: size %d, starts %v, %v", bounds, n, starts, ok)
		}
		w := make([]float32, D*K)
		if !readSparseWeights(w, K, want[2:], bounds, starts) || !slices.EqualFunc(w, m.W, func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) }) {
			t.Fatalf("ranges %v: the weights read back differ", bounds)
		}
		// The last feature's bitmap, whose byte 4 names classes 32
		// to 39: a bit past class 36.
		bad := slices.Clone(want[2:])
		bad[n-4*K-(K+7)/8+4] |= 0x80
		if _, _, ok := sparseWeightsSize(K, D, bad, bounds); ok {
			t.Errorf("ranges %v: a bit past the classes in the last feature is not refused", bounds)
		}
	}
}
