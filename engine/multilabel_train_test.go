package engine

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

// mlNoisy returns rows of random values over dim features whose classes
// are a noisy function of them, so that the learners keep making
// mistakes and updates over the epochs.
func mlNoisy(seed uint64, rows, dim, K int) (*sparse.CSR, [][]int) {
	r := rand.New(rand.NewPCG(seed, 9))
	X := &sparse.CSR{Rows: rows, Cols: dim, Indptr: []int64{0}}
	Y := make([][]int, rows)
	for i := range rows {
		for j := range dim {
			if r.IntN(3) == 0 {
				X.Ind = append(X.Ind, int32(j))
				X.Val = append(X.Val, float32(r.NormFloat64()))
			}
		}
		for c := range K {
			if r.IntN(K+1) <= 1 {
				Y[i] = append(Y[i], c)
			}
		}
		X.Indptr = append(X.Indptr, int64(len(X.Ind)))
	}
	return X, Y
}

// referenceOneVsRest is trainMultiLabel's one-vs-rest learner written
// plainly, one class at a time, with the running sums u beside the
// weights: the class's own binary rule over the same orders of the rows
// (a shuffle's draws depend on the number of rows alone). It returns the
// averaged weights (feature-major, as the model keeps them) and biases.
func referenceOneVsRest(X *sparse.CSR, Y [][]int, K int, cfg MultiLabelConfig) ([]float32, []float32) {
	D := X.Cols
	W := make([]float32, D*K)
	bias := make([]float32, K)
	for c := range K {
		rng := rand.New(rand.NewPCG(cfg.Seed, 0x6d6c))
		order := make([]int, X.Rows)
		for i := range order {
			order[i] = i
		}
		w, u := make([]float32, D), make([]float32, D)
		var b, ub float64
		t := 1.0
		for range cfg.Epochs {
			rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
			for _, i := range order {
				x := X.Row(i)
				s := float32(b)
				for k, j := range x.Ind {
					s += float32(x.Val[k] * w[j])
				}
				y := -1.0
				if slices.Contains(Y[i], c) {
					y = 1
				}
				sq := 1.0
				for _, v := range x.Val {
					sq += float64(v) * float64(v)
				}
				a := 0.0
				switch m := y * float64(s); cfg.Rule {
				case Perceptron:
					if m <= 0 {
						a = y
					}
				case PA1:
					if m < 1 {
						a = y * min(cfg.C, (1-m)/sq)
					}
				}
				if a != 0 {
					for k, j := range x.Ind {
						d := float32(float32(a) * x.Val[k])
						w[j] += d
						u[j] += float32(float32(t) * d)
					}
					b += a
					ub += t * a
				}
				t++
			}
		}
		for j := range D {
			W[j*K+c] = w[j] - float32(float64(u[j])/t)
		}
		bias[c] = float32(b - ub/t)
	}
	return W, bias
}

// TestOneVsRestMatchesPerClass: scoring every class in one pass, and the
// running sums replayed from the log, give each class the weights its
// own binary learner gives it alone, bit for bit, whether the log stays
// in memory or spills into the dense sums many times.
func TestOneVsRestMatchesPerClass(t *testing.T) {
	X, Y := mlNoisy(3, 300, 40, 6)
	defer func(c int) { mlLogCap = c }(mlLogCap)
	for _, cap := range []int{1 << 20, 7} {
		mlLogCap = cap
		for _, rule := range []Rule{Perceptron, PA1} {
			cfg := MultiLabelConfig{Rule: rule, Epochs: 4, C: 0.5, Seed: 11}
			m, held, err := trainMultiLabel(context.Background(), X, Y, 6, allRows(X.Rows), cfg, 0, rand.NewPCG(cfg.Seed, 0x6d6c))
			if err != nil {
				t.Fatal(err)
			}
			if held != nil {
				t.Fatal("rows held out with nh 0")
			}
			W, bias := referenceOneVsRest(X, Y, 6, cfg)
			for k := range W {
				if math.Float32bits(W[k]) != math.Float32bits(m.w[k]) {
					t.Fatalf("log cap %d, %v: weight %d of class %d is %v, the class alone gives %v", cap, rule, k/6, k%6, m.w[k], W[k])
				}
			}
			if !slices.Equal(bias, m.bias) {
				t.Errorf("log cap %d, %v: biases %v, the classes alone give %v", cap, rule, m.bias, bias)
			}
		}
	}
}

