package text

import (
	"bytes"
	"fmt"
	"github.com/hyperplane-ml/hyperplane/sparse/internal/lineio"
	"io"
	"slices"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
	"github.com/hyperplane-ml/hyperplane/sparse/internal/readopt"
)

// readCheckBytes is how much the documents read grow between checks
// against the memory budget.
const readCheckBytes = 1 << 20

// DefaultMaxLineBytes is the default limit on the length of one input line
// (ReadOptions.MaxLineBytes): 64 MiB.
const DefaultMaxLineBytes = 64 << 20

// Format is the layout of a labelled text input.
type Format uint8

const (
	// Auto picks JSONL if the first non-blank character of the input is
	// '{', FastText if the first non-blank line starts with the label
	// prefix, else TSV.
	Auto Format = iota
	// JSONL holds one JSON object per line, with a label field (a string
	// or a number) and a text field (a string); other fields are checked
	// for well-formedness and ignored.
	JSONL
	// TSV holds one document per line: the label, a tab, the text (which
	// runs to the end of the line and may hold more tabs). Spaces around
	// the label are dropped.
	TSV
	// Lines holds one document per line, the whole line (a '\r' before
	// the '\n' dropped), without a label, as fastText's predict reads
	// text. Every line is a document, a blank one too, so that outputs
	// written a line per document line up with the input. Only with
	// ReadOptions.Documents.
	Lines
	// FastText is fastText's own format: one document per line, its
	// label a whitespace-separated token made of the label prefix
	// (ReadOptions.LabelPrefix, "__label__" by default) and the label's
	// name, usually first (__label__pos great movie), the rest of the
	// line the text. Every prefixed token of a line is a label.
	FastText
)

var formatNames = [...]string{"auto", "jsonl", "tsv", "lines", "fasttext"}

// String returns "auto", "jsonl", "tsv", "lines" or "fasttext".
func (f Format) String() string { return enumName(f, formatNames[:], "Format") }

// ReadOptions controls Read, ReadFile and NewScanner. The zero value reads
// JSONL or TSV, gzip-compressed or not, with the defaults documented on
// each field.
//
// How the format is chosen: Format when it is not Auto; otherwise the
// first non-blank line settles it for the whole input. A line that
// starts with '{' starts JSONL. A line that looks like LIBSVM (a label,
// then index:value pairs) or starts with a cache file's magic is refused
// with ErrNotText, since reading its columns as words would give
// meaningless predictions without a sign of why. Any other line starts
// TSV, or with Documents, TSV when it holds a tab after a label that
// IsLabel accepts and Lines otherwise. A reader that knows more (a file
// named .tsv, a command's -from flag) sets Format.
type ReadOptions struct {
	// Format is the input's layout; the zero value, Auto, sniffs it.
	Format Format
	// Documents reads documents whose label is absent or not wanted, as
	// a prediction reads them: a JSONL object needs only its text field
	// (a label field is skipped like any other member), a TSV line's
	// label is dropped unread, and Format may be Lines. Doc.Label is
	// then empty. The fields, the JSON grammar, gzip, the byte order
	// mark and CRLF are handled as for labelled documents, so that one
	// input gives the same documents either way.
	Documents bool
	// IsLabel, with Documents and Format Auto, tells TSV from plain
	// lines: a first line with a tab after a label it accepts starts
	// TSV. Pass the labels of the model that will classify the
	// documents (Featurizer.IsLabel): labelled test data then reads as
	// TSV, and a plain document as a whole line. nil accepts none.
	IsLabel func(label string) bool
	// LabelField is the JSONL field holding the label; "" means "label".
	LabelField string
	// TextField is the JSONL field holding the text; "" means "text".
	TextField string
	// LabelPrefix marks the labels of the FastText format; "" means
	// DefaultLabelPrefix.
	LabelPrefix string
	// MultiLabel reads documents with any number of labels (see
	// Scanner.Labels and Corpus.Labels): FastText lines with several
	// labels (by default such a line is an error wrapping
	// ErrMultiLabel); a JSONL label that is an array of strings or
	// numbers (an empty array is a document with no label, not an
	// error; Doc.Label is then ""); a TSV label field read as a list
	// separated by commas (empty or "-" for none). A single label is a
	// list of one.
	MultiLabel bool
	// MaxLineBytes limits the length of a line, not counting its '\n'
	// (ErrLineTooLong beyond it), and so the memory a Scanner uses. 0
	// means DefaultMaxLineBytes.
	MaxLineBytes int
	// Name names the input in errors and becomes the Corpus name;
	// ReadFile defaults it to the path.
	Name string
}

