package engine

import (
	"syscall"
	"unsafe"
)

// hugePage is the size of a transparent huge page on the platforms Go
// runs Linux on with 4 KiB base pages (amd64, arm64 with 4 KiB pages).
const hugePage = 2 << 20

// hugeAlloc returns n zeroed uint32 in a mapping of their own, aligned to
// a huge page and advised onto transparent huge pages (madvise
// MADV_HUGEPAGE), which the system allocates on request in its common
// "madvise" mode; and the function that unmaps them, which the caller
// must call once nothing reads the slice any more. An epoch that visits
// rows in shuffled order otherwise misses the TLB on most rows of a
// matrix larger than the TLB's reach, and each miss is a page walk.
//
// The memory is the kernel's, outside Go's heap, so that the advice goes
// away with it: advice left on the heap's own addresses would outlive the
// fit and let the kernel back memory the heap has given back with huge
// pages again. Below two huge pages, or when the mapping fails, it
// returns nil and the caller allocates as usual.
func hugeAlloc(n int) (p []uint32, free func()) {
	size := uintptr(n) * unsafe.Sizeof(uint32(0))
	if n <= 0 || size < 2*hugePage || uintptr(n) > ^uintptr(0)/8 {
		return nil, nil
	}
	span := (size + hugePage - 1) &^ (hugePage - 1)
	m, err := syscall.Mmap(-1, 0, int(span+hugePage), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil, nil
	}
	base := unsafe.Pointer(unsafe.SliceData(m))
	off := (hugePage - uintptr(base)%hugePage) % hugePage
	region := unsafe.Slice((*byte)(unsafe.Add(base, off)), span)
	// An error (an old kernel, huge pages off) leaves small pages, which
	// is all the advice could change.
	_ = syscall.Madvise(region, syscall.MADV_HUGEPAGE)
	p = unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(region))), n)
	return p, func() {
		if m != nil {
			_ = syscall.Munmap(m)
			m = nil
		}
	}
}
