package sparse

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

func randomVector(rng *rand.Rand, dim int) Vector {
	v := Vector{Dim: dim}
	for j := 0; j < dim; j += 1 + rng.IntN(10) {
		v.Ind = append(v.Ind, int32(j))
		v.Val = append(v.Val, float32(rng.NormFloat64()))
	}
	return v
}

func near(a, b float32) bool {
	return math.Abs(float64(a-b)) <= 1e-4*(1+math.Abs(float64(b)))
}

func TestVectorOps(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		dim := rng.IntN(300)
		v := randomVector(rng, dim)
		if err := v.Validate(); err != nil {
			t.Fatal(err)
		}
		w := make([]float32, dim+rng.IntN(3))
		for i := range w {
			w[i] = float32(rng.NormFloat64())
		}
		var dot, ss float32
		dense := make([]float32, dim)
		for k, j := range v.Ind {
			dot += v.Val[k] * w[j]
			ss += v.Val[k] * v.Val[k]
			dense[j] = v.Val[k]
		}
		if got := v.Dot(w); !near(got, dot) {
			t.Fatalf("trial %d: Dot = %v, want %v", trial, got, dot)
		}
		if got := v.SumSq(); !near(got, ss) {
			t.Fatalf("SumSq = %v, want %v", got, ss)
		}
		if v.NNZ() != len(v.Ind) {
			t.Fatal("NNZ")
		}
		d := v.Dense()
		if len(d) != dim {
			t.Fatalf("Dense length %d", len(d))
		}
		for j := range d {
			if d[j] != dense[j] {
				t.Fatalf("Dense[%d] = %v, want %v", j, d[j], dense[j])
			}
		}
		want := append([]float32(nil), w...)
		a := float32(rng.NormFloat64())
		for k, j := range v.Ind {
			want[j] += a * v.Val[k]
		}
		v.AddTo(w, a)
		for j := range w {
			if !near(w[j], want[j]) {
				t.Fatalf("AddTo[%d] = %v, want %v", j, w[j], want[j])
			}
		}
	}
}

func mustPanic(t *testing.T, name string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s did not panic", name)
		}
	}()
	f()
}

func TestVectorPanics(t *testing.T) {
	v := Vector{Dim: 5, Ind: []int32{1, 4}, Val: []float32{1, 2}}
	mustPanic(t, "Dot short w", func() { v.Dot(make([]float32, 4)) })
	mustPanic(t, "AddTo short w", func() { v.AddTo(make([]float32, 4), 1) })
	bad := Vector{Dim: 5, Ind: []int32{1, 9}, Val: []float32{1, 2}}
	mustPanic(t, "Dot index beyond Dim", func() { bad.Dot(make([]float32, 5)) })
	mustPanic(t, "AddTo index beyond Dim", func() { bad.AddTo(make([]float32, 5), 1) })
	neg := Vector{Dim: 5, Ind: []int32{-1, 2}, Val: []float32{1, 2}}
	mustPanic(t, "AddTo negative index", func() { neg.AddTo(make([]float32, 5), 1) })
	if got := v.Dot([]float32{0, 1, 0, 0, 1, 100}); got != 3 {
		t.Errorf("Dot with longer w = %v", got)
	}
}

func TestVectorValidate(t *testing.T) {
	cases := []struct {
		v    Vector
		want error
	}{
		{Vector{Dim: 3, Ind: []int32{0, 2}, Val: []float32{1, 2}}, nil},
		{Vector{}, nil},
		{Vector{Dim: -1}, ErrShape},
		{Vector{Dim: 3, Ind: []int32{0}, Val: []float32{1, 2}}, ErrShape},
		{Vector{Dim: 3, Ind: []int32{2, 1}, Val: []float32{1, 2}}, ErrIndexOrder},
		{Vector{Dim: 3, Ind: []int32{1, 1}, Val: []float32{1, 2}}, ErrIndexOrder},
		{Vector{Dim: 3, Ind: []int32{3}, Val: []float32{1}}, ErrIndexRange},
		{Vector{Dim: 3, Ind: []int32{-1}, Val: []float32{1}}, ErrIndexRange},
		{Vector{Dim: 3, Ind: []int32{0}, Val: []float32{float32(math.NaN())}}, ErrValue},
		{Vector{Dim: 3, Ind: []int32{0}, Val: []float32{float32(math.Inf(-1))}}, ErrValue},
	}
	for i, c := range cases {
		err := c.v.Validate()
		if (c.want == nil) != (err == nil) || (c.want != nil && !errors.Is(err, c.want)) {
			t.Errorf("case %d: %v, want %v", i, err, c.want)
		}
		if c.want != nil && c.v.Dense() != nil {
			t.Errorf("case %d: Dense of an invalid vector is not nil", i)
		}
	}
}

