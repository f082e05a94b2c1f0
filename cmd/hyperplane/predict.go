package main

import (
	"bufio"
	"cmp"
	"context"
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
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

func newPredictCmd() *Command {
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
	}
	fs := &c.Flag
	model := fs.String("model", "", "the model `file`")
	scores := fs.Bool("scores", false, "write the decision value after each label")
	labelCol := labelColFlag(fs)
	out := fs.String("o", "", "write to this `file` (atomically) instead of standard output")
	strict := fs.Bool("strict", false, "fail when FILE has features past the model's width (default: warn)")
	feat := fs.String("featurizer", "", "write label names from this text featurizer `file` (see convert), and read raw text with it")
	from := fs.String("from", "", "what FILE holds: raw text (text: told by its content; or jsonl, tsv or lines, a document a line), libsvm or cache; default: by its content (see above)")
	ff := addFieldFlags(fs)
	proba := fs.Bool("proba", false, "text models: write the label's probability after it (with -k, each label's)")
	topK := fs.Int("k", 0, "write the `N` most likely labels, best first (0: the predicted label only)")
	explain := fs.Int("explain", 0, "text models: after the label, the `N` terms of the document that weigh most in its label's score, with their contributions")
	showProgress := progressFlag(fs)
	c.Run = func(ctx context.Context, env *Env, args []string) error {
		env.progress = *showProgress
		stdout := env.Stdout
		if len(args) != 1 || *model == "" {
			return usageError("predict needs -model MODEL and one FILE")
		}
		var outs []arg
		if len(setAmong(fs, "o")) > 0 && *out != "-" {
			outs = append(outs, arg{"-o", *out})
		}
		w, err := prepareOutputs(stdout, append([]arg{{"FILE", args[0]}, {"-model", *model}, {"-featurizer", *feat}}, stdioInput(env, args[0])...), outs...)
		if err != nil {
			return err
		}
		defer w.cleanup()
		if *topK < 0 {
			return usageError("-k %d is negative", *topK)
		}
		if *explain < 0 {
			return usageError("-explain %d is negative", *explain)
		}
		if *proba && *scores {
			return usageError("-scores and -proba: give one")
		}
		switch *from {
		case "", "text", "jsonl", "tsv", "lines", "libsvm", "cache":
		default:
			return usageError("-from %q (want text, jsonl, tsv, lines, libsvm or cache)", *from)
		}
		fromText := *from != "libsvm" && *from != "cache"
		if isNumberedMultiLabel(*model) {
			m, err := engine.LoadMultiLabel(*model)
			if err != nil {
				return err
			}
			if *explain > 0 || *feat != "" {
				return usageError("%s is a multi-label model of numbered features: -explain and -featurizer take text models", *model)
			}
			write := func(dst io.Writer) error { return predictNumberedMultiLabel(dst, m, args[0], *topK, *scores, *proba) }
			if len(outs) == 0 {
				return write(stdout)
			}
			if err := write(w.writer(*out)); err != nil {
				return err
			}
			return w.commit()
		}
		if textmodel.IsMultiLabelFile(*model) {
			if !fromText || *feat != "" {
				return usageError("%s is a multi-label text model: it reads raw text and holds its featurizer", *model)
			}
			textFrom := *from
			if textFrom == "text" {
				textFrom = ""
			}
			write := func(dst io.Writer) error {
				return predictMultiLabel(ctx, env, dst, *model, args[0], textFrom, ff, *topK, *scores, *proba, *explain)
			}
			if len(outs) == 0 {
				return write(stdout)
			}
			if err := write(w.writer(*out)); err != nil {
				return err
			}
			return w.commit()
		}
		if *feat != "" && isTextModel(*model) {
			return usageError("%s is a text model and holds its featurizer: drop -featurizer", *model)
		}
		in, err := openData(ctx, env, args[0])
		if err != nil {
			return inFile(args[0], err)
		}
		defer in.close()
		// A text model that reads a few documents is loaded for them
		// alone (textmodel.LoadFor), which costs a fraction of loading
		// the whole: the documents are read first, with the fields and
		// labels of the model loaded for no documents (its header).
		var m engine.Classifier
		var tm *textmodel.Model
		var dr *docReader
		var head []string
		if isTextModel(*model) && *feat == "" {
			if !fromText {
				return usageError("-from %s: %s is a text model, which reads raw text", *from, *model)
			}
			probe, err := textmodel.LoadFor(*model, []string{})
			if err != nil {
				return err
			}
			pf := probe.Featurizer()
			opt := ff.options(pf, args[0], *from)
			opt.IsLabel = pf.IsLabel
			dr = openDocs(in, opt)
			var end bool
			if head, end, err = dr.head(subsetLimit(*model)); err != nil {
				return interrupted(ctx, notText(inFile(args[0], err), *model))
			}
			switch {
			case !pf.Config().Vocabulary || pf.Dim() > 0:
				tm = probe // read whole: it cannot be read in part
			case end:
				tm, err = textmodel.LoadFor(*model, head)
				partLoads.Add(1)
			default:
				tm, err = textmodel.Load(*model)
			}
			if err != nil {
				return err
			}
			m = tm.Classifier()
		} else if m, tm, err = loadModel(*model); err != nil {
			return err
		}
		var names *text.Featurizer
		if tm != nil {
			if *feat != "" {
				return usageError("%s is a text model and holds its featurizer: drop -featurizer", *model)
			}
			names = tm.Featurizer()
		} else if (*proba && !nativeProba(m)) || *explain > 0 {
			return usageError("-proba and -explain need a text model (train on raw text -o M.hptm), which holds its calibration and its terms; %s is a model of numbered features, with neither (-scores gives its raw scores)", *model)
		}
		if *feat != "" {
			if names, err = text.Load(*feat); err != nil {
				return err
			}
			// With names for labels (not numbers, which name
			// themselves), every class must be one of them, or the
			// output would mix names with bare numbers.
			classes := m.ClassValues()
			known := names.Labels()
			// Numbers name themselves: each label is its class
			// value, written canonically ("01", "1", "1.0" are
			// names, classes 0, 1, 2).
			numeric := true
			for _, s := range known {
				if v, err := names.Label(s); err != nil || strconv.FormatFloat(v, 'g', -1, 64) != s {
					numeric = false
				}
			}
			for _, c := range classes {
				if !numeric && !slices.Contains(known, names.Name(c)) {
					return fmt.Errorf("%s: class %v of model %s is none of its labels %s: was the model trained on this featurizer's output?", *feat, c, *model, labelList(known, nil))
				}
			}
		}
		var rawText bool
		switch {
		case tm != nil:
			rawText = true
		case *from != "":
			rawText = fromText
		default:
			rawText = in.isText()
		}
		if rawText && names == nil {
			if *from == "" {
				return in.notNumbered(*model)
			}
			return usageError("raw text needs the -featurizer it was converted with")
		}
		if set := ff.set(); len(set) > 0 && !rawText {
			return usageError("-%s: the field flags apply to raw text", set[0])
		}
		var d *sparse.Dataset
		var docs []string
		if rawText {
			var keep *[]string
			if *explain > 0 {
				keep = &docs
			}
			if dr == nil {
				opt := ff.options(names, args[0], *from)
				opt.IsLabel = names.IsLabel
				dr = openDocs(in, opt)
			}
			d, err = dr.rows(head, names, keep)
			err = notText(err, *model)
		} else if *explain > 0 {
			return usageError("-explain reads raw text")
		} else {
			d, err = readData(in, *labelCol)
		}
		if err != nil {
			return interrupted(ctx, inFile(args[0], err))
		}
		if err := checkWidth(env, args[0], d.X, m, *strict); err != nil {
			return err
		}
		pred := m.PredictBatch(d.X, nil)
		// The labels are the exact scores' even where float32
		// overflows; only printed scores can show it.
		var dec []float32
		if *scores && *topK == 0 {
			dec = m.DecisionBatch(d.X, nil)
			warnOverflow(env, args[0], dec)
		}
		name := func(b []byte, v float64) []byte {
			if names != nil {
				return appendLabel(b, names.Name(v))
			}
			return strconv.AppendFloat(b, v, 'g', -1, 64)
		}
		rank := newRanker(m, tm, *proba)
		write := func(w io.Writer) error {
			// (Through ctx: a signal stops the writing at the next
			// buffer.)
			bw := bufio.NewWriterSize(ctxWriter{ctx, w}, 64<<10)
			var b []byte
			for i, p := range pred {
				b = b[:0]
				switch {
				case *topK > 0:
					for j, c := range rank.top(d.X.Row(i), *topK) {
						if j > 0 {
							b = append(b, '\t')
						}
						b = name(b, c.class)
						if *scores || *proba {
							b = append(b, '\t')
							b = strconv.AppendFloat(b, c.value, 'g', 6, 64)
						}
					}
				default:
					b = name(b, p)
					if *scores {
						b = append(b, '\t')
						b = strconv.AppendFloat(b, float64(dec[i]), 'g', -1, 32)
					}
					if *proba {
						b = append(b, '\t')
						b = strconv.AppendFloat(b, rank.proba(d.X.Row(i), p), 'g', 6, 64)
					}
				}
				if *explain > 0 {
					_, _, terms, err := tm.Explain(docs[i], *explain)
					if err != nil {
						return err
					}
					b = append(b, '\t')
					for j, c := range terms {
						if j > 0 {
							b = append(b, ' ')
						}
						b = strconv.AppendQuote(b, c.Term)
						b = append(b, ' ')
						b = strconv.AppendFloat(b, c.Value, 'f', 3, 64)
					}
				}
				b = append(b, '\n')
				if _, err := bw.Write(b); err != nil {
					return err
				}
			}
			return bw.Flush()
		}
		if len(outs) == 0 {
			return interrupted(ctx, write(stdout))
		}
		if err := write(w.writer(*out)); err != nil {
			return interrupted(ctx, err)
		}
		return w.commit()
	}
	return c
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
