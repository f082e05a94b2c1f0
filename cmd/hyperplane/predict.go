package main

import (
	"bufio"
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/engine/calibrate"
	"github.com/hyperplane-ml/hyperplane/engine/textmodel"
	"github.com/hyperplane-ml/hyperplane/internal/iox"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

func newPredictCmd() *Command {
	o := new(predictOptions)
	c := &Command{
		UsageLine: "predict -model MODEL FILE",
		Short:     "write a saved model's predictions for every row of a file, one per line",
		Long: `Predict loads a model saved by 'hyperplane train -o' (linear, kernel, or a
text model trained from raw text) and writes one line per row of FILE
(LIBSVM, gzip too, or a cache): the predicted label, and with -scores a
tab and the decision value (for a binary model w·x+b, > 0 meaning the
larger label; for a multiclass model the winning class's score); with
-proba a tab and the label's probability (text models, which hold their
calibration, and logistic regression models, whose scores are log-odds;
another model of numbered features holds none, and -proba with it is
refused rather than passing raw margins off as probabilities); with -k N the N most likely labels, best first, each with
its score or probability after a tab when -scores or -proba asks; with
-explain N (text models) a tab and the N terms of the document that
weigh most in its label's score, each quoted and followed by its
contribution (positive: toward the label).

A text model reads raw text, gzip too, and writes label names:

  echo "a wonderful film" | hyperplane predict -model reviews.hptm -proba -

Raw text is read as train and eval read it, by the same reader, and its
form is the same for every line, chosen by -from (jsonl, tsv or lines),
else a FILE named .tsv is TSV, else the first non-blank line tells: a
line that starts with '{' makes the input JSONL (each line a JSON object
with the text field; a label field is ignored); a line with a tab after
one of the model's labels makes it TSV (label<TAB>text, the label
ignored); any other makes it plain lines, each line a document, a blank
one too (as fastText's predict reads text). LIBSVM or a cache given to a
text model is refused. The JSONL fields are the ones the model's
training text had, unless -label-field or -text-field say otherwise.
In JSONL and TSV blank lines are skipped, so that the documents are the
ones eval reads.

A small input (documents of up to a 96th of the model file's size) is read
first, and the model loaded for its documents alone: of a vocabulary, only
the pages that hold their terms and those terms' weights, each page
checked against its checksum, with the same output.

With a linear or kernel model and -featurizer, labels are written as the
names the text featurizer knows them by, and FILE may be raw text, read
as above, which the featurizer turns into features as convert would.
FILE is raw text unless its first line looks like LIBSVM or it is a
cache (a lone word goes by the name: .jsonl, .json, .tsv, .txt, gz too,
or -); -from says which. Raw text given to a model of numbered features
without -featurizer is refused. The labels in FILE are not used.
FILE - reads standard input. Output goes to standard output, or
atomically to the -o file (- is standard output), which must not be one
of the files read; an -o that is not a regular file (/dev/stdout,
/dev/fd/N, a device, a FIFO) is written as a stream, never replaced.

A multi-label text model writes, for each document, every label whose
score reaches its threshold, separated by commas (an empty line for a
document with none), each followed by ':' and its score or probability
with -scores or -proba; -k N writes the N best labels instead; -explain N
adds, for each label written, a tab, the label and its N heaviest terms.`,
		Run: o.run,
	}
	fs := &c.Flag
	o.flags = fs
	fs.StringVar(&o.model, "model", "", "the model `file`")
	fs.BoolVar(&o.scores, "scores", false, "write the decision value after each label")
	o.labelCol = labelColFlag(fs)
	fs.StringVar(&o.out, "o", "", "write to this `file` (atomically) instead of standard output")
	fs.BoolVar(&o.strict, "strict", false, "fail when FILE has features past the model's width (default: warn)")
	fs.StringVar(&o.feat, "featurizer", "", "write label names from this text featurizer `file` (see convert), and read raw text with it")
	fs.StringVar(&o.from, "from", "", "what FILE holds: raw text (text: told by its content; or jsonl, tsv or lines, a document a line), libsvm or cache; default: by its content (see above)")
	o.fields = addFieldFlags(fs)
	fs.BoolVar(&o.proba, "proba", false, "text models: write the label's probability after it (with -k, each label's)")
	fs.IntVar(&o.topK, "k", 0, "write the `N` most likely labels, best first (0: the predicted label only)")
	fs.IntVar(&o.explain, "explain", 0, "text models: after the label, the `N` terms of the document that weigh most in its label's score, with their contributions")
	o.progress = progressFlag(fs)
	return c
}

// predictOptions holds predict's flags.
type predictOptions struct {
	flags    *flag.FlagSet // to tell the flags set on the command line
	model    string
	scores   bool
	labelCol *string
	out      string // -o
	strict   bool
	feat     string // -featurizer
	from     string
	fields   *fieldFlags
	proba    bool
	topK     int // -k
	explain  int
	progress *bool
}

// run writes the model's prediction for every row of args[0].
func (o *predictOptions) run(ctx context.Context, env *Env, args []string) error {
	env.progress = *o.progress
	if len(args) != 1 || o.model == "" {
		return usageError("predict needs -model MODEL and one FILE")
	}
	path := args[0]
	var outs []arg
	if len(setAmong(o.flags, "o")) > 0 && o.out != "-" {
		outs = append(outs, arg{"-o", o.out})
	}
	w, err := prepareOutputs(env.Stdout, append([]arg{{"FILE", path}, {"-model", o.model}, {"-featurizer", o.feat}}, stdioInput(env, path)...), outs...)
	if err != nil {
		return err
	}
	defer w.cleanup()
	if err := o.check(); err != nil {
		return err
	}
	// emit writes the lines write makes to standard output, or to the
	// -o file, which it then commits.
	emit := func(write func(io.Writer) error) error {
		if len(outs) == 0 {
			return write(env.Stdout)
		}
		if err := write(w.writer(o.out)); err != nil {
			return err
		}
		return w.commit()
	}
	if isNumberedMultiLabel(o.model) {
		m, err := engine.LoadMultiLabel(o.model)
		if err != nil {
			return err
		}
		if o.explain > 0 || o.feat != "" {
			return usageError("%s is a multi-label model of numbered features: -explain and -featurizer take text models", o.model)
		}
		return emit(func(dst io.Writer) error { return predictNumberedMultiLabel(dst, m, path, o.topK, o.scores, o.proba) })
	}
	if textmodel.IsMultiLabelFile(o.model) {
		if !o.fromText() || o.feat != "" {
			return usageError("%s is a multi-label text model: it reads raw text and holds its featurizer", o.model)
		}
		textFrom := o.from
		if textFrom == "text" {
			textFrom = ""
		}
		return emit(func(dst io.Writer) error {
			return predictMultiLabel(ctx, env, dst, o.model, path, textFrom, o.fields, o.topK, o.scores, o.proba, o.explain)
		})
	}
	if o.feat != "" && isTextModel(o.model) {
		return usageError("%s is a text model and holds its featurizer: drop -featurizer", o.model)
	}
	in, err := openData(ctx, env, path)
	if err != nil {
		return inFile(path, err)
	}
	defer in.close()
	pm, err := o.load(ctx, in, path)
	if err != nil {
		return err
	}
	p := &predictions{o: o, predictModel: pm}
	if err := p.read(ctx, env, in, path); err != nil {
		return err
	}
	return emit(func(dst io.Writer) error { return interrupted(ctx, p.write(ctx, dst)) })
}

// check refuses flags that are out of range or that contradict each
// other.
func (o *predictOptions) check() error {
	if o.topK < 0 {
		return usageError("-k %d is negative", o.topK)
	}
	if o.explain < 0 {
		return usageError("-explain %d is negative", o.explain)
	}
	if o.proba && o.scores {
		return usageError("-scores and -proba: give one")
	}
	switch o.from {
	case "", "text", "jsonl", "tsv", "lines", "libsvm", "cache":
	default:
		return usageError("-from %q (want text, jsonl, tsv, lines, libsvm or cache)", o.from)
	}
	return nil
}

// fromText reports whether -from allows raw text.
func (o *predictOptions) fromText() bool { return o.from != "libsvm" && o.from != "cache" }

// predictModel is a model predict loaded, with what it reads and names
// labels by.
type predictModel struct {
	m     engine.Classifier
	tm    *textmodel.Model // a text model's own, else nil
	names *text.Featurizer // what names the labels: a text model's featurizer or -featurizer's
	// dr reads a text model's documents; head holds those it read
	// before loading the model (nil: none were).
	dr   *docReader
	head []string
}

// load loads -model for the input in, and the featurizer that names its
// labels. A text model that reads a few documents is loaded for them
// alone (textmodel.LoadFor), which costs a fraction of loading the
// whole: the documents are read first, with the fields and labels of the
// model loaded for no documents (its header).
func (o *predictOptions) load(ctx context.Context, in *input, path string) (*predictModel, error) {
	pm := &predictModel{}
	var err error
	if isTextModel(o.model) && o.feat == "" {
		if pm.tm, err = o.loadText(ctx, in, path, pm); err != nil {
			return nil, err
		}
		pm.m = pm.tm.Classifier()
	} else if pm.m, pm.tm, err = loadModel(o.model); err != nil {
		return nil, err
	}
	if pm.tm != nil {
		if o.feat != "" {
			return nil, usageError("%s is a text model and holds its featurizer: drop -featurizer", o.model)
		}
		pm.names = pm.tm.Featurizer()
	} else if (o.proba && !nativeProba(pm.m)) || o.explain > 0 {
		return nil, usageError("-proba and -explain need a text model (train on raw text -o M.hptm), which holds its calibration and its terms; %s is a model of numbered features, with neither (-scores gives its raw scores)", o.model)
	}
	if o.feat != "" {
		if pm.names, err = text.Load(o.feat); err != nil {
			return nil, err
		}
		if err := o.checkNames(pm.names, pm.m); err != nil {
			return nil, err
		}
	}
	return pm, nil
}

// loadText loads the text model -model, in part for the documents of in
// when they are few (see load), and puts its document reader and the
// documents read in pm.
func (o *predictOptions) loadText(ctx context.Context, in *input, path string, pm *predictModel) (*textmodel.Model, error) {
	if !o.fromText() {
		return nil, usageError("-from %s: %s is a text model, which reads raw text", o.from, o.model)
	}
	probe, err := textmodel.LoadFor(o.model, []string{})
	if err != nil {
		return nil, err
	}
	pf := probe.Featurizer()
	opt := o.fields.options(pf, path, o.from)
	opt.IsLabel = pf.IsLabel
	pm.dr = openDocs(in, opt)
	var end bool
	if pm.head, end, err = pm.dr.head(subsetLimit(o.model)); err != nil {
		return nil, interrupted(ctx, notText(inFile(path, err), o.model))
	}
	switch {
	case !pf.Config().Vocabulary || pf.Dim() > 0:
		return probe, nil // read whole: it cannot be read in part
	case end:
		partLoads.Add(1)
		return textmodel.LoadFor(o.model, pm.head)
	}
	return textmodel.Load(o.model)
}

// checkNames checks that every class of m is one of the labels of the
// featurizer names: with names for labels (not numbers, which name
// themselves), a class without one would mix names with bare numbers in
// the output.
func (o *predictOptions) checkNames(names *text.Featurizer, m engine.Classifier) error {
	classes := m.ClassValues()
	known := names.Labels()
	// Numbers name themselves: each label is its class value, written
	// canonically ("01", "1", "1.0" are names, classes 0, 1, 2).
	numeric := true
	for _, s := range known {
		if v, err := names.Label(s); err != nil || strconv.FormatFloat(v, 'g', -1, 64) != s {
			numeric = false
		}
	}
	for _, c := range classes {
		if !numeric && !slices.Contains(known, names.Name(c)) {
			return fmt.Errorf("%s: class %v of model %s is none of its labels %s: was the model trained on this featurizer's output?", o.feat, c, o.model, labelList(known, nil))
		}
	}
	return nil
}

// predictions are predict's output: a line for each row of d.
type predictions struct {
	o *predictOptions
	*predictModel
	d    *sparse.Dataset
	docs []string  // the documents, for -explain
	pred []float64 // the predicted labels
	dec  []float32 // the scores, for -scores without -k
	rank *ranker
}

// read reads the rows of in (path) and predicts them.
func (p *predictions) read(ctx context.Context, env *Env, in *input, path string) error {
	o := p.o
	var rawText bool
	switch {
	case p.tm != nil:
		rawText = true
	case o.from != "":
		rawText = o.fromText()
	default:
		rawText = in.isText()
	}
	if rawText && p.names == nil {
		if o.from == "" {
			return in.notNumbered(o.model)
		}
		return usageError("raw text needs the -featurizer it was converted with")
	}
	if set := o.fields.set(); len(set) > 0 && !rawText {
		return usageError("-%s: the field flags apply to raw text", set[0])
	}
	var err error
	if rawText {
		var keep *[]string
		if o.explain > 0 {
			keep = &p.docs
		}
		if p.dr == nil {
			opt := o.fields.options(p.names, path, o.from)
			opt.IsLabel = p.names.IsLabel
			p.dr = openDocs(in, opt)
		}
		p.d, err = p.dr.rows(p.head, p.names, keep)
		err = notText(err, o.model)
	} else if o.explain > 0 {
		return usageError("-explain reads raw text")
	} else {
		p.d, err = readData(in, *o.labelCol)
	}
	if err != nil {
		return interrupted(ctx, inFile(path, err))
	}
	if err := checkWidth(env, path, p.d.X, p.m, o.strict); err != nil {
		return err
	}
	p.pred = p.m.PredictBatch(p.d.X, nil)
	// The labels are the exact scores' even where float32 overflows;
	// only printed scores can show it.
	if o.scores && o.topK == 0 {
		p.dec = p.m.DecisionBatch(p.d.X, nil)
		warnOverflow(env, path, p.dec)
	}
	p.rank = newRanker(p.m, p.tm, o.proba)
	return nil
}

// write writes the lines to w, through ctx: a signal stops the writing
// at the next buffer.
func (p *predictions) write(ctx context.Context, w io.Writer) error {
	bw := bufio.NewWriterSize(iox.Writer(ctx, w), 64<<10)
	var b []byte
	for i := range p.pred {
		var err error
		if b, err = p.line(b[:0], i); err != nil {
			return err
		}
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// line appends row i's line to b: its label, or the -k best, with the
// values -scores or -proba ask for, and -explain's terms.
func (p *predictions) line(b []byte, i int) ([]byte, error) {
	o := p.o
	if o.topK > 0 {
		for j, c := range p.rank.top(p.d.X.Row(i), o.topK) {
			if j > 0 {
				b = append(b, '\t')
			}
			b = p.label(b, c.class)
			if o.scores || o.proba {
				b = append(b, '\t')
				b = strconv.AppendFloat(b, c.value, 'g', 6, 64)
			}
		}
	} else {
		b = p.label(b, p.pred[i])
		if o.scores {
			b = append(b, '\t')
			b = strconv.AppendFloat(b, float64(p.dec[i]), 'g', -1, 32)
		}
		if o.proba {
			b = append(b, '\t')
			b = strconv.AppendFloat(b, p.rank.proba(p.d.X.Row(i), p.pred[i]), 'g', 6, 64)
		}
	}
	if o.explain > 0 {
		_, _, terms, err := p.tm.Explain(p.docs[i], o.explain)
		if err != nil {
			return nil, err
		}
		b = append(b, '\t')
		for j, c := range terms {
			if j > 0 {
				b = append(b, ' ')
			}
			b = appendContribution(b, c.Term, c.Value)
		}
	}
	return append(b, '\n'), nil
}

// label appends the label of class v: its name, or the number.
func (p *predictions) label(b []byte, v float64) []byte {
	if p.names != nil {
		return appendLabel(b, p.names.Name(v))
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

// appendContribution appends a term of -explain, quoted, and its
// contribution to the label's score.
func appendContribution(b []byte, term string, value float64) []byte {
	b = strconv.AppendQuote(b, term)
	b = append(b, ' ')
	return strconv.AppendFloat(b, value, 'f', 3, 64)
}

// appendLabel appends a label name to an output line: as it is, or, if
// it holds a control character (a tab or a line end, which a featurizer
// written before such labels were refused may hold), Go-quoted, so that
// every input row gives one output line with the same fields.
func appendLabel(b []byte, s string) []byte {
	if strings.IndexFunc(s, isLabelControl) < 0 {
		return append(b, s...)
	}
	return strconv.AppendQuote(b, s)
}

// subsetLimit returns the most bytes of documents for which predict
// loads the text model at path for those documents alone: past it,
// reading the blocks of their terms and their weights costs more than
// loading the whole. The two costs (the documents' distinct terms,
// against the vocabulary and weights) were measured to cross at one to
// three percent of the file's size, depending on the data; the limit is
// a 96th of it, at most 1 MiB, or subsetInput when that is set.
func subsetLimit(path string) int {
	if subsetInput >= 0 {
		return subsetInput
	}
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return int(min(st.Size()/96, 1<<20))
}

// subsetInput, when not negative, replaces subsetLimit's limit (for
// tests).
var subsetInput = -1

// partLoads counts the text models predict loaded with LoadFor (which
// reads a model whole when it cannot read it in part), for tests.
var partLoads atomic.Int64

// ranker orders a model's classes for one row by score, or by
// probability with a text model's calibration.
type ranker struct {
	classes []float64
	sc      engine.Classifier
	cal     *calibrate.Calibration // nil: rank by score
	scores  []float32
	vals    []float64
	out     []ranked
}

// ranked is one class of a row with its score or probability.
type ranked struct {
	class, value float64
}

func newRanker(m engine.Classifier, tm *textmodel.Model, proba bool) *ranker {
	r := &ranker{sc: m, classes: m.ClassValues()}
	switch {
	case proba && tm != nil:
		c, _ := tm.Calibration()
		r.cal = &c
	case proba:
		// A model whose scores are log-odds (nativeProba): the zero
		// calibration's logistic or softmax is its own probability.
		r.cal = &calibrate.Calibration{}
	}
	return r
}

// nativeProba reports whether m is a linear model whose scores are
// log-odds (engine.Model.Probabilistic), with probabilities of its own.
func nativeProba(m engine.Classifier) bool {
	lm, ok := m.(*engine.Model)
	return ok && lm.Probabilistic()
}

// values returns the value of every class for x: its score (a binary
// model's score s counts as −s for the first class and s for the second),
// or its probability.
func (r *ranker) values(x sparse.Vector) []float64 {
	r.scores = r.sc.Scores(x, r.scores)
	if r.cal != nil {
		r.vals = r.cal.Proba(r.scores, r.vals)
		return r.vals
	}
	r.vals = r.vals[:0]
	if len(r.classes) == 2 && len(r.scores) == 1 {
		return append(r.vals, -float64(r.scores[0]), float64(r.scores[0]))
	}
	for _, v := range r.scores {
		r.vals = append(r.vals, float64(v))
	}
	return r.vals
}

// top returns the k classes of highest value for x, best first (ties:
// the smaller class first).
func (r *ranker) top(x sparse.Vector, k int) []ranked {
	v := r.values(x)
	r.out = r.out[:0]
	for i, c := range r.classes {
		r.out = append(r.out, ranked{c, v[i]})
	}
	slices.SortStableFunc(r.out, func(a, b ranked) int { return cmp.Compare(b.value, a.value) })
	return r.out[:min(k, len(r.out))]
}

// proba returns the probability of class c for x.
func (r *ranker) proba(x sparse.Vector, c float64) float64 {
	v := r.values(x)
	return v[slices.Index(r.classes, c)]
}

// warnOverflow warns when scores passed float32's range (values such as
// 1e20 times weights of the same size): the labels are still the exact
// scores' (the model sums such rows again in float64), but the scores
// printed are ±Inf.
func warnOverflow(env *Env, file string, dec []float32) {
	n, first := 0, -1
	for i, v := range dec {
		if v-v != 0 {
			if n++; first < 0 {
				first = i
			}
		}
	}
	if n > 0 {
		env.warn("%s: %d rows (the first is row %d) score beyond float32's range; their labels follow the exact score and their scores are ±Inf: scale the features down", file, n, first+1)
	}
}

// isLabelControl reports whether r is a character the text reader
// refuses in a label: a C0 or C1 control, DEL, or the line and paragraph
// separators U+2028 and U+2029, which tools that split lines by Unicode
// take for line ends.
func isLabelControl(r rune) bool {
	return r < 0x20 || r >= 0x7f && r <= 0x9f || r == 0x2028 || r == 0x2029
}
