package main

import (
	"io"
	"testing"
)

// BenchmarkGenerate draws and writes 20 MB of training text on one
// goroutine; its MB/s is the generator's speed on one core.
func BenchmarkGenerate(b *testing.B) {
	c, err := NewCorpus(DefaultParams)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(20e6)
	for b.Loop() {
		if _, err := generate(c, 0, 20e6, -1, io.Discard, nil, 1); err != nil {
			b.Fatal(err)
		}
	}
}
