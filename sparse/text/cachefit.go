package text

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"slices"

	"github.com/hyperplane-ml/hyperplane/sparse"
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
}

// FitCache reads labelled documents from r, as Read does, fits a
// Featurizer on them and writes their rows to w as a cache file
// (sparse/hpc), the rows FitReader would return, in input order, without
// holding the corpus or its rows in memory: so that a corpus larger
// than memory can be trained on (engine.FitCache). The documents are
// tokenized once, while r is read, and their raw counts written to a
// temporary file; once the vocabulary (or with hashing the document
// frequencies) is known, that file is read back, its rows weighed and
// written to w. Memory holds the term counts of a vocabulary (bounded by
// the memory budget like Fit's) or the document frequencies of the
// buckets, and a few chunks of documents. Errors are those of FitReader,
// or of writing.
func FitCache(ctx context.Context, r io.Reader, opt ReadOptions, cfg Config, w io.Writer, co CacheOptions) (CacheResult, error) {
	cfg, err := cfg.normalize()
	if err != nil {
		return CacheResult{}, err
	}
	if opt.Documents {
		return CacheResult{}, fmt.Errorf("%w: ReadOptions.Documents: a featurizer is fitted on labelled documents", ErrConfig)
	}
	tmp, err := os.CreateTemp(co.TempDir, ".hyperplane-counts-*.hpc")
	if err != nil {
		return CacheResult{}, err
	}
	defer func() {
		tmp.Close()
		os.Remove(tmp.Name())
	}()
	f := &Featurizer{cfg: cfg}
	if !cfg.Vocabulary {
		f.dim = 1 << cfg.Bits
		f.mask = uint64(f.dim - 1)
	}
	var dfc *dfCounter
	if cfg.IDF && !cfg.Vocabulary {
		dfc = newDFCounter(f, cfg.workers())
	}
	acct := &vocabBudget{f: f}
	sc := NewScanner(ctxReader{ctx, r}, opt)
	f.labelField, f.textField = sc.opt.LabelField, sc.opt.TextField

	// The first pass: raw counts to the temporary file, each row's label
	// as its number among the labels seen so far and, with a vocabulary,
	// the number of the counter its term numbers belong to as its query
	// id. Held documents stay in memory, as pieces.
	bw := bufio.NewWriterSize(tmp, 1<<20)
	raw := hpc.NewWriter(bw, hpc.WriterOptions{})
	labelNum := map[string]int{}
	var labelNames []string
	counterNum := map[*termCounter]int{}
	var counters []*termCounter
	var held []piece
	var heldCounter []int
	doc := int64(0)
	err = f.streamOrdered(sc, func(e *Encoder, docs []Doc) piece {
		if cfg.Vocabulary {
			return e.termPiece(docs, acct)
		}
		return e.countPiece(docs, dfc)
	}, func(pc *piece) error {
		qid := 0
		if pc.tc != nil {
			n, ok := counterNum[pc.tc]
			if !ok {
				n = len(counters)
				counterNum[pc.tc] = n
				counters = append(counters, pc.tc)
			}
			qid = n
		}
		for i, l := range pc.labels {
			k, ok := labelNum[l]
			if !ok {
				k = len(labelNames)
				labelNum[l] = k
				labelNames = append(labelNames, l)
			}
			a, b := pc.indptr[i], pc.indptr[i+1]
			if co.Hold != nil && co.Hold(doc) {
				// A copy: a slice of the piece would keep all of it.
				held = append(held, piece{indptr: []int64{0, b - a}, ind: slices.Clone(pc.ind[a:b]), val: slices.Clone(pc.val[a:b]), y: []float64{float64(k)}})
				heldCounter = append(heldCounter, qid)
			} else if err := raw.AddWithQID(float64(k), int64(qid), pc.ind[a:b], pc.val[a:b]); err != nil {
				return err
			}
			doc++
		}
		return nil
	})
	if err == nil {
		err = raw.Close()
	}
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return CacheResult{}, err
	}
	f.nDocs = int(doc)
	if f.nDocs == 0 {
		return CacheResult{}, fmt.Errorf("%w: cannot fit on %s: it holds no documents", ErrEmpty, describeInput(opt.Name))
	}
	if doc > math.MaxInt32 {
		return CacheResult{}, fmt.Errorf("%w: %d documents, at most %d can be fitted on", ErrConfig, doc, math.MaxInt32)
	}
	distinct := make(map[string]struct{}, len(labelNames))
	for _, l := range labelNames {
		distinct[l] = struct{}{}
	}
	f.labels = fitLabels(distinct)
	classOf := make([]float64, len(labelNames))
	for k, l := range labelNames {
		classOf[k], _ = f.labels.value(l)
	}

	// The vocabulary or the document frequencies, and the weights.
	var maps [][]int32 // by counter: term number → feature, or −1
	if cfg.Vocabulary {
		hashes := make([][]uint64, len(counters))
		for n, tc := range counters {
			hs := make([]uint64, len(tc.stats))
			for i := range tc.stats {
				hs[i] = tc.stats[i].h
			}
			hashes[n] = hs
		}
		if err := f.chooseVocabulary(counters, acct); err != nil {
			return CacheResult{}, err
		}
		for _, tc := range counters {
			*tc = termCounter{}
		}
		maps = make([][]int32, len(counters))
		for n, hs := range hashes {
			maps[n] = f.featureMap(hs)
			hashes[n] = nil
		}
	} else if cfg.IDF {
		if f.df, err = dfc.total(); err != nil {
			return CacheResult{}, err
		}
	}
	if err := f.setIDF(); err != nil {
		return CacheResult{}, err
	}

	// The second pass: the raw rows back, weighed, to w.
	var sc2 featureScratch
	weighRow := func(qid int, ind []int32, val []float32) ([]int32, []float32) {
		pc := piece{indptr: []int64{0, int64(len(ind))}, ind: append(sc2.rowInd[:0], ind...), val: append(sc2.rowVal[:0], val...)}
		switch {
		case cfg.Vocabulary:
			f.toFeatures(&pc, maps[qid], &sc2)
		case cfg.IDF:
			f.weigh(pc.ind, pc.val)
		}
		// (Hashed without IDF, countPiece weighed the rows already.)
		sc2.rowInd, sc2.rowVal = pc.ind, pc.val
		return pc.ind, pc.val
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return CacheResult{}, err
	}
	in := hpc.NewScanner(bufio.NewReaderSize(tmp, 1<<20), sparse.ReadOptions{Name: tmp.Name()})
	defer in.Close()
	out := hpc.NewWriter(w, hpc.WriterOptions{Dim: f.dim})
	for in.Scan() {
		if err := ctx.Err(); err != nil {
			return CacheResult{}, err
		}
		k, x := in.Row()
		qid, _ := in.QID()
		ind, val := weighRow(int(qid), x.Ind, x.Val)
		if err := out.Add(classOf[int(k)], ind, val); err != nil {
			return CacheResult{}, err
		}
	}
	if err := in.Err(); err != nil {
		return CacheResult{}, fmt.Errorf("reading back the counts of the first pass: %w", err)
	}
	if err := out.Close(); err != nil {
		return CacheResult{}, err
	}
	res := CacheResult{Featurizer: f, Rows: out.Rows()}
	if len(held) > 0 {
		b := sparse.NewBuilder(f.dim)
		var y []float64
		for i := range held {
			pc := &held[i]
			ind, val := weighRow(heldCounter[i], pc.ind, pc.val)
			if err := b.Add(ind, val); err != nil {
				return CacheResult{}, err
			}
			y = append(y, classOf[int(pc.y[0])])
		}
		res.Held = &sparse.Dataset{X: b.Build(), Y: y}
	}
	return res, nil
}
