//go:build race

package textmodel

// raceOn: under the race detector sync.Pool drops a share of what is put
// back on purpose, so a warm pool still allocates and allocation counts
// say nothing.
const raceOn = true
