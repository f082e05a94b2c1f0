package engine

import (
	"fmt"
	"math"
	"slices"
)

// classesOf returns the distinct labels of y in ascending order.
func classesOf(y []float64, maxClasses int) ([]float64, error) {
	// Up to scanClasses classes a scan of those found beats hashing: with
	// a handful of classes, a map lookup per label costs more than
	// comparing the label with every class seen so far.
	const scanClasses = 16
	var seen map[float64]struct{}
	var classes []float64
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: label %v of row %d is not finite", ErrLabels, v, i)
		}
		if v == 0 {
			v = 0 // one class for +0 and −0
		}
		if seen == nil {
			if slices.Contains(classes, v) {
				continue
			}
		} else if _, ok := seen[v]; ok {
			continue
		}
		if len(classes) == maxClasses {
			return nil, fmt.Errorf("%w: more than %d distinct labels (raise Config.MaxClasses if that is meant)", ErrLabels, maxClasses)
		}
		classes = append(classes, v)
		switch {
		case seen != nil:
			seen[v] = struct{}{}
		case len(classes) > scanClasses:
			seen = make(map[float64]struct{}, 2*len(classes))
			for _, c := range classes {
				seen[c] = struct{}{}
			}
		}
	}
	if len(classes) < 2 {
		return nil, fmt.Errorf("%w: one class only (%v); a classifier needs two", ErrLabels, classes)
	}
	slices.Sort(classes)
	return classes, nil
}

// classIndex returns the index of label v in the ascending classes, or −1.
func classIndex(classes []float64, v float64) int {
	i, ok := slices.BinarySearch(classes, v)
	if !ok {
		return -1
	}
	return i
}

// checkClasses validates classes given to NewLearner and returns them
// sorted.
func checkClasses(classes []float64, maxClasses int) ([]float64, error) {
	c := slices.Clone(classes)
	for i, v := range c {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: class %v is not finite", ErrLabels, v)
		}
		c[i] = v + 0 // −0 is class 0, as in Fit
	}
	slices.Sort(c)
	for i := 1; i < len(c); i++ {
		if c[i] == c[i-1] {
			return nil, fmt.Errorf("%w: class %v given twice", ErrLabels, c[i])
		}
	}
	if len(c) < 2 || len(c) > maxClasses {
		return nil, fmt.Errorf("%w: %d classes; need 2 to %d", ErrLabels, len(c), maxClasses)
	}
	return c, nil
}

// checkClassWeights refuses a class weight keyed by a label that is none
// of the classes (such as 0 for text labels read as −1 and +1).
func checkClassWeights(cw map[float64]float64, classes []float64) error {
	for k := range cw {
		if classIndex(classes, k+0) < 0 {
			return fmt.Errorf("%w: ClassWeight has label %v, which is none of the classes %v", ErrConfig, k, classes)
		}
	}
	return nil
}
