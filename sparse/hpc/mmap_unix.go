//go:build linux || darwin

package hpc

import (
	"errors"
	"math"
	"os"
	"syscall"
)

// mmapSupported reports whether mmapFile can map files on this platform.
const mmapSupported = true

// mmapFile maps the first size bytes of f read-only and shared.
func mmapFile(f *os.File, size int64) ([]byte, error) {
	if size <= 0 || size > math.MaxInt {
		return nil, errors.New("sparse: cannot map a file of this size")
	}
	return syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
}

// munmap removes a mapping made by mmapFile.
func munmap(b []byte) error { return syscall.Munmap(b) }
