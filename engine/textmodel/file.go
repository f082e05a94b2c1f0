package textmodel

// The file, version 5, little-endian:
//
//	offset  size  field
//	0       4     magic "HPTM"
//	4       2     format version (uint16, 5)
//	6       2     flags (uint16): bit 0, the featurizer part is DEFLATE
//	              compressed (RFC 1951), which versions 2 and 3 wrote;
//	              others 0. Versions 4 and 5 write 0: their featurizer
//	              form compresses only its vocabulary's terms, with a
//	              codec that inflates several times faster, and keeps
//	              their order by hash, which fills their index in one
//	              pass
//	8       8     featurizer length F (uint64), as stored
//	16      F     the featurizer, as text.Featurizer.MarshalBinary writes
//	              it
//	        8     model length M (uint64)
//	        M     the model, as engine.Model or engine.KernelModel WriteTo
//	              writes it (told apart by their own magic)
//	        8     calibration length L (uint64; 0: not calibrated)
//	        L     the calibration, as calibrate.Calibration.MarshalBinary
//	              writes it
//	        8     feature names length N (uint64; 0: none)
//	        N     the names of the strongest features, as
//	              text.Names.MarshalBinary writes them
//	        4·P   page checksums: the CRC-32C (Castagnoli) of each page
//	              of 4096 bytes of the D bytes before them, in order, the
//	              last page shorter unless D is a multiple of 4096;
//	              P = ⌈D/4096⌉
//	        8     D (uint64)
//	        4     CRC-32C of the page checksums and D
//
// The page checksums let LoadFor read a few pages of the file, the ones
// that hold what a few documents need, and still verify every byte it
// uses; the featurizer part is written in a form that can be read so
// (version 3 of text.Featurizer's binary form). A whole read verifies
// every page.
//
// Version 4 ends with the names part and the CRC-32C of every byte
// before it, in place of the page checksums, and holds the featurizer's
// binary form version 2, which reads only whole. Version 3 is version 4
// with the featurizer's binary form version 1, whose terms are hashed
// again and indexed as they are read, DEFLATE
// compressed; version 2 has the featurizer as text.Featurizer.WriteTo
// writes it, a JSON document (compressed with flag bit 0, to about a
// quarter), which is several times slower to read; version 1 is version
// 2 without the calibration and the names. The parts keep their own
// versions and checks; a reader checks the lengths against the memory
// budget before reading them.

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"slices"

	"github.com/klauspost/compress/flate"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/engine/calibrate"
	"github.com/hyperplane-ml/hyperplane/sparse/atomicfile"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

// ErrFormat: the input is not a text model file, is truncated or corrupt,
// or has a version this build cannot read.
var ErrFormat = errors.New("textmodel: bad text model file")

const (
	fileMagic   = "HPTM"
	fileVersion = 5
	// pageSize is the span of a page checksum.
	pageSize    = 4096
	flagDeflate = 1 << 0 // the featurizer part is compressed
	// maxCalibration bounds the calibration part: it holds a few numbers.
	maxCalibration = 1 << 10
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// WriteTo writes m to w in the text model format and returns the bytes
// written.
func (m *Model) WriteTo(w io.Writer) (int64, error) {
	feat, err := m.featurizerForm()
	if err != nil {
		return 0, err
	}
	var model bytes.Buffer
	if _, err := m.classifier.WriteTo(&model); err != nil {
		return 0, err
	}
	var cal, names []byte
	if m.calib != nil {
		if cal, err = m.calib.MarshalBinary(); err != nil {
			return 0, err
		}
	}
	if m.featNames != nil {
		if names, err = m.featNames.MarshalBinary(); err != nil {
			return 0, err
		}
	}
	var sums pageSums
	bw := bufio.NewWriter(io.MultiWriter(w, &sums))
	var hdr [16]byte
	copy(hdr[:], fileMagic)
	binary.LittleEndian.PutUint16(hdr[4:], fileVersion)
	binary.LittleEndian.PutUint16(hdr[6:], 0)
	binary.LittleEndian.PutUint64(hdr[8:], uint64(len(feat)))
	bw.Write(hdr[:])
	bw.Write(feat)
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(model.Len()))
	bw.Write(n[:])
	bw.Write(model.Bytes())
	binary.LittleEndian.PutUint64(n[:], uint64(len(cal)))
	bw.Write(n[:])
	bw.Write(cal)
	binary.LittleEndian.PutUint64(n[:], uint64(len(names)))
	bw.Write(n[:])
	bw.Write(names)
	if err := bw.Flush(); err != nil {
		return 0, err
	}
	d := sums.total
	trailer := appendTrailer(nil, sums.finish(), d)
	if _, err := w.Write(trailer); err != nil {
		return 0, err
	}
	return d + int64(len(trailer)), nil
}

