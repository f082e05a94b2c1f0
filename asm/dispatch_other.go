//go:build !amd64 || noasm

package asm

// archInit has nothing to add where there is no assembly: only the
// portable tier runs.
func archInit() {}

// addScores is the portable loop everywhere here.
func addScores(W []float32, ind []int32, val []float32, s []float32) {
	addScoresF32Generic(W, ind, val, s)
}
