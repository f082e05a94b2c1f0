package modelfile

// Multi-label model files.
//
// The multi-label model's binary form, version 2, little-endian:
//
//	offset  size  field
//	0       4     magic "HPML"
//	4       2     version (uint16, 2)
//	6       2     flags (uint16): bit 0, per-class Platt scaling follows
//	8       8     classes K (uint64)
//	16      8     features D (uint64)
//	24            the weights, feature by feature, those that are not 0
//	              (see sparseWeights); version 1, still read, stored
//	              all of them: 4·D·K bytes, feature-major (float32)
//	        4·K   the biases (float32)
//	        4·K   the thresholds (float32)
//	        16·K  with flag bit 0: Platt's a and b of each class (float64)
//	        4     CRC-32C of every byte before it
//
// A reader checks that K·D fits the bytes that follow and the memory
// budget before it allocates anything sized by them. It is not framed as
// the other formats (container.go): it is encoded and decoded in memory
// whole (see SaveWhole and LoadWhole).

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync"

	"github.com/hyperplane-ml/hyperplane/sparse/budget"
)

var mlMagic = [4]byte{'H', 'P', 'M', 'L'}

const mlVersion = 2

// MultiLabel is a multi-label model as its file holds it, the fields
// those of the engine's MultiLabelModel.
type MultiLabel struct {
	Classes, Dim int
	// W holds the weights in blocks of classes, each feature-major: the
	// classes [c0, c1) of a block from W[Dim·c0] on, class c of feature j
	// at W[Dim·c0 + j·(c1-c0) + c-c0]. Split lists the blocks' bounds (0,
	// ..., Classes); nil is one block, W[j·Classes+c], as a decoded model
	// has it.
	W, Bias, Thresholds []float32
	Split               []int
	// PlattA and PlattB are the per-class Platt scaling, nil when the
	// model has none.
	PlattA, PlattB []float64
}

// MarshalMultiLabel returns the encoding of m in the form described
// above.
func MarshalMultiLabel(m *MultiLabel) []byte {
	K, D := m.Classes, m.Dim
	sw := m.sparse(weightRanges(K, D))
	n := 24 + sw.len() + 8*K + 4
	if m.PlattA != nil {
		n += 16 * K
	}
	b := make([]byte, 0, n)
	b = append(b, mlMagic[:]...)
	b = binary.LittleEndian.AppendUint16(b, mlVersion)
	var flags uint16
	if m.PlattA != nil {
		flags |= 1
	}
	b = binary.LittleEndian.AppendUint16(b, flags)
	b = binary.LittleEndian.AppendUint64(b, uint64(K))
	b = binary.LittleEndian.AppendUint64(b, uint64(D))
	b = sw.appendTo(b)
	for _, s := range [][]float32{m.Bias, m.Thresholds} {
		b = appendF32s(b, s)
	}
	if m.PlattA != nil {
		for c := range K {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(m.PlattA[c]))
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(m.PlattB[c]))
		}
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crcTable))
}