// pageSums is a writer that keeps the CRC-32C of each page of what is
// written to it.
type pageSums struct {
	sums  []uint32
	cur   uint32 // of the page being written, n bytes so far
	n     int
	total int64
}

func (p *pageSums) Write(b []byte) (int, error) {
	k := len(b)
	for len(b) > 0 {
		c := min(len(b), pageSize-p.n)
		p.cur = crc32.Update(p.cur, crcTable, b[:c])
		p.n += c
		b = b[c:]
		if p.n == pageSize {
			p.sums = append(p.sums, p.cur)
			p.cur, p.n = 0, 0
		}
	}
	p.total += int64(k)
	return k, nil
}

// finish returns the checksums of every page written, a last one shorter
// than a page included.
func (p *pageSums) finish() []uint32 {
	if p.n > 0 {
		p.sums = append(p.sums, p.cur)
		p.cur, p.n = 0, 0
	}
	return p.sums
}

// appendTrailer appends what ends a file of d bytes before it whose pages
// have the checksums sums: those, d and their checksum.
func appendTrailer(out []byte, sums []uint32, d int64) []byte {
	start := len(out)
	for _, c := range sums {
		out = binary.LittleEndian.AppendUint32(out, c)
	}
	out = binary.LittleEndian.AppendUint64(out, uint64(d))
	return binary.LittleEndian.AppendUint32(out, crc32.Checksum(out[start:], crcTable))
}

// trailerSize returns the size of the trailer of a file of d bytes before
// it.
func trailerSize(d uint64) uint64 { return 4*((d+pageSize-1)/pageSize) + 12 }

// fileSum is the checksum a reader computes of what it reads: the CRC-32C
// of every byte (versions before 5) or of each page (version 5 on), both
// until the version is known.
type fileSum struct {
	whole, pages bool
	crc          uint32
	sums         pageSums
}

func (s *fileSum) Write(b []byte) (int, error) {
	if s.whole {
		s.crc = crc32.Update(s.crc, crcTable, b)
	}
	if s.pages {
		s.sums.Write(b)
	}
	return len(b), nil
}

// Save writes m to path atomically: on any error an existing file there
// is left as it was.
func (m *Model) Save(path string) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := m.WriteTo(w)
		return err
	})
}

// Read reads a text model written by WriteTo. A file that is not one, is
// truncated or corrupt is an error wrapping ErrFormat (or the format
// error of the featurizer or model inside); parts larger than the memory
// budget are refused before they are read. It reads no more than the
// model from r.
func Read(r io.Reader) (*Model, error) {
	size := int64(-1)
	if l, ok := r.(interface{ Len() int }); ok {
		size = int64(l.Len())
	}
	return read(r, size, nil)
}

