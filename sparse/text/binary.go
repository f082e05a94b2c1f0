package text

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"unsafe"

	"github.com/cespare/xxhash/v2"
	"github.com/klauspost/compress/zstd"

	"github.com/hyperplane-ml/hyperplane/sparse/budget"
)

// The binary form of a Featurizer, little-endian, version 3:
//
//	offset  size  field
//	0       4     magic "HPTF"
//	4       2     format version (uint16, 3)
//	6       2     flags (uint16, 0)
//	8       4     header length H (uint32)
//	12      H     the JSON document WriteTo writes, without the vocabulary
//	              terms (an empty list where there is a vocabulary) and
//	              without the document frequencies
//	        8     vocabulary terms N (uint64; 0 with hashing)
//	        8     their bytes in all, T (uint64)
//	        8     terms a block, B (uint64: a power of two up to 2^16 with
//	              a vocabulary, 0 with hashing)
//	        8     directory length R (uint64)
//	        R     the directory, an entry for each block of B terms (the
//	              last may hold fewer), ⌈N/B⌉ in all: where the block
//	              begins in the terms part and where its first document
//	              frequency begins in theirs (0 unless they are dense),
//	              each as its distance from the block before's (the
//	              first from 0), then the block's first term (its length
//	              and its bytes), all uvarints
//	        8     terms part length C (uint64)
//	        C     the blocks, each its terms front-coded as the list is
//	              sorted (the length of the prefix shared with the term
//	              before (uvarint), the length of the rest (uvarint) and
//	              the rest's bytes; the block's first term shares none),
//	              compressed as one Zstandard frame (RFC 8878) that
//	              states its content size
//	        8     index part length X (uint64)
//	        X     the N features in the order of their terms' hashes,
//	              increasing (uvarint each)
//	        1     document frequencies: 0 none, 1 dense, 2 sparse
//	        8     entries D (uint64; N when dense with a vocabulary)
//	        ·     dense: the D frequencies (uvarint each); sparse: the D
//	              features, each as its distance from the one before
//	              (the first from −1), then their D frequencies (uvarint)
//
// Version 2 has neither block size nor directory, and its terms part is
// the terms front-coded without restarts, compressed as one frame;
// version 1 has no index part either, and its terms uncompressed in place
// of the terms part.
//
// It holds what the JSON document holds, but reads without parsing a
// number or a quoted string per term, which is what made loading a large
// vocabulary slow. Since version 2 it also spares the reader most of what
// remained per term: the terms' order by hash, which is the order of their
// slots in the hash index, lets the index be filled in one pass over
// consecutive slots once the terms are hashed, instead of a random slot
// per term; and the terms are kept as one block of bytes until a caller
// asks for them as strings. The hashes are computed, not stored, so the
// order is checked against them (increasing: distinct, no collision).
// Version 3 can be read in part (ReadFeaturizerFor): a term is found by
// the directory's first terms and a search of one block, and its document
// frequency by the block's offset, so that the few terms of a few
// documents are read without the rest; its blocks are compressed one by
// one for that, which makes the whole form about an eighth larger than
// with one frame.
const (
	binMagic   = "HPTF"
	binVersion = 3
	// maxVocabBlock bounds the block size a reader accepts.
	maxVocabBlock = 1 << 16
)

// vocabBlock is the number of terms of a block that version 3 writes: a
// part read scans a block for each term it looks up, and the directory
// holds a term for each block. Tests make it smaller.
var vocabBlock = 1024

// MarshalBinary returns f in a compact binary form, the same content as
// WriteTo's JSON document; UnmarshalBinary reads it. A text model file
// stores its featurizer this way.
func (f *Featurizer) MarshalBinary() ([]byte, error) {
	return f.marshalBinary(binVersion)
}

// marshalBinary writes the binary form of the given version, 1, 2 or 3.
func (f *Featurizer) marshalBinary(version uint16) ([]byte, error) {
	doc := f.document()
	vocab, dense, ds := doc.Vocabulary, doc.DF, doc.DFSparse
	if vocab != nil {
		doc.Vocabulary = &[]string{}
	}
	doc.DF, doc.DFSparse = nil, nil
	hdr, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	vp, err := f.vocabParts(version, vocab, dense)
	if err != nil {
		return nil, err
	}
	size := 12 + len(hdr) + 8 + 8 + 8 + 8 + len(vp.dir) + 8 + len(vp.terms) + 8 + len(vp.index) + len(vp.fc) + 1 + 8 + 2*binary.MaxVarintLen32*(len(dense)+2*dfLen(ds))
	out := make([]byte, 0, size)
	out = append(out, binMagic...)
	out = binary.LittleEndian.AppendUint16(out, version)
	out = binary.LittleEndian.AppendUint16(out, 0)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(hdr)))
	out = append(out, hdr...)
	out = vp.appendTo(out, version)
	switch {
	case dense != nil:
		out = append(out, 1)
		out = binary.LittleEndian.AppendUint64(out, uint64(len(dense)))
		out = appendUvarints(out, dense, false)
	case ds != nil:
		out = append(out, 2)
		out = binary.LittleEndian.AppendUint64(out, uint64(len(ds.Features)))
		out = appendUvarints(out, ds.Features, true)
		out = appendUvarints(out, ds.Counts, false)
	default:
		out = append(out, 0)
		out = binary.LittleEndian.AppendUint64(out, 0)
	}
	return out, nil
}

// vocabParts are the parts of the binary form that hold the vocabulary.
type vocabParts struct {
	n, total, block int    // terms, their bytes, terms a block (0: no restarts)
	fc              []byte // the terms front-coded (version 1 writes them so)
	terms           []byte // the terms part: fc compressed
	index, dir      []byte // the index part and the directory
}

