package calibrate

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// logisticSample draws n scores from N(0, 1.5²) and for each a class,
// positive with probability 1/(1+exp(a·s+b)).
func logisticSample(n int, a, b float64, seed uint64) ([]float32, []bool) {
	r := rand.New(rand.NewPCG(seed, 7))
	scores := make([]float32, n)
	pos := make([]bool, n)
	for i := range scores {
		s := float32(1.5 * r.NormFloat64())
		scores[i] = s
		pos[i] = r.Float64() < 1/(1+math.Exp(a*float64(s)+b))
	}
	return scores, pos
}

// softmaxSample draws n rows of k scores from N(0, 2²) and for each row a
// true class from softmax(s/t).
func softmaxSample(n, k int, t float64, seed uint64) ([]float32, []int) {
	r := rand.New(rand.NewPCG(seed, 11))
	scores := make([]float32, n*k)
	truth := make([]int, n)
	p := make([]float64, k)
	for i := range truth {
		row := scores[i*k : (i+1)*k]
		var z float64
		for j := range row {
			row[j] = float32(2 * r.NormFloat64())
			p[j] = math.Exp(float64(row[j]) / t)
			z += p[j]
		}
		u := r.Float64() * z
		y := k - 1
		for j := range p {
			if u < p[j] {
				y = j
				break
			}
			u -= p[j]
		}
		truth[i] = y
	}
	return scores, truth
}

// plattLoss is the loss FitPlatt minimizes, the cross-entropy against
// Platt's targets, computed through Proba.
func plattLoss(c Calibration, scores []float32, pos []bool) float64 {
	var npos, nneg float64
	for _, p := range pos {
		if p {
			npos++
		} else {
			nneg++
		}
	}
	hi, lo := (npos+1)/(npos+2), 1/(nneg+2)
	var sum float64
	var buf []float64
	for i, s := range scores {
		buf = c.Proba([]float32{s}, buf)
		t := lo
		if pos[i] {
			t = hi
		}
		sum -= t*math.Log(buf[1]) + (1-t)*math.Log(buf[0])
	}
	return sum
}

// nll is the negative log-likelihood of the true classes under c.
func nll(c Calibration, scores []float32, k int, truth []int) float64 {
	var sum float64
	var buf []float64
	for i, y := range truth {
		buf = c.Proba(scores[i*k:(i+1)*k], buf)
		sum -= math.Log(buf[y])
	}
	return sum
}

// TestFitPlattRecovers: on 20 000 rows drawn from a known logistic model
// FitPlatt finds its parameters, whatever the scale of the scores.
func TestFitPlattRecovers(t *testing.T) {
	for _, ab := range [][2]float64{{-2, 0.5}, {-0.7, -1.2}, {1.5, 0.3}} {
		a0, b0 := ab[0], ab[1]
		scores, pos := logisticSample(20000, a0, b0, 1)
		c, err := FitPlatt(scores, pos)
		if err != nil {
			t.Fatal(err)
		}
		a, b, ok := c.Platt()
		if c.Kind() != PlattScaling || !ok {
			t.Fatalf("kind %v", c.Kind())
		}
		// The standard errors here are about 0.02; 0.1 is five of them.
		if !closeTo(a, a0, 0.1) || !closeTo(b, b0, 0.1) {
			t.Errorf("A0=%v, B0=%v: fitted %v", a0, b0, c)
		}
		// Scaling the scores by 1000 scales A by 1/1000 and leaves B.
		big := make([]float32, len(scores))
		for i, s := range scores {
			big[i] = 1000 * s
		}
		cb, err := FitPlatt(big, pos)
		if err != nil {
			t.Fatal(err)
		}
		ab2, bb2, _ := cb.Platt()
		if !closeTo(ab2*1000, a, 1e-6*math.Abs(a)) || !closeTo(bb2, b, 1e-6) {
			t.Errorf("A0=%v, B0=%v: scores ×1000 fitted %v, want A=%v, B=%v", a0, b0, cb, a/1000, b)
		}
	}
}