// read is Read of r, which holds size bytes if size ≥ 0 (a parts of at
// most what is left is then read at its full size at once; otherwise as
// the data arrive, so that a short input claiming a large part allocates
// no more than it holds). With docs not nil it reads a file of version 4
// or later for those documents only (see LoadFor), or returns
// engine.ErrNoSubset.
func read(r io.Reader, size int64, docs []string) (*Model, error) {
	sum := &fileSum{whole: true, pages: true}
	sf := &streamFile{r: r, tr: io.TeeReader(r, sum), sum: sum, left: size - 16}
	flen, err := sf.header()
	if err != nil {
		return nil, err
	}
	feat, err := sf.part(flen, "featurizer")
	if err != nil {
		return nil, err
	}
	fd, err := sf.startFeaturizer(feat, docs)
	if err != nil {
		return nil, err
	}
	defer func() { <-fd.done }()
	c, err := sf.classifier(fd.kept)
	if err != nil {
		return nil, err
	}
	var cal, names []byte
	if sf.version >= 2 {
		if cal, names, err = sf.calibrationNames(); err != nil {
			return nil, err
		}
	}
	if err := sf.checksums(); err != nil {
		return nil, err
	}
	f, err := sf.featurizer(fd, feat)
	if err != nil {
		return nil, err
	}
	if fd.kept != nil {
		// Names are by the whole vocabulary's features; a model read
		// for some documents names its features by its own terms.
		names = nil
	}
	return assemble(f, c, cal, names)
}

// formatErr returns an error wrapping ErrFormat.
func formatErr(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrFormat}, a...)...)
}

// streamFile is a text model file that read reads in one pass.
type streamFile struct {
	r    io.Reader // the input: the checksums at its end are read from it
	tr   io.Reader // the input through sum, for all before them
	sum  *fileSum
	left int64 // bytes known to be left; < 0: unknown
	// version and flags are the header's.
	version, flags uint16
}

// header reads and checks the header, sets the checksum the version
// calls for, and returns the length of the featurizer part.
func (sf *streamFile) header() (uint64, error) {
	var hdr [16]byte
	if _, err := io.ReadFull(sf.tr, hdr[:]); err != nil {
		return 0, formatErr("header: %v", err)
	}
	version, flags := binary.LittleEndian.Uint16(hdr[4:]), binary.LittleEndian.Uint16(hdr[6:])
	switch {
	case string(hdr[:4]) != fileMagic:
		return 0, formatErr("not a text model file (magic %q, want %q)", hdr[:4], fileMagic)
	case version < 1 || version > fileVersion:
		return 0, formatErr("format version %d, this build reads 1 to %d", version, fileVersion)
	case flags&^flagDeflate != 0 || (version == 1 || version >= 4) && flags != 0:
		return 0, formatErr("unknown flags %#x", flags)
	}
	sf.version, sf.flags = version, flags
	sf.sum.whole, sf.sum.pages = version < 5, version >= 5
	return binary.LittleEndian.Uint64(hdr[8:]), nil
}

// part reads the next part, of n bytes: at once where the input is known
// to hold them, otherwise as they arrive, so that a short input claiming
// a large part allocates no more than it holds.
func (sf *streamFile) part(n uint64, what string) ([]byte, error) {
	if sf.left >= 0 && n > uint64(sf.left) {
		return nil, formatErr("%s: %d bytes, %d left", what, n, sf.left)
	}
	if err := budget.Check(0, int64(min(n, 1<<62)), "reading the "+what); err != nil {
		return nil, err
	}
	if sf.left >= 0 && n <= uint64(sf.left) {
		b := make([]byte, n)
		if _, err := io.ReadFull(sf.tr, b); err != nil {
			return nil, formatErr("%s: truncated: %v", what, err)
		}
		sf.left -= int64(n)
		return b, nil
	}
	b, err := io.ReadAll(io.LimitReader(sf.tr, int64(n)))
	if err != nil {
		return nil, err
	}
	if uint64(len(b)) != n {
		return nil, formatErr("%s: truncated: %d of %d bytes", what, len(b), n)
	}
	return b, nil
}

// length reads the length of the part what.
func (sf *streamFile) length(what string) (uint64, error) {
	var n [8]byte
	if _, err := io.ReadFull(sf.tr, n[:]); err != nil {
		return 0, formatErr("%s length: %v", what, err)
	}
	sf.left -= 8
	return binary.LittleEndian.Uint64(n[:]), nil
}

