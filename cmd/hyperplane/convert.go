package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hyperplane-ml/hyperplane/internal/iox"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/csv"
	"github.com/hyperplane-ml/hyperplane/sparse/hpc"
	"github.com/hyperplane-ml/hyperplane/sparse/libsvm"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

func newConvertCmd() *Command {
	o := new(convertOptions)
	c := &Command{
		UsageLine: "convert IN OUT",
		Short:     "convert labelled text (JSONL/TSV) to features, LIBSVM to a binary cache and back",
		Long: `Convert reads IN and writes OUT.

IN is a LIBSVM/SVMlight file (gzip too), a cache file (told by its magic
bytes), or labelled raw text: JSONL with "label" and "text" fields, or
label<TAB>text lines (gzip too), recognized by a name ending in .jsonl,
.json, .tsv or .txt (optionally .gz), or by -from text.

OUT is a cache file when its name ends in .hpc (a compact binary form that
later passes read without parsing, and that 'train -stream' trains from
out of core), else LIBSVM, gzip-compressed when it ends in .gz. A LIBSVM
file becomes a cache in bounded memory, row by row. IN - is standard
input (a pipe: LIBSVM, gzip too, or a cache; text with -from text); OUT -
is standard output (LIBSVM), the report then going to standard error, as
it does when OUT names standard output (/dev/stdout, /dev/fd/1). An OUT
that is not a regular file (/dev/stdout, /dev/fd/N, a device, a FIFO) is
written as a stream, never replaced.
OUT (and -save-featurizer) may not be a file read, and are replaced
together once all is done, or not at all.

Text is tokenized (Unicode letters and digits, lowercased), cut into word
n-grams and featurized as train featurizes it: by default words and pairs
of words, indexed by a vocabulary of the terms found in at least two
training documents, log tf, IDF, rows of unit L2 norm (-bits N hashes
into 2^N signed buckets instead). Fit the featurizer on the training text
and save it with -save-featurizer; convert the test text with
-featurizer, so that both share features, IDF and label numbers:

  hyperplane convert -save-featurizer imdb.feat imdb.train.jsonl.gz train.hpc
  hyperplane convert -featurizer imdb.feat imdb.test.jsonl.gz test.hpc
  hyperplane train -test test.hpc train.hpc

With -shards N, OUT (a name ending in .hpc) names N cache files,
OUT-00000-of-0000N.hpc and on, that share the rows dealt at random (a
random permutation drawn from -seed, cut into N pieces of equal size):
the shards of training on several machines, each with a mix of every
class even when IN is sorted by label. They all have IN's width. OUT's
folder is created if it is missing (and removed again if the command
fails).

  hyperplane convert -shards 4 -seed 1 train.svm shards/train.hpc

Multi-label rows (LIBSVM's "1,3,5 idx:val ..." form, told by the first
row or -multilabel; a cache with label lists; text whose first label is
a JSONL array, or with -multilabel several __label__ tokens a line or
comma-separated TSV labels) are read whole and written with their label
lists: as multi-label LIBSVM, or as a cache with label lists (format
version 2), which train, eval and predict take as they take the LIBSVM
file, training the same model. Text's labels become class numbers in
the order of the featurizer's label names, which the report lists and
-save-featurizer keeps for -featurizer to number test text alike.`,
		Run: o.run,
	}
	fs := &c.Flag
	o.flags = fs
	fs.StringVar(&o.from, "from", "", "force the input kind: libsvm, cache or text (default: by content and name)")
	o.text = addTextFlags(fs, trainTextDefaults, true)
	fs.StringVar(&o.save, "save-featurizer", "", "text: save the featurizer fitted on IN to this `file`")
	fs.StringVar(&o.load, "featurizer", "", "text: apply the featurizer saved in this `file` instead of fitting one")
	fs.IntVar(&o.dim, "dim", 0, "LIBSVM: fix the number of columns (0: the largest index)")
	fs.BoolVar(&o.json, "json", false, "print the result as JSON")
	o.labelCol = labelColFlag(fs)
	o.progress = progressFlag(fs)
	fs.IntVar(&o.shards, "shards", 0, "deal the rows at random into `N` cache files OUT-00000-of-0000N.hpc (OUT ends in .hpc)")
	fs.Uint64Var(&o.seed, "seed", 0, "-shards: seed of the random dealing")
	fs.BoolVar(&o.multilabel, "multilabel", false, "every row has a list of labels (multi-label LIBSVM, or text as train -multilabel reads it); the default for a LIBSVM file whose first label is a list, a cache with label lists, and a JSONL file whose first label is an array")
	return c
}

