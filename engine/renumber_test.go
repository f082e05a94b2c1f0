package engine

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hyperplane-ml/hyperplane/internal/colorder"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// fxHashed scatters the columns of X over a space wide columns across as
// a hash would: column j goes to (j·7919 + 13) mod wide, which for a
// prime wide keeps them distinct, and each row is sorted again.
func fxHashed(X *sparse.CSR, wide int) *sparse.CSR {
	out := &sparse.CSR{Rows: X.Rows, Cols: wide, Indptr: X.Indptr, Ind: make([]int32, len(X.Ind)), Val: make([]float32, len(X.Val))}
	for i := range X.Rows {
		a, b := X.Indptr[i], X.Indptr[i+1]
		type nz struct {
			j int32
			v float32
		}
		row := make([]nz, 0, b-a)
		for p := a; p < b; p++ {
			row = append(row, nz{int32((int64(X.Ind[p])*7919 + 13) % int64(wide)), X.Val[p]})
		}
		slices.SortFunc(row, func(x, y nz) int { return int(x.j) - int(y.j) })
		for k, e := range row {
			out.Ind[a+int64(k)], out.Val[a+int64(k)] = e.j, e.v
		}
	}
	return out
}

// Renumbering the columns changes no bit of the model: with the dense
// weights it stores when the rows use most of the columns, the model
// file is the same byte for byte as that of a fit that does not renumber;
// when they use few, TestCompactColumnsBitIdentical checks the listed
// weights one by one.
func TestRenumberColumnsBitIdentical(t *testing.T) {
	Xb, yb := fxIntBinary(71, 500, 300, 14, 0.05)
	Xm, ym := fxIntMulti(72, 500, 300, 14, 4, 0.05)
	cases := []struct {
		name string
		X    *sparse.CSR
		y    []float64
		cfg  Config
	}{
		{"averaged PA-II binary", Xb, yb, Config{Epochs: 4, Rule: PA2, Normalize: true}},
		{"averaged multiclass", Xm, ym, Config{Epochs: 4}},
		{"plain PA-I", Xm, ym, Config{Epochs: 3, Algorithm: Plain, Rule: PA1}},
		{"logistic", Xb, yb, Config{Epochs: 3, Rule: Logistic}},
		{"batch", Xb, yb, Config{Epochs: 3, Algorithm: Batch}},
		{"two workers, validation", Xm, ym, Config{Epochs: 5, Workers: 2, Validation: 0.2}},
		{"scaled", Xb, yb, Config{Epochs: 3, Scale: MaxAbs}},
	}
	for _, c := range cases {
		X := fxHashed(c.X, 311)
		plain := fitWith(t, X, c.y, c.cfg, math.MaxInt64)
		re := fitWith(t, X, c.y, c.cfg, 0)
		a, err := plain.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		b, err := re.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if re.Cols != nil || !bytes.Equal(a, b) {
			t.Errorf("%s: the renumbered fit's model differs (%d columns listed)", c.name, len(re.Cols))
		}
	}
}

// The columns come most used first, equal counts in the order the rows
// first use them, and each row's indices name the same columns as before,
// in the same order; the memory budget is checked.
func TestRenumberColumnsOrder(t *testing.T) {
	X := &sparse.CSR{Rows: 3, Cols: 10,
		Indptr: []int64{0, 3, 5, 8},
		Ind:    []int32{2, 7, 9, 1, 7, 0, 7, 9},
		Val:    []float32{1, 2, 3, 4, 5, 6, 7, 8}}
	// The rows twice over, ten columns: a count for each column. Forty
	// columns and a billion, more than the values: counts of the distinct
	// columns, found by a bitmap and by sorting a copy of the indices.
	twice := &sparse.CSR{Rows: 6, Cols: 10,
		Indptr: []int64{0, 3, 5, 8, 11, 13, 16},
		Ind:    append(slices.Clone(X.Ind), X.Ind...),
		Val:    append(slices.Clone(X.Val), X.Val...)}
	checkRenumbered(t, twice)
	for _, width := range []int{40, 1 << 30} {
		X.Cols = width
		checkRenumbered(t, X)
	}
	if _, err := renumberColumns(X, 16); err == nil {
		t.Fatal("a budget of 16 bytes passed")
	}
}

func checkRenumbered(t *testing.T, X *sparse.CSR) {
	t.Helper()
	rn, err := renumberColumns(X, 0)
	if err != nil {
		t.Fatal(err)
	}
	cols, R := rn.cols, rn.X
	// byCol lists the new numbers by increasing column.
	if len(rn.byCol) != len(cols) {
		t.Fatalf("%d new numbers by column for %d columns", len(rn.byCol), len(cols))
	}
	for q := 1; q < len(rn.byCol); q++ {
		if cols[rn.byCol[q-1]] >= cols[rn.byCol[q]] {
			t.Fatalf("new numbers by column %v name columns out of order", rn.byCol)
		}
	}
	// 7 in the most rows, then 9, then 2, 1 and 0 in the order of first
	// use.
	if want := []int32{7, 9, 2, 1, 0}; !slices.Equal(cols, want) {
		t.Fatalf("columns %v, want %v", cols, want)
	}
	if R.Cols != len(cols) || R.Rows != X.Rows || !slices.Equal(R.Val, X.Val) || !slices.Equal(R.Indptr, X.Indptr) {
		t.Fatalf("shape %d×%d, values %v", R.Rows, R.Cols, R.Val)
	}
	for p, j := range R.Ind {
		if cols[j] != X.Ind[p] {
			t.Fatalf("index %d: new %d names column %d, want %d", p, j, cols[j], X.Ind[p])
		}
	}
}

