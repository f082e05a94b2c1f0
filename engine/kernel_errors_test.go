package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/hyperplane-ml/hyperplane/kernels"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// ---------------------------------------------------------------------
// 8. Determinism, cancellation, errors.

// TestKernelDeterminism: the same seed gives a bit-identical model;
// other seeds visit rows in other orders, so make other mistakes.
func TestKernelDeterminism(t *testing.T) {
	X, y := ktFloatData(101, 150, 10, 1, 3, 0.1)
	for _, alg := range []Algorithm{Averaged, Plain, Voted} {
		t.Run(alg.String(), func(t *testing.T) {
			cfg := KernelConfig{Config: Config{Algorithm: alg, Epochs: 3, Seed: 5}, Kernel: kernels.RBF{Gamma: 0.3}}
			var a, b *KernelModel
			ta := ktTrace(t, func() { a, _ = ktFit(t, X, y, cfg) })
			tb := ktTrace(t, func() { b, _ = ktFit(t, X, y, cfg) })
			ktSameSeq(t, fmt.Sprintf("%v: same seed", alg), tb, ta)
			ktSameModel(t, fmt.Sprintf("%v: same seed", alg), a, b)
			differ := 0
			for _, seed := range []uint64{6, 7, 8} {
				c2 := cfg
				c2.Seed = seed
				tc := ktTrace(t, func() { ktFit(t, X, y, c2) })
				if !slices.Equal(tc, ta) {
					differ++
				}
			}
			if differ == 0 {
				t.Errorf("%v: seeds 6, 7 and 8 made exactly the mistakes of seed 5", alg)
			}
		})
	}
}

// TestKernelCancellation: a context cancelled before training returns the
// empty model with ctx.Err(); one cancelled after epoch 2 returns the model
// of two epochs; an OnEpoch error stops training after its epoch and is
// returned with that model.
func TestKernelCancellation(t *testing.T) {
	X, y := ktFloatData(102, 150, 10, 1, 2, 0.2)
	base := KernelConfig{Config: Config{Epochs: 8, Seed: 3}, Kernel: kernels.RBF{Gamma: 0.5}}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m, stats, err := FitKernel(ctx, X, y, base)
	if !errors.Is(err, context.Canceled) || m == nil || len(stats) != 0 {
		t.Fatalf("cancelled before: model %v, %d stats, err %v; want the empty model and context.Canceled", m != nil, len(stats), err)
	}
	if m.NumSV() != 0 || m.Check() != nil {
		t.Fatalf("cancelled before: %d support vectors, Check %v", m.NumSV(), m.Check())
	}

	for _, alg := range []Algorithm{Averaged, Plain, Voted} {
		t.Run(alg.String(), func(t *testing.T) {
			want2, _ := ktFit(t, X, y, KernelConfig{Config: Config{Algorithm: alg, Epochs: 2, Seed: 3}, Kernel: base.Kernel})
			want3, _ := ktFit(t, X, y, KernelConfig{Config: Config{Algorithm: alg, Epochs: 3, Seed: 3}, Kernel: base.Kernel})

			ctx, cancel := context.WithCancel(context.Background())
			cfg := base
			cfg.Algorithm = alg
			cfg.OnEpoch = func(s EpochStats) error {
				if s.Epoch == 2 {
					cancel()
				}
				return nil
			}
			m, stats, err := FitKernel(ctx, X, y, cfg)
			cancel()
			if !errors.Is(err, context.Canceled) || m == nil || len(stats) != 2 {
				t.Fatalf("%v: cancelled in epoch 2: model %v, %d stats, err %v", alg, m != nil, len(stats), err)
			}
			ktSameModel(t, fmt.Sprintf("%v: cancelled after epoch 2 vs Epochs 2", alg), m, want2)

			stop := errors.New("enough")
			cfg = base
			cfg.Algorithm = alg
			calls := 0
			cfg.OnKernelEpoch = func(s KernelEpochStats) error {
				calls++
				if s.Epoch == 3 {
					return fmt.Errorf("epoch %d: %w", s.Epoch, stop)
				}
				return nil
			}
			generic := 0
			cfg.OnEpoch = func(EpochStats) error { generic++; return nil }
			m, stats, err = FitKernel(context.Background(), X, y, cfg)
			// OnKernelEpoch runs first: its error in epoch 3 keeps
			// OnEpoch from seeing that epoch.
			if !errors.Is(err, stop) || m == nil || len(stats) != 3 || calls != 3 || generic != 2 {
				t.Fatalf("%v: OnKernelEpoch error in epoch 3: model %v, %d stats, %d calls, %d OnEpoch calls, err %v", alg, m != nil, len(stats), calls, generic, err)
			}
			ktSameModel(t, fmt.Sprintf("%v: stopped by OnKernelEpoch after epoch 3 vs Epochs 3", alg), m, want3)

			// Both hooks see every epoch, with the same statistics.
			cfg = base
			cfg.Algorithm = alg
			var kseen []KernelEpochStats
			var seen []EpochStats
			cfg.OnKernelEpoch = func(s KernelEpochStats) error { kseen = append(kseen, s); return nil }
			cfg.OnEpoch = func(s EpochStats) error { seen = append(seen, s); return nil }
			_, stats, err = FitKernel(context.Background(), X, y, cfg)
			if err != nil || len(seen) != len(stats) || len(kseen) != len(stats) {
				t.Fatalf("%v: %d epochs, OnEpoch saw %d, OnKernelEpoch %d, err %v", alg, len(stats), len(seen), len(kseen), err)
			}
			for e, s := range stats {
				k := kseen[e]
				if k.Epoch != s.Epoch || k.Updates != s.Updates || k.SupportVectors != s.SupportVectors || k.Removed != s.Removed || k.Gram != s.Gram || seen[e].Epoch != s.Epoch || seen[e].Mistakes != s.Mistakes || seen[e].Updates != s.Updates || seen[e].Loss != s.Loss {
					t.Fatalf("%v: epoch %d: returned %+v, OnKernelEpoch %+v, OnEpoch %+v", alg, e+1, s, kseen[e], seen[e])
				}
			}
		})
	}
}

