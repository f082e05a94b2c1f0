package colorder

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

// randomRows returns rows of sorted distinct columns below dim, the
// frequent ones (a Zipf-like draw) often shared.
func randomRows(r *rand.Rand, rows, dim int) *sparse.CSR {
	X := &sparse.CSR{Rows: rows, Cols: dim, Indptr: make([]int64, 1, rows+1)}
	for range rows {
		var ind []int32
		for range r.IntN(12) {
			j := int32(float64(dim) * r.Float64() * r.Float64() * r.Float64())
			if !slices.Contains(ind, j) {
				ind = append(ind, j)
			}
		}
		slices.Sort(ind)
		for _, j := range ind {
			X.Ind = append(X.Ind, j)
			X.Val = append(X.Val, 1)
		}
		X.Indptr = append(X.Indptr, int64(len(X.Ind)))
	}
	return X
}

// record is what a featurizer records for X: the rows using each column
// and the columns in the order of first use.
func record(X *sparse.CSR) *Recorder {
	r := &Recorder{Dim: X.Cols, Count: make([]int32, X.Cols)}
	for _, j := range X.Ind {
		if r.Count[j] == 0 {
			r.First = append(r.First, j)
		}
		r.Count[j]++
	}
	r.Number()
	return r
}

func TestNewPlan(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 30 {
		X := randomRows(r, 1+r.IntN(200), 1+r.IntN(300))
		var heldRows, keptRows []int
		held := make([]bool, X.Rows)
		for i := range X.Rows {
			if r.IntN(4) == 0 {
				heldRows = append(heldRows, i)
				held[i] = true
			} else {
				keptRows = append(keptRows, i)
			}
		}
		if heldRows == nil {
			keptRows = nil
		}
		rec := record(X)
		// The rows' indices numbered as a featurizer numbers them.
		rec.Ind = make([]int32, len(X.Ind))
		for q, j := range X.Ind {
			rec.Ind[q] = -1 - rec.Codes()[j]
		}
		p := newPlan(rec, X, keptRows, heldRows)
		// The plan numbers the columns of all the rows by their counts in
		// all of them, and leaves out those no kept row uses.
		all, kept := make([]int, X.Cols), make([]int, X.Cols)
		nnz := 0
		for i := range X.Rows {
			for _, j := range X.Ind[X.Indptr[i]:X.Indptr[i+1]] {
				all[j]++
				nnz++
				if !held[i] {
					kept[j]++
				}
			}
		}
		want := slices.Clone(rec.First)
		slices.SortStableFunc(want, func(a, b int32) int { return all[b] - all[a] })
		if p == nil || !slices.Equal(p.Cols, want) || p.Dim != X.Cols {
			t.Fatalf("trial %d: plan %v, want columns %v", trial, p, want)
		}
		for j := range X.Cols {
			n := -1 - p.Code[j]
			if (kept[j] > 0) != (p.Code[j] < 0) || (kept[j] > 0 && p.Cols[n] != int32(j)) {
				t.Fatalf("trial %d: column %d (kept count %d) coded %d", trial, j, kept[j], p.Code[j])
			}
		}
		// Ind is the kept rows' indices in the plan's numbering.
		var ind []int32
		for i := range X.Rows {
			if !held[i] {
				for _, j := range X.Ind[X.Indptr[i]:X.Indptr[i+1]] {
					ind = append(ind, -1-p.Code[j])
				}
			}
		}
		if !slices.Equal(p.Ind, ind) || p.Ind == nil {
			t.Fatalf("trial %d: Ind %v, want %v", trial, p.Ind, ind)
		}
		hot, sum := 0, 0
		for sum < int(float64(nnz)*HotShare) {
			sum += all[want[hot]]
			hot++
		}
		if p.Hot != hot {
			t.Fatalf("trial %d: hot %d, want %d", trial, p.Hot, hot)
		}
		// The recorder stays as it was.
		if again := record(X); !slices.Equal(again.Count, rec.Count) || !slices.Equal(again.First, rec.First) {
			t.Fatalf("trial %d: NewPlan changed the recorder", trial)
		}
	}
}

