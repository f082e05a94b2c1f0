package engine

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"
)

// TestHugeAlloc: hugeAlloc's slice is zeroed, as long as asked, writable
// to its end, in a mapping advised for transparent huge pages (the "hg"
// flag of /proc/self/smaps) and aligned to a huge page; free unmaps it,
// once however often it is called; and slices under two huge pages are
// left to the caller.
func TestHugeAlloc(t *testing.T) {
	if p, free := hugeAlloc(hugePage/4*2 - 1); p != nil || free != nil {
		t.Fatalf("hugeAlloc under two huge pages returned %d values", len(p))
	}
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("this kernel has no transparent huge pages:", err)
	}
	n := 3*hugePage/4 + 5 // three huge pages and a little: the last one partly used
	p, free := hugeAlloc(n)
	if p == nil {
		t.Fatal("hugeAlloc returned nothing")
	}
	if len(p) != n || cap(p) != n {
		t.Fatalf("len %d cap %d, want %d", len(p), cap(p), n)
	}
	addr := uintptr(unsafe.Pointer(&p[0]))
	if addr%hugePage != 0 {
		t.Errorf("the slice starts at %#x, not on a huge page", addr)
	}
	for i, v := range p {
		if v != 0 {
			t.Fatalf("p[%d] = %d, want 0", i, v)
		}
		p[i] = uint32(i)
	}
	for i, v := range p {
		if v != uint32(i) {
			t.Fatalf("p[%d] = %d after writing %d", i, v, i)
		}
	}
	flags, err := vmFlags(addr)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(" "+flags+" ", " hg ") {
		t.Errorf("the mapping at %#x has flags %q, without hg (MADV_HUGEPAGE)", addr, flags)
	}
	free()
	free()
	if flags, err := vmFlags(addr); err == nil && strings.Contains(" "+flags+" ", " hg ") {
		t.Errorf("the mapping at %#x is still advised after free (flags %q)", addr, flags)
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
