package kern

import (
	"github.com/hyperplane-ml/hyperplane/asm"
	"github.com/hyperplane-ml/hyperplane/internal/bounds"
)

// tier is asm's active tier, which these kernels follow: one decision for
// both packages. asm.Active is an atomic load that inlines.
func tier() asm.Tier { return asm.Active() }

// The switch points of the sparse dot products. They must equal asm's:
// DotInd4F32 and P32.Dot promise DotIndF32's bits, which hold only if all
// three leave the gather kernel for the scalar loop at the same row length
// and weight size (TestDotInd4MatchesDotInd, TestDotInd4SizeSwitch and
// TestDotP32SameBits fail otherwise).
const (
	// gatherMaxBytes is the weight-vector size above which gathers lose
	// to scalar loads (asm's gatherMaxBytes).
	gatherMaxBytes = 8 << 20
	// gatherMinLen is the row length below which the scalar loop beats
	// the gather kernels (asm's gatherMinLen).
	gatherMinLen = 24
)

func checkLen(op string, a, b int) {
	if a != b {
		bounds.Len("kern", op, a, b)
	}
}

// panicIndex panics with the first index of ind not in [0, lim): a
// checked kernel found one.
func panicIndex(op string, ind []int32, lim int) { bounds.Index("kern", op, ind, lim) }

// strideLim is the number of indices j whose element j·stride lies in a
// slice of n elements: ⌈n/stride⌉, without overflow.
func strideLim(n, stride int) int {
	if n == 0 {
		return 0
	}
	return (n-1)/stride + 1
}
