package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"testing"

	"github.com/hyperplane-ml/hyperplane/asm"
	"github.com/hyperplane-ml/hyperplane/kernels"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/viterin/vek"
	"github.com/viterin/vek/vek32"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/gonum"
)

var sizes = []int{64, 1 << 10, 4 << 10, 16 << 10, 4 << 20}

var sink32 float32
var sink64 float64

// tiers runs f as a sub-benchmark per SIMD tier, forcing the tier globally
// (benchmarks run one at a time, so the switch is safe here).
func tiers(b *testing.B, f func(b *testing.B)) {
	defer func(t asm.Tier) { _ = asm.SetTier(t) }(asm.Active())
	for _, t := range asm.Tiers() {
		if err := asm.SetTier(t); err != nil {
			b.Fatal(err)
		}
		b.Run(t.String(), f)
	}
}

func rand32(r *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	return x
}

func rand64(r *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = r.NormFloat64()
	}
	return x
}

func goDot32(x, y []float32) float32 {
	var s float32
	for i := range x {
		s += x[i] * y[i]
	}
	return s
}

func goDot64(x, y []float64) float64 {
	var s float64
	for i := range x {
		s += x[i] * y[i]
	}
	return s
}

func BenchmarkDotF32(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	impl := gonum.Implementation{}
	for _, n := range sizes {
		x, y := rand32(r, n), rand32(r, n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(8 * n))
			tiers(b, func(b *testing.B) {
				for b.Loop() {
					sink32 = asm.DotF32(x, y)
				}
			})
			b.Run("vek32", func(b *testing.B) {
				for b.Loop() {
					sink32 = vek32.Dot(x, y)
				}
			})
			b.Run("gonum", func(b *testing.B) {
				for b.Loop() {
					sink32 = impl.Sdot(n, x, 1, y, 1)
				}
			})
			b.Run("goloop", func(b *testing.B) {
				for b.Loop() {
					sink32 = goDot32(x, y)
				}
			})
		})
	}
}

func BenchmarkDotF64(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	impl := gonum.Implementation{}
	for _, n := range sizes {
		x, y := rand64(r, n), rand64(r, n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(16 * n))
			tiers(b, func(b *testing.B) {
				for b.Loop() {
					sink64 = asm.DotF64(x, y)
				}
			})
			b.Run("vek", func(b *testing.B) {
				for b.Loop() {
					sink64 = vek.Dot(x, y)
				}
			})
			b.Run("gonum", func(b *testing.B) {
				for b.Loop() {
					sink64 = impl.Ddot(n, x, 1, y, 1)
				}
			})
			b.Run("goloop", func(b *testing.B) {
				for b.Loop() {
					sink64 = goDot64(x, y)
				}
			})
		})
	}
}

// BenchmarkAxpyF32 compares the fused y += a·x with vek's two-call
// equivalent (MulNumber_Into then Add_Inplace) and gonum's Saxpy.
func BenchmarkAxpyF32(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 3))
	impl := gonum.Implementation{}
	for _, n := range sizes {
		x, y, tmp := rand32(r, n), rand32(r, n), make([]float32, n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(12 * n))
			tiers(b, func(b *testing.B) {
				for b.Loop() {
					asm.AxpyF32(1e-3, x, y)
				}
			})
			b.Run("vek32-2call", func(b *testing.B) {
				for b.Loop() {
					vek32.MulNumber_Into(tmp, x, 1e-3)
					vek32.Add_Inplace(y, tmp)
				}
			})
			b.Run("gonum", func(b *testing.B) {
				for b.Loop() {
					impl.Saxpy(n, 1e-3, x, 1, y, 1)
				}
			})
			b.Run("goloop", func(b *testing.B) {
				for b.Loop() {
					for i, v := range x {
						y[i] += 1e-3 * v
					}
				}
			})
		})
	}
}

func BenchmarkAxpyF64(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 4))
	impl := gonum.Implementation{}
	for _, n := range sizes {
		x, y, tmp := rand64(r, n), rand64(r, n), make([]float64, n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(24 * n))
			tiers(b, func(b *testing.B) {
				for b.Loop() {
					asm.AxpyF64(1e-3, x, y)
				}
			})
			b.Run("vek-2call", func(b *testing.B) {
				for b.Loop() {
					vek.MulNumber_Into(tmp, x, 1e-3)
					vek.Add_Inplace(y, tmp)
				}
			})
			b.Run("gonum", func(b *testing.B) {
				for b.Loop() {
					impl.Daxpy(n, 1e-3, x, 1, y, 1)
				}
			})
		})
	}
}

