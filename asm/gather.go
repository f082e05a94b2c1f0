package asm

// The switch points of the sparse dot products. engine/internal/kern
// holds a copy for its interleaved and packed twins of DotIndF32, which
// must switch where DotIndF32 does to give its bits (its tests check
// that they do).

// gatherMaxBytes is the weight-vector size above which gathers lose to
// scalar loads: gathers win while the weights sit in L2 and lose once
// they exceed about 8 MiB, when nearly every element is a cache miss and
// the gather's serialised loads cost more than the scalar loop's
// overlapped ones.
const gatherMaxBytes = 8 << 20

// gatherMinLen is the row length below which the scalar loop beats the
// gather kernels: their masked tail and horizontal sum are a fixed cost
// per row that short rows (a9a's have 14 nonzeros) do not repay; the two
// draw about level in the mid to high twenties.
const gatherMinLen = 24