// vocabParts makes the parts of the binary form of the given version
// that hold vocab (nil with hashing), whose dense document frequencies
// are dense (nil if not dense).
func (f *Featurizer) vocabParts(version uint16, vocab *[]string, dense []int32) (*vocabParts, error) {
	vp := &vocabParts{}
	if vocab == nil {
		return vp, nil
	}
	if version >= 3 {
		vp.block = vocabBlock
	}
	vp.n = len(*vocab)
	for _, t := range *vocab {
		vp.total += len(t)
	}
	fc, starts := appendFrontCodedBlocks(make([]byte, 0, vp.total+2*binary.MaxVarintLen64*len(*vocab)), *vocab, vp.block)
	vp.fc = fc
	if version < 2 {
		return vp, nil
	}
	// zstd's default level: on the vocabularies of imdb and 20 Newsgroups
	// its blocks are about 1% larger than at its best level, which took
	// three times as long to write them and, with its tables of tens of
	// MiB, slowed a learner training beside it.
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault),
		zstd.WithEncoderConcurrency(1), zstd.WithSingleSegment(true))
	if err != nil {
		return nil, err
	}
	vp.index = f.appendIndex(nil)
	if version == 2 {
		vp.terms = enc.EncodeAll(fc, nil)
		return vp, nil
	}
	// Each block compressed alone, where it begins in the terms part in
	// the directory.
	zstarts := make([]int, len(starts))
	for b, st := range starts {
		end := len(fc)
		if b+1 < len(starts) {
			end = starts[b+1]
		}
		zstarts[b] = len(vp.terms)
		vp.terms = enc.EncodeAll(fc[st:end], vp.terms)
	}
	var dfStarts []int
	if dense != nil {
		_, dfStarts = appendUvarintBlocks(nil, dense, vp.block)
	}
	vp.dir = newTermDir(*vocab, vp.block, zstarts, dfStarts).appendTo(nil)
	return vp, nil
}

// appendTo appends the vocabulary's sizes and parts as version writes
// them.
func (vp *vocabParts) appendTo(out []byte, version uint16) []byte {
	out = binary.LittleEndian.AppendUint64(out, uint64(vp.n))
	out = binary.LittleEndian.AppendUint64(out, uint64(vp.total))
	if version >= 3 {
		out = binary.LittleEndian.AppendUint64(out, uint64(vp.block))
		out = binary.LittleEndian.AppendUint64(out, uint64(len(vp.dir)))
		out = append(out, vp.dir...)
	}
	if version < 2 {
		return append(out, vp.fc...)
	}
	out = binary.LittleEndian.AppendUint64(out, uint64(len(vp.terms)))
	out = append(out, vp.terms...)
	out = binary.LittleEndian.AppendUint64(out, uint64(len(vp.index)))
	return append(out, vp.index...)
}

// appendIndex appends the index part: the vocabulary's features in the
// order of their hashes. Nothing with hashing.
func (f *Featurizer) appendIndex(out []byte) []byte {
	if !f.cfg.Vocabulary {
		return out
	}
	for _, j := range f.index.byHash() {
		out = binary.AppendUvarint(out, uint64(j))
	}
	return out
}

func dfLen(ds *dfSparse) int {
	if ds == nil {
		return 0
	}
	return len(ds.Features)
}

// appendUvarints appends v, non-negative, as uvarints; delta: increasing,
// each as its distance from the one before (the first from −1).
func appendUvarints(out []byte, v []int32, delta bool) []byte {
	prev := int64(-1)
	for _, x := range v {
		u := uint64(uint32(x))
		if delta {
			u = uint64(int64(x) - prev)
			prev = int64(x)
		}
		out = binary.AppendUvarint(out, u)
	}
	return out
}

// UnmarshalBinary sets f to the featurizer MarshalBinary wrote, with the
// checks of ReadFeaturizer: data that is not such a form, is truncated,
// corrupt or inconsistent is an error wrapping ErrFormat, and tables
// larger than the memory budget allows are refused before they are made.
// The featurizer has Workers 0. f must not be in use.
func (f *Featurizer) UnmarshalBinary(data []byte) error {
	g, _, err := decodeBinary(data, nil)
	if err != nil {
		return err
	}
	f.set(g)
	return nil
}

// UnmarshalBinaryFor is UnmarshalBinary for a featurizer that will only
// transform the documents docs. Of a vocabulary it keeps only the terms
// that docs hold, as features 0, 1, … in the vocabulary's order, and
// returns the features they are in the whole featurizer, increasing: the
// featurizer then transforms each of docs into the vector the whole one
// makes, with feature kept[i] renumbered i. It reads the whole form and
// checks its structure, but hashes and indexes only the kept terms, which
// for a few documents is most of the work UnmarshalBinary does. Terms are
// matched by their text, not their hash as a vocabulary matches them, so
// a document term whose 64-bit hash equals that of another term in the
// vocabulary (odds of about n/2^64 for n terms) maps to no feature here
// and to that term's in the whole featurizer.
//
// A featurizer that hashes, or a form older than version 2 of the binary
// form, is read whole and kept is nil.
func (f *Featurizer) UnmarshalBinaryFor(data []byte, docs []string) (kept []int32, err error) {
	if docs == nil {
		docs = []string{}
	}
	g, kept, err := decodeBinary(data, docs)
	if err != nil {
		return nil, err
	}
	f.set(g)
	return kept, nil
}

// set makes f the decoded featurizer g.
func (f *Featurizer) set(g *Featurizer) {
	f.cfg, f.dim, f.mask, f.vocab, f.index = g.cfg, g.dim, g.mask, g.vocab, g.index
	f.vocabFC, f.vocabOnce = g.vocabFC, sync.Once{}
	f.nDocs, f.df, f.idf, f.labels = g.nDocs, g.df, g.idf, g.labels
	f.labelField, f.textField = g.labelField, g.textField
}

// isBinary reports whether data begins as MarshalBinary's form does, to
// tell it from WriteTo's JSON document.
func isBinary(data []byte) bool { return bytes.HasPrefix(data, []byte(binMagic)) }

