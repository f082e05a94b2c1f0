package engine

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"unsafe"

	"github.com/hyperplane-ml/hyperplane/engine/internal/wholefile"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
)

// The multi-label model's binary form, version 2, little-endian:
//
//	offset  size  field
//	0       4     magic "HPML"
//	4       2     version (uint16, 2)
//	6       2     flags (uint16): bit 0, per-class Platt scaling follows
//	8       8     classes K (uint64)
//	16      8     features D (uint64)
//	24            the weights, feature by feature, those that are not 0
//	              (see sparseWeightsLen); version 1, still read, stored
//	              all of them: 4·D·K bytes, feature-major (float32)
//	        4·K   the biases (float32)
//	        4·K   the thresholds (float32)
//	        16·K  with flag bit 0: Platt's a and b of each class (float64)
//	        4     CRC-32C of every byte before it
//
// A reader checks that K·D fits the bytes that follow and the memory
// budget before it allocates anything sized by them.

var mlMagic = [4]byte{'H', 'P', 'M', 'L'}

const mlVersion = 2

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// MarshalBinary encodes m in the form described above.
func (m *MultiLabelModel) MarshalBinary() ([]byte, error) {
	K, D := m.classes, m.dim
	n := 24 + m.sparseWeightsLen() + 8*K + 4
	if m.plattA != nil {
		n += 16 * K
	}
	b := make([]byte, 0, n)
	b = append(b, mlMagic[:]...)
	b = binary.LittleEndian.AppendUint16(b, mlVersion)
	var flags uint16
	if m.plattA != nil {
		flags |= 1
	}
	b = binary.LittleEndian.AppendUint16(b, flags)
	b = binary.LittleEndian.AppendUint64(b, uint64(K))
	b = binary.LittleEndian.AppendUint64(b, uint64(D))
	b = m.appendSparseWeights(b)
	for _, s := range [][]float32{m.bias, m.thresholds} {
		b = appendF32s(b, s)
	}
	if m.plattA != nil {
		for c := range K {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(m.plattA[c]))
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(m.plattB[c]))
		}
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli)), nil
}

// UnmarshalMultiLabel decodes a model MarshalBinary encoded. A buffer
// that is not one, is cut short, corrupt or of another version is an
// error wrapping ErrFormat; a model larger than the memory budget one
// wrapping ErrMemory.
func UnmarshalMultiLabel(b []byte) (*MultiLabelModel, error) {
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
	if v != 1 {
		nw, ok = sparseWeightsSize(K, D, b[24:len(b)-4-int(per)*K])
	}
	if !ok || nw+int(per)*K != int(rest) {
		return nil, bad(fmt.Sprintf("%d classes and %d features do not fit %d bytes", K, D, len(b)))
	}
	if err := budget.Check(0, budget.Mul(4, int64(D), int64(K)), "a multi-label model"); err != nil {
		return nil, err
	}
	if got, want := crc32.Checksum(b[:len(b)-4], castagnoli), binary.LittleEndian.Uint32(b[len(b)-4:]); got != want {
		return nil, bad("checksum mismatch (corrupt or truncated)")
	}
	p := b[24:]
	f32 := func(n int) []float32 {
		out := make([]float32, n)
		readF32s(out, p)
		p = p[4*n:]
		return out
	}
	m := &MultiLabelModel{classes: K, dim: D}
	finite := true
	if v == 1 {
		m.w = f32(D * K)
		finite = allFinite(m.w)
	} else {
		m.w = make([]float32, D*K)
		finite = readSparseWeights(m.w, K, p[:nw])
		p = p[nw:]
	}
	m.bias, m.thresholds = f32(K), f32(K)
	if flags&1 != 0 {
		m.plattA, m.plattB = make([]float64, K), make([]float64, K)
		for c := range K {
			m.plattA[c] = math.Float64frombits(binary.LittleEndian.Uint64(p[16*c:]))
			m.plattB[c] = math.Float64frombits(binary.LittleEndian.Uint64(p[16*c+8:]))
		}
	}
	if !finite || !allFinite(m.bias) || !allFinite(m.thresholds) {
		return nil, bad("a weight, bias or threshold is not finite")
	}
	return m, nil
}

// Save writes m to path atomically (see sparse/atomicfile).
func (m *MultiLabelModel) Save(path string) error { return wholefile.Save(path, m.MarshalBinary) }

// LoadMultiLabel reads a model Save wrote.
func LoadMultiLabel(path string) (*MultiLabelModel, error) {
	return wholefile.Load(path, 1, "the multi-label model", UnmarshalMultiLabel)
}

// littleEndian reports whether the machine stores numbers little-endian,
// as the model files do: then a slice of float32 is its own encoding.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// appendF32s appends the little-endian bytes of s to b: one copy of
// s's memory where the machine is little-endian (a model's weights are
// tens of megabytes), else float by float.
func appendF32s(b []byte, s []float32) []byte {
	if littleEndian {
		return append(b, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), 4*len(s))...)
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
		copy(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(dst))), 4*len(dst)), p)
		return
	}
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(p[4*i:]))
	}
}
