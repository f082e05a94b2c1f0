// Command hpbare times hyperplane's bare pass, one w·x per row of a LIBSVM
// file in storage order through asm.DotRowsF32 (the kernel the engine's
// epochs and predictions use), for bench/compare_c.sh to set beside the C
// reference's bare pass and the epochs of both.
//
// Usage: hpbare [-r reps] FILE
//
// It prints "hp.bare_ms M [LO-HI]": the median, min and max in ms of reps
// passes, after one warm-up pass; parsing is not timed.
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/hyperplane-ml/hyperplane/asm"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

func main() {
	reps := flag.Int("r", 5, "timed passes")
	flag.Parse()
	if flag.NArg() != 1 || *reps < 1 {
		fmt.Fprintln(os.Stderr, "usage: hpbare [-r reps] FILE")
		os.Exit(2)
	}
	ds, err := sparse.ReadFile(flag.Arg(0), sparse.ReadOptions{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "hpbare:", err)
		os.Exit(1)
	}
	x := ds.X
	w := make([]float32, x.Cols)
	for j := range w {
		w[j] = float32(j%7) - 3
	}
	out := make([]float32, x.Rows)
	asm.DotRowsF32(x.Indptr, x.Ind, x.Val, w, out)
	ms := make([]float64, *reps)
	for r := range ms {
		t0 := time.Now()
		asm.DotRowsF32(x.Indptr, x.Ind, x.Val, w, out)
		ms[r] = float64(time.Since(t0)) / 1e6
	}
	slices.Sort(ms)
	fmt.Printf("hp.bare_ms     %.3f [%.3f-%.3f] (tier %s)\n", ms[len(ms)/2], ms[0], ms[len(ms)-1], asm.Active())
}
