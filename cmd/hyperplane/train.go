package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/engine/metrics"
	"github.com/hyperplane-ml/hyperplane/internal/iox"
	"github.com/hyperplane-ml/hyperplane/kernels"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

func newTrainCmd() *Command {
	o := new(trainOptions)
	c := &Command{
		UsageLine: "train TRAIN",
		Short:     "train a linear or kernel classifier on LIBSVM, CSV, a cache or raw text",
		Long: `Train reads a LIBSVM/SVMlight file (gzip too), trains a linear
classifier and prints the training time. The default learner is the
averaged passive-aggressive PA-II (-C sets its aggressiveness); -algo picks
another: the perceptrons (averaged, plain, voted, batch), pa and pa1
(passive-aggressive), pegasos (a linear SVM by stochastic sub-gradient
steps), logistic (logistic regression, softmax for multiclass, whose
scores are log-odds: predict -proba gives its probabilities) or
modified_huber (scikit-learn's loss of that name), the last three by
averaged SGD with -alpha as their regularization. Rows are scaled to unit length in
training and in the model's predictions unless -normalize=false (the voted
perceptron and kernel models use the raw rows). Dense numeric data whose
columns are on very different scales (columns' largest values 100-fold
apart or more) is standardized instead, as scikit-learn's StandardScaler
does, and the output says so: the scaling is fitted on the training rows
(on each fold's with -cv), folded into the model and recorded in its file,
so predict and eval take raw rows; -scale none, standard or maxabs decides
it by hand. With -test it evaluates on
a second file, with -o it saves the model (written atomically), with
-margins it reports the margin diagnostics on the training rows. Two
distinct labels give a binary model, more a multiclass one. Ctrl-C (or
SIGTERM, SIGHUP) stops after the current epoch's check and still saves
the model so far when -o is given; so does an error after the first epoch
(a -stream cache that changed or went bad, a read error), which then says
that the model saved is partial and exits 1. The -o file is checked before
the data are read, and may not be one of the files read.

With -kernel it trains the dual (kernel) perceptron instead: -kernel
rbf:gamma=2, poly:degree=2,gamma=1,coef0=1, sigmoid:gamma=0.01,coef0=0,
linear, or default (RBF with gamma = 1/(features·variance)). Rows of the
Gram matrix are computed as updates need them and kept within -gram-mb
(all of them when they fit, else the most recently used);
-precompute-gram computes the whole matrix first. -budget caps the
support vectors (with -algo plain). On raw text -kernel trains a kernel
model on the featurizer's rows; it is calibrated and saved as a linear
one is, but on text a kernel measured no more accurate than the linear
model, and much slower to train and to predict. A kernel whose RBF gamma
is far from the data's scale, or a model that keeps (nearly) every row
as a support vector, draws a warning on stderr.

With -i MODEL it continues a saved model on TRAIN, as Vowpal Wabbit's -i
and scikit-learn's partial_fit do: a linear model on LIBSVM rows or a
cache, a text model on raw text through its own featurizer (its
vocabulary and IDF as they were; it is calibrated again). The learner,
bias, row normalization and scaling are the model's unless flags set
them, the weights start from its own, and TRAIN's labels must be among
its classes. The new epochs average from the model's weights (a model
keeps its average, not the vectors it averaged). Kernel and voted
models do not continue, nor pegasos, logistic and modified_huber (their
steps follow the examples seen; another -algo continues from the
weights).

On labelled raw text (JSONL, label<TAB>text, fastText's __label__ lines,
plain or gzip) train fits the featurizer itself (words and pairs of
words in at least two documents, log tf, IDF, unless the text flags say
otherwise) and writes one text model. From 4,000 documents up, a
fortieth of them (250 to 5,000) is held out of the model to calibrate
its probabilities on; -refit learns from every document and calibrates a
second model instead, as smaller sets always are; -no-calibrate skips
it. With -stream the featurizer is fitted on a first read of the text,
a second read (of a file; standard input's raw counts wait in a
temporary file instead) writes its rows to a cache beside -o (else in
TMPDIR) and the epochs read that cache a block at a time, so that
neither the text nor its rows need fit in memory; the cache is removed
however train ends. A text file of over 256 MB streams
so by default (-stream=false keeps it in memory).`,
		Run: o.run,
	}
	o.addFlags(&c.Flag)
	return c
}