// UnmarshalMultiLabel decodes a model MarshalMultiLabel encoded. A buffer
// that is not one, is cut short, corrupt or of another version is an
// error wrapping ErrFormat; a model larger than the memory budget one
// wrapping budget.ErrExceeded.
func UnmarshalMultiLabel(b []byte) (*MultiLabel, error) {
	bad := func(msg string) error { return fmt.Errorf("%w: multi-label model: %s", ErrFormat, msg) }
	if len(b) < 28 || [4]byte(b[:4]) != mlMagic {
		return nil, bad("no HPML magic")
	}
	v := binary.LittleEndian.Uint16(b[4:])
	if v != 1 && v != mlVersion {
		return nil, bad(fmt.Sprintf("version %d, this build reads 1 and %d", v, mlVersion))
	}
	flags := binary.LittleEndian.Uint16(b[6:])
	if flags&^1 != 0 {
		return nil, bad(fmt.Sprintf("unknown flags %#x", flags))
	}
	K64, D64 := binary.LittleEndian.Uint64(b[8:]), binary.LittleEndian.Uint64(b[16:])
	rest := uint64(len(b) - 28)
	per := uint64(8)
	if flags&1 != 0 {
		per += 16
	}
	// K and D are checked against the bytes there before their product
	// sizes anything.
	if K64 == 0 || K64 > rest/per || D64 > rest || D64 > math.MaxInt32 {
		return nil, bad(fmt.Sprintf("%d classes and %d features do not fit %d bytes", K64, D64, len(b)))
	}
	K, D := int(K64), int(D64)
	nw, ok := 4*D*K, uint64(D)*uint64(K) <= (rest-per*K64)/4
	var ranges, starts []int
	if v != 1 {
		ranges = weightRanges(K, D)
		nw, starts, ok = sparseWeightsSize(K, D, b[24:len(b)-4-int(per)*K], ranges)
	}
	if !ok || nw+int(per)*K != int(rest) {
		return nil, bad(fmt.Sprintf("%d classes and %d features do not fit %d bytes", K, D, len(b)))
	}
	if err := budget.Check(0, budget.Mul(4, int64(D), int64(K)), "a multi-label model"); err != nil {
		return nil, err
	}
	if got, want := crc32.Checksum(b[:len(b)-4], crcTable), binary.LittleEndian.Uint32(b[len(b)-4:]); got != want {
		return nil, bad("checksum mismatch (corrupt or truncated)")
	}
	p := b[24:]
	f32 := func(n int) []float32 {
		out := make([]float32, n)
		readF32s(out, p)
		p = p[4*n:]
		return out
	}
	m := &MultiLabel{Classes: K, Dim: D}
	finite := true
	if v == 1 {
		m.W = f32(D * K)
		finite = allFinite(m.W)
	} else {
		m.W = make([]float32, D*K)
		finite = readSparseWeights(m.W, K, p[:nw], ranges, starts)
		p = p[nw:]
	}
	m.Bias, m.Thresholds = f32(K), f32(K)
	if flags&1 != 0 {
		m.PlattA, m.PlattB = make([]float64, K), make([]float64, K)
		for c := range K {
			m.PlattA[c] = math.Float64frombits(binary.LittleEndian.Uint64(p[16*c:]))
			m.PlattB[c] = math.Float64frombits(binary.LittleEndian.Uint64(p[16*c+8:]))
		}
	}
	if !finite || !allFinite(m.Bias) || !allFinite(m.Thresholds) {
		return nil, bad("a weight, bias or threshold is not finite")
	}
	return m, nil
}

// littleEndian reports whether the machine stores numbers little-endian,
// as the model files do: then a slice of float32 is its own encoding.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// appendF32s appends the little-endian bytes of s to b: one copy of
// s's memory where the machine is little-endian (a model's weights are
// tens of megabytes), else float by float.
func appendF32s(b []byte, s []float32) []byte {
	if littleEndian {
		return append(b, rawBytes(s)...)
	}
	for _, v := range s {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b
}

// readF32s decodes the first 4·len(dst) bytes of p, little-endian
// float32, into dst.
func readF32s(dst []float32, p []byte) {
	p = p[:4*len(dst)]
	if littleEndian {
		copy(rawBytes(dst), p)
		return
	}
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(p[4*i:]))
	}
}

// The weights of a model file of version 2 (see MarshalMultiLabel) are
// stored feature by feature: a bitmap of (K+7)/8 bytes whose bit c%8 of
// byte c/8 is set when class c's weight is stored, the bits past K
// clear, then the stored weights in class order (float32,
// little-endian). A weight is stored unless its bits are all 0: a
// class's weights move only at the features of the rows it was updated
// on, so most of a text model's weights are 0, and the file is a
// fraction of the 4·D·K bytes of version 1, which stored every weight.
//
// The features are encoded and decoded in ranges (see weightRanges), on
// parallel goroutines, each range's bytes where the one before ends: the
// bytes are the same whatever the ranges.

// weightRanges returns the bounds (0, ..., D) of the ranges of the D
// features of a model of K classes that its weights are encoded and
// decoded in: one per GOMAXPROCS, each of at least a million weights.
func weightRanges(K, D int) []int {
	n := max(1, min(runtime.GOMAXPROCS(0), D*K/(1<<20)))
	b := make([]int, n+1)
	for r := range b {
		b[r] = D * r / n
	}
	return b
}

// eachRange calls f(r, bounds[r], bounds[r+1]) for every range r of
// bounds, each on a goroutine of its own, and returns once all have
// returned.
func eachRange(bounds []int, f func(r, lo, hi int)) {
	var wg sync.WaitGroup
	for r := 1; r+1 < len(bounds); r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(r, bounds[r], bounds[r+1])
		}()
	}
	f(0, bounds[0], bounds[1])
	wg.Wait()
}

// sparseWeights is m's weights in that form, measured: the ranges of
// features they are encoded in and the length of each range's bytes.
type sparseWeights struct {
	m      *MultiLabel
	ranges []int
	lens   []int
}

// sparse measures m's weights in that form, to be encoded in the ranges
// of features bounds.
func (m *MultiLabel) sparse(bounds []int) *sparseWeights {
	s := &sparseWeights{m: m, ranges: bounds}
	s.lens = make([]int, len(s.ranges)-1)
	eachRange(s.ranges, func(r, lo, hi int) {
		n := (hi - lo) * ((m.Classes + 7) / 8)
		m.eachBlockOf(lo, hi, func(w []float32) {
			for _, v := range w {
				if math.Float32bits(v) != 0 {
					n += 4
				}
			}
		})
		s.lens[r] = n
	})
	return s
}

