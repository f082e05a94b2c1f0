// Command _gen writes hyperplane's amd64 kernels with avo. It lives in its
// own module so that users of hyperplane never download avo; run it through
// `go generate ./asm ./engine/internal/kern`, which writes one .s file and
// one stub file per kernel family: asm's public kernels into asm, and the
// kernels of the engine's own layouts (interleaved slots, multiclass
// strides, packed rows, prefetch hints, a model file's bitmaps) into
// engine/internal/kern.
//
// Every kernel comes in float32 and float64, for two tiers: AVX2+FMA (YMM,
// scalar tails) and AVX-512 F+VL (ZMM, masked tails). Every function ends in
// VZEROUPPER: leaving the upper halves dirty makes the next SSE code pay
// for an AVX-to-SSE transition.
package main

import (
	"flag"
	"fmt"
	"os"

	. "github.com/mmcloughlin/avo/build"
)

func main() {
	kernel := flag.String("kernel", "", "kernel to generate: dot, axpy, scale, sumsq, dotind, dotind4, dotrows, axpyind, axpyavg, axpyavg4, axpyavgclass, dotp32, increasing, average, addscores, prefetch, expand")
	flag.Parse()
	ConstraintExpr("amd64,!noasm")
	gens := map[string]func(elem, isa){
		"dot": genDot, "axpy": genAxpy, "scale": genScale, "sumsq": genSumSq,
		"dotind": genDotInd, "dotind4": genDotInd4, "dotrows": genDotRows, "axpyind": genAxpyInd,
	}
	if *kernel == "expand" {
		genExpand()
		Generate()
		return
	}
	if *kernel == "prefetch" {
		genPrefetch()
		Generate()
		return
	}
	if *kernel == "average" {
		for _, s := range []isa{avx2, avx512} {
			genAverage(s, false)
			genAverage(s, true)
		}
		Generate()
		return
	}
	if *kernel == "dotp32" {
		genDotP32()
		genDotP32AVX512()
		genAxpyAvgP32()
		genAxpyAvgP32AVX512()
		genAxpyIndP32()
		genPackP32()
		Generate()
		return
	}
	if *kernel == "increasing" {
		genIncreasing()
		Generate()
		return
	}
	if *kernel == "axpyavg" {
		genAxpyAvg(false)
		genAxpyAvgDense()
		Generate()
		return
	}
	// The averaged update on the engine's own layouts (interleaved slots,
	// a multiclass model's feature-major classes), which engine/internal/kern
	// holds apart from asm's public kernels.
	if *kernel == "axpyavg4" {
		genAxpyAvg(true)
		Generate()
		return
	}
	if *kernel == "axpyavgclass" {
		genAxpyAvgStride()
		genAxpyAvgPair()
		Generate()
		return
	}
	if *kernel == "addscores" {
		genAddScores()
		genAddScoresAVX2()
		Generate()
		return
	}
	g, ok := gens[*kernel]
	if !ok {
		fmt.Fprintf(os.Stderr, "_gen: unknown -kernel %q\n", *kernel)
		os.Exit(2)
	}
	for _, s := range []isa{avx2, avx512} {
		for _, e := range []elem{f32, f64} {
			g(e, s)
		}
	}

	Generate()
}
