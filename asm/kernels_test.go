package asm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// forTiers runs f once per tier this machine supports, on that tier's
// kernels directly (no global switch, so tiers never race in tests).
func forTiers(t *testing.T, f func(t *testing.T, k *kernelSet)) {
	for _, tier := range Tiers() {
		k := kernelsFor(tier)
		t.Run(tier.String(), func(t *testing.T) { f(t, k) })
	}
}

func TestDenseKernelsAgainstReference(t *testing.T) {
	forTiers(t, func(t *testing.T, k *kernelSet) {
		r := rand.New(rand.NewPCG(1, 2))
		for n := 0; n <= maxLen; n++ {
			for off := 0; off < 4; off++ {
				// float32
				x, cx := guarded32(r, n, off)
				y, cy := guarded32(r, n, (off+1)%4)
				var mag, sq float32
				for i := range x {
					mag += float32(math.Abs(float64(x[i] * y[i])))
					sq += x[i] * x[i]
				}
				if got, want := k.dotF32(x, y), dotGeneric(x, y); !close32(got, want, mag, n) {
					t.Fatalf("dotF32 n=%d off=%d: got %v want %v", n, off, got, want)
				}
				if got, want := k.sumSqF32(x), sumSqGeneric(x); !close32(got, want, sq, n) {
					t.Fatalf("sumSqF32 n=%d off=%d: got %v want %v", n, off, got, want)
				}
				a := float32(r.NormFloat64())
				want := append([]float32(nil), y...)
				axpyGeneric(a, x, want)
				k.axpyF32(a, x, y)
				for i := range y {
					if !close32(y[i], want[i], float32(math.Abs(float64(want[i])))+float32(math.Abs(float64(a*x[i]))), 1) {
						t.Fatalf("axpyF32 n=%d off=%d i=%d: got %v want %v", n, off, i, y[i], want[i])
					}
				}
				want = append(want[:0], x...)
				scaleGeneric(a, want)
				k.scaleF32(a, x)
				for i := range x {
					if x[i] != want[i] {
						t.Fatalf("scaleF32 n=%d off=%d i=%d: got %v want %v", n, off, i, x[i], want[i])
					}
				}
				cx(t)
				cy(t)

				// float64
				x64, cx64 := guarded64(r, n, off)
				y64, cy64 := guarded64(r, n, (off+3)%4)
				var mag64, sq64 float64
				for i := range x64 {
					mag64 += math.Abs(x64[i] * y64[i])
					sq64 += x64[i] * x64[i]
				}
				if got, want := k.dotF64(x64, y64), dotGeneric(x64, y64); !close64(got, want, mag64, n) {
					t.Fatalf("dotF64 n=%d off=%d: got %v want %v", n, off, got, want)
				}
				if got, want := k.sumSqF64(x64), sumSqGeneric(x64); !close64(got, want, sq64, n) {
					t.Fatalf("sumSqF64 n=%d off=%d: got %v want %v", n, off, got, want)
				}
				a64 := r.NormFloat64()
				want64 := append([]float64(nil), y64...)
				axpyGeneric(a64, x64, want64)
				k.axpyF64(a64, x64, y64)
				for i := range y64 {
					if !close64(y64[i], want64[i], math.Abs(want64[i])+math.Abs(a64*x64[i]), 1) {
						t.Fatalf("axpyF64 n=%d off=%d i=%d: got %v want %v", n, off, i, y64[i], want64[i])
					}
				}
				want64 = append(want64[:0], x64...)
				scaleGeneric(a64, want64)
				k.scaleF64(a64, x64)
				for i := range x64 {
					if x64[i] != want64[i] {
						t.Fatalf("scaleF64 n=%d off=%d i=%d: got %v want %v", n, off, i, x64[i], want64[i])
					}
				}
				cx64(t)
				cy64(t)
			}
		}
	})
}

