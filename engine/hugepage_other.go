//go:build !linux

package engine

// adviseHuge is a no-op where transparent huge pages are not advised
// with madvise (see the Linux version).
func adviseHuge(p []uint32) {}
