package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/hyperplane-ml/hyperplane/asm"
)

func newCPUCmd() *Command {
	return newReport(&Command{
		UsageLine: "cpu",
		Short:     "show the CPU, its SIMD features and the kernel tier in use",
		Long: `Cpu reports the processor as cpuid sees it (brand, family and model, core
counts, cache sizes, feature flags), the kernel tiers it can run and the one
in use, which HYPERPLANE_SIMD or -simd can force.`,
	}, asm.CPU, printCPU)
}

// printCPU prints the CPU report c.
func printCPU(out io.Writer, c asm.CPUInfo) {
	if c.Brand == "" && c.Vendor == "" {
		fmt.Fprintf(out, "cpu:      unknown (%s; no cpuid data, as in a -tags noasm build)\n", c.Arch)
	} else {
		fmt.Fprintf(out, "cpu:      %s (%s, family %d model %d stepping %d, %s)\n", c.Brand, c.Vendor, c.Family, c.Model, c.Stepping, c.Arch)
	}
	fmt.Fprintf(out, "cores:    %s\n", coresLine(c, runtime.GOMAXPROCS(0)))
	fmt.Fprintf(out, "caches:   L1d %s, L2 %s, L3 %s, line %d B\n", size(c.L1DataBytes), size(c.L2Bytes), size(c.L3Bytes), c.CacheLine)
	fmt.Fprintf(out, "features: %s\n", strings.Join(c.Features, " "))
	fmt.Fprintf(out, "tiers:    %s (active: %s)\n", strings.Join(c.Tiers, ", "), c.Active)
	if c.Override != "" {
		fmt.Fprintf(out, "override: %s\n", c.Override)
	}
}

// coresLine describes the core counts the way cpu and bench both print
// them: what this process may use first, then what cpuid says of the
// package, flagged where the two disagree (a virtual machine or an
// affinity mask can show the host's count). A report written before the
// usable count was recorded (UsableCores 0) gives only the rest.
func coresLine(c asm.CPUInfo, gomaxprocs int) string {
	s := fmt.Sprintf("GOMAXPROCS %d", gomaxprocs)
	if c.UsableCores > 0 {
		s = fmt.Sprintf("%d usable by this process (GOMAXPROCS %d)", c.UsableCores, gomaxprocs)
	}
	s += fmt.Sprintf("; cpuid: %d physical, %d logical", c.PhysicalCores, c.LogicalCores)
	if c.UsableCores > 0 && max(c.PhysicalCores, c.LogicalCores) > c.UsableCores {
		s += " in the package, more than this process may use (a virtual machine or an affinity mask)"
	}
	return s
}

func size(b int) string {
	switch {
	case b <= 0:
		return "unknown"
	case b >= 1<<20:
		return fmt.Sprintf("%d MiB", b>>20)
	default:
		return fmt.Sprintf("%d KiB", b>>10)
	}
}
