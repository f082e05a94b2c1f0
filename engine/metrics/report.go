package metrics

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// formatLabel writes a label in its shortest form, so 1 prints as "1" and
// -1 as "-1".
func formatLabel(l float64) string {
	return strconv.FormatFloat(l, 'g', -1, 64)
}

// WriteReport writes a plain-text report of c to w, laid out like
// scikit-learn's classification_report: a row per class with its
// precision, recall, F1 and support; then the accuracy and the macro and
// weighted averages; then the confusion matrix, with the true labels down
// the side and the predicted labels across the top. Ratios have four
// decimals. The report is built in memory and written with one call; the
// error is w's.
func (c *Confusion) WriteReport(w io.Writer) error { return c.WriteNamedReport(w, nil) }

// WriteNamedReport is WriteReport with each label written as its name in
// names, which holds one for each of c.Labels, in their order (for labels
// that stand for classes with names, as a text featurizer's do). With nil
// names it is WriteReport. Names of another length than c.Labels are
// refused with ErrLength, and nothing is written.
func (c *Confusion) WriteNamedReport(w io.Writer, names []string) error {
	if names != nil && len(names) != len(c.Labels) {
		return fmt.Errorf("%w: %d names for %d labels", ErrLength, len(names), len(c.Labels))
	}
	var b strings.Builder
	if names == nil {
		names = make([]string, len(c.Labels))
		for i, l := range c.Labels {
			names[i] = formatLabel(l)
		}
	}
	nameW := len("weighted avg")
	for _, n := range names {
		nameW = max(nameW, len(n))
	}

	const (
		head = "%*s  %9s  %9s  %9s  %9s\n"
		row  = "%*s  %9.4f  %9.4f  %9.4f  %9d\n"
	)
	fmt.Fprintf(&b, head, nameW, "", "precision", "recall", "f1-score", "support")
	b.WriteByte('\n')
	for i, s := range c.PerClass() {
		fmt.Fprintf(&b, row, nameW, names[i], s.Precision, s.Recall, s.F1, s.Support)
	}
	b.WriteByte('\n')
	fmt.Fprintf(&b, "%*s  %9s  %9s  %9.4f  %9d\n", nameW, "accuracy", "", "", c.Accuracy(), c.Total())
	m := c.Macro()
	fmt.Fprintf(&b, row, nameW, "macro avg", m.Precision, m.Recall, m.F1, m.Support)
	m = c.Weighted()
	fmt.Fprintf(&b, row, nameW, "weighted avg", m.Precision, m.Recall, m.F1, m.Support)

	// The matrix: one column width for the counts and the labels above
	// them, another for the labels down the side.
	b.WriteString("\nconfusion matrix (rows: true label, columns: predicted label)\n")
	sideW, cellW := 0, 1
	for i, name := range names {
		sideW = max(sideW, len(name))
		cellW = max(cellW, len(name))
		for _, v := range c.Counts[i] {
			cellW = max(cellW, len(strconv.FormatInt(v, 10)))
		}
	}
	fmt.Fprintf(&b, "%*s", sideW, "")
	for _, name := range names {
		fmt.Fprintf(&b, "  %*s", cellW, name)
	}
	b.WriteByte('\n')
	for i, name := range names {
		fmt.Fprintf(&b, "%*s", sideW, name)
		for _, v := range c.Counts[i] {
			fmt.Fprintf(&b, "  %*d", cellW, v)
		}
		b.WriteByte('\n')
	}

	_, err := io.WriteString(w, b.String())
	return err
}

// classJSON is the JSON form of one class's ClassStats.
type classJSON struct {
	Label     float64 `json:"label"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
	Support   int64   `json:"support"`
	Predicted int64   `json:"predicted"`
}

// avgJSON is the JSON form of an averaged ClassStats, which has no label.
type avgJSON struct {
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
	Support   int64   `json:"support"`
	Predicted int64   `json:"predicted"`
}

// confusionJSON is the JSON form of a Confusion.
type confusionJSON struct {
	Labels   []float64   `json:"labels"`
	Counts   [][]int64   `json:"counts"`
	Accuracy float64     `json:"accuracy"`
	PerClass []classJSON `json:"per_class"`
	Macro    avgJSON     `json:"macro"`
	Weighted avgJSON     `json:"weighted"`
}

func toAvgJSON(s ClassStats) avgJSON {
	return avgJSON{s.Precision, s.Recall, s.F1, s.Support, s.Predicted}
}

// MarshalJSON encodes c as a JSON object holding the matrix and the
// scores computed from it:
//
//	{"labels": [...], "counts": [[...], ...], "accuracy": ...,
//	 "per_class": [{"label", "precision", "recall", "f1", "support", "predicted"}, ...],
//	 "macro": {...}, "weighted": {...}}
//
// where macro and weighted have the fields of a per_class entry except
// label. A nil c encodes as null. The result is for reading; decoding it
// does not give back a Confusion.
func (c *Confusion) MarshalJSON() ([]byte, error) {
	if c == nil {
		return []byte("null"), nil
	}
	labels, counts := c.Labels, c.Counts
	if labels == nil {
		labels = []float64{}
	}
	if counts == nil {
		counts = [][]int64{}
	}
	per := c.PerClass()
	out := confusionJSON{
		Labels:   labels,
		Counts:   counts,
		Accuracy: c.Accuracy(),
		PerClass: make([]classJSON, len(per)),
		Macro:    toAvgJSON(c.Macro()),
		Weighted: toAvgJSON(c.Weighted()),
	}
	for i, s := range per {
		out.PerClass[i] = classJSON(s)
	}
	return json.Marshal(out)
}
