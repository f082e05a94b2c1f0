package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/engine/textmodel"
)

// inspectTag is one label of a multi-label model: its decision threshold
// and its heaviest features either way.
type inspectTag struct {
	Label     string               `json:"label"`
	Threshold float32              `json:"threshold"`
	Toward    []textmodel.Weighted `json:"toward"`
	Against   []textmodel.Weighted `json:"against"`
}

// topOfClass returns the n features of largest weight toward class c of
// m and the n of largest weight against it, heaviest first, named by
// name (which may give "").
func topOfClass(m *engine.MultiLabelModel, c, n int, name func(j int) string) (toward, against []textmodel.Weighted) {
	var all []textmodel.Weighted
	for j := range m.Dim() {
		if w := m.Weight(c, j); w != 0 {
			all = append(all, textmodel.Weighted{Feature: int32(j), Term: name(j), Weight: w})
		}
	}
	slices.SortFunc(all, func(a, b textmodel.Weighted) int {
		return cmp.Or(cmp.Compare(b.Weight, a.Weight), cmp.Compare(a.Feature, b.Feature))
	})
	for _, w := range all[:min(n, len(all))] {
		if w.Weight > 0 {
			toward = append(toward, w)
		}
	}
	for k := len(all) - 1; k >= 0 && len(against) < n; k-- {
		if all[k].Weight < 0 {
			against = append(against, all[k])
		}
	}
	return toward, against
}

// inspectMultiLabel describes a multi-label model, of text (f not nil,
// its labels names) or of numbered features: its featurizer, labels and,
// for every label, its threshold and heaviest features.
func inspectMultiLabel(stdout io.Writer, path string, m *engine.MultiLabelModel, tm *textmodel.MultiLabel, n int, asJSON bool) error {
	res := struct {
		Model      string       `json:"model"`
		Featurizer string       `json:"featurizer,omitempty"`
		Features   int          `json:"features"`
		Labels     int          `json:"labels"`
		Tags       []inspectTag `json:"weights"`
	}{Model: path, Features: m.Dim(), Labels: m.Classes()}
	names := func(c int) string { return strconv.Itoa(c) }
	term := func(int) string { return "" }
	if tm != nil {
		f := tm.Featurizer()
		res.Featurizer = featurizerLine(f)
		labels := tm.Labels()
		names = func(c int) string { return labels[c] }
		if f.Config().Vocabulary {
			term = func(j int) string { s, _ := f.Term(j); return s }
		}
	}
	th := m.Thresholds()
	for c := range m.Classes() {
		toward, against := topOfClass(m, c, n, term)
		res.Tags = append(res.Tags, inspectTag{names(c), th[c], toward, against})
	}
	if asJSON {
		return printJSON(stdout, res)
	}
	fmt.Fprintf(stdout, "model:       %s: multi-label, one-vs-rest, %d labels, %s features\n", path, res.Labels, commas(int64(res.Features)))
	if res.Featurizer != "" {
		fmt.Fprintf(stdout, "featurizer:  %s\n", res.Featurizer)
	}
	unnamed := featureNumber
	if tm == nil {
		unnamed = libsvmIndex
	}
	list := func(ws []textmodel.Weighted) string { return weightList(ws, unnamed) }
	for _, t := range res.Tags {
		fmt.Fprintf(stdout, "\n%s (threshold %+.3g)\n  toward:  %s\n  against: %s\n", appendLabel(nil, t.Label), t.Threshold, list(t.Toward), list(t.Against))
	}
	return nil
}

// weightList writes weighted features as inspect lists them, separated by
// commas: each one's term quoted, or for a feature without a term what
// unnamed writes, then its weight.
func weightList(ws []textmodel.Weighted, unnamed func(feature int32) string) string {
	var b strings.Builder
	for k, w := range ws {
		if k > 0 {
			b.WriteString(", ")
		}
		if w.Term != "" {
			b.WriteString(strconv.Quote(w.Term))
		} else {
			b.WriteString(unnamed(w.Feature))
		}
		fmt.Fprintf(&b, " %+.3g", w.Weight)
	}
	return b.String()
}

// featureNumber names a text model's feature without a term: #INDEX.
func featureNumber(j int32) string { return "#" + strconv.Itoa(int(j)) }

// libsvmIndex names a numbered feature by its index in a LIBSVM file,
// counted from 1.
func libsvmIndex(j int32) string { return strconv.Itoa(int(j) + 1) }
