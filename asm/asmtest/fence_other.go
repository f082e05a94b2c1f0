//go:build !linux && !darwin

package asmtest

import "testing"

// Without mmap the fenced slices are ordinary ones: the tests still check
// that every bad argument panics, only a stray access goes unseen.

// Fenced reports whether the fenced slices really end against pages the
// process may not touch.
const Fenced = false

// Fenced32, Fenced64, FencedI32 and FencedBytes make ordinary slices.

func Fenced32(t *testing.T, n int, atEnd bool) []float32 { return make([]float32, n) }
func Fenced64(t *testing.T, n int, atEnd bool) []float64 { return make([]float64, n) }
func FencedI32(t *testing.T, n int, atEnd bool) []int32  { return make([]int32, n) }
func FencedBytes(t *testing.T, n int, atEnd bool) []byte { return make([]byte, n) }
