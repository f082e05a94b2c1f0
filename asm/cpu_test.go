package asm

import (
	"runtime"
	"slices"
	"testing"
)

func TestCPUReport(t *testing.T) {
	info := CPU()
	if info.Arch != runtime.GOARCH {
		t.Fatalf("Arch = %q, want %q", info.Arch, runtime.GOARCH)
	}
	if info.Active != Active().String() {
		t.Fatalf("Active = %q, want %q", info.Active, Active())
	}
	// Even without cpuid data (a noasm build) the report counts the
	// cores it can run on.
	if info.LogicalCores < 1 {
		t.Fatalf("LogicalCores = %d", info.LogicalCores)
	}
	if len(info.Tiers) != len(Tiers()) || info.Tiers[0] != "generic" {
		t.Fatalf("Tiers = %v", info.Tiers)
	}
	// A tier is only offered when the CPU reports what it needs.
	if Supported(AVX2) && !slices.Contains(info.Features, "AVX2") {
		t.Fatalf("AVX2 tier offered without the AVX2 feature: %v", info.Features)
	}
	if Supported(AVX512) && !slices.Contains(info.Features, "AVX512VL") {
		t.Fatalf("AVX-512 tier offered without AVX512VL: %v", info.Features)
	}
}