// decodeBinary decodes the binary form data. With docs not nil it keeps
// only the vocabulary terms docs hold and returns their features in the
// whole vocabulary (see UnmarshalBinaryFor).
func decodeBinary(data []byte, docs []string) (*Featurizer, []int32, error) {
	version, doc, p, meter, err := decodeBinaryHeader(data)
	if err != nil {
		return nil, nil, err
	}

	// The vocabulary: every term's string is a slice of one string of
	// all their bytes, so reading allocates a few times, not once a term.
	n, ok := takeU64(&p)
	total, ok2 := takeU64(&p)
	if !ok || !ok2 {
		return nil, nil, badBinary("truncated before the vocabulary")
	}
	if n > 0 && doc.Vocabulary == nil {
		return nil, nil, badBinary("%d vocabulary terms for hashing", n)
	}
	var dir *termDir
	if version >= 3 {
		block, ok := takeU64(&p)
		r, ok2 := takeU64(&p)
		if !ok || !ok2 || r > uint64(len(p)) {
			return nil, nil, badBinary("truncated in the directory")
		}
		if dir, err = parseDirectory(p[:r], n, block, doc.Vocabulary != nil, meter); err != nil {
			return nil, nil, err
		}
		p = p[r:]
	}
	// A term takes two bytes or more, and is no longer than the term
	// before and its own suffix: no longer than all the suffixes (which
	// version 2 holds compressed; it checks them once inflated).
	if n > uint64(len(p))/2 || version == 1 && total > n*uint64(len(p)) {
		return nil, nil, badBinary("%d vocabulary terms of %d bytes in %d bytes", n, total, len(p))
	}
	var pre *prebuilt
	var kept []int32
	switch {
	case version >= 2 && docs != nil && doc.Vocabulary != nil && doc.NGrams >= 1 && doc.NGrams <= maxNGrams:
		// The terms docs hold become the vocabulary, as a version 1
		// form would list them.
		var vocab []string
		if vocab, kept, p, err = subsetVocabulary(p, n, total, dir, docTerms(docs, doc.NGrams), meter); err != nil {
			return nil, nil, err
		}
		doc.Vocabulary = &vocab
	case version >= 2:
		if pre, p, err = decodeVocabulary(p, n, total, dir, doc.Vocabulary != nil, doc.NGrams, meter); err != nil {
			return nil, nil, err
		}
	case doc.Vocabulary != nil:
		var vocab []string
		if vocab, p, err = decodeVocabularyV1(p, n, total, meter); err != nil {
			return nil, nil, err
		}
		doc.Vocabulary = &vocab
	}
	if err := decodeDF(p, &doc, n, kept, dir, meter); err != nil {
		return nil, nil, err
	}
	f, err := build(&doc, pre, meter)
	return f, kept, err
}

// decodeBinaryHeader checks the fixed header of the binary form data and
// decodes its JSON header. It returns the format version, the header, the
// rest of data, and the meter that counts what is decoded against the
// budget, data included, which is held meanwhile.
func decodeBinaryHeader(data []byte) (version uint16, doc fileJSON, rest []byte, meter *budget.Meter, err error) {
	if len(data) < 12 || !isBinary(data) {
		return 0, doc, nil, nil, badBinary("no %q header", binMagic)
	}
	if err := checkVersion(data); err != nil {
		return 0, doc, nil, nil, err
	}
	version = binary.LittleEndian.Uint16(data[4:])
	p := data[12:]
	h := uint64(binary.LittleEndian.Uint32(data[8:]))
	if h > uint64(len(p)) {
		return 0, doc, nil, nil, badBinary("truncated header")
	}
	meter = budget.NewMeter(0)
	if err := meter.Take(int64(len(data)), "the featurizer's bytes"); err != nil {
		return 0, doc, nil, nil, err
	}
	if doc, err = decodeHeader(p[:h], meter); err != nil {
		return 0, doc, nil, nil, err
	}
	return version, doc, p[h:], meter, nil
}

// badBinary is the error for binary form data that is not what it
// should be: format and a say what, after "binary form: ".
func badBinary(format string, a ...any) error {
	return fmt.Errorf("%w: binary form: "+format, append([]any{ErrFormat}, a...)...)
}

// checkVersion checks the format version and flags in the first 8 bytes
// of a binary form, b.
func checkVersion(b []byte) error {
	version := binary.LittleEndian.Uint16(b[4:])
	if version < 1 || version > binVersion {
		return badBinary("version %d, this build reads 1 to %d", version, binVersion)
	}
	if fl := binary.LittleEndian.Uint16(b[6:]); fl != 0 {
		return badBinary("unknown flags %#x", fl)
	}
	return nil
}

// takeU64 takes a little-endian uint64 off the front of *p; false if *p
// is shorter.
func takeU64(p *[]byte) (uint64, bool) {
	if len(*p) < 8 {
		return 0, false
	}
	v := binary.LittleEndian.Uint64(*p)
	*p = (*p)[8:]
	return v, true
}

// decodeVocabularyV1 reads the n terms of total bytes, front-coded and
// uncompressed, at the start of p, as version 1 of the binary form has
// them, and returns them and what follows.
func decodeVocabularyV1(p []byte, n, total uint64, meter *budget.Meter) ([]string, []byte, error) {
	bad := func(format string, a ...any) ([]string, []byte, error) {
		return nil, nil, badBinary(format, a...)
	}
	// Each term takes two bytes or more of p: n is checked against
	// them before anything is sized by it. total, which prefixes
	// shared with earlier terms make larger than p, sizes nothing:
	// the terms grow as they are read.
	if n > uint64(len(p))/2 {
		return bad("%d vocabulary terms in %d bytes", n, len(p))
	}
	if err := meter.Take(budget.Add(budget.Mul(int64(n), 24), int64(total)), fmt.Sprintf("a vocabulary of %d terms", n)); err != nil {
		return nil, nil, err
	}
	all := make([]byte, 0, min(total, uint64(len(p))))
	ends := make([]int, n)
	prev := 0 // the start of the term before in all
	for i := range ends {
		k, a := binary.Uvarint(p)
		if a <= 0 {
			return bad("term %d: bad prefix length", i)
		}
		p = p[a:]
		l, b := binary.Uvarint(p)
		if b <= 0 || l > uint64(len(p)-b) {
			return bad("term %d: bad length", i)
		}
		p = p[b:]
		if k > uint64(len(all)-prev) || uint64(len(all))+k+l > total {
			return bad("term %d: its prefix or bytes past the vocabulary's", i)
		}
		start := len(all)
		all = append(all, all[prev:prev+int(k)]...)
		all = append(all, p[:l]...)
		p = p[l:]
		ends[i], prev = len(all), start
	}
	if uint64(len(all)) != total {
		return bad("terms of %d bytes, %d stated", len(all), total)
	}
	s := unsafe.String(unsafe.SliceData(all), len(all)) // all is not written again
	vocab := make([]string, n)
	off := 0
	for i, e := range ends {
		vocab[i] = s[off:e]
		off = e
	}
	return vocab, p, nil
}