func validCSR() *CSR {
	return &CSR{Rows: 3, Cols: 4, Indptr: []int64{0, 2, 2, 5}, Ind: []int32{0, 3, 1, 2, 3}, Val: []float32{1, 2, 3, 4, 5}}
}

func TestCSRValidate(t *testing.T) {
	if err := validCSR().Validate(); err != nil {
		t.Fatal(err)
	}
	if err := (&CSR{Indptr: []int64{0}}).Validate(); err != nil {
		t.Fatalf("empty matrix: %v", err)
	}
	cases := map[string]struct {
		mod  func(m *CSR)
		want error
	}{
		"negative rows":     {func(m *CSR) { m.Rows = -1 }, ErrShape},
		"negative cols":     {func(m *CSR) { m.Cols = -1 }, ErrShape},
		"short indptr":      {func(m *CSR) { m.Indptr = m.Indptr[:3] }, ErrShape},
		"nil indptr":        {func(m *CSR) { m.Indptr = nil }, ErrShape},
		"indptr[0] != 0":    {func(m *CSR) { m.Indptr[0] = 1 }, ErrShape},
		"decreasing indptr": {func(m *CSR) { m.Indptr[1] = 3; m.Indptr[2] = 2 }, ErrShape},
		"indptr past nnz":   {func(m *CSR) { m.Indptr[1] = 6 }, ErrShape},
		"negative indptr":   {func(m *CSR) { m.Indptr[1] = -1 }, ErrShape},
		"nnz mismatch ind":  {func(m *CSR) { m.Ind = m.Ind[:4] }, ErrShape},
		"nnz mismatch val":  {func(m *CSR) { m.Val = append(m.Val, 1) }, ErrShape},
		"unsorted row":      {func(m *CSR) { m.Ind[2], m.Ind[3] = 2, 1 }, ErrIndexOrder},
		"duplicate index":   {func(m *CSR) { m.Ind[3] = 1 }, ErrIndexOrder},
		"index >= Cols":     {func(m *CSR) { m.Ind[4] = 4 }, ErrIndexRange},
		"negative index":    {func(m *CSR) { m.Ind[0] = -2 }, ErrIndexRange},
		"NaN value":         {func(m *CSR) { m.Val[3] = float32(math.NaN()) }, ErrValue},
		"Inf value":         {func(m *CSR) { m.Val[0] = float32(math.Inf(1)) }, ErrValue},
		"cols shrunk":       {func(m *CSR) { m.Cols = 3 }, ErrIndexRange},
	}
	for name, c := range cases {
		m := validCSR()
		c.mod(m)
		if err := m.Validate(); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
	var nilM *CSR
	if err := nilM.Validate(); !errors.Is(err, ErrShape) {
		t.Errorf("nil: %v", err)
	}
}

func randomCSR(rng *rand.Rand, rows, cols int) *CSR {
	dense := make([][]float32, rows)
	for i := range dense {
		dense[i] = make([]float32, cols)
		for j := range dense[i] {
			if rng.IntN(4) == 0 {
				dense[i][j] = float32(rng.IntN(9) - 4)
			}
		}
	}
	return FromDense(dense)
}

func TestCSROps(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	m := randomCSR(rng, 40, 30)
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	var nnz int64
	for i := range m.Rows {
		nnz += int64(m.Row(i).NNZ())
	}
	if nnz != m.NNZ() {
		t.Fatalf("NNZ %d, rows sum %d", m.NNZ(), nnz)
	}
	rowsEqual := func(a *CSR, i int, b *CSR, k int) bool {
		da, db := a.Row(i).Dense(), b.Row(k).Dense()
		if len(da) != len(db) {
			return false
		}
		for j := range da {
			if da[j] != db[j] {
				return false
			}
		}
		return true
	}
	s := m.Slice(5, 17)
	if err := s.Validate(); err != nil || s.Rows != 12 || s.Cols != m.Cols {
		t.Fatalf("Slice: %v %d×%d", err, s.Rows, s.Cols)
	}
	for k := range s.Rows {
		if !rowsEqual(m, 5+k, s, k) {
			t.Fatalf("Slice row %d differs", k)
		}
	}
	s.Val[0] = 99 // a copy
	if m.Val[m.Indptr[5]] == 99 && m.Row(5).NNZ() > 0 {
		t.Fatal("Slice shares storage")
	}
	if e := m.Slice(3, 3); e.Rows != 0 || e.Validate() != nil {
		t.Fatal("empty Slice")
	}
	idx := []int{7, 0, 39, 7}
	sel := m.SelectRows(idx)
	if err := sel.Validate(); err != nil || sel.Rows != 4 {
		t.Fatalf("SelectRows: %v", err)
	}
	for k, i := range idx {
		if !rowsEqual(m, i, sel, k) {
			t.Fatalf("SelectRows row %d differs", k)
		}
	}
	mustPanic(t, "Row out of range", func() { m.Row(40) })
	mustPanic(t, "Slice out of range", func() { m.Slice(2, 41) })
	mustPanic(t, "Slice reversed", func() { m.Slice(5, 4) })
	mustPanic(t, "SelectRows out of range", func() { m.SelectRows([]int{-1}) })

	// Row views cannot overwrite the next row by appending.
	r0 := m.Row(0)
	next := m.Val[m.Indptr[1]]
	_ = append(r0.Val, 12345)
	if m.Val[m.Indptr[1]] != next {
		t.Fatal("append to a row view overwrote the next row")
	}

	norms := m.RowNorms()
	for i := range m.Rows {
		var ss float64
		for _, x := range m.Row(i).Val {
			ss += float64(x) * float64(x)
		}
		if !near(norms[i], float32(math.Sqrt(ss))) {
			t.Fatalf("RowNorms[%d] = %v, want %v", i, norms[i], math.Sqrt(ss))
		}
	}
	m.Val[m.Indptr[2]:m.Indptr[3]][0] = 0 // keep one row possibly with zero norm
	zero := &CSR{Rows: 2, Cols: 2, Indptr: []int64{0, 1, 2}, Ind: []int32{0, 1}, Val: []float32{0, 3}}
	zero.NormalizeRows()
	if zero.Val[0] != 0 || zero.Val[1] != 1 {
		t.Errorf("NormalizeRows with a zero row: %v", zero.Val)
	}
	m.NormalizeRows()
	for i, n := range m.RowNorms() {
		if m.Row(i).NNZ() > 0 && n != 0 && !near(n, 1) {
			t.Fatalf("row %d norm %v after NormalizeRows", i, n)
		}
	}
}

func TestFromDense(t *testing.T) {
	m := FromDense([][]float32{{0, 1}, {}, {2, 0, 3}})
	if m.Rows != 3 || m.Cols != 3 || m.NNZ() != 3 || m.Validate() != nil {
		t.Fatalf("%+v", m)
	}
	if v := m.Row(2); v.Ind[0] != 0 || v.Ind[1] != 2 || v.Val[1] != 3 {
		t.Errorf("row 2 = %+v", v)
	}
	e := FromDense(nil)
	if e.Rows != 0 || e.Cols != 0 || e.Validate() != nil {
		t.Errorf("empty: %+v", e)
	}
	if FromDense([][]float32{{float32(math.NaN())}}).Validate() == nil {
		t.Error("NaN not reported")
	}
}

func TestBuilder(t *testing.T) {
	b := NewBuilder(5)
	if err := b.Add([]int32{0, 4}, []float32{1, 2}); err != nil {
		t.Fatal(err)
	}
	if err := b.Add(nil, nil); err != nil {
		t.Fatal(err)
	}
	bad := []struct {
		ind  []int32
		val  []float32
		want error
	}{
		{[]int32{1}, []float32{1, 2}, ErrShape},
		{[]int32{2, 1}, []float32{1, 2}, ErrIndexOrder},
		{[]int32{1, 1}, []float32{1, 2}, ErrIndexOrder},
		{[]int32{5}, []float32{1}, ErrIndexRange},
		{[]int32{-1}, []float32{1}, ErrIndexRange},
		{[]int32{1}, []float32{float32(math.NaN())}, ErrValue},
		{[]int32{1}, []float32{float32(math.Inf(1))}, ErrValue},
	}
	for i, c := range bad {
		if err := b.Add(c.ind, c.val); !errors.Is(err, c.want) {
			t.Errorf("case %d: %v, want %v", i, err, c.want)
		}
	}
	ind := []int32{2}
	if err := b.Add(ind, []float32{7}); err != nil {
		t.Fatal(err)
	}
	ind[0] = 3 // Add copied its input
	if b.Len() != 3 {
		t.Fatalf("Len = %d", b.Len())
	}
	m := b.Build()
	if err := m.Validate(); err != nil || m.Rows != 3 || m.Cols != 5 || m.Row(2).Ind[0] != 2 {
		t.Fatalf("Build: %v %+v", err, m)
	}
	if b.Len() != 0 {
		t.Fatalf("Len after Build = %d", b.Len())
	}
	if m2 := b.Build(); m2.Rows != 0 || m2.Cols != 5 || m2.Validate() != nil {
		t.Fatalf("second Build: %+v", m2)
	}

	// The zero value infers Cols.
	var z Builder
	if m := z.Build(); m.Rows != 0 || m.Cols != 0 || m.Validate() != nil {
		t.Fatalf("empty zero Builder: %+v", m)
	}
	z.Add([]int32{3, 9}, []float32{1, 1})
	z.Add([]int32{1}, []float32{1})
	if m := z.Build(); m.Cols != 10 || m.Rows != 2 || m.Validate() != nil {
		t.Fatalf("zero Builder: %+v", m)
	}
	if nb := NewBuilder(-3); nb.Add([]int32{math.MaxInt32}, []float32{1}) != nil || nb.Build().Cols != math.MaxInt32+1 {
		t.Error("inferring Builder rejected the largest index")
	}
}

// TestValidateFastPath: Validate's one-loop fast path agrees with the
// row-by-row check: huge finite values (whose sum of squares overflows)
// are valid, and each kind of bad row, in any row, is still named.
func TestValidateFastPath(t *testing.T) {
	good := func() *CSR {
		return &CSR{Rows: 4, Cols: 6, Indptr: []int64{0, 2, 2, 5, 6},
			Ind: []int32{0, 5, 1, 2, 4, 3}, Val: []float32{1, 2, 3, 4, 5, 6}}
	}
	m := good()
	if err := m.Validate(); err != nil || !m.rowsOK() {
		t.Fatalf("valid matrix: %v, fast path %v", err, m.rowsOK())
	}
	m.Val[1], m.Val[4] = math.MaxFloat32, -math.MaxFloat32
	if err := m.Validate(); err != nil {
		t.Fatalf("huge finite values: %v", err)
	}
	for name, c := range map[string]struct {
		bad  func(m *CSR)
		want error
		row  string
	}{
		"index past cols": {func(m *CSR) { m.Ind[5] = 6 }, ErrIndexRange, "row 3"},
		"negative index":  {func(m *CSR) { m.Ind[2] = -1 }, ErrIndexRange, "row 2"},
		"repeated index":  {func(m *CSR) { m.Ind[3] = 2; m.Ind[4] = 2 }, ErrIndexOrder, "row 2"},
		"unsorted":        {func(m *CSR) { m.Ind[0], m.Ind[1] = 5, 0 }, ErrIndexOrder, "row 0"},
		"NaN":             {func(m *CSR) { m.Val[3] = float32(math.NaN()) }, ErrValue, "row 2"},
		"Inf":             {func(m *CSR) { m.Val[5] = float32(math.Inf(-1)) }, ErrValue, "row 3"},
	} {
		m := good()
		c.bad(m)
		err := m.Validate()
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.row+":") {
			t.Errorf("%s: %v, want %v in %s", name, err, c.want, c.row)
		}
		if m.rowsOK() {
			t.Errorf("%s: fast path passes a bad matrix", name)
		}
	}
}

