//go:build !amd64 || noasm

package asm

func simdKernels(Tier) *kernelSet { return nil }
