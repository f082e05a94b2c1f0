package text

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"unsafe"

	"github.com/hyperplane-ml/hyperplane/sparse/budget"
)

// The binary form of a Featurizer, little-endian:
//
//	offset  size  field
//	0       4     magic "HPTF"
//	4       2     format version (uint16, 1)
//	6       2     flags (uint16, 0)
//	8       4     header length H (uint32)
//	12      H     the JSON document WriteTo writes, without the vocabulary
//	              terms (an empty list where there is a vocabulary) and
//	              without the document frequencies
//	        8     vocabulary terms N (uint64; 0 with hashing)
//	        8     their bytes in all, T (uint64)
//	        ·     N terms, front-coded as the list is sorted: the length
//	              of the prefix shared with the term before (uvarint), the
//	              length of the rest (uvarint) and the rest's bytes
//	        1     document frequencies: 0 none, 1 dense, 2 sparse
//	        8     entries D (uint64)
//	        ·     dense: the D frequencies (uvarint each); sparse: the D
//	              features, each as its distance from the one before
//	              (the first from −1), then their D frequencies (uvarint)
//
// It holds what the JSON document holds and is checked as strictly, but
// reads without parsing a number or a quoted string per term, which is
// what made loading a large vocabulary slow; it is about as small as the
// JSON document compressed, so it is stored as it is.
const (
	binMagic   = "HPTF"
	binVersion = 1
)

// MarshalBinary returns f in a compact binary form, the same content as
// WriteTo's JSON document; UnmarshalBinary reads it. A text model file
// stores its featurizer this way.
func (f *Featurizer) MarshalBinary() ([]byte, error) {
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
	size := 12 + len(hdr) + 8 + 8 + 1 + 8 + 2*binary.MaxVarintLen32*(len(dense)+2*dfLen(ds))
	total := 0
	if vocab != nil {
		for _, t := range *vocab {
			total += len(t)
		}
		size += total + 2*binary.MaxVarintLen64*len(*vocab)
	}
	out := make([]byte, 0, size)
	out = append(out, binMagic...)
	out = binary.LittleEndian.AppendUint16(out, binVersion)
	out = binary.LittleEndian.AppendUint16(out, 0)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(hdr)))
	out = append(out, hdr...)
	if vocab == nil {
		out = binary.LittleEndian.AppendUint64(out, 0)
		out = binary.LittleEndian.AppendUint64(out, 0)
	} else {
		out = binary.LittleEndian.AppendUint64(out, uint64(len(*vocab)))
		out = binary.LittleEndian.AppendUint64(out, uint64(total))
		prev := ""
		for _, t := range *vocab {
			k := 0
			for k < len(prev) && k < len(t) && prev[k] == t[k] {
				k++
			}
			out = binary.AppendUvarint(out, uint64(k))
			out = binary.AppendUvarint(out, uint64(len(t)-k))
			out = append(out, t[k:]...)
			prev = t
		}
	}
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
	g, err := decodeBinary(data)
	if err != nil {
		return err
	}
	f.cfg, f.dim, f.mask, f.vocab, f.index = g.cfg, g.dim, g.mask, g.vocab, g.index
	f.nDocs, f.df, f.idf, f.labels = g.nDocs, g.df, g.idf, g.labels
	return nil
}

// isBinary reports whether data begins as MarshalBinary's form does, to
// tell it from WriteTo's JSON document.
func isBinary(data []byte) bool { return bytes.HasPrefix(data, []byte(binMagic)) }

func decodeBinary(data []byte) (*Featurizer, error) {
	bad := func(format string, a ...any) (*Featurizer, error) {
		return nil, fmt.Errorf("%w: binary form: "+format, append([]any{ErrFormat}, a...)...)
	}
	if len(data) < 12 || !isBinary(data) {
		return bad("no %q header", binMagic)
	}
	if v := binary.LittleEndian.Uint16(data[4:]); v != binVersion {
		return bad("version %d, this build reads %d", v, binVersion)
	}
	if fl := binary.LittleEndian.Uint16(data[6:]); fl != 0 {
		return bad("unknown flags %#x", fl)
	}
	p := data[12:]
	h := uint64(binary.LittleEndian.Uint32(data[8:]))
	if h > uint64(len(p)) {
		return bad("truncated header")
	}
	dec := json.NewDecoder(bytes.NewReader(p[:h]))
	dec.DisallowUnknownFields()
	var doc fileJSON
	if err := dec.Decode(&doc); err != nil {
		return bad("header: %v", err)
	}
	if dec.More() {
		return bad("header: data after its JSON document")
	}
	if doc.DF != nil || doc.DFSparse != nil || doc.Vocabulary != nil && len(*doc.Vocabulary) != 0 {
		return bad("header holds the tables")
	}
	p = p[h:]
	u64 := func() (uint64, bool) {
		if len(p) < 8 {
			return 0, false
		}
		v := binary.LittleEndian.Uint64(p)
		p = p[8:]
		return v, true
	}

	// The vocabulary: every term's string is a slice of one string of
	// all their bytes, so reading allocates a few times, not once a term.
	n, ok := u64()
	total, ok2 := u64()
	if !ok || !ok2 {
		return bad("truncated before the vocabulary")
	}
	if n > 0 && doc.Vocabulary == nil {
		return bad("%d vocabulary terms for hashing", n)
	}
	// A term takes two bytes or more, and is no longer than the term
	// before and its own suffix: no longer than all the suffixes.
	if n > uint64(len(p))/2 || total > n*uint64(len(p)) {
		return bad("%d vocabulary terms of %d bytes in %d bytes", n, total, len(p))
	}
	if doc.Vocabulary != nil {
		if err := budget.Check(0, budget.Mul(int64(n), 24)+int64(total), fmt.Sprintf("a vocabulary of %d terms", n)); err != nil {
			return nil, err
		}
		all := make([]byte, 0, total)
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
		doc.Vocabulary = &vocab
	}

	if len(p) < 9 {
		return bad("truncated before the document frequencies")
	}
	kind := p[0]
	p = p[1:]
	d, _ := u64()
	if kind > 2 || kind == 0 && d != 0 || d > uint64(len(p)) {
		return bad("document frequencies (kind %d, %d entries) in %d bytes", kind, d, len(p))
	}
	var err error
	switch kind {
	case 1:
		doc.DF, p, err = uvarints(p, int(d), false)
	case 2:
		ds := new(dfSparse)
		if ds.Features, p, err = uvarints(p, int(d), true); err == nil {
			ds.Counts, p, err = uvarints(p, int(d), false)
		}
		doc.DFSparse = ds
	}
	if err != nil {
		return nil, err
	}
	if len(p) != 0 {
		return bad("%d bytes after the document frequencies", len(p))
	}
	return build(&doc)
}

// uvarints reads n values appendUvarints wrote, each at most MaxInt32,
// and returns them and the rest of p.
func uvarints(p []byte, n int, delta bool) ([]int32, []byte, error) {
	v := make([]int32, n)
	prev := int64(-1)
	for i := range v {
		u, k := binary.Uvarint(p)
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
		v[i] = int32(x)
	}
	return v, p, nil
}
