package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// ErrEmptyName reports a file name that is empty.
var ErrEmptyName = errors.New("atomicfile: empty file name")

// Write creates or replaces path with what write writes, so that
// readers see either the old file or the whole new one, never a part: the
// data goes to a temporary file in the same directory, which is synced
// and then renamed over path. If write or any step fails, the temporary
// file is removed and an existing file at path is left untouched. A new
// file gets mode 0644; a replaced file keeps its mode. When path is a
// symbolic link, the file it points to is replaced and the link kept. Model
// and cache files of the other packages are written through it. It is
// Create, write, and File.CloseAtomicallyReplace.
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
type File struct {
	path string // the file replaced, symbolic links resolved
	tmp  string // the temporary file
	f    *os.File
	bw   *bufio.Writer
	mode os.FileMode
	done bool // replaced or cleaned up: nothing is left to do
}

// Create creates the temporary file that will replace path (see
// Write for what happens to modes and symbolic links). It fails
// when path is empty (ErrEmptyName), names something other than a
// regular file, or its directory cannot take a new file.
func Create(path string) (*File, error) {
	if path == "" {
		return nil, ErrEmptyName
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
			return nil, fmt.Errorf("%s exists and is not a regular file", path)
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

// Name returns the path of the file p replaces (symbolic links resolved).
func (p *File) Name() string { return p.path }

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
func (p *File) Cleanup() error {
	if p.done {
		return nil
	}
	p.done = true
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
// not a crash.
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