// TestFitPlattMinimum: the fitted parameters give a lower loss than any
// of their neighbours 1% away.
func TestFitPlattMinimum(t *testing.T) {
	scores, pos := logisticSample(20000, -2, 0.5, 2)
	c, err := FitPlatt(scores, pos)
	if err != nil {
		t.Fatal(err)
	}
	a, b, _ := c.Platt()
	best := plattLoss(c, scores, pos)
	for _, da := range []float64{-0.01, 0, 0.01} {
		for _, db := range []float64{-0.01, 0, 0.01} {
			if da == 0 && db == 0 {
				continue
			}
			n := mustPlatt(t, a*(1+da), b*(1+db)+db)
			if l := plattLoss(n, scores, pos); l <= best {
				t.Errorf("loss at %v is %v, at the fitted %v %v", n, l, c, best)
			}
		}
	}
}

// TestFitPlattOneClass: rows of a single class are fitted, to the
// constant probability of Platt's target.
func TestFitPlattOneClass(t *testing.T) {
	scores := make([]float32, 50)
	for i := range scores {
		scores[i] = float32(i%7) - 3
	}
	for _, positive := range []bool{true, false} {
		pos := make([]bool, len(scores))
		for i := range pos {
			pos[i] = positive
		}
		c, err := FitPlatt(scores, pos)
		if err != nil {
			t.Fatalf("positive %v: %v", positive, err)
		}
		want := 1.0 / 52
		if positive {
			want = 51.0 / 52
		}
		a, _, _ := c.Platt()
		if math.Abs(a) > 1e-6 {
			t.Errorf("positive %v: %v, want A = 0", positive, c)
		}
		for _, s := range []float32{-3, 0, 3} {
			if p := c.Proba([]float32{s}, nil); !closeTo(p[1], want, 1e-6) {
				t.Errorf("positive %v: p(second | %v) = %v, want %v", positive, s, p[1], want)
			}
		}
	}
}

// TestFitPlattSeparable: separable scores give finite parameters, thanks
// to the targets, and probabilities that are high but not 1.
func TestFitPlattSeparable(t *testing.T) {
	scores := []float32{-3, -2, -1, -0.5, 0.5, 1, 2, 3}
	pos := []bool{false, false, false, false, true, true, true, true}
	c, err := FitPlatt(scores, pos)
	if err != nil {
		t.Fatal(err)
	}
	a, b, _ := c.Platt()
	if !(a < 0) || math.IsInf(a, 0) || math.IsNaN(b) {
		t.Fatalf("fitted %v", c)
	}
	p := c.Proba([]float32{3}, nil)
	if !(p[1] > 0.8 && p[1] < 1) {
		t.Errorf("%v: p(second | 3) = %v", c, p[1])
	}
	// Constant scores leave only B to fit: the fraction of positives,
	// through the targets.
	c, err = FitPlatt([]float32{2, 2, 2, 2}, []bool{true, false, true, true})
	if err != nil {
		t.Fatal(err)
	}
	if p := c.Proba([]float32{2}, nil); !closeTo(p[1], (3*(4.0/5)+1.0/3)/4, 1e-6) {
		t.Errorf("constant scores: %v, p(second) = %v", c, p[1])
	}
}

func TestFitPlattErrors(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	for _, c := range []struct {
		scores []float32
		pos    []bool
		want   error
	}{
		{nil, nil, ErrNoData},
		{[]float32{}, []bool{}, ErrNoData},
		{[]float32{1}, nil, ErrLength},
		{[]float32{1, 2}, []bool{true}, ErrLength},
		{[]float32{1, nan}, []bool{true, false}, ErrScore},
		{[]float32{inf, 1}, []bool{true, false}, ErrScore},
		{[]float32{1, -inf}, []bool{true, false}, ErrScore},
	} {
		if _, err := FitPlatt(c.scores, c.pos); !errors.Is(err, c.want) {
			t.Errorf("FitPlatt(%v, %v) = %v, want %v", c.scores, c.pos, err, c.want)
		}
	}
}

