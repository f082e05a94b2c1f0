//go:build !linux && !darwin

package asm

import "testing"

// Without mmap the fenced slices are ordinary ones: the tests still check
// that every bad argument panics, only a stray access goes unseen.

const fenced = false

func fenced32(t *testing.T, n int, atEnd bool) []float32 { return make([]float32, n) }
func fenced64(t *testing.T, n int, atEnd bool) []float64 { return make([]float64, n) }
func fencedI32(t *testing.T, n int, atEnd bool) []int32  { return make([]int32, n) }
func fencedBytes(t *testing.T, n int, atEnd bool) []byte { return make([]byte, n) }