// TestValidateSplit: a matrix large enough to be checked in parts is
// accepted when valid and, with bad rows in different parts, rejected
// with the first of them named, whichever part finds its own first.
func TestValidateSplit(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	const rows, per = 30000, 50 // 1.5M nonzeros: three or four parts
	good := func() *CSR {
		m := &CSR{Rows: rows, Cols: 1000, Indptr: make([]int64, rows+1),
			Ind: make([]int32, rows*per), Val: make([]float32, rows*per)}
		for i := range rows {
			for k := range per {
				m.Ind[i*per+k] = int32(k * 20)
				m.Val[i*per+k] = 1
			}
			m.Indptr[i+1] = int64((i + 1) * per)
		}
		return m
	}
	m := good()
	if err := m.Validate(); err != nil || !m.rowsOK() {
		t.Fatalf("valid matrix: %v, fast path %v", err, m.rowsOK())
	}
	for _, c := range []struct {
		rows []int
		want int
	}{{[]int{0}, 0}, {[]int{rows - 1}, rows - 1}, {[]int{rows / 2}, rows / 2},
		{[]int{rows - 1, rows / 3}, rows / 3}, {[]int{3 * rows / 4, rows/4 + 1}, rows/4 + 1}} {
		m := good()
		for _, r := range c.rows {
			m.Ind[r*per+per/2] = m.Ind[r*per+per/2-1] // a repeated index
		}
		if m.rowsOK() {
			t.Errorf("bad rows %v: fast path passes", c.rows)
		}
		err := m.Validate()
		if !errors.Is(err, ErrIndexOrder) || !strings.Contains(err.Error(), fmt.Sprintf("row %d:", c.want)) {
			t.Errorf("bad rows %v: %v, want row %d named", c.rows, err, c.want)
		}
	}
	m = good()
	m.Val[len(m.Val)-1] = float32(math.Inf(1))
	if err := m.Validate(); !errors.Is(err, ErrValue) || !strings.Contains(err.Error(), fmt.Sprintf("row %d:", rows-1)) {
		t.Errorf("Inf in the last row: %v", err)
	}
}