// decodeDF reads the document frequencies part p, the last of the
// binary form, into doc: of n terms, of the kept terms only where kept is
// not nil, as the directory dir places them in version 3.
func decodeDF(p []byte, doc *fileJSON, n uint64, kept []int32, dir *termDir, meter *budget.Meter) error {
	if len(p) < 9 {
		return badBinary("truncated before the document frequencies")
	}
	kind := p[0]
	p = p[1:]
	d, _ := takeU64(&p)
	if kind > 2 || kind == 0 && d != 0 || d > uint64(len(p)) {
		return badBinary("document frequencies (kind %d, %d entries) in %d bytes", kind, d, len(p))
	}
	if dir != nil && kind != 1 && slices.ContainsFunc(dir.dfStarts, func(s int) bool { return s != 0 }) {
		return badBinary("directory: offsets of document frequencies that are not dense")
	}
	if err := meter.Take(budget.Mul(int64(d), 4*int64(kind)), fmt.Sprintf("%d document frequencies", d)); err != nil {
		return err
	}
	var err error
	switch kind {
	case 1:
		// Read for some documents, a vocabulary keeps the frequencies
		// of its kept terms (one a term: d must be n); version 3 has
		// one a term with a vocabulary.
		if (kept != nil || dir != nil) && d != n {
			return badBinary("%d document frequencies for %d terms", d, n)
		}
		doc.DF, p, err = uvarints(p, int(d), false, kept, dir)
	case 2:
		ds := new(dfSparse)
		if ds.Features, p, err = uvarints(p, int(d), true, nil, nil); err == nil {
			ds.Counts, p, err = uvarints(p, int(d), false, nil, nil)
		}
		doc.DFSparse = ds
	}
	if err != nil {
		return err
	}
	if len(p) != 0 {
		return badBinary("%d bytes after the document frequencies", len(p))
	}
	return nil
}

// decodeHeader decodes the JSON header of the binary form, which holds no
// tables.
func decodeHeader(p []byte, meter *budget.Meter) (fileJSON, error) {
	bad := func(format string, a ...any) (fileJSON, error) {
		return fileJSON{}, badBinary(format, a...)
	}
	doc, err := decodeDoc(p, meter)
	if errors.Is(err, ErrFormat) {
		return bad("header: %v", err)
	}
	if err != nil {
		return doc, err
	}
	if doc.DF != nil || doc.DFSparse != nil || doc.Vocabulary != nil && len(*doc.Vocabulary) != 0 {
		return bad("header holds the tables")
	}
	return doc, nil
}

// prebuilt is a vocabulary read from version 2 or 3 of the binary form: its
// terms, front-coded and checked, and its index.
type prebuilt struct {
	terms frontCoded
	index vocabIndex
}

// frontCoded is n checked front-coded terms of total bytes, as the binary
// form writes them.
type frontCoded struct {
	fc       []byte
	n, total int
}

// strings returns the terms, slices of one string.
func (v frontCoded) strings() []string {
	all := make([]byte, 0, v.total)
	out := make([]string, v.n)
	ends := make([]int, v.n)
	prev, q := 0, v.fc
	for i := range ends {
		k, a := uvarint(q)
		l, b := uvarint(q[a:])
		q = q[a+b:]
		start := len(all)
		all = append(all, all[prev:prev+int(k)]...)
		all = append(all, q[:l]...)
		q = q[l:]
		ends[i], prev = len(all), start
	}
	s := unsafe.String(unsafe.SliceData(all), len(all)) // all is not written again
	start := 0
	for i, e := range ends {
		out[i], start = s[start:e], e
	}
	return out
}

// decodeVocabulary reads the terms part and the index part of version 2
// or 3 (with its directory dir) of n terms of total bytes from p (nothing
// but two zero lengths with hashing) and returns them and the rest of p.
func decodeVocabulary(p []byte, n, total uint64, dir *termDir, vocab bool, ngrams int, meter *budget.Meter) (*prebuilt, []byte, error) {
	bad := func(format string, a ...any) (*prebuilt, []byte, error) {
		return nil, nil, badBinary(format, a...)
	}
	terms, index, p, ok := vocabularyParts(p)
	if !ok {
		return bad("terms or index part truncated")
	}
	if !vocab {
		if len(terms) != 0 || len(index) != 0 {
			return bad("terms or index for hashing")
		}
		return nil, p, nil
	}
	fc, err := inflateTerms(terms, index, n, total, dir, meter)
	if err != nil {
		return nil, nil, err
	}
	// The terms are made as strings only when asked for
	// (Featurizer.terms), from the checked fc.
	hs := make([]uint64, n)
	if err := hashTerms(fc, hs, total, ngrams, dir); err != nil {
		return nil, nil, err
	}
	t, err := indexFromOrder(index, hs)
	if err != nil {
		return nil, nil, err
	}
	return &prebuilt{terms: frontCoded{fc, int(n), int(total)}, index: t}, p, nil
}

// vocabularyParts splits the vocabulary of the binary form at p into its
// terms and index parts and returns them with what follows.
func vocabularyParts(p []byte) (terms, index, rest []byte, ok bool) {
	part := func() ([]byte, bool) {
		if len(p) < 8 {
			return nil, false
		}
		c := binary.LittleEndian.Uint64(p)
		if c > uint64(len(p)-8) {
			return nil, false
		}
		b := p[8 : 8+c]
		p = p[8+c:]
		return b, true
	}
	terms, ok = part()
	index, ok2 := part()
	return terms, index, p, ok && ok2
}

