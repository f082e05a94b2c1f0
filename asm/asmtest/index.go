package asmtest

import "math/rand/v2"

// DistinctInts returns nnz distinct values of [0, dim) in random order.
// Up to dim 1<<16 it takes the first nnz of a full permutation; above,
// where a permutation of the whole weight vector would cost far more than
// the kernels under test, it draws the set by Floyd's method (nnz draws,
// every set equally likely) and shuffles it.
func DistinctInts(r *rand.Rand, nnz, dim int) []int {
	if dim <= 1<<16 {
		return r.Perm(dim)[:nnz]
	}
	seen := make(map[int]bool, nnz)
	p := make([]int, 0, nnz)
	for j := dim - nnz; j < dim; j++ {
		v := r.IntN(j + 1)
		if seen[v] {
			v = j
		}
		seen[v] = true
		p = append(p, v)
	}
	r.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
	return p
}

// IndexPattern is a named generator of nnz indices into a weight vector
// of length dim.
type IndexPattern struct {
	Name string
	Gen  func(r *rand.Rand, nnz, dim int) []int32
}

// IndexPatterns are the index generators the sparse kernels are tested
// on; the last two repeat indices.
var IndexPatterns = []IndexPattern{
	{"sorted", func(r *rand.Rand, nnz, dim int) []int32 {
		p := DistinctInts(r, nnz, dim)
		ind := make([]int32, nnz)
		for i, v := range p {
			ind[i] = int32(v)
		}
		SortInt32(ind)
		return ind
	}},
	{"shuffled", func(r *rand.Rand, nnz, dim int) []int32 {
		p := DistinctInts(r, nnz, dim)
		ind := make([]int32, nnz)
		for i, v := range p {
			ind[i] = int32(v)
		}
		return ind
	}},
	{"descending-from-last", func(r *rand.Rand, nnz, dim int) []int32 {
		ind := make([]int32, nnz)
		for i := range ind {
			ind[i] = int32(dim - 1 - i)
		}
		return ind
	}},
	{"contiguous-from-zero", func(r *rand.Rand, nnz, dim int) []int32 {
		ind := make([]int32, nnz)
		for i := range ind {
			ind[i] = int32(i)
		}
		return ind
	}},
	{"all-same-last", func(r *rand.Rand, nnz, dim int) []int32 {
		ind := make([]int32, nnz)
		for i := range ind {
			ind[i] = int32(dim - 1)
		}
		return ind
	}},
	{"repeats", func(r *rand.Rand, nnz, dim int) []int32 {
		ind := make([]int32, nnz)
		for i := range ind {
			ind[i] = int32(r.IntN(3))
		}
		return ind
	}},
}

// SortInt32 sorts a in place (an insertion sort: rows are short).
func SortInt32(a []int32) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}
