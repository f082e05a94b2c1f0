package text

import (
	"bytes"
	"errors"
	"strconv"
)

// DefaultLabelPrefix is what marks a label in the FastText format
// (ReadOptions.LabelPrefix), as in fastText itself.
const DefaultLabelPrefix = "__label__"

// ErrMultiLabel reports a FastText line with more than one label, when
// ReadOptions.MultiLabel does not accept them.
var ErrMultiLabel = errors.New("text: several labels on one line")

// fastText is the Scanner's state for the FastText format: the labels of
// the current line, and a buffer for a text that labels interrupted.
type fastText struct {
	prefix []byte
	labels []string
	text   []byte
}

// isFastText reports whether the line ln, of which the first non-blank
// byte is at i, starts with the label prefix: how Auto tells the format.
func (s *Scanner) isFastText(ln []byte, i int) bool {
	return bytes.HasPrefix(ln[i:], s.ft.prefix)
}

// parseFastText splits a FastText line into its labels (every
// whitespace-separated token that starts with the prefix, wherever it
// stands) and its text (the other tokens). It keeps every label in
// s.ft.labels, and returns the first.
func (s *Scanner) parseFastText(ln []byte) (label, text []byte, labelCol int, blank bool, le *lineError) {
	if ln, le = textLine(ln); le != nil || skipSpace(ln, 0) == len(ln) {
		return nil, nil, 0, le == nil, le
	}
	s.ft.labels = s.ft.labels[:0]
	s.ft.text = s.ft.text[:0]
	p := s.ft.prefix
	textStart, contiguous := -1, true
	for i := 0; i < len(ln); {
		i = skipSpace(ln, i)
		if i == len(ln) {
			break
		}
		j := i
		for j < len(ln) && !isSpace(ln[j]) {
			j++
		}
		tok := ln[i:j]
		if !bytes.HasPrefix(tok, p) {
			if textStart < 0 {
				textStart = i
			}
			if len(s.ft.text) > 0 {
				s.ft.text = append(s.ft.text, ' ')
			}
			s.ft.text = append(s.ft.text, tok...)
			i = j
			continue
		}
		if textStart >= 0 {
			contiguous = false // a label after text: the text is rebuilt
		}
		name := tok[len(p):]
		if len(name) == 0 {
			return nil, nil, 0, false, errAt(i, ErrLabel, "empty label: "+strconv.Quote(string(p))+" with no name after it")
		}
		if len(s.ft.labels) == 0 {
			label, labelCol = name, i+len(p)+1
		} else if !s.opt.MultiLabel {
			return nil, nil, 0, false, errAt(i, ErrMultiLabel, "a second label "+strconv.Quote(string(tok))+": several labels per line are a multi-label document (train -multilabel, ReadOptions.MultiLabel)")
		}
		s.ft.labels = append(s.ft.labels, s.intern(name))
		i = j
	}
	if len(s.ft.labels) == 0 {
		return nil, nil, 0, false, errAt(skipSpace(ln, 0), ErrMissingField, "no label: a fastText line holds a token starting with "+strconv.Quote(string(p)))
	}
	switch {
	case textStart < 0:
		text = nil
	case contiguous:
		// Labels first, then the text as written, to the end of the line.
		text = ln[textStart:]
	default:
		text = s.ft.text
	}
	return label, text, labelCol, false, nil
}

// Labels returns the labels of the current document: in the FastText
// format every labelled token of its line, in order (more than one only
// with ReadOptions.MultiLabel); with MultiLabel, a JSONL array's labels
// (none for an empty one) or a TSV field's comma-separated labels; else
// its one label. The slice is valid until the next call to Scan.
func (s *Scanner) Labels() []string {
	switch {
	case s.format == FastText:
		return s.ft.labels
	case s.list != nil:
		return s.list
	}
	return []string{s.doc.Label}
}