// TestPartsMatch: the classes learned in blocks by several goroutines,
// each block in weights of its own, blocks of 32 classes or of 16, give
// the weights, thresholds and Platt scaling one goroutine gives, bit for
// bit, the same scores and the
// same file, whether the logged updates are replayed into the running
// sums once or many times; and with PA1 (which holds rows out within
// the one training) each class's weights are those its own binary
// learner gives it alone.
func TestPartsMatch(t *testing.T) {
	const K = 3*mlBlock + 5
	X, Y := mlNoisy(6, 300, 40, K)
	defer func(c int) { mlLogCap = c }(mlLogCap)
	for _, logCap := range []int{1 << 20, 7} {
		mlLogCap = logCap
		for _, rule := range []Rule{PA1, Perceptron} {
			var want *MultiLabelModel
			for _, threads := range []int{1, 2, 3, 4, 5, 8} {
				cfg := MultiLabelConfig{Rule: rule, Epochs: 3, Seed: 2, Threads: threads}
				// Four blocks of up to 32 classes; past four
				// threads, seven of up to 16.
				blocks := 4
				if threads > 4 {
					blocks = 7
				}
				if n := len(mlBlocks(K, cfg)) - 1; n != blocks || mlWorkers(n, cfg) != min(threads, n) {
					t.Fatalf("%d threads: %d blocks on %d goroutines, want %d on %d", threads, n, mlWorkers(n, cfg), blocks, min(threads, blocks))
				}
				m, err := FitMultiLabel(context.Background(), X, Y, K, cfg)
				if err != nil {
					t.Fatal(err)
				}
				if want == nil {
					want = m
					if rule != PA1 {
						continue
					}
					cfg.C = 1
					W, bias := referenceOneVsRest(X, Y, K, cfg)
					if !sameBits(featureMajor(m), W) || !sameBits(m.bias, bias) {
						t.Fatalf("log cap %d, %v: the weights differ from the classes' own learners'", logCap, rule)
					}
					continue
				}
				if !sameBits(featureMajor(m), featureMajor(want)) || !sameBits(m.bias, want.bias) || !sameBits(m.thresholds, want.thresholds) ||
					!slices.Equal(m.plattA, want.plattA) || !slices.Equal(m.plattB, want.plattB) {
					t.Errorf("log cap %d, %v, %d threads: the model differs from one thread's", logCap, rule, threads)
				}
				for i := range X.Rows {
					if !sameBits(m.Scores(X.Row(i), nil), want.Scores(X.Row(i), nil)) {
						t.Fatalf("log cap %d, %v, %d threads: row %d scores differently", logCap, rule, threads, i)
					}
				}
				b, _ := m.MarshalBinary()
				if wb, _ := want.MarshalBinary(); !bytes.Equal(b, wb) {
					t.Errorf("log cap %d, %v, %d threads: the file differs from one thread's", logCap, rule, threads)
				}
			}
		}
	}
}

// featureMajor returns m's weights feature-major, class c of feature j
// at j·K+c, whatever blocks they are kept in.
func featureMajor(m *MultiLabelModel) []float32 {
	w := make([]float32, m.dim*m.classes)
	for j := range m.dim {
		for c := range m.classes {
			w[j*m.classes+c] = m.Weight(c, j)
		}
	}
	return w
}

