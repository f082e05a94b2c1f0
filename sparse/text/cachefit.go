package text

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sync"

	"github.com/hyperplane-ml/hyperplane/internal/iox"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
	"github.com/hyperplane-ml/hyperplane/sparse/hpc"
)

// CacheOptions sets up FitCache. Its zero value writes the first pass's
// rows under os.TempDir() and holds no document out.
type CacheOptions struct {
	// TempDir is the folder of the file in which the rows of the first
	// pass wait, their counts not yet weighed (about as large as the
	// cache written, and removed before FitCache returns); "" means
	// os.TempDir().
	TempDir string
	// Hold, when not nil, picks documents, by their number in the input
	// from 0, that FitCache returns in memory instead of writing them:
	// a held-out set, for a calibration say.
	Hold func(doc int64) bool
	// VocabBytes bounds the memory of a vocabulary's term counts, which
	// the workers share, each term held once, in shards by hash: once
	// they reach it, each shard that grows drops the terms it has counted
	// in the fewest documents (one, then two, and so on, the floor rising
	// as need be and never falling) until it takes its share of half of
	// it, and counts a dropped term afresh if it comes again. A term is thus
	// dropped only while its count is at most the floor, and its
	// document frequency is low by at most the counts it lost that way;
	// terms never dropped are counted exactly. The vocabulary leaves out
	// the terms counted in no more documents than their shard's floor:
	// such a count may be a rare term's, counted since it was last
	// dropped, whose idf would be far too high. 0 means a tenth of the
	// memory budget (budget.Resolve): what it counts leaves out the
	// slack of the counts' growing arrays and index, which with the
	// rest of a training bring the peak near the budget (at a quarter,
	// streamed trainings peaked 8% to 16% over it). A tenth held as many
	// terms as a fifth did when each of two workers kept its own counts
	// (and so held most terms twice).
	VocabBytes int64
	// Reread, when not nil, opens the input again from its start, for the
	// second pass to featurize the text once more instead of reading back
	// the first pass's raw counts: no temporary file is written, at the
	// price of tokenizing twice. The raw counts take about 12 bytes a
	// nonzero, several times the text itself, so for a corpus near the
	// free disk this is the way that fits. The input must give the same
	// documents again; another number of them is an error.
	Reread func() (io.ReadCloser, error)
}

// CacheResult is what FitCache made besides the cache.
type CacheResult struct {
	// Featurizer is the featurizer fitted on all the documents (the
	// held ones too).
	Featurizer *Featurizer
	// Held holds the rows of the documents CacheOptions.Hold picked, in
	// input order (nil if none).
	Held *sparse.Dataset
	// Rows is the number of rows written to the cache.
	Rows int64
	// Pruned, with a vocabulary, is 0 when every term was counted
	// exactly; else the term counts reached CacheOptions.VocabBytes and
	// terms counted in up to Pruned documents were dropped to make room
	// (see CacheOptions.VocabBytes).
	Pruned int
}

