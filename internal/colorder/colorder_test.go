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
	return r
}

func TestNewPlan(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 30 {
		X := randomRows(r, 1+r.IntN(200), 1+r.IntN(300))
		var held []int
		kept := make([]bool, X.Rows)
		for i := range X.Rows {
			if r.IntN(4) == 0 {
				held = append(held, i)
			} else {
				kept[i] = true
			}
		}
		rec := record(X)
		p := rec.NewPlan(X, held)
		// The kept rows' counts, and the order a plan must give them.
		count := make([]int, X.Cols)
		nnz := 0
		for i := range X.Rows {
			if kept[i] {
				for _, j := range X.Ind[X.Indptr[i]:X.Indptr[i+1]] {
					count[j]++
					nnz++
				}
			}
		}
		var want []int32
		for _, j := range rec.First {
			if count[j] > 0 {
				want = append(want, j)
			}
		}
		slices.SortStableFunc(want, func(a, b int32) int { return count[b] - count[a] })
		if len(want) == 0 {
			if p == nil || len(p.Cols) != 0 {
				t.Fatalf("trial %d: no kept values, plan %+v", trial, p)
			}
			continue
		}
		if p == nil || !slices.Equal(p.Cols, want) || p.Dim != X.Cols {
			t.Fatalf("trial %d: plan columns %v, want %v", trial, p, want)
		}
		for j := range X.Cols {
			n := -1 - p.Code[j]
			if (count[j] > 0) != (p.Code[j] < 0) || (count[j] > 0 && p.Cols[n] != int32(j)) {
				t.Fatalf("trial %d: column %d (count %d) coded %d", trial, j, count[j], p.Code[j])
			}
		}
		hot, sum := 0, 0
		for sum < int(float64(nnz)*HotShare) {
			sum += count[want[hot]]
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
	good := record(X)
	if good.NewPlan(X, nil) == nil {
		t.Fatal("no plan for the recorded rows")
	}
	wider := *X
	wider.Cols++
	short := *good
	short.Count = short.Count[:len(short.Count)-1]
	low := *record(X)
	low.Count[X.Ind[0]] = 0 // fewer uses than the rows have
	outside := *record(X)
	outside.First = append(slices.Clone(outside.First), int32(X.Cols))
	for name, c := range map[string]struct {
		r    *Recorder
		X    *sparse.CSR
		held []int
	}{
		"nil":           {nil, X, nil},
		"empty":         {new(Recorder), X, nil},
		"wider rows":    {good, &wider, nil},
		"short counts":  {&short, X, nil},
		"held outside":  {good, X, []int{X.Rows}},
		"too few uses":  {&low, X, []int{0}},
		"first outside": {&outside, X, nil},
	} {
		if p := c.r.NewPlan(c.X, c.held); p != nil {
			t.Errorf("%s: a plan %+v", name, p)
		}
	}
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
