package engine

// Mix files: a Mix in its file format, whose layout package modelfile
// holds (mix.go there), with the checks of a Mix.

import (
	"io"

	"github.com/hyperplane-ml/hyperplane/engine/internal/modelfile"
)

// plain returns m as its file holds it: modelfile.Mix has the fields of
// a Mix, so that a change to either that the other lacks fails to
// compile here.
func (m *Mix) plain() *modelfile.Mix { return (*modelfile.Mix)(m) }

func (m *Mix) file() (*modelfile.Mix, error) {
	if err := m.check(); err != nil {
		return nil, err
	}
	return m.plain(), nil
}

// WriteTo writes m to w in the binary Mix format, version 1: a header
// with the counts, the classes, biases, features (when sparse), weights,
// accumulators and history as raw little-endian bits, and a CRC-32C
// checksum of it all, through a small buffer of its own. It returns the
// number of bytes written; a Mix that fails its checks (wrong lengths,
// weights not finite) is refused before anything is written.
func (m *Mix) WriteTo(w io.Writer) (int64, error) { return modelfile.Write(w, m.file) }

// MarshalBinary returns m in the format WriteTo writes.
func (m *Mix) MarshalBinary() ([]byte, error) { return modelfile.Marshal(m.file) }

// UnmarshalBinary decodes a Mix from data, which must hold it and
// nothing after it, into m, with the checks of ReadMix and no memory
// budget beyond data's own size. On failure m is left as it was.
func (m *Mix) UnmarshalBinary(data []byte) error {
	return modelfile.Unmarshal(data, func(d *modelfile.Decoder) (*Mix, error) { return decodeMix(d, 0) },
		func(dm *Mix) { *m = *dm })
}

// ReadMix reads one Mix written by WriteTo from r and leaves r just past
// it. Before it allocates anything, it checks the sizes in the header
// against the format's limits and the memory the Mix would take against
// limit (bytes; 0 means budget.Default()), which is ErrMemory; and, where
// r tells its length (a Len method, as bytes.Reader has), against that.
// Otherwise memory grows only as data arrives, so a short input cannot
// make it allocate much more than its own size. Errors in the data wrap
// ErrFormat and say what is wrong (not a Mix, a newer version,
// truncation, a checksum mismatch, inconsistent contents); a read error
// of r is returned with context.
func ReadMix(r io.Reader, limit int64) (*Mix, error) {
	return decodeMix(modelfile.NewDecoder(r), limit)
}

// decodeMix reads one Mix and its checksum, and checks the Mix. limit is
// the memory budget, 0 for budget.Default(); an input in memory is held
// to its own size instead when limit is 0.
func decodeMix(d *modelfile.Decoder, limit int64) (*Mix, error) {
	f, err := d.Mix(limit, maxWeights)
	if err != nil {
		return nil, err
	}
	m := (*Mix)(f)
	if err := m.check(); err != nil {
		return nil, modelErr("%v", err)
	}
	return m, nil
}
