package text

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/hyperplane-ml/hyperplane/sparse/budget"
)

// docIn is fileJSON as it is read: its arrays are kept raw until their
// elements are counted against the memory budget, and then decoded into
// slices made at their final size. The raw fields shadow fileJSON's of
// the same names (encoding/json prefers the shallower field); every other
// field, one added later included, is decoded into fileJSON itself.
type docIn struct {
	fileJSON
	Vocabulary json.RawMessage `json:"vocabulary,omitempty"`
	DF         json.RawMessage `json:"df,omitempty"`
	DFSparse   json.RawMessage `json:"df_sparse,omitempty"`
	Labels     struct {
		labelsJSON
		Names json.RawMessage `json:"names"`
	} `json:"labels"`
}

type dfSparseIn struct {
	Features json.RawMessage `json:"features"`
	Counts   json.RawMessage `json:"counts"`
}

// decodeDoc decodes the JSON document data, the whole of the input, into
// a fileJSON, counting what it builds against meter: the raw arrays first
// (at most data's size), then each array's elements before the slice that
// holds them is made. encoding/json decoding straight into fileJSON grows
// each slice as elements arrive, and a document of a few hundred MB
// listing tens of millions of one-letter terms so took gigabytes, 16 bytes
// of string header a term, before any check could see it.
func decodeDoc(data []byte, meter *budget.Meter) (fileJSON, error) {
	var doc fileJSON
	var in docIn
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	// The decoder's copy of the document, and the arrays kept raw, at
	// most the document's size each.
	if err := meter.Take(budget.Mul(int64(len(data)), 2), "decoding the featurizer"); err != nil {
		return doc, err
	}
	if err := dec.Decode(&in); err != nil {
		return doc, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return doc, fmt.Errorf("%w: data after the JSON document", ErrFormat)
	}
	doc = in.fileJSON
	doc.Vocabulary, doc.DF, doc.DFSparse = nil, nil, nil
	doc.Labels = in.Labels.labelsJSON
	doc.Labels.Names = nil
	var err error
	if !isNull(in.Vocabulary) {
		var v []string
		if v, err = decodeArray[string](in.Vocabulary, meter, "vocabulary"); err != nil {
			return doc, err
		}
		doc.Vocabulary = &v
	}
	if !isNull(in.DF) {
		if doc.DF, err = decodeArray[int32](in.DF, meter, "df"); err != nil {
			return doc, err
		}
	}
	if !isNull(in.DFSparse) {
		var ds dfSparseIn
		d := json.NewDecoder(bytes.NewReader(in.DFSparse))
		d.DisallowUnknownFields()
		if err := d.Decode(&ds); err != nil {
			return doc, fmt.Errorf("%w: df_sparse: %v", ErrFormat, err)
		}
		doc.DFSparse = new(dfSparse)
		if !isNull(ds.Features) {
			if doc.DFSparse.Features, err = decodeArray[int32](ds.Features, meter, "df_sparse features"); err != nil {
				return doc, err
			}
		}
		if !isNull(ds.Counts) {
			if doc.DFSparse.Counts, err = decodeArray[int32](ds.Counts, meter, "df_sparse counts"); err != nil {
				return doc, err
			}
		}
	}
	if !isNull(in.Labels.Names) {
		if doc.Labels.Names, err = decodeArray[string](in.Labels.Names, meter, "label names"); err != nil {
			return doc, err
		}
	}
	return doc, nil
}

// isNull reports whether raw is absent or JSON null, which leave a field
// of fileJSON nil.
func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(raw) == "null"
}

// decodeArray decodes raw, a JSON value that encoding/json has checked,
// into a slice of T made at its length, once what the slice and its
// strings take is counted against meter. A value that is not an array of
// T is an error wrapping ErrFormat.
func decodeArray[T string | int32](raw json.RawMessage, meter *budget.Meter, what string) ([]T, error) {
	n, strBytes, ok := scanArray(raw)
	if !ok {
		return nil, fmt.Errorf("%w: %s is not an array", ErrFormat, what)
	}
	var zero T
	need := budget.Mul(int64(n), 4)
	if _, isString := any(zero).(string); isString {
		need = budget.Add(budget.Mul(int64(n), 16), strBytes)
	}
	if err := meter.Take(need, fmt.Sprintf("%s of %d entries", what, n)); err != nil {
		return nil, err
	}
	// encoding/json appends to a slice's backing array while it has room:
	// made at n, it grows no more.
	out := make([]T, 0, n)
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrFormat, what, err)
	}
	if len(out) != n {
		return nil, fmt.Errorf("%w: %s: %d entries decoded, %d counted", ErrFormat, what, len(out), n)
	}
	return out, nil
}

// scanArray counts the elements of raw, a valid JSON value, when it is an
// array, and bounds the bytes its string elements decode to, allocation
// rounding included: a byte at or above 0x80 counts 3 (an invalid one
// decodes to U+FFFD), an escape no more than it is written with.
func scanArray(raw []byte) (n int, strBytes int64, ok bool) {
	i := 0
	for i < len(raw) && isSpace(raw[i]) {
		i++
	}
	if i == len(raw) || raw[i] != '[' {
		return 0, 0, false
	}
	depth, empty := 0, true
	for ; i < len(raw); i++ {
		switch c := raw[i]; c {
		case '"':
			var b int64
			for i++; i < len(raw) && raw[i] != '"'; i++ {
				switch {
				case raw[i] == '\\':
					i++
					b++
				case raw[i] >= 0x80:
					b += 3
				default:
					b++
				}
			}
			strBytes += (b + 7) &^ 7
			empty = false
		case '[', '{':
			if depth > 0 {
				empty = false
			}
			depth++
		case ']', '}':
			depth--
		case ',':
			if depth == 1 {
				n++
			}
		default:
			if !isSpace(c) {
				empty = false
			}
		}
	}
	if !empty {
		n++
	}
	return n, strBytes, true
}