// FitCache reads labelled documents from r, as Read does, fits a
// Featurizer on them and writes their rows to w as a cache file
// (sparse/hpc), the rows FitReader would return, in input order, without
// holding the corpus or its rows in memory: so that a corpus larger
// than memory can be trained on (engine.FitCache). The documents are
// tokenized while r is read, and their raw counts, keyed by term hash or
// bucket, written to a temporary file; once the vocabulary (or with
// hashing the document frequencies) is known, that file is read back,
// its rows weighed and written to w. With CacheOptions.Reread the text is
// read and featurized again instead: the same rows, no temporary file.
// Memory holds a few chunks of
// documents and, with hashing, the buckets' document frequencies, or
// with a vocabulary the term counts, bounded by CacheOptions.VocabBytes:
// past it the rarest terms are dropped (CacheResult.Pruned), and the
// vocabulary then is an approximation of FitReader's. Errors are those of
// FitReader, or of writing.
func FitCache(ctx context.Context, r io.Reader, opt ReadOptions, cfg Config, w io.Writer, co CacheOptions) (CacheResult, error) {
	cfg, err := cfg.normalize()
	if err != nil {
		return CacheResult{}, err
	}
	if opt.Documents {
		return CacheResult{}, fmt.Errorf("%w: ReadOptions.Documents: a featurizer is fitted on labelled documents", ErrConfig)
	}
	var tmp *os.File
	if co.Reread == nil {
		if tmp, err = os.CreateTemp(co.TempDir, ".hyperplane-counts-*"); err != nil {
			return CacheResult{}, err
		}
		defer func() {
			tmp.Close()
			os.Remove(tmp.Name())
		}()
	}
	f, dfc, acct := newStreamFit(cfg)
	var counts *sharedCounts
	if cfg.Vocabulary {
		acct.soft = cmp.Or(co.VocabBytes, budget.Resolve(0)/10)
		counts = newSharedCounts(cfg.workers(), acct, cfg.MaxFeatures > 0)
	}
	sc := NewScanner(iox.Reader(ctx, r), opt)
	f.labelField, f.textField = sc.opt.LabelField, sc.opt.TextField

	// The first pass: raw counts to the temporary file.
	fp := &firstPass{labelNum: map[string]int{}, hold: co.Hold}
	if tmp != nil {
		fp.raw = newRawWriter(tmp)
	}
	err = f.streamOrdered(sc, func(e *Encoder, docs []Doc) piece {
		if counts != nil {
			return e.sharedPiece(docs, counts)
		}
		return e.countPiece(docs, dfc)
	}, fp.take)
	if err == nil && fp.raw != nil {
		err = fp.raw.flush()
	}
	if err != nil {
		return CacheResult{}, err
	}
	f.nDocs = int(fp.doc)
	if f.nDocs == 0 {
		return CacheResult{}, fmt.Errorf("%w: cannot fit on %s: it holds no documents", ErrEmpty, describeInput(opt.Name))
	}
	if fp.doc > math.MaxInt32 {
		return CacheResult{}, fmt.Errorf("%w: %d documents, at most %d can be fitted on", ErrConfig, fp.doc, math.MaxInt32)
	}
	classOf := f.setLabels(fp.labelNames)

	// The vocabulary or the document frequencies, and the weights.
	var counters []*termCounter
	if counts != nil {
		counters = counts.counters()
	}
	pruned, err := f.fitFeatures(counters, acct, dfc)
	if err != nil {
		return CacheResult{}, err
	}

	// The second pass: the raw rows back (or the text again), as
	// features, weighed, to w.
	out := hpc.NewWriter(w, hpc.WriterOptions{Dim: f.dim})
	if err := f.writeRows(ctx, tmp, co, opt, fp, classOf, out); err != nil {
		return CacheResult{}, err
	}
	res := CacheResult{Featurizer: f, Rows: out.Rows(), Pruned: int(pruned)}
	if len(fp.held) > 0 {
		if res.Held, err = f.heldRows(fp.held, classOf); err != nil {
			return CacheResult{}, err
		}
	}
	return res, nil
}

// firstPass is FitCache's first pass over the documents: it writes their
// raw counts to a temporary file (raw; nil with CacheOptions.Reread),
// keyed by term hash (or bucket), each row's label as its number among
// the labels seen so far. Held documents stay in memory, as pieces.
type firstPass struct {
	raw        *rawWriter
	labelNum   map[string]int // a label's number
	labelNames []string       // the labels by number
	hold       func(doc int64) bool
	held       []piece
	doc        int64 // documents so far
	maxEntries int   // the most entries of a row
	keys       []uint64
}

// take writes the rows of pc, the next piece in input order, or holds
// them.
func (fp *firstPass) take(pc *piece) error {
	for i, l := range pc.labels {
		k, ok := fp.labelNum[l]
		if !ok {
			k = len(fp.labelNames)
			fp.labelNum[l] = k
			fp.labelNames = append(fp.labelNames, l)
		}
		a, b := pc.indptr[i], pc.indptr[i+1]
		if pc.hs != nil {
			fp.keys = pc.hs[a:b]
		} else {
			fp.keys = fp.keys[:0]
			for _, j := range pc.ind[a:b] {
				fp.keys = append(fp.keys, uint64(j))
			}
		}
		fp.maxEntries = max(fp.maxEntries, int(b-a))
		if fp.hold != nil && fp.hold(fp.doc) {
			// Copies: slices of the piece would keep all of it.
			fp.held = append(fp.held, piece{hs: slices.Clone(fp.keys), val: slices.Clone(pc.val[a:b]), y: []float64{float64(k)}})
		} else if fp.raw == nil {
			// Nothing to keep: the second pass reads the text again.
		} else if err := fp.raw.add(k, fp.keys, pc.val[a:b]); err != nil {
			return err
		}
		fp.doc++
	}
	return nil
}

// setLabels sets f's labels to those named, and returns the class of
// each by its number in the first pass.
func (f *Featurizer) setLabels(labelNames []string) (classOf []float64) {
	distinct := make(map[string]struct{}, len(labelNames))
	for _, l := range labelNames {
		distinct[l] = struct{}{}
	}
	f.labels = fitLabels(distinct)
	classOf = make([]float64, len(labelNames))
	for k, l := range labelNames {
		classOf[k], _ = f.labels.value(l)
	}
	return classOf
}