// featDecode is the decoding of the featurizer part, which may run while
// the rest of the file is read: done is closed once f and err are set.
// kept are the features kept of a vocabulary read for some documents.
type featDecode struct {
	f    *text.Featurizer
	err  error
	kept []int32
	done chan struct{}
}

// startFeaturizer starts decoding feat, the featurizer part. A form that
// needs no inflating (version 4 on) is decoded while the rest is read
// and the classifier decoded; a checksum mismatch found after both still
// refuses the file (the decoders check what they read, whatever it is).
// Read for docs, it is decoded at once, since the classifier's features
// to keep are known only then; a file that cannot be read so gives
// engine.ErrNoSubset. Older forms are decoded by featurizer.
func (sf *streamFile) startFeaturizer(feat []byte, docs []string) (*featDecode, error) {
	fd := &featDecode{done: make(chan struct{})}
	switch {
	case docs != nil && sf.version >= 4:
		fd.f = new(text.Featurizer)
		if fd.kept, fd.err = fd.f.UnmarshalBinaryFor(feat, docs); fd.err == nil && fd.kept == nil {
			return nil, engine.ErrNoSubset
		}
		close(fd.done)
	case docs != nil:
		return nil, engine.ErrNoSubset
	case sf.version >= 4:
		go func() {
			defer close(fd.done)
			fd.f = new(text.Featurizer)
			fd.err = fd.f.UnmarshalBinary(feat)
		}()
	default:
		close(fd.done)
	}
	return fd, nil
}

// classifier reads the model part, of the features kept only when kept
// is not nil. The classifier is decoded as it streams by, not copied
// whole first: it has its own checksum and memory budget checks, and its
// weights are the bulk of the file.
func (sf *streamFile) classifier(kept []int32) (engine.Classifier, error) {
	mlen, err := sf.length("model")
	if err != nil {
		return nil, err
	}
	if err := budget.Check(0, int64(min(mlen, 1<<62)), "reading the model"); err != nil {
		return nil, err
	}
	mr := &io.LimitedReader{R: sf.tr, N: int64(min(mlen, 1<<62))}
	var cr io.Reader = mr
	if sf.left >= 0 && mlen <= uint64(sf.left) {
		// The file holds the whole part: the decoder, told its size,
		// sizes each array once instead of growing it as data arrive.
		cr = sizedReader{mr}
	}
	var c engine.Classifier
	if kept != nil {
		c, err = engine.ReadClassifierFeatures(cr, kept)
		if errors.Is(err, engine.ErrNoSubset) {
			return nil, err
		}
	} else {
		c, err = engine.ReadClassifier(cr)
	}
	if err != nil {
		return nil, partErr("model", err)
	}
	if k, _ := io.Copy(io.Discard, mr); k != 0 {
		return nil, formatErr("model: %d bytes after it", k)
	}
	sf.left -= int64(min(mlen, 1<<62))
	return c, nil
}

// calibrationNames reads the calibration and feature names parts
// (version 2 on).
func (sf *streamFile) calibrationNames() (cal, names []byte, err error) {
	l, err := sf.length("calibration")
	if err != nil {
		return nil, nil, err
	}
	if l > maxCalibration {
		return nil, nil, formatErr("calibration of %d bytes (at most %d)", l, maxCalibration)
	}
	if cal, err = sf.part(l, "calibration"); err != nil {
		return nil, nil, err
	}
	if l, err = sf.length("names"); err != nil {
		return nil, nil, err
	}
	if names, err = sf.part(l, "feature names"); err != nil {
		return nil, nil, err
	}
	return cal, names, nil
}