func TestNewPlanRefuses(t *testing.T) {
	X := randomRows(rand.New(rand.NewPCG(3, 4)), 50, 40)
	if newPlan(record(X), X, nil, nil) == nil {
		t.Fatal("no plan for the recorded rows")
	}
	wider := *X
	wider.Cols++
	// The rows using X's first column, all held out, with one use fewer
	// counted than they make.
	j0 := X.Ind[0]
	var using []int
	for i := range X.Rows {
		if slices.Contains(X.Ind[X.Indptr[i]:X.Indptr[i+1]], j0) {
			using = append(using, i)
		}
	}
	// A held row that uses a column past the counted ones.
	outside := X.SelectRows([]int{0})
	outside.Ind = append(slices.Clone(outside.Ind[:len(outside.Ind)-1]), int32(X.Cols))
	for name, c := range map[string]struct {
		change func(r *Recorder)
		X      *sparse.CSR
		held   []int
		heldX  *sparse.CSR // instead of X's rows held, where set
	}{
		"nil":           {nil, X, nil, nil},
		"empty":         {func(r *Recorder) { *r = Recorder{} }, X, nil, nil},
		"wider held":    {func(*Recorder) {}, &wider, []int{0}, nil},
		"short counts":  {func(r *Recorder) { r.Count = r.Count[:len(r.Count)-1] }, X, nil, nil},
		"held outside":  {func(*Recorder) {}, X, []int{0}, outside},
		"uncounted":     {func(r *Recorder) { r.Count[j0] = 0 }, X, nil, nil},
		"too few uses":  {func(r *Recorder) { r.Count[j0]-- }, X, using, nil},
		"first outside": {func(r *Recorder) { r.First = append(r.First, int32(X.Cols)) }, X, nil, nil},
	} {
		var r *Recorder
		var count []int32
		if c.change != nil {
			r = record(X)
			c.change(r)
			r.Number()
			count = slices.Clone(r.Count)
		}
		heldX := c.heldX
		if heldX == nil && c.held != nil {
			heldX = c.X.SelectRows(c.held)
		}
		if p := r.NewPlan(c.X.Indptr, keptOf(c.X.Rows, c.held), heldX); p != nil {
			t.Errorf("%s: a plan %+v", name, p)
		}
		if r != nil && !slices.Equal(r.Count, count) {
			t.Errorf("%s: the counts were not restored", name)
		}
	}
	// A plan takes the numbering over: there is none for a second one.
	once := record(X)
	once.Ind = make([]int32, len(X.Ind))
	if newPlan(once, X, nil, nil) == nil || once.Ind != nil || newPlan(once, X, nil, nil) != nil {
		t.Error("a second plan of one numbering, or its Ind left with the recorder")
	}
	// The rows kept and those held must make up the rows counted.
	r := record(X)
	if r.NewPlan(X.Indptr, []int{0}, nil) != nil || r.NewPlan(X.Indptr, nil, X.SelectRows([]int{0})) != nil {
		t.Error("a plan for rows kept without rows held, or the other way round")
	}
	if newPlan(r, X, keptOf(X.Rows, []int{0}), []int{0}) == nil {
		t.Error("no plan for all rows but the first")
	}
}

// newPlan is r.NewPlan for X's rows listed in kept, those listed in held
// held out.
func newPlan(r *Recorder, X *sparse.CSR, kept, held []int) *Plan {
	var heldX *sparse.CSR
	if held != nil {
		heldX = X.SelectRows(held)
	}
	return r.NewPlan(X.Indptr, kept, heldX)
}

// keptOf returns the rows of 0..n−1 not in held, nil where held is empty.
func keptOf(n int, held []int) []int {
	if len(held) == 0 {
		return nil
	}
	var kept []int
	for i := range n {
		if !slices.Contains(held, i) {
			kept = append(kept, i)
		}
	}
	return kept
}

func TestPlanFor(t *testing.T) {
	X, Y := new(sparse.CSR), new(sparse.CSR)
	p := &Plan{Dim: 1}
	ctx := WithPlan(context.Background(), X, p)
	if PlanFor(ctx, X) != p || PlanFor(ctx, Y) != nil || PlanFor(context.Background(), X) != nil {
		t.Fatal("PlanFor gives a plan to other rows, or none to its own")
	}
	if WithPlan(ctx, Y, nil) != ctx {
		t.Fatal("WithPlan of no plan made a new context")
	}
	ctx2, rec := WithRecorder(ctx)
	if RecorderFrom(ctx2) != rec || RecorderFrom(ctx) != nil || PlanFor(ctx2, X) != p {
		t.Fatal("RecorderFrom does not find its recorder")
	}
}

// keepRows moves the rows' values to the front in place where the rows
// increase, and copies them where they do not, as SelectRows would.
func TestKeepRows(t *testing.T) {
	X := randomRows(rand.New(rand.NewPCG(5, 6)), 40, 30)
	for _, rows := range [][]int{{}, {0}, {3, 7, 8, 39}, {39, 2, 5}, {4, 4}} {
		ind := slices.Clone(X.Ind)
		want := X.SelectRows(rows).Ind
		got := keepRows(X.Indptr, ind, rows)
		inPlace := len(got) > 0 && &got[0] == &ind[0]
		increasing := slices.IsSorted(rows) && len(slices.Compact(slices.Clone(rows))) == len(rows)
		if !slices.Equal(got, want) || (len(got) > 0 && inPlace != increasing) {
			t.Errorf("rows %v: %v (in place %v), want %v", rows, got, inPlace, want)
		}
	}
	if keepRows(X.Indptr, slices.Clone(X.Ind), []int{X.Rows}) != nil {
		t.Error("a row outside X kept")
	}
}
