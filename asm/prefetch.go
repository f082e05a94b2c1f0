package asm

// PrefetchRow asks the CPU to bring the cache lines of a sparse row's
// indices and values into cache, without waiting for them. Learners that
// visit rows in shuffled order call it for a row a few steps ahead: a
// shuffled pass over a matrix larger than the caches otherwise waits on
// memory at the start of every row (on imdb.train, 3.5 million nonzeros,
// it turns an 11 ms pass into a 3 ms one). It reads nothing, cannot fault,
// and does nothing where there is no assembly.
func PrefetchRow(ind []int32, val []float32) { prefetchRow(ind, val) }