func sameBits(a, b []float32) bool {
	return slices.EqualFunc(a, b, func(x, y float32) bool { return math.Float32bits(x) == math.Float32bits(y) })
}

// TestHeldOutScoresUnseen: the rows the thresholds are fitted on are
// scored before they are learned. Every row has a feature of its own
// with its classes' sign, so a held-out row scored after it was learned
// would score differently from its fellows; scored before, each class's
// score is the same for all of them, the averaged bias. Then they are
// learned: the final model scores each of them by its own feature.
func TestHeldOutScoresUnseen(t *testing.T) {
	const rows, K = 60, 3
	r := rand.New(rand.NewPCG(5, 5))
	X := &sparse.CSR{Rows: rows, Cols: rows, Indptr: []int64{0}}
	Y := make([][]int, rows)
	for i := range rows {
		X.Ind = append(X.Ind, int32(i))
		X.Val = append(X.Val, 1)
		X.Indptr = append(X.Indptr, int64(i+1))
		for c := range K {
			if r.IntN(2) == 0 {
				Y[i] = append(Y[i], c)
			}
		}
	}
	const nh = 12
	m, held, err := trainMultiLabel(context.Background(), X, Y, K, allRows(X.Rows), MultiLabelConfig{Rule: PA1, C: 1, Epochs: 3}, nh, rand.NewPCG(1, 2))
	if err != nil {
		t.Fatal(err)
	}
	if held == nil || len(held.rows) != nh || len(held.scores) != nh*K {
		t.Fatalf("held out %+v, want %d rows", held, nh)
	}
	for k := range nh {
		for c := range K {
			if held.scores[k*K+c] != held.scores[c] {
				t.Fatalf("held-out row %d scores %v for class %d, row %d %v: its own feature was learned before it was scored", held.rows[k], held.scores[k*K+c], c, held.rows[0], held.scores[c])
			}
		}
	}
	for _, i := range held.rows {
		s := m.Scores(X.Row(i), nil)
		for c := range K {
			if (s[c] > 0) != slices.Contains(Y[i], c) {
				t.Errorf("row %d class %d: final score %v, labels %v: the held-out row was not learned", i, c, s[c], Y[i])
			}
		}
	}
}

// TestHeldOutScoresAveraged: the held-out scores are those of the
// averaged model at that step: the same as averaging the weights there
// (w - u/t, with u kept beside them) and scoring with them, up to
// rounding, with the log in memory or spilled.
func TestHeldOutScoresAveraged(t *testing.T) {
	X, Y := mlNoisy(4, 200, 30, 4)
	cfg := MultiLabelConfig{Rule: PA1, C: 1, Epochs: 2, Seed: 3}
	const nh = 50
	// The averaged model after the first rows of the first epoch's order
	// is the one-vs-rest learner trained for one epoch on those rows in
	// that order: train it on them alone with the order fixed.
	order := make([]int, X.Rows)
	for i := range order {
		order[i] = i
	}
	rand.New(rand.NewPCG(cfg.Seed, 0x6d6c)).Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	first := order[:len(order)-nh]
	sub := &sparse.CSR{Cols: X.Cols, Indptr: []int64{0}}
	var subY [][]int
	for _, i := range first {
		x := X.Row(i)
		sub.Ind = append(sub.Ind, x.Ind...)
		sub.Val = append(sub.Val, x.Val...)
		sub.Indptr = append(sub.Indptr, int64(len(sub.Ind)))
		sub.Rows++
		subY = append(subY, Y[i])
	}
	defer func(c int) { mlLogCap = c }(mlLogCap)
	for _, cap := range []int{1 << 20, 5} {
		mlLogCap = cap
		_, held, err := trainMultiLabel(context.Background(), X, Y, 4, allRows(X.Rows), cfg, nh, rand.NewPCG(cfg.Seed, 0x6d6c))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(held.rows, order[len(order)-nh:]) {
			t.Fatalf("held out %v, want the last %d of the first epoch's order %v", held.rows, nh, order[len(order)-nh:])
		}
		// sub holds those rows in that order.
		W, bias := oneEpochInOrder(sub, subY, 4, cfg)
		ref := &MultiLabelModel{classes: 4, dim: X.Cols, w: W, bias: bias}
		for k, i := range held.rows {
			s := ref.Scores(X.Row(i), nil)
			for c := range 4 {
				if d := math.Abs(float64(s[c] - held.scores[k*4+c])); d > 1e-4*(1+math.Abs(float64(s[c]))) {
					t.Fatalf("log cap %d: held-out row %d class %d scores %v, the averaged model there %v", cap, i, c, held.scores[k*4+c], s[c])
				}
			}
		}
	}
}

