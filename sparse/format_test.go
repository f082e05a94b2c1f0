package sparse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// withFormats runs f with only the formats fs registered, then puts the
// registry back as it was.
func withFormats(t *testing.T, fs []Format, f func()) {
	t.Helper()
	formats.Lock()
	saved, savedMax := formats.list, formats.maxMagic
	formats.list, formats.maxMagic = nil, 0
	formats.Unlock()
	defer func() {
		formats.Lock()
		formats.list, formats.maxMagic = saved, savedMax
		formats.Unlock()
	}()
	for _, g := range fs {
		RegisterFormat(g)
	}
	f()
}

// fakeFormat reads every input as a one-row data set whose label is the
// input's length and writes its magic, its name and the row count, so
// that a test sees which format did the work and on how much of the
// input.
func fakeFormat(name, magic string, ext ...string) Format {
	return Format{
		Name: name, Magic: magic, Ext: ext,
		Read: func(r io.Reader, opt ReadOptions) (*Dataset, error) {
			b, err := io.ReadAll(r)
			if err != nil {
				return nil, err
			}
			return &Dataset{X: FromDense([][]float32{{1}}), Y: []float64{float64(len(b))}}, nil
		},
		Write: func(w io.Writer, d *Dataset) error {
			_, err := fmt.Fprintf(w, "%s %s %d", magic, name, d.Len())
			return err
		},
	}
}

// TestFormatPicking: the reader is told by the magic (the longest that
// matches, else the format without magic), the writer by the name's
// longest matching ending (else the format without magic); the sniffer
// consumes nothing, and the whole input reaches the reader.
func TestFormatPicking(t *testing.T) {
	fs := []Format{fakeFormat("text", ""), fakeFormat("ab", "AB", ".ab"), fakeFormat("abcd", "ABCD", ".cd", ".ab.cd")}
	magic := map[string]string{"text": "", "ab": "AB", "abcd": "ABCD"}
	withFormats(t, fs, func() {
		for in, want := range map[string]string{"": "text", "A": "text", "AB": "ab", "ABC": "ab", "ABCD": "abcd", "ABCDE": "abcd", "xABCD": "text"} {
			br := bufio.NewReader(strings.NewReader(in))
			got, err := Sniff(br)
			if err != nil || got != want {
				t.Errorf("Sniff(%q) = %q, %v; want %q", in, got, err, want)
			}
			if rest, _ := io.ReadAll(br); string(rest) != in {
				t.Errorf("Sniff(%q) consumed bytes: %q left", in, rest)
			}
			d, err := Read(strings.NewReader(in), ReadOptions{})
			if err != nil || d.Y[0] != float64(len(in)) {
				t.Errorf("Read(%q): %v, %v; want the whole input read", in, d, err)
			}
		}
		for name, want := range map[string]string{"x": "text", "x.ab": "ab", "x.cd": "abcd", "x.ab.cd": "abcd", "x.cd.ab": "ab", "": "text"} {
			if got := FormatForName(name); got != want {
				t.Errorf("FormatForName(%q) = %q, want %q", name, got, want)
			}
			var buf bytes.Buffer
			if err := Write(&buf, name, &Dataset{X: FromDense([][]float32{{1}, {2}}), Y: []float64{1, 2}}); err != nil || buf.String() != magic[want]+" "+want+" 2" {
				t.Errorf("Write(%q) wrote %q, %v", name, buf.String(), err)
			}
		}

		dir := t.TempDir()
		d := &Dataset{X: FromDense([][]float32{{1}, {2}, {3}}), Y: []float64{1, 2, 3}}
		path := filepath.Join(dir, "d.ab")
		if err := WriteFile(path, d); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(path); string(b) != "AB ab 3" {
			t.Fatalf("WriteFile wrote %q", b)
		}
		if got, err := SniffFile(path); err != nil || got != "ab" {
			t.Errorf("SniffFile = %q, %v", got, err)
		}
		if got, err := ReadFile(path, ReadOptions{}); err != nil || got.Y[0] != 7 {
			t.Errorf("ReadFile: %v, %v", got, err)
		}
		// An invalid data set is refused before the file is touched.
		bad := &Dataset{X: FromDense([][]float32{{1}}), Y: nil}
		if err := WriteFile(path, bad); !errors.Is(err, ErrShape) {
			t.Errorf("WriteFile of an invalid data set: %v", err)
		}
		if b, _ := os.ReadFile(path); string(b) != "AB ab 3" {
			t.Errorf("the file became %q", b)
		}
		if _, err := ReadFile(filepath.Join(dir, "missing"), ReadOptions{}); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("ReadFile of a missing file: %v", err)
		}
	})
}

