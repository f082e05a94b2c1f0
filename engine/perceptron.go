// Package engine holds hyperplane's learners. So far: the binary
// perceptron of Rosenblatt (1958), plain or averaged, trained on sparse
// rows with the SIMD kernels of package asm.
package engine

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/hyperplane-ml/hyperplane/asm"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// Sentinel errors returned by Fit.
var (
	// ErrNoData: the training set has no rows.
	ErrNoData = errors.New("engine: no training rows")
	// ErrLabels: the labels do not name exactly two classes, or there is
	// not one label per row.
	ErrLabels = errors.New("engine: labels must name two classes, one per row")
)

// Config sets up a perceptron. Its zero value is the documented default:
// 10 epochs, learning rate 1, averaged weights, rows shuffled every epoch
// with seed 0.
type Config struct {
	// Epochs is the number of passes over the data; 0 means 10. Training
	// stops early after an epoch with no mistake.
	Epochs int
	// LearningRate scales every update; 0 means 1.
	LearningRate float32
	// Plain turns off averaging: the model is the last weight vector, not
	// the average of all the vectors training went through.
	Plain bool
	// NoShuffle visits rows in file order; otherwise each epoch visits them
	// in a fresh random order drawn from Seed.
	NoShuffle bool
	// Seed seeds the shuffling; the same seed, data and tier give the same
	// model.
	Seed uint64
}

// Linear is a trained binary linear model: Decision(x) = W·x + B, the
// positive class where it is > 0.
type Linear struct {
	W []float32
	B float32
	// Pos and Neg are the labels of the positive and negative class, as
	// they appeared in the training data.
	Pos, Neg float64
}

// EpochStats reports one pass of training.
type EpochStats struct {
	Epoch    int
	Mistakes int
}

// Fit trains a perceptron on the rows of X with labels y (any two distinct
// values; the larger is the positive class). It checks ctx between epochs.
func Fit(ctx context.Context, X *sparse.CSR, y []float64, cfg Config) (*Linear, []EpochStats, error) {
	if X == nil || X.Rows == 0 {
		return nil, nil, ErrNoData
	}
	if len(y) != X.Rows {
		return nil, nil, fmt.Errorf("%w: %d labels for %d rows", ErrLabels, len(y), X.Rows)
	}
	m := &Linear{W: make([]float32, X.Cols)}
	m.Neg, m.Pos = y[0], y[0]
	for _, v := range y {
		switch {
		case v == m.Neg || v == m.Pos:
		case m.Neg == m.Pos && v < m.Neg:
			m.Neg = v
		case m.Neg == m.Pos && v > m.Pos:
			m.Pos = v
		default:
			return nil, nil, fmt.Errorf("%w: found %v besides %v and %v", ErrLabels, v, m.Neg, m.Pos)
		}
	}
	if m.Neg == m.Pos {
		return nil, nil, fmt.Errorf("%w: every row has label %v", ErrLabels, m.Pos)
	}
	epochs, eta := cfg.Epochs, cfg.LearningRate
	if epochs <= 0 {
		epochs = 10
	}
	if eta == 0 {
		eta = 1
	}
	sign := make([]float32, X.Rows)
	for i, v := range y {
		sign[i] = -1
		if v == m.Pos {
			sign[i] = 1
		}
	}
	order := make([]int, X.Rows)
	for i := range order {
		order[i] = i
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x9e3779b97f4a7c15))

	// Averaging by the lazy trick (Daumé 2006): with c the number of
	// examples seen before the current one, keep u = Σ c·Δw over all
	// updates; after T examples the average of the T weight vectors that
	// followed each example is w − u/T, so no example costs O(dim). u is
	// float64 so that it stays exact over many updates.
	var u []float64
	var ub float64
	if !cfg.Plain {
		u = make([]float64, X.Cols)
	}
	c := 0.0
	var stats []EpochStats
	for e := 1; e <= epochs; e++ {
		if err := ctx.Err(); err != nil {
			return nil, stats, err
		}
		if !cfg.NoShuffle {
			rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		}
		mistakes := 0
		for _, i := range order {
			lo, hi := X.Indptr[i], X.Indptr[i+1]
			ind, val := X.Ind[lo:hi], X.Val[lo:hi]
			s := asm.DotIndF32(val, ind, m.W) + m.B
			if sign[i]*s <= 0 {
				mistakes++
				a := eta * sign[i]
				asm.AxpyIndF32(a, val, ind, m.W)
				m.B += a
				if u != nil {
					ca := c * float64(a)
					for k, j := range ind {
						u[j] += ca * float64(val[k])
					}
					ub += ca
				}
			}
			c++
		}
		stats = append(stats, EpochStats{Epoch: e, Mistakes: mistakes})
		if mistakes == 0 {
			break
		}
	}
	if u != nil {
		for j := range m.W {
			m.W[j] -= float32(u[j] / c)
		}
		m.B -= float32(ub / c)
	}
	return m, stats, nil
}

// Decision returns W·x + B. Features beyond the model's width (unseen in
// training) count as zero.
func (m *Linear) Decision(x sparse.Vector) float32 {
	if x.Dim <= len(m.W) {
		return asm.DotIndF32(x.Val, x.Ind, m.W) + m.B
	}
	s := m.B
	for k, j := range x.Ind {
		if int(j) < len(m.W) {
			s += x.Val[k] * m.W[j]
		}
	}
	return s
}

// Predict returns the label of the class x falls in.
func (m *Linear) Predict(x sparse.Vector) float64 {
	if m.Decision(x) > 0 {
		return m.Pos
	}
	return m.Neg
}

// Accuracy returns the fraction of rows of X that m labels as y does.
func (m *Linear) Accuracy(X *sparse.CSR, y []float64) float64 {
	if X.Rows == 0 {
		return 0
	}
	right := 0
	for i := 0; i < X.Rows; i++ {
		if m.Predict(X.Row(i)) == y[i] {
			right++
		}
	}
	return float64(right) / float64(X.Rows)
}