// The hot columns are the first that hold 95% of the values, and the
// layout of the weights follows them rather than the width.
func TestRenumberHotColumns(t *testing.T) {
	// Column 0 in all 40 rows, column 1 in 36, columns 2… once each.
	R := &sparse.CSR{Rows: 40, Cols: 2 + 40}
	R.Indptr = []int64{0}
	for i := range 40 {
		R.Ind = append(R.Ind, 0)
		if i < 36 {
			R.Ind = append(R.Ind, 1)
		}
		R.Ind = append(R.Ind, int32(2+i))
		R.Indptr = append(R.Indptr, int64(len(R.Ind)))
	}
	R.Val = make([]float32, len(R.Ind))
	// 116 values, 95% of them 110: columns 0 and 1 hold 76, and 34 of
	// the columns held once make up the rest, 36 columns in all.
	if rn, err := renumberColumns(R, 0); err != nil || rn.hot != 36 {
		t.Fatalf("%d hot columns (%v), want 36", rn.hot, err)
	}
	// Against counting the sorted column counts, on a wider set.
	X, _ := fxIntBinary(73, 400, 500, 20, 0)
	rn, err := renumberColumns(X, 0)
	if err != nil {
		t.Fatal(err)
	}
	hot := rn.hot
	counts := make([]int, X.Cols)
	for _, j := range X.Ind {
		counts[j]++
	}
	slices.SortFunc(counts, func(a, b int) int { return b - a })
	want, sum, n := int64(float64(len(X.Ind))*colorder.HotShare), int64(0), 0
	for sum < want {
		sum += int64(counts[n])
		n++
	}
	if hot != n {
		t.Fatalf("%d hot columns, counted %d", hot, n)
	}
	st := &state{K: 1, w: make([]float32, 1<<20), u: make([]float64, 1<<20)}
	if !st.interleaved() || !st.gatherWeights() {
		t.Fatal("4 MiB of weights: not interleaved and gathered")
	}
	st.hotCols = 1 << 18 // 1 MiB of them
	if !st.interleaved() || !st.gatherWeights() {
		t.Fatal("1 MiB of hot weights before a quiet pass: not interleaved and gathered")
	}
	// A pass that updates a quarter of its rows or more keeps the layout
	// for all the weights; one that updates fewer leaves it to the hot ones.
	for _, c := range []struct {
		rows, updates int
		quiet         bool
	}{{100, 25, false}, {100, 24, true}, {100, 100, false}, {100, 0, true}, {0, 0, false}} {
		st.endPass(passStats{rows: c.rows, updates: c.updates})
		if st.quiet != c.quiet || st.interleaved() == c.quiet || st.gatherWeights() == c.quiet {
			t.Fatalf("%d updates of %d rows: quiet %v, interleaved %v, gathered %v", c.updates, c.rows, st.quiet, st.interleaved(), st.gatherWeights())
		}
	}
}

// BenchmarkRenumberColumns: 6M values of 25,000 rows over 2^20 hashed
// columns, Zipf-distributed, about as imdb's hashed bigrams, renumbered,
// and a binary model of them mapped back (inOrder): what a hashed fit
// pays once, before its first epoch and after its last.
func BenchmarkRenumberColumns(b *testing.B) {
	r := rand.New(rand.NewPCG(13, 14))
	z := rand.NewZipf(r, 1.1, 1, 1<<22)
	const rows, cols = 25000, 1 << 20
	bld := sparse.NewBuilder(cols)
	for range rows {
		ind := make([]int32, 0, 400)
		for range 400 {
			// A hash of a Zipf-drawn term.
			ind = append(ind, int32((z.Uint64()*0x9e3779b97f4a7c15)>>44))
		}
		slices.Sort(ind)
		ind = slices.Compact(ind)
		if err := bld.Add(ind, make([]float32, len(ind))); err != nil {
			b.Fatal(err)
		}
	}
	X := bld.Build()
	for b.Loop() {
		rn, err := renumberColumns(X, 0)
		if err != nil {
			b.Fatal(err)
		}
		rn.listed = len(rn.cols)*2 <= X.Cols
		m := &Model{Classes: []float64{0, 1}, Dim: len(rn.cols), W: make([]float32, len(rn.cols)), B: make([]float32, 1)}
		inOrder(m, rn, X.Cols)
	}
}