// addFlags declares train's flags on fs, into o.
func (o *trainOptions) addFlags(fs *flag.FlagSet) {
	o.flags = fs
	cfg := &o.cfg
	fs.StringVar(&o.algo, "algo", "", "learner: averaged, plain, voted or batch perceptron; or pa, pa1, pa2 (passive-aggressive), pegasos (linear SVM), logistic or modified_huber, averaged unless -no-average (default pa2; averaged with -kernel)")
	fs.BoolVar(&o.noAverage, "no-average", false, "with -algo pa, pa1, pa2, pegasos, logistic or modified_huber: keep the last weights instead of their average")
	fs.Float64Var(&cfg.C, "C", 0, "aggressiveness of -algo pa1 and pa2 (default 1)")
	fs.Float64Var(&cfg.Alpha, "alpha", 0, "regularization λ of -algo pegasos (default 1e-4), logistic and modified_huber (default 1e-6)")
	fs.BoolVar(&o.normalize, "normalize", true, "scale every row to unit length in training and prediction (recorded in the model); -normalize=false learns from the raw values")
	fs.StringVar(&o.scale, "scale", "auto", "feature scaling, fitted on the training rows and folded into the model: standard (mean 0, sd 1; rows become dense), maxabs (into [-1, 1], zeros kept), none, or auto: standard for dense numeric data whose columns' scales differ 100-fold or more, said in the output, else none")
	fs.IntVar(&cfg.Epochs, "epochs", 0, "most passes over the data (default: "+epochsDefaults()+")")
	fs.Float64Var(&cfg.LearningRate, "lr", 1, "learning rate")
	fs.StringVar(&o.bias, "bias", "separate", "bias: separate, augmented or none")
	fs.Float64Var(&cfg.BiasScale, "bias-scale", 1, "constant feature value for -bias augmented")
	fs.Float64Var(&cfg.InitScale, "init", 0, "start weights uniformly in [-init, init] (0: zeros)")
	fs.Float64Var(&cfg.Margin, "margin", 0, "update when y·score ≤ margin")
	fs.Uint64Var(&cfg.Seed, "seed", 0, "seed for shuffling, init and the validation split")
	fs.BoolVar(&cfg.NoShuffle, "no-shuffle", false, "visit rows in file order")
	fs.BoolVar(&o.stream, "stream", false, "train out of core, a block at a time, with bounded memory: from a cache file (see convert), or from raw text through a cache written beside -o (else in TMPDIR) while the text is read, and removed at the end")
	fs.IntVar(&o.threads, "threads", 1, "train averaged and plain on this many cores by iterative parameter mixing (0: all cores). The default, 1, is the sequential algorithm: on the shared sets an epoch takes milliseconds and two workers were no faster on a9a, 20ng and r52 and cost 0.3 to 0.8 points of test accuracy (imdb, 20ng, r52); mixing pays on millions of rows. A model trained with 1 does not depend on the machine's cores")
	fs.Float64Var(&cfg.Validation, "validation", 0, "hold out this fraction for early stopping")
	fs.IntVar(&cfg.Patience, "patience", 5, "epochs without improvement before early stopping")
	fs.BoolVar(&cfg.Balanced, "balanced", false, "weigh classes by n/(k·n_class)")
	fs.StringVar(&o.classWeight, "class-weight", "", "per-class weights, `LABEL:W,...`")
	fs.StringVar(&o.test, "test", "", "evaluate on this `file`, of TRAIN's kind (LIBSVM, CSV or a cache; labelled text for text); - reads standard input")
	fs.StringVar(&o.out, "o", "", "save the model to this `file`")
	o.labelCol = labelColFlag(fs)
	o.progress = progressFlag(fs)
	fs.BoolVar(&o.margins, "margins", false, "report margins, radius and the mistake bound on the training rows")
	fs.BoolVar(&o.report, "report", false, "with -test: print per-class precision, recall, F1 and the confusion matrix")
	fs.BoolVar(&o.verbose, "v", false, "print every epoch's statistics on stderr")
	fs.BoolVar(&o.json, "json", false, "print the result as JSON")
	fs.StringVar(&o.kernel, "kernel", "", "train a kernel perceptron with this kernel `spec` (rbf:gamma=G, poly:degree=D,gamma=G,coef0=C, sigmoid:gamma=G,coef0=C, linear, default)")
	fs.IntVar(&o.budget, "budget", 0, "with -kernel and -algo plain: most support vectors (0: no cap)")
	fs.Int64Var(&o.gramMB, "gram-mb", kernels.DefaultBudget>>20, "with -kernel: memory for the Gram matrix in MiB (full matrix if it fits, else an LRU row cache)")
	fs.BoolVar(&o.precompute, "precompute-gram", false, "with -kernel: compute the whole Gram matrix before training when it fits -gram-mb (default: rows as updates need them)")
	fs.IntVar(&o.cv, "cv", 0, "first cross-validate: train on K-1 of K stratified folds and test on the last, for each fold (K ≥ 2), folds on all cores")
	fs.StringVar(&o.from, "from", "", "what TRAIN holds: text (labelled raw text), libsvm or cache (default: by its content and name)")
	o.text = addTextFlags(fs, trainTextDefaults, false)
	fs.StringVar(&o.initial, "i", "", "continue training the model in this `file` (linear, or a text model on raw text) on TRAIN: its learner, bias, row normalization, scaling and featurizer, starting from its weights; TRAIN's labels must be among its classes and its features no more than its")
	fs.BoolVar(&o.noCalib, "no-calibrate", false, "text: do not calibrate the probabilities (by default a fortieth of the training text, 250 to 5,000 documents, is held out to fit them on and not learned from)")
	fs.BoolVar(&o.refit, "refit", false, "text: learn from every document and calibrate on a second model trained without the held-out tenth (a second training)")
	fs.BoolVar(&o.multilabel, "multilabel", false, "text: every document has a list of labels (a JSONL array, or comma-separated in TSV); the default for a JSONL file whose first label is an array")
}

