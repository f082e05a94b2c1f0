package modelfile

import (
	"fmt"
	"io"

	"github.com/hyperplane-ml/hyperplane/sparse/atomicfile"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
)

// Files encoded and decoded in memory whole: the multi-label models'
// (this package's and the text model's). A load checks the file's size
// against the memory budget and reads it into one buffer, a save
// replaces the file atomically.

// LoadWhole reads the file at path and decodes it with decode; decode's
// error begins with path. Before it reads, it checks mult times the
// file's size, what decoding takes, against the memory budget; what, with
// path, names the file in that refusal.
func LoadWhole[T any](path string, mult int64, what string, decode func([]byte) (T, error)) (T, error) {
	var zero T
	f, fi, err := open(path)
	if err != nil {
		return zero, err
	}
	defer f.Close()
	if err := budget.Check(0, mult*fi.Size(), what+" "+path); err != nil {
		return zero, err
	}
	b, err := readSized(f, fi.Size())
	if err != nil {
		return zero, err
	}
	m, err := decode(b)
	if err != nil {
		return zero, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// readSized reads up to size+1 bytes of r, a file of size bytes when it
// was opened, into one buffer: io.ReadAll's growing buffer would copy a
// model of tens of megabytes several times over. A byte beyond size (the
// file grew) is kept, for the decoder to refuse, as io.ReadAll on
// io.LimitReader(r, size+1) would.
func readSized(r io.Reader, size int64) ([]byte, error) {
	b := make([]byte, size+1)
	n, err := io.ReadFull(r, b)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = nil
	}
	return b[:n], err
}

// SaveWhole writes the encoding that marshal returns to path atomically
// (see atomicfile.Write): on failure, an existing file at path is left as
// it was.
func SaveWhole(path string, marshal func() ([]byte, error)) error {
	b, err := marshal()
	if err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}
