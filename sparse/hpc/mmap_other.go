//go:build !linux && !darwin

package hpc

import (
	"errors"
	"os"
)

// mmapSupported reports whether mmapFile can map files on this platform.
const mmapSupported = false

// mmapFile is not available here: caches are read with ReadAt.
func mmapFile(f *os.File, size int64) ([]byte, error) {
	return nil, errors.New("sparse: memory mapping is not supported on this platform")
}

// munmap is never called here.
func munmap(b []byte) error { return nil }
