package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

var (
	// ErrEmptyName reports a file name that is empty.
	ErrEmptyName = errors.New("atomicfile: empty file name")
	// ErrNotWritable reports a target that is neither a regular file to
	// replace nor a stream to write to: a directory, a block device, a
	// socket, a descriptor closed or not open for writing.
	ErrNotWritable = errors.New("is neither a regular file nor a stream that can be written")
)

// Write creates or replaces path with what write writes, so that
// readers see either the old file or the whole new one, never a part: the
// data goes to a temporary file in the same directory, which is synced
// and then renamed over path. If write or any step fails, the temporary
// file is removed and an existing file at path is left untouched. A new
// file gets mode 0644; a replaced file keeps its mode. When path is a
// symbolic link, the file it points to is replaced and the link kept. Model
// and cache files of the other packages are written through it. It is
// Create, write, and File.CloseAtomicallyReplace.
//
// A path that is not a regular file to replace is written as a stream
// (see Create): a descriptor of this process named by path (/dev/stdout,
// /dev/fd/N, /proc/self/fd/N), a character device or a FIFO. Its data go
// out as they are written, so a failure leaves what was written before it.
func Write(path string, write func(w io.Writer) error) error {
	p, err := Create(path)
	if err != nil {
		return err
	}
	// On an error, and if write panics.
	defer p.Cleanup()
	if err := write(p); err != nil {
		return err
	}
	return p.CloseAtomicallyReplace()
}

// File is a file being written that replaces its target only when
// it is complete: the data go to a hidden temporary file beside the
// target, which CloseAtomicallyReplace syncs and renames over it, or
// Cleanup removes. Creating it up front, before the work that makes its
// data, finds a target that cannot be written (a missing or read-only
// directory, a directory in the way) before the work is spent. Writes are
// buffered. A File belongs to one goroutine.
//
// A File whose target is a stream (Stream reports it) writes straight to
// it instead, through the same buffer: it has no temporary file, and
// CloseAtomicallyReplace flushes and closes it.
type File struct {
	path string // the file replaced, symbolic links resolved; or the stream's name
	tmp  string // the temporary file; "" for a stream
	f    *os.File
	bw   *bufio.Writer
	mode os.FileMode
	done bool // replaced or cleaned up: nothing is left to do

	stream bool // written to path as it goes, never replaced; f is nil until a FIFO is opened
}

// Create creates the temporary file that will replace path (see
// Write for what happens to modes and symbolic links). It fails
// when path is empty (ErrEmptyName), names a directory or something else
// that is neither a regular file nor a stream (ErrNotWritable), or its
// directory cannot take a new file.
//
// Where path is not a regular file to replace, the File writes to it as a
// stream, and never truncates, removes or renames anything:
//
//   - a name of a descriptor this process holds open (/dev/stdout,
//     /dev/stderr, /dev/fd/N, /proc/self/fd/N, /proc/PID/fd/N with this
//     process's PID, or a symbolic link to one of them) is written through
//     a duplicate of that descriptor. It is not opened again: reopening
//     would reach the file behind the descriptor afresh, and truncate or
//     replace what the shell opened for appending (>>). The descriptor
//     must be open for writing.
//   - an existing character device (/dev/null, a terminal) is opened for
//     writing, without truncation;
//   - an existing FIFO is opened for writing at the first write, or at the
//     close when nothing was written, so that a File created and then
//     abandoned never waits for a reader.
//
// Block devices and sockets named by path are refused with ErrNotWritable.
func Create(path string) (*File, error) {
	if path == "" {
		return nil, ErrEmptyName
	}
	if p, ok, err := createStream(path); ok {
		return p, err
	}
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		if target, err := filepath.EvalSymlinks(path); err == nil {
			path = target
		} else if l, err := os.Readlink(path); err == nil {
			// A dangling link: create the file it names.
			if !filepath.IsAbs(l) {
				l = filepath.Join(filepath.Dir(path), l)
			}
			path = l
		}
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if base == "" {
		return nil, fmt.Errorf("%s is a directory, not a file name", path)
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		if !fi.Mode().IsRegular() {
			// (A dangling link's target that appeared meanwhile.)
			return nil, fmt.Errorf("%s: %w", path, ErrNotWritable)
		}
		mode = fi.Mode().Perm()
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			// Name the file asked for, not the temporary one.
			return nil, &os.PathError{Op: "create", Path: path, Err: pe.Err}
		}
		return nil, err
	}
	var out io.Writer = f
	if testWrapFile != nil {
		out = testWrapFile(out)
	}
	return &File{path: path, tmp: f.Name(), f: f, bw: bufio.NewWriterSize(out, 1<<16), mode: mode}, nil
}