// convertOptions holds convert's flags.
type convertOptions struct {
	flags      *flag.FlagSet // to tell the flags set on the command line
	from       string
	text       *textFlags
	save       string // -save-featurizer
	load       string // -featurizer
	dim        int
	json       bool
	labelCol   *string
	progress   *bool
	shards     int
	seed       uint64
	multilabel bool
}

// run converts IN, args[0], to OUT, args[1].
func (o *convertOptions) run(ctx context.Context, env *Env, args []string) (err error) {
	if len(args) != 2 {
		return usageError("convert takes IN and OUT")
	}
	in, dst := args[0], args[1]
	switch {
	case o.shards < 0 || o.shards > maxShards:
		return usageError("-shards %d is not in [1, %d]", o.shards, maxShards)
	case o.shards > 0 && (dst == "-" || !isCachePath(dst)):
		return usageError("-shards writes cache files: OUT %s must end in .hpc", dst)
	case o.shards == 0 && len(setAmong(o.flags, "seed")) > 0:
		return usageError("-seed seeds the dealing of -shards")
	}
	// The featurizer's settings are checked before anything is read.
	cfg, err := o.text.config(o.flags)
	if err != nil {
		return err
	}
	env.progress = *o.progress
	src, name, closeIn, err := openInput(ctx, env, in)
	if err != nil {
		return err
	}
	defer closeIn()
	kind, err := inputKind(src, in, o.from)
	if err != nil {
		return err
	}
	if err := o.checkKind(kind, in); err != nil {
		return err
	}
	// Both outputs are created now, before the work, and replace their
	// targets together at the end, or neither does: data and the
	// featurizer that made them always agree.
	outArgs := []arg{{"OUT", dst}}
	if o.shards > 0 {
		// The shards' folder is made when missing (convert -shards 4 IN
		// shards/train.hpc), and removed again if no shard is written
		// into it.
		var made []string // assigned with run's err, which the cleanup reads
		if made, err = makeParents(filepath.Dir(dst)); err != nil {
			return err
		}
		defer func() {
			if err != nil {
				removeMade(made)
			}
		}()
		outArgs = outArgs[:0]
		for _, p := range shardPaths(dst, o.shards) {
			outArgs = append(outArgs, arg{"shard", p})
		}
	}
	if len(setAmong(o.flags, "save-featurizer")) > 0 {
		outArgs = append(outArgs, arg{"-save-featurizer", o.save})
	}
	outs, err := prepareOutputs(env.Stdout, append([]arg{{"IN", in}, {"-featurizer", o.load}}, stdioInput(env, in)...), outArgs...)
	if err != nil {
		return err
	}
	defer outs.cleanup()
	report := env.Stdout
	if writesStdout(env.Stdout, dst) {
		report = env.Stderr // standard output carries the data
	}
	t0 := time.Now()
	c := &conversion{o: o, ctx: ctx, outs: outs, src: src, name: name, dst: dst, reread: rereader(ctx, env, in),
		res: convertResult{In: in, Out: dst, From: kind}}
	if err := c.convert(kind, src, cfg); err != nil {
		return err
	}
	return c.res.print(report, t0, o.json)
}

// convert reads the input, of kind kind and read through src, and
// writes OUT: multi-label rows with their label lists, others as ever.
func (c *conversion) convert(kind string, src *bufio.Reader, cfg text.Config) error {
	if c.multiLabelInput(kind, src, c.res.In) {
		f, err := c.readMultiLabel(kind, cfg)
		if err != nil {
			return err
		}
		return c.writeMultiLabel(f)
	}
	d, f, err := c.read(kind, cfg)
	if err != nil || d == nil {
		return err
	}
	return c.write(d, f)
}

