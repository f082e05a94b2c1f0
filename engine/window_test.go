package engine

import (
	"fmt"
	"slices"
	"testing"
)

// TestWindowShuffle: the windowed order is a permutation of the rows,
// deterministic for a seed, local (each window draws on at most
// shuffleWindow chunks of consecutive rows), and mixes the whole data: a
// window holds rows from far apart.
func TestWindowShuffle(t *testing.T) {
	for _, n := range []int{0, 1, 255, 256, 257, 10000, 100_003, 102_400} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			rows := make([]int32, n)
			for i := range rows {
				rows[i] = int32(3 * i) // a validation split leaves gaps
			}
			got := windowShuffle(rows, newPCGRand(1, 2), nil)
			again := windowShuffle(rows, newPCGRand(1, 2), nil)
			if !slices.Equal(got, again) {
				t.Fatalf("n=%d: not deterministic", n)
			}
			s := slices.Clone(got)
			slices.Sort(s)
			if !slices.Equal(s, rows) {
				t.Fatalf("n=%d: not a permutation of the rows", n)
			}
			if n%shuffleChunk != 0 {
				return // a short chunk shifts the windows: locality is checked on whole chunks
			}
			win := shuffleWindow * shuffleChunk
			for lo := 0; lo < n; lo += win {
				seg := got[lo:min(lo+win, n)]
				chunks := map[int32]bool{}
				for _, r := range seg {
					chunks[r/3/shuffleChunk] = true
				}
				if len(chunks) > shuffleWindow {
					t.Fatalf("n=%d: a window spans %d chunks", n, len(chunks))
				}
				if n >= 100_000 && len(seg) == win {
					// The window's rows come from all over, not one stretch.
					mn, mx := slices.Min(seg), slices.Max(seg)
					if int(mx-mn) < 3*n/2 {
						t.Fatalf("n=%d: a window spans rows %d..%d only", n, mn, mx)
					}
				}
			}
		})
	}
}

// TestWindowedFitLearns: with the windowed order forced on a small
// matrix, Fit is deterministic and learns as well as with a uniform
// shuffle, on data sorted by label.
func TestWindowedFitLearns(t *testing.T) {
	X, y := fxIntBinary(61, 20000, 80, 8, 0.05)
	idx := fxAll(X.Rows)
	slices.SortStableFunc(idx, func(a, b int32) int {
		switch {
		case y[a] < y[b]:
			return -1
		case y[a] > y[b]:
			return 1
		}
		return 0
	})
	Xs := X.SelectRows(toInts(idx))
	ys := make([]float64, len(idx))
	for k, i := range idx {
		ys[k] = y[i]
	}
	uniform, _ := fxFit(t, Xs, ys, Config{Seed: 2})
	old := windowedNNZ
	windowedNNZ = 0
	defer func() { windowedNNZ = old }()
	w1, _ := fxFit(t, Xs, ys, Config{Seed: 2})
	w2, _ := fxFit(t, Xs, ys, Config{Seed: 2})
	fxSameModel(t, "windowed, same seed", w1, w2)
	au := accuracyOn(uniform, Xs, ys, fxAll(Xs.Rows))
	aw := accuracyOn(w1, Xs, ys, fxAll(Xs.Rows))
	if aw < au-0.01 {
		t.Fatalf("training accuracy: windowed %.4f, uniform %.4f", aw, au)
	}
	mixed, _ := fxFit(t, Xs, ys, Config{Seed: 2, Workers: 2})
	if am := accuracyOn(mixed, Xs, ys, fxAll(Xs.Rows)); am < au-0.02 {
		t.Fatalf("training accuracy: windowed with 2 workers %.4f, uniform %.4f", am, au)
	}
}
