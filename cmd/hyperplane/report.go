package main

import (
	"github.com/hyperplane-ml/hyperplane/engine/metrics"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

// labelNames returns the names of c's labels, in c's order, as the text
// featurizer f knows them (the names in its training text: "pos",
// "sports"), or nil without one: the labels are then their numbers.
func labelNames(c *metrics.Confusion, f *text.Featurizer) []string {
	if f == nil {
		return nil
	}
	names := make([]string, len(c.Labels))
	for i, v := range c.Labels {
		names[i] = f.Name(v)
	}
	return names
}

// printableLabels returns names with each as appendLabel writes it, for
// the reports of eval and train (nil for nil: the labels are then their
// numbers).
func printableLabels(names []string) []string {
	if names == nil {
		return nil
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = string(appendLabel(nil, n))
	}
	return out
}
