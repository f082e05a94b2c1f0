package modelfile

// Mix files.
//
// The binary form of a Mix, version 1, in the container of container.go
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
	"math"

	"github.com/hyperplane-ml/hyperplane/sparse/budget"
)

const (
	mixMagic   = "HPMX"
	mixVersion = 1
	mixHeader  = 56

	mixSparse = 1 << 0
	mixAcc    = 1 << 1
	mixSum    = 1 << 2
	MixState  = 1 << 3
	MixSeen   = 1 << 4
	mixKnown  = mixSparse | mixAcc | mixSum | MixState | MixSeen
)

// Mix is a Mix as its file holds it, the fields those of the engine's
// Mix.
type Mix struct {
	Classes   []float64
	Dim       int
	Features  []int32
	Seen      []int32
	Sparse    bool
	W         []float32
	B         []float32
	N         float64
	U, UB     []float64
	Sum, SumB []float64
	SumN      float64
	Updates   int64
}

// rows returns F, the number of features whose weight rows f holds.
func (f *Mix) rows() int64 {
	if f.Features != nil {
		return int64(len(f.Features))
	}
	return int64(f.Dim)
}

// Size returns the length of f's encoding, checksum included.
func (f *Mix) Size() int64 {
	K := int64(rows(len(f.Classes)))
	F := f.rows()
	n := int64(mixHeader) + 8*int64(len(f.Classes)) + 4*K + 4*F*K + 4
	if f.Features != nil {
		n += 4 * F
	}
	if f.Seen != nil {
		n += 8 + 4*int64(len(f.Seen))
	}
	if f.U != nil {
		n += 8*K + 8*F*K
	}
	if f.Sum != nil {
		n += 8*K + 8*F*K
	}
	return n
}

func (f *Mix) encode(e *encoder) {
	flags := flagIf(f.Features != nil, mixSparse) | flagIf(f.U != nil, mixAcc) |
		flagIf(f.Sum != nil, mixSum) | flagIf(f.Sparse, MixState) | flagIf(f.Seen != nil, MixSeen)
	e.header(mixMagic, mixVersion, flags)
	e.u32(uint32(len(f.Classes)))
	e.u32(uint32(rows(len(f.Classes))))
	e.u64(uint64(f.Dim))
	e.u64(math.Float64bits(f.N))
	e.u64(math.Float64bits(f.SumN))
	e.u64(uint64(f.Updates))
	e.u64(uint64(f.rows()))
	e.f64s(f.Classes)
	e.f32s(f.B)
	if f.Features != nil {
		e.i32s(f.Features)
	}
	if f.Seen != nil {
		e.u64(uint64(len(f.Seen)))
		e.i32s(f.Seen)
	}
	e.f32s(f.W)
	if f.U != nil {
		e.f64s(f.UB)
		e.f64s(f.U)
	}
	if f.Sum != nil {
		e.f64s(f.SumB)
		e.f64s(f.Sum)
	}
}

