package main

import (
	"os"
	"runtime/debug"
	"testing"
)

// A budget given with -mem becomes the runtime's soft memory limit, with
// an eighth kept for what the heap does not count, and the limit before
// it comes back afterwards; GOMEMLIMIT, where set, wins.
func TestHoldMemory(t *testing.T) {
	if v, ok := os.LookupEnv("GOMEMLIMIT"); ok {
		t.Cleanup(func() { os.Setenv("GOMEMLIMIT", v) })
		os.Unsetenv("GOMEMLIMIT")
	}
	before := debug.SetMemoryLimit(-1)
	restore := holdMemory(400 << 20)
	if got, want := debug.SetMemoryLimit(-1), int64(350<<20); got != want {
		t.Errorf("limit while held = %d, want %d", got, want)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit after restore = %d, want %d", got, before)
	}

	t.Setenv("GOMEMLIMIT", "1GiB")
	restore = holdMemory(400 << 20)
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit with GOMEMLIMIT set = %d, want it left at %d", got, before)
	}
	restore()
}
