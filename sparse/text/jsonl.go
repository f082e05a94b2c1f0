package text

import (
	"bytes"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// lineError is a problem located within one line; the reader adds the
// input's name and the line number.
type lineError struct {
	col int // 1-based byte column
	msg string
	err error
}

func errAt(i int, err error, msg string) *lineError {
	return &lineError{col: i + 1, msg: msg, err: err}
}

// strPlain marks the bytes that may stand for themselves in a JSON string
// and need no further look: printable ASCII other than '"' and '\\'.
var strPlain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// jsonParser pulls two fields, the label and the text, out of a JSONL line
// holding one JSON object, checking the whole line against the JSON
// grammar on the way. Other members are skipped without being decoded.
// It is far faster than encoding/json because it decodes only the two
// strings it returns, and those only when they hold escapes or invalid
// UTF-8. A jsonParser belongs to one goroutine.
type jsonParser struct {
	labelKey, textKey []byte
	noLabel           bool   // documents without labels: the label is a member like any other
	multi             bool   // a label may be an array of labels (ReadOptions.MultiLabel)
	keyBuf            []byte // unescaped key
	labelBuf, textBuf []byte // unescaped values
	stack             []byte // open containers while skipping a value
}

// jsonDoc is the label and text of one line. The slices point into the
// line or into the parser's buffers, valid until the next parse.
type jsonDoc struct {
	label, text []byte
	labelCol    int // 1-based column of the label value
	// labels holds the labels of an array label (MultiLabel), list set;
	// an empty array is a document with no label.
	labels []string
	list   bool
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// describe names the byte at b[i] for a message.
func describe(b []byte, i int) string {
	if i >= len(b) {
		return "end of line"
	}
	c := b[i]
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return "byte " + strconv.Quote(string(b[i:i+1]))
}

// parse extracts the label and text fields of line. blank reports a line
// holding only whitespace, which is not a document.
func (p *jsonParser) parse(line []byte) (d jsonDoc, blank bool, le *lineError) {
	i := skipSpace(line, 0)
	if i == len(line) {
		return d, true, nil
	}
	if line[i] != '{' {
		return d, false, errAt(i, ErrSyntax, "expected '{' at the start of a JSON object, found "+describe(line, i))
	}
	open := i
	var haveLabel, haveText bool
	// A label or text of the wrong type is reported only once the whole
	// line has proved to be well-formed JSON, and only if it is the last
	// value of its field.
	var labelErr, textErr *lineError
	i = skipSpace(line, i+1)
	if i < len(line) && line[i] == '}' {
		i++
	} else {
		for {
			key, end, le := p.memberKey(line, i)
			if le != nil {
				return d, false, le
			}
			i = end
			switch {
			case !p.noLabel && bytes.Equal(key, p.labelKey):
				i, labelErr, le = p.labelValue(line, i, &d)
				haveLabel = true
			case bytes.Equal(key, p.textKey):
				i, textErr, le = p.textValue(line, i, &d)
				haveText = true
			default:
				i, le = p.skipValue(line, i)
			}
			if le != nil {
				return d, false, le
			}

			i = skipSpace(line, i)
			if i < len(line) && line[i] == ',' {
				i = skipSpace(line, i+1)
				continue
			}
			if i < len(line) && line[i] == '}' {
				i++
				break
			}
			return d, false, errAt(i, ErrSyntax, "expected ',' or '}' after an object member, found "+describe(line, i))
		}
	}
	if i = skipSpace(line, i); i < len(line) {
		return d, false, errAt(i, ErrSyntax, "unexpected "+describe(line, i)+" after the JSON object (one object per line)")
	}
	switch {
	case !haveLabel && !p.noLabel:
		return d, false, errAt(open, ErrMissingField, "no label field "+strconv.Quote(string(p.labelKey)))
	case labelErr != nil:
		return d, false, labelErr
	case !haveText:
		return d, false, errAt(open, ErrMissingField, "no text field "+strconv.Quote(string(p.textKey)))
	case textErr != nil:
		return d, false, textErr
	}
	return d, false, nil
}

// memberKey reads an object member's key at line[i:] and the ':' after
// it, returning the key (unescaped into p.keyBuf if it needs it) and the
// index of the member's value.
func (p *jsonParser) memberKey(line []byte, i int) (key []byte, value int, le *lineError) {
	if i >= len(line) || line[i] != '"' {
		return nil, 0, errAt(i, ErrSyntax, "expected a string key, found "+describe(line, i))
	}
	end, flags, le := scanString(line, i)
	if le != nil {
		return nil, 0, le
	}
	key = line[i+1 : end-1]
	if flags != 0 {
		p.keyBuf = unquote(p.keyBuf[:0], key)
		key = p.keyBuf
	}
	i = skipSpace(line, end)
	if i >= len(line) || line[i] != ':' {
		return nil, 0, errAt(i, ErrSyntax, "expected ':' after an object key, found "+describe(line, i))
	}
	return key, skipSpace(line, i+1), nil
}

// labelValue reads the label field's value at line[i:] into d and
// returns the index after it. fieldErr is the error for a well-formed
// value of the wrong type, which parse reports only if the line is
// otherwise valid; le is a syntax error.
func (p *jsonParser) labelValue(line []byte, i int, d *jsonDoc) (end int, fieldErr, le *lineError) {
	if i >= len(line) {
		return 0, nil, errAt(i, ErrSyntax, "expected a value, found end of line")
	}
	d.labelCol = i + 1
	switch c := line[i]; {
	case c == '"':
		end, flags, le := scanString(line, i)
		if le != nil {
			return 0, nil, le
		}
		d.label, p.labelBuf = stringValue(line[i+1:end-1], flags, p.labelBuf)
		return end, nil, nil
	case c == '-' || c >= '0' && c <= '9':
		end, le := scanNumber(line, i)
		if le != nil {
			return 0, nil, le
		}
		d.label = line[i:end]
		return end, nil, nil
	case c == '[' && p.multi:
		end, labels, le := p.parseLabelList(line, i)
		if le != nil {
			return 0, nil, le
		}
		d.label, d.labels, d.list = nil, labels, true
		return end, nil, nil
	default:
		end, le := p.skipValue(line, i)
		if le != nil {
			return 0, nil, le
		}
		msg := "label field " + strconv.Quote(string(p.labelKey)) + " must be a string or a number"
		if c == '[' {
			msg += "; an array of labels is a multi-label document (train -multilabel, ReadOptions.MultiLabel)"
		}
		return end, errAt(i, ErrFieldType, msg), nil
	}
}

// textValue reads the text field's value at line[i:] into d, as
// labelValue does the label's.
func (p *jsonParser) textValue(line []byte, i int, d *jsonDoc) (end int, fieldErr, le *lineError) {
	if i >= len(line) {
		return 0, nil, errAt(i, ErrSyntax, "expected a value, found end of line")
	}
	if line[i] != '"' {
		end, le := p.skipValue(line, i)
		if le != nil {
			return 0, nil, le
		}
		return end, errAt(i, ErrFieldType, "text field "+strconv.Quote(string(p.textKey))+" must be a string"), nil
	}
	end, flags, le := scanString(line, i)
	if le != nil {
		return 0, nil, le
	}
	d.text, p.textBuf = stringValue(line[i+1:end-1], flags, p.textBuf)
	return end, nil, nil
}

// String scan flags.
const (
	strEscape = 1 << iota // holds a backslash escape
	strHigh               // holds bytes ≥ 0x80
)

// scanString checks the JSON string starting with the quote at b[i] and
// returns the index just past its closing quote, with flags telling whether
// it needs decoding.
func scanString(b []byte, i int) (end int, flags int, le *lineError) {
	start := i
	i++
	for {
		// The common case: a run of plain printable ASCII.
		for i+4 <= len(b) && strPlain[b[i]] && strPlain[b[i+1]] && strPlain[b[i+2]] && strPlain[b[i+3]] {
			i += 4
		}
		for i < len(b) && strPlain[b[i]] {
			i++
		}
		if i >= len(b) {
			return 0, 0, errAt(start, ErrSyntax, "unterminated string")
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, flags, nil
		case c == '\\':
			flags |= strEscape
			if i+1 >= len(b) {
				return 0, 0, errAt(start, ErrSyntax, "unterminated string")
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if _, ok := hex4(b, i+2); !ok {
					return 0, 0, errAt(i, ErrSyntax, "invalid \\u escape: want four hex digits")
				}
				i += 6
			default:
				return 0, 0, errAt(i, ErrSyntax, "invalid escape \\"+string(rune(b[i+1])))
			}
		case c < 0x20:
			return 0, 0, errAt(i, ErrSyntax, "control character "+strconv.Quote(string(rune(c)))+" in a string (must be escaped)")
		default: // c >= 0x80
			flags |= strHigh
			i++
		}
	}
}

// hex4 reads four hex digits at b[i:].
func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// stringValue returns the decoded content of a scanned string body: the
// body itself when it needs no decoding, else its decoding into buf (which
// it returns, grown, for reuse).
func stringValue(body []byte, flags int, buf []byte) ([]byte, []byte) {
	if flags == 0 || flags == strHigh && utf8.Valid(body) {
		return body, buf
	}
	buf = unquote(buf[:0], body)
	return buf, buf
}

// unquote appends the decoding of a string body (already checked by
// scanString) to dst. As encoding/json does, it turns every byte of
// invalid UTF-8 and every unpaired surrogate escape into U+FFFD, and
// joins a surrogate pair written as two escapes into one rune.
func unquote(dst, s []byte) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf && c != '\\' {
			j := i + 1
			for j < len(s) && s[j] < utf8.RuneSelf && s[j] != '\\' {
				j++
			}
			dst = append(dst, s[i:j]...)
			i = j
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				dst = utf8.AppendRune(dst, utf8.RuneError)
			} else {
				dst = append(dst, s[i:i+size]...)
			}
			i += size
			continue
		}
		// An escape; scanString vouched for its form.
		e := s[i+1]
		i += 2
		switch e {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, _ := hex4(s, i)
			i += 4
			if utf16.IsSurrogate(r) {
				r2, ok := rune(0), false
				if i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
					r2, ok = hex4(s, i+2)
				}
				if d := utf16.DecodeRune(r, r2); ok && d != utf8.RuneError {
					r = d
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			dst = utf8.AppendRune(dst, r)
		default: // '"', '\\', '/'
			dst = append(dst, e)
		}
	}
	return dst
}