// eachBlockOf calls f with the weights of the features [lo, hi) of each
// of m's blocks of classes.
func (m *MultiLabel) eachBlockOf(lo, hi int, f func(w []float32)) {
	split := m.Split
	if split == nil {
		split = []int{0, m.Classes}
	}
	for k := 1; k < len(split); k++ {
		c0, n := split[k-1], split[k]-split[k-1]
		f(m.W[m.Dim*c0+lo*n : m.Dim*c0+hi*n])
	}
}

// len returns the length of the weights in that form.
func (s *sparseWeights) len() int {
	n := 0
	for _, l := range s.lens {
		n += l
	}
	return n
}

// appendTo appends the weights in that form to b.
func (s *sparseWeights) appendTo(b []byte) []byte {
	at := len(b)
	b = slices.Grow(b, s.len())[:at+s.len()]
	eachRange(s.ranges, func(r, lo, hi int) {
		off := at
		for _, l := range s.lens[:r] {
			off += l
		}
		s.m.encodeWeights(b[off:off+s.lens[r]], lo, hi)
	})
	return b
}

// encodeWeights writes the weights of the features [lo, hi) in that form
// into dst, their length.
func (m *MultiLabel) encodeWeights(dst []byte, lo, hi int) {
	split := m.Split
	if split == nil {
		split = []int{0, m.Classes}
	}
	nb := (m.Classes + 7) / 8
	at := 0
	for j := lo; j < hi; j++ {
		bm := dst[at : at+nb]
		clear(bm)
		at += nb
		for k := 1; k < len(split); k++ {
			c0, c1 := split[k-1], split[k]
			n := c1 - c0
			for i, v := range m.W[m.Dim*c0+j*n : m.Dim*c0+(j+1)*n] {
				if u := math.Float32bits(v); u != 0 {
					c := c0 + i
					bm[c/8] |= 1 << (c % 8)
					binary.LittleEndian.PutUint32(dst[at:], u)
					at += 4
				}
			}
		}
	}
}

// sparseWeightsSize returns the length of the weights of D features of
// K classes stored in that form at the start of p, and false if p is cut
// short in them or a bitmap sets a bit past K; and where in p each of
// the ranges of features (bounds, see weightRanges) begins, and the
// end.
func sparseWeightsSize(K, D int, p []byte, bounds []int) (int, []int, bool) {
	nb := (K + 7) / 8
	var last byte = 0xff // the bits of a bitmap's last byte that name classes
	if K%8 != 0 {
		last = 1<<(K%8) - 1
	}
	at := 0
	starts := make([]int, 0, len(bounds))
	for j := range D {
		for len(starts) < len(bounds) && bounds[len(starts)] == j {
			starts = append(starts, at)
		}
		if len(p)-at < nb || p[at+nb-1]&^last != 0 {
			return 0, nil, false
		}
		n := 0
		for _, x := range p[at : at+nb] {
			n += bits.OnesCount8(x)
		}
		at += nb
		if (len(p)-at)/4 < n {
			return 0, nil, false
		}
		at += 4 * n
	}
	for len(starts) < len(bounds) {
		starts = append(starts, at)
	}
	return at, starts, true
}

// readSparseWeights decodes into w, zeroed, the weights that
// sparseWeightsSize found valid at the start of p, the features of each
// range of bounds on a goroutine of its own from where starts says it
// begins, and reports whether every one is finite.
func readSparseWeights(w []float32, K int, p []byte, bounds, starts []int) bool {
	finite := make([]bool, len(bounds)-1)
	eachRange(bounds, func(r, lo, hi int) {
		finite[r] = readWeightRange(w[lo*K:hi*K], K, p[starts[r]:starts[r+1]])
	})
	return !slices.Contains(finite, false)
}

// readWeightRange decodes the features of p into w, and reports
// whether every weight is finite.
func readWeightRange(w []float32, K int, p []byte) bool {
	nb := (K + 7) / 8
	finite := true
	for len(w) > 0 {
		row := w[:K]
		w = w[K:]
		bm := p[:nb]
		p = p[nb:]
		for i, x := range bm {
			for x != 0 {
				c := 8*i + bits.TrailingZeros8(x)
				x &= x - 1
				u := binary.LittleEndian.Uint32(p)
				finite = finite && u&0x7f800000 != 0x7f800000
				row[c] = math.Float32frombits(u)
				p = p[4:]
			}
		}
	}
	return finite
}

// allFinite reports whether every value of s is finite.
func allFinite(s []float32) bool {
	for _, v := range s {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return false
		}
	}
	return true
}
