// Command hyperplane-beam trains a hyperplane linear model across machines
// with Apache Beam, by iterative parameter mixing over cache shards (made
// by hyperplane convert -shards N):
//
//	hyperplane-beam train -shards 'dir/shard-*.hpc' -epochs 10 -workdir DIR -o m.hpm
//
// Before any work the files are checked as hyperplane's commands check
// theirs: the shards must come in whole sets (every NAME-KKKKK-of-NNNNN of
// convert -shards), a shard matched by two globs is learned once, and the
// model file may be none of the files read nor of those the job writes; a
// local model file is written atomically, or as a stream when it is
// /dev/stdout, a device or a FIFO; -o - writes it to standard output, and
// the report then goes to standard error. The epochs show on standard
// error as they end when it is a terminal (or with -progress), a line
// each with -v.
//
// With -text the shards are labelled text, JSONL or TSV, gzip-compressed
// or not, featurized on the workers as hyperplane train featurizes text,
// with the same flags and defaults (words and pairs, log counts, IDF; a
// vocabulary of the terms in -min-df 2 documents or more, counted on the
// workers and summed, or hashing with -vocab=false or -bits), fitted on
// all the shards, and the model is a text model (.hptm):
//
//	hyperplane-beam train -text -shards 'dir/part-*.jsonl.gz' -workdir DIR -o m.hptm
//
// The model is an ordinary .hpm (or .hptm) file for hyperplane predict and eval. By
// default the job runs on Prism, Beam's local runner, inside this process;
// Beam's own flags (--runner, --project, --region, --staging_location,
// --endpoint, --environment_type, ...) send it to Dataflow, Flink or Spark.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	sdk "github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/s3"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/dataflow"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/flink"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/spark"
	"github.com/hyperplane-ml/hyperplane/engine"
	hpbeam "github.com/hyperplane-ml/hyperplane/engine/beam"
	"github.com/hyperplane-ml/hyperplane/engine/metrics"
	"github.com/hyperplane-ml/hyperplane/engine/textmodel"
	"github.com/hyperplane-ml/hyperplane/internal/iox"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/atomicfile"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
	_ "github.com/hyperplane-ml/hyperplane/sparse/hpc"
	_ "github.com/hyperplane-ml/hyperplane/sparse/libsvm"
)

const usage = `usage: hyperplane-beam train [-text] -shards GLOB[,GLOB...] -workdir DIR -o MODEL [flags] [beam flags]

Trains by iterative parameter mixing, one Beam job for all epochs (or one
per epoch with -per-epoch-jobs), on Prism in this process unless Beam's
--runner says otherwise. Paths may be local, gs:// or s3://.
`

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "hyperplane-beam:", err)
		os.Exit(1)
	}
}

// The flags live on the process's flag set, beside Beam's, which a
// remote runner's workers parse too.
var (
	cfg       engine.Config
	shards    = flag.String("shards", "", "the shard cache files: comma-separated `globs`")
	workdir   = flag.String("workdir", "", "`dir` for the mixed state of every epoch, reachable from every worker")
	out       = flag.String("o", "", "write the model to this `file` (- for standard output)")
	algo      = flag.String("algo", "pa2", "learner: averaged or plain perceptron; or pa, pa1, pa2 (passive-aggressive), averaged unless -no-average")
	noAverage = flag.Bool("no-average", false, "with -algo pa, pa1 or pa2: keep the last weights instead of their average")
	normalize = flag.Bool("normalize", true, "scale every row to unit length in training and prediction")
	bias      = flag.String("bias", "separate", "bias: separate, augmented or none")
	perEpoch  = flag.Bool("per-epoch-jobs", false, "run one job per epoch instead of one job for all epochs")
	test      = flag.String("test", "", "report the model's accuracy on this LIBSVM or cache `file`")
	textIn    = flag.Bool("text", false, "the shards are labelled text, JSONL or TSV (gzip too), featurized on the workers; the model is a text model")
	ngrams    = flag.Int("ngrams", 2, "with -text: terms of up to `n` words")
	labelFld  = flag.String("label-field", "", "with -text: the JSONL label `field` (default label)")
	textFld   = flag.String("text-field", "", "with -text: the JSONL text `field` (default text)")
	verbose   = flag.Bool("v", false, "print every epoch's updates, bytes moved and time on stderr as it ends")
	progress  = flag.Bool("progress", false, "show the epochs as they end (epoch, updates, ETA) on stderr, also when it is not a terminal")
	keep      = flag.String("keep", "1GiB", "`memory` in which each worker keeps the shards it learned, with their learners, from epoch to epoch (0: none; they are read again every epoch)")
)

