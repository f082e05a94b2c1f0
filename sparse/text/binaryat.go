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
	pr := &partReader{r: r, size: size}
	lay, whole, err := pr.layout()
	if err != nil {
		return nil, nil, err
	}
	if whole {
		data, err := pr.at(0, uint64(max(size, 0)), "the featurizer")
		if err != nil {
			return nil, nil, err
		}
		return decodeBinary(data, docs)
	}
	doc := lay.doc
	vocab, dfs, kept, err := pr.readTerms(lay, docTerms(docs, doc.NGrams))
	if err != nil {
		return nil, nil, err
	}
	doc.Vocabulary = &vocab
	if lay.kind == 1 {
		doc.DF = dfs
		if doc.DF == nil {
			doc.DF = []int32{}
		}
	}
	if f, err = build(&doc, nil, lay.meter); err != nil {
		return nil, nil, err
	}
	return f, kept, nil
}

// partReader reads parts of the binary form in the first size bytes of r.
type partReader struct {
	r    io.ReaderAt
	size int64
}

// at reads n bytes at off, what for messages.
func (pr *partReader) at(off int64, n uint64, what string) ([]byte, error) {
	if pr.size < 0 || off > pr.size || n > uint64(pr.size-off) {
		return nil, fmt.Errorf("%w: binary form: truncated in %s", ErrFormat, what)
	}
	if err := budget.Check(0, int64(n), "reading "+what); err != nil {
		return nil, err
	}
	b := make([]byte, n)
	if k, err := pr.r.ReadAt(b, off); k < len(b) {
		if err == io.EOF || err == nil {
			return nil, fmt.Errorf("%w: binary form: truncated in %s", ErrFormat, what)
		}
		return nil, err
	}
	return b, nil
}

