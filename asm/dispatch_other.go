//go:build !amd64 || noasm

package asm

// archInit has nothing to add where there is no assembly: only the
// portable tier runs.
func archInit() {}
