package text

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"sort"

	"github.com/klauspost/compress/zstd"

	"github.com/hyperplane-ml/hyperplane/sparse/budget"
)

// ReadFeaturizerFor reads the featurizer MarshalBinary wrote in the first
// size bytes of r for the documents docs, as UnmarshalBinaryFor does: of a
// vocabulary it keeps the terms docs hold, as features 0, 1, … in the
// vocabulary's order, and returns the features they are in the whole
// featurizer, increasing. Of version 3 of the binary form it reads only
// the header, the directory, and the blocks of terms and of document
// frequencies that hold docs' terms. It checks the header and the
// directory as the whole reader does, and of each block it reads, its
// first term against the directory and the front coding, order and
// frequencies up to the last of docs' terms in it; the rest is not read
// or not checked, so it is for input whose integrity the caller checks,
// as a text model file's page checksums do. A featurizer that hashes, or
// an older form, is read whole with UnmarshalBinaryFor's checks and
// result (kept nil for hashing or version 1); a form too large for the
// memory budget is refused before it is read.
//
// Errors in the data wrap ErrFormat; those of r are returned as they
// are.
func ReadFeaturizerFor(r io.ReaderAt, size int64, docs []string) (f *Featurizer, kept []int32, err error) {
	if docs == nil {
		docs = []string{}
	}
	bad := func(format string, a ...any) (*Featurizer, []int32, error) {
		return nil, nil, fmt.Errorf("%w: binary form: "+format, append([]any{ErrFormat}, a...)...)
	}
	at := func(off int64, n uint64, what string) ([]byte, error) {
		if size < 0 || off > size || n > uint64(size-off) {
			return nil, fmt.Errorf("%w: binary form: truncated in %s", ErrFormat, what)
		}
		if err := budget.Check(0, int64(n), "reading "+what); err != nil {
			return nil, err
		}
		b := make([]byte, n)
		if k, err := r.ReadAt(b, off); k < len(b) {
			if err == io.EOF || err == nil {
				return nil, fmt.Errorf("%w: binary form: truncated in %s", ErrFormat, what)
			}
			return nil, err
		}
		return b, nil
	}
	whole := func() (*Featurizer, []int32, error) {
		data, err := at(0, uint64(max(size, 0)), "the featurizer")
		if err != nil {
			return nil, nil, err
		}
		return decodeBinary(data, docs)
	}
	b, err := at(0, 12, "the header")
	if err != nil || !isBinary(b) || binary.LittleEndian.Uint16(b[4:]) < 3 {
		// decodeBinary names what is wrong with a short or old form.
		return whole()
	}
	le := binary.LittleEndian
	if v := le.Uint16(b[4:]); v > binVersion {
		return bad("version %d, this build reads 1 to %d", v, binVersion)
	}
	if fl := le.Uint16(b[6:]); fl != 0 {
		return bad("unknown flags %#x", fl)
	}
	h := uint64(le.Uint32(b[8:]))
	hb, err := at(12, h, "the header")
	if err != nil {
		return nil, nil, err
	}
	// What is read and decoded is counted against the budget.
	meter := budget.NewMeter(0)
	doc, err := decodeHeader(hb, meter)
	if err != nil {
		return nil, nil, err
	}
	if doc.Vocabulary == nil || doc.NGrams < 1 || doc.NGrams > maxNGrams {
		return whole()
	}
	off := int64(12 + h)
	fixed, err := at(off, 32, "the vocabulary's sizes")
	if err != nil {
		return nil, nil, err
	}
	n, total, block, dl := le.Uint64(fixed), le.Uint64(fixed[8:]), le.Uint64(fixed[16:]), le.Uint64(fixed[24:])
	if n > math.MaxInt32 || total > math.MaxInt32 || n > uint64(size)/2 {
		return bad("%d vocabulary terms of %d bytes in %d bytes", n, total, size)
	}
	db, err := at(off+32, dl, "the directory")
	if err != nil {
		return nil, nil, err
	}
	dir, err := parseDirectory(db, n, block, true, meter)
	if err != nil {
		return nil, nil, err
	}
	off += 32 + int64(dl)
	u64 := func(off int64, what string) (uint64, error) {
		b, err := at(off, 8, what)
		if err != nil {
			return 0, err
		}
		return le.Uint64(b), nil
	}
	c, err := u64(off, "the terms part's length")
	if err != nil {
		return nil, nil, err
	}
	termsAt := off + 8
	if c > uint64(size-termsAt) {
		return bad("terms part truncated")
	}
	x, err := u64(termsAt+int64(c), "the index part's length")
	if err != nil {
		return nil, nil, err
	}
	// The sizes the whole reader checks of the index part; those of the
	// terms are checked block by block.
	if x > uint64(size-termsAt-int64(c)-8) || n > x || n == 0 && total != 0 {
		return bad("%d vocabulary terms of %d bytes in a terms part of %d bytes with an index of %d bytes", n, total, c, x)
	}
	dfAt := termsAt + int64(c) + 8 + int64(x)
	kb, err := at(dfAt, 9, "the document frequencies")
	if err != nil {
		return nil, nil, err
	}
	kind, d := kb[0], le.Uint64(kb[1:])
	dfAt += 9
	dfLen := size - dfAt
	switch {
	case kind == 2:
		return whole() // refused there: it is not written for a vocabulary
	case kind > 2 || kind == 0 && (d != 0 || dfLen != 0) || kind == 1 && d != n || d > uint64(dfLen):
		return bad("document frequencies (kind %d, %d entries) in %d bytes for %d terms", kind, d, dfLen, n)
	}
	nb := len(dir.starts)
	if nb > 0 && (dir.starts[nb-1] >= int(c) || kind == 1 && int64(dir.dfStarts[nb-1]) >= dfLen) {
		return bad("directory: a block past its part")
	}
	if kind != 1 {
		for _, s := range dir.dfStarts {
			if s != 0 {
				return bad("directory: offsets of document frequencies that are not dense")
			}
		}
	}

	// A block inflates to no more than its terms' bytes and two numbers
	// for each.
	blockMax := total + 2*binary.MaxVarintLen64*uint64(dir.block)
	dec, err := newTermsDecoder(blockMax)
	if err != nil {
		return nil, nil, err
	}
	defer dec.Close()

	// The candidates in order, and so their blocks: each block that holds
	// one is read once. A span is a block and its candidates cands[i:j];
	// candidates before the first term have none.
	cands := docTerms(docs, doc.NGrams)
	type span struct{ b, i, j int }
	var spans []span
	for i := 0; i < len(cands); {
		bi := sort.Search(nb, func(b int) bool { return dir.first[b] > cands[i] }) - 1
		j := i + 1
		for j < len(cands) && bi >= 0 && (bi+1 == nb || cands[j] < dir.first[bi+1]) {
			j++
		}
		if bi >= 0 {
			spans = append(spans, span{bi, i, j})
		}
		i = j
	}
	// Documents that touch many of the blocks have the terms and their
	// frequencies read in one piece each, rather than block by block.
	var allTerms, allDF []byte
	if len(spans) > nb/4 {
		if allTerms, err = at(termsAt, c, "the terms part"); err != nil {
			return nil, nil, err
		}
		if kind == 1 {
			if allDF, err = at(dfAt, uint64(dfLen), "the document frequencies"); err != nil {
				return nil, nil, err
			}
		}
	}
	// piece returns n bytes at off in the part at base, or of all when
	// that holds the part.
	piece := func(all []byte, base, off int64, n uint64, what string) ([]byte, error) {
		if all != nil {
			return all[off : off+int64(n)], nil
		}
		return at(base+off, n, what)
	}
	var vocab []string
	var dfs []int32
	kept = []int32{}
	var keep []int32 // the kept terms' places in their block
	var buf []byte   // a block's terms, inflated
	for _, sp := range spans {
		bi, i, j := sp.b, sp.i, sp.j
		first := bi * dir.block
		count := min(dir.block, int(n)-first)
		end := int(c)
		if bi+1 < nb {
			end = dir.starts[bi+1]
		}
		zb, err := piece(allTerms, termsAt, int64(dir.starts[bi]), uint64(end-dir.starts[bi]), "a block of terms")
		if err != nil {
			return nil, nil, err
		}
		var zh zstd.Header
		if err := zh.Decode(zb); err != nil || !zh.HasFCS || zh.FrameContentSize > blockMax || zh.FrameContentSize < 2*uint64(count) {
			return bad("block %d of terms: no frame that states a size from %d to %d bytes (%v)", bi, 2*count, blockMax, err)
		}
		if err := budget.Check(0, int64(zh.FrameContentSize), "a block of terms"); err != nil {
			return nil, nil, err
		}
		tb, err := inflateFrame(dec, zb, buf[:0], int(zh.FrameContentSize))
		if err != nil {
			return bad("block %d of terms: %v", bi, err)
		}
		buf = tb
		tr := termReader{q: tb, total: total, block: -1}
		keep = keep[:0]
		k := i
		ck := prefixKey([]byte(cands[k]))
		// The block is read up to its last candidate; a block read to
		// its end must end there.
		t := 0
		for ; t < count && k < j; t++ {
			if _, err := tr.next(first + t); err != nil {
				return nil, nil, err
			}
			if t == 0 && string(tr.cur) != dir.first[bi] {
				return nil, nil, termError(first, "not the first term of its block as the directory has it")
			}
			// Most candidates differ from the term within their first
			// 8 bytes (see subsetVocabularyFC).
			tk := prefixKey(tr.cur)
			for k < j && (ck < tk || ck == tk && cands[k] < string(tr.cur)) {
				if k++; k < j {
					ck = prefixKey([]byte(cands[k]))
				}
			}
			if k < j && ck == tk && cands[k] == string(tr.cur) {
				vocab = append(vocab, cands[k])
				kept = append(kept, int32(first+t))
				keep = append(keep, int32(t))
				if k++; k < j {
					ck = prefixKey([]byte(cands[k]))
				}
			}
		}
		if t == count && len(tr.q) != 0 {
			return bad("block %d: %d bytes after its terms", bi, len(tr.q))
		}
		if kind == 1 && len(keep) > 0 {
			de := dfLen
			if bi+1 < nb {
				de = int64(dir.dfStarts[bi+1])
			}
			fb, err := piece(allDF, dfAt, int64(dir.dfStarts[bi]), uint64(de-int64(dir.dfStarts[bi])), "a block of document frequencies")
			if err != nil {
				return nil, nil, err
			}
			upto := int(keep[len(keep)-1]) + 1
			v, rest, err := uvarints(fb, upto, false, keep, nil)
			if err != nil {
				return nil, nil, err
			}
			if upto == count && len(rest) != 0 {
				return bad("block %d: %d bytes after its document frequencies", bi, len(rest))
			}
			dfs = append(dfs, v...)
		}
	}
	doc.Vocabulary = &vocab
	if kind == 1 {
		doc.DF = dfs
		if doc.DF == nil {
			doc.DF = []int32{}
		}
	}
	if f, err = build(&doc, nil, meter); err != nil {
		return nil, nil, err
	}
	return f, kept, nil
}