// scanNumber checks the JSON number starting at b[i] and returns the index
// just past it.
func scanNumber(b []byte, i int) (int, *lineError) {
	start := i
	bad := func() (int, *lineError) {
		j := i
		for j < len(b) && !isSpace(b[j]) && b[j] != ',' && b[j] != '}' && b[j] != ']' {
			j++
		}
		return 0, errAt(start, ErrSyntax, "invalid number "+strconv.Quote(string(b[start:j])))
	}
	digits := func() bool {
		k := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > k
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		return bad()
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return bad()
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return bad()
		}
	}
	// A number must end where a value may end.
	if i < len(b) && !isSpace(b[i]) && b[i] != ',' && b[i] != '}' && b[i] != ']' {
		return bad()
	}
	return i, nil
}

// skipValue checks the JSON value starting at b[i] (after whitespace) and
// returns the index just past it. Nested containers are tracked on an
// explicit stack, so deep nesting costs memory proportional to the line,
// never goroutine stack.
func (p *jsonParser) skipValue(b []byte, i int) (int, *lineError) {
	stack := p.stack[:0]
	defer func() { p.stack = stack[:0] }()
	for {
		end, closer, le := skipOpen(b, i)
		if le != nil {
			return 0, le
		}
		i = end
		if closer != 0 {
			// Inside a new container: its first value (after its
			// first key, in an object).
			stack = append(stack, closer)
			if closer == '}' {
				if i, le = skipKey(b, i); le != nil {
					return 0, le
				}
			}
			continue
		}
		var done bool
		if i, stack, done, le = skipClose(b, i, stack); le != nil {
			return 0, le
		}
		if done {
			return i, nil
		}
	}
}

