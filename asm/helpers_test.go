package asm

import (
	"testing"

	"github.com/hyperplane-ml/hyperplane/internal/simdtest"
)

// The test helpers this package shares with engine/internal/kern's tests
// (internal/simdtest), under the names its tests use.

const (
	guardLen     = simdtest.GuardLen
	maxLen       = simdtest.MaxLen
	fenced       = simdtest.Fenced
	safetyMaxRow = simdtest.SafetyMaxRow
)

var (
	guarded32     = simdtest.Guarded32
	guarded64     = simdtest.Guarded64
	close32       = simdtest.Close32
	close64       = simdtest.Close64
	indexPatterns = simdtest.IndexPatterns
	sortInt32     = simdtest.SortInt32
	fenced32      = simdtest.Fenced32
	fenced64      = simdtest.Fenced64
	fencedI32     = simdtest.FencedI32
	badIndices    = simdtest.BadIndices
	badRows       = simdtest.BadRows
)

// mustPanic fails unless f panics as a bounds check does: with a runtime
// error, or with one of this package's messages.
func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	simdtest.MustPanic(t, "asm", what, f)
}