// inflateTerms checks the sizes of a vocabulary of n terms of total bytes
// whose parts are terms and index, and returns the terms inflated:
// front-coded, as appendFrontCoded writes them, not yet checked. With a
// directory (version 3) the terms part is a frame a block, inflated one
// after another; where each block begins among the inflated terms goes
// to dir.raw, for the terms to be checked against it.
func inflateTerms(terms, index []byte, n, total uint64, dir *termDir, meter *budget.Meter) ([]byte, error) {
	bad := func(format string, a ...any) ([]byte, error) {
		return nil, badBinary(format, a...)
	}
	// A term takes two bytes or more front-coded, and an index entry one
	// or more; the terms' bytes fit in an int32.
	fcMax := total + 2*binary.MaxVarintLen64*n
	if n > uint64(len(index)) || total > math.MaxInt32 || n > math.MaxInt32 {
		return bad("%d vocabulary terms of %d bytes with an index of %d bytes", n, total, len(index))
	}
	var zh zstd.Header
	var err error
	var sizes []int // with a directory, each block's inflated
	if dir != nil {
		sizes, zh.FrameContentSize, err = blockSizes(terms, dir, fcMax)
	} else if err = zh.Decode(terms); err == nil && !zh.HasFCS {
		err = errors.New("no content size")
	}
	fcLen := int(min(zh.FrameContentSize, math.MaxInt32))
	if err != nil || uint64(fcLen) > fcMax || uint64(fcLen) < 2*n || n == 0 && total != 0 || n > 0 && total/n > uint64(fcLen) {
		return bad("terms part of %d bytes for %d terms of %d bytes (%v)", fcLen, n, total, err)
	}
	slots := slotsFor(int(n))
	if err := meter.Take(budget.Add(budget.Add(int64(fcLen), int64(total)), budget.Add(budget.Mul(int64(n), 36), budget.Mul(int64(slots), 4))),
		fmt.Sprintf("a vocabulary of %d terms", n)); err != nil {
		return nil, err
	}
	// The decoder may allocate no more than the stated size, checked
	// above (or a MiB), whatever the frame holds; and the inflated terms
	// grow as the frames give them, never to the stated size before the
	// bytes are there, which a small file could state falsely.
	dec, err := newTermsDecoder(uint64(fcLen))
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	if dir != nil {
		// The blocks one after another, each checked against its
		// stated size; the terms are checked against the directory as
		// they are read.
		var fc []byte
		dir.raw = make([]int, len(sizes))
		for b, size := range sizes {
			dir.raw[b] = len(fc)
			out, err := inflateFrame(dec, blockFrame(terms, dir, b), fc, size)
			if err != nil {
				return bad("terms part, block %d: %v", b, err)
			}
			fc = out
		}
		return fc, nil
	}
	fc, err := inflateFrame(dec, terms, nil, fcLen)
	if err != nil {
		return bad("terms part: %v", err)
	}
	return fc, nil
}

// inflateFrame appends to dst what the zstd frame inflates to, which must
// be size bytes. Before it allocates for them it checks that the frame's
// blocks can hold them (frameBound): a frame whose header states far
// more than it holds, which a small file may do, is refused having cost
// nothing, and one that holds what it states costs what it holds.
func inflateFrame(dec *zstd.Decoder, frame, dst []byte, size int) ([]byte, error) {
	bound, err := frameBound(frame)
	if err != nil {
		return dst, err
	}
	if uint64(size) > bound {
		return dst, fmt.Errorf("%d bytes stated, but its blocks hold %d at most", size, bound)
	}
	out, err := dec.DecodeAll(frame, slices.Grow(dst, size))
	switch {
	case err != nil:
		return dst, err
	case len(out)-len(dst) > size:
		return dst, fmt.Errorf("more than the %d bytes stated", size)
	case len(out)-len(dst) < size:
		return dst, fmt.Errorf("%d bytes of the %d stated", len(out)-len(dst), size)
	}
	return out, nil
}

// zstdBlockMax is the most a compressed zstd block inflates to.
const zstdBlockMax = 128 << 10

// frameBound returns the most bytes the zstd frame can inflate to, read
// from its block headers without inflating anything: a raw block holds
// its size, a run-length block repeats one byte its size times, and a
// compressed block inflates to zstdBlockMax at most. It refuses a frame
// whose blocks run past its end or end without a last one.
func frameBound(frame []byte) (uint64, error) {
	var h zstd.Header
	if err := h.Decode(frame); err != nil {
		return 0, err
	}
	var bound uint64
	for at := h.HeaderSize; ; {
		if len(frame)-at < 3 {
			return 0, errors.New("a block header past the frame's end")
		}
		bh := uint32(frame[at]) | uint32(frame[at+1])<<8 | uint32(frame[at+2])<<16
		last, typ, size := bh&1 == 1, (bh>>1)&3, int(bh>>3)
		at += 3
		switch typ {
		case 0: // raw
			bound += uint64(size)
		case 1: // run-length: one byte stored
			bound += uint64(size)
			size = 1
		case 2: // compressed
			bound += zstdBlockMax
		default:
			return 0, errors.New("a block of the reserved type")
		}
		if size > len(frame)-at {
			return 0, errors.New("a block past the frame's end")
		}
		if at += size; last {
			return bound, nil
		}
	}
}

// newTermsDecoder returns a decoder of terms parts that allocates no more
// than limit bytes (or a MiB), whatever a frame holds.
func newTermsDecoder(limit uint64) (*zstd.Decoder, error) {
	limit = max(limit, 1<<20)
	return zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxMemory(limit), zstd.WithDecoderMaxWindow(limit))
}

// blockFrame returns the frame of block b in the terms part of version 3,
// terms, whose blocks dir locates (checked by blockSizes).
func blockFrame(terms []byte, dir *termDir, b int) []byte {
	end := len(terms)
	if b+1 < len(dir.starts) {
		end = dir.starts[b+1]
	}
	return terms[dir.starts[b]:end]
}

// blockSizes checks that the blocks dir locates lie in the terms part of
// version 3, terms, and begin with a frame header that states a content
// size, and returns those sizes and their sum, which must not pass limit.
func blockSizes(terms []byte, dir *termDir, limit uint64) ([]int, uint64, error) {
	nb := len(dir.starts)
	if nb == 0 && len(terms) != 0 || nb > 0 && dir.starts[nb-1] >= len(terms) {
		return nil, 0, fmt.Errorf("%d blocks in a terms part of %d bytes", nb, len(terms))
	}
	sizes := make([]int, nb)
	var sum uint64
	for b := range sizes {
		var zh zstd.Header
		if err := zh.Decode(blockFrame(terms, dir, b)); err != nil || !zh.HasFCS {
			return nil, 0, fmt.Errorf("block %d: no frame that states its size (%v)", b, err)
		}
		if sum += zh.FrameContentSize; zh.FrameContentSize > limit || sum > limit {
			return nil, 0, fmt.Errorf("block %d: inflated terms past %d bytes", b, limit)
		}
		sizes[b] = int(zh.FrameContentSize)
	}
	return sizes, sum, nil
}

// subsetVocabulary reads the vocabulary of n terms of total bytes at p
// and returns those of its terms that are in cands (sorted and distinct)
// with their features, and what follows the vocabulary. It checks what
// hashTerms checks of the front coding and the order, but hashes nothing.
func subsetVocabulary(p []byte, n, total uint64, dir *termDir, cands []string, meter *budget.Meter) (vocab []string, kept []int32, rest []byte, err error) {
	bad := func(format string, a ...any) ([]string, []int32, []byte, error) {
		return nil, nil, nil, badBinary(format, a...)
	}
	terms, index, rest, ok := vocabularyParts(p)
	if !ok {
		return bad("terms or index part truncated")
	}
	fc, err := inflateTerms(terms, index, n, total, dir, meter)
	if err != nil {
		return nil, nil, nil, err
	}
	vocab, kept, err = subsetVocabularyFC(fc, n, total, dir, cands)
	return vocab, kept, rest, err
}