// fitFeatures chooses the vocabulary from counters or totals the
// document frequencies of dfc, then sets the idf weights. pruned is the
// highest count below which a counter dropped terms.
func (f *Featurizer) fitFeatures(counters []*termCounter, acct *vocabBudget, dfc *dfCounter) (pruned int32, err error) {
	if f.cfg.Vocabulary {
		for _, tc := range counters {
			pruned = max(pruned, tc.floor)
		}
		if err := f.chooseVocabulary(counters, acct); err != nil {
			return 0, err
		}
		for _, tc := range counters {
			*tc = termCounter{}
		}
	} else if f.cfg.IDF {
		if f.df, err = dfc.total(); err != nil {
			return 0, err
		}
	}
	return pruned, f.setIDF()
}

// heldRows weighs the held documents' rows into a dataset, their labels
// by classOf.
func (f *Featurizer) heldRows(held []piece, classOf []float64) (*sparse.Dataset, error) {
	b := sparse.NewBuilder(f.dim)
	var y []float64
	var sc featureScratch
	for i := range held {
		pc := &held[i]
		ind, val := f.weighRaw(pc.hs, pc.val, &sc)
		if err := b.Add(ind, val); err != nil {
			return nil, err
		}
		y = append(y, classOf[int(pc.y[0])])
	}
	return &sparse.Dataset{X: b.Build(), Y: y}, nil
}

// weighRaw turns a row of raw counts keyed by term hash or bucket into
// the featurizer's row: features (a term the vocabulary left out has
// none), sorted, weighed. The slices are sc's, overwritten by the next
// call.
func (f *Featurizer) weighRaw(keys []uint64, counts []float32, sc *featureScratch) ([]int32, []float32) {
	ind, val := sc.rowInd[:0], sc.rowVal[:0]
	if f.cfg.Vocabulary {
		if len(sc.dense) < f.dim {
			sc.dense = make([]float32, f.dim)
		}
		ks := sc.keys[:0]
		for i, h := range keys {
			if j, ok := f.index.get(h); ok {
				ks = append(ks, uint32(j))
				sc.dense[j] = counts[i]
			}
		}
		if len(sc.tmp) < len(ks) {
			sc.tmp = make([]uint32, cap(ks))
		}
		for _, j := range sortKeys(ks, sc.tmp[:len(ks)]) {
			ind, val = append(ind, int32(j)), append(val, sc.dense[j])
			sc.dense[j] = 0
		}
		sc.keys = ks
		f.weigh(ind, val)
	} else {
		for i, j := range keys {
			ind, val = append(ind, int32(j)), append(val, counts[i])
		}
		if f.cfg.IDF {
			f.weigh(ind, val)
		}
		// (Hashed without IDF, countPiece weighed the rows already.)
	}
	sc.rowInd, sc.rowVal = ind, val
	return ind, val
}

// rawBatch is a run of the first pass's rows on their way through the
// second: read, then weighed by a worker, then written in order.
type rawBatch struct {
	seq    int
	labels []int
	keys   []uint64
	counts []float32
	ptr    []int // row r is [ptr[r], ptr[r+1]) of keys and counts, then of ind and val
	ind    []int32
	val    []float32
	err    error
}

// rawBatchEntries is about how many entries a batch of the second pass
// holds.
const rawBatchEntries = 1 << 18

// secondPass reads the first pass's rows from rr, has them weighed on
// f's number of goroutines and writes them to out in their order.
func (f *Featurizer) secondPass(ctx context.Context, rr *rawReader, maxEntries int, classOf []float64, out *hpc.Writer) error {
	workers := f.cfg.workers()
	jobs := make(chan *rawBatch, workers)
	results := make(chan *rawBatch, workers)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		defer close(jobs)
		readBatches(ctx, rr, maxEntries, len(classOf), jobs, stop)
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f.weighBatches(jobs, results, stop)
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()
	waiting := map[int]*rawBatch{}
	next := 0
	for b := range results {
		waiting[b.seq] = b
		for b, ok := waiting[next]; ok; b, ok = waiting[next] {
			delete(waiting, next)
			next++
			if b.err != nil {
				return b.err
			}
			for r, k := range b.labels {
				if err := out.Add(classOf[k], b.ind[b.ptr[r]:b.ptr[r+1]], b.val[b.ptr[r]:b.ptr[r+1]]); err != nil {
					return err
				}
			}
		}
	}
	return ctx.Err()
}

