package textmodel

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"unicode/utf8"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/engine/internal/modelfile"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

// The multi-label text model file, version 1, little-endian:
//
//	offset  size  field
//	0       4     magic "HPTL"
//	4       2     format version (uint16, 1)
//	6       2     flags (uint16, 0)
//	8       8     featurizer length F (uint64)
//	16      F     the featurizer, as text.Featurizer.MarshalBinary writes it
//	        8     label count K (uint64)
//	        K×    each label: length (uint32), then its UTF-8 bytes
//	        8     model length M (uint64)
//	        M     the model, as engine.MultiLabelModel.MarshalBinary writes it
//	        4     CRC-32C of every byte before it
//
// Every length is checked against the bytes that follow before anything
// is allocated by it.

// MultiLabelMagic starts a multi-label text model file.
const MultiLabelMagic = "HPTL"

const multiLabelVersion = 1

// MarshalBinary encodes m as the file described above.
func (m *MultiLabel) MarshalBinary() ([]byte, error) {
	// The featurizer (its vocabulary compressed) and the model (tens of
	// megabytes of weights) are encoded at the same time.
	var fb []byte
	var ferr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		fb, ferr = m.featurizer.MarshalBinary()
	}()
	mb, err := m.model.MarshalBinary()
	<-done
	if err != nil {
		return nil, err
	}
	if ferr != nil {
		return nil, ferr
	}
	n := 4 + 2 + 2 + 8 + len(fb) + 8 + 8 + len(mb) + 4
	for _, l := range m.names {
		n += 4 + len(l)
	}
	// One buffer of the file's size: the model is tens of megabytes,
	// which a growing buffer would copy more than once.
	b := make([]byte, 0, n)
	b = append(b, MultiLabelMagic...)
	b = binary.LittleEndian.AppendUint16(b, multiLabelVersion)
	b = binary.LittleEndian.AppendUint16(b, 0)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(fb)))
	b = append(b, fb...)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(m.names)))
	for _, n := range m.names {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(n)))
		b = append(b, n...)
	}
	b = binary.LittleEndian.AppendUint64(b, uint64(len(mb)))
	b = append(b, mb...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crcTable)), nil
}

// Save writes m to path atomically (see sparse/atomicfile).
func (m *MultiLabel) Save(path string) error { return modelfile.SaveWhole(path, m.MarshalBinary) }

// UnmarshalMultiLabel decodes a model MarshalBinary encoded. Anything
// but one is an error wrapping engine.ErrFormat.
func UnmarshalMultiLabel(b []byte) (*MultiLabel, error) {
	bad := func(msg string) error { return fmt.Errorf("%w: multi-label text model: %s", engine.ErrFormat, msg) }
	if len(b) < 12 || string(b[:4]) != MultiLabelMagic {
		return nil, bad("no " + MultiLabelMagic + " magic")
	}
	if v := binary.LittleEndian.Uint16(b[4:]); v != multiLabelVersion {
		return nil, bad(fmt.Sprintf("version %d, this build reads %d", v, multiLabelVersion))
	}
	if got, want := crc32.Checksum(b[:len(b)-4], crcTable), binary.LittleEndian.Uint32(b[len(b)-4:]); got != want {
		return nil, bad("checksum mismatch (corrupt or truncated)")
	}
	p := b[8 : len(b)-4]
	part := func(what string) ([]byte, error) {
		if len(p) < 8 {
			return nil, bad("cut short before the " + what)
		}
		n := binary.LittleEndian.Uint64(p)
		p = p[8:]
		if n > uint64(len(p)) {
			return nil, bad(fmt.Sprintf("the %s claims %d bytes, %d are left", what, n, len(p)))
		}
		out := p[:n]
		p = p[n:]
		return out, nil
	}
	fb, err := part("featurizer")
	if err != nil {
		return nil, err
	}
	// The featurizer is decoded while the model is.
	f := new(text.Featurizer)
	var ferr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		ferr = f.UnmarshalBinary(fb)
	}()
	names, lm, err := unmarshalLabelled(p, bad)
	<-done
	if ferr != nil {
		return nil, ferr
	}
	if err != nil {
		return nil, err
	}
	m, err := NewMultiLabel(f, lm, names)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", engine.ErrFormat, err)
	}
	return m, nil
}