// checkKind refuses the flags that do not apply to input of kind.
func (o *convertOptions) checkKind(kind, in string) error {
	if *o.labelCol != "" && kind != "csv" {
		return usageError("-label-col %q: %s is not a CSV table (.csv, .csv.gz)", *o.labelCol, in)
	}
	textFlags := append([]string{"save-featurizer", "featurizer"}, o.text.all...)
	if kind != "text" && len(setAmong(o.flags, textFlags...)) > 0 {
		return usageError("%s is not text: the text flags do not apply", in)
	}
	if kind == "text" && o.dim != 0 {
		return usageError("-dim fixes the columns of LIBSVM input; text gets its width from -bits or its vocabulary")
	}
	if o.load != "" && o.save != "" {
		return usageError("-featurizer applies a saved featurizer, -save-featurizer fits a new one: give one")
	}
	if o.load != "" {
		// A saved featurizer carries its own settings: flags that would
		// fit another one would be silently ignored.
		if set := setAmong(o.flags, o.text.fitting...); len(set) > 0 {
			return usageError("%s fit a featurizer; -featurizer %s applies a saved one with its own settings", strings.Join(set, ", "), o.load)
		}
	}
	return nil
}

// conversion is one run of convert, its outputs prepared: the input src
// (named name), OUT (dst) and what the result reports.
type conversion struct {
	o    *convertOptions
	ctx  context.Context
	outs *outputs
	src  io.Reader
	name string
	dst  string
	res  convertResult
	// reread opens a text input again (see rereader); nil for a stream.
	reread func() (io.ReadCloser, error)
	// ml holds the rows of a multi-label input (see readMultiLabel).
	ml *libsvm.MultiLabelDataset
}

// read reads the rows of the input, of kind kind, and for text the
// featurizer that made them. A cache OUT without -shards is written as
// the rows are read, in bounded memory, and committed: read then returns
// no rows, and res holds OUT's figures.
func (c *conversion) read(kind string, cfg text.Config) (*sparse.Dataset, *text.Featurizer, error) {
	ctx, o := c.ctx, c.o
	toCache := isCachePath(c.dst) && o.shards == 0
	ropt := sparse.ReadOptions{Dim: o.dim, Name: c.name}
	switch kind {
	case "text":
		if toCache && o.load == "" {
			return nil, nil, c.fitCache(cfg)
		}
		return c.readText(cfg)
	case "libsvm":
		if toCache {
			// Row by row, in bounded memory.
			w, info, closeCount := cacheWriter(ctx, c.outs, c.dst)
			defer closeCount()
			if err := hpc.ConvertLIBSVM(w, c.src, ropt, hpc.WriterOptions{}); err != nil {
				return nil, nil, interrupted(ctx, err)
			}
			return nil, nil, finishCache(ctx, c.outs, c.dst, w, info, &c.res)
		}
		d, err := libsvm.Read(c.src, ropt)
		return d, nil, interrupted(ctx, err)
	case "cache":
		d, err := hpc.Read(c.src, ropt)
		return d, nil, interrupted(ctx, err)
	case "csv":
		// A table's rows, as LIBSVM or a cache by OUT's name.
		t, err := csv.Read(c.src, csv.Options{Name: c.name, Label: *o.labelCol})
		if err != nil {
			return nil, nil, interrupted(ctx, err)
		}
		return t.Dataset(), nil, nil
	}
	return nil, nil, nil
}

// readText featurizes the text input, with the -featurizer given or one
// fitted on it.
func (c *conversion) readText(cfg text.Config) (*sparse.Dataset, *text.Featurizer, error) {
	o := c.o
	topt := o.text.readOptions(c.name)
	var d *sparse.Dataset
	var f *text.Featurizer
	var err error
	if o.load != "" {
		if f, err = o.loadFeaturizer(&topt); err != nil {
			return nil, nil, err
		}
		d, err = f.VectorizeReader(c.src, topt)
	} else {
		f, d, err = fitText(c.ctx, c.src, c.res.In, topt, cfg)
	}
	if err != nil {
		return nil, nil, interrupted(c.ctx, err)
	}
	c.res.setLabels(f)
	return d, f, nil
}

// loadFeaturizer loads the -featurizer file and sets in topt the fields
// its training text had, unless the flags say otherwise.
func (o *convertOptions) loadFeaturizer(topt *text.ReadOptions) (*text.Featurizer, error) {
	f, err := text.Load(o.load)
	if err != nil {
		return nil, err
	}
	fo := f.ReadOptions()
	if len(setAmong(o.flags, "label-field")) == 0 {
		topt.LabelField = fo.LabelField
	}
	if len(setAmong(o.flags, "text-field")) == 0 {
		topt.TextField = fo.TextField
	}
	return f, nil
}

