package asm

// The portable reference kernels. Every SIMD kernel is tested against these
// over many lengths, offsets and index patterns. Those of float32 and of
// float64 that do the same arithmetic are one generic function, compiled
// for each type apart.

// dotGeneric computes
//
//	for i := range x { s += x[i] * y[i] }
func dotGeneric[T float32 | float64](x, y []T) T {
	var s0, s1, s2, s3 T
	n := len(x)
	y = y[:n]
	i := 0
	for ; i+4 <= n; i += 4 {
		s0 += x[i] * y[i]
		s1 += x[i+1] * y[i+1]
		s2 += x[i+2] * y[i+2]
		s3 += x[i+3] * y[i+3]
	}
	for ; i < n; i++ {
		s0 += x[i] * y[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// axpyGeneric computes
//
//	for i := range x { y[i] += a * x[i] }
func axpyGeneric[T float32 | float64](a T, x, y []T) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += a * v
	}
}

// scaleGeneric computes
//
//	for i := range x { x[i] *= a }
func scaleGeneric[T float32 | float64](a T, x []T) {
	for i := range x {
		x[i] *= a
	}
}

// sumSqGeneric computes
//
//	for i := range x { s += x[i] * x[i] }
func sumSqGeneric[T float32 | float64](x []T) T {
	var s0, s1 T
	i := 0
	for ; i+2 <= len(x); i += 2 {
		s0 += x[i] * x[i]
		s1 += x[i+1] * x[i+1]
	}
	if i < len(x) {
		s0 += x[i] * x[i]
	}
	return s0 + s1
}

// dotIndGeneric computes
//
//	for k := range val { s += val[k] * w[ind[k]] }
func dotIndGeneric[T float32 | float64](val []T, ind []int32, w []T) T {
	var s0, s1 T
	ind = ind[:len(val)]
	k := 0
	for ; k+2 <= len(val); k += 2 {
		s0 += val[k] * w[ind[k]]
		s1 += val[k+1] * w[ind[k+1]]
	}
	if k < len(val) {
		s0 += val[k] * w[ind[k]]
	}
	return s0 + s1
}

// addScoresF32Generic computes, with K = len(s),
//
//	for k, j := range ind { for c := range K { s[c] += float32(val[k] * W[j*K+c]) } }
//
// The conversion keeps the product rounded before the add whatever
// GOAMD64 allows the compiler to fuse, as the AVX-512 kernel rounds it.
func addScoresF32Generic(W []float32, ind []int32, val []float32, s []float32) {
	K := len(s)
	val = val[:len(ind)]
	for k, j := range ind {
		v := val[k]
		row := W[int(j)*K : int(j)*K+K]
		row = row[:len(s)] // lets the compiler drop the bounds check on s
		for c, w := range row {
			s[c] += float32(v * w)
		}
	}
}

// axpyIndGeneric computes
//
//	for k := range val { w[ind[k]] += a * val[k] }
func axpyIndGeneric[T float32 | float64](a T, val []T, ind []int32, w []T) {
	ind = ind[:len(val)]
	for k, v := range val {
		w[ind[k]] += a * v
	}
}

// axpyAvgF32Generic computes, rounding every product before adding it,
//
//	for k := range val {
//		w[ind[k]] += a * val[k]
//		u[ind[k]] += ca * float64(val[k])
//	}
func axpyAvgF32Generic(a float32, ca float64, val []float32, ind []int32, w []float32, u []float64) {
	ind = ind[:len(val)]
	for k, v := range val {
		j := ind[k]
		w[j] += float32(a * v)
		u[j] += float64(ca * float64(v))
	}
}

// axpyAvgDenseF32Generic computes, rounding every product before adding
// it,
//
//	for i, v := range x {
//		w[i] += a * v
//		u[i] += ca * float64(v)
//	}
//
// which is axpyAvgF32Generic with ind[k] = k.
func axpyAvgDenseF32Generic(a float32, ca float64, x []float32, w []float32, u []float64) {
	w, u = w[:len(x)], u[:len(x)]
	for i, v := range x {
		w[i] += float32(a * v)
		u[i] += float64(ca * float64(v))
	}
}

// averageF32Generic computes
//
//	for i := range dst { dst[i] = float32(float64(w[i]) - u[i]/c) }
func averageF32Generic(dst, w []float32, u []float64, c float64) {
	w, u = w[:len(dst)], u[:len(dst)]
	for i := range dst {
		dst[i] = float32(float64(w[i]) - u[i]/c)
	}
}

// quotientF32Generic computes
//
//	for i := range dst { dst[i] = float32(x[i] / d) }
func quotientF32Generic(dst []float32, x []float64, d float64) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] = float32(x[i] / d)
	}
}

// increasingI32Generic reports whether
//
//	for k := 1; k < len(ind); k++ { ind[k-1] < ind[k] }
func increasingI32Generic(ind []int32) bool {
	for k := 1; k < len(ind); k++ {
		if ind[k-1] >= ind[k] {
			return false
		}
	}
	return true
}

// dotRowsGeneric computes, for every row r of a CSR block,
//
//	for k := indptr[r]; k < indptr[r+1]; k++ { out[r] += val[k] * w[ind[k]] }
func dotRowsGeneric[T float32 | float64](indptr []int64, ind []int32, val []T, w []T, out []T) {
	for r := range out {
		lo, hi := indptr[r], indptr[r+1]
		out[r] = dotIndGeneric(val[lo:hi], ind[lo:hi], w)
	}
}
