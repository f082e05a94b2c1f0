package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/engine/metrics"
	"github.com/hyperplane-ml/hyperplane/engine/textmodel"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

// Multi-label text: train tells a multi-label file by its first
// document, whose label is a JSON array (the form every multi-label
// JSONL set takes, a document with one tag included), or by -multilabel
// (for TSV, whose label field is then a comma-separated list, and for
// standard input, which cannot be read twice). A file whose first label
// is a string is single-label, trained as before, so that no existing
// model changes.

// firstLabelIsList reports whether the first document of the labelled
// text at path has an array for its label: JSONL only, since a TSV or
// fastText line read as a list of labels always has one (-multilabel
// asks for those).
func firstLabelIsList(path string, opt text.ReadOptions) bool {
	if path == "-" || (opt.Format != text.Auto && opt.Format != text.JSONL) {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<16)
	if kind, _, err := text.Sniff(br); err != nil || kind != text.KindJSONL {
		return false
	}
	opt.MultiLabel = true
	sc := text.NewScanner(br, opt)
	if !sc.Scan() {
		return false
	}
	return sc.Doc().Label == "" && sc.Labels() != nil
}

// multiLabelRule maps train's -algo to a multi-label learner: the
// perceptron or a PA rule, one against the rest, or the ranking
// perceptron ("ranking").
func multiLabelRule(algo string, c float64, epochs int, ranking bool) (engine.MultiLabelConfig, error) {
	mc := engine.MultiLabelConfig{C: c, Epochs: epochs, Ranking: ranking}
	switch algo {
	case "", "pa1":
		// The default: on Reuters-21578 it gave the best micro- and
		// macro-F1 of the rules (see the README), the margin it asks
		// of each class keeping the many negatives of a rare topic
		// from drowning it.
		mc.Rule = engine.PA1
	case "averaged", "perceptron":
		mc.Rule = engine.Perceptron
	case "pa", "pa2":
		r, err := engine.ParseRule(algo)
		if err != nil {
			return mc, err
		}
		mc.Rule = r
	default:
		return mc, fmt.Errorf("-algo %s: multi-label training takes averaged (the perceptron), pa, pa1 or pa2", algo)
	}
	return mc, nil
}

// mlTrainResult is train -json's result for a multi-label text model.
type mlTrainResult struct {
	Train        string        `json:"train"`
	MultiLabel   bool          `json:"multilabel"`
	Rows         int           `json:"rows"`
	Features     int           `json:"features"`
	Labels       int           `json:"labels"`
	Unlabelled   int           `json:"unlabelled_rows"`
	Rule         string        `json:"rule"`
	Text         string        `json:"text"`
	ReadSeconds  float64       `json:"read_seconds"`
	TrainSeconds float64       `json:"train_seconds"`
	Test         *mlEvalResult `json:"test,omitempty"`
}

// trainMultiLabelText fits a featurizer and a multi-label model on the
// text at path and saves them as one multi-label text model (-o).
func trainMultiLabelText(path string, mc engine.MultiLabelConfig, tc text.Config, opt text.ReadOptions, o trainOpts) error {
	t0 := time.Now()
	src, _, closeIn, err := openInput(o.ctx, o.env, path)
	if err != nil {
		return err
	}
	opt.MultiLabel = true
	c, err := text.Read(src, opt)
	closeIn()
	if err != nil {
		return interrupted(o.ctx, err)
	}
	r := mlTrainResult{Train: path, MultiLabel: true, Rows: len(c.Docs), Rule: mc.Rule.String()}
	if mc.Ranking {
		r.Rule = "ranking"
	}
	for _, ls := range c.Labels {
		if len(ls) == 0 {
			r.Unlabelled++
		}
	}
	r.ReadSeconds = time.Since(t0).Seconds()
	t1 := time.Now()
	m, err := textmodel.FitMultiLabelCorpus(o.ctx, c, textmodel.MultiLabelConfig{Text: tc, Learner: mc})
	if err != nil {
		return interrupted(o.ctx, inFile(path, err))
	}
	r.TrainSeconds = time.Since(t1).Seconds()
	r.Features, r.Labels, r.Text = m.Model().Dim(), m.Model().Classes(), featurizerLine(m.Featurizer())
	if o.out != "" {
		b, err := m.MarshalBinary()
		if err != nil {
			return err
		}
		if _, err := o.outs.writer(o.out).Write(b); err != nil {
			return err
		}
		if err := o.outs.commit(); err != nil {
			return err
		}
	}
	if o.test != "" {
		if r.Test, err = evalMultiLabelFile(o.ctx, o.env, m, o.test, opt); err != nil {
			return err
		}
	}
	w := o.env.Stdout
	if o.json {
		return json.NewEncoder(w).Encode(r)
	}
	fmt.Fprintf(w, "multi-label: %d documents (%d with no label), %d labels, %d features (%s)\n", r.Rows, r.Unlabelled, r.Labels, r.Features, r.Text)
	learner := "one-vs-rest " + r.Rule
	if mc.Ranking {
		learner = "ranking perceptron (Crammer & Singer)"
	}
	fmt.Fprintf(w, "learner: %s, thresholds fitted on held-out rows; read %.2f s, fit %.2f s\n", learner, r.ReadSeconds, r.TrainSeconds)
	if r.Test != nil {
		return r.Test.write(w, false)
	}
	return nil
}

