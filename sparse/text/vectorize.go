package text

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/hyperplane-ml/hyperplane/internal/colorder"
	"github.com/hyperplane-ml/hyperplane/internal/iox"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
	"github.com/hyperplane-ml/hyperplane/sparse/internal/csrcat"
	"github.com/hyperplane-ml/hyperplane/sparse/internal/readopt"
)

// Work is cut into chunks of documents holding about chunkBytes of text
// (at most chunkMaxDocs documents): enough to amortize the scheduling, small
// enough to balance the load.
const (
	chunkBytes   = 256 << 10
	chunkMaxDocs = 4096
)

// chunk is a run of documents handled by one worker at a time.
type chunk struct{ lo, hi int }

// chunkDocs cuts docs into chunks.
func chunkDocs(docs []Doc) []chunk {
	var out []chunk
	lo, size := 0, 0
	for i := range docs {
		size += len(docs[i].Text) + 16
		if size >= chunkBytes || i+1-lo >= chunkMaxDocs {
			out = append(out, chunk{lo, i + 1})
			lo, size = i+1, 0
		}
	}
	if lo < len(docs) {
		out = append(out, chunk{lo, len(docs)})
	}
	return out
}

// runChunks calls fn for every chunk index on f's number of workers, each
// goroutine with its own Encoder (see runWorkers).
func runChunks(ctx context.Context, f *Featurizer, chunks []chunk, fn func(e *Encoder, k int) bool) error {
	return runWorkers(ctx, f.cfg.workers(), len(chunks), f.NewEncoder, fn)
}

// runWorkers calls fn for every index in [0, n) on up to workers
// goroutines, each with its own scratch s from newScratch. Indices are
// claimed in increasing order; once an fn returns false, or ctx is done,
// no further index is claimed, but every index claimed before is
// finished, so all indices before a failed one are done. It returns
// ctx.Err() if ctx ended the run.
func runWorkers[S any](ctx context.Context, workers, n int, newScratch func() S, fn func(s S, k int) bool) error {
	var cancelled atomic.Bool
	var next atomic.Int64
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := newScratch()
			for !stop.Load() {
				// An index is a chunk or a piece, a quarter of a MiB of
				// text at most: a check an index stops the work soon
				// after ctx is done.
				if ctx.Err() != nil {
					cancelled.Store(true)
					stop.Store(true)
					return
				}
				k := int(next.Add(1) - 1)
				if k >= n {
					return
				}
				if !fn(s, k) {
					stop.Store(true)
				}
			}
		}()
	}
	wg.Wait()
	if cancelled.Load() {
		return ctx.Err()
	}
	return nil
}

// runChunksErr is runChunks with an fn that fails by returning an error:
// it returns the first error recorded, or ctx's if ctx ended the run (nil
// when every chunk succeeded).
func runChunksErr(ctx context.Context, f *Featurizer, chunks []chunk, fn func(e *Encoder, k int) error) error {
	var mu sync.Mutex
	var first error
	cerr := runChunks(ctx, f, chunks, func(e *Encoder, k int) bool {
		err := fn(e, k)
		if err != nil {
			mu.Lock()
			first = cmp.Or(first, err)
			mu.Unlock()
		}
		return err == nil
	})
	return cmp.Or(first, cerr)
}

// parallelRange calls fn on consecutive parts of [0, n) on up to workers
// goroutines.
func parallelRange(n, workers int, fn func(lo, hi int)) {
	parts := max(1, min(workers, n/4096))
	var wg sync.WaitGroup
	for p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(n*p/parts, n*(p+1)/parts)
		}()
	}
	wg.Wait()
}

