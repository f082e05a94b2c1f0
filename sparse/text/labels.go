package text

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
)

// labelSet maps label strings to the float64 class values of a Dataset.
// If every training label is a number written as Go writes its float64
// ("1", "-1", "0.5", "1e+21": canonical, see parseCanonical), a label is
// its number. Otherwise the distinct names, sorted, are the classes: two
// map to −1 and +1, more to 0, 1, …, K−1. Labels are strings: two labels
// that differ as strings are two classes, so "1", "1.0" and "01", or
// 9007199254740993 and 9007199254740992 (one float64), make names, and a
// prediction prints exactly a training label.
type labelSet struct {
	numeric bool
	names   []string           // classes in order (numeric: formatted values)
	values  []float64          // the class value of each name
	index   map[string]float64 // names mode: name → value
}

// parseNumber reads a numeric label: a finite number in any form
// strconv.ParseFloat accepts.
func parseNumber(s string) (float64, bool) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	// −0 is 0: otherwise which of "0" and "-0" named the class would
	// depend on map order.
	return v + 0, true
}

func formatNumber(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// parseCanonical reads a numeric label that is its number's canonical
// form: parseNumber's number, which formatNumber writes back as s. So the
// label and the class value stand for each other, and two labels are one
// class only if they are one string.
func parseCanonical(s string) (float64, bool) {
	v, ok := parseNumber(s)
	if !ok || formatNumber(v) != s {
		return 0, false
	}
	return v, true
}

// fitLabels builds the label set of the distinct training labels.
func fitLabels(distinct map[string]struct{}) labelSet {
	numeric := true
	for s := range distinct {
		if _, ok := parseCanonical(s); !ok {
			numeric = false
			break
		}
	}
	if numeric {
		var vals []float64
		for s := range distinct {
			v, _ := parseCanonical(s)
			vals = append(vals, v)
		}
		slices.Sort(vals)
		vals = slices.Compact(vals)
		names := make([]string, len(vals))
		for i, v := range vals {
			names[i] = formatNumber(v)
		}
		return labelSet{numeric: true, names: names, values: vals}
	}
	names := make([]string, 0, len(distinct))
	for s := range distinct {
		names = append(names, s)
	}
	sort.Strings(names)
	return newNamedLabels(names)
}

// newNamedLabels returns the label set of sorted, distinct names.
func newNamedLabels(names []string) labelSet {
	l := labelSet{names: names, values: make([]float64, len(names)), index: make(map[string]float64, len(names))}
	for i, s := range names {
		v := float64(i)
		if len(names) == 2 {
			v = float64(2*i - 1)
		}
		l.values[i] = v
		l.index[s] = v
	}
	return l
}

// value returns the class value of a label, or a message saying why the
// label has none.
func (l *labelSet) value(s string) (float64, string) {
	if s == "" {
		return 0, "empty label"
	}
	if l.numeric {
		if v, ok := parseCanonical(s); ok {
			return v, ""
		}
		if v, ok := parseNumber(s); ok {
			return 0, fmt.Sprintf("label %q is not written as the training labels' numbers are (%s would be): labels are compared as strings", s, formatNumber(v))
		}
		return 0, fmt.Sprintf("label %q is not a finite number, as the training labels were", s)
	}
	if v, ok := l.index[s]; ok {
		return v, ""
	}
	return 0, fmt.Sprintf("unknown label %q (not among the %d training labels)", s, len(l.names))
}

// name returns the label name of a class value.
func (l *labelSet) name(v float64) string {
	if !l.numeric {
		if i, ok := slices.BinarySearch(l.values, v); ok {
			return l.names[i]
		}
	}
	return formatNumber(v)
}