// fitCache fits a featurizer on the text input and writes its rows to
// the cache OUT as they are made, never all in memory (text.FitCache),
// and the featurizer to -save-featurizer.
func (c *conversion) fitCache(cfg text.Config) error {
	ctx, o := c.ctx, c.o
	w, info, closeCount := cacheWriter(ctx, c.outs, c.dst)
	defer closeCount()
	r, err := text.FitCache(ctx, c.src, o.text.readOptions(c.name), cfg, w, text.CacheOptions{TempDir: cacheDir(c.dst), Reread: c.reread})
	if err != nil {
		return interrupted(ctx, err)
	}
	c.res.setLabels(r.Featurizer)
	if o.save != "" {
		if err := writeFeaturizer(iox.Writer(ctx, c.outs.writer(o.save)), r.Featurizer); err != nil {
			return interrupted(ctx, err)
		}
	}
	return finishCache(ctx, c.outs, c.dst, w, info, &c.res)
}

// write writes the rows d to OUT, or dealt into its shards, and the
// featurizer f to -save-featurizer, and commits them.
func (c *conversion) write(d *sparse.Dataset, f *text.Featurizer) error {
	ctx, o := c.ctx, c.o
	if o.shards > 0 {
		if err := writeShards(ctx, c.outs, shardPaths(c.dst, o.shards), d, o.seed); err != nil {
			return interrupted(ctx, err)
		}
		c.res.Out, c.res.Shards = shardPaths(c.dst, o.shards)[0]+" …", o.shards
	} else if err := writeData(iox.Writer(ctx, c.outs.writer(c.dst)), c.dst, d); err != nil {
		return interrupted(ctx, err)
	}
	if err := c.commit(f); err != nil {
		return err
	}
	c.res.Rows, c.res.Cols, c.res.NNZ = d.X.Rows, d.X.Cols, d.X.NNZ()
	return nil
}

