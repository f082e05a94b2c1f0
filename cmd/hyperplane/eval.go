package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/engine/metrics"
	"github.com/hyperplane-ml/hyperplane/engine/textmodel"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

func newEvalCmd() *Command {
	c := &Command{
		UsageLine: "eval -model MODEL FILE",
		Short:     "evaluate a saved model (linear, kernel or text) on labelled data",
		Long: `Eval loads a model saved by 'hyperplane train -o' (a linear or a kernel
perceptron, or a text model trained from raw text, told apart by the
file's magic), predicts every row of a LIBSVM file and prints accuracy,
per-class precision, recall and F1, and the confusion matrix. A text model
reads labelled raw text (JSONL or label<TAB>text, gzip too; FILE - is
standard input), with the JSONL fields its training text had unless
-label-field or -text-field say otherwise; a LIBSVM file or a cache is
refused. It also reports the log loss and the expected
calibration error (ECE, 10 bins) of its probabilities. Features past the model's width weigh zero in a
linear model; in a kernel model they meet no support vector, but an RBF
kernel still counts them in the row's norm.

A model trained on features that convert made from text reports its
labels by name with -featurizer, the featurizer convert saved, and then
also reads labelled raw text (told from LIBSVM by its first line), which
the featurizer turns into features as convert would. Raw text given to a
model of numbered features without -featurizer is refused.

A multi-label text model (train on JSONL whose labels are arrays, or
-multilabel) reads labelled text whose labels are lists and prints micro-
and macro-averaged precision, recall and F1 (over the model's labels; test
labels it does not know are dropped and counted), Hamming loss, subset
accuracy, P@k and R@k, and the F1s other decision rules would have given;
-report adds every label's figures, -json all of them.`,
	}
	fs := &c.Flag
	model := fs.String("model", "", "the model `file`")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	labelCol := labelColFlag(fs)
	strict := fs.Bool("strict", false, "fail when FILE has features past the model's width (default: warn)")
	feat := fs.String("featurizer", "", "name the labels by this text featurizer `file` (see convert), and read labelled raw text with it")
	ff := addFieldFlags(fs)
	mlReport := fs.Bool("report", false, "multi-label text models: also print every label's precision, recall and F1")
	showProgress := progressFlag(fs)
	c.Run = func(ctx context.Context, env *Env, args []string) error {
		env.progress = *showProgress
		out := env.Stdout
		if len(args) != 1 || *model == "" {
			return usageError("eval needs -model MODEL and one FILE")
		}
		if textmodel.IsMultiLabelFile(*model) {
			return evalMultiLabelCmd(ctx, env, *model, args[0], ff, *asJSON, *mlReport)
		}
		if isNumberedMultiLabel(*model) {
			m, err := engine.LoadMultiLabel(*model)
			if err != nil {
				return err
			}
			return evalNumberedMultiLabel(env, m, args[0], *asJSON, *mlReport)
		}
		m, tm, err := loadModel(*model)
		if err != nil {
			return err
		}
		var names *text.Featurizer
		switch {
		case tm != nil && *feat != "":
			return usageError("%s is a text model and holds its featurizer: drop -featurizer", *model)
		case tm != nil:
			names = tm.Featurizer()
		case *feat != "":
			if names, err = text.Load(*feat); err != nil {
				return err
			}
		}
		in, err := openData(ctx, env, args[0])
		if err != nil {
			return inFile(args[0], err)
		}
		defer in.close()
		// A text model reads text, whatever the file looks like (the
		// reader refuses LIBSVM and caches); with a featurizer, the
		// content tells.
		var d *sparse.Dataset
		switch {
		case tm != nil || names != nil && in.isText():
			d, err = readLabelledText(in, names, ff.options(names, args[0], ""))
			err = notText(err, *model)
		case names == nil && in.isText():
			return in.notNumbered(*model)
		case len(ff.set()) > 0:
			return usageError("-%s: the field flags apply to raw text", ff.set()[0])
		default:
			d, err = readData(in, *labelCol)
		}
		if err == nil {
			// (The parse may have read its input ahead of the signal.)
			err = ctx.Err()
		}
		if err != nil {
			return interrupted(ctx, inFile(args[0], err))
		}
		ws, err := checkData(env, args[0], d, m, *strict)
		if err != nil {
			return err
		}
		t0 := time.Now()
		pred := m.PredictBatch(d.X, nil)
		secs := time.Since(t0).Seconds()
		c, err := metrics.NewConfusion(d.Y, pred)
		if err != nil {
			return inFile(args[0], err)
		}
		var ll, ece *float64
		if tm != nil {
			l, e, err := probaMetrics(tm, d)
			if err != nil {
				return inFile(args[0], err)
			}
			ll, ece = &l, &e
		}
		if *asJSON {
			return printJSON(out, struct {
				File        string             `json:"file"`
				Model       string             `json:"model"`
				Rows        int                `json:"rows"`
				PredictSecs float64            `json:"predict_seconds"`
				Confusion   *metrics.Confusion `json:"metrics"`
				Names       []string           `json:"label_names,omitempty"` // of metrics' labels, in order
				LogLoss     *float64           `json:"log_loss,omitempty"`
				ECE         *float64           `json:"ece,omitempty"`
				Warnings    []string           `json:"warnings,omitempty"`
			}{args[0], *model, d.X.Rows, secs, c, labelNames(c, names), ll, ece, ws})
		}
		fmt.Fprintf(out, "%s on %s: %s rows predicted in %.1f ms\n", *model, args[0], commas(int64(d.X.Rows)), 1e3*secs)
		if ll != nil {
			cal := "not calibrated"
			if cb, ok := tm.Calibration(); ok {
				cal = "calibration " + cb.String()
			}
			fmt.Fprintf(out, "probabilities: log loss %.4f, calibration error (ECE, 10 bins) %.4f (%s)\n", *ll, *ece, cal)
		}
		fmt.Fprintln(out)
		return c.WriteNamedReport(out, printableLabels(labelNames(c, names)))
	}
	return c
}