// Mix reads one Mix and its checksum. limit is the memory budget, 0 for
// budget.Default(); an input in memory is held to its own size instead
// when limit is 0. maxWeights is the most weights (dim × rows) a Mix may
// hold.
func (d *Decoder) Mix(limit int64, maxWeights uint64) (*Mix, error) {
	if err := d.ExpectMagic(mixMagic, "mix"); err != nil {
		return nil, err
	}
	f, h, err := d.mixHeader(maxWeights)
	if err != nil {
		return nil, err
	}
	if err := d.mixFits(h, limit); err != nil {
		return nil, err
	}
	if err := d.mixArrays(f, h); err != nil {
		return nil, err
	}
	if err := d.checksum(); err != nil {
		return nil, err
	}
	return f, nil
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
func (d *Decoder) mixHeader(maxWeights uint64) (*Mix, mixHead, error) {
	b, flags, err := d.header(mixHeader, mixVersion, mixKnown)
	if err != nil {
		return nil, mixHead{}, err
	}
	le := binary.LittleEndian
	h := mixHead{
		nc: le.Uint32(b[4:]), K: le.Uint32(b[8:]), dim: le.Uint64(b[12:]), F: le.Uint64(b[44:]),
		sparse: flags&mixSparse != 0, acc: flags&mixAcc != 0, sum: flags&mixSum != 0, seen: flags&MixSeen != 0,
	}
	if err := checkShape(h.nc, h.K, h.dim, "weight rows"); err != nil {
		return nil, mixHead{}, err
	}
	f := &Mix{
		Sparse:  flags&MixState != 0,
		Dim:     int(h.dim),
		N:       math.Float64frombits(le.Uint64(b[20:])),
		SumN:    math.Float64frombits(le.Uint64(b[28:])),
		Updates: int64(le.Uint64(b[36:])),
	}
	state := f.Sparse
	switch {
	case h.dim*uint64(h.K) > maxWeights:
		return nil, mixHead{}, Errf("dim %d × %d rows is more weights than a model holds", h.dim, h.K)
	case h.sparse && h.F > h.dim, !h.sparse && h.F != h.dim:
		return nil, mixHead{}, Errf("%d features listed for dim %d", h.F, h.dim)
	case state && !h.sparse:
		return nil, mixHead{}, Errf("a sparse state that lists no features")
	case h.seen && (!h.sparse || state):
		return nil, mixHead{}, Errf("features seen listed for a Mix that is no delta")
	case h.sparse && !state && h.sum:
		return nil, mixHead{}, Errf("a sparse delta with a history")
	case f.Updates < 0:
		return nil, mixHead{}, Errf("update count %d", f.Updates)
	}
	return f, h, nil
}

// mixFits checks, before any array is allocated, that the arrays the
// header h asks for fit the input where its length is known, and the
// memory budget limit (see Mix).
func (d *Decoder) mixFits(h mixHead, limit int64) error {
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
		return Errf("truncated: the header asks for %d bytes, %d are left", need, d.remain)
	}
	if limit != 0 || d.r != nil {
		if err := budget.Check(budget.Resolve(limit), need, "reading a mix"); err != nil {
			return fmt.Errorf("%w: %w", budget.ErrExceeded, err)
		}
	}
	return nil
}

// mixArrays reads the arrays of a Mix whose header is h into f.
func (d *Decoder) mixArrays(f *Mix, h mixHead) (err error) {
	K, F, FK := int(h.K), int(h.F), int(h.F)*int(h.K)
	if f.Classes, f.B, err = d.classesBiases(int(h.nc), K); err != nil {
		return err
	}
	if h.sparse {
		if f.Features, err = readArray[int32](d, F, "features"); err != nil {
			return err
		}
	}
	if h.seen {
		if f.Seen, err = d.mixSeen(h); err != nil {
			return err
		}
	}
	if f.W, err = readArray[float32](d, FK, "weights"); err != nil {
		return err
	}
	if h.acc {
		if f.UB, err = readArray[float64](d, K, "bias accumulators"); err != nil {
			return err
		}
		if f.U, err = readArray[float64](d, FK, "accumulators"); err != nil {
			return err
		}
	}
	if h.sum {
		if f.SumB, err = readArray[float64](d, K, "bias sums"); err != nil {
			return err
		}
		if f.Sum, err = readArray[float64](d, FK, "sums"); err != nil {
			return err
		}
	}
	return nil
}

// mixSeen reads the features seen of a delta whose header is h: their
// count, at most the features of dim it does not list as changed, and
// the features.
func (d *Decoder) mixSeen(h mixHead) ([]int32, error) {
	S, err := d.u64("count of features seen")
	if err != nil {
		return nil, err
	}
	if S > h.dim-h.F {
		return nil, Errf("%d features seen and %d changed for dim %d", S, h.F, h.dim)
	}
	if err := d.fits(S, 4, "features seen"); err != nil {
		return nil, err
	}
	return readArray[int32](d, int(S), "features seen")
}
