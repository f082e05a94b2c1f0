package libsvm

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"strconv"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

// lineParser parses one LIBSVM line. Read's workers and Scanner share
// it, so both accept and reject exactly the same inputs.
type lineParser struct {
	limit     uint64 // largest 1-based index accepted
	limitWhat string // what limit is, for messages
	maxNNZ    int
}

func newLineParser(o *sparse.ReadOptions) lineParser {
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

// lineTooLong is the error for a line longer than max bytes, placed at
// the first byte past the limit. Read and Scanner both give it, so
// that they report such a line identically.
func lineTooLong(max int) *lineError {
	return &lineError{col: max + 1, msg: "line longer than " + strconv.Itoa(max) + " bytes (ReadOptions.MaxLineBytes)", err: sparse.ErrLineTooLong}
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
	if (st == numOK || st == numUnderflow) && end < n && !isBlank(line[end]) && line[end] != '#' {
		st = numSyntax
	}
	switch st {
	case numSyntax:
		if j := tokenEnd(line, i); bytes.IndexByte(line[i:j], ':') >= 0 {
			return r, ind, val, false, p.errAt(line, i, sparse.ErrSyntax, "missing label: line starts with %q", token(line, i))
		}
		return r, ind, val, false, p.errAt(line, i, sparse.ErrSyntax, "invalid label %q", token(line, i))
	case numNotFinit:
		return r, ind, val, false, p.errAt(line, i, sparse.ErrValue, "label %q is not a finite number", token(line, i))
	case numUnderflow:
		return r, ind, val, false, p.errAt(line, i, sparse.ErrValue, "label %q is not zero but below float64's smallest magnitude (~4.9e-324)", token(line, i))
	}
	if math.Abs(f) >= 1<<53 && !exactLabel(line[i:end], f) {
		return r, ind, val, false, p.errAt(line, i, sparse.ErrValue, "label %q would read as the float64 %s, another number: past 2^53 distinct labels could be one class", token(line, i), strconv.FormatFloat(f, 'g', -1, 64))
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
			return r, ind, val, false, p.errAt(line, j, sparse.ErrSyntax, "invalid qid %q (want qid:<non-negative integer>)", token(line, j))
		}
		if !ok || q > math.MaxInt64 {
			return r, ind, val, false, p.errAt(line, j, sparse.ErrValue, "qid %q overflows int64", token(line, j))
		}
		r.qid, r.hasQID = int64(q), true
		i = e
	}

	ind, val, le = p.features(line, i, ind, val)
	return r, ind, val, false, le
}

// features parses the features at line[i:], after the label and qid,
// appending them to ind and val. scanFeatures takes the common tokens;
// this loop takes, one token at a time, what it leaves: values for
// parseNumber, a comment, the end of ind's capacity or of MaxRowNNZ, and
// every error, which it diagnoses as parseLine always has.
func (p *lineParser) features(line []byte, i int, ind []int32, val []float32) ([]int32, []float32, *lineError) {
	n := len(line)
	nnz0 := len(ind)
	prev := uint64(0)
	limit, maxNNZ := p.limit, p.maxNNZ
	for {
		room := min(cap(ind)-len(ind), cap(val)-len(val), maxNNZ-(len(ind)-nnz0))
		k, ni, nprev, vidx, vs := scanFeatures(line, i, prev, limit, ind[len(ind):len(ind)+room], val[len(val):len(val)+room])
		ind, val = ind[:len(ind)+k], val[:len(val)+k]
		i, prev = ni, nprev
		if vs > 0 {
			// A valid index (and room for it) whose value needs
			// parseNumber.
			f, end, st := parseNumber(line, vs)
			if st == numOK && (end == n || isBlank(line[end])) {
				if v := toFloat32(f, line[vs:end]); !math.IsInf(float64(v), 0) && (v != 0 || f == 0) {
					ind = append(ind, int32(vidx-1))
					val = append(val, v)
					i, prev = end, vidx
					continue
				}
			}
			// Anything else is diagnosed below.
		}

		// General case: one token, or the end of the features.
		// Each token must be preceded by a blank; a comment may follow
		// a token directly.
		if i < n && !isBlank(line[i]) {
			if line[i] == '#' {
				break
			}
			return ind, val, p.errAt(line, i, sparse.ErrSyntax, "unexpected %s", describeByte(line[i]))
		}
		for i < n && isBlank(line[i]) {
			i++
		}
		if i == n || line[i] == '#' {
			break
		}
		tok := i
		idx, colon, le := p.featureIndex(line, tok, prev, len(ind)-nnz0)
		if le != nil {
			return ind, val, le
		}
		prev = idx
		v, end, le := p.featureValue(line, tok, colon+1)
		if le != nil {
			return ind, val, le
		}
		i = end
		ind = append(ind, int32(idx-1))
		val = append(val, v)
	}
	return ind, val, nil
}

