package modelfile

// Reading a linear model for a subset of its features: only the weight
// rows of the features kept, renumbered from 0 (NewSubsetDecoder), and,
// from a file read at offsets, only their bytes (NewSubsetDecoderAt).

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
)

// keptRows leaves out of d.keep the features at or past dim and returns,
// for a model of dim features whose weight rows are the features cols
// (all of them when cols is nil), the rows that hold the features d.keep,
// and the Cols of the model that keeps them: nil for a model of every
// feature, otherwise the new numbers of the kept features it holds.
func (d *Decoder) keptRows(dim int, cols []int32) (rows []int, newCols []int32, err error) {
	n, _ := slices.BinarySearch(d.keep, int32(min(dim, math.MaxInt32)))
	d.keep = d.keep[:n]
	if cols == nil {
		rows = make([]int, len(d.keep))
		for i, j := range d.keep {
			rows[i] = int(j)
		}
		return rows, nil, nil
	}
	p := 0
	for i, j := range d.keep {
		for p < len(cols) && cols[p] < j {
			p++
		}
		if p < len(cols) && cols[p] == j {
			rows = append(rows, p)
			newCols = append(newCols, int32(i))
		}
	}
	if len(rows) == 0 {
		// A model of no columns is not one (Check); dense zero weights
		// would add zero products the compact model leaves out.
		return nil, nil, ErrNoSubset
	}
	return rows, newCols, nil
}

// weightRows is weights for a model of K weights a row, returning only
// the rows rows (increasing), one after another. It reads and checks
// what weights reads, but keeps the values of those rows only.
func (d *Decoder) weightRows(n, K int, rows []int, sparse bool, what string) ([]float32, error) {
	if d.at != nil {
		return d.weightRowsAt(n, K, rows, sparse, what)
	}
	if !sparse {
		return d.denseWeightRows(n, K, rows, what)
	}
	return d.sparseWeightRows(n, K, rows, what)
}

// denseWeightRows is weightRows for dense weights: it reads them in
// chunks and copies the kept rows' values out of each.
func (d *Decoder) denseWeightRows(n, K int, rows []int, what string) ([]float32, error) {
	if err := d.fits(uint64(n), 4, what); err != nil {
		return nil, err
	}
	out := make([]float32, len(rows)*K)
	le := binary.LittleEndian
	next := 0
	for e := 0; e < n; {
		k := min(n-e, Chunk/4)
		b, err := d.take(4*k, what)
		if err != nil {
			return nil, err
		}
		for ; next < len(rows); next++ {
			r0 := rows[next] * K
			if r0 >= e+k {
				break
			}
			for x := max(r0, e); x < min(r0+K, e+k); x++ {
				out[next*K+x-r0] = math.Float32frombits(le.Uint32(b[4*(x-e):]))
			}
			if r0+K > e+k {
				break
			}
		}
		e += k
	}
	return out, nil
}

// sparseWeightRows is weightRows for sparse weights: it reads the bitmap
// whole, then the values in chunks, keeping those of the kept rows.
func (d *Decoder) sparseWeightRows(n, K int, rows []int, what string) ([]float32, error) {
	bm, nnz, err := d.bitmap(n, what)
	if err != nil {
		return nil, err
	}
	out := make([]float32, len(rows)*K)
	le := binary.LittleEndian
	// The values stream in chunks; rank counts the set bits before bit
	// pos, so that a kept weight's value is value number rank.
	pos, rank := 0, 0
	var chunk []byte
	c0, read := 0, 0 // chunk holds values c0..read−1
	value := func(v int) (float32, error) {
		for v >= read {
			k := min(int(nnz)-read, Chunk/4)
			b, err := d.take(4*k, what)
			if err != nil {
				return 0, err
			}
			chunk, c0, read = b, read, read+k
		}
		return math.Float32frombits(le.Uint32(chunk[4*(v-c0):])), nil
	}
	for i, r := range rows {
		for x := r * K; x < r*K+K; x++ {
			for ; pos < x; pos++ {
				if pos%64 == 0 && pos+64 <= x {
					rank += bits.OnesCount64(le.Uint64(bm[pos/8:]))
					pos += 63
					continue
				}
				rank += int(bm[pos/8] >> (pos % 8) & 1)
			}
			if bm[x/8]>>(x%8)&1 == 0 {
				continue
			}
			w, err := value(rank)
			if err != nil {
				return nil, err
			}
			if w == 0 {
				return nil, Errf("%s: a zero stored for a set bit", what)
			}
			out[i*K+x-r*K] = w
		}
	}
	// The rest is read for the checksum.
	for read < int(nnz) {
		k := min(int(nnz)-read, Chunk/4)
		if _, err := d.take(4*k, what); err != nil {
			return nil, err
		}
		read += k
	}
	return out, nil
}