func BenchmarkScaleF32(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 5))
	for _, n := range sizes {
		x := rand32(r, n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(8 * n))
			tiers(b, func(b *testing.B) {
				for b.Loop() {
					asm.ScaleF32(1.0000001, x)
				}
			})
			b.Run("vek32", func(b *testing.B) {
				for b.Loop() {
					vek32.MulNumber_Inplace(x, 1.0000001)
				}
			})
		})
	}
}

func BenchmarkScaleF64(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 5))
	for _, n := range sizes {
		x := rand64(r, n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(16 * n))
			tiers(b, func(b *testing.B) {
				for b.Loop() {
					asm.ScaleF64(1.0000001, x)
				}
			})
			b.Run("vek", func(b *testing.B) {
				for b.Loop() {
					vek.MulNumber_Inplace(x, 1.0000001)
				}
			})
		})
	}
}

func BenchmarkSumSqF32(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 6))
	impl := gonum.Implementation{}
	for _, n := range sizes {
		x := rand32(r, n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(4 * n))
			tiers(b, func(b *testing.B) {
				for b.Loop() {
					sink32 = asm.SumSqF32(x)
				}
			})
			b.Run("vek32", func(b *testing.B) {
				for b.Loop() {
					sink32 = vek32.Dot(x, x)
				}
			})
			b.Run("gonum-snrm2", func(b *testing.B) {
				for b.Loop() {
					sink32 = impl.Snrm2(n, x, 1)
				}
			})
		})
	}
}

func BenchmarkSumSqF64(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 6))
	for _, n := range sizes {
		x := rand64(r, n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(8 * n))
			tiers(b, func(b *testing.B) {
				for b.Loop() {
					sink64 = asm.SumSqF64(x)
				}
			})
			b.Run("vek", func(b *testing.B) {
				for b.Loop() {
					sink64 = vek.Dot(x, x)
				}
			})
		})
	}
}

// sparseRows makes rows × nnz sorted distinct indices into [0, dim), laid
// out back to back as in a CSR matrix. With zipf the indices follow a Zipf
// law (s = 1.1) as word ranks in text do, so that low indices are common
// and stay in cache; otherwise they are uniform, the worst case for caches.
func sparseRows(r *rand.Rand, rows, nnz, dim int, zipf bool) ([]int32, []float32, []float64) {
	ind := make([]int32, 0, rows*nnz)
	seen := make(map[int32]bool, nnz)
	z := rand.NewZipf(r, 1.1, 1, uint64(dim-1))
	for range rows {
		clear(seen)
		row := make([]int32, 0, nnz)
		for len(row) < nnz {
			j := int32(r.IntN(dim))
			if zipf {
				j = int32(z.Uint64())
			}
			if !seen[j] {
				seen[j] = true
				row = append(row, j)
			}
		}
		sort.Slice(row, func(a, b int) bool { return row[a] < row[b] })
		ind = append(ind, row...)
	}
	val32 := make([]float32, len(ind))
	val64 := make([]float64, len(ind))
	for i := range val32 {
		val32[i] = float32(1 + r.IntN(3))
		val64[i] = float64(val32[i])
	}
	return ind, val32, val64
}

func goDotInd32(val []float32, ind []int32, w []float32) float32 {
	var s float32
	for k, v := range val {
		s += v * w[ind[k]]
	}
	return s
}

func goDotInd64(val []float64, ind []int32, w []float64) float64 {
	var s float64
	for k, v := range val {
		s += v * w[ind[k]]
	}
	return s
}

// Sparse cases: 75 nonzeros per row as in text; weights of 47k features
// (held in cache, the rcv1 width), 1M (4 MiB) and 4M (16 MiB, past L2 and
// most L3 slices). Each benchmark iteration walks 1024 different rows so
// the indices and values stream as they do in training, with indices drawn
// from a Zipf law as word ranks are ("zipf"), or uniformly ("uniform", every
// weight a likely cache miss); "hot" repeats one row so that everything is
// in L1 and only the arithmetic is measured.
var sparseDims = []int{47_236, 1 << 20, 4 << 20}

const sparseRowsN, sparseNNZ = 1024, 75

type sparseCase struct {
	name  string
	dim   int
	ind   []int32
	val32 []float32
	val64 []float64
}