// writeRows is FitCache's second pass: it writes to out the rows of the
// raw counts in tmp, or with no tmp of the text read again (co.Reread),
// and closes out.
func (f *Featurizer) writeRows(ctx context.Context, tmp *os.File, co CacheOptions, opt ReadOptions, fp *firstPass, classOf []float64, out *hpc.Writer) error {
	var err error
	if tmp == nil {
		err = f.rereadPass(ctx, co, opt, fp.doc, out)
	} else if _, err = tmp.Seek(0, io.SeekStart); err == nil {
		err = f.secondPass(ctx, newRawReader(tmp), fp.maxEntries, classOf, out)
	}
	if err != nil {
		return err
	}
	return out.Close()
}

// rereadPass is the second pass of FitCache with co.Reread: it reads the
// text again, featurizes it with f on f's number of goroutines and writes
// the rows, in input order, to out, but for those co.Hold picks. The
// input must hold docs documents, as in the first pass.
func (f *Featurizer) rereadPass(ctx context.Context, co CacheOptions, opt ReadOptions, docs int64, out *hpc.Writer) error {
	r, err := co.Reread()
	if err != nil {
		return err
	}
	defer r.Close()
	sc := NewScanner(iox.Reader(ctx, r), opt)
	doc := int64(0)
	err = f.streamOrdered(sc, func(e *Encoder, docs []Doc) piece {
		pc := e.vectorize(docs, true)
		if pc.bad >= 0 {
			pc.err = (&Corpus{Name: sc.opt.Name, Docs: docs}).docErr(pc.bad, pc.msg)
		}
		return pc
	}, func(pc *piece) error {
		for i, y := range pc.y {
			if co.Hold == nil || !co.Hold(doc) {
				a, b := pc.indptr[i], pc.indptr[i+1]
				if err := out.Add(y, pc.ind[a:b], pc.val[a:b]); err != nil {
					return err
				}
			}
			doc++
		}
		return nil
	})
	if err == nil && doc != docs {
		err = fmt.Errorf("%w: %s held %d documents when read again, %d the first time", ErrConfig, describeInput(opt.Name), doc, docs)
	}
	if err == nil {
		err = ctx.Err()
	}
	return err
}

// readBatches reads the first pass's rows from rr, of at most maxEntries
// entries and labels below nLabels, in batches of about rawBatchEntries
// entries sent on jobs, until the end, an error (sent in the last
// batch) or stop.
func readBatches(ctx context.Context, rr *rawReader, maxEntries, nLabels int, jobs chan<- *rawBatch, stop <-chan struct{}) {
	for seq := 0; ; seq++ {
		b := &rawBatch{seq: seq, ptr: []int{0}}
		for len(b.keys) < rawBatchEntries {
			k, err := rr.next(maxEntries)
			if err == io.EOF {
				break
			}
			if err == nil && k >= nLabels {
				err = fmt.Errorf("%w: label number %d", errRawRows, k)
			}
			if err == nil {
				err = ctx.Err()
			}
			if err != nil {
				b.err = err
				break
			}
			b.labels = append(b.labels, k)
			b.keys = append(b.keys, rr.keys...)
			b.counts = append(b.counts, rr.counts...)
			b.ptr = append(b.ptr, len(b.keys))
		}
		if len(b.labels) == 0 && b.err == nil {
			return
		}
		select {
		case jobs <- b:
		case <-stop:
			return
		}
		if b.err != nil {
			return
		}
	}
}

// weighBatches is one of secondPass's workers: it weighs the rows of the
// batches from jobs, in place of their raw counts, and sends them on
// results, until jobs closes or stop.
func (f *Featurizer) weighBatches(jobs <-chan *rawBatch, results chan<- *rawBatch, stop <-chan struct{}) {
	var sc featureScratch
	for b := range jobs {
		if b.err == nil {
			b.ind, b.val = make([]int32, 0, len(b.keys)), make([]float32, 0, len(b.keys))
			for r := range b.labels {
				ind, val := f.weighRaw(b.keys[b.ptr[r]:b.ptr[r+1]], b.counts[b.ptr[r]:b.ptr[r+1]], &sc)
				b.ptr[r] = len(b.ind)
				b.ind, b.val = append(b.ind, ind...), append(b.val, val...)
			}
			b.ptr[len(b.labels)] = len(b.ind)
			b.keys, b.counts = nil, nil
		}
		select {
		case results <- b:
		case <-stop:
			return
		}
	}
}
