package beam

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"slices"

	sdk "github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/hyperplane-ml/hyperplane/engine/textmodel"
	"github.com/hyperplane-ml/hyperplane/sparse/hpc"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

func init() {
	for _, v := range []any{textCounts{}, textFit{}, countFn{}, sumCountsFn{}, saveCountsFn{}, featurizeFn{}} {
		sdk.RegisterType(reflect.TypeOf(v))
	}
}

// TextOptions configure TrainText.
type TextOptions struct {
	// Options are Train's, but Shards are text files, JSONL or TSV,
	// gzip-compressed or not (see text.ReadFile), each learned as one
	// shard: each should hold a random sample of the documents (deal a
	// file sorted by label round-robin into the shards).
	Options
	// Text is the featurizer's configuration; it must hash
	// (Vocabulary false).
	Text text.Config
	// LabelField and TextField are the JSONL fields of the label and the
	// text ("" for the defaults, label and text).
	LabelField, TextField string
}

// textFit is what the workers need of TextOptions.
type textFit struct {
	Config                text.Config
	LabelField, TextField string
}

func (t textFit) readOptions() text.ReadOptions {
	return text.ReadOptions{LabelField: t.LabelField, TextField: t.TextField}
}

// scan reads the documents of the text file name and calls do with each.
func (t textFit) scan(ctx context.Context, name string, do func(text.Doc) error) error {
	_, err := readWith(ctx, name, func(r io.Reader) error {
		opt := t.readOptions()
		opt.Name = name
		sc := text.NewScanner(r, opt)
		for sc.Scan() {
			if err := do(sc.Doc()); err != nil {
				return err
			}
		}
		return sc.Err()
	})
	return err
}

// counter returns a featurizer of t's configuration without IDF, whose
// output holds the buckets that a document holds.
func (t textFit) counter() (*text.Featurizer, error) {
	c := t.Config
	c.IDF = false
	return text.FromDocumentFrequencies(c, t.readOptions(), 1, []string{"0"}, nil, nil)
}

// textCounts is what the first stage counts of some documents: their
// number, their distinct labels (sorted), and every hash bucket Ind[k]
// (increasing) that DF[k] of them hold.
type textCounts struct {
	Docs    int64
	Labels  []string
	Ind, DF []int32
}

// The files of the work directory for text: the counts, the fitted
// featurizer and the featurized shards.
func textCountsPath(workdir string) string { return joinPath(workdir, "text-counts.json") }
func featurizerPath(workdir string) string { return joinPath(workdir, "text-featurizer.bin") }
func textShardPath(workdir string, i, n int) string {
	return joinPath(workdir, fmt.Sprintf("text-%05d-of-%05d.hpc", i, n))
}

// countFn counts the documents of a text shard.
type countFn struct{ Fit textFit }

func (f *countFn) ProcessElement(ctx context.Context, name string) (textCounts, error) {
	cf, err := f.Fit.counter()
	if err != nil {
		return textCounts{}, err
	}
	df := make([]int32, cf.Dim())
	labels := map[string]struct{}{}
	var docs int64
	err = f.Fit.scan(ctx, name, func(d text.Doc) error {
		for _, j := range cf.Transform(d.Text).Ind {
			df[j]++
		}
		labels[d.Label] = struct{}{}
		docs++
		return nil
	})
	if err != nil {
		return textCounts{}, err
	}
	c := textCounts{Docs: docs}
	for l := range labels {
		c.Labels = append(c.Labels, l)
	}
	slices.Sort(c.Labels)
	for j, n := range df {
		if n > 0 {
			c.Ind, c.DF = append(c.Ind, int32(j)), append(c.DF, n)
		}
	}
	return c, nil
}

// sumCountsFn sums counts: integer sums in whatever order the runner
// merges, so the total does not depend on it.
type sumCountsFn struct{}

func (sumCountsFn) MergeAccumulators(a, b textCounts) textCounts { return addCounts(a, b) }

// addCounts returns the sum of a and b.
func addCounts(a, b textCounts) textCounts {
	s := textCounts{Docs: a.Docs + b.Docs}
	s.Labels = slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(a.Labels), b.Labels...))))
	s.Ind = make([]int32, 0, max(len(a.Ind), len(b.Ind)))
	s.DF = make([]int32, 0, cap(s.Ind))
	i, k := 0, 0
	for i < len(a.Ind) || k < len(b.Ind) {
		switch {
		case k == len(b.Ind) || (i < len(a.Ind) && a.Ind[i] < b.Ind[k]):
			s.Ind, s.DF = append(s.Ind, a.Ind[i]), append(s.DF, a.DF[i])
			i++
		case i == len(a.Ind) || b.Ind[k] < a.Ind[i]:
			s.Ind, s.DF = append(s.Ind, b.Ind[k]), append(s.DF, b.DF[k])
			k++
		default:
			s.Ind, s.DF = append(s.Ind, a.Ind[i]), append(s.DF, a.DF[i]+b.DF[k])
			i++
			k++
		}
	}
	return s
}

// saveCountsFn writes the summed counts in the work directory.
type saveCountsFn struct{ Path string }

func (f *saveCountsFn) ProcessElement(ctx context.Context, c textCounts) error {
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	_, err = writeAll(ctx, f.Path, b)
	return err
}

// featurizeFn writes the featurized cache of text shard Index. Unless
// NoShuffle, the rows go to the cache in an order drawn from Seed and the
// shard's index: a cache is shuffled a block at a time, so a shard cut
// from a file sorted by label would otherwise learn long runs of one
// class every epoch. The shard's rows are held in memory for that.
type featurizeFn struct {
	Fit                 textFit
	Shards              []string
	Featurizer, Workdir string
	NoShuffle           bool
	Seed                uint64
}

