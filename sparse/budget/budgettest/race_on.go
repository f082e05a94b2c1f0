//go:build race

package budgettest

// raceOn: under the race detector sync.Pool drops a share of what is put
// back on purpose and the runtime allocates for its own bookkeeping, so
// the bytes allocated say nothing about a decoder; the bounds are checked
// in the ordinary test run.
const raceOn = true