// featureIndex parses the index of the feature token at line[tok:], up
// to its ':', for features' general case: prev is the row's previous
// index and nnz its count of features so far. It returns the index and
// where its ':' is, or the error that the token's index earns.
func (p *lineParser) featureIndex(line []byte, tok int, prev uint64, nnz int) (idx uint64, colon int, le *lineError) {
	// parseUint saturates far past any limit, so an index of many
	// digits is out of range rather than wrapped.
	idx, i, _ := parseUint(line, tok)
	if i == tok || i == len(line) || line[i] != ':' {
		return 0, 0, p.badFeature(line, tok)
	}
	if idx == 0 {
		return 0, 0, p.errAt(line, tok, sparse.ErrIndex, "index 0 in %q: indices are 1-based", token(line, tok))
	}
	if idx > p.limit {
		return 0, 0, p.errAt(line, tok, sparse.ErrIndexRange, "index %s exceeds %s", clip(line[tok:i]), p.limitWhat)
	}
	if idx <= prev {
		return 0, 0, p.errAt(line, tok, sparse.ErrIndexOrder, "index %d after %d: indices must be strictly increasing", idx, prev)
	}
	if nnz >= p.maxNNZ {
		return 0, 0, p.errAt(line, tok, sparse.ErrRowTooLong, "row has more than MaxRowNNZ = %d features", p.maxNNZ)
	}
	return idx, i, nil
}

// featureValue parses the value at line[vs:] of the feature token at
// line[tok:], for features' general case. It returns the value as
// float32 and the index after it, or the error that the value earns: not
// a number, not finite, or out of float32's range either way.
func (p *lineParser) featureValue(line []byte, tok, vs int) (v float32, end int, le *lineError) {
	n := len(line)
	f, end, st := parseNumber(line, vs)
	if (st == numOK || st == numUnderflow) && end < n && !isBlank(line[end]) && line[end] != '#' {
		st = numSyntax
	}
	switch st {
	case numSyntax:
		if vs == n || isBlank(line[vs]) || line[vs] == '#' {
			return 0, 0, p.errAt(line, tok, sparse.ErrSyntax, "missing value after %q", token(line, tok))
		}
		return 0, 0, p.errAt(line, vs, sparse.ErrSyntax, "invalid value %q", token(line, vs))
	case numNotFinit:
		return 0, 0, p.errAt(line, vs, sparse.ErrValue, "value %q is not a finite number", token(line, vs))
	}
	v = toFloat32(f, line[vs:end])
	if math.IsInf(float64(v), 0) {
		return 0, 0, p.errAt(line, vs, sparse.ErrValue, "value %q overflows float32", token(line, vs))
	}
	if v == 0 && (f != 0 || st == numUnderflow) {
		// A value written as nonzero that float32 rounds to zero
		// would be stored as an explicit zero: refused, as an
		// overflowing one is (see "Values" in the package doc).
		return 0, 0, p.errAt(line, vs, sparse.ErrValue, "value %q is not zero but below float32's smallest magnitude (~1.4e-45)", token(line, vs))
	}
	return v, end, nil
}