// TestNormalizeRowsExtremes: rows whose squares overflow or underflow
// float32 (or whose 1/norm is not a float32) have their true norm and
// normalize to unit length, instead of being zeroed or skipped.
func TestNormalizeRowsExtremes(t *testing.T) {
	rows := [][]float32{
		{3e19, 4e19},
		{3e-30, 4e-30},
		{3e37, 4e37},
		{3e-45, 4e-45}, // subnormal: 1/norm overflows float32
		{1e-20, 0, 0},
		{0.6, 0.8},
	}
	m := FromDense(rows)
	norms := m.RowNorms()
	m.NormalizeRows()
	for i, r := range rows {
		var ss float64
		for _, x := range r {
			ss += float64(x) * float64(x)
		}
		if want := float32(math.Sqrt(ss)); !near(norms[i], want) {
			t.Errorf("row %d %v: RowNorms %v, want %v", i, r, norms[i], want)
		}
		var after float64
		for _, x := range m.Row(i).Val {
			after += float64(x) * float64(x)
		}
		// The subnormal row has only a few bits of precision.
		tol := 1e-5
		if i == 3 {
			tol = 0.3
		}
		if math.Abs(math.Sqrt(after)-1) > tol {
			t.Errorf("row %d %v: normalized to %v (norm %v)", i, r, m.Row(i).Val, math.Sqrt(after))
		}
	}
}