// mlEvalResult is what eval reports of a multi-label model.
type mlEvalResult struct {
	File          string              `json:"file"`
	Rows          int                 `json:"rows"`
	Labels        int                 `json:"labels"`
	UnknownLabels int                 `json:"unknown_labels_dropped"`
	MicroF1       float64             `json:"micro_f1"`
	MacroF1       float64             `json:"macro_f1"`
	MicroP        float64             `json:"micro_precision"`
	MicroR        float64             `json:"micro_recall"`
	MacroP        float64             `json:"macro_precision"`
	MacroR        float64             `json:"macro_recall"`
	Hamming       float64             `json:"hamming_loss"`
	Subset        float64             `json:"subset_accuracy"`
	AtK           []atK               `json:"at_k"`
	Decisions     []decisionRule      `json:"decisions"`
	PerLabel      []perLabel          `json:"per_label,omitempty"`
	report        *metrics.MultiLabel // for the table
	names         []string
}

type atK struct {
	K int     `json:"k"`
	P float64 `json:"precision"`
	R float64 `json:"recall"`
}

// decisionRule is how another way of turning scores into labels would
// have done on the same rows.
type decisionRule struct {
	Rule    string  `json:"rule"`
	MicroF1 float64 `json:"micro_f1"`
	MacroF1 float64 `json:"macro_f1"`
}