// subsetVocabularyFC is subsetVocabulary of the inflated terms fc.
func subsetVocabularyFC(fc []byte, n, total uint64, dir *termDir, cands []string) (vocab []string, kept []int32, err error) {
	kept = []int32{}
	cs := newCandidates(cands)
	tr := newTermReader(fc, total, dir)
	for i := range int(n) {
		if _, err := tr.next(i); err != nil {
			return nil, nil, err
		}
		if cs.done() {
			continue
		}
		if cand, ok := cs.match(tr.cur); ok {
			vocab = append(vocab, cand)
			kept = append(kept, int32(i))
		}
	}
	if err := tr.end(); err != nil {
		return nil, nil, err
	}
	return vocab, kept, nil
}

// candidates walks sorted, distinct candidate terms along the terms of a
// sorted vocabulary, to find those it holds. Most terms differ from the
// next candidate within their first 8 bytes: those, as a big-endian
// number, order them without a comparison of the whole strings.
type candidates struct {
	list []string
	c    int    // the next candidate
	key  uint64 // prefixKey of list[c]
}

func newCandidates(list []string) candidates {
	cs := candidates{list: list}
	if len(list) > 0 {
		cs.key = prefixKey([]byte(list[0]))
	}
	return cs
}

// done reports whether no candidate is left.
func (cs *candidates) done() bool { return cs.c == len(cs.list) }

// match passes the candidates before term, the vocabulary's next term,
// and reports whether the next one is term (cand), passing it too.
func (cs *candidates) match(term []byte) (cand string, ok bool) {
	tk := prefixKey(term)
	for cs.c < len(cs.list) && (cs.key < tk || cs.key == tk && cs.list[cs.c] < string(term)) {
		cs.next()
	}
	if cs.c < len(cs.list) && cs.key == tk && cs.list[cs.c] == string(term) {
		cand = cs.list[cs.c]
		cs.next()
		return cand, true
	}
	return "", false
}

// next passes one candidate.
func (cs *candidates) next() {
	if cs.c++; cs.c < len(cs.list) {
		cs.key = prefixKey([]byte(cs.list[cs.c]))
	}
}

// termDir is the directory of a vocabulary in version 3 of the binary
// form: its terms in blocks of block, block b beginning at starts[b] in the
// terms part, with its first term first[b] and its first document
// frequency at dfStarts[b] in theirs (all 0 unless they are dense).
type termDir struct {
	block            int
	starts, dfStarts []int
	first            []string
	// raw[b] is where block b begins among the terms inflated whole, as
	// inflateTerms finds it.
	raw []int
}

// parseDirectory reads the directory p of a vocabulary of n terms in
// blocks of block (vocab false: hashing, which has none) and checks what
// it can alone: the number of entries, offsets that increase, and first
// terms sorted and distinct. The terms and the document frequencies are
// checked against it as they are read.
func parseDirectory(p []byte, n, block uint64, vocab bool, meter *budget.Meter) (*termDir, error) {
	bad := func(format string, a ...any) (*termDir, error) {
		return nil, fmt.Errorf("%w: binary form: directory: "+format, append([]any{ErrFormat}, a...)...)
	}
	if !vocab {
		if block != 0 || len(p) != 0 {
			return bad("block size %d and %d bytes for hashing", block, len(p))
		}
		return nil, nil
	}
	if block == 0 || block > maxVocabBlock || block&(block-1) != 0 {
		return bad("block size %d is not a power of two up to %d", block, maxVocabBlock)
	}
	// An entry takes three bytes or more.
	nb := (n + block - 1) / block
	if nb > uint64(len(p))/3 && nb > 0 || nb == 0 && len(p) != 0 {
		return bad("%d blocks in %d bytes", nb, len(p))
	}
	if err := meter.Take(budget.Add(budget.Mul(int64(nb), 40), int64(len(p))), fmt.Sprintf("a directory of %d blocks", nb)); err != nil {
		return nil, err
	}
	d := &termDir{block: int(block), starts: make([]int, nb), dfStarts: make([]int, nb), first: make([]string, nb)}
	all := string(p) // the first terms are slices of one string
	off := 0
	var start, df uint64
	for b := range int(nb) {
		var v [3]uint64
		for j := range v {
			x, k := uvarint(p[off:])
			if k <= 0 || x > math.MaxInt32 {
				return bad("entry %d: bad number", b)
			}
			v[j], off = x, off+k
		}
		if b == 0 && (v[0] != 0 || v[1] != 0) || b > 0 && v[0] == 0 {
			return bad("entry %d: offsets that do not increase", b)
		}
		if v[2] > uint64(len(p)-off) {
			return bad("entry %d: truncated", b)
		}
		start, df = start+v[0], df+v[1]
		if start > math.MaxInt32 || df > math.MaxInt32 {
			return bad("entry %d: offsets out of range", b)
		}
		d.starts[b], d.dfStarts[b] = int(start), int(df)
		d.first[b] = all[off : off+int(v[2])]
		off += int(v[2])
		if b > 0 && d.first[b] <= d.first[b-1] {
			return bad("entry %d: first terms not sorted and distinct", b)
		}
	}
	if off != len(p) {
		return bad("%d bytes after its entries", len(p)-off)
	}
	return d, nil
}

// prefixKey returns the first 8 bytes of b, padded with zeros, as a
// big-endian number: keys that differ order their strings as the strings
// compare.
func prefixKey(b []byte) uint64 {
	if len(b) >= 8 {
		return binary.BigEndian.Uint64(b)
	}
	var k [8]byte
	copy(k[:], b)
	return binary.BigEndian.Uint64(k[:])
}

// docTerms returns the distinct terms of docs, n-grams of up to ngrams
// words, as a vocabulary spells them, sorted.
func docTerms(docs []string, ngrams int) []string {
	tw := termWalker{w: gramWalker{ngrams: ngrams}}
	seen := make(map[uint64]struct{})
	var out []string
	for _, d := range docs {
		tw.walk(d, func(h uint64, end int32, n int) {
			if _, ok := seen[h]; !ok {
				seen[h] = struct{}{}
				out = append(out, tw.toks.text(end, n))
			}
		})
	}
	slices.Sort(out)
	return out
}