// Name returns the path of the file p replaces (symbolic links resolved),
// or, for a stream, the name it was created with.
func (p *File) Name() string { return p.path }

// Stream reports whether p writes its target as a stream (see Create)
// instead of replacing it.
func (p *File) Stream() bool { return p.stream }

// Write writes to the temporary file, through a buffer.
func (p *File) Write(b []byte) (int, error) {
	if p.done {
		return 0, fmt.Errorf("write to %s: %w", p.path, os.ErrClosed)
	}
	return p.bw.Write(b)
}

// Flush pushes the buffered data to the temporary file.
func (p *File) Flush() error { return p.bw.Flush() }

// CloseAtomicallyReplace syncs and closes the temporary file and renames it
// over the target. On failure the temporary file is removed and an
// existing target left as it was.
func (p *File) CloseAtomicallyReplace() error { return ReplaceTogether(p) }

// Cleanup closes and removes the temporary file unless it has replaced its
// target; then, and when called again, it does nothing. Deferred after
// Create, it removes what a failed or abandoned write left.
//
// For a stream it closes what it opened; what was written stays written.
func (p *File) Cleanup() error {
	if p.done {
		return nil
	}
	p.done = true
	if p.stream {
		if p.f != nil {
			return p.f.Close()
		}
		return nil
	}
	p.f.Close()
	return os.Remove(p.tmp)
}

// finish flushes, syncs and closes the temporary file.
func (p *File) finish() error {
	if p.done {
		return fmt.Errorf("replace %s: %w", p.path, os.ErrClosed)
	}
	if err := p.bw.Flush(); err != nil {
		return err
	}
	if p.stream {
		// Neither chmod (the device or FIFO is not the File's to
		// change) nor sync (which pipes and terminals refuse).
		if p.f == nil {
			// A FIFO given nothing is opened all the same: its
			// reader gets an end of file rather than waiting.
			if err := p.openFIFO(); err != nil {
				return err
			}
		}
		err := p.f.Close()
		p.f, p.done = nil, true
		return err
	}
	if err := p.f.Chmod(p.mode); err != nil {
		return err
	}
	if err := p.f.Sync(); err != nil {
		return err
	}
	return p.f.Close()
}

// ReplaceTogether replaces the targets of all files, or none: on any
// error every temporary file is removed and every target left (or put
// back) as it was. Each file is first synced and closed; then the targets
// are replaced in turn, the old file of each kept aside under a hard link
// (or, where links are not to be had, moved aside) until the last rename
// has succeeded, so that a rename that fails puts the replaced ones back.
// The files must be distinct. A process killed between the renames can
// leave the earlier targets replaced: what it makes atomic is a failure,
// not a crash. Streams among the files are flushed and closed before any
// target is replaced, so that a stream that fails (a closed pipe) leaves
// every target as it was; what a stream was given stays given.
func ReplaceTogether(files ...*File) error {
	fail := func(err error) error {
		for _, p := range files {
			p.Cleanup()
		}
		return err
	}
	for _, p := range files {
		if err := p.finish(); err != nil {
			return fail(err)
		}
	}
	type undo struct {
		path, aside     string
		existed, linked bool // the old file was there; aside is a link to it, not it moved
		replaced        bool // the new file is at path
	}
	var renamed []*File
	for _, p := range files {
		if !p.stream {
			renamed = append(renamed, p)
		}
	}
	files = renamed
	var undos []undo
	restore := func(err error) error {
		for i := len(undos) - 1; i >= 0; i-- {
			u := undos[i]
			var rerr error
			switch {
			case u.aside != "" && (u.replaced || !u.linked):
				rerr = os.Rename(u.aside, u.path)
			case u.aside != "":
				os.Remove(u.aside) // a link to the file still at path
			case u.replaced && !u.existed:
				rerr = os.Remove(u.path)
			}
			if rerr != nil {
				err = fmt.Errorf("%w; and the old %s could not be put back (it is %s): %v", err, u.path, u.aside, rerr)
			}
		}
		return fail(err)
	}
	for i, p := range files {
		undos = append(undos, undo{path: p.path})
		u := &undos[len(undos)-1]
		if i < len(files)-1 {
			// A later rename may fail: keep the old file to put back.
			if _, err := os.Lstat(p.path); err == nil {
				u.existed = true
				aside := p.tmp + ".old"
				if os.Link(p.path, aside) == nil {
					u.aside, u.linked = aside, true
				} else if err := os.Rename(p.path, aside); err == nil {
					u.aside = aside
				} else {
					return restore(err)
				}
			}
		}
		if err := renameHook(p.tmp, p.path); err != nil {
			return restore(err)
		}
		p.done, u.replaced = true, true
	}
	for _, u := range undos {
		if u.aside != "" {
			os.Remove(u.aside)
		}
		syncDir(filepath.Dir(u.path))
	}
	return nil
}

