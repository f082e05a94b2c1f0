package beam

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"slices"
	"unsafe"

	sdk "github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/hyperplane-ml/hyperplane/engine/textmodel"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
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
	// Text is the featurizer's configuration: hashing, or a vocabulary
	// (Vocabulary true) fitted on the terms of all the shards.
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
// output holds the buckets that a document holds (hashing only).
func (t textFit) counter() (*text.Featurizer, error) {
	c := t.Config
	c.IDF = false
	return text.FromDocumentFrequencies(c, t.readOptions(), 1, []string{"0"}, nil, nil)
}

// check returns the text package's complaint about t's configuration.
func (t textFit) check() error {
	if t.Config.Vocabulary {
		_, err := text.NewTermCounter(t.Config)
		return err
	}
	_, err := t.counter()
	return err
}

// textCounts is what the first stage counts of some documents: their
// number, their distinct labels (sorted), and with hashing every hash
// bucket Ind[k] (increasing) that DF[k] of them hold, with a vocabulary
// every distinct term Terms[k] (sorted as strings) that TermDF[k] of them
// hold, occurring TermCF[k] times in all when MaxFeatures ranks terms by
// that (else TermCF is empty).
type textCounts struct {
	Docs    int64
	Labels  []string
	Ind, DF []int32  `json:",omitempty"`
	Terms   []string `json:",omitempty"`
	TermDF  []int32  `json:",omitempty"`
	TermCF  []int64  `json:",omitempty"`
}

// The files of the work directory for text: the counts, the fitted
// featurizer and the featurized shards.
func textCountsPath(workdir string) string { return joinPath(workdir, "text-counts.json") }
func featurizerPath(workdir string) string { return joinPath(workdir, "text-featurizer.bin") }
func textShardPath(workdir string, i, n int) string {
	return joinPath(workdir, fmt.Sprintf("text-%05d-of-%05d.hpc", i, n))
}

// countFn counts the documents of a text shard: their buckets' document
// frequencies with hashing, their terms' with a vocabulary.
type countFn struct{ Fit textFit }

func (f *countFn) ProcessElement(ctx context.Context, name string) (textCounts, error) {
	var c textCounts
	var err error
	if f.Fit.Config.Vocabulary {
		c, err = f.countTerms(ctx, name)
	} else {
		c, err = f.countBuckets(ctx, name)
	}
	if err == nil && c.Docs == 0 {
		err = fmt.Errorf("text shard %s holds no documents", name)
	}
	return c, err
}

// countDocs reads the documents of the text shard name, calls do with the
// text of each, and returns their number and labels.
func (t textFit) countDocs(ctx context.Context, name string, do func(string) error) (textCounts, error) {
	labels := map[string]struct{}{}
	var docs int64
	err := t.scan(ctx, name, func(d text.Doc) error {
		labels[d.Label] = struct{}{}
		docs++
		return do(d.Text)
	})
	if err != nil {
		return textCounts{}, err
	}
	c := textCounts{Docs: docs}
	for l := range labels {
		c.Labels = append(c.Labels, l)
	}
	slices.Sort(c.Labels)
	return c, nil
}

// countBuckets counts the hash buckets of the documents of shard name.
func (f *countFn) countBuckets(ctx context.Context, name string) (textCounts, error) {
	cf, err := f.Fit.counter()
	if err != nil {
		return textCounts{}, err
	}
	df := make([]int32, cf.Dim())
	c, err := f.Fit.countDocs(ctx, name, func(s string) error {
		for _, j := range cf.Transform(s).Ind {
			df[j]++
		}
		return nil
	})
	if err != nil {
		return textCounts{}, err
	}
	for j, n := range df {
		if n > 0 {
			c.Ind, c.DF = append(c.Ind, int32(j)), append(c.DF, n)
		}
	}
	return c, nil
}

// countTerms counts the vocabulary terms of the documents of shard name,
// as a vocabulary fit counts them (text.TermCounter): their memory is
// checked against the worker's memory budget as they grow.
func (f *countFn) countTerms(ctx context.Context, name string) (textCounts, error) {
	tc, err := text.NewTermCounter(f.Fit.Config)
	if err != nil {
		return textCounts{}, err
	}
	c, err := f.Fit.countDocs(ctx, name, func(s string) error {
		if err := tc.Add(s); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	})
	if err != nil {
		return textCounts{}, err
	}
	c.Terms, c.TermDF, c.TermCF = tc.Counts()
	return c, nil
}

// sumCountsFn sums counts: integer sums in whatever order the runner
// merges, so the total does not depend on it (the terms of a vocabulary
// are merged by text, the sums listed in the order of their texts). The
// sum holds every distinct term of the corpus; a merge whose operands and
// result would take more than the worker's memory budget (budget.Default)
// fails with an error wrapping budget.ErrExceeded: the counts are exact
// or refused, never pruned.
type sumCountsFn struct{}

