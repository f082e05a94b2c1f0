package sparse

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
)

// lineParser parses one LIBSVM line. ReadLIBSVM's workers and Scanner share
// it, so both accept and reject exactly the same inputs.
type lineParser struct {
	limit     uint64 // largest 1-based index accepted
	limitWhat string // what limit is, for messages
	maxNNZ    int
}

func newLineParser(o *ReadOptions) lineParser {
	p := lineParser{maxNNZ: o.MaxRowNNZ}
	switch {
	case o.Dim > 0:
		p.limit, p.limitWhat = uint64(o.Dim), "the dimension "+strconv.Itoa(o.Dim)
	case o.MaxDim < math.MaxInt32:
		p.limit, p.limitWhat = uint64(o.MaxDim), "MaxDim "+strconv.Itoa(o.MaxDim)
	default:
		p.limit, p.limitWhat = math.MaxInt32, "the int32 range"
	}
	return p
}

// lineError is a parse error located within one line; the caller adds the
// file name and line number.
type lineError struct {
	col int // 1-based
	msg string
	err error
}

// row is the parsed content of one line, apart from its features.
type row struct {
	label  float64
	qid    int64
	hasQID bool
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

// parseLine parses line (without its '\n'; a trailing '\r' is allowed),
// appending the features, as 0-based indices, to ind and val. It reports
// blank = true for a line holding only blanks or a comment, which is not a
// row. On error the appended features are to be discarded.
func (p *lineParser) parseLine(line []byte, ind []int32, val []float32) (r row, indOut []int32, valOut []float32, blank bool, le *lineError) {
	n := len(line)
	if n > 0 && line[n-1] == '\r' {
		n--
		line = line[:n]
	}
	i := 0
	for i < n && isBlank(line[i]) {
		i++
	}
	if i == n || line[i] == '#' {
		return r, ind, val, true, nil
	}

	// Label.
	f, end, st := parseNumber(line, i)
	if st == numOK && end < n && !isBlank(line[end]) && line[end] != '#' {
		st = numSyntax
	}
	switch st {
	case numSyntax:
		if j := tokenEnd(line, i); bytes.IndexByte(line[i:j], ':') >= 0 {
			return r, ind, val, false, p.errAt(line, i, ErrSyntax, "missing label: line starts with %q", token(line, i))
		}
		return r, ind, val, false, p.errAt(line, i, ErrSyntax, "invalid label %q", token(line, i))
	case numNotFinit:
		return r, ind, val, false, p.errAt(line, i, ErrValue, "label %q is not a finite number", token(line, i))
	}
	r.label = f
	i = end

	// Optional qid:N right after the label.
	j := i
	for j < n && isBlank(line[j]) {
		j++
	}
	if j > i && j+4 <= n && string(line[j:j+4]) == "qid:" {
		q, e, ok := parseUint(line, j+4)
		if e == j+4 || (e < n && !isBlank(line[e]) && line[e] != '#') {
			return r, ind, val, false, p.errAt(line, j, ErrSyntax, "invalid qid %q (want qid:<non-negative integer>)", token(line, j))
		}
		if !ok || q > math.MaxInt64 {
			return r, ind, val, false, p.errAt(line, j, ErrValue, "qid %q overflows int64", token(line, j))
		}
		r.qid, r.hasQID = int64(q), true
		i = e
	}

	// Features.
	nnz0 := len(ind)
	prev := uint64(0)
	limit, maxNNZ := p.limit, p.maxNNZ
	for {
		// Each token must be preceded by a blank; a comment may follow
		// a token directly.
		if i < n && !isBlank(line[i]) {
			if line[i] == '#' {
				break
			}
			return r, ind, val, false, p.errAt(line, i, ErrSyntax, "unexpected %s", describeByte(line[i]))
		}
		for i < n && isBlank(line[i]) {
			i++
		}
		if i == n || line[i] == '#' {
			break
		}
		tok := i
		var idx uint64
		for i < n {
			c := line[i] - '0'
			if c > 9 {
				break
			}
			idx = idx*10 + uint64(c)
			i++
		}
		if i-tok > 19 {
			// Past 19 digits idx may have wrapped: count again, capped.
			idx = 0
			for k := tok; k < i; k++ {
				if idx <= limit {
					idx = idx*10 + uint64(line[k]-'0')
				}
			}
		}
		if i == tok || i == n || line[i] != ':' {
			return r, ind, val, false, p.badFeature(line, tok)
		}
		if idx == 0 {
			return r, ind, val, false, p.errAt(line, tok, ErrIndex, "index 0 in %q: indices are 1-based", token(line, tok))
		}
		if idx > limit {
			return r, ind, val, false, p.errAt(line, tok, ErrIndexRange, "index %s exceeds %s", clip(line[tok:i]), p.limitWhat)
		}
		if idx <= prev {
			return r, ind, val, false, p.errAt(line, tok, ErrIndexOrder, "index %d after %d: indices must be strictly increasing", idx, prev)
		}
		if len(ind)-nnz0 >= maxNNZ {
			return r, ind, val, false, p.errAt(line, tok, ErrRowTooLong, "row has more than MaxRowNNZ = %d features", p.maxNNZ)
		}
		prev = idx
		i++ // ':'

		// Value: small non-negative integers (counts) take a shortcut.
		vs := i
		var m uint64
		for i < n {
			c := line[i] - '0'
			if c > 9 {
				break
			}
			m = m*10 + uint64(c)
			i++
		}
		var v float32
		// Up to 15 digits, m < 10^15 < 2^53 is exact and float32(m) is
		// the correctly rounded value; longer numbers take parseNumber.
		if i > vs && i-vs <= 15 && (i == n || isBlank(line[i])) {
			v = float32(m)
		} else {
			f, end, st := parseNumber(line, vs)
			if st == numOK && end < n && !isBlank(line[end]) && line[end] != '#' {
				st = numSyntax
			}
			switch st {
			case numSyntax:
				if vs == n || isBlank(line[vs]) || line[vs] == '#' {
					return r, ind, val, false, p.errAt(line, tok, ErrSyntax, "missing value after %q", token(line, tok))
				}
				return r, ind, val, false, p.errAt(line, vs, ErrSyntax, "invalid value %q", token(line, vs))
			case numNotFinit:
				return r, ind, val, false, p.errAt(line, vs, ErrValue, "value %q is not a finite number", token(line, vs))
			}
			v = float32(f)
			if math.IsInf(float64(v), 0) {
				return r, ind, val, false, p.errAt(line, vs, ErrValue, "value %q overflows float32", token(line, vs))
			}
			i = end
		}
		ind = append(ind, int32(idx-1))
		val = append(val, v)
	}
	return r, ind, val, false, nil
}

// badFeature diagnoses a token at line[tok] that should be index:value
// but does not start with digits followed by ':'.
func (p *lineParser) badFeature(line []byte, tok int) *lineError {
	t := line[tok:tokenEnd(line, tok)]
	colon := bytes.IndexByte(t, ':')
	switch {
	case len(t) >= 4 && string(t[:4]) == "qid:":
		return p.errAt(line, tok, ErrSyntax, "qid must come right after the label")
	case colon > 0 && t[0] == '-' && allDigits(t[1:colon]):
		return p.errAt(line, tok, ErrIndex, "negative index in %q: indices are 1-based", clip(t))
	case colon == 0:
		return p.errAt(line, tok, ErrSyntax, "value without index: %q", clip(t))
	case colon < 0 && len(t) > 0 && looksNumeric(t):
		return p.errAt(line, tok, ErrSyntax, "missing ':' in feature %q (want index:value)", clip(t))
	case len(t) == 0:
		return p.errAt(line, tok, ErrSyntax, "unexpected %s", describeByte(line[tok]))
	}
	return p.errAt(line, tok, ErrSyntax, "invalid feature %q (want index:value)", clip(t))
}

func (p *lineParser) errAt(line []byte, i int, err error, format string, args ...any) *lineError {
	if err == ErrSyntax {
		if k := bytes.IndexByte(line, 0); k >= 0 {
			return &lineError{col: k + 1, msg: "NUL byte: binary data, not LIBSVM text?", err: err}
		}
	}
	return &lineError{col: i + 1, msg: fmt.Sprintf(format, args...), err: err}
}

// tokenEnd returns the end of the token starting at i: the next blank or
// end of line.
func tokenEnd(line []byte, i int) int {
	for i < len(line) && !isBlank(line[i]) {
		i++
	}
	return i
}

// token returns the token starting at i, clipped for messages.
func token(line []byte, i int) string { return clip(line[i:tokenEnd(line, i)]) }

// clip returns b as a string of at most 40 bytes, for error messages.
func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:37]) + "..."
	}
	return string(b)
}

func describeByte(c byte) string {
	if c >= 0x21 && c < 0x7f {
		return fmt.Sprintf("character %q", c)
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

func allDigits(b []byte) bool {
	for _, c := range b {
		if c-'0' > 9 {
			return false
		}
	}
	return len(b) > 0
}

func looksNumeric(b []byte) bool {
	_, end, st := parseNumber(b, 0)
	return st == numOK && end == len(b)
}

// parseUint parses decimal digits at b[i:], saturating at MaxUint64.
// It returns the value, the end index, and false on overflow.
func parseUint(b []byte, i int) (v uint64, end int, ok bool) {
	ok = true
	for i < len(b) {
		c := b[i] - '0'
		if c > 9 {
			break
		}
		if v > (math.MaxUint64-9)/10 {
			ok = false
		} else {
			v = v*10 + uint64(c)
		}
		i++
	}
	return v, i, ok
}
