//go:build race

package kernels

// raceOn: the race detector slows the float64 references down tenfold;
// the largest reference sets are left to the runs without it (and
// without -short).
const raceOn = true