// weightRowsAt is weightRows for a decoder with at: it reads the bitmap
// of sparse weights and its count as weightRows does, then only the
// values of the rows rows, by ReadAt, each run of adjacent rows in one
// read of at most Chunk bytes (or one row), and checks them as
// weightRows does. It leaves remain as though it had read all the
// weights.
func (d *Decoder) weightRowsAt(n, K int, rows []int, sparse bool, what string) ([]float32, error) {
	var bm []byte
	var nnz uint64
	if !sparse {
		nnz = uint64(n)
	} else {
		var err error
		if bm, nnz, err = d.bitmap(n, what); err != nil {
			return nil, err
		}
	}
	if err := d.fits(nnz, 4, what); err != nil {
		return nil, err
	}
	// The values begin at start, the weights of bit x (dense: weight x)
	// at value number rank(x), the set bits before x.
	start := d.at.Size() - d.remain
	out := make([]float32, len(rows)*K)
	var buf []byte
	le := binary.LittleEndian
	pos, rank := 0, 0 // rank is the set bits before bit pos
	for i := 0; i < len(rows); {
		x0 := rows[i] * K
		if sparse {
			rank += Ones(bm, pos, x0)
		} else {
			rank = x0
		}
		// The run rows[i:j] of adjacent rows holds k values.
		j, k := i, 0
		for j < len(rows) && rows[j] == rows[i]+j-i {
			c := K
			if sparse {
				c = Ones(bm, rows[j]*K, rows[j]*K+K)
			}
			if j > i && 4*(k+c) > Chunk {
				break
			}
			j, k = j+1, k+c
		}
		x1 := rows[j-1]*K + K
		if cap(buf) < 4*k {
			buf = make([]byte, 4*k)
		}
		b := buf[:4*k]
		if k > 0 {
			if err := d.readAt(b, start+4*int64(rank), what); err != nil {
				return nil, err
			}
		}
		o := out[i*K : j*K]
		if !sparse {
			for v := range o {
				o[v] = math.Float32frombits(le.Uint32(b[4*v:]))
			}
		} else {
			v := 0
			for x := x0; x < x1; x++ {
				if bm[x/8]>>(x%8)&1 == 0 {
					continue
				}
				w := math.Float32frombits(le.Uint32(b[4*v:]))
				if w == 0 {
					return nil, Errf("%s: a zero stored for a set bit", what)
				}
				o[x-x0] = w
				v++
			}
		}
		pos, rank, i = x1, rank+k, j
	}
	d.remain -= 4 * int64(nnz)
	return out, nil
}

// Ones returns the number of bits set in the bitmap bm, padded to
// whole words of 64 bits, from bit a up to bit b.
func Ones(bm []byte, a, b int) int {
	n := 0
	for ; a < b && a%64 != 0; a++ {
		n += int(bm[a/8] >> (a % 8) & 1)
	}
	for ; a+64 <= b; a += 64 {
		n += bits.OnesCount64(binary.LittleEndian.Uint64(bm[a/8:]))
	}
	for ; a < b; a++ {
		n += int(bm[a/8] >> (a % 8) & 1)
	}
	return n
}

// readAt reads len(p) bytes of what at offset off of d.at; the input
// ending first is a truncation.
func (d *Decoder) readAt(p []byte, off int64, what string) error {
	n, err := d.at.ReadAt(p, off)
	switch {
	case n == len(p) && (err == nil || err == io.EOF):
		return nil
	case err == nil || err == io.EOF || err == io.ErrUnexpectedEOF:
		return truncated(what)
	}
	return fmt.Errorf("engine: reading model %s: %w", what, err)
}

// NewSubsetDecoder returns a decoder of r, as NewDecoder does, that
// reads a linear model for the features keep only (increasing and
// non-negative): LinearBody keeps their weights and renumbers them from
// 0, and a model with votes or scaling, or a kernel model, gives
// ErrNoSubset.
func NewSubsetDecoder(r io.Reader, keep []int32) *Decoder {
	d := NewDecoder(r)
	d.keep = keep
	return d
}

// NewSubsetDecoderAt is NewSubsetDecoder for a model file of size bytes
// that r holds, read through ReadAt: the weights of the kept features
// are read at their offsets, the others and the checksum not at all (see
// weightRowsAt).
func NewSubsetDecoderAt(r io.ReaderAt, size int64, keep []int32) *Decoder {
	sr := io.NewSectionReader(r, 0, size)
	return &Decoder{r: sr, remain: size, keep: keep, at: sr}
}

// Subset reports whether d reads a model for a subset of its features.
func (d *Decoder) Subset() bool { return d.keep != nil }
