package engine

// Mix files.
//
// The binary form of a Mix, version 1, in the container of fileio.go
// (magic, version, flags, then this kind's fields; a CRC-32C of every
// byte before it at the end), little-endian, floats as their raw bits:
//
//	offset  size        field
//	0       4           magic "HPMX"
//	4       2           format version (uint16, 1)
//	6       2           flags (uint16): bit 0 sparse (Features
//	                    listed), bit 1 accumulators U, UB present, bit 2
//	                    history Sum, SumB present, bit 3 (with bit 0) a
//	                    sparse state rather than a delta (Mix.Sparse),
//	                    bit 4 (with bit 0) features seen listed
//	                    (Mix.Seen); others 0
//	8       4           number of classes C (uint32)
//	12      4           number of weight rows K (uint32; 1 if C = 2, else C)
//	16      8           dim (uint64)
//	24      8           N (float64 bits)
//	32      8           SumN (float64 bits)
//	40      8           Updates (uint64)
//	48      8           F, the features listed (uint64; dim when dense)
//	56      8·C         classes (float64 bits)
//	        4·K         B (float32 bits)
//	        4·F         Features (int32), when flag bit 0 is set
//	        8, 4·S      S (uint64) and Seen (int32), when flag bit 4 is set
//	        4·F·K       W (float32 bits)
//	        8·K, 8·F·K  UB, U (float64 bits), when flag bit 1 is set
//	        8·K, 8·R·K  SumB, Sum (float64 bits; R = F for a sparse
//	                    state, dim when dense), when flag bit 2 is set
//	                    (never for a delta: bit 0 without bit 3)
//	        4           CRC-32C (Castagnoli) of every byte before it

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/hyperplane-ml/hyperplane/sparse/budget"
)

const (
	mixMagic         = "HPMX"
	mixFormatVersion = 1
	mixHeaderSize    = 56

	mixFlagSparse = 1 << 0
	mixFlagAcc    = 1 << 1
	mixFlagSum    = 1 << 2
	mixFlagState  = 1 << 3
	mixFlagSeen   = 1 << 4
	mixFlagsKnown = mixFlagSparse | mixFlagAcc | mixFlagSum | mixFlagState | mixFlagSeen
)

// mixFile is a Mix's part of its file: m, which passes check.
type mixFile struct{ m *Mix }

func (f mixFile) rows() int64 {
	if f.m.Features != nil {
		return int64(len(f.m.Features))
	}
	return int64(f.m.Dim)
}

func (f mixFile) size() int64 {
	m := f.m
	K := int64(m.NumRows())
	F := f.rows()
	n := int64(mixHeaderSize) + 8*int64(len(m.Classes)) + 4*K + 4*F*K + 4
	if m.Features != nil {
		n += 4 * F
	}
	if m.Seen != nil {
		n += 8 + 4*int64(len(m.Seen))
	}
	if m.U != nil {
		n += 8*K + 8*F*K
	}
	if m.Sum != nil {
		n += 8*K + 8*F*K
	}
	return n
}

func (f mixFile) encode(e *modelEncoder) {
	m := f.m
	var flags uint16
	if m.Features != nil {
		flags |= mixFlagSparse
	}
	if m.U != nil {
		flags |= mixFlagAcc
	}
	if m.Sum != nil {
		flags |= mixFlagSum
	}
	if m.Sparse {
		flags |= mixFlagState
	}
	if m.Seen != nil {
		flags |= mixFlagSeen
	}
	e.header(mixMagic, mixFormatVersion, flags)
	e.u32(uint32(len(m.Classes)))
	e.u32(uint32(m.NumRows()))
	e.u64(uint64(m.Dim))
	e.u64(math.Float64bits(m.N))
	e.u64(math.Float64bits(m.SumN))
	e.u64(uint64(m.Updates))
	e.u64(uint64(f.rows()))
	e.f64s(m.Classes)
	e.f32s(m.B)
	if m.Features != nil {
		e.i32s(m.Features)
	}
	if m.Seen != nil {
		e.u64(uint64(len(m.Seen)))
		e.i32s(m.Seen)
	}
	e.f32s(m.W)
	if m.U != nil {
		e.f64s(m.UB)
		e.f64s(m.U)
	}
	if m.Sum != nil {
		e.f64s(m.SumB)
		e.f64s(m.Sum)
	}
}

