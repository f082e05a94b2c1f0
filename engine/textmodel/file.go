package textmodel

// The file, version 4, little-endian:
//
//	offset  size  field
//	0       4     magic "HPTM"
//	4       2     format version (uint16, 4)
//	6       2     flags (uint16): bit 0, the featurizer part is DEFLATE
//	              compressed (RFC 1951), which versions 2 and 3 wrote;
//	              others 0. Version 4 writes 0: its featurizer form
//	              compresses only its vocabulary's terms, with a codec
//	              that inflates several times faster, and keeps their
//	              order by hash, which fills their index in one pass
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
//	        4     CRC-32C (Castagnoli) of every byte before it
//
// Version 3 is the same with the featurizer's binary form version 1,
// whose terms are hashed again and indexed as they are read, DEFLATE
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
	fileVersion = 4
	flagDeflate = 1 << 0 // the featurizer part is compressed
	// maxCalibration bounds the calibration part: it holds a few numbers.
	maxCalibration = 1 << 10
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// WriteTo writes m to w in the text model format and returns the bytes
// written.
func (m *Model) WriteTo(w io.Writer) (int64, error) {
	feat, err := m.featurizer.MarshalBinary()
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
	crc := crc32.New(crcTable)
	bw := bufio.NewWriter(io.MultiWriter(w, crc))
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
	var sum [4]byte
	binary.LittleEndian.PutUint32(sum[:], crc.Sum32())
	if _, err := w.Write(sum[:]); err != nil {
		return 0, err
	}
	return int64(16 + len(feat) + 8 + model.Len() + 8 + len(cal) + 8 + len(names) + 4), nil
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
// no more than it holds). With docs not nil it reads a version 4 file for
// those documents only (see LoadFor), or returns engine.ErrNoSubset.
func read(r io.Reader, size int64, docs []string) (*Model, error) {
	crc := crc32.New(crcTable)
	tr := io.TeeReader(r, crc)
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrFormat}, a...)...)
	}
	var hdr [16]byte
	if _, err := io.ReadFull(tr, hdr[:]); err != nil {
		return nil, bad("header: %v", err)
	}
	left := size - 16 // bytes known to be left; < 0: unknown
	version, flags := binary.LittleEndian.Uint16(hdr[4:]), binary.LittleEndian.Uint16(hdr[6:])
	switch {
	case string(hdr[:4]) != fileMagic:
		return nil, bad("not a text model file (magic %q, want %q)", hdr[:4], fileMagic)
	case version < 1 || version > fileVersion:
		return nil, bad("format version %d, this build reads 1 to %d", version, fileVersion)
	case flags&^flagDeflate != 0 || (version == 1 || version >= 4) && flags != 0:
		return nil, bad("unknown flags %#x", flags)
	}
	part := func(n uint64, what string) ([]byte, error) {
		if err := budget.Check(0, int64(min(n, 1<<62)), "reading the "+what); err != nil {
			return nil, err
		}
		var b []byte
		if left >= 0 && n <= uint64(left) {
			b = make([]byte, n)
			if _, err := io.ReadFull(tr, b); err != nil {
				return nil, bad("%s: truncated: %v", what, err)
			}
			left -= int64(n)
			return b, nil
		}
		b, err := io.ReadAll(io.LimitReader(tr, int64(n)))
		if err != nil {
			return nil, err
		}
		if uint64(len(b)) != n {
			return nil, bad("%s: truncated: %d of %d bytes", what, len(b), n)
		}
		return b, nil
	}
	length := func(what string) (uint64, error) {
		var n [8]byte
		if _, err := io.ReadFull(tr, n[:]); err != nil {
			return 0, bad("%s length: %v", what, err)
		}
		left -= 8
		return binary.LittleEndian.Uint64(n[:]), nil
	}
	feat, err := part(binary.LittleEndian.Uint64(hdr[8:]), "featurizer")
	if err != nil {
		return nil, err
	}
	// A featurizer form that needs no inflating is decoded while the rest
	// is read and the classifier decoded; a checksum mismatch found after
	// both still refuses the file (the decoders check what they read,
	// whatever it is).
	var f *text.Featurizer
	var ferr error
	var kept []int32 // the features kept of a vocabulary, reading for docs
	fdone := make(chan struct{})
	if docs != nil && version >= 4 {
		// The classifier's features to keep are known only once the
		// featurizer is decoded.
		f = new(text.Featurizer)
		if kept, ferr = f.UnmarshalBinaryFor(feat, docs); ferr == nil && kept == nil {
			return nil, engine.ErrNoSubset
		}
		close(fdone)
	} else if docs != nil {
		return nil, engine.ErrNoSubset
	} else if version >= 4 {
		go func() {
			defer close(fdone)
			f = new(text.Featurizer)
			ferr = f.UnmarshalBinary(feat)
		}()
	} else {
		close(fdone)
	}
	defer func() { <-fdone }()
	mlen, err := length("model")
	if err != nil {
		return nil, err
	}
	// The classifier is decoded as it streams by, not copied whole
	// first: it has its own checksum and memory budget checks, and its
	// weights are the bulk of the file.
	if err := budget.Check(0, int64(min(mlen, 1<<62)), "reading the model"); err != nil {
		return nil, err
	}
	mr := &io.LimitedReader{R: tr, N: int64(min(mlen, 1<<62))}
	var cr io.Reader = mr
	if left >= 0 && mlen <= uint64(left) {
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
		return nil, fmt.Errorf("%w: model: %w", ErrFormat, err)
	}
	if k, _ := io.Copy(io.Discard, mr); k != 0 {
		return nil, bad("model: %d bytes after it", k)
	}
	left -= int64(min(mlen, 1<<62))
	var cal, names []byte
	if version >= 2 {
		l, err := length("calibration")
		if err != nil {
			return nil, err
		}
		if l > maxCalibration {
			return nil, bad("calibration of %d bytes (at most %d)", l, maxCalibration)
		}
		if cal, err = part(l, "calibration"); err != nil {
			return nil, err
		}
		if l, err = length("names"); err != nil {
			return nil, err
		}
		if names, err = part(l, "feature names"); err != nil {
			return nil, err
		}
	}
	want := crc.Sum32()
	var sum [4]byte
	if _, err := io.ReadFull(r, sum[:]); err != nil {
		return nil, bad("checksum: %v", err)
	}
	if binary.LittleEndian.Uint32(sum[:]) != want {
		return nil, bad("checksum mismatch: the file is corrupt")
	}
	<-fdone
	if version >= 4 {
		if ferr != nil {
			return nil, fmt.Errorf("%w: featurizer: %w", ErrFormat, ferr)
		}
	} else {
		var fr io.Reader = bytes.NewReader(feat)
		if flags&flagDeflate != 0 {
			// The featurizer's reader checks what it allocates against
			// the memory budget as it reads; the stream is cut there too.
			zr := flate.NewReader(fr)
			defer zr.Close()
			fr = io.LimitReader(zr, budget.Default())
		}
		if version == 3 {
			fb := feat
			if flags&flagDeflate != 0 {
				fb, err = readAllSized(fr, uint64(len(feat)))
			}
			if err == nil {
				f = new(text.Featurizer)
				err = f.UnmarshalBinary(fb)
			}
			if err != nil {
				return nil, fmt.Errorf("%w: featurizer: %w", ErrFormat, err)
			}
		} else if f, err = text.ReadFeaturizer(fr); err != nil {
			return nil, fmt.Errorf("%w: featurizer: %w", ErrFormat, err)
		}
	}
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
			return nil, bad("a calibration for another number of classes than the model's %d", len(m.classes))
		}
		m.calib = &cb
	}
	if len(names) > 0 && kept == nil {
		// (Names are by the whole vocabulary's features; a model read
		// for some documents names its features by its own terms.)
		m.featNames = new(text.Names)
		if err := m.featNames.UnmarshalBinary(names); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrFormat, err)
		}
	}
	return m, nil
}

// sizedReader is a LimitedReader whose bytes are known to be there,
// which says how many are left as a bytes.Reader does (Len).
type sizedReader struct{ *io.LimitedReader }

func (r sizedReader) Len() int { return int(r.N) }

// Load reads the text model file at path; errors begin with the path.
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
	m, err := read(bufio.NewReaderSize(fl, 1<<16), size, docs)
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
// A model that cannot be read so (one that hashes its terms, a kernel or
// voted classifier, a file of a version before 4) is read whole, as
// Load reads it. Either way the whole file is read and its checksum
// verified; what LoadFor keeps is checked as Load checks it, while what
// it passes over (the other terms' hashes and index, the other weights,
// the names of features) is not decoded.
func LoadFor(path string, docs []string) (*Model, error) {
	if docs == nil {
		docs = []string{}
	}
	m, err := load(path, docs)
	if errors.Is(err, engine.ErrNoSubset) {
		return Load(path)
	}
	return m, err
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