// skipOpen is skipValue's first state, at a value (after spaces): it
// skips a scalar or an empty container and returns closer = 0, or opens a
// container and returns the byte that will close it, '}' or ']', with i
// past its opening bracket and the spaces after it.
func skipOpen(b []byte, i int) (end int, closer byte, le *lineError) {
	i = skipSpace(b, i)
	if i >= len(b) {
		return 0, 0, errAt(i, ErrSyntax, "expected a value, found end of line")
	}
	switch c := b[i]; {
	case c == '{' || c == '[':
		closer = ']'
		if c == '{' {
			closer = '}'
		}
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == closer {
			return i + 1, 0, nil
		}
		return i, closer, nil
	case c == '"':
		end, _, le := scanString(b, i)
		return end, 0, le
	case c == '-' || c >= '0' && c <= '9':
		end, le := scanNumber(b, i)
		return end, 0, le
	case c == 't' && bytes.HasPrefix(b[i:], []byte("true")):
		return i + 4, 0, nil
	case c == 'f' && bytes.HasPrefix(b[i:], []byte("false")):
		return i + 5, 0, nil
	case c == 'n' && bytes.HasPrefix(b[i:], []byte("null")):
		return i + 4, 0, nil
	}
	return 0, 0, errAt(i, ErrSyntax, "expected a value, found "+describe(b, i))
}

