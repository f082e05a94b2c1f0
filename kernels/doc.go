// Package kernels holds the kernel functions of the kernel perceptron and
// the Gram matrix it trains over, built on the SIMD primitives of package
// asm.
//
// The built-in kernels (Linear, Poly, RBF, Sigmoid) are DotKernels: they
// depend on two rows only through x·z, ‖x‖² and ‖z‖². A block of such a
// kernel is therefore a matrix product followed by one vectorized pass per
// row: for dense rows the product runs as rank-1 updates on asm.AxpyF32
// (faster than gonum's Gemm at the narrow widths kernel methods meet, see
// bench.BenchmarkBlockVsGemm), for sparse rows as one asm.DotRowsF32 call
// per row; RBF is computed as exp(−γ(‖x‖² + ‖z‖² − 2x·z)) with the squared
// norms cached in Data and vek32's vectorized exp on the AVX2 and AVX-512
// tiers, math.Exp in portable Go on the generic tier (a noasm build does
// not link vek32). A user-defined Kernel is
// evaluated pair by pair, on all cores.
//
// A Gram matrix is either a Cache, which computes a row when it is first
// asked for and keeps the rows that fit a byte budget (all of them when
// they fit, else the most recently used, as LIBSVM's -m option does), or a
// Full matrix computed at once in symmetric tiles. NewGram picks by
// Options; Stats reports the hits, misses and entries computed.
package kernels