func (m *Mix) file() (mixFile, error) {
	if err := m.check(); err != nil {
		return mixFile{}, err
	}
	return mixFile{m}, nil
}

// WriteTo writes m to w in the binary Mix format, version 1: a header
// with the counts, the classes, biases, features (when sparse), weights,
// accumulators and history as raw little-endian bits, and a CRC-32C
// checksum of it all, through a small buffer of its own. It returns the
// number of bytes written; a Mix that fails its checks (wrong lengths,
// weights not finite) is refused before anything is written.
func (m *Mix) WriteTo(w io.Writer) (int64, error) { return writeFile(w, m.file) }

// MarshalBinary returns m in the format WriteTo writes.
func (m *Mix) MarshalBinary() ([]byte, error) { return marshalFile(m.file) }

// UnmarshalBinary decodes a Mix from data, which must hold it and
// nothing after it, into m, with the checks of ReadMix and no memory
// budget beyond data's own size. On failure m is left as it was.
func (m *Mix) UnmarshalBinary(data []byte) error {
	return unmarshalFile(data, func(d *modelDecoder) (*Mix, error) { return d.decodeMix(0) },
		func(dm *Mix) { *m = *dm })
}

// ReadMix reads one Mix written by WriteTo from r and leaves r just past
// it. Before it allocates anything, it checks the sizes in the header
// against the format's limits and the memory the Mix would take against
// limit (bytes; 0 means budget.Default()), which is ErrMemory; and, where
// r tells its length (a Len method, as bytes.Reader has), against that.
// Otherwise memory grows only as data arrives, so a short input cannot
// make it allocate much more than its own size. Errors in the data wrap
// ErrFormat and say what is wrong (not a Mix, a newer version,
// truncation, a checksum mismatch, inconsistent contents); a read error
// of r is returned with context.
func ReadMix(r io.Reader, limit int64) (*Mix, error) {
	return readerDecoder(r).decodeMix(limit)
}

// decodeMix reads one Mix and its checksum, and checks the Mix. limit is
// the memory budget, 0 for budget.Default(); an input in memory is held
// to its own size instead when limit is 0.
func (d *modelDecoder) decodeMix(limit int64) (*Mix, error) {
	if err := d.expectMagic(mixMagic, "mix"); err != nil {
		return nil, err
	}
	m, h, err := d.mixHeader()
	if err != nil {
		return nil, err
	}
	if err := d.mixFits(h, limit); err != nil {
		return nil, err
	}
	if err := d.mixArrays(m, h); err != nil {
		return nil, err
	}
	if err := d.checksum(); err != nil {
		return nil, err
	}
	if err := m.check(); err != nil {
		return nil, modelErr("%v", err)
	}
	return m, nil
}

// mixHead is what a Mix's header gives beyond the Mix's own fields: the
// numbers of classes and of weight rows, the dim, F, the features whose
// rows the file holds, and what the flags say follows.
type mixHead struct {
	nc, K  uint32
	dim, F uint64
	sparse bool // the features are listed (flag bit 0)
	acc    bool // the accumulators U, UB (flag bit 1)
	sum    bool // the history Sum, SumB (flag bit 2)
	seen   bool // the features seen (flag bit 4)
}