func (o ReadOptions) normalize() (ReadOptions, error) {
	switch {
	case o.Format > FastText:
		return o, fmt.Errorf("%w: unknown Format %d", ErrConfig, o.Format)
	case o.Format == Lines && !o.Documents:
		return o, fmt.Errorf("%w: Format Lines holds no labels: it is read with Documents only", ErrConfig)
	case o.MaxLineBytes < 0:
		return o, fmt.Errorf("%w: MaxLineBytes = %d is negative", ErrConfig, o.MaxLineBytes)
	}
	if o.LabelField == "" {
		o.LabelField = "label"
	}
	if o.TextField == "" {
		o.TextField = "text"
	}
	if o.LabelField == o.TextField && !o.Documents {
		return o, fmt.Errorf("%w: LabelField and TextField are both %q", ErrConfig, o.LabelField)
	}
	if o.MaxLineBytes == 0 {
		o.MaxLineBytes = DefaultMaxLineBytes
	}
	if o.LabelPrefix == "" {
		o.LabelPrefix = DefaultLabelPrefix
	}
	return o, nil
}

// Doc is one labelled document.
type Doc struct {
	Label string
	Text  string
	// Line is the 1-based line the document was read from, for error
	// messages; 0 for a document that was not read from an input.
	Line int
}

// Corpus is a named list of documents, as read from one input.
type Corpus struct {
	// Name names the input in error messages (a file path, say).
	Name string
	Docs []Doc
	// LabelField and TextField are the JSONL fields the documents were
	// read from (Read sets them; "" means "label" and "text"). Fit keeps
	// them in the Featurizer, so that its test text is read alike (see
	// Featurizer.ReadOptions).
	LabelField, TextField string
	// Labels, when the corpus was read with ReadOptions.MultiLabel,
	// holds the labels of each document, Labels[i] those of Docs[i]
	// (empty for a document with no label); nil otherwise.
	Labels [][]string
}

// docErr reports a bad label of document i.
func (c *Corpus) docErr(i int, msg string) error {
	if line := c.Docs[i].Line; line > 0 {
		return &sparse.ParseError{File: c.Name, Line: line, Col: 1, Msg: msg, Err: ErrLabel}
	}
	if c.Name != "" {
		return fmt.Errorf("%w: %s: document %d: %s", ErrLabel, c.Name, i, msg)
	}
	return fmt.Errorf("%w: document %d: %s", ErrLabel, i, msg)
}

// ReadFile reads the labelled documents of the file at path with Read. If
// opt.Name is empty, errors name the file by its path.
func ReadFile(path string, opt ReadOptions) (*Corpus, error) {
	return readopt.ReadFile(path, &opt.Name, func(r io.Reader) (*Corpus, error) { return Read(r, opt) })
}