func (sumCountsFn) MergeAccumulators(a, b textCounts) (textCounts, error) {
	if err := budget.Check(0, 2*(termsBytes(a)+termsBytes(b)), "summing the term counts of the text shards"); err != nil {
		return textCounts{}, fmt.Errorf("beam: %w (hashing, -vocab=false, counts no terms)", err)
	}
	return addCounts(a, b), nil
}

// termsBytes is about the memory of the terms of c: texts, string
// headers and counts.
func termsBytes(c textCounts) int64 {
	n := int64(len(c.Terms)) * int64(unsafe.Sizeof("")+4+8)
	for _, t := range c.Terms {
		n += int64(len(t))
	}
	return n
}

// addCounts returns the sum of a and b.
func addCounts(a, b textCounts) textCounts {
	s := textCounts{Docs: a.Docs + b.Docs}
	s.Labels = slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(a.Labels), b.Labels...))))
	s.Terms, s.TermDF, s.TermCF = addTerms(a, b)
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

// addTerms returns the sums of the term counts of a and b, by term,
// sorted.
func addTerms(a, b textCounts) ([]string, []int32, []int64) {
	n := max(len(a.Terms), len(b.Terms))
	terms, df := make([]string, 0, n), make([]int32, 0, n)
	withCF := len(a.TermCF) > 0 || len(b.TermCF) > 0
	var cf []int64
	if withCF {
		cf = make([]int64, 0, n)
	}
	take := func(c textCounts, i int) {
		terms, df = append(terms, c.Terms[i]), append(df, c.TermDF[i])
		if withCF {
			cf = append(cf, c.TermCF[i])
		}
	}
	i, k := 0, 0
	for i < len(a.Terms) || k < len(b.Terms) {
		switch {
		case k == len(b.Terms) || (i < len(a.Terms) && a.Terms[i] < b.Terms[k]):
			take(a, i)
			i++
		case i == len(a.Terms) || b.Terms[k] < a.Terms[i]:
			take(b, k)
			k++
		default:
			take(a, i)
			df[len(df)-1] += b.TermDF[k]
			if withCF {
				cf[len(cf)-1] += b.TermCF[k]
			}
			i++
			k++
		}
	}
	return terms, df, cf
}

// saveCountsFn writes the summed counts in the work directory, less the
// terms in fewer than MinDF documents, which no vocabulary keeps.
type saveCountsFn struct {
	Path  string
	MinDF int
}

func (f *saveCountsFn) ProcessElement(ctx context.Context, c textCounts) error {
	if f.MinDF > 1 {
		c = keepTerms(c, f.MinDF)
	}
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	_, err = writeAll(ctx, f.Path, b)
	return err
}

// keepTerms returns c less its terms in fewer than minDF documents, in
// new slices (c is an element the runner may still hold).
func keepTerms(c textCounts, minDF int) textCounts {
	terms, df, cf := c.Terms, c.TermDF, c.TermCF
	c.Terms, c.TermDF, c.TermCF = nil, nil, nil
	for i := range terms {
		if int(df[i]) >= minDF {
			c.Terms, c.TermDF = append(c.Terms, terms[i]), append(c.TermDF, df[i])
			if len(cf) > 0 {
				c.TermCF = append(c.TermCF, cf[i])
			}
		}
	}
	return c
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
// first job counts every shard's documents and labels on the workers, and
// with hashing its buckets' document frequencies, with a vocabulary its
// terms' document frequencies (and occurrences, with MaxFeatures), and
// sums them, which fits the featurizer (its vocabulary, IDF and labels)
// exactly as one text.FitFile on all the text would (a vocabulary by
// text.FromTermFrequencies, which says what is exact); a second
// featurizes every shard into a cache in the work directory
// (text-KKKKK-of-NNNNN.hpc); then Train learns those caches. The result
// is the text model hyperplane predict and eval read.
//
// A vocabulary's counts are held whole: each worker's shard's distinct
// terms, then every distinct term of the corpus where they are summed
// (one worker), each checked against that worker's memory budget
// (budget.Default), past which the job fails with an error wrapping
// budget.ErrExceeded, as text.FitFile (hyperplane train) fails. Unlike
// text.FitCache (hyperplane train -stream), which drops the rarest terms
// when their counts fill a tenth of its budget, nothing is dropped: that
// would make the vocabulary depend on how the shards were merged.
// A shard without documents is an error.
func TrainText(ctx context.Context, opt TextOptions) (*textmodel.Model, []Epoch, error) {
	if _, err := settle(opt.Options); err != nil {
		return nil, nil, err
	}
	fit := textFit{Config: opt.Text, LabelField: opt.LabelField, TextField: opt.TextField}
	if err := fit.check(); err != nil {
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
	sdk.ParDo0(s, &saveCountsFn{Path: textCountsPath(workdir), MinDF: fit.Config.MinDF}, total)
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
	if fit.Config.Vocabulary {
		return text.FromTermFrequencies(fit.Config, fit.readOptions(), int(c.Docs), c.Labels, c.Terms, c.TermDF, c.TermCF)
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
