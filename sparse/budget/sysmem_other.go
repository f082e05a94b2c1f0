//go:build !linux

package budget

// systemMemory cannot read the machine's memory here: Default falls back
// to a fixed size.
func systemMemory() int64 { return 0 }
