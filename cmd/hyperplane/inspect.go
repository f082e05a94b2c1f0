package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/engine/textmodel"
)

func newInspectCmd() *Command {
	c := &Command{
		UsageLine: "inspect MODEL",
		Short:     "show a text model's settings and the terms that weigh most for each label",
		Long: `Inspect reads a text model (train on raw text -o) and prints how it was
made (featurizer, learner, calibration) and, for every label, the -n terms
of largest weight toward it and against it, by their n-gram text. Hashed
features are named by the terms that landed in them in the training text
(kept for the heaviest features when the model was trained, as Vowpal
Wabbit's --invert_hash does); a term's weight is its feature's times its
hash sign. A binary model shows its second label only: what weighs toward
it weighs against the first. A feature without kept names shows as
#INDEX.`,
	}
	fs := &c.Flag
	n := fs.Int("n", 10, "terms to show toward and against each label")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	c.Run = func(ctx context.Context, env *Env, args []string) error {
		stdout := env.Stdout
		if len(args) != 1 {
			return usageError("inspect takes one MODEL")
		}
		if *n < 1 {
			return usageError("-n %d: show at least 1 term", *n)
		}
		if !isTextModel(args[0]) {
			if _, err := engine.LoadClassifier(args[0]); err != nil {
				return err
			}
			return usageError("%s is a model of numbered features: inspect reads text models, whose features have names (train on raw text)", args[0])
		}
		m, err := textmodel.Load(args[0])
		if err != nil {
			return err
		}
		return inspect(stdout, args[0], m, *n, *asJSON)
	}
	return c
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
	if lm, ok := m.Classifier().(*engine.Model); ok {
		res.Learner = learnerName(lm.Algorithm.String(), lm.Rule.String())
	} else {
		res.Learner = "kernel perceptron"
	}
	first := 0
	if len(res.Labels) == 2 {
		first = 1
	}
	for i := first; i < len(res.Labels); i++ {
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
	terms := func(ws []textmodel.Weighted) string {
		var b strings.Builder
		for k, w := range ws {
			if k > 0 {
				b.WriteString(", ")
			}
			if w.Term == "" {
				b.WriteString("#" + strconv.Itoa(int(w.Feature)))
			} else {
				b.WriteString(strconv.Quote(w.Term))
			}
			fmt.Fprintf(&b, " %+.3g", w.Weight)
		}
		return b.String()
	}
	for _, l := range res.Weights {
		fmt.Fprintf(stdout, "\n%s\n  toward:  %s\n  against: %s\n", l.Label, terms(l.Toward), terms(l.Against))
	}
	return nil
}
