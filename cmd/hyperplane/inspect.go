package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/engine/textmodel"
)

func newInspectCmd() *Command {
	o := new(inspectOptions)
	c := &Command{
		UsageLine: "inspect MODEL",
		Short:     "show a model's settings and the features (a text model's terms) that weigh most for each label",
		Long: `Inspect reads a text model (train on raw text -o) and prints how it was
made (featurizer, learner, calibration) and, for every label, the -n terms
of largest weight toward it and against it, by their n-gram text. Hashed
features are named by the terms that landed in them in the training text
(kept for the heaviest features when the model was trained, as Vowpal
Wabbit's --invert_hash does); a term's weight is its feature's times its
hash sign. A binary model shows its second label only: what weighs toward
it weighs against the first. A feature without kept names shows as
#INDEX.

Of a model of numbered features (train on LIBSVM data -o) it prints the
settings, labels and number of features, and, for a linear model, the -n
features of largest weight toward and against each label by their LIBSVM
index (the file's, counted from 1); for a kernel model, the kernel and the
number of support vectors.

Of a multi-label model (.hptl from text, .hpml from LIBSVM) it prints,
for every label, its decision threshold and the -n features of largest
weight toward and against it.`,
		Run: o.run,
	}
	c.Flag.IntVar(&o.n, "n", 10, "terms to show toward and against each label")
	c.Flag.BoolVar(&o.json, "json", false, "print the result as JSON")
	return c
}

// inspectOptions holds inspect's flags.
type inspectOptions struct {
	n    int // terms or features shown toward and against each label
	json bool
}

// run describes the model args names, of whichever kind it is.
func (o *inspectOptions) run(ctx context.Context, env *Env, args []string) error {
	stdout := env.Stdout
	if len(args) != 1 {
		return usageError("inspect takes one MODEL")
	}
	if o.n < 1 {
		return usageError("-n %d: show at least 1 term", o.n)
	}
	path := args[0]
	switch {
	case textmodel.IsMultiLabelFile(path):
		m, err := textmodel.LoadMultiLabel(path)
		if err != nil {
			return err
		}
		return inspectMultiLabel(stdout, path, m.Model(), m, o.n, o.json)
	case isNumberedMultiLabel(path):
		m, err := engine.LoadMultiLabel(path)
		if err != nil {
			return err
		}
		return inspectMultiLabel(stdout, path, m, nil, o.n, o.json)
	case !isTextModel(path):
		c, err := engine.LoadClassifier(path)
		if err != nil {
			return err
		}
		return inspectClassifier(stdout, path, c, o.n, o.json)
	}
	m, err := textmodel.Load(path)
	if err != nil {
		return err
	}
	return inspect(stdout, path, m, o.n, o.json)
}

type inspectLabel struct {
	Label   string               `json:"label"`
	Toward  []textmodel.Weighted `json:"toward"`
	Against []textmodel.Weighted `json:"against"`
}

func inspect(stdout io.Writer, path string, m *textmodel.Model, n int, asJSON bool) error {
	res := struct {
		Model       string         `json:"model"`
		Featurizer  string         `json:"featurizer"`
		Learner     string         `json:"learner"`
		Features    int            `json:"features"`
		Labels      []string       `json:"labels"`
		Calibration string         `json:"calibration"`
		Weights     []inspectLabel `json:"weights"`
	}{Model: path, Featurizer: featurizerLine(m.Featurizer()), Features: m.Featurizer().Dim(), Labels: m.Labels(), Calibration: "none"}
	if c, ok := m.Calibration(); ok {
		res.Calibration = c.String()
	}
	lm, linear := m.Classifier().(*engine.Model)
	if linear {
		res.Learner = learnerName(lm.Algorithm.String(), lm.Rule.String())
	} else if km, ok := m.Classifier().(*engine.KernelModel); ok {
		res.Learner = learnerName(km.Algorithm.String(), km.Rule.String()) + ", kernel " + km.Kernel.String() + ", " + commas(int64(km.NumSV())) + " support vectors"
	}
	first := 0
	if len(res.Labels) == 2 {
		first = 1
	}
	for i := first; i < len(res.Labels) && linear && lm.Votes == nil; i++ {
		toward, against, err := m.Top(i, n)
		if err != nil {
			return err
		}
		res.Weights = append(res.Weights, inspectLabel{res.Labels[i], toward, against})
	}
	if asJSON {
		return printJSON(stdout, res)
	}
	fmt.Fprintf(stdout, "model:       %s: %s, %d labels, %s features\n", path, res.Learner, len(res.Labels), commas(int64(res.Features)))
	fmt.Fprintf(stdout, "featurizer:  %s\n", res.Featurizer)
	fmt.Fprintf(stdout, "calibration: %s\n", res.Calibration)
	terms := func(ws []textmodel.Weighted) string { return weightList(ws, featureNumber) }
	for _, l := range res.Weights {
		fmt.Fprintf(stdout, "\n%s\n  toward:  %s\n  against: %s\n", appendLabel(nil, l.Label), terms(l.Toward), terms(l.Against))
	}
	return nil
}