func TestSparseKernelsAgainstReference(t *testing.T) {
	forTiers(t, func(t *testing.T, k *kernelSet) {
		r := rand.New(rand.NewPCG(3, 4))
		for _, p := range indexPatterns {
			for nnz := 0; nnz <= maxLen; nnz++ {
				off := nnz % 4
				dim := maxLen + 1 + r.IntN(50)
				ind := p.Gen(r, nnz, dim)
				// float32: weights guarded, values at an unaligned start
				w, cw := guarded32(r, dim, (off+2)%4)
				val, cv := guarded32(r, nnz, off)
				var mag float32
				for i := range val {
					mag += float32(math.Abs(float64(val[i] * w[ind[i]])))
				}
				if got, want := k.dotIndF32(val, ind, w), dotIndGeneric(val, ind, w); !close32(got, want, mag, nnz) {
					t.Fatalf("%s dotIndF32 nnz=%d: got %v want %v", p.Name, nnz, got, want)
				}
				a := float32(r.NormFloat64())
				{
					want := append([]float32(nil), w...)
					axpyIndGeneric(a, val, ind, want)
					k.axpyIndF32(a, val, ind, w)
					for i := range w {
						if !close32(w[i], want[i], float32(math.Abs(float64(want[i])))+float32(math.Abs(float64(a)))*8, 4) {
							t.Fatalf("%s axpyIndF32 nnz=%d i=%d: got %v want %v", p.Name, nnz, i, w[i], want[i])
						}
					}
				}
				cw(t)
				cv(t)

				w64, cw64 := guarded64(r, dim, (off+1)%4)
				val64, cv64 := guarded64(r, nnz, off)
				var mag64 float64
				for i := range val64 {
					mag64 += math.Abs(val64[i] * w64[ind[i]])
				}
				if got, want := k.dotIndF64(val64, ind, w64), dotIndGeneric(val64, ind, w64); !close64(got, want, mag64, nnz) {
					t.Fatalf("%s dotIndF64 nnz=%d: got %v want %v", p.Name, nnz, got, want)
				}
				a64 := r.NormFloat64()
				{
					want64 := append([]float64(nil), w64...)
					axpyIndGeneric(a64, val64, ind, want64)
					k.axpyIndF64(a64, val64, ind, w64)
					for i := range w64 {
						if !close64(w64[i], want64[i], math.Abs(want64[i])+math.Abs(a64)*8, 4) {
							t.Fatalf("%s axpyIndF64 nnz=%d i=%d: got %v want %v", p.Name, nnz, i, w64[i], want64[i])
						}
					}
				}
				cw64(t)
				cv64(t)
			}
		}
	})
}

func TestDotRowsAgainstReference(t *testing.T) {
	forTiers(t, func(t *testing.T, k *kernelSet) {
		r := rand.New(rand.NewPCG(7, 8))
		for trial := 0; trial < 200; trial++ {
			rows := r.IntN(20)
			dim := 1 + r.IntN(400)
			// Row lengths 0..maxLen, with a nonzero first pointer so the block
			// is a slice of a bigger matrix.
			first := int64(r.IntN(5))
			indptr := []int64{first}
			var ind []int32
			for range first {
				ind = append(ind, int32(r.IntN(dim)))
			}
			for range rows {
				nnz := r.IntN(min(dim, maxLen) + 1)
				if r.IntN(4) == 0 {
					nnz = r.IntN(3)
				}
				ind = append(ind, indexPatterns[r.IntN(len(indexPatterns))].Gen(r, nnz, dim)...)
				indptr = append(indptr, int64(len(ind)))
			}
			w, cw := guarded32(r, dim, trial%4)
			val, cv := guarded32(r, len(ind), (trial+1)%4)
			out, co := guarded32(r, rows, (trial+2)%4)
			want := make([]float32, rows)
			dotRowsGeneric(indptr, ind, val, w, want)
			k.dotRowsF32(indptr, ind, val, w, out)
			w64, cw64 := guarded64(r, dim, trial%4)
			val64, cv64 := guarded64(r, len(ind), (trial+3)%4)
			out64, co64 := guarded64(r, rows, (trial+1)%4)
			want64 := make([]float64, rows)
			dotRowsGeneric(indptr, ind, val64, w64, want64)
			k.dotRowsF64(indptr, ind, val64, w64, out64)
			for i := range out {
				lo, hi := indptr[i], indptr[i+1]
				var mag float32
				var mag64 float64
				for j := lo; j < hi; j++ {
					mag += float32(math.Abs(float64(val[j] * w[ind[j]])))
					mag64 += math.Abs(val64[j] * w64[ind[j]])
				}
				if !close32(out[i], want[i], mag, int(hi-lo)) {
					t.Fatalf("trial %d row %d: dotRowsF32 %v want %v", trial, i, out[i], want[i])
				}
				if !close64(out64[i], want64[i], mag64, int(hi-lo)) {
					t.Fatalf("trial %d row %d: dotRowsF64 %v want %v", trial, i, out64[i], want64[i])
				}
			}
			for _, c := range []func(*testing.T){cw, cv, co, cw64, cv64, co64} {
				c(t)
			}
		}
	})
}

