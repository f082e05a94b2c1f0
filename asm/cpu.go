package asm

import (
	"runtime"

	"github.com/klauspost/cpuid/v2"
)

// CPUInfo describes the processor and the kernels that run on it, for
// benchmark reports that compare machines.
type CPUInfo struct {
	Brand    string `json:"brand"`
	Vendor   string `json:"vendor"`
	Family   int    `json:"family"`
	Model    int    `json:"model"`
	Stepping int    `json:"stepping"`
	Arch     string `json:"arch"`
	// PhysicalCores and LogicalCores are the package's counts as cpuid
	// reports them. Under a hypervisor or an affinity mask they can
	// describe the host rather than what this process may use: compare
	// UsableCores.
	PhysicalCores int `json:"physical_cores"`
	LogicalCores  int `json:"logical_cores"`
	// UsableCores is the number of logical CPUs this process may run on
	// (runtime.NumCPU: the affinity mask at start-up), the count that
	// bounds parallel speed-ups.
	UsableCores int      `json:"usable_cores"`
	L1DataBytes int      `json:"l1d_bytes"`
	L1InstBytes int      `json:"l1i_bytes"`
	L2Bytes     int      `json:"l2_bytes"`
	L3Bytes     int      `json:"l3_bytes"`
	CacheLine   int      `json:"cache_line"`
	Features    []string `json:"features"`
	// Tiers lists the kernel tiers this CPU and build can run; Active is
	// the one in use.
	Tiers  []string `json:"tiers"`
	Active string   `json:"active"`
	// Override reports what became of HYPERPLANE_SIMD, if it was set.
	Override string `json:"override,omitempty"`
}

// CPU reports the processor (as github.com/klauspost/cpuid/v2 sees it), its
// caches and features, and the kernel tiers. Cache sizes are -1 where the
// CPU does not report them. cpuid honours the noasm build tag too, so a
// build with -tags noasm knows nothing of the processor: Brand and
// Features are empty and the logical core count is runtime.NumCPU().
func CPU() CPUInfo {
	c := cpuid.CPU
	info := CPUInfo{
		Brand:         c.BrandName,
		Vendor:        c.VendorString,
		Family:        c.Family,
		Model:         c.Model,
		Stepping:      c.Stepping,
		Arch:          runtime.GOARCH,
		PhysicalCores: c.PhysicalCores,
		LogicalCores:  c.LogicalCores,
		UsableCores:   runtime.NumCPU(),
		L1DataBytes:   c.Cache.L1D,
		L1InstBytes:   c.Cache.L1I,
		L2Bytes:       c.Cache.L2,
		L3Bytes:       c.Cache.L3,
		CacheLine:     c.CacheLine,
		Features:      c.FeatureSet(),
		Active:        Active().String(),
		Override:      envNote,
	}
	if info.LogicalCores == 0 {
		info.LogicalCores = runtime.NumCPU()
	}
	for _, t := range Tiers() {
		info.Tiers = append(info.Tiers, t.String())
	}
	return info
}