// SameFile reports whether the paths a and b name one file, so that
// writing one would destroy the other: the same file by device and inode
// where both exist (hard links, symbolic links and other spellings
// count), else the same cleaned absolute path once the directory's
// symbolic links are resolved (an output not made yet). Callers that
// check an output against the files they read, before writing it, use it.
func SameFile(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(fa, fb)
	}
	return canonical(a) == canonical(b)
}

// canonical is path absolute, cleaned, its directory's links resolved.
func canonical(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	dir, base := filepath.Split(abs)
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		return filepath.Join(d, base)
	}
	return abs
}

// createStream returns a File writing to path as a stream, and true,
// when path is not a regular file to replace (see Create); or the error
// that refuses path, and true; or false when path is to be replaced.
func createStream(path string) (*File, bool, error) {
	if fd, ok := descriptorOf(path); ok {
		f, err := dupForWriting(fd, path)
		if err != nil {
			return nil, true, err
		}
		p := &File{path: path, f: f, stream: true}
		p.bw = bufio.NewWriterSize(streamWriter{p}, 1<<16)
		return p, true, nil
	}
	// Stat follows every link, the /proc links of other processes'
	// descriptors too, to what would be written.
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().IsRegular() {
		return nil, false, nil
	}
	m := fi.Mode()
	switch {
	case m&os.ModeNamedPipe != 0:
		p := &File{path: path, stream: true}
		p.bw = bufio.NewWriterSize(streamWriter{p}, 1<<16)
		return p, true, nil
	case m&os.ModeCharDevice != 0:
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, true, err
		}
		p := &File{path: path, f: f, stream: true}
		p.bw = bufio.NewWriterSize(streamWriter{p}, 1<<16)
		return p, true, nil
	case m.IsDir():
		return nil, true, fmt.Errorf("%s is a directory: it %w", path, ErrNotWritable)
	}
	return nil, true, fmt.Errorf("%s %w", path, ErrNotWritable)
}

// openFIFO opens p's FIFO for writing, which waits for a reader.
func (p *File) openFIFO() error {
	f, err := os.OpenFile(p.path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	p.f = f
	return nil
}

// streamWriter writes a stream File's buffer to its target, opening a
// FIFO at the first write.
type streamWriter struct{ p *File }

func (s streamWriter) Write(b []byte) (int, error) {
	if s.p.f == nil {
		if err := s.p.openFIFO(); err != nil {
			return 0, err
		}
	}
	return s.p.f.Write(b)
}

// renameHook is os.Rename; a test replaces it to make a rename fail.
var renameHook = os.Rename

// testWrapFile, when set by a test, wraps the temporary file's writer (to
// inject write failures).
var testWrapFile func(io.Writer) io.Writer

// syncDir makes a rename durable where the platform allows; failures are
// ignored (some systems cannot sync directories).
func syncDir(dir string) {
	if df, err := os.Open(dir); err == nil {
		_ = df.Sync()
		df.Close()
	}
}