// mixHeader reads and checks a Mix's header. It returns the Mix with
// its counts set, and the rest of the header.
func (d *modelDecoder) mixHeader() (*Mix, mixHead, error) {
	b, flags, err := d.header(mixHeaderSize, mixFormatVersion, mixFlagsKnown)
	if err != nil {
		return nil, mixHead{}, err
	}
	le := binary.LittleEndian
	h := mixHead{
		nc: le.Uint32(b[4:]), K: le.Uint32(b[8:]), dim: le.Uint64(b[12:]), F: le.Uint64(b[44:]),
		sparse: flags&mixFlagSparse != 0, acc: flags&mixFlagAcc != 0, sum: flags&mixFlagSum != 0, seen: flags&mixFlagSeen != 0,
	}
	if err := checkShape(h.nc, h.K, h.dim, "weight rows"); err != nil {
		return nil, mixHead{}, err
	}
	m := &Mix{
		Sparse:  flags&mixFlagState != 0,
		Dim:     int(h.dim),
		N:       math.Float64frombits(le.Uint64(b[20:])),
		SumN:    math.Float64frombits(le.Uint64(b[28:])),
		Updates: int64(le.Uint64(b[36:])),
	}
	state := m.Sparse
	switch {
	case h.dim*uint64(h.K) > maxWeights:
		return nil, mixHead{}, modelErr("dim %d × %d rows is more weights than a model holds", h.dim, h.K)
	case h.sparse && h.F > h.dim, !h.sparse && h.F != h.dim:
		return nil, mixHead{}, modelErr("%d features listed for dim %d", h.F, h.dim)
	case state && !h.sparse:
		return nil, mixHead{}, modelErr("a sparse state that lists no features")
	case h.seen && (!h.sparse || state):
		return nil, mixHead{}, modelErr("features seen listed for a Mix that is no delta")
	case h.sparse && !state && h.sum:
		return nil, mixHead{}, modelErr("a sparse delta with a history")
	case m.Updates < 0:
		return nil, mixHead{}, modelErr("update count %d", m.Updates)
	}
	return m, h, nil
}

// mixFits checks, before any array is allocated, that the arrays the
// header h asks for fit the input where its length is known, and the
// memory budget limit (see decodeMix).
func (d *modelDecoder) mixFits(h mixHead, limit int64) error {
	k, f := int64(h.K), int64(h.F)
	need := 8*int64(h.nc) + 4*k + 4*f*k
	if h.sparse {
		need += 4 * f
	}
	if h.acc {
		need += 8*k + 8*f*k
	}
	if h.sum {
		need += 8*k + 8*f*k
	}
	if d.remain >= 0 && need > d.remain {
		return modelErr("truncated: the header asks for %d bytes, %d are left", need, d.remain)
	}
	if limit != 0 || d.r != nil {
		if err := budget.Check(budget.Resolve(limit), need, "reading a mix"); err != nil {
			return fmt.Errorf("%w: %w", ErrMemory, err)
		}
	}
	return nil
}

// mixArrays reads the arrays of a Mix whose header is h into m.
func (d *modelDecoder) mixArrays(m *Mix, h mixHead) (err error) {
	K, F, FK := int(h.K), int(h.F), int(h.F)*int(h.K)
	if m.Classes, m.B, err = d.classesBiases(int(h.nc), K); err != nil {
		return err
	}
	if h.sparse {
		if m.Features, err = modelReadArray[int32](d, F, "features"); err != nil {
			return err
		}
	}
	if h.seen {
		if m.Seen, err = d.mixSeen(h); err != nil {
			return err
		}
	}
	if m.W, err = modelReadArray[float32](d, FK, "weights"); err != nil {
		return err
	}
	if h.acc {
		if m.UB, err = modelReadArray[float64](d, K, "bias accumulators"); err != nil {
			return err
		}
		if m.U, err = modelReadArray[float64](d, FK, "accumulators"); err != nil {
			return err
		}
	}
	if h.sum {
		if m.SumB, err = modelReadArray[float64](d, K, "bias sums"); err != nil {
			return err
		}
		if m.Sum, err = modelReadArray[float64](d, FK, "sums"); err != nil {
			return err
		}
	}
	return nil
}

// mixSeen reads the features seen of a delta whose header is h: their
// count, at most the features of dim it does not list as changed, and
// the features.
func (d *modelDecoder) mixSeen(h mixHead) ([]int32, error) {
	S, err := d.u64("count of features seen")
	if err != nil {
		return nil, err
	}
	if S > h.dim-h.F {
		return nil, modelErr("%d features seen and %d changed for dim %d", S, h.F, h.dim)
	}
	if err := d.fits(S, 4, "features seen"); err != nil {
		return nil, err
	}
	return modelReadArray[int32](d, int(S), "features seen")
}
