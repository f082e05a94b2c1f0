//go:build linux

package budget

import (
	"syscall"
	"testing"
)

// A limit on the process's data (as ulimit -d or prlimit set it) lowers
// the memory the budget is half of: a process past it gets no memory from
// the kernel, and the Go runtime dies of it.
func TestSystemMemoryRlimit(t *testing.T) {
	free := systemMemory()
	if free <= 0 {
		t.Fatalf("systemMemory() = %d", free)
	}
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_DATA, &old); err != nil {
		t.Fatal(err)
	}
	// Well above what the test uses, below the machine's memory.
	limit := uint64(min(free/2, 32<<30))
	if old.Cur < limit {
		limit = old.Cur / 2
	}
	lowered := old
	lowered.Cur = limit
	if err := syscall.Setrlimit(syscall.RLIMIT_DATA, &lowered); err != nil {
		t.Fatal(err)
	}
	got := systemMemory()
	if err := syscall.Setrlimit(syscall.RLIMIT_DATA, &old); err != nil {
		t.Fatal(err)
	}
	if got != int64(limit) {
		t.Errorf("under RLIMIT_DATA of %d bytes, systemMemory() = %d", limit, got)
	}
}