// epochsDefaults says the learners' default epochs (engine's
// Rule.DefaultEpochs), for -epochs's help: the perceptron's, and those
// of the rules whose default differs from it ("10; 30 for -algo
// logistic").
func epochsDefaults() string {
	def := engine.Perceptron.DefaultEpochs()
	s := strconv.Itoa(def)
	for _, r := range []engine.Rule{engine.PA, engine.PA1, engine.PA2, engine.Pegasos, engine.Logistic, engine.ModifiedHuber} {
		if n := r.DefaultEpochs(); n != def {
			s += fmt.Sprintf("; %d for -algo %v", n, r)
		}
	}
	return s
}

// trainOptions holds train's flags: those that are the learner's
// settings as they are in cfg, the others as given. run derives from
// them the learner's whole engine.Config and a trainOpts.
type trainOptions struct {
	flags       *flag.FlagSet // to tell the flags set on the command line
	cfg         engine.Config
	algo        string
	noAverage   bool
	normalize   bool
	scale       string
	bias        string
	stream      bool
	threads     int
	classWeight string
	test, out   string
	labelCol    *string
	progress    *bool
	margins     bool
	report      bool
	verbose     bool
	json        bool
	kernel      string
	budget      int
	gramMB      int64
	precompute  bool
	cv          int
	from        string
	text        *textFlags
	initial     string // -i
	noCalib     bool
	refit       bool
	multilabel  bool
}

// multiLabelNumbered reports whether TRAIN (path), not text, trains a
// multi-label model of numbered features: multi-label LIBSVM (by its
// first row, or -multilabel) or a cache file with label lists.
func (o *trainOptions) multiLabelNumbered(path string) bool {
	if path == "-" || csvNamed(path) {
		return false
	}
	switch o.from {
	case "", "libsvm":
		if o.multilabel || libsvmLabelIsList(path) {
			return true
		}
	}
	return (o.from == "" || o.from == "cache") && isMultiLabelCache(path)
}

// set reports whether the command line set the flag name.
func (o *trainOptions) set(name string) bool { return len(setAmong(o.flags, name)) > 0 }

// run trains on TRAIN, args[0]: a multi-label model, a text model, or a
// linear or kernel model of LIBSVM, CSV or cache rows.
func (o *trainOptions) run(ctx context.Context, env *Env, args []string) error {
	if len(args) != 1 {
		return usageError("train takes one TRAIN file")
	}
	path := args[0]
	isText, env, err := o.sniff(ctx, env, path)
	if err != nil {
		return err
	}
	if err := o.checkFlags(isText); err != nil {
		return err
	}
	if isText && (o.multilabel || firstLabelIsList(path, o.text.readOptions(path))) {
		return runTrainMultiLabel(ctx, env, o.flags, path, o.algo, o.cfg, o.text, o.normalize,
			trainOpts{ctx: ctx, env: env, test: o.test, out: o.out, json: o.json})
	}
	if !isText && o.multiLabelNumbered(path) {
		return runTrainMultiLabelNumbered(ctx, env, o.flags, path, o.algo, o.cfg,
			trainOpts{ctx: ctx, env: env, test: o.test, out: o.out, json: o.json})
	}
	cfg, err := o.config()
	if err != nil {
		return err
	}
	tr, err := o.runOpts(ctx, env, cfg, isText)
	if err != nil {
		return err
	}
	kern, err := o.kernelOpts()
	if err != nil {
		return err
	}
	if o.initial != "" {
		if cfg, err = o.warmStart(&tr, cfg, isText); err != nil {
			return err
		}
	}
	if !o.set("epochs") {
		// The learner's own default, set here rather than left to the
		// library, so that the progress meters and -json count it.
		cfg.Epochs = cfg.Rule.DefaultEpochs()
	}
	// The library's checks of the options, before any data are read.
	if err := configError(cfg, kern); err != nil {
		if bad := setAmong(o.flags, "lr", "margin", "init"); len(bad) > 0 && o.algo == "" && cfg.Rule != engine.Perceptron {
			return fmt.Errorf("%w\nhint: %s are the perceptron's: add -algo averaged; the default learner, %s, sets its own steps", err, strings.Join(bad, ", "), o.learner())
		}
		return err
	}
	var tt *textTrain
	if isText {
		if tt, err = o.textTrain(path, kern); err != nil {
			return err
		}
	}
	outs, err := prepareTrain(o.flags, env.Stdout, path, tr, o.initial)
	if err != nil {
		return err
	}
	defer outs.cleanup()
	tr.outs = outs
	if tt != nil {
		return o.trainOnText(env, path, cfg, *tt, tr)
	}
	return trainModel(path, cfg, kern, tr)
}

