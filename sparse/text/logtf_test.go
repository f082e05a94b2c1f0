package text

import (
	"math"
	"math/rand/v2"
	"testing"
)

// logTF gives the bits of the formula it stands for, sign(v)·(1 + ln |v|)
// in float64 rounded to float32, for the counts the table holds, the
// values around and past its end, fractions, zeros and non-finite values.
func TestLogTFMatchesFormula(t *testing.T) {
	ref := func(v float32) float32 {
		w := float32(1 + math.Log(math.Abs(float64(v))))
		if v < 0 {
			w = -w
		}
		return w
	}
	vals := []float32{0, float32(math.Copysign(0, -1)), 0.5, -0.5, 255, 255.5, 256, 257, 1e6, -1e6, 1e-30,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), math.MaxFloat32, math.SmallestNonzeroFloat32}
	for k := -300; k <= 300; k++ {
		vals = append(vals, float32(k), float32(k)+0.25, math.Nextafter32(float32(k), 1000))
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		vals = append(vals, float32(r.NormFloat64()*100))
	}
	for _, v := range vals {
		got, want := logTF(v), ref(v)
		if math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
			t.Fatalf("logTF(%v) = %v, want %v", v, got, want)
		}
	}
}
