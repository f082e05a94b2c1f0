package main

import (
	"context"
	"fmt"
	"io"
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
	o := new(evalOptions)
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
		Run: o.run,
	}
	fs := &c.Flag
	fs.StringVar(&o.model, "model", "", "the model `file`")
	fs.BoolVar(&o.json, "json", false, "print the result as JSON")
	o.labelCol = labelColFlag(fs)
	fs.BoolVar(&o.strict, "strict", false, "fail when FILE has features past the model's width (default: warn)")
	fs.StringVar(&o.feat, "featurizer", "", "name the labels by this text featurizer `file` (see convert), and read labelled raw text with it")
	o.fields = addFieldFlags(fs)
	fs.BoolVar(&o.report, "report", false, "multi-label text models: also print every label's precision, recall and F1")
	o.progress = progressFlag(fs)
	return c
}

// evalOptions holds eval's flags.
type evalOptions struct {
	model    string
	json     bool
	labelCol *string
	strict   bool
	feat     string // -featurizer
	fields   *fieldFlags
	report   bool // multi-label models' -report
	progress *bool
}

// run evaluates the model on the labelled data in args[0].
func (o *evalOptions) run(ctx context.Context, env *Env, args []string) error {
	env.progress = *o.progress
	if len(args) != 1 || o.model == "" {
		return usageError("eval needs -model MODEL and one FILE")
	}
	path := args[0]
	if textmodel.IsMultiLabelFile(o.model) {
		return evalMultiLabelCmd(ctx, env, o.model, path, o.fields, o.json, o.report)
	}
	if isNumberedMultiLabel(o.model) {
		m, err := engine.LoadMultiLabel(o.model)
		if err != nil {
			return err
		}
		return evalNumberedMultiLabel(env, m, path, o.json, o.report)
	}
	m, tm, err := loadModel(o.model)
	if err != nil {
		return err
	}
	var names *text.Featurizer
	switch {
	case tm != nil && o.feat != "":
		return usageError("%s is a text model and holds its featurizer: drop -featurizer", o.model)
	case tm != nil:
		names = tm.Featurizer()
	case o.feat != "":
		if names, err = text.Load(o.feat); err != nil {
			return err
		}
	}
	d, err := o.read(ctx, env, path, tm, names)
	if err != nil {
		return err
	}
	ws, err := checkData(env, path, d, m, o.strict)
	if err != nil {
		return err
	}
	t0 := time.Now()
	pred := m.PredictBatch(d.X, nil)
	res := evalResult{File: path, Model: o.model, Rows: d.X.Rows, PredictSecs: time.Since(t0).Seconds(), Warnings: ws}
	if res.Confusion, err = metrics.NewConfusion(d.Y, pred); err != nil {
		return inFile(path, err)
	}
	res.Names = labelNames(res.Confusion, names)
	if tm != nil {
		l, e, err := probaMetrics(tm, d)
		if err != nil {
			return inFile(path, err)
		}
		res.LogLoss, res.ECE = &l, &e
	}
	if o.json {
		return printJSON(env.Stdout, res)
	}
	return res.print(env.Stdout, tm)
}

// read reads the labelled rows of path for a model: a text model (tm)
// reads text, whatever the file looks like (the reader refuses LIBSVM
// and caches); with a featurizer (names) the content tells.
func (o *evalOptions) read(ctx context.Context, env *Env, path string, tm *textmodel.Model, names *text.Featurizer) (*sparse.Dataset, error) {
	in, err := openData(ctx, env, path)
	if err != nil {
		return nil, inFile(path, err)
	}
	defer in.close()
	var d *sparse.Dataset
	switch {
	case tm != nil || names != nil && in.isText():
		d, err = readLabelledText(in, names, o.fields.options(names, path, ""))
		err = notText(err, o.model)
	case names == nil && in.isText():
		return nil, in.notNumbered(o.model)
	case len(o.fields.set()) > 0:
		return nil, usageError("-%s: the field flags apply to raw text", o.fields.set()[0])
	default:
		d, err = readData(in, *o.labelCol)
	}
	if err == nil {
		// (The parse may have read its input ahead of the signal.)
		err = ctx.Err()
	}
	if err != nil {
		return nil, interrupted(ctx, inFile(path, err))
	}
	return d, nil
}

// evalResult is what eval measured of a model of one label a row.
type evalResult struct {
	File        string             `json:"file"`
	Model       string             `json:"model"`
	Rows        int                `json:"rows"`
	PredictSecs float64            `json:"predict_seconds"`
	Confusion   *metrics.Confusion `json:"metrics"`
	Names       []string           `json:"label_names,omitempty"` // of metrics' labels, in order
	LogLoss     *float64           `json:"log_loss,omitempty"`
	ECE         *float64           `json:"ece,omitempty"`
	Warnings    []string           `json:"warnings,omitempty"`
}

// print writes r as text: the rows predicted, a text model's (tm's)
// probabilities' figures, and the report by label.
func (r *evalResult) print(out io.Writer, tm *textmodel.Model) error {
	fmt.Fprintf(out, "%s on %s: %s rows predicted in %.1f ms\n", r.Model, r.File, commas(int64(r.Rows)), 1e3*r.PredictSecs)
	if r.LogLoss != nil {
		cal := "not calibrated"
		if cb, ok := tm.Calibration(); ok {
			cal = "calibration " + cb.String()
		}
		fmt.Fprintf(out, "probabilities: log loss %.4f, calibration error (ECE, 10 bins) %.4f (%s)\n", *r.LogLoss, *r.ECE, cal)
	}
	fmt.Fprintln(out)
	return r.Confusion.WriteNamedReport(out, printableLabels(r.Names))
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