// hashTerms reads the len(hs) front-coded terms of total bytes in fc,
// checks that they are sorted and distinct, with at most ngrams words
// each, and sets hs[i] to term i's hash as the encoder hashes its words
// and n-grams. Each term is made in one scratch buffer from the one
// before; a word of the term before that lies wholly in the shared prefix
// (its space too) is the same word, so its hash is kept rather than
// computed again: in a sorted vocabulary of n-grams most terms share their
// first word with the term before.
func hashTerms(fc []byte, hs []uint64, total uint64, ngrams int, dir *termDir) error {
	bad := func(format string, a ...any) error {
		return badBinary(format, a...)
	}
	// A header of more n-grams than any featurizer makes is refused
	// once read whole; its terms may have no more words than that.
	limit := min(max(ngrams, 0), maxNGrams)
	// The words of the term in tr.cur: their hashes, and where each ends.
	var wh [maxNGrams]uint64
	var we [maxNGrams]int
	nw := 0
	tr := newTermReader(fc, total, dir)
	for i := range hs {
		k, err := tr.next(i)
		if err != nil {
			return err
		}
		cur := tr.cur
		// Keep the words that end, with their space, within the prefix.
		kept := 0
		for kept < nw && we[kept] < int(k) {
			kept++
		}
		nw = kept
		start := 0
		if kept > 0 {
			start = we[kept-1] + 1
		}
		// The term before has no space from start to the end of the
		// prefix (one there would end a word kept), so the spaces are
		// looked for in the new bytes only.
		for from := max(start, int(k)); ; from = start {
			end := from
			for end < len(cur) && cur[end] != ' ' {
				end++
			}
			if nw == limit {
				return bad("vocabulary term %d has more than ngrams = %d words", i, ngrams)
			}
			wh[nw], we[nw] = xxhash.Sum64(cur[start:end]), end
			nw++
			if end == len(cur) {
				break
			}
			start = end + 1
		}
		hs[i] = wh[0]
		if nw > 1 {
			hs[i] = gramHash(wh[:nw])
		}
	}
	return tr.end()
}

// termReader reads front-coded terms, as appendFrontCoded writes them,
// checking that they are sorted and distinct and hold no more bytes than
// total, and with a directory, that its blocks begin where it says.
type termReader struct {
	q     []byte // what is left to read
	cur   []byte // the term read last
	sum   uint64 // the bytes of the terms read
	total uint64
	// With a directory: the length of all the terms read from, and the
	// next term that begins a block (−1 without).
	dir   *termDir
	size  int
	block int
}

// newTermReader returns a reader of the front-coded terms fc of total
// bytes, from their first, in the blocks of dir (nil: none).
func newTermReader(fc []byte, total uint64, dir *termDir) termReader {
	tr := termReader{q: fc, total: total, dir: dir, size: len(fc), block: -1}
	if dir != nil {
		tr.block = 0
	}
	return tr
}

// next reads term i into tr.cur and returns the length of the prefix it
// shares with the term before.
func (tr *termReader) next(i int) (int, error) {
	if i == tr.block {
		if err := tr.blockStart(i); err != nil {
			return 0, err
		}
	}
	k, a := uvarint(tr.q)
	if a <= 0 {
		return 0, termError(i, "bad prefix length")
	}
	q := tr.q[a:]
	l, b := uvarint(q)
	if b <= 0 || l > uint64(len(q)-b) {
		return 0, termError(i, "bad length")
	}
	q = q[b:]
	if k > uint64(len(tr.cur)) || tr.sum+k+l > tr.total {
		return 0, termError(i, "its prefix or bytes past the vocabulary's")
	}
	rest := q[:l]
	tr.q = q[l:]
	if i > 0 {
		// The term follows the one before when its rest follows what
		// the one before has after the shared prefix; the first bytes
		// usually differ and decide.
		old := tr.cur[k:]
		if len(rest) == 0 || len(old) > 0 && rest[0] <= old[0] {
			if bytes.Compare(rest, old) <= 0 {
				return 0, termError(i, "not sorted and distinct")
			}
		}
	}
	tr.cur = append(tr.cur[:int(k)], rest...)
	tr.sum += k + l
	return int(k), nil
}

// blockStart checks that term i, the next, begins a block where the
// directory says, shares no prefix and is the block's first term there.
//
//go:noinline
func (tr *termReader) blockStart(i int) error {
	d := tr.dir
	b := i / d.block
	k, a := uvarint(tr.q)
	l, c := uvarint(tr.q[max(a, 0):])
	if tr.size-len(tr.q) != d.raw[b] || a <= 0 || k != 0 || c <= 0 || l > uint64(len(tr.q)-a-c) ||
		string(tr.q[a+c:a+c+int(l)]) != d.first[b] {
		return termError(i, "not the first term of its block as the directory has it")
	}
	tr.block += d.block
	return nil
}

// termError is the error of term i of a vocabulary, kept out of
// termReader.next so that its loop stays small.
//
//go:noinline
func termError(i int, what string) error {
	return fmt.Errorf("%w: binary form: vocabulary term %d: %s", ErrFormat, i, what)
}

// end checks that the terms read hold total bytes and nothing follows.
func (tr *termReader) end() error {
	if tr.sum != tr.total || len(tr.q) != 0 {
		return fmt.Errorf("%w: binary form: terms of %d bytes, %d stated, %d bytes after them", ErrFormat, tr.sum, tr.total, len(tr.q))
	}
	return nil
}

// appendFrontCoded appends the terms to fc front-coded, as the binary form
// stores them: for each, the length of the prefix it shares with the
// term before, the length of the rest, and the rest.
func appendFrontCoded(fc []byte, terms []string) []byte {
	prev := ""
	for _, t := range terms {
		k := 0
		for k < len(prev) && k < len(t) && prev[k] == t[k] {
			k++
		}
		fc = binary.AppendUvarint(fc, uint64(k))
		fc = binary.AppendUvarint(fc, uint64(len(t)-k))
		fc = append(fc, t[k:]...)
		prev = t
	}
	return fc
}

