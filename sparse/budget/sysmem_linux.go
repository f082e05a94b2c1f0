//go:build linux

package budget

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// systemMemory returns the bytes this process may use: physical memory,
// or a smaller cgroup (v2 or v1) limit; 0 when neither can be read.
func systemMemory() int64 {
	var si syscall.Sysinfo_t
	var m int64
	if syscall.Sysinfo(&si) == nil {
		m = int64(si.Totalram) * int64(si.Unit)
	}
	for _, f := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if c, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && c > 0 && (m == 0 || c < m) {
			m = c
		}
	}
	return m
}
