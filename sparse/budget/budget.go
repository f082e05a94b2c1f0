// Package budget is the memory budget that hyperplane checks every
// allocation sized by input data against before it makes it: a model's
// weights (width × classes × bytes per weight × workers), accumulators,
// IDF tables, Gram caches, reader buffers and generated data. A file
// whose header, widest index or class count asks for more than the budget
// gets an error wrapping ErrExceeded that says what needed how much,
// instead of an out-of-memory kill or minutes of paging.
//
// The budget is one number of bytes for the process. Options that carry a
// budget of their own (engine.Config.MemoryBudget, sparse.ReadOptions)
// take 0 to mean Default, which is what Set last gave or, unset, half of
// the memory this process may use: the smaller of physical memory and a
// cgroup limit, or 8 GiB where neither can be read. Half leaves room for
// the data itself, which the readers count against the budget separately.
package budget

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// ErrExceeded is wrapped by every error that refuses an allocation over
// the budget.
var ErrExceeded = errors.New("over the memory budget")

// fallback is the budget where the machine's memory cannot be read.
const fallback = 8 << 30

var (
	set       atomic.Int64 // what Set gave; 0 when unset
	autoOnce  sync.Once
	autoBytes int64
)

// Default returns the process budget in bytes: the last value given to
// Set, or half of the memory available to the process.
func Default() int64 {
	if n := set.Load(); n > 0 {
		return n
	}
	autoOnce.Do(func() {
		autoBytes = fallback
		if m := systemMemory(); m > 0 {
			autoBytes = m / 2
		}
	})
	return autoBytes
}

// Set makes n bytes the process budget and returns the one before; n ≤ 0
// returns to the automatic default.
func Set(n int64) (previous int64) {
	previous = Default()
	set.Store(max(n, 0))
	return previous
}

// Resolve returns b when it is positive, else Default.
func Resolve(b int64) int64 {
	if b > 0 {
		return b
	}
	return Default()
}

// Check returns nil when need bytes fit in limit (0 meaning Default), and
// otherwise an error wrapping ErrExceeded that names what and both sizes.
// need is typically a product made with Mul, which saturates rather than
// overflows.
func Check(limit, need int64, what string) error {
	limit = Resolve(limit)
	if need <= limit {
		return nil
	}
	return fmt.Errorf("%w: %s needs %s, the budget is %s", ErrExceeded, what, Format(need), Format(limit))
}

// Mul returns the product of its factors, or math.MaxInt64 when that
// overflows or a factor is negative: sizes computed from untrusted counts
// saturate instead of wrapping round to something that looks small.
func Mul(f ...int64) int64 {
	p := int64(1)
	for _, x := range f {
		if x < 0 {
			return math.MaxInt64
		}
		if x == 0 {
			return 0
		}
		if p > math.MaxInt64/x {
			p = math.MaxInt64
			continue
		}
		p *= x
	}
	return p
}

// Add returns the sum of its terms, saturating at math.MaxInt64.
func Add(t ...int64) int64 {
	s := int64(0)
	for _, x := range t {
		if x < 0 || s > math.MaxInt64-x {
			return math.MaxInt64
		}
		s += x
	}
	return s
}

// Format writes n bytes in binary units with three significant digits:
// "512 B", "3.50 KiB", "24.0 GiB".
func Format(n int64) string {
	if n == math.MaxInt64 {
		return "more than 8 EiB"
	}
	if n < 1024 {
		return strconv.FormatInt(n, 10) + " B"
	}
	units := []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	v := float64(n)
	u := -1
	for v >= 1024 && u < len(units)-1 {
		v /= 1024
		u++
	}
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f %s", v, units[u])
	case v >= 10:
		return fmt.Sprintf("%.1f %s", v, units[u])
	}
	return fmt.Sprintf("%.2f %s", v, units[u])
}

// Parse reads a size as people write it: a number with an optional unit,
// B, K/KB/KiB, M/MB/MiB, G/GB/GiB or T/TB/TiB (all binary, as memory is
// sold), case-insensitive: "512MiB", "8g", "1.5 GiB", "1e9".
func Parse(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := len(t)
	for i > 0 && (t[i-1] < '0' || t[i-1] > '9') && t[i-1] != '.' {
		i--
	}
	num, unit := strings.TrimSpace(t[:i]), strings.ToLower(strings.TrimSpace(t[i:]))
	mult := map[string]float64{"": 1, "b": 1,
		"k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10,
		"m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20,
		"g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30,
		"t": 1 << 40, "tb": 1 << 40, "tib": 1 << 40}[unit]
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || mult == 0 || !(v > 0) || v*mult >= math.MaxInt64 {
		return 0, fmt.Errorf("budget: %q is not a size (want e.g. 512MiB, 8GiB)", s)
	}
	return int64(v * mult), nil
}

// A Meter counts what a decoder builds against a budget as it builds it:
// each Take adds to the bytes taken before, and fails once their sum
// would pass the limit, before the allocation it stands for is made. A
// decoder sizes what it takes by what the structures cost in memory
// (string headers and bytes, slice elements, index slots), not by the
// bytes of the input that describe them, so that a small input listing
// millions of tiny entries is refused as early as a large one. A Meter is
// not safe for concurrent use.
type Meter struct {
	limit, used int64
}

// NewMeter returns a Meter of limit bytes, 0 meaning Default.
func NewMeter(limit int64) *Meter { return &Meter{limit: Resolve(limit)} }

// Take counts n more bytes for what. It returns nil when the bytes taken
// so far fit the limit, and otherwise an error wrapping ErrExceeded that
// names what, the total and the limit; the bytes are then not counted.
func (m *Meter) Take(n int64, what string) error {
	used := Add(m.used, max(n, 0))
	if used > m.limit {
		return fmt.Errorf("%w: %s needs %s (%s with what was taken before it), the budget is %s",
			ErrExceeded, what, Format(max(n, 0)), Format(used), Format(m.limit))
	}
	m.used = used
	return nil
}

// Used returns the bytes taken so far.
func (m *Meter) Used() int64 { return m.used }