// appendFrontCodedBlocks is appendFrontCoded with the first term of each
// block of block terms sharing no prefix (none with block 0), and returns
// where in fc each block begins.
func appendFrontCodedBlocks(fc []byte, terms []string, block int) ([]byte, []int) {
	if block == 0 {
		return appendFrontCoded(fc, terms), nil
	}
	var starts []int
	for b := 0; b < len(terms); b += block {
		starts = append(starts, len(fc))
		fc = appendFrontCoded(fc, terms[b:min(b+block, len(terms))])
	}
	return fc, starts
}

// appendUvarintBlocks appends v as appendUvarints does, not by distance,
// and returns where in out, past its length on entry, each block of block
// values begins.
func appendUvarintBlocks(out []byte, v []int32, block int) ([]byte, []int) {
	var starts []int
	base := len(out)
	for b := 0; b < len(v); b += block {
		starts = append(starts, len(out)-base)
		out = appendUvarints(out, v[b:min(b+block, len(v))], false)
	}
	return out, starts
}

// newTermDir returns the directory of terms in blocks of block, which
// begin at starts in the terms part and at dfStarts in the document
// frequencies (nil: none dense).
func newTermDir(terms []string, block int, starts, dfStarts []int) *termDir {
	d := &termDir{block: block, starts: starts, dfStarts: dfStarts, first: make([]string, len(starts))}
	if dfStarts == nil {
		d.dfStarts = make([]int, len(starts))
	}
	for b := range starts {
		d.first[b] = terms[b*block]
	}
	return d
}

// appendTo appends the directory as version 3 of the binary form holds it.
func (d *termDir) appendTo(out []byte) []byte {
	prev, prevDF := 0, 0
	for b, s := range d.starts {
		out = binary.AppendUvarint(out, uint64(s-prev))
		out = binary.AppendUvarint(out, uint64(d.dfStarts[b]-prevDF))
		prev, prevDF = s, d.dfStarts[b]
		out = binary.AppendUvarint(out, uint64(len(d.first[b])))
		out = append(out, d.first[b]...)
	}
	return out
}

// uvarint is binary.Uvarint with the one-byte case, the usual one for
// the lengths of terms and for document frequencies, inlined.
func uvarint(p []byte) (uint64, int) {
	if len(p) > 0 && p[0] < 0x80 {
		return uint64(p[0]), 1
	}
	return binary.Uvarint(p)
}

// indexFromOrder makes the hash index of the terms whose hashes are hs
// (feature j's is hs[j]) from the index part p: the features in the order
// of their hashes, which must increase. Taken in that order the keys'
// first slots increase, so each goes to its first slot or the one after
// the key before, and the table is filled from one end to the other;
// keys that run past the end go to the first free slots from the start,
// as probing wraps there. Lookups then find every key as if it had been
// inserted one by one. Each feature must come once: as the hashes are a
// function of the features and must increase, an entry below n that came
// before would fail that check, so n entries below n that pass it are
// every feature once.
func indexFromOrder(p []byte, hs []uint64) (vocabIndex, error) {
	bad := func(format string, a ...any) (vocabIndex, error) {
		return vocabIndex{}, fmt.Errorf("%w: binary form: index: "+format, append([]any{ErrFormat}, a...)...)
	}
	n := len(hs)
	t := newVocabIndex(hs)
	var wrapped []int32
	last := len(t.slots) - 1
	next := 0 // the first slot past those taken
	prev := uint64(0)
	// The entries go by blocks: decoded, then their hashes loaded, then
	// placed. The loads, at random places in hs, wait on nothing else in
	// their loop, so the processor overlaps their cache misses; and the
	// features need no array of their own.
	var fb [1024]int32
	var hb [len(fb)]uint64
	for i0 := 0; i0 < n; i0 += len(fb) {
		m := min(len(fb), n-i0)
		for i := range fb[:m] {
			v, a := uvarint(p)
			if a <= 0 || v >= uint64(n) {
				return bad("entry %d: not a feature below %d", i0+i, n)
			}
			p = p[a:]
			fb[i] = int32(v)
		}
		for i, v := range fb[:m] {
			hb[i] = hs[v]
		}
		for i, h := range hb[:m] {
			v := fb[i]
			if i0+i > 0 && h <= prev {
				return bad("entry %d: the hash of feature %d is not above the one before (out of order, repeated, or terms that collide)", i0+i, v)
			}
			prev = h
			j := max(int(h>>t.shift), next)
			if j > last {
				wrapped = append(wrapped, v)
				continue
			}
			t.slots[j] = t.slot(h, v)
			next = j + 1
		}
	}
	if len(p) != 0 {
		return bad("%d bytes after it", len(p))
	}
	j := 0
	for _, v := range wrapped {
		for t.slots[j] != 0 {
			j++
		}
		t.slots[j] = t.slot(hs[v], v)
	}
	return t, nil
}

// uvarints reads n values appendUvarints wrote, each at most MaxInt32,
// and returns them (with keep not nil, only values keep[0], keep[1], …,
// keep increasing) and the rest of p.
//
// With a directory, of n dense frequencies, it checks that each block of
// them begins where the directory says.
func uvarints(p []byte, n int, delta bool, keep []int32, dir *termDir) ([]int32, []byte, error) {
	size := n
	base := len(p)
	block := -1 // the next value that begins a block
	if dir != nil {
		block = 0
	}
	if keep != nil {
		size = len(keep)
	}
	v := make([]int32, size)
	prev := int64(-1)
	next := 0 // the next of keep
	for i := range n {
		if i == block {
			if base-len(p) != dir.dfStarts[i/dir.block] {
				return nil, nil, fmt.Errorf("%w: binary form: document frequency %d: not where the directory has its block begin", ErrFormat, i)
			}
			block += dir.block
		}
		u, k := uvarint(p)
		if k <= 0 {
			return nil, nil, fmt.Errorf("%w: binary form: document frequency %d of %d: bad number", ErrFormat, i, n)
		}
		p = p[k:]
		x := int64(u)
		if delta {
			x = prev + int64(u)
			prev = x
		}
		if u > math.MaxInt32 || x > math.MaxInt32 {
			return nil, nil, fmt.Errorf("%w: binary form: document frequency %d of %d out of range", ErrFormat, i, n)
		}
		switch {
		case keep == nil:
			v[i] = int32(x)
		case next < len(keep) && int(keep[next]) == i:
			v[next] = int32(x)
			next++
		}
	}
	return v, p, nil
}
