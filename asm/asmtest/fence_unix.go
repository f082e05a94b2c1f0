//go:build linux || darwin

package asmtest

import (
	"os"
	"syscall"
	"testing"
	"unsafe"
)

// FencedBytes returns n bytes that end (atEnd) or start exactly at a page
// the process may not touch, with another such page on the far side
// rounded up to a page: a kernel that reads or writes just past the slice
// faults and takes the test down instead of passing by luck.
func FencedBytes(t *testing.T, n int, atEnd bool) []byte {
	t.Helper()
	page := os.Getpagesize()
	body := (n + page - 1) / page * page
	if body == 0 {
		body = page
	}
	mem, err := syscall.Mmap(-1, 0, body+2*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatalf("mmap: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Munmap(mem) })
	for _, p := range [][]byte{mem[:page], mem[page+body:]} {
		if err := syscall.Mprotect(p, syscall.PROT_NONE); err != nil {
			t.Fatalf("mprotect: %v", err)
		}
	}
	if atEnd {
		return mem[page+body-n : page+body : page+body]
	}
	return mem[page : page+n : page+n]
}

// Fenced reports whether the fenced slices really end against pages the
// process may not touch (false where there is no mmap).
const Fenced = true

// Fenced32 is FencedBytes as n float32.
func Fenced32(t *testing.T, n int, atEnd bool) []float32 {
	b := FencedBytes(t, 4*n, atEnd)
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// Fenced64 is FencedBytes as n float64.
func Fenced64(t *testing.T, n int, atEnd bool) []float64 {
	b := FencedBytes(t, 8*n, atEnd)
	return unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// FencedI32 is FencedBytes as n int32.
func FencedI32(t *testing.T, n int, atEnd bool) []int32 {
	b := FencedBytes(t, 4*n, atEnd)
	return unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(b))), n)
}