// fitHashedDF counts, for every bucket, the training documents in which
// it ends up nonzero.
func (f *Featurizer) fitHashedDF(ctx context.Context, docs []Doc) error {
	chunks := chunkDocs(docs)
	dfc := newDFCounter(f, f.cfg.workers())
	err := runChunksErr(ctx, f, chunks, func(e *Encoder, k int) error {
		if e.df == nil {
			e.df = dfc.local()
		}
		for _, d := range docs[chunks[k].lo:chunks[k].hi] {
			e.counts(d.Text)
			if err := e.df.add(e.ind); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	df, err := dfc.total()
	f.df = df
	return err
}

// piece is the vectorized content of one chunk.
type piece struct {
	indptr []int64 // local row pointers, len(y)+1
	ind    []int32
	val    []float32
	y      []float64
	labels []string     // label names, when the classes are not known yet
	bad    int          // chunk-relative index of a document with a bad label, or -1
	msg    string       // what is wrong with it
	err    error        // the error to report for it, when known
	tc     *termCounter // the counter whose term numbers ind holds, when fitting a vocabulary
	hs     []uint64     // the terms' hashes instead, for FitCache
}

// newPiece returns an empty piece with room for docs.
func (e *Encoder) newPiece(docs []Doc) piece {
	nnz := e.expectedNNZ(docs)
	return piece{
		indptr: make([]int64, 1, len(docs)+1),
		ind:    make([]int32, 0, nnz),
		val:    make([]float32, 0, nnz),
		bad:    -1,
	}
}

// expectedNNZ returns how many nonzeros to reserve room for in a piece
// of docs: at the rate seen so far (or one per 4 bytes of text at first),
// with 10% slack.
func (e *Encoder) expectedNNZ(docs []Doc) int64 {
	var size int64
	for i := range docs {
		size += int64(len(docs[i].Text))
	}
	if e.seenBytes > 0 {
		return int64(float64(size)*float64(e.seenNNZ)/float64(e.seenBytes)*1.1) + 64
	}
	return size/4 + 64
}

// bytes returns the memory pc holds.
func (pc *piece) bytes() int64 {
	b := 8*cap(pc.indptr) + 4*cap(pc.ind) + 4*cap(pc.val) + 8*cap(pc.hs) + 8*cap(pc.y) + int(unsafe.Sizeof(""))*cap(pc.labels)
	for _, l := range pc.labels {
		b += len(l)
	}
	return int64(b)
}

// add appends the encoder's current row to pc.
func (pc *piece) add(e *Encoder) {
	pc.ind = append(pc.ind, e.ind...)
	pc.val = append(pc.val, e.val...)
	pc.indptr = append(pc.indptr, int64(len(pc.ind)))
}

// noteSize records the size of a finished piece, to size the next ones.
func (e *Encoder) noteSize(docs []Doc, pc *piece) {
	for i := range docs {
		e.seenBytes += int64(len(docs[i].Text))
	}
	e.seenNNZ += int64(len(pc.val))
}

// vectorize transforms a run of documents into a piece, stopping at the
// first document with a label f does not know; without labels, every
// class value is 0.
func (e *Encoder) vectorize(docs []Doc, labelled bool) piece {
	pc := e.newPiece(docs)
	pc.y = make([]float64, 0, len(docs))
	for i := range docs {
		d := &docs[i]
		var y float64
		if labelled {
			var msg string
			if y, msg = e.f.labels.value(d.Label); msg != "" {
				pc.bad, pc.msg = i, msg
				return pc
			}
		}
		e.Transform(d.Text)
		pc.add(e)
		pc.y = append(pc.y, y)
	}
	e.noteSize(docs, &pc)
	return pc
}

// Vectorize turns the documents of c into a Dataset: row i of X holds the
// features of c.Docs[i] (Cols = Dim()) and Y[i] the class value of its
// label (see Label). The documents are processed in parallel by
// Config.Workers goroutines; the result does not depend on their number.
// A label the Featurizer does not know is an error wrapping ErrLabel: a
// *sparse.ParseError naming c.Name and the document's line (column 1) if
// the document has one, else an error naming the document's index. The
// first such document in corpus order is reported.
func (f *Featurizer) Vectorize(c *Corpus) (*sparse.Dataset, error) {
	return f.VectorizeContext(context.Background(), c)
}

// VectorizeContext is Vectorize that stops soon after ctx is done,
// returning ctx.Err().
func (f *Featurizer) VectorizeContext(ctx context.Context, c *Corpus) (*sparse.Dataset, error) {
	if c == nil {
		c = &Corpus{}
	}
	docs := c.Docs
	chunks := chunkDocs(docs)
	pieces := make([]piece, len(chunks))
	err := runChunks(ctx, f, chunks, func(e *Encoder, k int) bool {
		pieces[k] = e.vectorize(docs[chunks[k].lo:chunks[k].hi], true)
		return pieces[k].bad < 0
	})
	if err != nil {
		return nil, err
	}
	for k := range pieces {
		if pc := &pieces[k]; pc.bad >= 0 {
			return nil, c.docErr(chunks[k].lo+pc.bad, pc.msg)
		}
	}
	return assemble(pieces, f.dim, f.cfg.workers()), nil
}

// assemble concatenates the pieces into one Dataset, copying in parallel.
func assemble(pieces []piece, cols, workers int) *sparse.Dataset {
	parts := make([]csrcat.Part, len(pieces))
	for k := range pieces {
		pc := &pieces[k]
		parts[k] = csrcat.Part{Indptr: pc.indptr, Ind: pc.ind, Val: pc.val, Y: pc.y}
	}
	r := csrcat.Concat(parts, false, workers, func(k int) { pieces[k], parts[k] = piece{}, csrcat.Part{} })
	return &sparse.Dataset{
		X: &sparse.CSR{Rows: len(r.Y), Cols: cols, Indptr: r.Indptr, Ind: r.Ind, Val: r.Val},
		Y: r.Y,
	}
}

// FitFile reads the training documents of the file at path (JSONL or TSV,
// gzip-compressed or not; see ReadFile), fits a Featurizer on them and
// vectorizes them: the common first step of training on a text file. It
// gives the same result as ReadFile, Fit and Vectorize in turn, faster
// and in less memory: with hashing, the documents are tokenized once,
// while the file is still being read, and are not kept; the labels and
// the idf (and with Vocabulary the vocabulary) are fitted at the end and
// applied to the counts. Errors are those of ReadFile and Fit.
func FitFile(path string, opt ReadOptions, cfg Config) (*Featurizer, *sparse.Dataset, error) {
	return FitFileContext(context.Background(), path, opt, cfg)
}

// FitFileContext is FitFile that stops soon after ctx is done (reading,
// fitting or vectorizing), returning ctx.Err().
func FitFileContext(ctx context.Context, path string, opt ReadOptions, cfg Config) (*Featurizer, *sparse.Dataset, error) {
	ncfg, err := cfg.normalize()
	if err != nil {
		return nil, nil, err
	}
	if opt.Documents {
		return nil, nil, fmt.Errorf("%w: ReadOptions.Documents: a featurizer is fitted on labelled documents", ErrConfig)
	}
	var f *Featurizer
	d, err := readopt.ReadFile(path, &opt.Name, func(r io.Reader) (d *sparse.Dataset, err error) {
		f, d, err = fitReader(colorder.RecorderFrom(ctx), iox.Reader(ctx, r), opt, ncfg)
		return d, err
	})
	return f, d, err
}

// FitReader reads training documents from r, as Read does, and fits a
// Featurizer on them and vectorizes them at once, as FitFile does for a
// file: the documents are tokenized once, while r is still being read,
// and are not kept.
func FitReader(r io.Reader, opt ReadOptions, cfg Config) (*Featurizer, *sparse.Dataset, error) {
	return FitReaderContext(context.Background(), r, opt, cfg)
}

// FitReaderContext is FitReader that stops soon after ctx is done,
// returning ctx.Err().
func FitReaderContext(ctx context.Context, r io.Reader, opt ReadOptions, cfg Config) (*Featurizer, *sparse.Dataset, error) {
	ncfg, err := cfg.normalize()
	if err != nil {
		return nil, nil, err
	}
	if opt.Documents {
		return nil, nil, fmt.Errorf("%w: ReadOptions.Documents: a featurizer is fitted on labelled documents", ErrConfig)
	}
	return fitReader(colorder.RecorderFrom(ctx), iox.Reader(ctx, r), opt, ncfg)
}

// newStreamFit returns the featurizer a fit while reading fills in, with
// its width set when hashing, and what counts its terms: the buckets'
// document frequencies (hashing with IDF) and the vocabulary's memory.
func newStreamFit(cfg Config) (*Featurizer, *dfCounter, *vocabBudget) {
	f := &Featurizer{cfg: cfg}
	if !cfg.Vocabulary {
		f.dim = 1 << cfg.Bits
		f.mask = uint64(f.dim - 1)
	}
	var dfc *dfCounter
	if cfg.IDF && !cfg.Vocabulary {
		dfc = newDFCounter(f, cfg.workers())
	}
	return f, dfc, &vocabBudget{f: f, counters: cfg.workers()}
}

// fitReader is FitFile on a reader. With rec, a fit that hashes with IDF
// records in it the document frequency of every bucket and the order in
// which the buckets were first used, for a learner to number its columns
// by (see colorder).
func fitReader(rec *colorder.Recorder, r io.Reader, opt ReadOptions, cfg Config) (*Featurizer, *sparse.Dataset, error) {
	f, dfc, acct := newStreamFit(cfg)
	sc := NewScanner(r, opt)
	f.labelField, f.textField = sc.opt.LabelField, sc.opt.TextField
	// The order in which the buckets are first used, for rec.
	var first *firstUse
	if rec != nil && dfc != nil {
		first = &firstUse{seen: make([]uint64, (f.dim+63)/64)}
	}
	pieces, err := f.stream(sc, func(e *Encoder, docs []Doc) piece {
		if cfg.Vocabulary {
			return e.termPiece(docs, acct)
		}
		return e.countPiece(docs, dfc)
	}, first.noter())
	if err != nil {
		return nil, nil, err
	}

	// Labels.
	distinct := make(map[string]struct{})
	for k := range pieces {
		for _, l := range pieces[k].labels {
			distinct[l] = struct{}{}
		}
		f.nDocs += len(pieces[k].labels)
	}
	if f.nDocs == 0 {
		return nil, nil, fmt.Errorf("%w: cannot fit on %s: it holds no documents", ErrEmpty, describeInput(opt.Name))
	}
	if f.nDocs > math.MaxInt32 {
		return nil, nil, fmt.Errorf("%w: %d documents, at most %d can be fitted on", ErrConfig, f.nDocs, math.MaxInt32)
	}
	f.labels = fitLabels(distinct)
	f.classValues(pieces)
	if cfg.Vocabulary {
		if err := f.vocabularyOf(pieces, acct); err != nil {
			return nil, nil, err
		}
		return f, assemble(pieces, f.dim, cfg.workers()), nil
	}
	d := assemble(pieces, f.dim, cfg.workers())

	// Weights, once the idf is known.
	if cfg.IDF {
		if f.df, err = dfc.total(); err != nil {
			return nil, nil, err
		}
		if first != nil && !f.df.sparse {
			*rec = colorder.Recorder{Dim: f.dim, Count: f.df.dense, First: first.list}
			rec.Number()
		}
		if err := f.setIDF(); err != nil {
			return nil, nil, err
		}
		f.weighRows(d.X, rec, cfg.workers())
	}
	return f, d, nil
}

// weighRows weighs the raw counts of x's rows on workers goroutines.
// Where rec has numbered the columns, it also writes the rows' indices in
// that numbering to rec.Ind: the same columns looked up in the same pass.
func (f *Featurizer) weighRows(x *sparse.CSR, rec *colorder.Recorder, workers int) {
	code := rec.Codes()
	var nd []int32
	var tab []uint64
	if code != nil {
		nd = make([]int32, len(x.Ind))
		rec.Ind = nd
		tab = f.numberTable(code)
	}
	parallelRange(x.Rows, workers, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			a, b := x.Indptr[i], x.Indptr[i+1]
			switch {
			case tab != nil:
				f.weighNumbered(x.Ind[a:b], x.Val[a:b], nd[a:b], tab)
			case nd != nil:
				f.weigh(x.Ind[a:b], x.Val[a:b])
				number(nd[a:b], x.Ind[a:b], code)
			default:
				f.weigh(x.Ind[a:b], x.Val[a:b])
			}
		}
	})
}

// number sets nd[k] to the new number of column ind[k] by code (see
// colorder.Plan.Code).
func number(nd, ind, code []int32) {
	nd = nd[:len(ind)]
	for k, j := range ind {
		// The codes of a row's columns lie far apart: they are fetched a
		// block ahead.
		if lo, hi, ok := aheadOf(k, len(ind)); ok {
			prefetchAt(unsafe.Pointer(&code[0]), 2, ind[lo:hi])
		}
		nd[k] = -1 - code[j]
	}
}

// firstUse lists columns in the order rows first use them.
type firstUse struct {
	seen []uint64 // a bit per column
	list []int32
}

// noter returns u.note, or nil for a nil u.
func (u *firstUse) noter() func(pc *piece) {
	if u == nil {
		return nil
	}
	return u.note
}

// note adds the columns the rows of pc use first to the list.
func (u *firstUse) note(pc *piece) {
	seen, list := u.seen, u.list
	for _, j := range pc.ind {
		if w, b := uint32(j)>>6, uint64(1)<<(uint32(j)&63); seen[w]&b == 0 {
			seen[w] |= b
			list = append(list, j)
		}
	}
	u.list = list
}

func describeInput(name string) string {
	if name == "" {
		return "the input"
	}
	return name
}

// countPiece turns a run of documents into a piece holding their label
// names (their classes are not known yet) and, with dfc, their raw counts,
// whose document frequencies it counts, else their weighed values.
func (e *Encoder) countPiece(docs []Doc, dfc *dfCounter) piece {
	pc := e.newPiece(docs)
	pc.labels = make([]string, 0, len(docs))
	if dfc != nil && e.df == nil {
		e.df = dfc.local()
	}
	for i := range docs {
		e.counts(docs[i].Text)
		if dfc != nil {
			if err := e.df.add(e.ind); err != nil {
				pc.err = err
				return pc
			}
		} else {
			e.f.weigh(e.ind, e.val)
		}
		pc.add(e)
		pc.labels = append(pc.labels, docs[i].Label)
	}
	e.noteSize(docs, &pc)
	return pc
}

// VectorizeFile reads the documents of the file at path (see ReadFile) and
// vectorizes them with f: the test or production counterpart of FitFile.
// See VectorizeReader.
func (f *Featurizer) VectorizeFile(path string, opt ReadOptions) (*sparse.Dataset, error) {
	return readopt.ReadFile(path, &opt.Name, func(r io.Reader) (*sparse.Dataset, error) { return f.VectorizeReader(r, opt) })
}

// VectorizeReader reads documents from r, as Read does, and vectorizes
// them with f, as Vectorize does, at once: workers vectorize chunks of
// documents while the input is still being read and decompressed, and no
// document is kept once vectorized. The first problem in the input is
// reported, whether a malformed line (see Scanner) or a label f does not
// know (ErrLabel). With opt.Documents the labels are not read and every
// Y is 0; opt.IsLabel, if nil, is f.IsLabel.
func (f *Featurizer) VectorizeReader(r io.Reader, opt ReadOptions) (*sparse.Dataset, error) {
	if opt.Documents && opt.IsLabel == nil {
		opt.IsLabel = f.IsLabel
	}
	sc := NewScanner(r, opt)
	pieces, err := f.stream(sc, func(e *Encoder, docs []Doc) piece {
		pc := e.vectorize(docs, !opt.Documents)
		if pc.bad >= 0 {
			pc.err = (&Corpus{Name: sc.opt.Name, Docs: docs}).docErr(pc.bad, pc.msg)
		}
		return pc
	}, nil)
	if err != nil {
		return nil, err
	}
	return assemble(pieces, f.dim, f.cfg.workers()), nil
}

// stream reads the documents of sc in chunks and has them turned into
// pieces by work on f's number of goroutines while it reads on. It
// returns the pieces in input order, or the first error in the input: a
// piece's (which stops the reading) or the scanner's, whichever comes
// first in the input.
//
// When note is not nil, stream also hands it each piece in input order.
func (f *Featurizer) stream(sc *Scanner, work func(e *Encoder, docs []Doc) piece, note func(pc *piece)) ([]piece, error) {
	var pieces []piece
	var held int64 // bytes of the pieces
	err := f.streamOrdered(sc, work, func(pc *piece) error {
		if note != nil {
			note(pc)
		}
		pieces = append(pieces, *pc)
		held += pc.bytes()
		// Assembling copies the pieces into one matrix, freeing each once
		// copied: at most twice their size.
		return budget.Check(0, budget.Mul(held, 2), "the rows of "+describeInput(sc.opt.Name))
	})
	if err != nil {
		return nil, err
	}
	return pieces, nil
}

// streamOrdered is stream handing each piece, in input order, to emit as
// soon as it and those before it are done, instead of keeping them: the
// reader runs at most a few chunks ahead of emit. The first error of
// emit stops the reading and is returned, unless an error earlier in the
// input comes first.
func (f *Featurizer) streamOrdered(sc *Scanner, work func(e *Encoder, docs []Doc) piece, emit func(pc *piece) error) error {
	workers := f.cfg.workers()
	jobs := make(chan docChunk, workers)
	results := make(chan chunkPiece, workers)
	var firstBad atomic.Int64 // lowest job whose piece failed
	firstBad.Store(math.MaxInt64)

	go func() {
		defer close(jobs)
		scanChunks(sc, jobs, &firstBad)
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f.workChunks(work, jobs, results, &firstBad)
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()
	// Pieces done out of order wait for those before them.
	waiting := map[int]piece{}
	next := 0
	var pieceErr, emitErr error
	for res := range results {
		waiting[res.seq] = res.pc
		for {
			pc, ok := waiting[next]
			if !ok {
				break
			}
			delete(waiting, next)
			next++
			switch {
			case pieceErr != nil || emitErr != nil:
			case pc.err != nil:
				// Every job before a failed one was worked on and
				// emitted: this is the first error in the input.
				pieceErr = pc.err
				firstBad.Store(-1)
			default:
				if emitErr = emit(&pc); emitErr != nil {
					firstBad.Store(-1) // no more reading or work
				}
			}
		}
	}
	if pieceErr != nil {
		return pieceErr
	}
	// The scanner stopped at its error, after every job it sent.
	if err := sc.Err(); err != nil && emitErr == nil {
		return err
	}
	return emitErr
}

// docChunk is a chunk of documents for streamOrdered's workers, seq-th
// in the input.
type docChunk struct {
	seq  int
	docs []Doc
}

// chunkPiece is the piece a worker made of chunk seq.
type chunkPiece struct {
	seq int
	pc  piece
}

// scanChunks sends the documents of sc on jobs in chunks of about
// chunkBytes (at most chunkMaxDocs documents), until the end or, after a
// chunk, once firstBad says a piece failed.
func scanChunks(sc *Scanner, jobs chan<- docChunk, firstBad *atomic.Int64) {
	var batch []Doc
	size, seq := 0, 0
	for sc.Scan() {
		d := sc.Doc()
		batch = append(batch, d)
		size += len(d.Text) + 16
		if size >= chunkBytes || len(batch) >= chunkMaxDocs {
			jobs <- docChunk{seq, batch}
			batch, size = nil, 0
			seq++
			if firstBad.Load() != math.MaxInt64 {
				return
			}
		}
	}
	if len(batch) > 0 {
		jobs <- docChunk{seq, batch}
	}
}

// workChunks is one of streamOrdered's workers: it makes a piece of each
// chunk from jobs before the first failed one (firstBad, which it lowers
// when a piece fails) and sends it, or an empty one, on results.
func (f *Featurizer) workChunks(work func(e *Encoder, docs []Doc) piece, jobs <-chan docChunk, results chan<- chunkPiece, firstBad *atomic.Int64) {
	e := f.NewEncoder()
	for j := range jobs {
		var pc piece
		if int64(j.seq) < firstBad.Load() {
			pc = work(e, j.docs)
			if pc.err != nil {
				for cur := firstBad.Load(); int64(j.seq) < cur && !firstBad.CompareAndSwap(cur, int64(j.seq)); cur = firstBad.Load() {
				}
			}
		}
		results <- chunkPiece{j.seq, pc}
	}
}