// skipClose is skipValue's second state, after a value: it closes the
// containers on stack that end here until one goes on with ',' (then i
// is at its next value, past the key in an object), or until none is
// left (done: the value skipValue was asked for ends at i).
func skipClose(b []byte, i int, stack []byte) (end int, rest []byte, done bool, le *lineError) {
	for {
		if len(stack) == 0 {
			if i < len(b) && !isSpace(b[i]) && b[i] != ',' && b[i] != '}' && b[i] != ']' {
				return 0, stack, false, errAt(i, ErrSyntax, "unexpected "+describe(b, i)+" after a value")
			}
			return i, stack, true, nil
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return 0, stack, false, errAt(i, ErrSyntax, "unexpected end of line inside "+containerName(stack[len(stack)-1]))
		}
		top := stack[len(stack)-1]
		if b[i] == top {
			stack = stack[:len(stack)-1]
			i++
			continue
		}
		if b[i] != ',' {
			return 0, stack, false, errAt(i, ErrSyntax, "expected ',' or "+strconv.QuoteRune(rune(top))+" in "+containerName(top)+", found "+describe(b, i))
		}
		i = skipSpace(b, i+1)
		if top == '}' {
			if i, le = skipKey(b, i); le != nil {
				return 0, stack, false, le
			}
		}
		return i, stack, false, nil
	}
}

func containerName(closer byte) string {
	if closer == '}' {
		return "an object"
	}
	return "an array"
}

// skipKey checks an object key and its ':' at b[i] and returns the index
// just past the ':'.
func skipKey(b []byte, i int) (int, *lineError) {
	if i >= len(b) || b[i] != '"' {
		return 0, errAt(i, ErrSyntax, "expected a string key, found "+describe(b, i))
	}
	end, _, le := scanString(b, i)
	if le != nil {
		return 0, le
	}
	i = skipSpace(b, end)
	if i >= len(b) || b[i] != ':' {
		return 0, errAt(i, ErrSyntax, "expected ':' after an object key, found "+describe(b, i))
	}
	return i + 1, nil
}
