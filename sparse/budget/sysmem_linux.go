//go:build linux

package budget

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// systemMemory returns the bytes this process may use: physical memory,
// or a smaller cgroup (v2 or v1) limit or resource limit on the address
// space or data (RLIMIT_AS, RLIMIT_DATA: a process past them gets no more
// memory from the kernel, and the Go runtime dies); 0 when none can be
// read.
func systemMemory() int64 {
	var si syscall.Sysinfo_t
	var m int64
	if syscall.Sysinfo(&si) == nil {
		m = int64(si.Totalram) * int64(si.Unit)
	}
	lower := func(c int64) {
		if c > 0 && (m == 0 || c < m) {
			m = c
		}
	}
	for _, f := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if c, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil {
			lower(c)
		}
	}
	for _, res := range []int{syscall.RLIMIT_AS, syscall.RLIMIT_DATA} {
		var rl syscall.Rlimit
		// RLIM_INFINITY is all ones: no limit.
		if syscall.Getrlimit(res, &rl) == nil && rl.Cur < 1<<62 {
			lower(int64(rl.Cur))
		}
	}
	return m
}
