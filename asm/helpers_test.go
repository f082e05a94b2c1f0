package asm

import (
	"testing"

	"github.com/hyperplane-ml/hyperplane/asm/asmtest"
)

// The test helpers this package shares with engine/internal/kern's tests
// (asm/asmtest), under the names its tests use.

const (
	guardLen     = asmtest.GuardLen
	maxLen       = asmtest.MaxLen
	fenced       = asmtest.Fenced
	safetyMaxRow = asmtest.SafetyMaxRow
)

var (
	guarded32     = asmtest.Guarded32
	guarded64     = asmtest.Guarded64
	close32       = asmtest.Close32
	close64       = asmtest.Close64
	indexPatterns = asmtest.IndexPatterns
	sortInt32     = asmtest.SortInt32
	fenced32      = asmtest.Fenced32
	fenced64      = asmtest.Fenced64
	fencedI32     = asmtest.FencedI32
	badIndices    = asmtest.BadIndices
	badRows       = asmtest.BadRows
)

// mustPanic fails unless f panics as a bounds check does: with a runtime
// error, or with one of this package's messages.
func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	asmtest.MustPanic(t, "asm", what, f)
}