// scanFeatures parses the features at line[i:] of the common form:
// blanks, an index, ':' and a value of up to 15 digits with an optional
// fraction, followed by a blank or the end of the line. It writes them to
// oi[:k] and ov[:k] while there is room and stops at the first token it
// does not take, returning i at the blank before it with nothing of it
// consumed; if only that token's value is not of this form (a sign, an
// exponent, more digits, a '#' right after it), it also returns the valid
// index and vs, where the value starts.
//
// It is parseLine's hot loop, kept apart from the general code so that
// its state fits in registers: in one function with it, the compiler
// spilled to the stack on every digit (BenchmarkParseLineIMDB shows the
// difference). One range test rules out index 0, out of range and out of
// order; no append; tokenStart finds i again on the way out, rather than
// holding it in a register through the value: once fractions were taken
// here, that register was worth more to the digit loops.
func scanFeatures(line []byte, i int, prev, limit uint64, oi []int32, ov []float32) (k, iOut int, prevOut, idx uint64, vs int) {
	n := len(line)
	ov = ov[:len(oi)]
	for k < len(oi) && i < n && isBlank(line[i]) {
		var j int
		j, idx = digits(line, i+1, uint64(0))
		// prev < idx <= limit also rules out index 0 and no digits;
		// past 19 digits idx may have wrapped.
		if j-i > 20 || j == n || line[j] != ':' || idx-prev-1 >= limit-prev {
			if j == i+1 && j < n && isBlank(line[j]) {
				i = j // another blank
				continue
			}
			break
		}
		start := j + 1
		j, m := digits(line, start, int64(0))
		// Up to 15 digits, m < 10^15 < 2^53 is exact and float32(m) is
		// the correctly rounded value.
		v := float32(m)
		if j == start || j-start > 15 || (j < n && !isBlank(line[j])) {
			// A fraction of up to 15 digits in all is m / 10^d with
			// m and 10^d exact: one correctly rounded division, as
			// parseNumber computes it. Taken here, it made a copy of
			// imdb.train with values like 0.547945 take ~45% less time.
			if j == start || j == n || line[j] != '.' {
				return k, tokenStart(line, start), prev, idx, start
			}
			j++
			frac := j
			j, m = digits(line, j, m)
			if j-start > 16 || (j < n && !isBlank(line[j])) {
				return k, tokenStart(line, start), prev, idx, start
			}
			q := float64(m) / pow10[j-frac]
			if halfway32(q) {
				// It may round the wrong way the second time: see
				// toFloat32.
				return k, tokenStart(line, start), prev, idx, start
			}
			v = float32(q)
		}
		oi[k] = int32(idx - 1)
		ov[k] = v
		k++
		prev = idx
		i = j
	}
	return k, i, prev, 0, 0
}

// digits reads the decimal digits at line[j:] into m, each as m·10 plus
// the digit, and returns the index after them and m. It is small enough
// to be inlined in scanFeatures's loop, which reads an index, a value
// and a fraction with it.
func digits[T int64 | uint64](line []byte, j int, m T) (int, T) {
	for j < len(line) {
		c := line[j] - '0'
		if c > 9 {
			break
		}
		m = m*10 + T(c)
		j++
	}
	return j, m
}

// tokenStart returns the blank before the index whose ':' is line[vs-1].
func tokenStart(line []byte, vs int) int {
	t := vs - 2
	for line[t]-'0' <= 9 {
		t--
	}
	return t
}

// badFeature diagnoses a token at line[tok] that should be index:value
// but does not start with digits followed by ':'.
func (p *lineParser) badFeature(line []byte, tok int) *lineError {
	t := line[tok:tokenEnd(line, tok)]
	colon := bytes.IndexByte(t, ':')
	switch {
	case len(t) >= 4 && string(t[:4]) == "qid:":
		return p.errAt(line, tok, sparse.ErrSyntax, "qid must come right after the label")
	case colon > 0 && t[0] == '-' && allDigits(t[1:colon]):
		return p.errAt(line, tok, sparse.ErrIndex, "negative index in %q: indices are 1-based", clip(t))
	case colon == 0:
		return p.errAt(line, tok, sparse.ErrSyntax, "value without index: %q", clip(t))
	case colon < 0 && len(t) > 0 && looksNumeric(t):
		return p.errAt(line, tok, sparse.ErrSyntax, "missing ':' in feature %q (want index:value)", clip(t))
	case len(t) == 0:
		return p.errAt(line, tok, sparse.ErrSyntax, "unexpected %s", describeByte(line[tok]))
	}
	return p.errAt(line, tok, sparse.ErrSyntax, "invalid feature %q (want index:value)", clip(t))
}

func (p *lineParser) errAt(line []byte, i int, err error, format string, args ...any) *lineError {
	if err == sparse.ErrSyntax {
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
	return (st == numOK || st == numUnderflow) && end == len(b)
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

// exactLabel reports whether the number written in tok is the number
// f prints as (its shortest decimal form, as strconv writes it): reading
// and printing the label then give back its value. Past 2⁵³ float64
// holds only some integers, and a label it rounds could share its class
// with a different label (9007199254740993 with 9007199254740992), so
// such labels are refused rather than rounded; 1e300, which prints as
// 1e+300, is kept. A token of more than 64 bytes counts as inexact, so
// that a hostile line cannot make the exact arithmetic slow (no real
// label is that long).
func exactLabel(tok []byte, f float64) bool {
	if len(tok) > 64 {
		return false
	}
	r, ok := new(big.Rat).SetString(string(tok))
	if !ok {
		return false
	}
	e, ok := new(big.Rat).SetString(strconv.FormatFloat(f, 'g', -1, 64))
	return ok && r.Cmp(e) == 0
}