// checkData looks at data a model m is about to be measured on (labels
// and all, in eval and train -test) for what makes its figures mean
// less than they seem: features past the model's width (see widthWarning)
// and labels the model has no class for (see labelWarning). Each warning
// is written on stderr, one line each, and returned for -json; with
// strict, the features past the width are an error instead.
func checkData(env *Env, path string, d *sparse.Dataset, m engine.Classifier, strict bool) ([]string, error) {
	var ws []string
	w, err := widthWarning(path, d.X, m, strict)
	if err != nil {
		return nil, err
	}
	if w != "" {
		ws = append(ws, w)
	}
	if w := labelWarning(path, d.Y, m); w != "" {
		ws = append(ws, w)
	}
	for _, w := range ws {
		env.warn("%s", w)
	}
	return ws, nil
}

// checkWidth is checkData for data without labels to measure (predict).
func checkWidth(env *Env, path string, X *sparse.CSR, m engine.Classifier, strict bool) error {
	w, err := widthWarning(path, X, m, strict)
	if w != "" {
		env.warn("%s", w)
	}
	return err
}

// widthWarning compares the data's width with the model's. Features past
// the model's width were never seen in training and weigh zero, which is
// what a test file from a larger vocabulary needs; but it may also be
// data of another kind altogether, so it is a warning, or with strict an
// error. It goes by the indices X uses, not its declared width: a cache
// file made with a featurizer declares all of its 2^bits columns.
func widthWarning(path string, X *sparse.CSR, m engine.Classifier, strict bool) (string, error) {
	dim := m.NumFeatures()
	if X.Cols <= dim {
		return "", nil
	}
	past, widest := 0, int32(-1)
	for _, j := range X.Ind {
		if int(j) >= dim {
			past++
			widest = max(widest, j)
		}
	}
	if past == 0 {
		return "", nil
	}
	msg := fmt.Sprintf("%s uses features up to %d, the model %d", path, int(widest)+1, dim)
	if strict {
		return "", fmt.Errorf("%w: %s (-strict: features past the model's width are an error)", engine.ErrDim, msg)
	}
	what := "weigh zero"
	if _, ok := m.(*engine.KernelModel); ok {
		what = "meet no support vector (an RBF kernel still counts them in the row's norm)"
	}
	return fmt.Sprintf("%s: the %d entries past its width %s", msg, past, what), nil
}

// labelWarning says, when some of the labels y are none of m's classes,
// how many rows have such labels and which: the model never predicts
// them, so every such row counts as a mistake, and data labelled in
// another scheme (0/1 against a model trained on -1/+1) would score 0
// with no other sign of why.
func labelWarning(path string, y []float64, m engine.Classifier) string {
	classes := m.ClassValues()
	rows := 0
	unknown := map[float64]bool{}
	for _, v := range y {
		if !slices.Contains(classes, v) {
			rows++
			unknown[v] = true
		}
	}
	if rows == 0 {
		return ""
	}
	return fmt.Sprintf("%s: %d of %d rows have labels the model has no class for (%s; its classes: %s): it never predicts them, so they all count as mistakes",
		path, rows, len(y), floatList(slices.Sorted(maps.Keys(unknown))), floatList(classes))
}

// floatList writes labels as a short comma-separated list.
func floatList(v []float64) string {
	names := make([]string, len(v))
	for i, x := range v {
		names[i] = strconv.FormatFloat(x, 'g', -1, 64)
	}
	return labelList(names, nil)
}
