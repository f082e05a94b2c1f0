// Package bounds holds the panics that the checks of package asm and of
// the engine's own kernels raise on arguments out of range, worded as Go's
// bounds checks are.
package bounds

import "fmt"

// Len panics: the slices of pkg.op have lengths a and b, which differ.
// It is not inlined, and takes the package and function names apart, so
// that a caller's check, a compare and this call, stays small enough to
// inline into every kernel's entry.
//
//go:noinline
func Len(pkg, op string, a, b int) {
	panic(fmt.Sprintf("%s.%s: length mismatch %d != %d", pkg, op, a, b))
}

// Index panics with the first index of ind not in [0, lim), as a Go
// bounds check would: a kernel that checks its indices found one.
func Index(pkg, op string, ind []int32, lim int) {
	for k, j := range ind {
		if j < 0 || int64(j) >= int64(lim) {
			panic(fmt.Sprintf("%s.%s: index ind[%d] = %d out of range [0, %d)", pkg, op, k, j, lim))
		}
	}
	panic(fmt.Sprintf("%s.%s: an index out of range [0, %d)", pkg, op, lim))
}
