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

// The default weighing, log tf and IDF in one pass with the squares
// summed on the way, gives the bits of the three passes it replaces, on
// rows of small and large, whole and fractional, signed counts; so does
// weighNumbered, which also numbers the columns.
func TestWeighOnePassMatchesPasses(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const dim = 5000
	idf := make([]float32, dim)
	for j := range idf {
		idf[j] = 1 + 8*r.Float32()
	}
	// A numbering of the columns, as colorder codes it, for weighNumbered.
	perm := make([]int32, dim)
	code := make([]int32, dim)
	for j, p := range r.Perm(dim) {
		perm[j], code[j] = int32(p), -1-int32(p)
	}
	for _, norm := range []bool{true, false} {
		f := &Featurizer{cfg: Config{TF: Log, IDF: true, NoNormalize: !norm}}
		f.idf.dense = idf
		tab := f.numberTable(code)
		for row := range 300 {
			n := row % 120
			ind := make([]int32, n)
			val := make([]float32, n)
			for k := range ind {
				ind[k] = int32(r.IntN(dim))
				switch r.IntN(4) {
				case 0:
					val[k] = float32(1 + r.IntN(300))
				case 1:
					val[k] = -float32(1 + r.IntN(5))
				case 2:
					val[k] = float32(r.ExpFloat64() * 40)
				default:
					val[k] = float32(1 + r.IntN(3))
				}
			}
			want := make([]float32, n)
			var ss float64
			for k, c := range val {
				w := float32(1 + math.Log(math.Abs(float64(c))))
				if c < 0 {
					w = -w
				}
				want[k] = w * idf[ind[k]]
			}
			for _, v := range want {
				ss += float64(v) * float64(v)
			}
			if norm && ss > 0 {
				s := 1 / math.Sqrt(ss)
				for k, v := range want {
					want[k] = float32(float64(v) * s)
				}
			}
			numbered, nd := append([]float32(nil), val...), make([]int32, n)
			f.weighNumbered(ind, numbered, nd, tab)
			f.weigh(ind, val)
			for k := range val {
				if math.Float32bits(val[k]) != math.Float32bits(want[k]) {
					t.Fatalf("normalize=%v row %d value %d: %v, want %v", norm, row, k, val[k], want[k])
				}
				// weighNumbered weighs the same and numbers by the code.
				if math.Float32bits(numbered[k]) != math.Float32bits(want[k]) || nd[k] != perm[ind[k]] {
					t.Fatalf("normalize=%v row %d value %d: numbered %v as %d, want %v as %d", norm, row, k, numbered[k], nd[k], want[k], perm[ind[k]])
				}
			}
		}
	}
	// Other weighings, and a numbering of another width, have no table.
	for _, f := range []*Featurizer{
		{cfg: Config{TF: Binary, IDF: true}, idf: idfTable{dense: idf}},
		{cfg: Config{TF: Log}, idf: idfTable{dense: idf}},
		{cfg: Config{TF: Log, IDF: true}},
	} {
		if f.numberTable(code) != nil {
			t.Errorf("%+v: a table", f.cfg)
		}
	}
	if f := (&Featurizer{cfg: Config{TF: Log, IDF: true}, idf: idfTable{dense: idf}}); f.numberTable(code[1:]) != nil {
		t.Error("a table of another width")
	}
}