// unmarshalLabelled decodes the labels and the model that follow the
// featurizer in a multi-label text model file, p; bad makes the error of
// a file that is not one.
func unmarshalLabelled(p []byte, bad func(string) error) ([]string, *engine.MultiLabelModel, error) {
	if len(p) < 8 {
		return nil, nil, bad("cut short before the labels")
	}
	k := binary.LittleEndian.Uint64(p)
	p = p[8:]
	if k > uint64(len(p))/4 {
		return nil, nil, bad(fmt.Sprintf("%d labels do not fit %d bytes", k, len(p)))
	}
	names := make([]string, 0, k)
	for range k {
		if len(p) < 4 {
			return nil, nil, bad("cut short in the labels")
		}
		n := binary.LittleEndian.Uint32(p)
		p = p[4:]
		if uint64(n) > uint64(len(p)) || n == 0 || !utf8.Valid(p[:n]) {
			return nil, nil, bad("a bad label")
		}
		names = append(names, string(p[:n]))
		p = p[n:]
	}
	if len(p) < 8 {
		return nil, nil, bad("cut short before the model")
	}
	n := binary.LittleEndian.Uint64(p)
	p = p[8:]
	if n > uint64(len(p)) {
		return nil, nil, bad(fmt.Sprintf("the model claims %d bytes, %d are left", n, len(p)))
	}
	if uint64(len(p)) != n {
		return nil, nil, bad(fmt.Sprintf("%d bytes after the model", uint64(len(p))-n))
	}
	lm, err := engine.UnmarshalMultiLabel(p)
	if err != nil {
		return nil, nil, err
	}
	return names, lm, nil
}

// LoadMultiLabel reads a model Save wrote; errors name the file.
func LoadMultiLabel(path string) (*MultiLabel, error) {
	return modelfile.LoadWhole(path, 2, "the multi-label text model", UnmarshalMultiLabel)
}

// IsMultiLabelFile reports whether the file at path starts with the
// multi-label text model's magic.
func IsMultiLabelFile(path string) bool {
	fh, err := os.Open(path)
	if err != nil {
		return false
	}
	defer fh.Close()
	var b [4]byte
	_, err = io.ReadFull(fh, b[:])
	return err == nil && string(b[:]) == MultiLabelMagic
}

// VectorizeCorpus featurizes the documents of c (read with
// text.ReadOptions.MultiLabel) in parallel and returns their rows and
// classes; a label the model does not know is dropped from its document
// and counted in unknown, as scikit-learn's MultiLabelBinarizer drops
// the classes it was not fitted on.
func (m *MultiLabel) VectorizeCorpus(c *text.Corpus) (X *sparse.CSR, Y [][]int, unknown int, err error) {
	fc := *c
	fc.Docs = make([]text.Doc, len(c.Docs))
	for i, d := range c.Docs {
		fc.Docs[i] = text.Doc{Text: d.Text, Label: placeholder, Line: d.Line}
	}
	d, err := m.featurizer.Vectorize(&fc)
	if err != nil {
		return nil, nil, 0, err
	}
	idx := make(map[string]int, len(m.names))
	for i, n := range m.names {
		idx[n] = i
	}
	if len(c.Labels) != len(c.Docs) {
		return nil, nil, 0, fmt.Errorf("%w: %d documents, %d label lists (read the corpus with text.ReadOptions.MultiLabel)", engine.ErrLabels, len(c.Docs), len(c.Labels))
	}
	Y = make([][]int, len(c.Docs))
	for i := range c.Docs {
		Y[i] = []int{}
		for _, l := range c.Labels[i] {
			if k, ok := idx[l]; ok {
				Y[i] = append(Y[i], k)
			} else {
				unknown++
			}
		}
	}
	return d.X, Y, unknown, nil
}
