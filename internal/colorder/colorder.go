// Package colorder numbers the columns a training set's rows use in order
// of use, most used first, and carries such a numbering from the reader
// that counted it to the learner that trains on it.
//
// engine.Fit renumbers the columns of a wide feature space this way before
// it trains (its weights then outgrow the caches less), which costs a
// count of every value. A featurizer that hashes text already counts the
// documents of every bucket as it reads; when it records those counts and
// the order in which the buckets first came (Recorder), the learner can
// take its numbering from them (Plan) instead of counting again; and as
// the featurizer looks every value's bucket up anyway to weigh it, it
// writes the value's new number too (Plan.Ind), so that the learner need
// not look the values up a second time to renumber them. The
// numbering only decides where each weight lives: the model is the same
// bit for bit whichever numbering a fit uses.
//
// Both hand-overs go through a context.Context with keys of this
// module-internal package, so that no public signature carries them and
// only this module's own commands use them.
package colorder

import (
	"context"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

// Rank numbers the columns named in first (each once, in the order they
// were first used) by count[j], most first, equal counts in their order
// in first: a counting sort by descending count. count[j] must be ≥ 1 for
// every j in first. It returns the columns in their new order, and the
// counting sort's starts after its fill (see HotPrefix) with the largest
// count; count[j] of each column j of first becomes −1 − its new number.
func Rank(count, first []int32) (order, start []int32, most int32) {
	// The counts in the order of first: the one pass that reads count at
	// random, where three would (the largest, the sizes, the fill).
	cf := make([]int32, len(first))
	for k, j := range first {
		cf[k] = count[j]
	}
	for _, c := range cf {
		most = max(most, c)
	}
	start = make([]int32, most+2)
	for _, c := range cf {
		start[most-c+1]++
	}
	for c := 1; c < len(start); c++ {
		start[c] += start[c-1]
	}
	order = make([]int32, len(first))
	for k, j := range first {
		c := cf[k]
		p := start[most-c]
		start[most-c]++
		order[p] = j
		count[j] = -1 - p
	}
	return order, start, most
}

// HotShare is the share of a training set's values that its hot columns
// hold: the columns a pass keeps reading.
const HotShare = 0.95

// HotPrefix returns how many of the first columns in order of use hold
// HotShare of the nnz values, from Rank's starts and largest count: the
// columns of count most−b then have the new numbers from start[b−1] (0
// for b = 0) to start[b].
func HotPrefix(start []int32, most int32, nnz int64) int {
	want := int64(float64(nnz) * HotShare)
	sum, prev := int64(0), int32(0)
	for b := range most {
		c, n := int64(most-b), int64(start[b]-prev)
		if sum+n*c >= want {
			return int(prev) + int((want-sum+c-1)/c)
		}
		sum += n * c
		prev = start[b]
	}
	return int(prev)
}

// Plan is a numbering of the columns of Dim that a training set's rows
// use, in order of use.
type Plan struct {
	Dim int
	// Code[j] is −1 − the new number of column j, or 0 for a column the
	// rows do not use.
	Code []int32
	// Cols[p] is the column numbered p. It may name columns the rows do
	// not use (those of rows held out of them), whose Code is 0.
	Cols []int32
	// Hot is how many of the first columns hold HotShare of the values.
	Hot int
	// Ind, where not nil, is the indices of the rows the plan is given
	// with (WithPlan), each as its new number, laid out as the rows' Ind:
	// the renumbering done already, where the featurizer looked each
	// value's column up anyway, so that the fit need not do it again.
	Ind []int32
}

// Recorder is what a featurizer fills in as it reads: how many documents
// use each column and the columns in the order they were first used,
// then (Number) their numbering in order of use.
type Recorder struct {
	Dim   int
	Count []int32 // by column; kept by the featurizer, read only
	First []int32
	// Ind, where the featurizer sets it, is the indices of the rows it
	// returned, each as its new number in Number's numbering (see Codes),
	// laid out as the rows' Ind.
	Ind []int32
	all *Plan
}

// Codes returns Number's numbering of the columns, −1 − the new number of
// each column the rows use (Plan.Code), for a featurizer to fill Ind by;
// nil where Number left none. It is not to be written to.
func (r *Recorder) Codes() []int32 {
	if r == nil || r.all == nil {
		return nil
	}
	return r.all.Code
}

// Number numbers the columns the recorded documents use by Count, most
// first, equal counts in the order of First (see Rank), for NewPlan. A
// featurizer calls it once it has recorded Count and First; it leaves no
// numbering where they are not counts of the columns of First.
func (r *Recorder) Number() {
	r.all = nil
	if r.Count == nil || len(r.Count) != r.Dim {
		return
	}
	code := make([]int32, r.Dim)
	copy(code, r.Count)
	nnz := int64(0)
	for _, j := range r.First {
		if j < 0 || int(j) >= r.Dim || code[j] <= 0 {
			return
		}
		nnz += int64(code[j])
	}
	cols, start, most := Rank(code, r.First)
	r.all = &Plan{Dim: r.Dim, Code: code, Cols: cols, Hot: HotPrefix(start, most, nnz)}
}

// NewPlan returns the numbering of the columns of the rows r counted,
// whose row pointers (their matrix's Indptr) are indptr, for a fit on the
// rows listed in kept (all of them where kept is nil), which are all but
// the rows held (nil where none are): the numbering of all the rows
// (Number), less the columns that only held rows use. Its Ind is that of
// the rows kept, in their order, where r has one. It returns nil when r
// has no numbering, or not of these rows.
//
// The plan takes r's numbering and Ind over, in place, so that a fit
// allocates nothing more for them: r has neither afterwards, and a second
// NewPlan returns nil. Count is borrowed and restored.
func (r *Recorder) NewPlan(indptr []int64, kept []int, held *sparse.CSR) *Plan {
	if r == nil || r.all == nil || len(indptr) == 0 || (held != nil && held.Cols != r.Dim) {
		return nil
	}
	rows, nHeld := len(indptr)-1, 0
	if held != nil {
		nHeld = held.Rows
	}
	if (kept != nil || held != nil) && len(kept)+nHeld != rows {
		return nil
	}
	all, ind := r.all, r.Ind
	r.all, r.Ind = nil, nil
	if int64(len(ind)) != indptr[rows] {
		ind = nil
	}
	p := *all
	if ind != nil && (kept != nil || held != nil) {
		ind = keepRows(indptr, ind, kept)
	}
	p.Ind = ind
	if held != nil && !r.dropHeldOnly(held, p.Code) {
		return nil // not the counts of these rows; the learner counts itself
	}
	return &p
}

// dropHeldOnly sets code[j] to 0 for the columns j that no rows counted
// use but those of held: those whose uses in held are all their Count. It
// takes each of held's uses off Count for the while, and restores Count
// before it returns. It reports false, with code partly changed, where
// held's uses of a column exceed its Count.
func (r *Recorder) dropHeldOnly(held *sparse.CSR, code []int32) bool {
	count := r.Count
	uses := held.Ind[:held.NNZ()]
	taken := len(uses)
	for k, j := range uses {
		if j < 0 || int(j) >= r.Dim || count[j] <= 0 {
			taken = k
			break
		}
		if count[j]--; count[j] == 0 {
			code[j] = 0
		}
	}
	// The uses taken off go back.
	for _, j := range uses[:taken] {
		count[j]++
	}
	return taken == len(uses)
}

// keepRows moves the values of ind, laid out by the row pointers indptr,
// of the rows listed to its front, in their order, and returns them: as
// SelectRows would give them. It moves them in place where the rows
// increase, and otherwise into a new array. It returns nil where a row is
// not one of indptr's.
func keepRows(indptr []int64, ind []int32, rows []int) []int32 {
	n, increasing := int64(0), true
	for k, i := range rows {
		if i < 0 || i >= len(indptr)-1 {
			return nil
		}
		increasing = increasing && (k == 0 || i > rows[k-1])
		n += indptr[i+1] - indptr[i]
	}
	// In increasing order no row's values move past those of a row still
	// to come.
	out := ind[:0]
	if !increasing {
		out = make([]int32, 0, n)
	}
	for _, i := range rows {
		out = append(out, ind[indptr[i]:indptr[i+1]]...)
	}
	return out
}

type recorderKey struct{}

// WithRecorder returns a context that asks a featurizer fitted with it to
// record its counts in the returned Recorder.
func WithRecorder(ctx context.Context) (context.Context, *Recorder) {
	r := new(Recorder)
	return context.WithValue(ctx, recorderKey{}, r), r
}

// RecorderFrom returns the Recorder ctx asks for, or nil.
func RecorderFrom(ctx context.Context) *Recorder {
	r, _ := ctx.Value(recorderKey{}).(*Recorder)
	return r
}

type planKey struct{}

type planFor struct {
	x any
	p *Plan
}

// WithPlan returns a context that gives a fit of the rows x (the very
// matrix, by identity) the numbering p.
func WithPlan(ctx context.Context, x any, p *Plan) context.Context {
	if p == nil {
		return ctx
	}
	return context.WithValue(ctx, planKey{}, planFor{x, p})
}

// PlanFor returns the numbering ctx gives a fit of the rows x, or nil.
func PlanFor(ctx context.Context, x any) *Plan {
	if ctx == nil {
		return nil
	}
	pf, ok := ctx.Value(planKey{}).(planFor)
	if !ok || pf.x != x {
		return nil
	}
	return pf.p
}