type perLabel struct {
	Label     string  `json:"label"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
	Support   int64   `json:"support"`
}

// evalMultiLabelFile reads the labelled text at path and scores m on it.
func evalMultiLabelFile(ctx context.Context, env *Env, m *textmodel.MultiLabel, path string, opt text.ReadOptions) (*mlEvalResult, error) {
	src, name, closeIn, err := openInput(ctx, env, path)
	if err != nil {
		return nil, inFile(path, err)
	}
	defer closeIn()
	opt.MultiLabel, opt.Name = true, name
	if opt.Format == text.Auto {
		opt.Format = textFormat(path, "")
	}
	c, err := text.Read(src, opt)
	if err != nil {
		return nil, interrupted(ctx, err)
	}
	if len(c.Docs) == 0 {
		return nil, fmt.Errorf("%s: no documents", path)
	}
	X, Y, unknown, err := m.VectorizeCorpus(c)
	if err != nil {
		return nil, err
	}
	return evalMultiLabel(m.Model(), m.Labels(), X, Y, path, unknown)
}

// evalMultiLabel scores the rows of X against Y with lm.
func evalMultiLabel(lm *engine.MultiLabelModel, names []string, X *sparse.CSR, Y [][]int, path string, unknown int) (*mlEvalResult, error) {
	K := lm.Classes()
	pred := make([][]int, X.Rows)
	zero := make([][]int, X.Rows)
	atLeast1 := make([][]int, X.Rows)
	ranked := make([][]int, X.Rows)
	all := lm.ScoresBatch(X, nil)
	for i := range X.Rows {
		s := all[i*K : (i+1)*K]
		ranked[i] = lm.Decide(s, 5, nil)
		pred[i] = lm.Decide(s, 0, nil)
		for c, v := range s {
			if v >= 0 {
				zero[i] = append(zero[i], c)
			}
		}
		atLeast1[i] = pred[i]
		if len(pred[i]) == 0 {
			atLeast1[i] = ranked[i][:1]
		}
	}
	ml, err := metrics.NewMultiLabel(Y, pred, K)
	if err != nil {
		return nil, err
	}
	r := &mlEvalResult{File: path, Rows: X.Rows, Labels: K, UnknownLabels: unknown,
		MicroF1: ml.Micro.F1, MacroF1: ml.Macro.F1, MicroP: ml.Micro.Precision, MicroR: ml.Micro.Recall,
		MacroP: ml.Macro.Precision, MacroR: ml.Macro.Recall, Hamming: ml.Hamming, Subset: ml.Subset, report: ml, names: names}
	for _, k := range []int{1, 3, 5} {
		if k > K {
			break
		}
		p, rc, err := metrics.PrecisionRecallAtK(Y, ranked, k)
		if err != nil {
			return nil, err
		}
		r.AtK = append(r.AtK, atK{k, p, rc})
	}
	r.Decisions = append(r.Decisions, decisionRule{"fitted thresholds", ml.Micro.F1, ml.Macro.F1})
	for _, d := range []struct {
		name string
		p    [][]int
	}{{"threshold 0", zero}, {"fitted thresholds, at least the top label", atLeast1}} {
		dm, err := metrics.NewMultiLabel(Y, d.p, K)
		if err != nil {
			return nil, err
		}
		r.Decisions = append(r.Decisions, decisionRule{d.name, dm.Micro.F1, dm.Macro.F1})
	}
	for k := 1; k <= 2 && k <= K; k++ {
		top := make([][]int, X.Rows)
		for i := range top {
			top[i] = ranked[i][:k]
		}
		dm, err := metrics.NewMultiLabel(Y, top, K)
		if err != nil {
			return nil, err
		}
		r.Decisions = append(r.Decisions, decisionRule{"top " + strconv.Itoa(k), dm.Micro.F1, dm.Macro.F1})
	}
	for c, st := range ml.PerClass {
		r.PerLabel = append(r.PerLabel, perLabel{names[c], st.Precision, st.Recall, st.F1, st.TP + st.FN})
	}
	return r, nil
}

// mlLine writes predict's lines for a multi-label model: the labels of
// each row, chosen as the model decides (see engine.MultiLabelModel.
// Decide), each with its score or probability when asked. Its buffers
// serve every row.
type mlLine struct {
	m             *engine.MultiLabelModel
	k             int
	scores, proba bool
	chosen        []int
	p             []float64
	b             []byte
}

// line returns the line for the scores s (without its end), the labels
// named by name, and the classes chosen; both are overwritten by the
// next call.
func (l *mlLine) line(s []float32, name func(b []byte, c int) []byte) ([]byte, []int) {
	l.chosen = l.m.Decide(s, l.k, l.chosen[:0])
	if l.proba {
		l.p = l.m.ProbaOfScores(s, l.p)
	}
	b := l.b[:0]
	for n, c := range l.chosen {
		if n > 0 {
			b = append(b, ',')
		}
		b = name(b, c)
		switch {
		case l.scores:
			b = append(b, ':')
			b = strconv.AppendFloat(b, float64(s[c]), 'g', 6, 32)
		case l.proba:
			b = append(b, ':')
			b = strconv.AppendFloat(b, l.p[c], 'f', 4, 64)
		}
	}
	l.b = b
	return b, l.chosen
}

// write prints r; with report, the table of every label too.
func (r *mlEvalResult) write(w io.Writer, report bool) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s: %d documents, %d labels", r.File, r.Rows, r.Labels)
	if r.UnknownLabels > 0 {
		fmt.Fprintf(bw, " (%d tags of labels the model does not know dropped)", r.UnknownLabels)
	}
	fmt.Fprintf(bw, "\nmicro-F1 %.4f  (precision %.4f, recall %.4f)\n", r.MicroF1, r.MicroP, r.MicroR)
	fmt.Fprintf(bw, "macro-F1 %.4f  (precision %.4f, recall %.4f)\n", r.MacroF1, r.MacroP, r.MacroR)
	fmt.Fprintf(bw, "Hamming loss %.5f  subset accuracy %.4f\n", r.Hamming, r.Subset)
	for _, a := range r.AtK {
		fmt.Fprintf(bw, "P@%d %.4f  R@%d %.4f\n", a.K, a.P, a.K, a.R)
	}
	fmt.Fprintf(bw, "decision rules (micro-F1, macro-F1):\n")
	for _, d := range r.Decisions {
		fmt.Fprintf(bw, "  %-42s %.4f  %.4f\n", d.Rule, d.MicroF1, d.MacroF1)
	}
	if report && r.report != nil {
		if err := r.report.WriteReport(bw, r.names); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// print writes r as eval prints it: as text, or with asJSON as one line
// of JSON; every label's figures only with report.
func (r *mlEvalResult) print(w io.Writer, asJSON, report bool) error {
	if asJSON {
		if !report {
			r.PerLabel = nil
		}
		return json.NewEncoder(w).Encode(r)
	}
	return r.write(w, report)
}

// evalMultiLabelCmd is eval for a multi-label text model.
func evalMultiLabelCmd(ctx context.Context, env *Env, model, path string, ff *fieldFlags, asJSON, report bool) error {
	m, err := textmodel.LoadMultiLabel(model)
	if err != nil {
		return err
	}
	opt := ff.options(m.Featurizer(), path, "")
	r, err := evalMultiLabelFile(ctx, env, m, path, opt)
	if err != nil {
		return err
	}
	return r.print(env.Stdout, asJSON, report)
}

// predictMultiLabel writes, for every document of path, the labels m
// gives it (those at or above their thresholds, or the k best with
// k > 0), separated by commas, each followed by its score or probability
// after a colon when asked; a document with no label gets an empty line.
// With explain > 0, a tab and, for each label written, its n heaviest
// terms.
func predictMultiLabel(ctx context.Context, env *Env, w io.Writer, model, path, from string, ff *fieldFlags, k int, scores, proba bool, explain int) error {
	m, err := textmodel.LoadMultiLabel(model)
	if err != nil {
		return err
	}
	src, name, closeIn, err := openInput(ctx, env, path)
	if err != nil {
		return inFile(path, err)
	}
	defer closeIn()
	opt := ff.options(m.Featurizer(), path, "")
	opt.Documents, opt.Name, opt.Format = true, name, textFormat(path, from)
	names := m.Labels()
	bw := bufio.NewWriter(w)
	sc := text.NewScanner(src, opt)
	var s []float32
	ml := &mlLine{m: m.Model(), k: k, scores: scores, proba: proba}
	label := func(b []byte, c int) []byte { return append(b, names[c]...) }
	for sc.Scan() {
		doc := sc.Doc().Text
		s = m.Scores(doc, s)
		b, chosen := ml.line(s, label)
		if explain > 0 {
			for _, c := range chosen {
				_, terms, err := m.Explain(doc, names[c], explain)
				if err != nil {
					return err
				}
				b = append(b, '\t')
				b = append(b, names[c]...)
				for _, t := range terms {
					b = appendContribution(append(b, ' '), t.Term, t.Value)
				}
			}
		}
		b = append(b, '\n')
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return interrupted(ctx, err)
	}
	return bw.Flush()
}

// multiLabelRefused are the train flags a multi-label learner does not
// take.
var multiLabelRefused = []string{"no-average", "alpha", "lr", "bias", "bias-scale", "init", "margin", "no-shuffle", "stream", "threads",
	"validation", "patience", "balanced", "class-weight", "margins", "report", "kernel", "budget", "gram-mb", "precompute-gram", "cv", "no-calibrate", "i", "scale", "v"}

// multiLabelConfig returns the multi-label learner train's -algo (or
// "ranking") names (see multiLabelRule), with cfg's -C, -epochs and
// -seed.
func multiLabelConfig(algo string, cfg engine.Config) (engine.MultiLabelConfig, error) {
	ranking := algo == "ranking"
	if ranking {
		algo = ""
	}
	mc, err := multiLabelRule(algo, cfg.C, cfg.Epochs, ranking)
	if err != nil {
		return mc, usageError("%v", err)
	}
	mc.Seed = cfg.Seed
	return mc, nil
}

// runTrainMultiLabel is train for multi-label text: the flags that apply
// to it, its outputs prepared before the data are read.
func runTrainMultiLabel(ctx context.Context, env *Env, fs *flag.FlagSet, path, algo string, cfg engine.Config, tfl *textFlags, normalize bool, o trainOpts) error {
	if bad := setAmong(fs, multiLabelRefused...); len(bad) > 0 {
		return usageError("%s: not available for multi-label text", bad[0])
	}
	mc, err := multiLabelConfig(algo, cfg)
	if err != nil {
		return err
	}
	tcfg, err := tfl.config(fs)
	if err != nil {
		return err
	}
	tcfg.NoNormalize = !normalize
	if o.out == "-" {
		return usageError("-o -: a model is written to a file, not to standard output")
	}
	outs, err := prepareTrain(fs, env.Stdout, path, o, "")
	if err != nil {
		return err
	}
	defer outs.cleanup()
	o.outs = outs
	return trainMultiLabelText(path, mc, tcfg, tfl.readOptions(path), o)
}