// u64 reads the little-endian uint64 at off.
func (pr *partReader) u64(off int64, what string) (uint64, error) {
	b, err := pr.at(off, 8, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

// partLayout is where the parts of a version 3 form with a vocabulary
// lie, as partReader.layout reads them.
type partLayout struct {
	doc      fileJSON // the header
	meter    *budget.Meter
	n, total uint64 // vocabulary terms and their bytes
	dir      *termDir
	termsAt  int64  // where the terms part begins
	c        uint64 // its length
	kind     byte   // of document frequencies
	dfAt     int64  // where the document frequencies begin
	dfLen    int64  // their length
}

// layout reads and checks the header, the directory and the sizes of
// the parts. whole is true for a form to be read whole: not version 3,
// hashing, or one decodeBinary refuses with the message it names.
func (pr *partReader) layout() (lay *partLayout, whole bool, err error) {
	b, err := pr.at(0, 12, "the header")
	if err != nil || !isBinary(b) || binary.LittleEndian.Uint16(b[4:]) < 3 {
		// decodeBinary names what is wrong with a short or old form.
		return nil, true, nil
	}
	if err := checkVersion(b); err != nil {
		return nil, false, err
	}
	le := binary.LittleEndian
	h := uint64(le.Uint32(b[8:]))
	hb, err := pr.at(12, h, "the header")
	if err != nil {
		return nil, false, err
	}
	// What is read and decoded is counted against the budget.
	lay = &partLayout{meter: budget.NewMeter(0)}
	if lay.doc, err = decodeHeader(hb, lay.meter); err != nil {
		return nil, false, err
	}
	if lay.doc.Vocabulary == nil || lay.doc.NGrams < 1 || lay.doc.NGrams > maxNGrams {
		return nil, true, nil
	}
	off := int64(12 + h)
	fixed, err := pr.at(off, 32, "the vocabulary's sizes")
	if err != nil {
		return nil, false, err
	}
	n, total, block, dl := le.Uint64(fixed), le.Uint64(fixed[8:]), le.Uint64(fixed[16:]), le.Uint64(fixed[24:])
	if n > math.MaxInt32 || total > math.MaxInt32 || n > uint64(pr.size)/2 {
		return nil, false, badBinary("%d vocabulary terms of %d bytes in %d bytes", n, total, pr.size)
	}
	lay.n, lay.total = n, total
	db, err := pr.at(off+32, dl, "the directory")
	if err != nil {
		return nil, false, err
	}
	if lay.dir, err = parseDirectory(db, n, block, true, lay.meter); err != nil {
		return nil, false, err
	}
	whole, err = pr.partSizes(lay, off+32+int64(dl))
	return lay, whole, err
}

// partSizes reads and checks the lengths of the terms and index parts
// that begin at off, and the kind and count of document frequencies, into
// lay. whole is true for sparse document frequencies, which the whole
// reader refuses.
func (pr *partReader) partSizes(lay *partLayout, off int64) (whole bool, err error) {
	n, size := lay.n, pr.size
	c, err := pr.u64(off, "the terms part's length")
	if err != nil {
		return false, err
	}
	termsAt := off + 8
	if c > uint64(size-termsAt) {
		return false, badBinary("terms part truncated")
	}
	x, err := pr.u64(termsAt+int64(c), "the index part's length")
	if err != nil {
		return false, err
	}
	// The sizes the whole reader checks of the index part; those of the
	// terms are checked block by block.
	if x > uint64(size-termsAt-int64(c)-8) || n > x || n == 0 && lay.total != 0 {
		return false, badBinary("%d vocabulary terms of %d bytes in a terms part of %d bytes with an index of %d bytes", n, lay.total, c, x)
	}
	dfAt := termsAt + int64(c) + 8 + int64(x)
	kb, err := pr.at(dfAt, 9, "the document frequencies")
	if err != nil {
		return false, err
	}
	kind, d := kb[0], binary.LittleEndian.Uint64(kb[1:])
	dfAt += 9
	dfLen := size - dfAt
	switch {
	case kind == 2:
		return true, nil // refused there: it is not written for a vocabulary
	case kind > 2 || kind == 0 && (d != 0 || dfLen != 0) || kind == 1 && d != n || d > uint64(dfLen):
		return false, badBinary("document frequencies (kind %d, %d entries) in %d bytes for %d terms", kind, d, dfLen, n)
	}
	dir := lay.dir
	nb := len(dir.starts)
	if nb > 0 && (dir.starts[nb-1] >= int(c) || kind == 1 && int64(dir.dfStarts[nb-1]) >= dfLen) {
		return false, badBinary("directory: a block past its part")
	}
	if kind != 1 {
		for _, s := range dir.dfStarts {
			if s != 0 {
				return false, badBinary("directory: offsets of document frequencies that are not dense")
			}
		}
	}
	lay.termsAt, lay.c, lay.kind, lay.dfAt, lay.dfLen = termsAt, c, kind, dfAt, dfLen
	return false, nil
}

// termSpan is a block of the vocabulary and the candidates cands[i:j] that
// lie in it.
type termSpan struct{ b, i, j int }

// termSpans returns the blocks of dir that the sorted candidates cands
// lie in, in order, each once; candidates before the first term have
// none.
func termSpans(cands []string, dir *termDir) []termSpan {
	nb := len(dir.starts)
	var spans []termSpan
	for i := 0; i < len(cands); {
		bi := sort.Search(nb, func(b int) bool { return dir.first[b] > cands[i] }) - 1
		j := i + 1
		for j < len(cands) && bi >= 0 && (bi+1 == nb || cands[j] < dir.first[bi+1]) {
			j++
		}
		if bi >= 0 {
			spans = append(spans, termSpan{bi, i, j})
		}
		i = j
	}
	return spans
}

// blockReader reads the blocks of terms and of document frequencies of a
// form laid out as lay, from all and allDF where those hold the whole
// parts, else from r.
type blockReader struct {
	pr         *partReader
	lay        *partLayout
	all, allDF []byte
	dec        *zstd.Decoder
	blockMax   uint64 // the most bytes a block inflates to
	buf        []byte // a block's terms, inflated
	keep       []int32
	vocab      []string
	dfs, kept  []int32
}

// readTerms reads the terms of the vocabulary laid out as lay that are in
// cands (sorted and distinct), their features in the whole vocabulary and,
// with dense document frequencies, theirs.
func (pr *partReader) readTerms(lay *partLayout, cands []string) (vocab []string, dfs, kept []int32, err error) {
	// A block inflates to no more than its terms' bytes and two numbers
	// for each.
	br := blockReader{pr: pr, lay: lay, blockMax: lay.total + 2*binary.MaxVarintLen64*uint64(lay.dir.block), kept: []int32{}}
	if br.dec, err = newTermsDecoder(br.blockMax); err != nil {
		return nil, nil, nil, err
	}
	defer br.dec.Close()
	spans := termSpans(cands, lay.dir)
	// Documents that touch many of the blocks have the terms and their
	// frequencies read in one piece each, rather than block by block.
	if len(spans) > len(lay.dir.starts)/4 {
		if br.all, err = pr.at(lay.termsAt, lay.c, "the terms part"); err != nil {
			return nil, nil, nil, err
		}
		if lay.kind == 1 {
			if br.allDF, err = pr.at(lay.dfAt, uint64(lay.dfLen), "the document frequencies"); err != nil {
				return nil, nil, nil, err
			}
		}
	}
	for _, sp := range spans {
		if err := br.span(sp.b, cands[sp.i:sp.j]); err != nil {
			return nil, nil, nil, err
		}
	}
	return br.vocab, br.dfs, br.kept, nil
}

// piece returns n bytes at off in the part at base, or of all when that
// holds the part.
func (br *blockReader) piece(all []byte, base, off int64, n uint64, what string) ([]byte, error) {
	if all != nil {
		return all[off : off+int64(n)], nil
	}
	return br.pr.at(base+off, n, what)
}

// span reads block bi up to the last of cands, the candidates that lie in
// it, keeping those it holds with their features and document
// frequencies.
func (br *blockReader) span(bi int, cands []string) error {
	lay, dir := br.lay, br.lay.dir
	nb := len(dir.starts)
	first := bi * dir.block
	count := min(dir.block, int(lay.n)-first)
	end := int(lay.c)
	if bi+1 < nb {
		end = dir.starts[bi+1]
	}
	zb, err := br.piece(br.all, lay.termsAt, int64(dir.starts[bi]), uint64(end-dir.starts[bi]), "a block of terms")
	if err != nil {
		return err
	}
	var zh zstd.Header
	if err := zh.Decode(zb); err != nil || !zh.HasFCS || zh.FrameContentSize > br.blockMax || zh.FrameContentSize < 2*uint64(count) {
		return badBinary("block %d of terms: no frame that states a size from %d to %d bytes (%v)", bi, 2*count, br.blockMax, err)
	}
	if err := budget.Check(0, int64(zh.FrameContentSize), "a block of terms"); err != nil {
		return err
	}
	tb, err := inflateFrame(br.dec, zb, br.buf[:0], int(zh.FrameContentSize))
	if err != nil {
		return badBinary("block %d of terms: %v", bi, err)
	}
	br.buf = tb
	tr := termReader{q: tb, total: lay.total, block: -1}
	br.keep = br.keep[:0]
	cs := newCandidates(cands)
	// The block is read up to its last candidate; a block read to its
	// end must end there.
	t := 0
	for ; t < count && !cs.done(); t++ {
		if _, err := tr.next(first + t); err != nil {
			return err
		}
		if t == 0 && string(tr.cur) != dir.first[bi] {
			return termError(first, "not the first term of its block as the directory has it")
		}
		if cand, ok := cs.match(tr.cur); ok {
			br.vocab = append(br.vocab, cand)
			br.kept = append(br.kept, int32(first+t))
			br.keep = append(br.keep, int32(t))
		}
	}
	if t == count && len(tr.q) != 0 {
		return badBinary("block %d: %d bytes after its terms", bi, len(tr.q))
	}
	if lay.kind == 1 && len(br.keep) > 0 {
		return br.blockDF(bi, count)
	}
	return nil
}

// blockDF reads the document frequencies of block bi, of count terms, up
// to the last of its kept terms br.keep, keeping theirs.
func (br *blockReader) blockDF(bi, count int) error {
	lay, dir := br.lay, br.lay.dir
	de := lay.dfLen
	if bi+1 < len(dir.starts) {
		de = int64(dir.dfStarts[bi+1])
	}
	fb, err := br.piece(br.allDF, lay.dfAt, int64(dir.dfStarts[bi]), uint64(de-int64(dir.dfStarts[bi])), "a block of document frequencies")
	if err != nil {
		return err
	}
	upto := int(br.keep[len(br.keep)-1]) + 1
	v, rest, err := uvarints(fb, upto, false, br.keep, nil)
	if err != nil {
		return err
	}
	if upto == count && len(rest) != 0 {
		return badBinary("block %d: %d bytes after its document frequencies", bi, len(rest))
	}
	br.dfs = append(br.dfs, v...)
	return nil
}