// sniff tells whether TRAIN (path) is raw text: by -from, else by its
// name, else by its first line. Standard input, which has no name, is
// read through a buffer that the training then reads on from, which the
// Env returned holds.
func (o *trainOptions) sniff(ctx context.Context, env *Env, path string) (isText bool, _ *Env, _ error) {
	switch o.from {
	case "text":
		return true, env, nil
	case "", "libsvm", "cache":
	default:
		return false, env, usageError("-from %q (want text, libsvm or cache)", o.from)
	}
	if o.from != "" {
		return false, env, nil
	}
	if path == "-" {
		br := bufio.NewReaderSize(iox.Reader(ctx, env.Stdin), 1<<16)
		kind, _, err := text.Sniff(br)
		if err != nil {
			return false, env, interrupted(ctx, &fileError{"standard input", err})
		}
		e := *env
		e.Stdin = br
		return kind == text.KindJSONL || kind == text.KindText, &e, nil
	}
	if textNamed(path) {
		return true, env, nil
	}
	// A name that does not say (fastText's cooking.train): the first
	// line tells.
	return !csvNamed(path) && fileIsText(path), env, nil
}

// checkFlags refuses the text flags on data that is not text, and a
// flag written as 0 where the library reads 0 as its default: it asks
// for something else, and gets a usage error instead.
func (o *trainOptions) checkFlags(isText bool) error {
	if set := setAmong(o.flags, append(o.text.all, "no-calibrate", "refit")...); !isText && len(set) > 0 {
		return usageError("%s: the text flags apply to raw text (a TRAIN named .jsonl, .json, .tsv, .txt, or -from text)", set[0])
	}
	cfg := &o.cfg
	for _, f := range []struct {
		name string
		v    float64
	}{{"epochs", float64(cfg.Epochs)}, {"lr", cfg.LearningRate}, {"bias-scale", cfg.BiasScale},
		{"C", cfg.C}, {"alpha", cfg.Alpha}, {"patience", float64(cfg.Patience)}} {
		if o.set(f.name) && !(f.v > 0) {
			return usageError("-%s %v: the value must be positive", f.name, f.v)
		}
	}
	return nil
}

// learner is -algo, or the default learner (with -kernel, the kernel
// one).
func (o *trainOptions) learner() string {
	switch {
	case o.algo != "":
		return o.algo
	case o.kernel != "":
		return defaultKernelLearner
	}
	return defaultLearner
}

// config returns the learner's settings: the flags' cfg with the
// learner, the bias, the class weights, the workers and the row
// normalization the other flags set.
func (o *trainOptions) config() (engine.Config, error) {
	cfg := o.cfg
	var err error
	if cfg.Algorithm, cfg.Rule, err = parseLearner(o.learner(), o.noAverage); err != nil {
		return cfg, usageError("-algo: %v", err)
	}
	if cfg.Rule != engine.Perceptron && !o.set("lr") {
		cfg.LearningRate = 0 // -lr's default is the perceptron's; the other rules set their own steps
	}
	if cfg.Bias, err = engine.ParseBiasMode(o.bias); err != nil {
		return cfg, usageError("-bias: %v", err)
	}
	if cfg.ClassWeight, err = parseClassWeights(o.classWeight); err != nil {
		return cfg, usageError("-class-weight: %v", err)
	}
	cfg.Workers = o.threads
	if o.threads == 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	if cfg.Workers > 1 && cfg.Algorithm == engine.Batch {
		// (The library ignores Workers for it.)
		return cfg, usageError("-threads: the batch perceptron scores on all cores already")
	}
	// Rows are normalized by default for the linear learners; the voted
	// perceptron replays its mistakes on the raw rows, and refuses
	// -normalize when it is asked for.
	cfg.Normalize = o.normalize && o.kernel == "" && (cfg.Algorithm != engine.Voted || o.set("normalize"))
	return cfg, nil
}

// runOpts returns what train does besides fitting, from the flags,
// and refuses the combinations of them it cannot do.
func (o *trainOptions) runOpts(ctx context.Context, env *Env, cfg engine.Config, isText bool) (trainOpts, error) {
	tr := trainOpts{ctx: ctx, env: env, test: o.test, out: o.out, margins: o.margins, report: o.report, verbose: o.verbose, json: o.json, stream: o.stream, cv: o.cv, labelCol: *o.labelCol}
	env.progress = *o.progress
	tr.scale = scaleOpts{mode: strings.ToLower(o.scale), normalize: o.normalize && o.set("normalize")}
	switch tr.scale.mode {
	case "auto", "none":
	case "standard", "maxabs":
		switch {
		case o.kernel != "" || o.stream || isText:
			return tr, usageError("-scale %s: a linear model on LIBSVM rows in memory only (not -kernel, -stream or raw text)", o.scale)
		case tr.scale.normalize || cfg.Algorithm == engine.Voted:
			return tr, usageError("-scale %s replaces -normalize, and the voted perceptron learns from raw rows", o.scale)
		}
	default:
		return tr, usageError("-scale %q (want auto, standard, maxabs or none)", o.scale)
	}
	if o.out == "-" {
		return tr, usageError("-o -: a model is written to a file, not to standard output")
	}
	if o.out != "" && writesStdout(env.Stdout, o.out) {
		// A model streamed to standard output (-o /dev/stdout): the
		// report goes to standard error.
		tr.env = &Env{Stdin: env.Stdin, Stdout: env.Stderr, Stderr: env.Stderr}
	}
	if o.stream && o.margins {
		return tr, usageError("-stream trains from a cache a block at a time; -margins needs the data in memory")
	}
	if o.cv != 0 && (o.stream || o.kernel != "") {
		return tr, usageError("-cv needs the data in memory and a linear learner (not -stream or -kernel)")
	}
	return tr, nil
}