// checksums reads the checksums that end the file, the pages' (version
// 5 on) or the CRC-32C of every byte, and compares them with those of
// what was read.
func (sf *streamFile) checksums() error {
	if sf.version >= 5 {
		d := sf.sum.sums.total
		sums := sf.sum.sums.finish()
		trailer := make([]byte, trailerSize(uint64(d)))
		if _, err := io.ReadFull(sf.r, trailer); err != nil {
			return formatErr("page checksums: %v", err)
		}
		if !slices.Equal(trailer, appendTrailer(nil, sums, d)) {
			return formatErr("page checksums do not match: the file is corrupt")
		}
		return nil
	}
	var b [4]byte
	if _, err := io.ReadFull(sf.r, b[:]); err != nil {
		return formatErr("checksum: %v", err)
	}
	if binary.LittleEndian.Uint32(b[:]) != sf.sum.crc {
		return formatErr("checksum mismatch: the file is corrupt")
	}
	return nil
}

// featurizer returns the featurizer of part feat: fd's, once it is
// decoded, or for a file before version 4 decoded now, from its binary
// form version 1 (version 3) or its JSON (versions 1 and 2), inflated
// when flagged.
func (sf *streamFile) featurizer(fd *featDecode, feat []byte) (*text.Featurizer, error) {
	<-fd.done
	if sf.version >= 4 {
		if fd.err != nil {
			return nil, partErr("featurizer", fd.err)
		}
		return fd.f, nil
	}
	var fr io.Reader = bytes.NewReader(feat)
	if sf.flags&flagDeflate != 0 {
		// The featurizer's reader checks what it allocates against
		// the memory budget as it reads; the stream is cut there too.
		zr := flate.NewReader(fr)
		defer zr.Close()
		fr = io.LimitReader(zr, budget.Default())
	}
	if sf.version != 3 {
		f, err := text.ReadFeaturizer(fr)
		if err != nil {
			return nil, partErr("featurizer", err)
		}
		return f, nil
	}
	fb := feat
	var err error
	if sf.flags&flagDeflate != 0 {
		fb, err = readAllSized(fr, uint64(len(feat)))
	}
	var f *text.Featurizer
	if err == nil {
		f = new(text.Featurizer)
		err = f.UnmarshalBinary(fb)
	}
	if err != nil {
		return nil, partErr("featurizer", err)
	}
	return f, nil
}

// assemble returns the model of f and c read from a file, with the
// calibration cal and the feature names names from it, if any.
func assemble(f *text.Featurizer, c engine.Classifier, cal, names []byte) (*Model, error) {
	m, err := New(f, c)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	if len(cal) > 0 {
		var cb calibrate.Calibration
		if err := cb.UnmarshalBinary(cal); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrFormat, err)
		}
		binary := len(m.classes) == 2
		if (cb.Kind() == calibrate.PlattScaling) != binary || (cb.Kind() == calibrate.TemperatureScaling) == binary {
			return nil, fmt.Errorf("%w: a calibration for another number of classes than the model's %d", ErrFormat, len(m.classes))
		}
		m.calib = &cb
	}
	if len(names) > 0 {
		m.featNames = new(text.Names)
		if err := m.featNames.UnmarshalBinary(names); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrFormat, err)
		}
	}
	return m, nil
}

// partErr reports the failure to read one part of a text model file, the
// featurizer or the model: as ErrFormat where the part is bad, but as
// itself where a valid part is larger than the memory budget allows
// (budget.ErrExceeded), which is no fault of the file and is cured by a
// larger budget, not a new file.
func partErr(part string, err error) error {
	if errors.Is(err, budget.ErrExceeded) {
		return fmt.Errorf("%s: %w", part, err)
	}
	return fmt.Errorf("%w: %s: %w", ErrFormat, part, err)
}

// sizedReader is a LimitedReader whose bytes are known to be there,
// which says how many are left as a bytes.Reader does (Len).
type sizedReader struct{ *io.LimitedReader }

func (r sizedReader) Len() int { return int(r.N) }

// Load reads the text model file at path; errors begin with the path. A
// file with data after the model is refused.
func Load(path string) (*Model, error) {
	return load(path, nil)
}

