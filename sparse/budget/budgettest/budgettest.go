// Package budgettest holds a test helper that runs code under a small
// memory budget and checks that it kept to it: the fuzz targets of every
// decoder use it, so that an input which makes a decoder allocate far more
// than the budget allows fails the fuzz run, even when the decoder then
// refuses the input and frees what it allocated.
package budgettest

import (
	"runtime"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse/budget"
)

// Within makes limit bytes the process budget (budget.Set) and returns a
// function, to be deferred, that restores the budget before it and fails
// t if the code between allocated more than twice limit.
//
// What is measured is the bytes allocated on the heap meanwhile
// (runtime.MemStats.TotalAlloc), not the heap's size after the code ran:
// a decoder that allocates gigabytes by a size a file claims and then
// refuses the file has freed them by the time it returns, so that
// HeapAlloc or HeapInuse afterwards (after a GC, the only stable reading)
// show nothing, while the peak was what brought the machine down. The
// bytes allocated bound the peak from above and do not depend on when the
// collector ran. They are counted for the whole process, so the code must
// not run beside other work (and under the race detector, whose runtime
// allocates for itself, nothing is checked): the fuzzing engine runs one input at a time
// in each worker process, and go test runs the seeds of a fuzz target
// after every test, one at a time.
func Within(t testing.TB, limit int64) func() {
	t.Helper()
	prev := budget.Set(limit)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	return func() {
		t.Helper()
		runtime.ReadMemStats(&ms)
		budget.Set(prev)
		if got := int64(ms.TotalAlloc - before); got > 2*limit && !raceOn {
			t.Errorf("allocated %s under a memory budget of %s: more than twice the budget", budget.Format(got), budget.Format(limit))
		}
	}
}

// Run runs f under a budget of limit bytes, as Within does, and fails t
// if f allocated more than twice limit each of three times: the bytes
// allocated are counted for the whole process, and goroutines that an
// earlier test left finishing on a loaded machine count too, so one run
// over the bound is tried again, and only a decoder that goes over it
// every time fails. f must do the same work each run.
func Run(t testing.TB, limit int64, f func()) {
	t.Helper()
	prev := budget.Set(limit)
	defer budget.Set(prev)
	var least uint64
	for i := range 3 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		got := after.TotalAlloc - before.TotalAlloc
		if i == 0 || got < least {
			least = got
		}
		if least <= uint64(2*limit) || raceOn {
			return
		}
	}
	t.Errorf("allocated %s under a memory budget of %s, the least of three runs: more than twice the budget", budget.Format(int64(least)), budget.Format(limit))
}