func sparseCases(seed uint64) []sparseCase {
	r := rand.New(rand.NewPCG(2, seed))
	var cs []sparseCase
	for _, dim := range sparseDims {
		for _, layout := range []string{"zipf", "uniform", "hot"} {
			rows := sparseRowsN
			if layout == "hot" {
				rows = 1
			}
			ind, v32, v64 := sparseRows(r, rows, sparseNNZ, dim, layout == "zipf")
			for len(ind) < sparseRowsN*sparseNNZ {
				ind, v32, v64 = append(ind, ind[:sparseNNZ]...), append(v32, v32[:sparseNNZ]...), append(v64, v64[:sparseNNZ]...)
			}
			cs = append(cs, sparseCase{fmt.Sprintf("nnz=%d/dim=%d/%s", sparseNNZ, dim, layout), dim, ind, v32, v64})
		}
	}
	return cs
}

func BenchmarkDotIndF32(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 1))
	for _, c := range sparseCases(1) {
		ind, val := c.ind, c.val32
		w := rand32(r, c.dim)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(ind) * 8))
			tiers(b, func(b *testing.B) {
				for b.Loop() {
					for i := 0; i < len(ind); i += sparseNNZ {
						sink32 += asm.DotIndF32(val[i:i+sparseNNZ], ind[i:i+sparseNNZ], w)
					}
				}
			})
			b.Run("goloop", func(b *testing.B) {
				for b.Loop() {
					for i := 0; i < len(ind); i += sparseNNZ {
						sink32 += goDotInd32(val[i:i+sparseNNZ], ind[i:i+sparseNNZ], w)
					}
				}
			})
		})
	}
}

// BenchmarkDotRowsF32 computes the same 1024 rows' dot products as
// BenchmarkDotIndF32, but in one DotRowsF32 call over the CSR block
// instead of one call per row.
func BenchmarkDotRowsF32(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 1))
	for _, c := range sparseCases(1) {
		ind, val := c.ind, c.val32
		w := rand32(r, c.dim)
		indptr := make([]int64, sparseRowsN+1)
		for i := range indptr {
			indptr[i] = int64(i * sparseNNZ)
		}
		out := make([]float32, sparseRowsN)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(ind) * 8))
			tiers(b, func(b *testing.B) {
				for b.Loop() {
					asm.DotRowsF32(indptr, ind, val, w, out)
				}
			})
			b.Run("goloop", func(b *testing.B) {
				for b.Loop() {
					for i := range out {
						lo, hi := indptr[i], indptr[i+1]
						out[i] = goDotInd32(val[lo:hi], ind[lo:hi], w)
					}
				}
			})
		})
	}
}

func BenchmarkDotIndF64(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 2))
	for _, c := range sparseCases(2) {
		ind, val := c.ind, c.val64
		w := rand64(r, c.dim)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(ind) * 12))
			tiers(b, func(b *testing.B) {
				for b.Loop() {
					for i := 0; i < len(ind); i += sparseNNZ {
						sink64 += asm.DotIndF64(val[i:i+sparseNNZ], ind[i:i+sparseNNZ], w)
					}
				}
			})
			b.Run("goloop", func(b *testing.B) {
				for b.Loop() {
					for i := 0; i < len(ind); i += sparseNNZ {
						sink64 += goDotInd64(val[i:i+sparseNNZ], ind[i:i+sparseNNZ], w)
					}
				}
			})
		})
	}
}

func BenchmarkAxpyIndF32(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 3))
	for _, c := range sparseCases(3) {
		ind, val := c.ind, c.val32
		w := rand32(r, c.dim)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(ind) * 8))
			tiers(b, func(b *testing.B) {
				for b.Loop() {
					for i := 0; i < len(ind); i += sparseNNZ {
						asm.AxpyIndF32(1e-6, val[i:i+sparseNNZ], ind[i:i+sparseNNZ], w)
					}
				}
			})
			b.Run("goloop", func(b *testing.B) {
				for b.Loop() {
					for i := 0; i < len(ind); i += sparseNNZ {
						rv, ri := val[i:i+sparseNNZ], ind[i:i+sparseNNZ]
						for k, v := range rv {
							w[ri[k]] += 1e-6 * v
						}
					}
				}
			})
		})
	}
}

