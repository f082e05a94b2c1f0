package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/engine/metrics"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

var evalCmd = &command{
	name:  "eval",
	args:  "-model MODEL FILE",
	short: "evaluate a saved model (linear or kernel) on a LIBSVM file",
	long: `Eval loads a model saved by 'hyperplane train -o' (a linear or a kernel
perceptron, told apart by the file's magic), predicts every row of a
LIBSVM file and prints accuracy, per-class precision, recall and F1, and
the confusion matrix. Features past the model's width weigh zero in a
linear model; in a kernel model they meet no support vector, but an RBF
kernel still counts them in the row's norm.`,
	flags: func(fs *flag.FlagSet) func([]string, io.Writer) error {
		model := fs.String("model", "", "the model `file`")
		asJSON := fs.Bool("json", false, "print the result as JSON")
		strict := fs.Bool("strict", false, "fail when FILE has features past the model's width (default: warn)")
		return func(args []string, out io.Writer) error {
			if len(args) != 1 || *model == "" {
				return fmt.Errorf("%w: eval needs -model MODEL and one FILE", errUsage)
			}
			m, err := engine.LoadClassifier(*model)
			if err != nil {
				return err
			}
			d, err := sparse.ReadFile(args[0], sparse.ReadOptions{})
			if err != nil {
				return err
			}
			if err := checkWidth(args[0], d.X, m, *strict); err != nil {
				return err
			}
			t0 := time.Now()
			pred := m.PredictBatch(d.X, nil)
			secs := time.Since(t0).Seconds()
			c, err := metrics.NewConfusion(d.Y, pred)
			if err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			if *asJSON {
				return json.NewEncoder(out).Encode(struct {
					File        string             `json:"file"`
					Model       string             `json:"model"`
					Rows        int                `json:"rows"`
					PredictSecs float64            `json:"predict_seconds"`
					Confusion   *metrics.Confusion `json:"metrics"`
				}{args[0], *model, d.X.Rows, secs, c})
			}
			fmt.Fprintf(out, "%s on %s: %d rows predicted in %.1f ms\n\n", *model, args[0], d.X.Rows, 1e3*secs)
			return c.WriteReport(out)
		}
	},
}

// checkWidth compares the data's width with the model's. Features past the
// model's width were never seen in training and weigh zero, which is what
// a test file from a larger vocabulary needs; but it may also be data of
// another kind altogether, so it is said on stderr, or with strict it is
// an error. It goes by the indices X uses, not its declared width: a cache
// file made with a featurizer declares all of its 2^bits columns.
func checkWidth(path string, X *sparse.CSR, m engine.Classifier, strict bool) error {
	dim := 0
	switch m := m.(type) {
	case *engine.Model:
		dim = m.Dim
	case *engine.KernelModel:
		dim = m.Dim
	}
	if X.Cols <= dim {
		return nil
	}
	past, widest := 0, int32(-1)
	for _, j := range X.Ind {
		if int(j) >= dim {
			past++
			widest = max(widest, j)
		}
	}
	if past == 0 {
		return nil
	}
	msg := fmt.Sprintf("%s uses features up to %d, the model %d", path, int(widest)+1, dim)
	if strict {
		return fmt.Errorf("%w: %s (-strict: features past the model's width are an error)", engine.ErrDim, msg)
	}
	what := "weigh zero"
	if _, ok := m.(*engine.KernelModel); ok {
		what = "meet no support vector (an RBF kernel still counts them in the row's norm)"
	}
	fmt.Fprintf(warnings, "hyperplane: warning: %s: the %d entries past its width %s\n", msg, past, what)
	return nil
}