// commit writes the featurizer f to -save-featurizer, if asked, and
// commits the outputs, OUT written.
func (c *conversion) commit(f *text.Featurizer) error {
	ctx := c.ctx
	if c.o.save != "" {
		if err := writeFeaturizer(iox.Writer(ctx, c.outs.writer(c.o.save)), f); err != nil {
			return interrupted(ctx, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return interrupted(ctx, err)
	}
	return c.outs.commit()
}

// setLabels records the label names of f and the numbers they become.
func (r *convertResult) setLabels(f *text.Featurizer) {
	r.Labels = f.Labels()
	for _, n := range r.Labels {
		v, _ := f.Label(n)
		r.Values = append(r.Values, v)
	}
}

// cacheWriter returns where convert writes the cache OUT (dst): the
// output's writer, through a counter of what it gets when OUT is a
// stream (which cannot be opened again to count it: a copy of the bytes
// is counted as they go, the count coming on info), and what closes that
// counter (a no-op otherwise).
func cacheWriter(ctx context.Context, outs *outputs, dst string) (w io.Writer, info <-chan cacheInfo, closeCount func()) {
	w = iox.Writer(ctx, outs.writer(dst))
	if !outs.stream(dst) {
		return w, nil, func() {}
	}
	tw, c := countCache(w)
	return tw, c, func() { tw.Close() }
}

// finishCache commits the cache written to dst through w and puts its
// rows, columns and nonzeros in res: counted from the copy countCache
// made of a stream (info), or read from the file.
func finishCache(ctx context.Context, outs *outputs, dst string, w io.Writer, info <-chan cacheInfo, res *convertResult) error {
	if err := ctx.Err(); err != nil {
		return interrupted(ctx, err)
	}
	if err := outs.commit(); err != nil {
		return err
	}
	var hi hpc.Info
	if info != nil {
		w.(io.Closer).Close() // the end of the copy
		r := <-info
		if r.err != nil {
			return r.err
		}
		hi = r.info
	} else {
		c, err := hpc.Open(dst, hpc.Options{LabelLists: true})
		if err != nil {
			return err
		}
		hi = c.Info()
		c.Close()
	}
	res.Rows, res.Cols, res.NNZ = int(hi.Rows), hi.Cols, hi.NNZ
	return nil
}

// cacheInfo is what countCache found.
type cacheInfo struct {
	info hpc.Info
	err  error
}

// countCache returns a writer that writes to w and passes a copy of the
// bytes to hpc.ReadInfo, whose result comes on the channel once the
// writer is closed.
func countCache(w io.Writer) (io.WriteCloser, <-chan cacheInfo) {
	pr, pw := io.Pipe()
	c := make(chan cacheInfo, 1)
	go func() {
		info, err := hpc.ReadInfo(pr, sparse.ReadOptions{Name: "the cache written"})
		// Whatever follows is drained, so that writes never wait.
		io.Copy(io.Discard, pr)
		c <- cacheInfo{info, err}
	}()
	return teeCloser{io.MultiWriter(w, pw), pw}, c
}

// teeCloser writes to w and closes c.
type teeCloser struct {
	w io.Writer
	c io.Closer
}

func (t teeCloser) Write(p []byte) (int, error) { return t.w.Write(p) }
func (t teeCloser) Close() error                { return t.c.Close() }

type convertResult struct {
	In      string    `json:"in"`
	Out     string    `json:"out"`
	From    string    `json:"from"`
	Rows    int       `json:"rows"`
	Cols    int       `json:"cols"`
	NNZ     int64     `json:"nnz"`
	Labels  []string  `json:"labels,omitempty"`
	Values  []float64 `json:"label_values,omitempty"` // the numbers Labels become
	Shards  int       `json:"shards,omitempty"`
	Seconds float64   `json:"seconds"`
	MBps    float64   `json:"input_mb_per_second"`
	// MultiLabel: the rows have label lists, written as such; Dropped
	// counts the labels of text that the featurizer does not name.
	MultiLabel bool `json:"multilabel,omitempty"`
	Dropped    int  `json:"labels_dropped,omitempty"`
}

func (r *convertResult) print(w io.Writer, t0 time.Time, asJSON bool) error {
	r.Seconds = time.Since(t0).Seconds()
	if fi, err := os.Stat(r.In); err == nil && r.Seconds > 0 {
		r.MBps = float64(fi.Size()) / 1e6 / r.Seconds
	}
	if asJSON {
		return printJSON(w, r)
	}
	rate := "" // (standard input has no size to measure by)
	if r.MBps > 0 {
		rate = fmt.Sprintf(" (%.0f MB/s of input)", r.MBps)
	}
	fmt.Fprintf(w, "%s (%s) → %s: %s rows, %s columns, %s nonzeros in %.0f ms%s\n",
		r.In, r.From, r.Out, commas(int64(r.Rows)), commas(int64(r.Cols)), commas(r.NNZ), 1e3*r.Seconds, rate)
	if len(r.Labels) > 0 {
		fmt.Fprintf(w, "labels: %s\n", labelList(r.Labels, r.Values))
	}
	if r.MultiLabel {
		fmt.Fprintf(w, "multi-label rows, written with their label lists")
		if r.Dropped > 0 {
			fmt.Fprintf(w, "; %s labels the featurizer does not name dropped", commas(int64(r.Dropped)))
		}
		fmt.Fprintln(w)
	}
	return nil
}

// labelList shows the label names with the numbers the LIBSVM output uses
// for them (values, one per name), which are what train's -class-weight
// takes; numeric labels are their own numbers. values may be nil.
func labelList(names []string, values []float64) string {
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		if i == 20 {
			fmt.Fprintf(&b, "… (%d in all)", len(names))
			break
		}
		b.Write(appendLabel(nil, n))
		if i < len(values) {
			if v := strconv.FormatFloat(values[i], 'g', -1, 64); v != n {
				b.WriteString("=" + v)
			}
		}
	}
	return b.String()
}

// makeParents creates dir and those of its parents that do not exist,
// one os.Mkdir each, top down, and returns the folders it created, the
// deepest last. A folder that appears meanwhile (made by another
// process) is taken as it is and not listed. Nothing that existed is
// changed: a path component that is a file stops it with Mkdir's error.
func makeParents(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	var made []string
	for i := len(missing) - 1; i >= 0; i-- {
		err := os.Mkdir(missing[i], 0o777)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			removeMade(made)
			return nil, err
		}
		made = append(made, missing[i])
	}
	return made, nil
}

// removeMade removes the folders makeParents made, deepest first; a
// folder no longer empty (something else wrote into it) stays.
func removeMade(made []string) {
	for i := len(made) - 1; i >= 0; i-- {
		os.Remove(made[i])
	}
}

// maxShards bounds convert -shards: every shard is a file open at once.
const maxShards = 4096

// shardPaths returns the names of the n shards of out (a name ending in
// .hpc): out-00000-of-0000n.hpc and on.
func shardPaths(out string, n int) []string { return hpc.ShardNames(out, n) }