// inspectFeature is a numbered feature and its weight toward a label.
type inspectFeature struct {
	Index  int     `json:"index"` // as in the LIBSVM file, from 1
	Weight float32 `json:"weight"`
}

type inspectClass struct {
	Label   string           `json:"label"`
	Toward  []inspectFeature `json:"toward"`
	Against []inspectFeature `json:"against"`
}

// inspectClassifier describes a model of numbered features: a linear
// model's heaviest features for each label, a kernel model's kernel.
func inspectClassifier(stdout io.Writer, path string, c engine.Classifier, n int, asJSON bool) error {
	res := struct {
		Model          string         `json:"model"`
		Learner        string         `json:"learner"`
		Kernel         string         `json:"kernel,omitempty"`
		SupportVectors int            `json:"support_vectors,omitempty"`
		Bias           string         `json:"bias"`
		Normalize      bool           `json:"normalize"`
		Scale          string         `json:"scale,omitempty"` // the feature scaling the model was trained with
		Features       int            `json:"features"`
		Labels         []string       `json:"labels"`
		Weights        []inspectClass `json:"weights,omitempty"`
	}{Model: path, Features: c.NumFeatures()}
	var classes []float64
	switch m := c.(type) {
	case *engine.Model:
		res.Learner, res.Bias, res.Normalize, classes = learnerName(m.Algorithm.String(), m.Rule.String()), m.Bias.String(), m.Normalize, m.Classes
		if m.Scaling != nil {
			res.Scale = m.Scaling.Kind.String()
		}
	case *engine.KernelModel:
		res.Learner, res.Bias, classes = learnerName(m.Algorithm.String(), m.Rule.String()), m.Bias.String(), m.Classes
		res.Kernel, res.SupportVectors = m.Kernel.String(), m.NumSV()
	default:
		return fmt.Errorf("%s: a model of an unknown kind %T", path, c)
	}
	for _, v := range classes {
		res.Labels = append(res.Labels, strconv.FormatFloat(v, 'g', -1, 64))
	}
	if m, ok := c.(*engine.Model); ok {
		for k := range m.NumRows() {
			l := k
			if m.Binary() {
				l = 1 // the one score is toward the second label
			}
			toward, against := heaviest(m, k, n)
			res.Weights = append(res.Weights, inspectClass{res.Labels[l], toward, against})
		}
	}
	if asJSON {
		return printJSON(stdout, res)
	}
	fmt.Fprintf(stdout, "model:     %s: %s, %d labels (%s), %s features\n", path, res.Learner, len(res.Labels), strings.Join(res.Labels, " "), commas(int64(res.Features)))
	fmt.Fprintf(stdout, "settings:  bias %s, rows normalized %v", res.Bias, res.Normalize)
	if res.Scale != "" {
		// The weights below are of the raw features: the scaling is folded in.
		fmt.Fprintf(stdout, ", features scaled (%s; folded into the weights)", res.Scale)
	}
	fmt.Fprintln(stdout)
	if res.Kernel != "" {
		fmt.Fprintf(stdout, "kernel:    %s, %s support vectors\n", res.Kernel, commas(int64(res.SupportVectors)))
		return nil
	}
	list := func(fs []inspectFeature) string {
		var b strings.Builder
		for k, f := range fs {
			if k > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%d %+.3g", f.Index, f.Weight)
		}
		return b.String()
	}
	fmt.Fprintf(stdout, "features by their LIBSVM index:\n")
	for _, l := range res.Weights {
		fmt.Fprintf(stdout, "\n%s\n  toward:  %s\n  against: %s\n", l.Label, list(l.Toward), list(l.Against))
	}
	return nil
}

// heaviest returns the n features of largest positive and of largest
// negative weight in m's row k, heaviest first (ties by index).
func heaviest(m *engine.Model, k, n int) (toward, against []inspectFeature) {
	var all []inspectFeature
	K := m.NumRows()
	for p := range len(m.W) / K {
		j := p
		if m.Cols != nil {
			j = int(m.Cols[p])
		}
		if w := m.W[p*K+k]; w != 0 {
			all = append(all, inspectFeature{Index: j + 1, Weight: w})
		}
	}
	slices.SortStableFunc(all, func(a, b inspectFeature) int {
		return cmp.Compare(math.Abs(float64(b.Weight)), math.Abs(float64(a.Weight)))
	})
	for _, f := range all {
		if f.Weight > 0 && len(toward) < n {
			toward = append(toward, f)
		} else if f.Weight < 0 && len(against) < n {
			against = append(against, f)
		}
	}
	return toward, against
}