func BenchmarkAxpyIndF64(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, c := range sparseCases(4) {
		ind, val := c.ind, c.val64
		w := rand64(r, c.dim)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(ind) * 12))
			tiers(b, func(b *testing.B) {
				for b.Loop() {
					for i := 0; i < len(ind); i += sparseNNZ {
						asm.AxpyIndF64(1e-6, val[i:i+sparseNNZ], ind[i:i+sparseNNZ], w)
					}
				}
			})
			b.Run("goloop", func(b *testing.B) {
				for b.Loop() {
					for i := 0; i < len(ind); i += sparseNNZ {
						rv, ri := val[i:i+sparseNNZ], ind[i:i+sparseNNZ]
						for k, v := range rv {
							w[ri[k]] += 1e-6 * v
						}
					}
				}
			})
		})
	}
}

// Kernel functions and Gram matrices (package kernels). The data are
// generated: a dense set shaped like LIBSVM's letter.scale (16 features,
// 16 levels in [−1, 1], nearly all nonzero) and a sparse text-like set
// (5000 features, 50 nonzeros per row, Zipf-distributed indices, rows
// scaled to unit norm). Throughput is reported as kernel entries per
// second ("entries/s": n² for a Gram matrix, whole rows for a cache).

// letterLike makes n rows shaped like letter.scale: 26 class centres, each
// row a centre plus noise, quantised to 16 levels scaled to [−1, 1].
func letterLike(n int, seed uint64) *sparse.CSR {
	r := rand.New(rand.NewPCG(seed, 21))
	const dim, classes = 16, 26
	centres := make([][]float64, classes)
	for c := range centres {
		centres[c] = make([]float64, dim)
		for f := range centres[c] {
			centres[c][f] = 2 + 11*r.Float64()
		}
	}
	rows := make([][]float32, n)
	for i := range rows {
		c := centres[r.IntN(classes)]
		rows[i] = make([]float32, dim)
		for f := range dim {
			level := math.Round(c[f] + 2*r.NormFloat64())
			level = min(max(level, 0), 15)
			rows[i][f] = float32(level/7.5 - 1)
		}
	}
	X := sparse.FromDense(rows)
	X.Cols = dim
	return X
}

// textSparse makes rows of nnz Zipf-distributed features out of dim, with
// counts 1..3, each row scaled to unit norm.
func textSparse(rows, nnz, dim int, seed uint64) *sparse.CSR {
	r := rand.New(rand.NewPCG(seed, 22))
	ind, val, _ := sparseRows(r, rows, nnz, dim, true)
	X := &sparse.CSR{Rows: rows, Cols: dim, Indptr: make([]int64, rows+1), Ind: ind, Val: val}
	for i := range rows {
		X.Indptr[i+1] = int64((i + 1) * nnz)
	}
	X.NormalizeRows()
	return X
}

// kernelSets are the data sets of the Gram benchmarks, with an RBF γ of
// about 1/(2·mean ‖x − z‖²).
type kernelSet struct {
	name  string
	data  *kernels.Data
	gamma float64
}

func gramSets(b *testing.B) []kernelSet {
	letter := kernels.NewData(letterLike(4000, 1))
	text := kernels.NewData(textSparse(2000, 50, 5000, 2))
	if !letter.IsDense() || text.IsDense() {
		b.Fatalf("letter dense=%v, text dense=%v; want dense and CSR", letter.IsDense(), text.IsDense())
	}
	return []kernelSet{
		{"letter-4000x16", letter, 1.0 / 16},
		{"sparse-2000x5000-nnz50", text, 0.5},
	}
}