// kernelOpts returns the kernel learner's options, nil without -kernel,
// and refuses the flags that do not go with it, or without it.
func (o *trainOptions) kernelOpts() (*kernelOpts, error) {
	if o.kernel == "" {
		if len(setAmong(o.flags, "budget", "gram-mb", "precompute-gram")) > 0 {
			return nil, usageError("-budget, -gram-mb and -precompute-gram need -kernel")
		}
		return nil, nil
	}
	bad := setAmong(o.flags, "init", "validation", "patience", "margins", "threads", "stream")
	if o.normalize && o.set("normalize") {
		bad = append(bad, "-normalize") // -normalize=false is what kernels do
	}
	if len(bad) > 0 {
		return nil, usageError("%s not available with -kernel", strings.Join(bad, ", "))
	}
	if o.gramMB <= 0 || o.gramMB > 1<<40 {
		return nil, usageError("-gram-mb %d: want 1 to 2^40 MiB", o.gramMB)
	}
	kern := &kernelOpts{budget: o.budget, gram: kernels.Options{Budget: o.gramMB << 20, Precompute: o.precompute}}
	if !strings.EqualFold(o.kernel, "default") {
		var err error
		if kern.kernel, err = kernels.Parse(o.kernel); err != nil {
			return nil, usageError("-kernel: %v", err)
		}
	}
	return kern, nil
}

// warmStart loads the -i model into tr and returns cfg with the model's
// settings where the flags set none (see warmStart.config).
func (o *trainOptions) warmStart(tr *trainOpts, cfg engine.Config, isText bool) (engine.Config, error) {
	switch {
	case o.kernel != "" || o.cv != 0:
		return cfg, usageError("-i continues one linear model: not with -kernel or -cv")
	case isText && len(setAmong(o.flags, o.text.all...)) > 0:
		return cfg, usageError("%s: -i featurizes the text with the model's own featurizer", setAmong(o.flags, o.text.all...)[0])
	}
	var err error
	if tr.warm, err = loadWarm(o.initial, isText); err != nil {
		return cfg, err
	}
	if o.stream && tr.warm.linear.Scaling != nil {
		return cfg, usageError("-stream: the model in %s scales its features, which training from a cache does not; drop -stream", o.initial)
	}
	return tr.warm.config(o.flags, cfg)
}

// textTrain returns what training on the raw text at path needs beyond
// the learner: the featurizer's settings and the calibration's.
func (o *trainOptions) textTrain(path string, kern *kernelOpts) (*textTrain, error) {
	if o.stream && (kern != nil || o.initial != "" || o.refit) {
		return nil, usageError("-stream on raw text trains a new linear model, calibrated on documents held out of it (not -kernel, -i or -refit)")
	}
	if path == "-" && o.test == "-" {
		return nil, usageError("TRAIN and -test cannot both be standard input")
	}
	tcfg, err := o.text.config(o.flags)
	if err != nil {
		return nil, err
	}
	// One -normalize for both: the featurizer's unit rows, or none, and
	// the learner's scaling, which unit rows make a no-op.
	tcfg.NoNormalize = !o.normalize
	return &textTrain{cfg: tcfg, read: o.text.readOptions, noCalib: o.noCalib, refit: o.refit, kernel: kern}, nil
}

// trainOnText trains on the raw text at path, in memory or streamed (by
// -stream, or by default for a big file).
func (o *trainOptions) trainOnText(env *Env, path string, cfg engine.Config, tt textTrain, tr trainOpts) error {
	if *o.labelCol != "" {
		return usageError("-label-col %q: %s is raw text, not a CSV table (.csv, .csv.gz)", *o.labelCol, path)
	}
	if !o.stream && !o.set("stream") && streamsByDefault(path, cfg, tt, tr, o.initial) {
		env.warn("%s holds about %s MB of text: training from a cache written while it is read, as -stream does (-stream=false keeps its rows in memory)", path, commas(textSize(path)>>20))
		o.stream = true
	}
	if o.stream {
		return trainTextStream(path, cfg, tt, tr)
	}
	return trainText(path, cfg, tt, tr)
}

// final reports whether anything needs the model trained on all of the
// data: with -cv alone, the folds' figures are the result.
func (o trainOpts) final() bool { return o.out != "" || o.test != "" || o.margins }

// prepareTrain checks train's files and creates the -o file, if any,
// before any data are read: see prepareOutputs.
func prepareTrain(fs *flag.FlagSet, stdout io.Writer, path string, o trainOpts, initial string) (*outputs, error) {
	var outs []arg
	if len(setAmong(fs, "o")) > 0 {
		outs = append(outs, arg{"-o", o.out})
	}
	return prepareOutputs(stdout, []arg{{"TRAIN", path}, {"-test", o.test}, {"-i", initial}}, outs...)
}

// save writes m to the -o file, replacing its target.
func (o trainOpts) save(m io.WriterTo) error {
	if o.out == "" {
		return nil
	}
	if _, err := m.WriteTo(o.outs.writer(o.out)); err != nil {
		return err
	}
	return o.outs.commit()
}