// TestFormatUnknown: with no format without magic, data that no magic
// claims, and names that no ending claims, are ErrUnknownFormat; so is
// everything with no format registered.
func TestFormatUnknown(t *testing.T) {
	d := &Dataset{X: FromDense([][]float32{{1}}), Y: []float64{1}}
	for _, fs := range [][]Format{nil, {fakeFormat("ab", "AB", ".ab")}} {
		withFormats(t, fs, func() {
			if _, err := Sniff(bufio.NewReader(strings.NewReader("xyz"))); !errors.Is(err, ErrUnknownFormat) {
				t.Errorf("%d formats: Sniff: %v", len(fs), err)
			}
			if _, err := Read(strings.NewReader("xyz"), ReadOptions{}); !errors.Is(err, ErrUnknownFormat) {
				t.Errorf("%d formats: Read: %v", len(fs), err)
			}
			path := filepath.Join(t.TempDir(), "d.txt")
			if err := WriteFile(path, d); !errors.Is(err, ErrUnknownFormat) {
				t.Errorf("%d formats: WriteFile: %v", len(fs), err)
			}
			if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%d formats: a failed WriteFile left a file (%v)", len(fs), err)
			}
			if err := Write(io.Discard, path, d); !errors.Is(err, ErrUnknownFormat) {
				t.Errorf("%d formats: Write: %v", len(fs), err)
			}
			if err := os.WriteFile(path, []byte("xyz"), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := ReadFile(path, ReadOptions{}); !errors.Is(err, ErrUnknownFormat) {
				t.Errorf("%d formats: ReadFile: %v", len(fs), err)
			}
			if got := FormatForName(path); got != "" {
				t.Errorf("%d formats: FormatForName = %q", len(fs), got)
			}
		})
	}
}

// TestRegisterFormatMisuse: a format without a name, Read or Write, a
// name or a magic registered twice, and a second format without magic
// are refused with a panic.
func TestRegisterFormatMisuse(t *testing.T) {
	noRead := fakeFormat("r", "R")
	noRead.Read = nil
	noWrite := fakeFormat("w", "W")
	noWrite.Write = nil
	for name, bad := range map[string]Format{
		"no name":          fakeFormat("", "X"),
		"no Read":          noRead,
		"no Write":         noWrite,
		"same name":        fakeFormat("ab", "XY"),
		"same magic":       fakeFormat("xy", "AB"),
		"second catch-all": fakeFormat("text2", ""),
	} {
		withFormats(t, []Format{fakeFormat("ab", "AB"), fakeFormat("text", "")}, func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: registered", name)
				}
			}()
			RegisterFormat(bad)
		})
	}
}

type failingReader struct{ err error }

func (r failingReader) Read([]byte) (int, error) { return 0, r.err }

// TestReadError: an error reading the first bytes is returned wrapped,
// naming the input as the format readers name it.
func TestReadError(t *testing.T) {
	boom := errors.New("device on fire")
	withFormats(t, []Format{fakeFormat("text", ""), fakeFormat("ab", "AB")}, func() {
		for name, want := range map[string]string{"": "sparse: reading input: device on fire", "in.svm": "sparse: reading in.svm: device on fire"} {
			_, err := Read(failingReader{boom}, ReadOptions{Name: name})
			if !errors.Is(err, boom) || err.Error() != want {
				t.Errorf("Name %q: error %v, want %q", name, err, want)
			}
		}
	})
}