// oneEpochInOrder is one epoch of the one-vs-rest PA1 learner over the
// rows of X in storage order, averaged.
func oneEpochInOrder(X *sparse.CSR, Y [][]int, K int, cfg MultiLabelConfig) ([]float32, []float32) {
	D := X.Cols
	w, u := make([]float32, D*K), make([]float32, D*K)
	b, ub := make([]float64, K), make([]float64, K)
	t := 1.0
	for i := range X.Rows {
		x := X.Row(i)
		sq := 1.0
		for _, v := range x.Val {
			sq += float64(v) * float64(v)
		}
		for c := range K {
			s := float32(b[c])
			for k, j := range x.Ind {
				s += float32(x.Val[k] * w[int(j)*K+c])
			}
			y := -1.0
			if slices.Contains(Y[i], c) {
				y = 1
			}
			if m := y * float64(s); m < 1 {
				a := y * min(cfg.C, (1-m)/sq)
				for k, j := range x.Ind {
					d := float32(float32(a) * x.Val[k])
					w[int(j)*K+c] += d
					u[int(j)*K+c] += float32(float32(t) * d)
				}
				b[c] += a
				ub[c] += t * a
			}
		}
		t++
	}
	bias := make([]float32, K)
	for k := range w {
		w[k] -= float32(float64(u[k]) / t)
	}
	for c := range K {
		bias[c] = float32(b[c] - ub[c]/t)
	}
	return w, bias
}

func allRows(n int) []int {
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	return rows
}

// TestPerceptronThresholdsFromFullTraining: the perceptrons' thresholds
// and Platt scaling come from a model trained with every epoch on the rows not held out
// (their scores grow with the epochs), not from the first epoch's.
func TestPerceptronThresholdsFromFullTraining(t *testing.T) {
	X, Y := mlNoisy(7, 200, 25, 4)
	for _, cfg := range []MultiLabelConfig{{Rule: Perceptron, Epochs: 4, Seed: 5}, {Ranking: true, Epochs: 4, Seed: 5}} {
		m, err := FitMultiLabel(context.Background(), X, Y, 4, cfg)
		if err != nil {
			t.Fatal(err)
		}
		src := rand.NewPCG(cfg.Seed, 0x6d6c)
		rng := rand.New(src)
		perm := allRows(X.Rows)
		rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		held, rest := perm[:40], slices.Clone(perm[40:])
		slices.Sort(rest)
		cfg.C = 1
		ref, _, err := trainMultiLabel(context.Background(), X, Y, 4, rest, cfg, 0, src)
		if err != nil {
			t.Fatal(err)
		}
		var scores []float32
		for _, i := range held {
			scores = append(scores, ref.Scores(X.Row(i), nil)...)
		}
		want, pa, pb := fitThresholds(scores, held, Y, 4, 1)
		if got := m.Thresholds(); !slices.Equal(got, want) || !slices.Equal(m.plattA, pa) || !slices.Equal(m.plattB, pb) {
			t.Errorf("%+v: thresholds %v and Platt scaling %v %v, want %v, %v %v from a model trained on the other rows", cfg, got, m.plattA, m.plattB, want, pa, pb)
		}
	}
}
