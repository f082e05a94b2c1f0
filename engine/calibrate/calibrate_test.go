package calibrate

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func mustPlatt(t *testing.T, a, b float64) Calibration {
	t.Helper()
	c, err := NewPlatt(a, b)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func mustTemperature(t *testing.T, temp float64) Calibration {
	t.Helper()
	c, err := NewTemperature(temp)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func closeTo(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// TestZeroValue: the zero Calibration is the logistic of one score and
// the softmax at T = 1 of several, and says so.
func TestZeroValue(t *testing.T) {
	var c Calibration
	if c.Kind() != Uncalibrated || c.String() != "uncalibrated" {
		t.Errorf("Kind, String = %v, %q; want uncalibrated", c.Kind(), c.String())
	}
	if a, b, ok := c.Platt(); a != -1 || b != 0 || !ok {
		t.Errorf("Platt() = %v, %v, %v; want -1, 0, true", a, b, ok)
	}
	if temp, ok := c.Temperature(); temp != 1 || !ok {
		t.Errorf("Temperature() = %v, %v; want 1, true", temp, ok)
	}
	for _, s := range []float32{0, 2, -3.5, 40} {
		p := c.Proba([]float32{s}, nil)
		want := 1 / (1 + math.Exp(-float64(s)))
		if len(p) != 2 || !closeTo(p[1], want, 1e-15) || !closeTo(p[0], 1-want, 1e-15) {
			t.Errorf("Proba([%v]) = %v, want [%v %v]", s, p, 1-want, want)
		}
	}
	p := c.Proba([]float32{1, 2, 3}, nil)
	z := math.E + math.Exp(2) + math.Exp(3)
	want := []float64{math.E / z, math.Exp(2) / z, math.Exp(3) / z}
	for i := range want {
		if !closeTo(p[i], want[i], 1e-15) {
			t.Errorf("Proba([1 2 3]) = %v, want %v", p, want)
			break
		}
	}
	// The zero value is Platt scaling with A = −1, B = 0 on one score.
	platt := mustPlatt(t, -1, 0)
	for _, s := range []float32{-7, 0.25, 3} {
		p0 := c.Proba([]float32{s}, nil)
		p1 := platt.Proba([]float32{s}, nil)
		if p0[0] != p1[0] || p0[1] != p1[1] {
			t.Errorf("score %v: zero value %v, Platt(-1, 0) %v", s, p0, p1)
		}
	}
}

// TestProbaKnown checks Proba against values worked out by hand.
func TestProbaKnown(t *testing.T) {
	// A = −2, B = 1, s = 0.5: A·s+B = 0, p = 1/2.
	p := mustPlatt(t, -2, 1).Proba([]float32{0.5}, nil)
	if p[0] != 0.5 || p[1] != 0.5 {
		t.Errorf("Platt(-2, 1) at 0.5 = %v, want [0.5 0.5]", p)
	}
	// A = −1, B = −ln 3, s = 0: p(second) = 1/(1+1/3) = 3/4.
	p = mustPlatt(t, -1, -math.Log(3)).Proba([]float32{0}, nil)
	if !closeTo(p[1], 0.75, 1e-15) || !closeTo(p[0], 0.25, 1e-15) {
		t.Errorf("Platt(-1, -ln 3) at 0 = %v, want [0.25 0.75]", p)
	}
	// T = 2, scores 0 and 2 ln 3: softmax(0, ln 3) = [1/4, 3/4].
	p = mustTemperature(t, 2).Proba([]float32{0, float32(2 * math.Log(3))}, nil)
	if !closeTo(p[0], 0.25, 1e-7) || !closeTo(p[1], 0.75, 1e-7) {
		t.Errorf("T=2 at [0 2ln3] = %v, want [0.25 0.75]", p)
	}
}

// TestProbaExtreme: huge and infinite scores give probabilities, never
// NaN, and the limits are right.
func TestProbaExtreme(t *testing.T) {
	cals := []Calibration{{}, mustPlatt(t, -3.21, 0.05), mustPlatt(t, 1e-3, -2), mustPlatt(t, 0, 1.5),
		mustTemperature(t, 0.42), mustTemperature(t, 1e-30), mustTemperature(t, 1e30),
		mustTemperature(t, math.SmallestNonzeroFloat64), mustTemperature(t, math.MaxFloat64)}
	big := []float32{0, 1e30, -1e30, 3.4e38, -3.4e38, math.MaxFloat32, -math.MaxFloat32,
		float32(math.Inf(1)), float32(math.Inf(-1)), 1e-45}
	check := func(c Calibration, s []float32, p []float64) {
		t.Helper()
		var sum float64
		for _, v := range p {
			if math.IsNaN(v) || v < 0 || v > 1 {
				t.Fatalf("%v: Proba(%v) = %v", c, s, p)
			}
			sum += v
		}
		if !closeTo(sum, 1, 1e-12) {
			t.Fatalf("%v: Proba(%v) = %v sums to %v", c, s, p, sum)
		}
	}
	for _, c := range cals {
		if c.Kind() != TemperatureScaling {
			for _, s := range big {
				check(c, []float32{s}, c.Proba([]float32{s}, nil))
			}
		}
		if c.Kind() != PlattScaling {
			for _, s0 := range big {
				for _, s1 := range big {
					s := []float32{s0, s1, 1, -1}
					check(c, s, c.Proba(s, nil))
				}
			}
		}
	}
	var zero Calibration
	if p := zero.Proba([]float32{3.4e38}, nil); p[0] != 0 || p[1] != 1 {
		t.Errorf("zero value at 3.4e38 = %v, want [0 1]", p)
	}
	if p := zero.Proba([]float32{-1e30}, nil); p[0] != 1 || p[1] != 0 {
		t.Errorf("zero value at -1e30 = %v, want [1 0]", p)
	}
	if p := zero.Proba([]float32{3.4e38, -3.4e38, 0}, nil); p[0] != 1 || p[1] != 0 || p[2] != 0 {
		t.Errorf("zero value at [3.4e38 -3.4e38 0] = %v, want [1 0 0]", p)
	}
	inf := float32(math.Inf(1))
	if p := zero.Proba([]float32{inf, 0, inf}, nil); p[0] != 0.5 || p[1] != 0 || p[2] != 0.5 {
		t.Errorf("zero value at [+Inf 0 +Inf] = %v, want [0.5 0 0.5]", p)
	}
	if p := zero.Proba([]float32{-inf, -inf}, nil); p[0] != 0.5 || p[1] != 0.5 {
		t.Errorf("zero value at [-Inf -Inf] = %v, want [0.5 0.5]", p)
	}
}

// TestProbaDst: Proba writes into dst when it has the capacity, without
// allocating, and grows it otherwise.
func TestProbaDst(t *testing.T) {
	buf := make([]float64, 1, 8)
	platt, temp := mustPlatt(t, -2, 0.3), mustTemperature(t, 0.7)
	p := platt.Proba([]float32{1}, buf)
	if len(p) != 2 || &p[0] != &buf[0] {
		t.Errorf("Platt: got len %d, same array %v; want 2, true", len(p), &p[0] == &buf[0])
	}
	p = temp.Proba([]float32{1, 2, 3, 4, 5}, buf[:0])
	if len(p) != 5 || &p[0] != &buf[0] {
		t.Errorf("temperature: got len %d, same array %v; want 5, true", len(p), &p[0] == &buf[0])
	}
	p = temp.Proba(make([]float32, 9), buf)
	if len(p) != 9 || cap(p) < 9 {
		t.Errorf("temperature, 9 scores: got len %d cap %d", len(p), cap(p))
	}
	scores := []float32{0.5, -1, 2, 7}
	for _, c := range []struct {
		cal Calibration
		s   []float32
	}{{platt, scores[:1]}, {temp, scores}, {Calibration{}, scores[:1]}, {Calibration{}, scores}} {
		if n := testing.AllocsPerRun(100, func() { buf = c.cal.Proba(c.s, buf) }); n != 0 {
			t.Errorf("%v: Proba allocates %v times", c.cal, n)
		}
	}
}

// TestProbaPanics: a score count the calibration cannot take panics.
func TestProbaPanics(t *testing.T) {
	for _, c := range []struct {
		cal Calibration
		n   int
	}{{Calibration{}, 0}, {mustPlatt(t, -1, 0), 2}, {mustPlatt(t, -1, 0), 0}, {mustTemperature(t, 1), 1}} {
		func() {
			defer func() {
				r := recover()
				if s, ok := r.(string); !ok || !strings.HasPrefix(s, "calibrate: ") {
					t.Errorf("%v with %d scores: recovered %v, want a calibrate panic", c.cal, c.n, r)
				}
			}()
			c.cal.Proba(make([]float32, c.n), nil)
		}()
	}
}

func TestNewErrors(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, ab := range [][2]float64{{nan, 0}, {0, nan}, {inf, 0}, {0, -inf}} {
		if _, err := NewPlatt(ab[0], ab[1]); !errors.Is(err, ErrParam) {
			t.Errorf("NewPlatt(%v, %v) = %v, want ErrParam", ab[0], ab[1], err)
		}
	}
	for _, v := range []float64{0, -1, nan, inf, math.Copysign(0, -1)} {
		if _, err := NewTemperature(v); !errors.Is(err, ErrParam) {
			t.Errorf("NewTemperature(%v) = %v, want ErrParam", v, err)
		}
	}
	c := mustPlatt(t, 0, 0)
	if a, b, ok := c.Platt(); a != 0 || b != 0 || !ok {
		t.Errorf("NewPlatt(0, 0).Platt() = %v, %v, %v", a, b, ok)
	}
	if _, ok := c.Temperature(); ok {
		t.Error("a Platt calibration reports a temperature")
	}
	if _, _, ok := mustTemperature(t, 3).Platt(); ok {
		t.Error("a temperature calibration reports Platt parameters")
	}
}

func TestString(t *testing.T) {
	for _, c := range []struct {
		cal  Calibration
		want string
	}{
		{Calibration{}, "uncalibrated"},
		{mustPlatt(t, -3.2104, 0.05), "platt(A=-3.21, B=0.05)"},
		{mustTemperature(t, 0.4201), "temperature(T=0.42)"},
		{mustTemperature(t, 1.5e-7), "temperature(T=1.5e-07)"},
	} {
		if got := c.cal.String(); got != c.want {
			t.Errorf("String() = %q, want %q", got, c.want)
		}
	}
	if got := Kind(9).String(); got != "Kind(9)" {
		t.Errorf("Kind(9).String() = %q", got)
	}
}