// load is Load, or with docs not nil LoadFor without its fallback.
func load(path string, docs []string) (*Model, error) {
	fl, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fl.Close()
	size := int64(-1)
	if st, err := fl.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	br := bufio.NewReaderSize(fl, 1<<16)
	m, err := read(br, size, docs)
	if err == nil {
		if _, perr := br.Peek(1); perr == nil {
			err = fmt.Errorf("%w: data after the end of the model", ErrFormat)
		}
	}
	if err != nil {
		if errors.Is(err, engine.ErrNoSubset) {
			return nil, err
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// LoadFor is Load for a model that will classify the documents docs and
// no others, as a command line run on a few documents does. Of a model
// with a vocabulary it keeps only the terms that docs hold and their
// weights, which it reads without making the rest: the work and memory
// of loading then follow docs rather than the model's size. For each of
// docs, Classify, Scores, Proba and Explain give what they give with the
// model Load returns, to the bit (see text.Featurizer.UnmarshalBinaryFor
// for the one exception, a hash collision as unlikely as the one a
// vocabulary already accepts). Other documents are classified as if the
// terms they do not share with docs were not in the vocabulary.
//
// Of a file of version 5 or later it reads only the pages that hold what
// it keeps and what locates it (the vocabulary's directory, a compact
// model's Cols, the bitmap of weights stored sparse), and verifies each
// against its checksum; the rest of the file is not read, so a byte
// changed there goes unnoticed here, while Load refuses it. What it
// keeps is checked as Load checks it. A file of version 4 is read whole
// and its checksum verified, but what LoadFor passes over (the other
// terms' hashes and index, the other weights, the names of features) is
// not decoded. A model that cannot be read in part (one that hashes its
// terms, a kernel or voted classifier, a file of a version before 4) is
// read whole, as Load reads it.
func LoadFor(path string, docs []string) (*Model, error) {
	if docs == nil {
		docs = []string{}
	}
	m, err := loadPart(path, docs)
	if errors.Is(err, errNotPaged) {
		m, err = load(path, docs)
	}
	if errors.Is(err, engine.ErrNoSubset) {
		return Load(path)
	}
	return m, err
}

// errNotPaged: the file is not one of version 5 or later, or not a regular
// file, and cannot be read by pages.
var errNotPaged = errors.New("textmodel: not a paged file")

// loadPart is LoadFor of a file of version 5 or later, which it reads by
// pages, only those that the model for docs needs; without a fallback.
func loadPart(path string, docs []string) (*Model, error) {
	fl, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fl.Close()
	st, err := fl.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return nil, errNotPaged
	}
	var hdr [6]byte
	if _, err := fl.ReadAt(hdr[:], 0); err != nil || string(hdr[:4]) != fileMagic || binary.LittleEndian.Uint16(hdr[4:]) < 5 {
		return nil, errNotPaged
	}
	m, err := readPart(fl, st.Size(), docs)
	if err != nil && !errors.Is(err, engine.ErrNoSubset) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, err
}

// readPart reads the model of version 5 or later in the size bytes of r
// for docs, by pages: the featurizer's header and directory and the blocks
// of docs' terms, the classifier's header and Cols, the bitmap of its
// weights when they are stored sparse, and the weights of those terms,
// the calibration; not the names. Each page it reads is verified against
// its checksum, and the checksums against theirs. A model that cannot be
// read in part gives engine.ErrNoSubset.
func readPart(r io.ReaderAt, size int64, docs []string) (*Model, error) {
	pr, err := readPageSums(r, size)
	if err != nil {
		return nil, err
	}
	pf := &pagedFile{pr: pr, off: 16}
	hdr, err := pf.at(0, 16, "header")
	if err != nil {
		return nil, err
	}
	if v, fl := binary.LittleEndian.Uint16(hdr[4:]), binary.LittleEndian.Uint16(hdr[6:]); string(hdr[:4]) != fileMagic || v < 5 || v > fileVersion || fl != 0 {
		return nil, formatErr("magic %q, format version %d, flags %#x: not a text model file of version 5 to %d", hdr[:4], v, fl, fileVersion)
	}
	flen := binary.LittleEndian.Uint64(hdr[8:])
	fo, err := pf.next(flen, "featurizer")
	if err != nil {
		return nil, err
	}
	f, kept, err := text.ReadFeaturizerFor(io.NewSectionReader(pr, fo, int64(flen)), int64(flen), docs)
	if err != nil {
		return nil, partErr("featurizer", err)
	}
	if kept == nil {
		return nil, engine.ErrNoSubset
	}
	c, err := pf.classifier(kept)
	if err != nil {
		return nil, err
	}
	cal, err := pf.calibration()
	if err != nil {
		return nil, err
	}
	l, err := pf.length("names")
	if err != nil {
		return nil, err
	}
	if _, err := pf.next(l, "feature names"); err != nil {
		return nil, err
	}
	if pf.off != pr.size {
		return nil, formatErr("%d bytes after the feature names", pr.size-pf.off)
	}
	return assemble(f, c, cal, nil)
}

// readPageSums reads and checks the page checksums that end the size
// bytes of r, a file of version 5 or later, and returns the reader of
// the bytes before them that verifies them.
func readPageSums(r io.ReaderAt, size int64) (*pageReader, error) {
	if size < 16+12 {
		return nil, formatErr("truncated: %d bytes", size)
	}
	// A short read of the input is a truncated file.
	readAt := func(b []byte, off int64) error {
		if k, err := r.ReadAt(b, off); k < len(b) {
			if err == nil || err == io.EOF {
				return formatErr("truncated at byte %d", off+int64(k))
			}
			return err
		}
		return nil
	}
	var foot [12]byte
	if err := readAt(foot[:], size-12); err != nil {
		return nil, err
	}
	d := binary.LittleEndian.Uint64(foot[:])
	if d >= uint64(size) || trailerSize(d) != uint64(size)-d {
		return nil, formatErr("%d bytes before the page checksums in a file of %d bytes", d, size)
	}
	if err := budget.Check(0, int64(trailerSize(d)), "reading the page checksums"); err != nil {
		return nil, err
	}
	trailer := make([]byte, trailerSize(d))
	if err := readAt(trailer, int64(d)); err != nil {
		return nil, err
	}
	t := trailer[:len(trailer)-4]
	if crc32.Checksum(t, crcTable) != binary.LittleEndian.Uint32(trailer[len(t):]) {
		return nil, formatErr("checksum of the page checksums mismatch: the file is corrupt")
	}
	pr := &pageReader{r: r, size: int64(d), sums: make([]uint32, len(t)/4-2), got: make(map[int64][]byte)}
	for i := range pr.sums {
		pr.sums[i] = binary.LittleEndian.Uint32(t[4*i:])
	}
	return pr, nil
}

// pagedFile is a text model file that readPart reads by pages.
type pagedFile struct {
	pr *pageReader
	// off is where the next part begins; each part's length is checked
	// to lie within the bytes before the page checksums.
	off int64
	b   [16]byte
}

// at reads the n ≤ 16 bytes of what at off; they are valid until the
// next call.
func (pf *pagedFile) at(off int64, n int, what string) ([]byte, error) {
	if _, err := pf.pr.ReadAt(pf.b[:n], off); err != nil {
		if err == io.EOF {
			return nil, formatErr("truncated in the %s", what)
		}
		return nil, err
	}
	return pf.b[:n], nil
}

// next passes over the next part, of n bytes, and returns its offset.
func (pf *pagedFile) next(n uint64, what string) (int64, error) {
	if n > uint64(pf.pr.size-pf.off) {
		return 0, formatErr("%s: %d bytes, %d left", what, n, pf.pr.size-pf.off)
	}
	start := pf.off
	pf.off += int64(n)
	return start, nil
}

// length reads the length of the part what.
func (pf *pagedFile) length(what string) (uint64, error) {
	if _, err := pf.next(8, what+" length"); err != nil {
		return 0, err
	}
	b, err := pf.at(pf.off-8, 8, what+" length")
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

// classifier reads the model part for the features kept.
func (pf *pagedFile) classifier(kept []int32) (engine.Classifier, error) {
	mlen, err := pf.length("model")
	if err != nil {
		return nil, err
	}
	mo, err := pf.next(mlen, "model")
	if err != nil {
		return nil, err
	}
	c, err := engine.ReadClassifierFeaturesAt(io.NewSectionReader(pf.pr, mo, int64(mlen)), int64(mlen), kept)
	if errors.Is(err, engine.ErrNoSubset) {
		return nil, err
	}
	if err != nil {
		return nil, partErr("model", err)
	}
	return c, nil
}

// calibration reads the calibration part.
func (pf *pagedFile) calibration() ([]byte, error) {
	l, err := pf.length("calibration")
	if err != nil {
		return nil, err
	}
	if l > maxCalibration {
		return nil, formatErr("calibration of %d bytes (at most %d)", l, maxCalibration)
	}
	co, err := pf.next(l, "calibration")
	if err != nil {
		return nil, err
	}
	cal := make([]byte, l)
	if _, err := pf.pr.ReadAt(cal, co); err != nil {
		return nil, err
	}
	return cal, nil
}

// pageReader reads the first size bytes of r, whose pages have the
// checksums sums, verifying each page it reads once.
type pageReader struct {
	r    io.ReaderAt
	size int64
	sums []uint32
	got  map[int64][]byte // the pages read and verified
}

func (p *pageReader) ReadAt(b []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("textmodel: negative offset")
	}
	n := 0
	for n < len(b) {
		pos := off + int64(n)
		if pos >= p.size {
			return n, io.EOF
		}
		pg, err := p.page(pos/pageSize, off+int64(len(b)))
		if err != nil {
			return n, err
		}
		n += copy(b[n:], pg[pos%pageSize:])
	}
	return n, nil
}

// page returns page i, reading it and the pages after it that are not
// yet read, up to the one that holds byte end − 1, in one piece.
func (p *pageReader) page(i, end int64) ([]byte, error) {
	if pg, ok := p.got[i]; ok {
		return pg, nil
	}
	j := i
	for last := (min(end, p.size) - 1) / pageSize; j < last && p.got[j+1] == nil; j++ {
	}
	lo, hi := i*pageSize, min((j+1)*pageSize, p.size)
	buf := make([]byte, hi-lo)
	if k, err := p.r.ReadAt(buf, lo); k < len(buf) {
		if err == nil || err == io.EOF {
			return nil, fmt.Errorf("%w: truncated at byte %d", ErrFormat, lo+int64(k))
		}
		return nil, err
	}
	for k := i; k <= j; k++ {
		pg := buf[(k-i)*pageSize : min((k-i+1)*pageSize, hi-lo)]
		if crc32.Checksum(pg, crcTable) != p.sums[k] {
			return nil, fmt.Errorf("%w: page %d (bytes %d to %d) does not match its checksum: the file is corrupt", ErrFormat, k, k*pageSize, k*pageSize+int64(len(pg)))
		}
		p.got[k] = pg
	}
	return p.got[i], nil
}

// readAllSized reads r, a compressed part, to its end, at most the memory
// budget's quarter, as text.ReadFeaturizer does. n is the stored size:
// the buffer starts at a few times that, which saves the doublings of
// io.ReadAll for a part of megabytes.
func readAllSized(r io.Reader, n uint64) ([]byte, error) {
	limit := budget.Default() / 4
	n *= 4
	buf := bytes.NewBuffer(make([]byte, 0, min(n+512, uint64(limit)+1)))
	if _, err := buf.ReadFrom(io.LimitReader(r, limit+1)); err != nil {
		return nil, err
	}
	if int64(buf.Len()) > limit {
		return nil, fmt.Errorf("%w: a featurizer of more than %s", budget.ErrExceeded, budget.Format(limit))
	}
	return buf.Bytes(), nil
}