// TestSparseLargeWeights gathers from a weight vector far larger than the
// caches, with indices up to the last element, to catch address overflow in
// the scaled-index forms.
func TestSparseLargeWeights(t *testing.T) {
	const dim = 1 << 22
	w := make([]float32, dim)
	w64 := make([]float64, dim)
	for i := range w {
		w[i] = float32(i % 1000)
		w64[i] = float64(i % 1000)
	}
	r := rand.New(rand.NewPCG(5, 6))
	forTiers(t, func(t *testing.T, k *kernelSet) {
		for _, nnz := range []int{1, 7, 16, 75, 257} {
			ind := indexPatterns[0].Gen(r, nnz, dim)
			ind[nnz-1] = dim - 1
			sortInt32(ind)
			val := make([]float32, nnz)
			val64 := make([]float64, nnz)
			var want float64
			for i := range val {
				val[i] = float32(i%5 + 1)
				val64[i] = float64(val[i])
				want += float64(val[i]) * float64(w[ind[i]])
			}
			// Small integers: every tier's result is exact.
			if got := k.dotIndF32(val, ind, w); float64(got) != want {
				t.Fatalf("dotIndF32 nnz=%d: got %v want %v", nnz, got, want)
			}
			if got := k.dotIndF64(val64, ind, w64); got != want {
				t.Fatalf("dotIndF64 nnz=%d: got %v want %v", nnz, got, want)
			}
		}
	})
}

func TestSpecialValuesPropagate(t *testing.T) {
	forTiers(t, func(t *testing.T, k *kernelSet) {
		for _, n := range []int{1, 9, 33, 100} {
			x := make([]float32, n)
			y := make([]float32, n)
			for i := range x {
				x[i], y[i] = 1, 1
			}
			x[n-1] = float32(math.Inf(1))
			if got := k.dotF32(x, y); !math.IsInf(float64(got), 1) {
				t.Fatalf("n=%d: +Inf input gave %v", n, got)
			}
			x[n/2] = float32(math.NaN())
			if got := k.dotF32(x, y); !math.IsNaN(float64(got)) {
				t.Fatalf("n=%d: NaN input gave %v", n, got)
			}
		}
	})
}

func TestExportedAPI(t *testing.T) {
	defer func(t0 Tier) { _ = SetTier(t0) }(Active())
	for _, tier := range Tiers() {
		if err := SetTier(tier); err != nil {
			t.Fatal(err)
		}
		if Active() != tier {
			t.Fatalf("Active() = %v after SetTier(%v)", Active(), tier)
		}
		x := []float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
		y := []float32{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}
		if got := DotF32(x, y); got != 66 {
			t.Fatalf("%v: DotF32 = %v, want 66", tier, got)
		}
		if got := SumSqF32(x); got != 506 {
			t.Fatalf("%v: SumSqF32 = %v, want 506", tier, got)
		}
		AxpyF32(2, x, y)
		if y[10] != 23 {
			t.Fatalf("%v: AxpyF32 y[10] = %v, want 23", tier, y[10])
		}
		ScaleF32(0.5, y)
		if y[10] != 11.5 {
			t.Fatalf("%v: ScaleF32 y[10] = %v, want 11.5", tier, y[10])
		}
		w := []float64{0, 10, 20, 30}
		if got := DotIndF64([]float64{1, 2}, []int32{1, 3}, w); got != 70 {
			t.Fatalf("%v: DotIndF64 = %v, want 70", tier, got)
		}
		AxpyIndF64(2, []float64{1, 2}, []int32{0, 2}, w)
		if w[0] != 2 || w[2] != 24 {
			t.Fatalf("%v: AxpyIndF64 gave %v", tier, w)
		}
	}
}

