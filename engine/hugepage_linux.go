package engine

import (
	"syscall"
	"unsafe"
)

// hugePage is the size of a transparent huge page on the platforms Go
// runs Linux on with 4 KiB base pages (amd64, arm64 with 4 KiB pages).
const hugePage = 2 << 20

// adviseHuge asks the kernel to back the whole huge pages inside p with
// transparent huge pages (madvise MADV_HUGEPAGE), where the system
// allows them on request, as it commonly does ("madvise" mode). An epoch
// that visits rows in shuffled order otherwise misses the TLB on most
// rows of a matrix larger than the TLB's reach, and each miss is a page
// walk. Call it before p is first written, so that its pages are then
// allocated huge; it only advises, and changes no byte of p. Slices
// shorter than two huge pages are left alone.
func adviseHuge(p []uint32) {
	n := uintptr(len(p)) * unsafe.Sizeof(p[0])
	if n < 2*hugePage {
		return
	}
	base := unsafe.Pointer(unsafe.SliceData(p))
	off := (hugePage - uintptr(base)%hugePage) % hugePage
	size := (n - off) &^ (hugePage - 1)
	// An error (an old kernel, huge pages off) leaves the pages as
	// they were, which is all the advice could change.
	_ = syscall.Madvise(unsafe.Slice((*byte)(unsafe.Add(base, off)), size), syscall.MADV_HUGEPAGE)
}