func reportEntries(b *testing.B, perOp float64) {
	b.ReportMetric(perOp*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
}

// BenchmarkGramFull builds the whole RBF Gram matrix (upper tiles computed
// on all cores, mirrored below), per SIMD tier.
func BenchmarkGramFull(b *testing.B) {
	for _, s := range gramSets(b) {
		k := kernels.RBF{Gamma: s.gamma}
		n := s.data.Rows()
		b.Run(s.name, func(b *testing.B) {
			tiers(b, func(b *testing.B) {
				for b.Loop() {
					g := kernels.NewFull(k, s.data)
					sink32 = g.Row(n - 1)[0]
				}
				reportEntries(b, float64(n)*float64(n))
			})
		})
	}
}

// BenchmarkGramCacheRow computes one row of the RBF Gram matrix per
// operation: a two-row cache walked through every row always misses.
func BenchmarkGramCacheRow(b *testing.B) {
	for _, s := range gramSets(b) {
		k := kernels.RBF{Gamma: s.gamma}
		n := s.data.Rows()
		b.Run(s.name, func(b *testing.B) {
			tiers(b, func(b *testing.B) {
				c := kernels.NewCache(k, s.data, 2)
				i := 0
				for b.Loop() {
					sink32 = c.Row(i)[0]
					i = (i + 1) % n
				}
				if st := c.Stats(); st.Hits != 0 {
					b.Fatalf("cache hits %d: the benchmark must only miss", st.Hits)
				}
				reportEntries(b, float64(n))
			})
		})
	}
}

// BenchmarkKernelMatrix computes prediction-shaped blocks: the RBF kernel
// between 500 rows to classify and 4000 support vectors, on all cores.
func BenchmarkKernelMatrix(b *testing.B) {
	const q, m = 500, 4000
	sets := []struct {
		name  string
		a, sv *kernels.Data
		gamma float64
	}{
		{"letter-500x4000", kernels.NewData(letterLike(q, 3)), kernels.NewData(letterLike(m, 1)), 1.0 / 16},
		{"sparse-500x4000-nnz50", kernels.NewData(textSparse(q, 50, 5000, 4)), kernels.NewData(textSparse(m, 50, 5000, 2)), 0.5},
	}
	dst := make([]float32, q*m)
	for _, s := range sets {
		k := kernels.RBF{Gamma: s.gamma}
		b.Run(s.name, func(b *testing.B) {
			tiers(b, func(b *testing.B) {
				for b.Loop() {
					kernels.Matrix(k, s.a, s.sv, dst)
				}
				reportEntries(b, q*m)
			})
		})
	}
}

// BenchmarkBlockVsGemm compares the dense block product of package
// kernels (Block with the linear kernel: one fused axpy per feature over a
// transposed block of b, on the calling goroutine) with gonum's
// blas32.Gemm computing the same C = A·Bᵀ (512×2048 entries), on one core
// (GOMAXPROCS=1, as Block runs) and with Matrix against Gemm on all
// cores. Reported in GFLOP/s (2·m·n·width flops per product).
func BenchmarkBlockVsGemm(b *testing.B) {
	const m, n = 512, 2048
	for _, w := range []int{16, 64, 256} {
		r := rand.New(rand.NewPCG(5, uint64(w)))
		ax, bx := rand32(r, m*w), rand32(r, n*w)
		a, bd := kernels.NewDenseData(ax, m, w), kernels.NewDenseData(bx, n, w)
		A := blas32.General{Rows: m, Cols: w, Stride: w, Data: ax}
		B := blas32.General{Rows: n, Cols: w, Stride: w, Data: bx}
		ours, theirs := make([]float32, m*n), make([]float32, m*n)
		C := blas32.General{Rows: m, Cols: n, Stride: n, Data: theirs}
		// The two agree before anything is timed.
		kernels.Block(kernels.Linear{}, a, 0, m, bd, 0, n, ours, n)
		blas32.Gemm(blas.NoTrans, blas.Trans, 1, A, B, 0, C)
		for i := range ours {
			if d := math.Abs(float64(ours[i] - theirs[i])); d > 1e-4*float64(w) {
				b.Fatalf("width %d: entry %d: Block %v, Gemm %v", w, i, ours[i], theirs[i])
			}
		}
		gflops := func(b *testing.B) {
			b.ReportMetric(2*float64(m)*float64(n)*float64(w)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		}
		oneCore := func(b *testing.B, f func()) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
			for b.Loop() {
				f()
			}
			gflops(b)
		}
		b.Run(fmt.Sprintf("width=%d", w), func(b *testing.B) {
			b.Run("block-1core", func(b *testing.B) {
				tiers(b, func(b *testing.B) {
					oneCore(b, func() { kernels.Block(kernels.Linear{}, a, 0, m, bd, 0, n, ours, n) })
				})
			})
			b.Run("gonum-gemm-1core", func(b *testing.B) {
				oneCore(b, func() { blas32.Gemm(blas.NoTrans, blas.Trans, 1, A, B, 0, C) })
			})
			b.Run("matrix-allcores", func(b *testing.B) {
				tiers(b, func(b *testing.B) {
					for b.Loop() {
						kernels.Matrix(kernels.Linear{}, a, bd, ours)
					}
					gflops(b)
				})
			})
			b.Run("gonum-gemm-allcores", func(b *testing.B) {
				for b.Loop() {
					blas32.Gemm(blas.NoTrans, blas.Trans, 1, A, B, 0, C)
				}
				gflops(b)
			})
		})
	}
}