// trainResult is what train prints with -json.
type trainResult struct {
	Train        string             `json:"train"`
	Test         string             `json:"test,omitempty"`
	Tier         string             `json:"tier"`
	Algorithm    string             `json:"algorithm"`
	Rule         string             `json:"rule"`
	Normalize    bool               `json:"normalize"`
	Scale        string             `json:"scale,omitempty"`          // the feature scaling, when the rows were scaled
	Continued    string             `json:"continued_from,omitempty"` // -i: the model training started from
	Workers      int                `json:"workers,omitempty"`
	Streamed     bool               `json:"streamed,omitempty"`
	Rows         int                `json:"rows"`
	Features     int                `json:"features"`
	Classes      int                `json:"classes"`
	NNZ          int64              `json:"nnz"`
	Epochs       int                `json:"epochs"`
	ReadSeconds  float64            `json:"read_seconds"`
	TrainSeconds float64            `json:"train_seconds"`
	EpochSeconds float64            `json:"seconds_per_epoch"`
	NsPerNNZ     float64            `json:"ns_per_nonzero"`
	Mistakes     []int              `json:"mistakes_per_epoch"`
	TestRows     int                `json:"test_rows,omitempty"`
	TestAccuracy *float64           `json:"test_accuracy,omitempty"`
	TestSeconds  float64            `json:"test_seconds,omitempty"`
	Margins      *marginsJSON       `json:"margins,omitempty"`
	Confusion    *metrics.Confusion `json:"confusion,omitempty"`
	Warnings     []string           `json:"warnings,omitempty"` // about the test data, as eval gives them
	Validation   *validationJSON    `json:"validation,omitempty"`
	CV           *cvJSON            `json:"cv,omitempty"`
	// Raw text only: the featurizer, the label names in class order, the
	// calibration, and the test set's log loss and calibration error.
	Text               string   `json:"featurizer,omitempty"`
	Labels             []string `json:"labels,omitempty"`
	Calibration        string   `json:"calibration,omitempty"`
	CalibrationSeconds float64  `json:"calibration_seconds,omitempty"`
	// CalibrationRows is how many training rows were held out of the
	// model to fit its calibration on (0: none, or -refit's second model).
	CalibrationRows int `json:"calibration_rows,omitempty"`
	// VocabPruned, for text read with -stream, is how many documents a
	// term could be in and still be dropped while the text was read, to
	// keep the vocabulary's counts within the memory budget (0: none).
	VocabPruned int      `json:"vocab_pruned,omitempty"`
	TestLogLoss *float64 `json:"test_log_loss,omitempty"`
	TestECE     *float64 `json:"test_ece,omitempty"`
	// announced: the data line went out before training (see announce).
	announced bool
	// Kernel perceptron only.
	Kernel         string         `json:"kernel,omitempty"`
	SupportVectors int            `json:"support_vectors,omitempty"`
	Gram           *kernels.Stats `json:"gram,omitempty"`
}

// announce prints the data line before training starts, in the text
// report, so that a user sees what was read before the progress line and
// the wait; classes is the number of distinct labels.
func (r *trainResult) announce(stdout io.Writer, o trainOpts, classes int) {
	r.Classes = classes
	if o.json {
		return
	}
	r.printData(stdout)
	r.announced = true
}

func (r *trainResult) printData(stdout io.Writer) {
	read := "read"
	if r.Text != "" {
		read = "read and featurized"
	}
	fmt.Fprintf(stdout, "data:     %s: %s rows, %s features, %d classes, %s nonzeros (%s in %.0f ms)\n",
		r.Train, commas(int64(r.Rows)), commas(int64(r.Features)), r.Classes, commas(r.NNZ), read, 1e3*r.ReadSeconds)
	if r.Text != "" {
		fmt.Fprintf(stdout, "text:     %s; labels %s\n", r.Text, labelList(r.Labels, nil))
	}
	if r.Scale != "" {
		fmt.Fprintf(stdout, "scale:    %s\n", r.Scale)
	}
	if r.Continued != "" {
		fmt.Fprintf(stdout, "continue: from %s\n", r.Continued)
	}
}

// distinct returns the number of distinct values of y (−0 counts as 0).
func distinct(y []float64) int {
	seen := make(map[float64]struct{})
	for _, v := range y {
		seen[v+0] = struct{}{}
	}
	return len(seen)
}

// validationJSON reports early stopping (-validation): the epoch whose
// model train kept, its accuracy on the held-out rows, and whether
// training stopped before its last epoch.
type validationJSON struct {
	Fraction     float64 `json:"fraction"`
	BestEpoch    int     `json:"best_epoch"`
	Accuracy     float64 `json:"accuracy"`
	StoppedEarly bool    `json:"stopped_early"`
}

// earlyStopping returns what early stopping did in stats, or nil when no
// epoch measured held-out accuracy.
func earlyStopping(fraction float64, stats []engine.EpochStats, epochs int) *validationJSON {
	if fraction == 0 {
		return nil
	}
	var v *validationJSON
	for _, s := range stats {
		if s.ValidAccuracy != s.ValidAccuracy { // NaN: no held-out rows
			continue
		}
		if v == nil || s.ValidAccuracy > v.Accuracy {
			v = &validationJSON{Fraction: fraction, BestEpoch: s.Epoch, Accuracy: s.ValidAccuracy}
		}
	}
	if v != nil {
		if epochs <= 0 {
			epochs = 10
		}
		v.StoppedEarly = len(stats) < epochs && stats[len(stats)-1].Updates > 0
	}
	return v
}

