package dense

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestVectorOps(t *testing.T) {
	x32 := []float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17}
	y32 := make([]float32, len(x32))
	for i := range y32 {
		y32[i] = 2
	}
	if got := Dot(x32, y32); got != 306 {
		t.Fatalf("Dot float32 = %v, want 306", got)
	}
	x64 := []float64{3, 4}
	if got := SumSq(x64); got != 25 {
		t.Fatalf("SumSq float64 = %v, want 25", got)
	}
	Axpy(0.5, x32, y32)
	if y32[16] != 10.5 {
		t.Fatalf("Axpy float32: y[16] = %v, want 10.5", y32[16])
	}
	Scale(2, x64)
	if x64[0] != 6 || x64[1] != 8 {
		t.Fatalf("Scale float64 = %v", x64)
	}
	if got := Dot([]float64{1e300, 1}, []float64{1e10, 0}); !math.IsInf(got, 1) {
		t.Fatalf("Dot overflow = %v, want +Inf", got)
	}
}

func TestMatrix(t *testing.T) {
	m, err := FromRows([][]float32{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}})
	if err != nil {
		t.Fatal(err)
	}
	if m.At(2, 1) != 8 {
		t.Fatalf("At(2,1) = %v", m.At(2, 1))
	}
	s := m.Slice(1, 3)
	s.Set(0, 0, 40)
	if m.At(1, 0) != 40 || s.Rows != 2 || len(s.Row(1)) != 3 {
		t.Fatal("Slice does not share storage or has the wrong shape")
	}
	out := make([]float32, 2)
	s.MulVec([]float32{1, 0, 1}, out)
	if out[0] != 46 || out[1] != 16 {
		t.Fatalf("MulVec = %v, want [46 16]", out)
	}
	if _, err := FromRows([][]float64{{1, 2}, {3}}); !errors.Is(err, ErrShape) {
		t.Fatalf("ragged rows: err = %v, want ErrShape", err)
	}
	if _, err := New[float32](-1, 3); !errors.Is(err, ErrShape) {
		t.Fatalf("negative size: err = %v, want ErrShape", err)
	}
	if _, err := New[float32](1<<40, 1<<40); !errors.Is(err, ErrShape) {
		t.Fatalf("overflowing size: err = %v, want ErrShape", err)
	}
	for name, f := range map[string]func(){
		"row":    func() { m.Row(3) },
		"col":    func() { m.At(0, 3) },
		"slice":  func() { m.Slice(2, 4) },
		"mulvec": func() { m.MulVec(make([]float32, 2), make([]float32, 3)) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Fatalf("%s: no panic on an out-of-range call", name)
				}
			}()
			f()
		}()
	}
}

func TestGonumRoundTrip(t *testing.T) {
	m, _ := FromRows([][]float64{{1, 2}, {3, 4}, {5, 6}})
	g := ToGonum(m.Slice(1, 3))
	var p mat.Dense
	p.Mul(g, g.T())
	if p.At(0, 1) != 3*5+4*6 {
		t.Fatalf("gonum product = %v", p.At(0, 1))
	}
	back := FromGonum(g)
	back.Set(0, 0, 30)
	if m.At(1, 0) != 30 {
		t.Fatal("FromGonum(ToGonum(m)) does not share storage")
	}
}

func TestZeroAllocs(t *testing.T) {
	x := make([]float32, 256)
	allocs := testing.AllocsPerRun(100, func() {
		_ = Dot(x, x)
		Axpy(1, x, x)
	})
	if allocs != 0 {
		t.Fatalf("Dot/Axpy allocated %v times", allocs)
	}
}

func ExampleMatrix_MulVec() {
	m, _ := FromRows([][]float32{{1, 0, 2}, {0, 3, 0}})
	out := make([]float32, m.Rows)
	m.MulVec([]float32{1, 1, 1}, out)
	fmt.Println(out)
	// Output: [3 3]
}

func ExampleDot() {
	fmt.Println(Dot([]float64{1, 2, 3}, []float64{4, 5, 6}))
	// Output: 32
}

// TestToGonumStrided: a matrix whose stride exceeds its width (a view of
// a wider gonum matrix, or one built so) goes to gonum and back sharing
// its storage.
func TestToGonumStrided(t *testing.T) {
	g := mat.NewDense(3, 3, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9})
	m := FromGonum(g.Slice(0, 2, 0, 2).(*mat.Dense))
	back := ToGonum(m)
	if r, c := back.Dims(); r != 2 || c != 2 || back.At(1, 1) != 5 || back.At(1, 0) != 4 {
		t.Fatalf("round trip of a 2×2 view: %v", mat.Formatted(back))
	}
	back.Set(0, 1, -2)
	if g.At(0, 1) != -2 {
		t.Fatal("the view does not share storage with the original")
	}
	h := ToGonum(&Matrix[float64]{Rows: 2, Cols: 2, Stride: 3, Data: []float64{1, 2, 0, 4, 5, 0}})
	if h.At(1, 0) != 4 || h.At(1, 1) != 5 {
		t.Fatalf("strided matrix: %v", mat.Formatted(h))
	}
}

// TestConvert: Convert copies a strided view into a compact matrix of the
// other precision, rounding to nearest, and shares nothing with it.
func TestConvert(t *testing.T) {
	g := mat.NewDense(3, 3, []float64{1, 2, 3, 4, 1.0 / 3, 6, 7, 8, 1e300})
	m := FromGonum(g.Slice(1, 3, 0, 3).(*mat.Dense))
	c := Convert[float32](m)
	if c.Rows != 2 || c.Cols != 3 || c.Stride != 3 || len(c.Data) != 6 {
		t.Fatalf("shape %d×%d stride %d, %d values", c.Rows, c.Cols, c.Stride, len(c.Data))
	}
	want := []float32{4, 1.0 / 3, 6, 7, 8, float32(math.Inf(1))}
	for i, v := range want {
		if c.Data[i] != v {
			t.Fatalf("value %d = %v, want %v", i, c.Data[i], v)
		}
	}
	c.Set(0, 0, -1)
	if g.At(1, 0) != 4 {
		t.Fatal("Convert shares storage with its source")
	}
	if e := Convert[float64](&Matrix[float32]{Cols: 2, Stride: 2}); e.Rows != 0 || e.Cols != 2 || len(e.Data) != 0 {
		t.Fatalf("empty matrix: %+v", e)
	}
}
