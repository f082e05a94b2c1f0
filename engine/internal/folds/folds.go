// Package folds runs the folds of a k-fold cross-validation, as
// engine.CrossValidate and textmodel.CrossValidate do: each trains on the
// other folds' rows and scores its own.
package folds

import (
	"fmt"
	"runtime"
	"sync"
)

// Split returns the rows of fold f (out) and those of the other folds
// (in), in order, where fold[i] is the fold of row i.
func Split(fold []int, f int) (in, out []int) {
	for i, g := range fold {
		if g == f {
			out = append(out, i)
		} else {
			in = append(in, i)
		}
	}
	return in, out
}

// Run runs fit for each of k folds and returns their results in fold
// order, or the error of the first fold (by number) that failed, as
// "fold N: …" counting from 1. Folds run concurrently, up to
// GOMAXPROCS/workers at a time (at least one), where workers is the
// goroutines each fold's training takes.
func Run[R any](k, workers int, fit func(f int) (R, error)) ([]R, error) {
	res := make([]R, k)
	errs := make([]error, k)
	sem := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)/max(1, workers)))
	var wg sync.WaitGroup
	for f := range k {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			r, err := fit(f)
			if err != nil {
				errs[f] = fmt.Errorf("fold %d: %w", f+1, err)
				return
			}
			res[f] = r
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return res, nil
}
