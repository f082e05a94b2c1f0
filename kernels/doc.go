// Package kernels will hold the kernel functions of the kernel perceptron
// (linear, polynomial, RBF, sigmoid and user-defined, on dense and sparse
// rows) and the cached Gram matrix, built on the kernels of package asm.
// It is empty until that work lands; see the project's issues.
package kernels