// writeShards deals the rows of d at random into the cache files paths
// (see dealShards), each written with d's width.
func writeShards(ctx context.Context, outs *outputs, paths []string, d *sparse.Dataset, seed uint64) error {
	return dealShards(ctx, outs, paths, d.X.Rows, seed, func(out io.Writer, rows []int) error {
		w := hpc.NewWriter(out, hpc.WriterOptions{Dim: d.X.Cols})
		for _, i := range rows {
			r := d.X.Row(i)
			var err error
			if d.QID != nil {
				err = w.AddWithQID(d.Y[i], d.QID[i], r.Ind, r.Val)
			} else {
				err = w.Add(d.Y[i], r.Ind, r.Val)
			}
			if err != nil {
				return err
			}
		}
		return w.Close()
	})
}

// dealShards deals n rows at random among the shard files paths (writers
// of outs): a random permutation of the rows, drawn from seed, cut into
// len(paths) contiguous pieces of sizes differing by at most one, so that
// every shard is a uniform sample of the rows in random order. write
// writes the rows of one piece, in their permuted order, to out.
func dealShards(ctx context.Context, outs *outputs, paths []string, n int, seed uint64, write func(out io.Writer, rows []int) error) error {
	N := len(paths)
	if n < N {
		return fmt.Errorf("%d rows cannot make %d shards of at least one row", n, N)
	}
	perm := rand.New(rand.NewPCG(seed, 0x5ba4d5)).Perm(n)
	for k, p := range paths {
		if err := write(iox.Writer(ctx, outs.writer(p)), perm[k*n/N:(k+1)*n/N]); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	return nil
}

// isCachePath reports whether a file named p is written as a cache.
func isCachePath(p string) bool { return sparse.FormatForName(p) == hpc.Name }

// openInput opens IN for convert: the file at path, or standard input
// for "-", behind one buffered reader through which the kind is told
// (see inputKind) and then the data read, so that nothing is read twice
// and a pipe (/dev/stdin too) loses no bytes. It returns the name that
// errors use and the function that closes the file.
func openInput(ctx context.Context, env *Env, path string) (*bufio.Reader, string, func(), error) {
	if path == "-" {
		m := newMeter(env, env.progress, "reading standard input", "bytes", 0)
		return bufio.NewReaderSize(meterReader{iox.Reader(ctx, env.Stdin), m}, 1<<16), "standard input", m.end, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, "", nil, err
	}
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		f.Close()
		return nil, "", nil, fmt.Errorf("%s is a directory", path)
	}
	// A read blocked on a pipe or FIFO that has gone quiet ends when ctx
	// is cancelled (regular files need not: their reads return).
	stop := context.AfterFunc(ctx, func() { f.SetReadDeadline(time.Now()) })
	m := newMeter(env, env.progress, "reading "+path, "bytes", fileSize(path))
	return bufio.NewReaderSize(meterReader{iox.Reader(ctx, f), m}, 1<<16), path, func() { m.end(); stop(); f.Close() }, nil
}

// inputKind tells what IN holds, peeking at src without consuming it: a
// cache by its magic, text by its name or by -from, LIBSVM otherwise.
func inputKind(src *bufio.Reader, path, from string) (string, error) {
	switch from {
	case "libsvm", "cache", "text":
		return from, nil
	case "":
	default:
		return "", usageError("-from %q (want libsvm, cache or text)", from)
	}
	if isCache(src) {
		return "cache", nil
	}
	if textNamed(path) {
		return "text", nil
	}
	if csvNamed(path) {
		return "csv", nil
	}
	return "libsvm", nil
}

// fitText fits a featurizer on the text of src and vectorizes it,
// tokenizing each document once while reading and keeping none. A
// regular file goes through text.FitFile (opening the file a second time
// is harmless where the file is regular); anything else (a pipe,
// standard input) is read once from src.
func fitText(ctx context.Context, src io.Reader, path string, opt text.ReadOptions, cfg text.Config) (*text.Featurizer, *sparse.Dataset, error) {
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() && path != "-" {
		return text.FitFileContext(ctx, path, opt, cfg)
	}
	return text.FitReaderContext(ctx, src, opt, cfg)
}

// writeFeaturizer writes f to w as f.Save writes it to a file.
func writeFeaturizer(w io.Writer, f *text.Featurizer) error {
	_, err := f.WriteTo(w)
	return err
}
