package engine

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestClassesOf checks the distinct sorted labels against a map-and-sort
// reference for class counts on both sides of the switch from scanning to
// hashing, with repeats, −0 and +0 as one class, and the errors.
func TestClassesOf(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, k := range []int{2, 3, 15, 16, 17, 40, 300} {
		t.Run(fmt.Sprintf("K=%d", k), func(t *testing.T) {
			y := make([]float64, 20*k)
			for i := range y {
				y[i] = float64(r.IntN(k)) - float64(k/2)
				if y[i] == 0 && r.IntN(2) == 0 {
					y[i] = math.Copysign(0, -1)
				}
			}
			ref := map[float64]bool{}
			for _, v := range y {
				ref[v] = true // −0 == +0: one key
			}
			want := make([]float64, 0, len(ref))
			for v := range ref {
				want = append(want, v)
			}
			slices.Sort(want)
			got, err := classesOf(y, 1000)
			if err != nil || !slices.Equal(got, want) {
				t.Fatalf("k=%d: got %v (%v), want %v", k, got, err, want)
			}
			for _, c := range got {
				if c == 0 && math.Signbit(c) {
					t.Fatalf("k=%d: class −0 kept", k)
				}
			}
			if len(want) > 2 {
				if _, err := classesOf(y, len(want)-1); !errors.Is(err, ErrLabels) {
					t.Fatalf("k=%d: %d classes with MaxClasses %d: %v", k, len(want), len(want)-1, err)
				}
			}
		})
	}
	for _, y := range [][]float64{{1, 1, 1}, {1, math.NaN(), 2}, {1, math.Inf(1), 2}} {
		if _, err := classesOf(y, 10); !errors.Is(err, ErrLabels) {
			t.Errorf("%v: %v, want ErrLabels", y, err)
		}
	}
}

// TestFinite32s: every length up to a few blocks, a NaN or an infinity at
// any position makes it false, and huge finite values (whose squares
// overflow the block sums) do not.
func TestFinite32s(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 31, 32, 33, 100, 4095, 4096, 4097, 9000} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			x := make([]float32, n)
			for i := range x {
				x[i] = float32(r.NormFloat64())
			}
			if !finite32s(x) {
				t.Fatalf("n=%d: finite values rejected", n)
			}
			if n == 0 {
				return
			}
			for _, p := range []int{0, n / 2, n - 1, r.IntN(n)} {
				old := x[p]
				x[p] = math.MaxFloat32
				if !finite32s(x) {
					t.Fatalf("n=%d: MaxFloat32 at %d rejected", n, p)
				}
				for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
					x[p] = float32(bad)
					if finite32s(x) {
						t.Fatalf("n=%d: %v at %d accepted", n, bad, p)
					}
				}
				x[p] = old
			}
		})
	}
}

// labelSign is the binary passes' label: +1 for class index 1 and −1 for
// every other index, exactly (the passes multiply margins by it).
func TestLabelSign(t *testing.T) {
	for _, c := range []int32{1, 0, -1, 2, math.MaxInt32, math.MinInt32} {
		want := float32(-1)
		if c == 1 {
			want = 1
		}
		if got := labelSign(c); math.Float32bits(got) != math.Float32bits(want) {
			t.Errorf("labelSign(%d) = %v, want %v", c, got, want)
		}
	}
}