// TestFitTemperatureRecovers: on 20 000 rows drawn from softmax(s/T0)
// FitTemperature finds T0 (on 8 000 under -short).
func TestFitTemperatureRecovers(t *testing.T) {
	rows := 20000
	if testing.Short() {
		t.Log("-short: 8000 rows a case instead of 20000")
		rows = 8000
	}
	for _, c := range []struct {
		k  int
		t0 float64
	}{{3, 0.4}, {5, 2.5}, {10, 1}} {
		t.Run(fmt.Sprintf("k=%d/T0=%v", c.k, c.t0), func(t *testing.T) {
			scores, truth := softmaxSample(rows, c.k, c.t0, 3)
			cal, err := FitTemperature(scores, c.k, truth)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := cal.Temperature()
			if cal.Kind() != TemperatureScaling || !ok {
				t.Fatalf("kind %v", cal.Kind())
			}
			if math.Abs(got/c.t0-1) > 0.05 {
				t.Errorf("fitted %v", cal)
			}
			// The fit is a minimum of the NLL: 1% either way is worse.
			best := nll(cal, scores, c.k, truth)
			for _, f := range []float64{0.99, 1.01} {
				n := mustTemperature(t, got*f)
				if l := nll(n, scores, c.k, truth); l <= best {
					t.Errorf("NLL at %v is %v, at the fitted %v %v", n, l, cal, best)
				}
			}
		})
	}
}

// TestFitTemperatureEnds: where the likelihood has no interior maximum
// the fit stops at the documented end of the search.
func TestFitTemperatureEnds(t *testing.T) {
	temp := func(scores []float32, k int, truth []int) float64 {
		t.Helper()
		c, err := FitTemperature(scores, k, truth)
		if err != nil {
			t.Fatal(err)
		}
		v, _ := c.Temperature()
		return v
	}
	// Every row's scores equal: T = 1.
	if v := temp([]float32{1, 1, 1, -2, -2, -2}, 3, []int{0, 2}); v != 1 {
		t.Errorf("equal scores: T = %v, want 1", v)
	}
	// The true class always highest: T falls until the likelihood is 1,
	// which happens once exp(−margin/T) underflows, margin 0.5, so at
	// T = 4^-6 (T = 4^-5 leaves exp(-512) > 0), far above 1e-12·4.
	scores := []float32{3, 0, -1, 0, 1, 0.5}
	c, err := FitTemperature(scores, 3, []int{0, 1})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := c.Temperature(); v != math.Pow(4, -6) || nll(c, scores, 3, []int{0, 1}) != 0 {
		t.Errorf("always right: T = %v, NLL %v; want 4^-6, 0", v, nll(c, scores, 3, []int{0, 1}))
	}
	// Where the margin is too small for underflow, the search ends at
	// 1e-12 times the widest spread in a row, 4.
	scores = []float32{3, 0, -1, 0, 1e-10, 0}
	if v := temp(scores, 3, []int{0, 1}); !closeTo(v, 4e-12, 1e-20) {
		t.Errorf("always right, tiny margin: T = %v, want 4e-12", v)
	}
	// The true class always lowest: T at the high end.
	if v := temp(scores, 3, []int{2, 0}); !closeTo(v, 4e12, 1e-3) {
		t.Errorf("always wrong: T = %v, want 4e12", v)
	}
	// One hand-computed interior optimum: two classes, scores 0 and 1,
	// the second class true in 3 rows of 4. The NLL is minimal where
	// p(second) = 3/4 = 1/(1+exp(−1/T)): T = 1/ln 3.
	if v := temp([]float32{0, 1, 0, 1, 0, 1, 0, 1}, 2, []int{1, 1, 1, 0}); !closeTo(v, 1/math.Log(3), 1e-9) {
		t.Errorf("two classes: T = %v, want 1/ln 3 = %v", v, 1/math.Log(3))
	}
}

func TestFitTemperatureErrors(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	for _, c := range []struct {
		scores []float32
		k      int
		truth  []int
		want   error
	}{
		{[]float32{1, 2}, 1, []int{0, 0}, ErrClass},
		{[]float32{}, 0, []int{}, ErrClass},
		{[]float32{1, 2}, -2, []int{0}, ErrClass},
		{nil, 3, nil, ErrNoData},
		{[]float32{1, 2, 3}, 3, nil, ErrLength},
		{[]float32{1, 2, 3}, 3, []int{0, 1}, ErrLength},
		{[]float32{1, 2, 3, 4}, 3, []int{0}, ErrLength},
		{[]float32{1, 2, 3, 4}, 2, []int{0, 2}, ErrClass},
		{[]float32{1, 2, 3, 4}, 2, []int{-1, 0}, ErrClass},
		{[]float32{1, nan, 3, 4}, 2, []int{0, 1}, ErrScore},
		{[]float32{1, 2, inf, 4}, 2, []int{0, 1}, ErrScore},
		{[]float32{1, 2, 3, -inf}, 2, []int{0, 1}, ErrScore},
	} {
		if _, err := FitTemperature(c.scores, c.k, c.truth); !errors.Is(err, c.want) {
			t.Errorf("FitTemperature(%v, %d, %v) = %v, want %v", c.scores, c.k, c.truth, err, c.want)
		}
	}
}