// marginsJSON is engine.MarginStats as train -json prints it: a value
// that is not finite (the bound of rows the model does not separate is
// +Inf) becomes null, which JSON can carry.
type marginsJSON struct {
	Functional, Geometric, Radius jsonFloat
	Separable                     bool
	Bound                         jsonFloat
	Errors, Rows                  int
}

func newMarginsJSON(ms engine.MarginStats) *marginsJSON {
	return &marginsJSON{jsonFloat(ms.Functional), jsonFloat(ms.Geometric), jsonFloat(ms.Radius),
		ms.Separable, jsonFloat(ms.Bound), ms.Errors, ms.Rows}
}

// jsonFloat is a float64 that JSON writes as null when it is not finite.
type jsonFloat float64

func (f jsonFloat) MarshalJSON() ([]byte, error) {
	if v := float64(f); math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(f))
}

// fromStats fills in what the epochs' statistics tell: their number,
// mistakes and speed, and what early stopping did.
func (r *trainResult) fromStats(stats []engine.EpochStats, cfg engine.Config) {
	r.Epochs = len(stats)
	for _, s := range stats {
		r.Mistakes = append(r.Mistakes, s.Mistakes)
	}
	r.Validation = earlyStopping(cfg.Validation, stats, cfg.Epochs)
	if r.Epochs > 0 {
		r.EpochSeconds = r.TrainSeconds / float64(r.Epochs)
		if r.NNZ > 0 {
			r.NsPerNNZ = 1e9 * r.TrainSeconds / float64(r.NNZ*int64(r.Epochs))
		}
	}
}

// evaluate fills in the test figures of r from te, the test set o names
// (nil without one).
func (r *trainResult) evaluate(m engine.Classifier, te *sparse.Dataset, o trainOpts) error {
	if te == nil {
		return nil
	}
	ws, err := checkData(o.env, o.test, te, m, false)
	if err != nil {
		return err
	}
	r.Warnings = ws
	t2 := time.Now()
	pred := m.PredictBatch(te.X, nil)
	r.TestSeconds = time.Since(t2).Seconds()
	c, err := metrics.NewConfusion(te.Y, pred)
	if err != nil {
		return inFile(o.test, err)
	}
	acc := c.Accuracy()
	r.TestAccuracy, r.TestRows = &acc, te.X.Rows
	if o.report {
		r.Confusion = c
	}
	if o.text != nil {
		ll, ece, err := probaMetrics(o.text, te)
		if err != nil {
			return inFile(o.test, err)
		}
		r.TestLogLoss, r.TestECE = &ll, &ece
	}
	return nil
}

// print writes r as text or JSON.
func (r *trainResult) print(stdout io.Writer, o trainOpts) error {
	if o.json {
		return printJSON(stdout, r)
	}
	if !r.announced {
		r.printData(stdout)
	}
	if r.Epochs == 0 && r.CV != nil {
		return nil // -cv alone: its line is the result
	}
	if r.Kernel != "" {
		fmt.Fprintf(stdout, "train:    %s, kernel %s, %d epochs in %.1f ms (SIMD tier %s)\n",
			learnerName(r.Algorithm, r.Rule), r.Kernel, r.Epochs, 1e3*r.TrainSeconds, r.Tier)
		g := r.Gram
		kind := fmt.Sprintf("precomputed whole, %.0f MiB", float64(g.Bytes)/(1<<20))
		if !g.Full {
			kind = fmt.Sprintf("rows on demand, room for %s (%.0f MiB), %s rows computed, %s reused", commas(int64(g.Rows)), float64(g.Bytes)/(1<<20), commas(g.Misses), commas(g.Hits))
		}
		fmt.Fprintf(stdout, "kernel:   %s support vectors; Gram matrix %s; %s kernel entries computed\n", commas(int64(r.SupportVectors)), kind, commas(g.Computed))
	} else {
		on := ""
		if r.Workers > 1 {
			on = fmt.Sprintf(" with %d workers (parameter mixing)", r.Workers)
		}
		if r.Normalize {
			on += ", rows normalized"
		}
		fmt.Fprintf(stdout, "train:    %s%s, %d epochs in %.1f ms: %.2f ms per epoch, %.2f ns per nonzero (SIMD tier %s)\n",
			learnerName(r.Algorithm, r.Rule), on, r.Epochs, 1e3*r.TrainSeconds, 1e3*r.EpochSeconds, r.NsPerNNZ, r.Tier)
	}
	ms := make([]string, len(r.Mistakes))
	for i, m := range r.Mistakes {
		ms[i] = commas(int64(m))
	}
	fmt.Fprintf(stdout, "mistakes: %s (per epoch)\n", strings.Join(ms, " "))
	if v := r.Validation; v != nil {
		how := "no early stop"
		if v.StoppedEarly {
			how = "stopped early"
		}
		fmt.Fprintf(stdout, "validation: %.0f%% held out; kept epoch %d, held-out accuracy %.4f (%s)\n", 100*v.Fraction, v.BestEpoch, v.Accuracy, how)
	}
	if ms := r.Margins; ms != nil {
		fmt.Fprintf(stdout, "margins:  functional %.4g, geometric %.4g, radius R %.4g, separable %v, errors %d, bound (R/γ)² %.4g\n",
			ms.Functional, ms.Geometric, ms.Radius, ms.Separable, ms.Errors, ms.Bound)
	}
	if r.Calibration != "" {
		if r.CalibrationRows > 0 {
			fmt.Fprintf(stdout, "calibration: %s, fitted on %s training rows held out of the model in %.1f ms\n", r.Calibration, commas(int64(r.CalibrationRows)), 1e3*r.CalibrationSeconds)
		} else {
			fmt.Fprintf(stdout, "calibration: %s, fitted on held-out training rows in %.1f ms\n", r.Calibration, 1e3*r.CalibrationSeconds)
		}
	}
	if r.TestAccuracy != nil {
		fmt.Fprintf(stdout, "test:     %s: accuracy %.4f (%s rows predicted in %.1f ms)\n", r.Test, *r.TestAccuracy, commas(int64(r.TestRows)), 1e3*r.TestSeconds)
		if r.TestLogLoss != nil {
			fmt.Fprintf(stdout, "          log loss %.4f, calibration error (ECE, 10 bins) %.4f\n", *r.TestLogLoss, *r.TestECE)
		}
		if r.Confusion != nil {
			var names *text.Featurizer
			if o.text != nil {
				names = o.text.Featurizer()
			}
			return r.Confusion.WriteNamedReport(stdout, printableLabels(labelNames(r.Confusion, names)))
		}
	}
	if o.out != "" {
		fmt.Fprintf(stdout, "model:    saved to %s\n", o.out)
	}
	return nil
}