// ownFlags names this command's flags, those above and the text flags
// of textflags.go, not Beam's.
var ownFlags = []string{"shards", "workdir", "o", "algo", "no-average", "normalize", "bias", "per-epoch-jobs", "test", "v", "progress", "keep",
	"text", "bits", "vocab", "min-df", "max-features", "ngrams", "label-field", "text-field",
	"C", "epochs", "lr", "margin", "seed"}

func init() {
	flag.Float64Var(&cfg.C, "C", 0, "aggressiveness of -algo pa1 and pa2 (default 1)")
	flag.IntVar(&cfg.Epochs, "epochs", 10, "passes over all shards")
	flag.Float64Var(&cfg.LearningRate, "lr", 0, "learning rate of -algo averaged and plain (default 1)")
	flag.Float64Var(&cfg.Margin, "margin", 0, "update when y·score ≤ margin")
	flag.Uint64Var(&cfg.Seed, "seed", 0, "seed for every shard's shuffle")
}

// run runs the command line args: it checks the files, trains, writes
// the model and reports.
func run(args []string, stdout, stderr io.Writer) error {
	if err := parse(args, stderr); err != nil {
		return err
	}
	ctx := context.Background()
	// The files are checked, and a local model file created, before the
	// work: a model written over a shard or the test file destroyed it.
	if _, err := checkFiles(ctx, *out, *test, *workdir, strings.Split(*shards, ",")); err != nil {
		return err
	}
	var model *atomicfile.File
	modelOut := io.Writer(nil) // -o -: the model goes to standard output
	switch {
	case *out == "-":
		modelOut, stdout = stdout, stderr
	case !isRemote(*out):
		var err error
		if model, err = atomicfile.Create(*out); err != nil {
			return err
		}
		defer model.Cleanup()
		if iox.IsFile(stdout, *out) {
			stdout = stderr // standard output carries the model
		}
	}
	t0 := time.Now()
	m, figs, accuracy, err := train(ctx, stderr)
	if err != nil {
		return err
	}
	if modelOut != nil {
		if _, err := m.WriteTo(modelOut); err != nil {
			return fmt.Errorf("writing the model to standard output: %w", err)
		}
	} else if err := writeModel(ctx, m, model); err != nil {
		return err
	}
	where := *out
	if modelOut != nil {
		where = "standard output"
	}
	fmt.Fprintf(stdout, "trained %d epochs on %s in %.1fs; model written to %s\n", len(figs), *shards, time.Since(t0).Seconds(), where)
	if *test != "" {
		return accuracy(stdout)
	}
	return nil
}

// train trains as the flags say, and returns the model, the epochs'
// figures and what reports the model's accuracy on the -test file.
func train(ctx context.Context, stderr io.Writer) (io.WriterTo, []hpbeam.Epoch, func(io.Writer) error, error) {
	if !*textIn {
		m, figs, err := hpbeam.Train(ctx, options(stderr))
		return m, figs, func(w io.Writer) error { return testAccuracy(w, m) }, err
	}
	tcfg, err := textConfig()
	if err != nil {
		return nil, nil, nil, err
	}
	topt := hpbeam.TextOptions{
		Options:    options(stderr),
		Text:       tcfg,
		LabelField: *labelFld, TextField: *textFld,
	}
	m, figs, err := hpbeam.TrainText(ctx, topt)
	return m, figs, func(w io.Writer) error { return testTextAccuracy(w, m) }, err
}

// keepBytes is -keep, parsed.
var keepBytes int64

