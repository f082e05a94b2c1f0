package text

import (
	"slices"
	"strconv"
	"strings"
)

// maxLabelsPerDoc bounds the labels of one multi-label document, so that
// a malformed line cannot make the reader hold an unbounded list (a
// line is bounded by MaxLineBytes already; this names the problem).
const maxLabelsPerDoc = 1 << 16

// parseLabelList reads the JSON array at b[i] (b[i] == '[') as a list of
// labels: strings or numbers, each non-empty, the repeats of a label
// dropped. It returns the index just past the closing bracket.
func (p *jsonParser) parseLabelList(b []byte, i int) (int, []string, *lineError) {
	var labels []string
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, labels, nil
	}
	for {
		if i >= len(b) {
			return 0, nil, errAt(i, ErrSyntax, "unexpected end of line inside the label array")
		}
		var v string
		switch c := b[i]; {
		case c == '"':
			end, flags, le := scanString(b, i)
			if le != nil {
				return 0, nil, le
			}
			var s []byte
			s, p.labelBuf = stringValue(b[i+1:end-1], flags, p.labelBuf)
			if len(s) == 0 {
				return 0, nil, errAt(i, ErrLabel, "empty label in the label array")
			}
			v = string(s)
			i = end
		case c == '-' || c >= '0' && c <= '9':
			end, le := scanNumber(b, i)
			if le != nil {
				return 0, nil, le
			}
			v = string(b[i:end])
			i = end
		default:
			if _, le := p.skipValue(b, i); le != nil {
				return 0, nil, le
			}
			return 0, nil, errAt(i, ErrFieldType, "a label in the label array must be a string or a number, found "+describe(b, i))
		}
		if len(labels) == maxLabelsPerDoc {
			return 0, nil, errAt(i, ErrLabel, "more than "+strconv.Itoa(maxLabelsPerDoc)+" labels in one document")
		}
		if !slices.Contains(labels, v) {
			labels = append(labels, v)
		}
		i = skipSpace(b, i)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
			continue
		}
		if i < len(b) && b[i] == ']' {
			return i + 1, labels, nil
		}
		return 0, nil, errAt(i, ErrSyntax, "expected ',' or ']' in the label array, found "+describe(b, i))
	}
}

// splitLabelList splits a TSV label field read with MultiLabel: labels
// separated by commas, spaces around each dropped, repeats dropped; an
// empty field (or "-") is a document with no label.
func splitLabelList(field string) []string {
	field = strings.TrimSpace(field)
	if field == "" || field == "-" {
		return []string{}
	}
	var out []string
	for _, l := range strings.Split(field, ",") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	if out == nil {
		out = []string{}
	}
	return out
}