// parseClassWeights reads "LABEL:W,LABEL:W".
func parseClassWeights(s string) (map[float64]float64, error) {
	if s == "" {
		return nil, nil
	}
	m := make(map[float64]float64)
	for _, part := range strings.Split(s, ",") {
		l, w, ok := strings.Cut(part, ":")
		if !ok {
			return nil, fmt.Errorf("%q is not LABEL:WEIGHT", part)
		}
		lv, err := strconv.ParseFloat(strings.TrimSpace(l), 64)
		if err != nil || math.IsNaN(lv) || math.IsInf(lv, 0) {
			return nil, fmt.Errorf("bad label %q", l)
		}
		wv, err := strconv.ParseFloat(strings.TrimSpace(w), 64)
		if err != nil || !(wv >= 0) || math.IsInf(wv, 0) {
			return nil, fmt.Errorf("bad weight %q (want a finite number ≥ 0)", w)
		}
		m[lv] = wv
	}
	return m, nil
}

// defaultLearner is what train fits without -algo: the averaged PA-II,
// the most accurate of the linear learners at their default settings
// across the shared data sets (bench/compare_margin.sh), at the averaged
// perceptron's speed. With -kernel the default stays the averaged kernel
// perceptron, whose models keep fewer support vectors and so predict
// faster.
const (
	defaultLearner       = "pa2"
	defaultKernelLearner = "averaged"
)

// parseLearner reads -algo (see engine.ParseLearner), and -no-average,
// which makes a rule's learner plain.
func parseLearner(name string, noAverage bool) (engine.Algorithm, engine.Rule, error) {
	alg, rule, err := engine.ParseLearner(name)
	switch {
	case err != nil:
		return 0, 0, fmt.Errorf("unknown algorithm %q (want averaged, plain, voted, batch, pa, pa1, pa2, pegasos, logistic or modified_huber)", name)
	case noAverage && rule == engine.Perceptron:
		return 0, 0, fmt.Errorf("-no-average is for pa, pa1, pa2, pegasos, logistic and modified_huber (use -algo plain)")
	case noAverage:
		alg = engine.Plain
	}
	return alg, rule, nil
}

// learnerName names a learner for people: "averaged perceptron",
// "averaged PA-II", "plain Pegasos (linear SVM)".
func learnerName(algorithm, rule string) string {
	name := algorithm + " " + ruleTitle(rule)
	if rule == engine.Pegasos.String() {
		name += " (linear SVM)"
	}
	return name
}

// ruleTitle names an update rule, given by the engine's name for it
// (engine.Rule.String, "" for the perceptron), for people: "PA-II",
// "Pegasos", "logistic regression".
func ruleTitle(rule string) string {
	switch rule {
	case "", engine.Perceptron.String():
		return "perceptron"
	case engine.PA1.String():
		return "PA-I"
	case engine.PA2.String():
		return "PA-II"
	case engine.Pegasos.String():
		return "Pegasos"
	case engine.Logistic.String():
		return "logistic regression"
	case engine.ModifiedHuber.String():
		return "modified Huber"
	}
	return strings.ToUpper(rule)
}

// commas writes n with a comma between groups of three digits, as people
// read counts and rates: 2,250 rather than 2.25e+03.
func commas(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