// Read reads every labelled document of r into memory. Input starting with
// the gzip magic bytes is decompressed. It accepts and rejects exactly
// what Scanner does; see there. Documents that would take more memory
// than the budget (budget.Default) are an error wrapping
// budget.ErrExceeded.
func Read(r io.Reader, opt ReadOptions) (*Corpus, error) {
	s := NewScanner(r, opt)
	c := &Corpus{Name: s.opt.Name, LabelField: s.opt.LabelField, TextField: s.opt.TextField}
	var held, next int64 // bytes of the texts and labels; when to check next
	for s.Scan() {
		d := s.doc
		held += int64(len(d.Text) + len(d.Label))
		for _, l := range s.Labels() {
			held += int64(len(l)) + 16
		}
		if len(c.Docs) == cap(c.Docs) || held >= next {
			// append may double the slice of documents.
			docs := budget.Mul(int64(max(2*cap(c.Docs), 8)), int64(unsafe.Sizeof(Doc{})))
			if err := budget.Check(0, budget.Add(held, docs), "the documents of "+describeInput(s.opt.Name)); err != nil {
				return nil, err
			}
			next = held + readCheckBytes
		}
		c.Docs = append(c.Docs, d)
		if s.opt.MultiLabel && !s.opt.Documents {
			c.Labels = append(c.Labels, slices.Clone(s.Labels()))
		}
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	return c, nil
}

// Scanner reads labelled documents one at a time, in bounded memory: its
// buffer grows to the longest line, at most ReadOptions.MaxLineBytes.
//
//	sc := text.NewScanner(r, text.ReadOptions{})
//	for sc.Scan() {
//		d := sc.Doc()
//		...
//	}
//	if err := sc.Err(); err != nil { ... }
//
// Accepted: input compressed with gzip (detected by its magic bytes);
// a UTF-8 byte order mark at the start; CRLF line ends; blank lines
// (skipped, but counted in line numbers); a last line without a newline.
// In JSONL the label may be a string or a number (kept as written, "1.0"
// stays "1.0"), the members may come in any order, strings are fully
// unescaped (\uXXXX escapes and surrogate pairs included), and invalid
// UTF-8 in a string becomes U+FFFD, as with encoding/json. So does each
// invalid byte of a TSV label, so that a label reads the same in both
// formats and survives the featurizer's JSON file (Save). A repeated
// field counts by its last value.
//
// Rejected, with a *sparse.ParseError giving the line and byte column:
// malformed JSON, or anything but whitespace after the object (ErrSyntax);
// a missing label or text field, or a TSV line without a tab
// (ErrMissingField); a label that is not a string or number, or a text
// that is not a string (ErrFieldType); an empty label, or one holding a
// control character such as a tab, a line end, NEL or U+2028 (ErrLabel); a line
// longer than MaxLineBytes (ErrLineTooLong); a NUL byte in TSV, Lines or
// FastText (ErrSyntax); a FastText line without a label
// (ErrMissingField), with a bare prefix (ErrLabel) or, unless
// MultiLabel, with a second label (ErrMultiLabel); with Format Auto, a first line of LIBSVM or a cache file
// (ErrNotText). A failed read of the input is returned as the reader's
// error, wrapped, and never as a parse error of the part of a line read
// before it. Reading stops at the first error.
//
// With ReadOptions.Documents a Scanner reads documents without labels
// (see there): the label field of JSONL is not required, a TSV label is
// dropped, and Lines is one more format, in which every line is a
// document.
type Scanner struct {
	opt    ReadOptions
	format Format
	lr     lineio.Reader // opens the input at the first Scan
	jp     jsonParser
	line   int
	doc    Doc
	labels map[string]string // interned label strings
	ft     fastText
	err    error
	// blanks counts the blank lines before the first non-blank one, while
	// the format is not settled: if it becomes Lines, each is a document,
	// given out before held, the document of the line that settled it.
	blanks int
	held   *Doc
	// list holds the labels of the line just parsed, with MultiLabel.
	list []string
}

// NewScanner returns a Scanner reading r. With invalid options Scan
// returns false at once and Err reports an error wrapping ErrConfig. A
// Scanner is not safe for concurrent use.
func NewScanner(r io.Reader, opt ReadOptions) *Scanner {
	o, err := opt.normalize()
	s := &Scanner{opt: o, format: o.Format, err: err}
	s.lr = lineio.Reader{Src: r, Open: true, Max: o.MaxLineBytes}
	s.jp.labelKey = []byte(o.LabelField)
	s.jp.textKey = []byte(o.TextField)
	s.jp.noLabel = o.Documents
	s.jp.multi = o.MultiLabel && !o.Documents
	s.labels = make(map[string]string)
	s.ft.prefix = []byte(o.LabelPrefix)
	return s
}

// Scan advances to the next document. It returns false at the end of the
// input or on an error; Err tells which.
func (s *Scanner) Scan() bool {
	if s.err != nil {
		return false
	}
	if s.held != nil {
		// The format was settled as Lines after blank lines: each is a
		// document, before the line that settled it.
		if s.blanks > 0 {
			s.doc = Doc{Line: s.held.Line - s.blanks}
			s.blanks--
			return true
		}
		s.doc, s.held = *s.held, nil
		return true
	}
	for {
		ln, st := s.lr.Next()
		switch st {
		case lineio.EOF:
			return false
		case lineio.ReadErr:
			s.err = readErr(s.opt.Name, s.lr.Err)
			return false
		case lineio.TooLong:
			s.line++
			s.err = &sparse.ParseError{File: s.opt.Name, Line: s.line, Col: s.opt.MaxLineBytes + 1,
				Msg: "line longer than " + strconv.Itoa(s.opt.MaxLineBytes) + " bytes (ReadOptions.MaxLineBytes)", Err: ErrLineTooLong}
			return false
		}
		s.line++
		settling := s.format == Auto
		label, text, labelCol, blank, le := s.parseLine(ln)
		if le == nil && !blank && !s.opt.Documents {
			switch k, r := controlChar(label); {
			case len(label) == 0 && s.list == nil:
				le = &lineError{col: labelCol, msg: "empty label", err: ErrLabel}
			case k >= 0:
				le = &lineError{col: labelCol, msg: fmt.Sprintf("label %q holds a control character (%U): a label is one field of one output line", label, r), err: ErrLabel}
			}
			for _, l := range s.list {
				if k, r := controlChar([]byte(l)); k >= 0 && le == nil {
					le = &lineError{col: labelCol, msg: fmt.Sprintf("label %q holds a control character (%U): a label is one field of one output line", l, r), err: ErrLabel}
				}
			}
		}
		if le != nil {
			s.err = &sparse.ParseError{File: s.opt.Name, Line: s.line, Col: le.col, Msg: le.msg, Err: le.err}
			return false
		}
		if blank {
			if s.format == Auto {
				s.blanks++
			}
			continue
		}
		d := Doc{Text: string(text), Line: s.line}
		if !s.opt.Documents {
			d.Label = s.intern(label)
			if s.opt.MultiLabel && s.list == nil {
				s.list = []string{d.Label}
			}
		}
		if settling && s.format == Lines && s.blanks > 0 {
			s.held = &d
			return s.Scan()
		}
		s.doc = d
		return true
	}
}

// parseLine parses one line in the input's format, settling the format
// on the first non-blank line if it is Auto.
func (s *Scanner) parseLine(ln []byte) (label, text []byte, labelCol int, blank bool, le *lineError) {
	if s.format == Auto {
		i := skipSpace(ln, 0)
		if i == len(ln) {
			return nil, nil, 0, true, nil
		}
		switch SniffLine(ln) {
		case KindCache:
			return nil, nil, 0, false, errAt(0, ErrNotText, "the input starts with a cache file's magic (sparse/hpc), not text")
		case KindLIBSVM:
			return nil, nil, 0, false, errAt(i, ErrNotText, "the line looks like LIBSVM (a label, then index:value pairs), not text")
		case KindJSONL:
			s.format = JSONL
		default:
			s.format = TSV
			if s.isFastText(ln, i) {
				s.format = FastText
			} else if s.opt.Documents && !s.tsvLabel(ln) {
				s.format = Lines
			}
		}
	}
	s.list = nil
	switch s.format {
	case FastText:
		return s.parseFastText(ln)
	case JSONL:
		d, blank, le := s.jp.parse(ln)
		if d.list && le == nil {
			s.list = d.labels
			if s.list == nil {
				s.list = []string{}
			}
		}
		return d.label, d.text, d.labelCol, blank, le
	case Lines:
		return parseLines(ln)
	}
	label, text, labelCol, blank, le = parseTSV(ln)
	if s.opt.MultiLabel && !s.opt.Documents && le == nil && !blank {
		s.list = splitLabelList(string(label))
		label = nil
	}
	return label, text, labelCol, blank, le
}

// tsvLabel reports whether ln holds a tab after a label IsLabel accepts.
func (s *Scanner) tsvLabel(ln []byte) bool {
	if s.opt.IsLabel == nil {
		return false
	}
	label, _, _, _, le := parseTSV(ln)
	return le == nil && len(label) > 0 && s.opt.IsLabel(string(label))
}

// parseLines returns a line of Lines as a document's text: all of it, a
// final '\r' dropped.
func parseLines(ln []byte) (label, text []byte, labelCol int, blank bool, le *lineError) {
	ln, le = textLine(ln)
	return nil, ln, 0, false, le
}

// textLine returns ln without its final '\r', refusing a NUL byte in it,
// which no text line holds (the file is binary data). A line of white
// space only, which the labelled formats skip, holds no NUL.
func textLine(ln []byte) (text []byte, le *lineError) {
	if n := len(ln); n > 0 && ln[n-1] == '\r' {
		ln = ln[:n-1]
	}
	if k := bytes.IndexByte(ln, 0); k >= 0 {
		return nil, errAt(k, ErrSyntax, "NUL byte in a text line (binary data?)")
	}
	return ln, nil
}

// parseTSV splits a TSV line into its label and text.
func parseTSV(ln []byte) (label, text []byte, labelCol int, blank bool, le *lineError) {
	if ln, le = textLine(ln); le != nil || skipSpace(ln, 0) == len(ln) {
		return nil, nil, 0, le == nil, le
	}
	tab := bytes.IndexByte(ln, '\t')
	if tab < 0 {
		return nil, nil, 0, false, errAt(0, ErrMissingField, "no tab between the label and the text (TSV is LABEL<TAB>TEXT; fastText lines start with __label__)")
	}
	a, b := 0, tab
	for a < b && ln[a] == ' ' {
		a++
	}
	for b > a && ln[b-1] == ' ' {
		b--
	}
	return ln[a:b], ln[tab+1:], a + 1, false, nil
}

// intern returns label as a string, sharing one string per distinct
// label (there are usually few) instead of allocating one per document.
func (s *Scanner) intern(label []byte) string {
	if v, ok := s.labels[string(label)]; ok {
		return v
	}
	key, v := string(label), string(label)
	if !utf8.Valid(label) {
		// (JSONL labels are valid already: the decoder did this.)
		var b []byte
		for len(label) > 0 {
			r, n := utf8.DecodeRune(label)
			b, label = utf8.AppendRune(b, r), label[n:]
		}
		v = string(b)
	}
	if len(s.labels) < 4096 {
		s.labels[key] = v
	}
	return v
}

// controlChar returns the index and the rune of the first control
// character of label, or -1: a C0 control (a byte below 0x20, such as a
// tab or a line end), DEL, a C1 control (U+0080 to U+009F, NEL among
// them) or the line and paragraph separators U+2028 and U+2029, which
// tools that split lines by Unicode take for line ends. Such a label could
// not be written as one field of one line.
func controlChar(label []byte) (int, rune) {
	for i := 0; i < len(label); {
		c := label[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return i, rune(c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(label[i:])
		if r >= 0x80 && r <= 0x9f || r == 0x2028 || r == 0x2029 {
			return i, r
		}
		i += n
	}
	return -1, 0
}

// Doc returns the current document.
func (s *Scanner) Doc() Doc { return s.doc }

// Err returns the error that stopped Scan, or nil at a clean end of input.
func (s *Scanner) Err() error { return s.err }

func readErr(name string, err error) error {
	if name == "" {
		return fmt.Errorf("text: reading input: %w", err)
	}
	return fmt.Errorf("text: reading %s: %w", name, err)
}

var bom = lineio.BOM
