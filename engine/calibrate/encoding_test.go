package calibrate

import (
	"bytes"
	"errors"
	"math"
	"testing"
)

// TestMarshalRoundTrip: decoding an encoding gives back the calibration
// bit for bit, and encoding it again the same bytes.
func TestMarshalRoundTrip(t *testing.T) {
	scores, pos := logisticSample(500, -2, 0.5, 4)
	fp, err := FitPlatt(scores, pos)
	if err != nil {
		t.Fatal(err)
	}
	ms, truth := softmaxSample(500, 4, 0.7, 5)
	ft, err := FitTemperature(ms, 4, truth)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []Calibration{{}, fp, ft, mustPlatt(t, math.Copysign(0, -1), -math.MaxFloat64),
		mustPlatt(t, math.SmallestNonzeroFloat64, 1e300), mustTemperature(t, math.SmallestNonzeroFloat64),
		mustTemperature(t, math.MaxFloat64)} {
		b, err := c.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var got Calibration
		if err := got.UnmarshalBinary(b); err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		a0, b0, _ := c.Platt()
		a1, b1, _ := got.Platt()
		t0, _ := c.Temperature()
		t1, _ := got.Temperature()
		if got.Kind() != c.Kind() || math.Float64bits(a0) != math.Float64bits(a1) ||
			math.Float64bits(b0) != math.Float64bits(b1) || math.Float64bits(t0) != math.Float64bits(t1) {
			t.Errorf("round trip of %v gave %v", c, got)
		}
		again, _ := got.AppendBinary([]byte("prefix"))
		if string(again[:6]) != "prefix" || !bytes.Equal(again[6:], b) {
			t.Errorf("%v: AppendBinary after decoding = %x, want prefix then %x", c, again, b)
		}
	}
}

// TestMarshalLayout pins the documented layout.
func TestMarshalLayout(t *testing.T) {
	for _, c := range []struct {
		cal  Calibration
		want []byte
	}{
		{Calibration{}, []byte{1, 0}},
		{mustTemperature(t, 1), []byte{1, 2, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f}},
		{mustPlatt(t, -1, 2), []byte{1, 1, 0, 0, 0, 0, 0, 0, 0xf0, 0xbf, 0, 0, 0, 0, 0, 0, 0, 0x40}},
	} {
		if got, _ := c.cal.MarshalBinary(); !bytes.Equal(got, c.want) {
			t.Errorf("%v: %x, want %x", c.cal, got, c.want)
		}
	}
}

// TestUnmarshalRejects: malformed data fails with ErrFormat and leaves
// the destination alone.
func TestUnmarshalRejects(t *testing.T) {
	f64 := func(v float64) []byte {
		var out [8]byte
		bits := math.Float64bits(v)
		for i := range out {
			out[i] = byte(bits >> (8 * i))
		}
		return out[:]
	}
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	platt, _ := mustPlatt(t, -1, 2).MarshalBinary()
	temp, _ := mustTemperature(t, 0.5).MarshalBinary()
	bad := map[string][]byte{
		"nil":                  nil,
		"one byte":             {1},
		"version 0":            {0, 0},
		"version 2":            {2, 0},
		"unknown kind":         {1, 3},
		"zero value, trailing": {1, 0, 0},
		"Platt, truncated":     platt[:len(platt)-1],
		"Platt, header only":   platt[:2],
		"Platt, trailing":      cat(platt, []byte{0}),
		"temperature, short":   temp[:9],
		"temperature, long":    cat(temp, f64(1)),
		"Platt A NaN":          cat([]byte{1, 1}, f64(math.NaN()), f64(0)),
		"Platt B +Inf":         cat([]byte{1, 1}, f64(0), f64(math.Inf(1))),
		"T zero":               cat([]byte{1, 2}, f64(0)),
		"T -0":                 cat([]byte{1, 2}, f64(math.Copysign(0, -1))),
		"T negative":           cat([]byte{1, 2}, f64(-2)),
		"T NaN":                cat([]byte{1, 2}, f64(math.NaN())),
		"T +Inf":               cat([]byte{1, 2}, f64(math.Inf(1))),
	}
	for name, b := range bad {
		c := mustTemperature(t, 3)
		if err := c.UnmarshalBinary(b); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v, want ErrFormat", name, err)
		}
		if v, ok := c.Temperature(); v != 3 || !ok {
			t.Errorf("%s: destination changed to %v", name, c)
		}
	}
}

// FuzzUnmarshal: UnmarshalBinary never panics, and what it accepts
// encodes back to the same bytes and gives probabilities, not NaN.
func FuzzUnmarshal(f *testing.F) {
	for _, c := range []Calibration{{}, {kind: PlattScaling, a: -3.21, b: 0.05}, {kind: TemperatureScaling, t: 0.42}} {
		b, _ := c.MarshalBinary()
		f.Add(b)
		f.Add(b[:len(b)-1])
	}
	f.Add([]byte{})
	f.Add([]byte{1, 2, 0, 0, 0, 0, 0, 0, 0xf8, 0x7f}) // T NaN
	f.Add([]byte{0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		var c Calibration
		if err := c.UnmarshalBinary(data); err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error %v does not wrap ErrFormat", err)
			}
			return
		}
		b, err := c.MarshalBinary()
		if err != nil || !bytes.Equal(b, data) {
			t.Fatalf("%v: re-encoded as %x, %v; decoded from %x", c, b, err, data)
		}
		var p []float64
		for _, s := range [][]float32{{0}, {3.4e38}, {-1e30}, {0, 1e30, -3.4e38}} {
			if (len(s) == 1 && c.Kind() == TemperatureScaling) || (len(s) > 1 && c.Kind() == PlattScaling) {
				continue
			}
			p = c.Proba(s, p)
			for _, v := range p {
				if math.IsNaN(v) || v < 0 || v > 1 {
					t.Fatalf("%v: Proba(%v) = %v", c, s, p)
				}
			}
		}
	})
}
