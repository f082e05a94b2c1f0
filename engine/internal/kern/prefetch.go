package kern

// PrefetchRow asks the CPU to bring the cache lines of a sparse row's
// indices and values into cache, without waiting for them. Learners that
// visit rows in shuffled order call it for a row a few steps ahead: a
// shuffled pass over a matrix larger than the caches otherwise waits on
// memory at the start of every row, which on a matrix the size of
// imdb.train is most of the pass. It reads nothing, cannot fault,
// and does nothing where there is no assembly.
func PrefetchRow(ind []int32, val []float32) { prefetchRow(ind, val) }

// PrefetchGather asks the CPU to bring into cache the weights
// w[j·stride : (j+1)·stride] for every index j of a sparse row, without
// waiting for them: a learner whose weights are larger than the caches
// (hashed text features, or one weight row per class) calls it for a row
// a step or two ahead, whose indices are already in cache. A block of up
// to 4 weights gets one hint, for its first (it lies in one cache line
// when w is 16-byte aligned, as Go's large allocations are); a longer one,
// such as a multiclass learner's K weights of a feature, gets one for
// every line it spans (20 classes always span two, and prefetching only
// the first left hashed 20 Newsgroups waiting on the second line of
// nearly every feature). It reads only ind, cannot fault whatever the
// indices or stride (a prefetch of an address outside the process is
// dropped by the CPU, never a fault), and does nothing where there is no
// assembly. A block longer than prefetchMaxBlock weights gets a hint for
// its first line only, so that no stride makes the call long.
func PrefetchGather(ind []int32, w []float32, stride int) {
	if stride <= 4 || stride > prefetchMaxBlock {
		prefetchGather(ind, w, stride)
	} else {
		prefetchGatherBlock(ind, w, stride)
	}
}

// prefetchMaxBlock is the longest block of weights (4096 float32, 256
// cache lines) PrefetchGather brings in line by line.
const prefetchMaxBlock = 1 << 12