// ktCancelKernel is the linear kernel, user-defined, that cancels a
// context on its call number after (counting calls on all goroutines).
type ktCancelKernel struct {
	calls  *atomic.Int64
	after  int64
	cancel func()
}

func (k ktCancelKernel) tick() {
	if k.calls != nil && k.calls.Add(1) == k.after {
		k.cancel()
	}
}
func (k ktCancelKernel) Dense(x, z []float32) float64 {
	k.tick()
	var s float64
	for i := range x {
		s += float64(x[i]) * float64(z[i])
	}
	return s
}
func (k ktCancelKernel) Sparse(x, z sparse.Vector) float64 {
	k.tick()
	return kernels.SparseDot(x, z)
}
func (ktCancelKernel) String() string { return "test:linear" }

// TestKernelCancelMidEpoch: FitKernel checks ctx inside an epoch too. A
// kernel that cancels the context during the first update (its calls for
// the Gram cache's diagonal come first) stops training at the first check,
// after checkEvery−1 rows of epoch 1: the model returned is the one of a
// single epoch over exactly those rows, with no epoch statistics.
func TestKernelCancelMidEpoch(t *testing.T) {
	n := checkEvery + 500
	r := ktRNG(105)
	rows := make([][]float32, n)
	y := make([]float64, n)
	for i := range rows {
		s := float32(1)
		if r.IntN(2) == 0 {
			s = -1
		}
		rows[i] = []float32{s * float32(1+r.Float64()), float32(r.Float64() - 0.5)}
		y[i] = float64(s)
	}
	X := sparse.FromDense(rows)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var calls atomic.Int64
	kern := ktCancelKernel{calls: &calls, after: int64(n) + 1, cancel: cancel}
	// Two cached rows of n entries, beside the diagonal and the transposed
	// copy of the 2-wide dense data.
	gram := func(rows int) kernels.Options {
		return kernels.Options{Budget: int64(2*4*rows + 4*rows + 4*rows*2 + 4)}
	}
	m, stats, err := FitKernel(ctx, X, y, KernelConfig{Config: Config{Epochs: 3, NoShuffle: true}, Kernel: kern, Gram: gram(n)})
	if !errors.Is(err, context.Canceled) || m == nil || len(stats) != 0 {
		t.Fatalf("cancelled in epoch 1: model %v, %d stats, err %v", m != nil, len(stats), err)
	}
	if err := m.Check(); err != nil {
		t.Fatal(err)
	}
	k := checkEvery - 1
	idx := make([]int, k)
	for i := range idx {
		idx[i] = i
	}
	want, _ := ktFit(t, X.SelectRows(idx), y[:k], KernelConfig{Config: Config{Epochs: 1, NoShuffle: true}, Kernel: ktCancelKernel{}, Gram: gram(k)})
	ktSameModel(t, "cancelled after checkEvery-1 rows vs one epoch over them", m, want)
}