func TestLengthMismatchPanics(t *testing.T) {
	cases := map[string]func(){
		"DotF32":     func() { DotF32(make([]float32, 3), make([]float32, 4)) },
		"DotF64":     func() { DotF64(make([]float64, 3), make([]float64, 2)) },
		"AxpyF32":    func() { AxpyF32(1, make([]float32, 3), make([]float32, 4)) },
		"AxpyF64":    func() { AxpyF64(1, make([]float64, 5), make([]float64, 4)) },
		"DotIndF32":  func() { DotIndF32(make([]float32, 3), make([]int32, 2), make([]float32, 9)) },
		"DotIndF64":  func() { DotIndF64(make([]float64, 1), make([]int32, 2), make([]float64, 9)) },
		"AxpyIndF32": func() { AxpyIndF32(1, make([]float32, 3), make([]int32, 2), make([]float32, 9)) },
		"AxpyIndF64": func() { AxpyIndF64(1, make([]float64, 3), make([]int32, 4), make([]float64, 9)) },
		"AxpyAvgF32": func() {
			AxpyAvgF32(1, 1, make([]float32, 3), make([]int32, 2), make([]float32, 9), make([]float64, 9))
		},
		"AxpyAvgDenseF32-w": func() {
			AxpyAvgDenseF32(1, 1, make([]float32, 9), make([]float32, 8), make([]float64, 9))
		},
		"AxpyAvgDenseF32-u": func() {
			AxpyAvgDenseF32(1, 1, make([]float32, 9), make([]float32, 9), make([]float64, 8))
		},
		"AverageF32":  func() { AverageF32(make([]float32, 3), make([]float32, 3), make([]float64, 2), 1) },
		"QuotientF32": func() { QuotientF32(make([]float32, 3), make([]float64, 4), 1) },
		"DotRowsF32-out": func() {
			DotRowsF32([]int64{0, 1}, make([]int32, 1), make([]float32, 1), make([]float32, 9), make([]float32, 2))
		},
		"DotRowsF64-range": func() {
			DotRowsF64([]int64{0, 5}, make([]int32, 1), make([]float64, 1), make([]float64, 9), make([]float64, 1))
		},
	}
	for name, f := range cases {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatalf("%s did not panic on a length mismatch", name)
				}
			}()
			f()
		})
	}
}

func TestParseTierAndSetTier(t *testing.T) {
	for s, want := range map[string]Tier{"generic": Generic, "AVX2": AVX2, " avx512 ": AVX512, "avx-512": AVX512, "noasm": Generic} {
		got, err := ParseTier(s)
		if err != nil || got != want {
			t.Fatalf("ParseTier(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	if _, err := ParseTier("sse9"); err == nil {
		t.Fatal("ParseTier accepted sse9")
	}
	if err := SetTier(Tier(42)); err == nil {
		t.Fatal("SetTier accepted an unknown tier")
	}
	if !Supported(Generic) || Tiers()[0] != Generic {
		t.Fatal("the generic tier must always be supported")
	}
	if Best() != Tiers()[len(Tiers())-1] {
		t.Fatal("Best is not the last supported tier")
	}
}

func TestZeroAllocations(t *testing.T) {
	x := make([]float32, 1000)
	ind := make([]int32, 75)
	for i := range ind {
		ind[i] = int32(i * 13)
	}
	val := make([]float32, 75)
	allocs := testing.AllocsPerRun(100, func() {
		_ = DotF32(x, x)
		AxpyF32(1, x, x)
		_ = DotIndF32(val, ind, x)
		AxpyIndF32(1, val, ind, x)
	})
	if allocs != 0 {
		t.Fatalf("kernels allocated %v times per run", allocs)
	}
}

func Example() {
	fmt.Println(DotF32([]float32{1, 2, 3}, []float32{4, 5, 6}))
	w := []float32{0, 0, 0, 0, 0}
	// w[1] += 2·1.5, w[4] += 2·0.5: the update a sparse row makes.
	AxpyIndF32(2, []float32{1.5, 0.5}, []int32{1, 4}, w)
	fmt.Println(w, DotIndF32([]float32{1, 1}, []int32{1, 4}, w))
	// Output:
	// 32
	// [0 3 0 0 1] 4
}
