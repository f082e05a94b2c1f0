package sparse

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/hyperplane-ml/hyperplane/sparse/atomicfile"
)

// Format is a file format of data sets, as its package registers it with
// RegisterFormat, for Read and ReadFile, which tell the formats apart by
// their first bytes, and for Write and WriteFile, which pick one by the
// file name's ending. The format packages (sparse/libsvm, sparse/hpc)
// register theirs when imported; a program that reads through this
// package imports them, for their effect alone if need be:
//
//	import _ "github.com/hyperplane-ml/hyperplane/sparse/libsvm"
type Format struct {
	// Name names the format, such as "libsvm" or "hpsc".
	Name string
	// Magic is what every file of the format starts with. At most one
	// format has none: it reads what no other format's magic claims and
	// writes the names no format's Ext claims (LIBSVM, a text format).
	Magic string
	// Ext holds the file name endings that Write and WriteFile write the
	// format for, such as ".hpc".
	Ext []string
	// Read reads a whole data set from r.
	Read func(r io.Reader, opt ReadOptions) (*Dataset, error)
	// ReadFile, if not nil, reads the file at path; ReadFile uses it
	// rather than Read, for formats that read a file faster than a stream.
	ReadFile func(path string, opt ReadOptions) (*Dataset, error)
	// Write writes d to w.
	Write func(w io.Writer, d *Dataset) error
}

// ErrUnknownFormat reports data that no registered format reads, or a
// format name that is not registered.
var ErrUnknownFormat = errors.New("sparse: unknown data format")

var formats struct {
	sync.RWMutex
	list     []Format
	maxMagic int
}

// RegisterFormat registers f for Read, ReadFile, Write and WriteFile. It
// is meant to be called from the init function of f's package, and
// panics when f has no name, no Read or no Write, when its name or its
// magic is already registered, or when it is a second format without
// magic.
func RegisterFormat(f Format) {
	if f.Name == "" || f.Read == nil || f.Write == nil {
		panic("sparse: RegisterFormat: a format needs a Name, Read and Write")
	}
	formats.Lock()
	defer formats.Unlock()
	for _, g := range formats.list {
		switch {
		case g.Name == f.Name:
			panic("sparse: RegisterFormat: format " + f.Name + " registered twice")
		case g.Magic == f.Magic:
			panic("sparse: RegisterFormat: formats " + g.Name + " and " + f.Name + " have the same magic")
		}
	}
	formats.list = append(formats.list, f)
	formats.maxMagic = max(formats.maxMagic, len(f.Magic))
}

// byMagic returns the format whose magic starts b (the longest such
// magic), else the format without magic.
func byMagic(b []byte) (Format, bool) {
	formats.RLock()
	defer formats.RUnlock()
	var best Format
	found := false
	for _, f := range formats.list {
		if strings.HasPrefix(string(b), f.Magic) && (!found || len(f.Magic) > len(best.Magic)) {
			best, found = f, true
		}
	}
	return best, found
}

// byName returns the format WriteFile writes the file name to: the one
// with the longest Ext that ends name, else the format without magic.
func byName(name string) (Format, bool) {
	formats.RLock()
	defer formats.RUnlock()
	var best, catchAll Format
	bestLen, found, hasCatchAll := 0, false, false
	for _, f := range formats.list {
		if f.Magic == "" {
			catchAll, hasCatchAll = f, true
		}
		for _, e := range f.Ext {
			if strings.HasSuffix(name, e) && len(e) > bestLen {
				best, bestLen, found = f, len(e), true
			}
		}
	}
	if found {
		return best, true
	}
	return catchAll, hasCatchAll
}

func magicLen() int {
	formats.RLock()
	defer formats.RUnlock()
	return formats.maxMagic
}

// Sniff returns the name of the format of the data br holds, told by its
// first bytes, which it peeks at without consuming them. An input shorter
// than a magic, empty too, is of the format without magic. The error is
// ErrUnknownFormat when no format matches, or the reader's own error.
func Sniff(br *bufio.Reader) (string, error) {
	b, err := br.Peek(magicLen())
	if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
		return "", err
	}
	f, ok := byMagic(b)
	if !ok {
		return "", unknown(b)
	}
	return f.Name, nil
}

// SniffFile returns the name of the format of the file at path, as Sniff
// does for its content. It reads the file's first bytes: a pipe loses
// them.
func SniffFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return Sniff(bufio.NewReaderSize(f, max(16, magicLen())))
}

// FormatForName returns the name of the format that Write and WriteFile
// write to a file named name, by its ending (".hpc", ".gz"; anything
// else is the format without magic), or "" when none is registered.
func FormatForName(name string) string {
	f, _ := byName(name)
	return f.Name
}

func unknown(b []byte) error {
	return fmt.Errorf("%w: no registered format starts with %q (import the format packages, sparse/libsvm and sparse/hpc)", ErrUnknownFormat, b)
}

// Read reads a whole data set from r in the format its first bytes tell
// (see Sniff).
func Read(r io.Reader, opt ReadOptions) (*Dataset, error) {
	br, ok := r.(*bufio.Reader)
	if !ok || br.Size() < magicLen() {
		br = bufio.NewReader(r)
	}
	b, err := br.Peek(magicLen())
	if err != nil && err != io.EOF {
		if opt.Name == "" {
			return nil, fmt.Errorf("sparse: reading input: %w", err)
		}
		return nil, fmt.Errorf("sparse: reading %s: %w", opt.Name, err)
	}
	f, ok := byMagic(b)
	if !ok {
		return nil, unknown(b)
	}
	return f.Read(br, opt)
}

// ReadFile reads the data set in the file at path, in the format its
// first bytes tell (see Sniff). A file that is not regular (a pipe) is
// opened once and read as a stream. If opt.Name is empty, errors name the
// file by path.
func ReadFile(path string, opt ReadOptions) (*Dataset, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	if opt.Name == "" {
		opt.Name = path
	}
	if fi, err := file.Stat(); err != nil || !fi.Mode().IsRegular() {
		return Read(file, opt)
	}
	b := make([]byte, magicLen())
	n, _ := file.ReadAt(b, 0)
	f, ok := byMagic(b[:n])
	switch {
	case !ok:
		return nil, unknown(b[:n])
	case f.ReadFile != nil:
		return f.ReadFile(path, opt)
	}
	return f.Read(file, opt)
}

// Write writes d to w in the format that a file named name gets (see
// FormatForName).
func Write(w io.Writer, name string, d *Dataset) error {
	f, ok := byName(name)
	if !ok {
		return fmt.Errorf("%w: no registered format writes %s (import the format packages, sparse/libsvm and sparse/hpc)", ErrUnknownFormat, name)
	}
	return f.Write(w, d)
}

// WriteFile writes d to the file at path in the format its name asks for
// (see FormatForName), atomically as atomicfile.Write does: d is
// validated first, and on any error an existing file at path is left
// untouched.
func WriteFile(path string, d *Dataset) error {
	f, ok := byName(path)
	if !ok {
		return fmt.Errorf("%w: no registered format writes %s (import the format packages, sparse/libsvm and sparse/hpc)", ErrUnknownFormat, path)
	}
	if err := d.Validate(); err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error { return f.Write(w, d) })
}
