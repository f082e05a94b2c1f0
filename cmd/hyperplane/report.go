package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

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

// writeReport writes c as metrics.Confusion.WriteReport does (per-class
// precision, recall, F1 and support, the averages, the confusion matrix),
// each label written as its name in names (c's order) when names is not
// nil.
func writeReport(w io.Writer, c *metrics.Confusion, names []string) error {
	if names == nil {
		return c.WriteReport(w)
	}
	var b strings.Builder
	nameW := len("weighted avg")
	for _, n := range names {
		nameW = max(nameW, len(n))
	}
	const row = "%*s  %9.4f  %9.4f  %9.4f  %9d\n"
	fmt.Fprintf(&b, "%*s  %9s  %9s  %9s  %9s\n\n", nameW, "", "precision", "recall", "f1-score", "support")
	for i, s := range c.PerClass() {
		fmt.Fprintf(&b, row, nameW, names[i], s.Precision, s.Recall, s.F1, s.Support)
	}
	fmt.Fprintf(&b, "\n%*s  %9s  %9s  %9.4f  %9d\n", nameW, "accuracy", "", "", c.Accuracy(), c.Total())
	m := c.Macro()
	fmt.Fprintf(&b, row, nameW, "macro avg", m.Precision, m.Recall, m.F1, m.Support)
	m = c.Weighted()
	fmt.Fprintf(&b, row, nameW, "weighted avg", m.Precision, m.Recall, m.F1, m.Support)
	b.WriteString("\nconfusion matrix (rows: true label, columns: predicted label)\n")
	sideW, cellW := 0, 1
	for i, n := range names {
		sideW, cellW = max(sideW, len(n)), max(cellW, len(n))
		for _, v := range c.Counts[i] {
			cellW = max(cellW, len(strconv.FormatInt(v, 10)))
		}
	}
	fmt.Fprintf(&b, "%*s", sideW, "")
	for _, n := range names {
		fmt.Fprintf(&b, "  %*s", cellW, n)
	}
	b.WriteByte('\n')
	for i, n := range names {
		fmt.Fprintf(&b, "%*s", sideW, n)
		for _, v := range c.Counts[i] {
			fmt.Fprintf(&b, "  %*d", cellW, v)
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}