// TestFitPlattOrigin: the fit through the origin has B = 0, so a score's
// sign and its probability's side of 1/2 always agree; its A is the
// slope that minimizes the loss along B = 0 (no nearby slope does
// better), and it refuses what FitPlatt refuses.
func TestFitPlattOrigin(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	// Scores that lean to the positive side: FitPlatt moves 1/2 off 0.
	n := 2000
	scores := make([]float32, n)
	positive := make([]bool, n)
	for i := range n {
		positive[i] = r.Float64() < 0.7
		m := -1.0
		if positive[i] {
			m = 1
		}
		scores[i] = float32(m + 0.8 + 1.5*r.NormFloat64())
	}
	full, err := FitPlatt(scores, positive)
	if err != nil {
		t.Fatal(err)
	}
	if _, b, _ := full.Platt(); math.Abs(b) < 0.05 {
		t.Fatalf("the test's scores should give FitPlatt an intercept, got B = %v", b)
	}
	c, err := FitPlattOrigin(scores, positive)
	if err != nil {
		t.Fatal(err)
	}
	a, b, ok := c.Platt()
	if !ok || b != 0 || !(a < 0) {
		t.Fatalf("FitPlattOrigin: A = %v, B = %v, %v; want A < 0, B = 0", a, b, ok)
	}
	var p []float64
	for _, s := range scores {
		p = c.Proba([]float32{s}, p)
		if s > 0 && p[1] < 0.5 || s <= 0 && p[0] < 0.5 {
			t.Fatalf("score %v: probabilities %v disagree with its sign", s, p)
		}
	}
	prob := &plattProblem{scores: scores, positive: positive, scale: 1}
	np, nn := prob.count()
	prob.hi, prob.lo = float64(np+1)/float64(np+2), 1/float64(nn+2)
	best := prob.loss(a, 0)
	for _, d := range []float64{-1e-3, 1e-3} {
		if l := prob.loss(a*(1+d), 0); l < best-1e-9 {
			t.Errorf("A·(1%+g) has loss %v < %v at A", d, l, best)
		}
	}
	if _, err := FitPlattOrigin(nil, nil); !errors.Is(err, ErrNoData) {
		t.Errorf("no rows: %v", err)
	}
	if _, err := FitPlattOrigin([]float32{1}, nil); !errors.Is(err, ErrLength) {
		t.Errorf("lengths: %v", err)
	}
	if _, err := FitPlattOrigin([]float32{float32(math.NaN())}, []bool{true}); !errors.Is(err, ErrScore) {
		t.Errorf("NaN score: %v", err)
	}
}

// TestFitPlattOriginWrongWay: held-out scores that point the wrong way
// (higher scores, fewer positives) give A = 0, not a positive slope that
// would make the class a score's sign picks the less probable one.
func TestFitPlattOriginWrongWay(t *testing.T) {
	for _, ab := range [][2]float64{{1, 0}, {2, 0.5}, {0.3, -1}} {
		scores, pos := logisticSample(5000, ab[0], ab[1], 5)
		c, err := FitPlattOrigin(scores, pos)
		if err != nil {
			t.Fatal(err)
		}
		a, b, _ := c.Platt()
		if a != 0 || b != 0 {
			t.Errorf("A0=%v, B0=%v: fitted A = %v, B = %v; want 0, 0", ab[0], ab[1], a, b)
		}
		for _, s := range []float32{-2, -1e-3, 0, 1e-3, 2} {
			p := c.Proba([]float32{s}, nil)
			if s > 0 && p[1] < p[0] || s <= 0 && p[0] < p[1] {
				t.Errorf("A0=%v, B0=%v: score %v gives %v", ab[0], ab[1], s, p)
			}
		}
	}
}