// parse parses the command line into the flags and cfg. A remote runner
// starts this binary again as a worker with Beam's flags only (--worker,
// --id, ...): then there is no subcommand, and beam.Init serves the
// worker and does not return.
func parse(args []string, stderr io.Writer) error {
	fs := flag.CommandLine
	fs.SetOutput(stderr)
	// Every run starts from the defaults of this command's flags (the
	// tests run it more than once).
	cfg = engine.Config{}
	for _, name := range ownFlags {
		f := fs.Lookup(name)
		f.Value.Set(f.DefValue)
	}
	resetTextFlags()
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }

	if len(args) > 0 && args[0] == "train" {
		args = args[1:]
	} else if len(args) == 0 || !strings.HasPrefix(args[0], "-") {
		return errors.New("want the subcommand train (hyperplane-beam train -h lists the flags, Beam's too)")
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if !*verbose {
		// Prism and the SDK log every job's progress at level INFO.
		slog.SetDefault(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	}
	// Serves and exits when this process is a remote runner's worker.
	sdk.Init()
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *shards == "" || *workdir == "" || *out == "" {
		return errors.New("-shards, -workdir and -o are required (hyperplane-beam train -h lists the flags)")
	}
	var err error
	if cfg.Algorithm, cfg.Rule, err = parseLearner(*algo, *noAverage); err != nil {
		return err
	}
	if cfg.Bias, err = engine.ParseBiasMode(*bias); err != nil {
		return err
	}
	cfg.Normalize = *normalize
	keepBytes = 0
	if strings.TrimSpace(*keep) != "0" {
		if keepBytes, err = budget.Parse(*keep); err != nil {
			return fmt.Errorf("-keep: %w", err)
		}
	}
	if *textIn {
		_, err = textConfig()
	}
	return err
}

// options returns Train's options of the flags; with -v and
// -per-epoch-jobs, OnEpoch reports on stderr when each epoch is done.
func options(stderr io.Writer) hpbeam.Options {
	opt := hpbeam.Options{
		Shards:       strings.Split(*shards, ","),
		Workdir:      *workdir,
		Runner:       *runners.Runner,
		PerEpochJobs: *perEpoch,
		Config:       cfg,
		KeepBytes:    keepBytes,
	}
	if keepBytes == 0 {
		opt.KeepBytes = -1
	}
	opt.Progress = epochReporter(stderr, *verbose, *progress || iox.IsTerminal(stderr), cfg.Epochs, *perEpoch)
	return opt
}

// epochReporter returns how the command shows the epochs on w as they
// end: with verbose a line per epoch (updates, bytes moved, time);
// otherwise, when show (a terminal, or -progress), one line rewritten in
// place (epoch, updates, time, ETA) and ended after the last epoch (or,
// with perEpoch, after the epoch without updates that stops training);
// nil when neither, so that scripts see nothing.
func epochReporter(w io.Writer, verbose, show bool, epochs int, perEpoch bool) func(hpbeam.Epoch) {
	t0 := time.Now()
	if verbose {
		return func(f hpbeam.Epoch) {
			fmt.Fprintf(w, "epoch %d: %d updates over %d shards at %.1fs; bytes: weights %d read by the shards, deltas %d, state %d read and %d written, shard features %d read, next weights %d written\n",
				f.Epoch, f.Updates, f.Shards, time.Since(t0).Seconds(), f.WeightsBytes, f.DeltaBytes, f.StateBytes, f.StateWritten, f.FeaturesBytes, f.WeightsWritten)
		}
	}
	if !show {
		return nil
	}
	if epochs <= 0 {
		epochs = 10
	}
	return func(f hpbeam.Epoch) {
		took := time.Since(t0)
		eta := time.Duration(float64(took) / float64(f.Epoch) * float64(epochs-f.Epoch))
		fmt.Fprintf(w, "\repoch %d/%d: %d updates, %s, ETA %s   ", f.Epoch, epochs, f.Updates, took.Round(100*time.Millisecond), eta.Round(time.Second))
		if f.Epoch >= epochs || (perEpoch && f.Updates == 0) {
			fmt.Fprintln(w)
		}
	}
}

// writeModel writes m to the local model file model, or when that is
// nil to the remote -o.
func writeModel(ctx context.Context, m io.WriterTo, model *atomicfile.File) error {
	if model == nil {
		return hpbeam.SaveModel(ctx, m, *out)
	}
	if _, err := m.WriteTo(model); err != nil {
		return fmt.Errorf("%s: %w", *out, err)
	}
	if err := model.CloseAtomicallyReplace(); err != nil {
		return fmt.Errorf("%s: %w", *out, err)
	}
	return nil
}

// testAccuracy reports m's accuracy on the -test file.
func testAccuracy(stdout io.Writer, m *engine.Model) error {
	d, err := sparse.ReadFile(*test, sparse.ReadOptions{})
	if err != nil {
		return err
	}
	acc, err := metrics.Accuracy(d.Y, m.PredictBatch(d.X, nil))
	if err != nil {
		return fmt.Errorf("%s: %w", *test, err)
	}
	fmt.Fprintf(stdout, "test accuracy %.4f on %s\n", acc, *test)
	return nil
}

// testTextAccuracy reports the text model m's accuracy on the labelled
// text of the -test file.
func testTextAccuracy(stdout io.Writer, m *textmodel.Model) error {
	f := m.Featurizer()
	d, err := f.VectorizeFile(*test, f.ReadOptions())
	if err != nil {
		return err
	}
	acc, err := metrics.Accuracy(d.Y, m.Classifier().PredictBatch(d.X, nil))
	if err != nil {
		return fmt.Errorf("%s: %w", *test, err)
	}
	fmt.Fprintf(stdout, "test accuracy %.4f on %s\n", acc, *test)
	return nil
}

// checkFiles checks the command's files before anything is read or
// written, as hyperplane's commands do: the shard patterns expand to
// whole sets of shards, each learned once (see hpbeam.Shards, whose list
// it returns); and the model file -o is none of the files read (a shard,
// the -test file), not the work directory nor a file the job writes in
// it. Local files are compared by device and inode, so that links and
// other spellings count (atomicfile.SameFile); gs:// and s3:// names by
// their text.
func checkFiles(ctx context.Context, out, test, workdir string, patterns []string) ([]string, error) {
	shardFiles, err := hpbeam.Shards(ctx, patterns)
	if err != nil || out == "-" { // standard output is none of the files
		return shardFiles, err
	}
	for _, s := range shardFiles {
		if sameFile(out, s) {
			return nil, fmt.Errorf("-o %s is the shard %s: writing it would destroy what is read", out, s)
		}
	}
	if test != "" && sameFile(out, test) {
		return nil, fmt.Errorf("-o %s is the -test file %s: writing it would destroy what is read", out, test)
	}
	if sameFile(out, workdir) || hpbeam.WorkFile(workdir, out) {
		return nil, fmt.Errorf("-o %s is the -workdir %s or a file the job writes there", out, workdir)
	}
	return shardFiles, nil
}

// sameFile reports whether a and b name one file: by atomicfile.SameFile
// when both are local, by their text when either is not.
func sameFile(a, b string) bool {
	if isRemote(a) || isRemote(b) {
		return strings.TrimSuffix(a, "/") == strings.TrimSuffix(b, "/")
	}
	return atomicfile.SameFile(a, b)
}

// isRemote reports whether name is on a file system other than the local
// one (gs://, s3://, ...).
func isRemote(name string) bool { return strings.Contains(name, "://") }

// parseLearner reads -algo as hyperplane train does, less the learners
// that cannot mix parameters.
func parseLearner(name string, noAverage bool) (engine.Algorithm, engine.Rule, error) {
	alg, rule, err := engine.ParseLearner(name)
	switch {
	case err != nil:
		return 0, 0, fmt.Errorf("unknown algorithm %q (want averaged, plain, pa, pa1 or pa2)", name)
	case rule == engine.Perceptron && alg != engine.Averaged && alg != engine.Plain:
		// Refused here, before the files are checked.
		return 0, 0, fmt.Errorf("-algo %s: parameter mixing trains the averaged and plain perceptrons (and pa, pa1, pa2)", name)
	case noAverage && rule == engine.Perceptron:
		return 0, 0, errors.New("-no-average is for pa, pa1 and pa2 (use -algo plain)")
	case noAverage:
		alg = engine.Plain
	}
	return alg, rule, nil
}