func (f *featurizeFn) ProcessElement(ctx context.Context, i int) error {
	b, _, err := readAll(ctx, f.Featurizer)
	if err != nil {
		return err
	}
	var fz text.Featurizer
	if err := fz.UnmarshalBinary(b); err != nil {
		return fmt.Errorf("%s: %w", f.Featurizer, err)
	}
	name := f.Shards[i]
	var rows []textRow
	err = f.Fit.scan(ctx, name, func(d text.Doc) error {
		y, err := fz.Label(d.Label)
		if err != nil {
			return err
		}
		v := fz.Transform(d.Text)
		rows = append(rows, textRow{y, v.Ind, v.Val})
		return nil
	})
	if err != nil {
		return err
	}
	if !f.NoShuffle {
		r := rand.New(rand.NewPCG(f.Seed, uint64(i)))
		r.Shuffle(len(rows), func(a, b int) { rows[a], rows[b] = rows[b], rows[a] })
	}
	_, err = writeWith(ctx, textShardPath(f.Workdir, i, len(f.Shards)), func(w io.Writer) error {
		cw := hpc.NewWriter(w, hpc.WriterOptions{Dim: fz.Dim()})
		for _, r := range rows {
			if err := cw.Add(r.y, r.ind, r.val); err != nil {
				return err
			}
		}
		return cw.Close()
	})
	return err
}

// textRow is a featurized document.
type textRow struct {
	y   float64
	ind []int32
	val []float32
}

// TrainText learns a text model from text shards on a Beam runner: a
// first job counts every shard's documents, labels and hash buckets'
// document frequencies on the workers and sums them, which fits the
// featurizer (its IDF and labels) exactly as one fit on all the text
// would; a second featurizes every shard into a cache in the work
// directory (text-KKKKK-of-NNNNN.hpc); then Train learns those caches.
// The result is the text model hyperplane predict and eval read.
func TrainText(ctx context.Context, opt TextOptions) (*textmodel.Model, []Epoch, error) {
	if opt.Text.Vocabulary {
		return nil, nil, fmt.Errorf("%w: TrainText hashes (text.Config.Vocabulary must be false)", ErrOptions)
	}
	if _, err := settle(opt.Options); err != nil {
		return nil, nil, err
	}
	fit := textFit{Config: opt.Text, LabelField: opt.LabelField, TextField: opt.TextField}
	if _, err := fit.counter(); err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrOptions, err)
	}
	shards, err := expand(ctx, opt.Shards)
	if err != nil {
		return nil, nil, err
	}
	for _, name := range shards {
		if WorkFile(opt.Workdir, name) {
			return nil, nil, fmt.Errorf("%w: shard %s is a file the job writes in -workdir %s", ErrOptions, name, opt.Workdir)
		}
	}
	runner := opt.Runner
	if runner == "" {
		runner = "prism"
	}
	f, err := fitText(ctx, runner, fit, shards, opt.Workdir)
	if err != nil {
		return nil, nil, err
	}
	ff := &featurizeFn{Fit: fit, Shards: shards, Featurizer: featurizerPath(opt.Workdir), Workdir: opt.Workdir,
		NoShuffle: opt.Config.NoShuffle, Seed: opt.Config.Seed}
	caches, err := featurizeText(ctx, runner, ff, f)
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		for _, c := range caches {
			removeFile(ctx, c)
		}
	}()
	topt := opt.Options
	topt.Shards = caches
	m, figs, err := train(ctx, topt, true)
	if err != nil {
		return nil, figs, err
	}
	tm, err := textmodel.New(f, m)
	return tm, figs, err
}

// fitText runs the counting job and fits the featurizer of its counts.
func fitText(ctx context.Context, runner string, fit textFit, shards []string, workdir string) (*text.Featurizer, error) {
	p, s := sdk.NewPipelineWithRoot()
	names := sdk.CreateList(s, shards)
	counts := sdk.ParDo(s, &countFn{Fit: fit}, names)
	total := sdk.Combine(s, sumCountsFn{}, counts)
	sdk.ParDo0(s, &saveCountsFn{Path: textCountsPath(workdir)}, total)
	if _, err := sdk.Run(ctx, runner, p); err != nil {
		return nil, fmt.Errorf("beam: counting the text: %w", err)
	}
	b, _, err := readAll(ctx, textCountsPath(workdir))
	if err != nil {
		return nil, err
	}
	var c textCounts
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", textCountsPath(workdir), err)
	}
	if !fit.Config.IDF {
		c.Ind, c.DF = nil, nil
	}
	return text.FromDocumentFrequencies(fit.Config, fit.readOptions(), int(c.Docs), c.Labels, c.Ind, c.DF)
}

// featurizeText saves f in the work directory (as ff.Featurizer) and runs
// the job ff that featurizes every shard into a cache there, whose names
// it returns.
func featurizeText(ctx context.Context, runner string, ff *featurizeFn, f *text.Featurizer) ([]string, error) {
	shards, workdir := ff.Shards, ff.Workdir
	b, err := f.MarshalBinary()
	if err != nil {
		return nil, err
	}
	if _, err := writeAll(ctx, featurizerPath(workdir), b); err != nil {
		return nil, err
	}
	idx := make([]int, len(shards))
	caches := make([]string, len(shards))
	for i := range idx {
		idx[i] = i
		caches[i] = textShardPath(workdir, i, len(shards))
	}
	p, s := sdk.NewPipelineWithRoot()
	sdk.ParDo0(s, ff, sdk.CreateList(s, idx))
	if _, err := sdk.Run(ctx, runner, p); err != nil {
		return nil, fmt.Errorf("beam: featurizing the text: %w", err)
	}
	return caches, nil
}
