package text

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"

	"github.com/klauspost/compress/gzip"
)

// Kind is what an input holds, as its first non-blank line shows it.
type Kind uint8

const (
	// KindUnknown: an empty input, or a first line that is none of the
	// others for sure (a lone number, say: a LIBSVM row without features
	// or a one-word document).
	KindUnknown Kind = iota
	// KindCache: a cache file of numbered features (sparse/hpc), by its
	// magic.
	KindCache
	// KindLIBSVM: a label (a number, or numbers joined by commas), then
	// one or more index:value pairs with an integer index, separated by
	// blanks (a qid:N pair and a trailing # comment allowed).
	KindLIBSVM
	// KindJSONL: a line that starts with '{'.
	KindJSONL
	// KindText: anything else that is plainly not LIBSVM: a line with a
	// tab before any index:value pair, or whose words after the first
	// are mostly not index:value pairs (label<TAB>text, a plain line).
	KindText
)

var kindNames = [...]string{"unknown", "a cache file", "LIBSVM", "JSONL", "text"}

// String names the kind for messages: "LIBSVM", "JSONL", "text", "a cache
// file" or "unknown".
func (k Kind) String() string { return enumName(k, kindNames[:], "Kind") }

// cacheMagic starts a cache file (sparse/hpc).
const cacheMagic = "HPSC"

// SniffLine tells the kind of an input from its first non-blank line
// (without its '\n'; a byte order mark already dropped).
func SniffLine(line []byte) Kind {
	if bytes.HasPrefix(line, []byte(cacheMagic)) {
		return KindCache
	}
	i := skipSpace(line, 0)
	if i == len(line) {
		return KindUnknown
	}
	if line[i] == '{' {
		return KindJSONL
	}
	rest := line[i:]
	if k := bytes.IndexByte(rest, '#'); k >= 0 {
		rest = rest[:k] // LIBSVM's comment
	}
	fields := bytes.Fields(rest)
	if len(fields) == 0 {
		return KindUnknown
	}
	pairs, words := 0, 0
	for _, f := range fields[1:] {
		if isPair(f) {
			pairs++
		} else {
			words++
		}
	}
	switch {
	case isLabels(fields[0]) && pairs > 0 && words == 0:
		return KindLIBSVM
	case 2*words > pairs || bytes.IndexByte(line, '\t') >= 0 && words > 0:
		// A label (or word) then words; or a tab before words.
		return KindText
	}
	return KindUnknown
}

// isLabels reports whether f is a LIBSVM label: a number, or numbers
// joined by commas (multi-label).
func isLabels(f []byte) bool {
	for _, p := range bytes.Split(f, []byte{','}) {
		if _, err := strconv.ParseFloat(string(p), 64); err != nil {
			return false
		}
	}
	return true
}

// isPair reports whether f is index:value with an integer index (or
// "qid"), as LIBSVM writes a feature.
func isPair(f []byte) bool {
	k := bytes.IndexByte(f, ':')
	if k <= 0 || k == len(f)-1 {
		return false
	}
	idx := f[:k]
	if string(idx) != "qid" {
		for _, c := range idx {
			if c < '0' || c > '9' {
				return false
			}
		}
	}
	_, err := strconv.ParseFloat(string(f[k+1:]), 64)
	return err == nil
}

// sniffBytes is how much of an input Sniff looks at.
const sniffBytes = 64 << 10

// Sniff tells the kind of the input br holds by its first non-blank line
// (see SniffLine), peeking at most 64 KiB of it without consuming any;
// a gzip-compressed input is decompressed as far as those bytes go. It
// returns the kind and that line (cut at 64 KiB), for messages. Only
// br's own read errors are returned.
func Sniff(br *bufio.Reader) (Kind, string, error) {
	b, err := br.Peek(sniffBytes)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return KindUnknown, "", err
	}
	if len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b {
		if zr, err := gzip.NewReader(bytes.NewReader(b)); err == nil {
			var out bytes.Buffer
			io.Copy(&out, io.LimitReader(zr, sniffBytes)) // a truncated stream is expected
			b = out.Bytes()
		}
	}
	b = bytes.TrimPrefix(b, bom)
	if bytes.HasPrefix(b, []byte(cacheMagic)) {
		return KindCache, "", nil
	}
	for len(b) > 0 {
		ln := b
		if k := bytes.IndexByte(b, '\n'); k >= 0 {
			ln, b = b[:k], b[k+1:]
		} else {
			b = nil
		}
		if skipSpace(ln, 0) < len(ln) {
			return SniffLine(ln), string(bytes.TrimRight(ln, "\r")), nil
		}
	}
	return KindUnknown, "", nil
}
