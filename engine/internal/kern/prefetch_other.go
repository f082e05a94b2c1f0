//go:build !amd64 || noasm

package kern

// prefetchRow is a hint; without assembly there is nothing to give it.
//
//	for each 64-byte line of ind and val: prefetch it
func prefetchRow(ind []int32, val []float32) {}

// prefetchLines is a hint too.
func prefetchLines(p []uint32) {}

// prefetchGather is a hint too.
//
//	for each j in ind: prefetch the line of w[j·stride]
func prefetchGather(ind []int32, w []float32, stride int) {}

// prefetchGatherBlock is a hint too.
//
//	for each j in ind: prefetch every line of w[j·stride : (j+1)·stride]
func prefetchGatherBlock(ind []int32, w []float32, stride int) {}
