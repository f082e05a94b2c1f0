//go:build unix

package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// descriptorOf reports whether path names a descriptor this process
// holds open, and which: /dev/fd/N, /proc/PID/fd/N or
// /proc/PID/task/TID/fd/N with this process's PID (/proc/self and
// /proc/thread-self lead there), or a symbolic link that leads to one
// (/dev/stdout is a link to /proc/self/fd/1 on Linux, to fd/1 on the
// BSDs). The links are followed one at a time, not resolved at once:
// the last step, from /proc/self/fd/N to the file behind the descriptor,
// is what must not be taken.
func descriptorOf(path string) (int, bool) {
	p := path
	for range 40 { // the kernel's own bound on links in a path
		abs, err := filepath.Abs(p)
		if err != nil {
			return 0, false
		}
		dir, base := filepath.Split(abs)
		if dir, err = filepath.EvalSymlinks(dir); err != nil {
			return 0, false
		}
		if fd, ok := descriptorName(dir, base); ok {
			return fd, true
		}
		full := filepath.Join(dir, base)
		fi, err := os.Lstat(full)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			return 0, false
		}
		l, err := os.Readlink(full)
		if err != nil {
			return 0, false
		}
		if !filepath.IsAbs(l) {
			l = filepath.Join(dir, l)
		}
		p = l
	}
	return 0, false
}

// descriptorName reports whether base, in the directory dir (links
// resolved), names one of this process's descriptors, and which.
func descriptorName(dir, base string) (int, bool) {
	fd, err := strconv.Atoi(base)
	if err != nil || fd < 0 || strconv.Itoa(fd) != base {
		return 0, false
	}
	if dir == "/dev/fd" {
		// The BSDs' fdescfs: a directory, not a link into /proc.
		return fd, true
	}
	// This process's directory in /proc is where /proc/self leads: its
	// number can differ from Getpid's where /proc belongs to another PID
	// namespace.
	rest, ok := strings.CutPrefix(dir, "/proc/"+strconv.Itoa(os.Getpid())+"/")
	if self, err := os.Readlink("/proc/self"); !ok && err == nil {
		rest, ok = strings.CutPrefix(dir, "/proc/"+self+"/")
	}
	if !ok {
		return 0, false
	}
	if rest == "fd" {
		return fd, true
	}
	// A thread's view of the descriptors, which its process shares.
	parts := strings.Split(rest, "/")
	if len(parts) == 3 && parts[0] == "task" && parts[2] == "fd" {
		if _, err := strconv.Atoi(parts[1]); err == nil {
			return fd, true
		}
	}
	return 0, false
}

// dupForWriting returns a duplicate of the descriptor fd as a file named
// name, closed on exec like every file Go opens, after checking with a
// write of no bytes that fd is open for writing.
func dupForWriting(fd int, name string) (*os.File, error) {
	syscall.ForkLock.RLock()
	nfd, err := syscall.Dup(fd)
	if err == nil {
		syscall.CloseOnExec(nfd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, fmt.Errorf("%s: descriptor %d %w: %v", name, fd, ErrNotWritable, err)
	}
	if _, err := syscall.Write(nfd, nil); err != nil {
		syscall.Close(nfd)
		return nil, fmt.Errorf("%s: descriptor %d %w: %v", name, fd, ErrNotWritable, err)
	}
	return os.NewFile(uintptr(nfd), name), nil
}