// TestKernelErrors: every invalid input fails with the documented sentinel.
func TestKernelErrors(t *testing.T) {
	X, y := ktFloatData(103, 30, 5, 1, 2, 0)
	nanX := sparse.FromDense([][]float32{{1, 2}, {float32(math.NaN()), 1}, {0, 3}})
	infX := sparse.FromDense([][]float32{{1, 2}, {float32(math.Inf(1)), 1}, {0, 3}})
	badIdx := &sparse.CSR{Rows: 2, Cols: 3, Indptr: []int64{0, 1, 2}, Ind: []int32{0, 5}, Val: []float32{1, 1}}
	ones := make([]float64, len(y))
	for i := range ones {
		ones[i] = 4
	}
	nanY := slices.Clone(y)
	nanY[3] = math.NaN()
	ctx := context.Background()
	for _, c := range []struct {
		name string
		X    *sparse.CSR
		y    []float64
		cfg  KernelConfig
		want error
	}{
		{"nil X", nil, nil, KernelConfig{}, ErrNoData},
		{"no rows", &sparse.CSR{Cols: 3, Indptr: []int64{0}}, nil, KernelConfig{}, ErrNoData},
		{"label count", X, y[:10], KernelConfig{}, ErrLabels},
		{"one class", X, ones, KernelConfig{}, ErrLabels},
		{"NaN label", X, nanY, KernelConfig{}, ErrLabels},
		{"too many classes", X, func() []float64 {
			z := slices.Clone(y)
			z[0], z[1] = 5, 6
			return z
		}(), KernelConfig{Config: Config{MaxClasses: 3}}, ErrLabels},
		{"NaN feature", nanX, []float64{0, 1, 0}, KernelConfig{}, ErrDiverged},
		{"Inf feature", infX, []float64{0, 1, 0}, KernelConfig{Kernel: kernels.Linear{}}, ErrDiverged},
		{"index out of range", badIdx, []float64{0, 1}, KernelConfig{}, ErrDim},
		{"Batch", X, y, KernelConfig{Config: Config{Algorithm: Batch}}, ErrConfig},
		{"unknown algorithm", X, y, KernelConfig{Config: Config{Algorithm: 9}}, ErrConfig},
		{"negative MaxSupportVectors", X, y, KernelConfig{MaxSupportVectors: -1}, ErrConfig},
		{"Normalize", X, y, KernelConfig{Config: Config{Normalize: true}}, ErrConfig},
		{"InitScale", X, y, KernelConfig{Config: Config{InitScale: 0.1}}, ErrConfig},
		{"Validation", X, y, KernelConfig{Config: Config{Validation: 0.2}}, ErrConfig},
		{"SampleWeight", X, y, KernelConfig{Config: Config{SampleWeight: make([]float64, len(y))}}, ErrConfig},
		{"TrainLoss", X, y, KernelConfig{Config: Config{TrainLoss: true}}, ErrConfig},
		{"Workers", X, y, KernelConfig{Config: Config{Workers: 2}}, ErrConfig},
		{"Warm", X, y, KernelConfig{Config: Config{Warm: &Mix{}}}, ErrConfig},
		{"MaxSupportVectors with Voted", X, y, KernelConfig{Config: Config{Algorithm: Voted}, MaxSupportVectors: 5}, ErrConfig},
		{"MaxSupportVectors with Averaged", X, y, KernelConfig{MaxSupportVectors: 5}, ErrConfig},
		{"negative Epochs", X, y, KernelConfig{Config: Config{Epochs: -1}}, ErrConfig},
		{"NaN LearningRate", X, y, KernelConfig{Config: Config{LearningRate: math.NaN()}}, ErrConfig},
		{"negative Margin", X, y, KernelConfig{Config: Config{Margin: -1}}, ErrConfig},
		{"bad ClassWeight", X, y, KernelConfig{Config: Config{ClassWeight: map[float64]float64{0: -1}}}, ErrConfig},
		{"RBF NaN gamma", X, y, KernelConfig{Kernel: kernels.RBF{Gamma: math.NaN()}}, ErrConfig},
		{"RBF negative gamma", X, y, KernelConfig{Kernel: kernels.RBF{Gamma: -1}}, ErrConfig},
		{"Poly degree 33", X, y, KernelConfig{Kernel: kernels.Poly{Degree: 33}}, ErrConfig},
		{"Poly degree -1", X, y, KernelConfig{Kernel: kernels.Poly{Degree: -1}}, ErrConfig},
		{"Poly Inf coef0", X, y, KernelConfig{Kernel: kernels.Poly{Coef0: math.Inf(1)}}, ErrConfig},
		{"Sigmoid NaN gamma", X, y, KernelConfig{Kernel: kernels.Sigmoid{Gamma: math.NaN()}}, ErrConfig},
		{"Gram budget below two rows", X, y, KernelConfig{Gram: kernels.Options{Budget: 4 * 30}}, ErrConfig},
	} {
		m, _, err := FitKernel(ctx, c.X, c.y, c.cfg)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: err %v, want %v", c.name, err, c.want)
		}
		if m != nil {
			t.Errorf("%s: a model came back with the error", c.name)
		}
	}
	// The kernels' own sentinels are wrapped too.
	if _, _, err := FitKernel(ctx, X, y, KernelConfig{Kernel: kernels.RBF{Gamma: math.NaN()}}); !errors.Is(err, kernels.ErrKernel) {
		t.Errorf("NaN gamma: %v does not wrap kernels.ErrKernel", err)
	}
	if _, _, err := FitKernel(ctx, X, y, KernelConfig{Gram: kernels.Options{Budget: 4 * 30}}); !errors.Is(err, kernels.ErrBudget) {
		t.Errorf("tiny Gram budget: %v does not wrap kernels.ErrBudget", err)
	}
	// Poly's zero degree means 3, not an error.
	m, _ := ktFit(t, X, y, KernelConfig{Config: Config{Epochs: 2}, Kernel: kernels.Poly{}})
	if p, ok := m.Kernel.(kernels.Poly); !ok || p.String() != "poly:degree=3,gamma=1,coef0=0" {
		t.Errorf("Poly{} trained as %v", m.Kernel)
	}
}

// TestKernelPolyOverflowDiverges: a polynomial kernel of degree 32 on large
// values overflows float32; FitKernel must report ErrDiverged, not return a
// model of infinities or NaNs.
func TestKernelPolyOverflowDiverges(t *testing.T) {
	r := ktRNG(104)
	rows := make([][]float32, 40)
	y := make([]float64, 40)
	for i := range rows {
		rows[i] = make([]float32, 8)
		for j := range rows[i] {
			rows[i][j] = float32(20 + 30*r.Float64())
		}
		y[i] = float64(i % 2)
	}
	X := sparse.FromDense(rows)
	for _, alg := range []Algorithm{Averaged, Plain, Voted} {
		m, _, err := FitKernel(context.Background(), X, y, KernelConfig{Config: Config{Algorithm: alg, Epochs: 3}, Kernel: kernels.Poly{Degree: 32, Coef0: 1}})
		if !errors.Is(err, ErrDiverged) {
			t.Errorf("%v: err %v, want ErrDiverged", alg, err)
		}
		if m != nil && (!finite32s(m.Coef) || !finite32s(m.B)) {
			t.Errorf("%v: a model with non-finite coefficients came back", alg)
		}
	}
}
