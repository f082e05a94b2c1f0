//go:build !linux

package engine

// hugeAlloc returns nil where transparent huge pages are not advised
// with madvise (see the Linux version): the caller allocates as usual.
func hugeAlloc(n int) (p []uint32, free func()) { return nil, nil }
