package engine

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"
)

// TestAdviseHuge: adviseHuge marks the whole huge pages inside a slice
// for transparent huge pages (the "hg" flag of their mapping in
// /proc/self/smaps) and changes none of its values.
func TestAdviseHuge(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("this kernel has no transparent huge pages:", err)
	}
	p := make([]uint32, 3*hugePage/4)
	for i := range p {
		p[i] = uint32(i * 7)
	}
	adviseHuge(p)
	for i, v := range p {
		if v != uint32(i*7) {
			t.Fatalf("p[%d] = %d after adviseHuge, want %d", i, v, i*7)
		}
	}
	start := uintptr(unsafe.Pointer(&p[0]))
	aligned := (start + hugePage - 1) &^ (hugePage - 1)
	flags, err := vmFlags(aligned)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(" "+flags+" ", " hg ") {
		t.Errorf("the mapping at %#x has flags %q, without hg (MADV_HUGEPAGE)", aligned, flags)
	}
}

// vmFlags returns the VmFlags line of the mapping of /proc/self/smaps
// that holds addr.
func vmFlags(addr uintptr) (string, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x", &lo, &hi); n == 2 && strings.Contains(line, " ") {
			in = lo <= addr && addr < hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmFlags:")), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("no mapping of /proc/self/smaps holds %#x", addr)
}
