package text

import (
	"context"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

// FitVectorize fits a Featurizer on the training documents c, as Fit
// does, and vectorizes them with it, as Vectorize does, at once: with a
// vocabulary each document is tokenized once, its counts kept by term
// until the vocabulary is chosen and then mapped to features (as
// FitReader does while reading), instead of once to count the terms and
// again to vectorize. The result is Fit's and Vectorize's, bit for bit,
// and so are the errors.
func FitVectorize(ctx context.Context, c *Corpus, cfg Config) (*Featurizer, *sparse.Dataset, error) {
	ncfg, err := cfg.normalize()
	if err != nil {
		return nil, nil, err
	}
	if !ncfg.Vocabulary {
		// Hashing fits document frequencies at most: no term is kept
		// between the two passes.
		f, err := FitContext(ctx, c, cfg)
		if err != nil {
			return nil, nil, err
		}
		d, err := f.VectorizeContext(ctx, c)
		if err != nil {
			return nil, nil, err
		}
		return f, d, nil
	}
	f, err := newFeaturizer(c, ncfg)
	if err != nil {
		return nil, nil, err
	}
	docs := c.Docs
	chunks := chunkDocs(docs)
	pieces := make([]piece, len(chunks))
	acct := &vocabBudget{f: f, counters: ncfg.workers()}
	err = runChunksErr(ctx, f, chunks, func(e *Encoder, k int) error {
		pieces[k] = e.termPiece(docs[chunks[k].lo:chunks[k].hi], acct)
		return pieces[k].err
	})
	if err != nil {
		return nil, nil, err
	}
	f.classValues(pieces)
	if err := f.vocabularyOf(pieces, acct); err != nil {
		return nil, nil, err
	}
	return f, assemble(pieces, f.dim, ncfg.workers()), nil
}

// classValues sets the class values of the pieces' documents from their
// label names, which it drops; f's labels were fitted on those names.
func (f *Featurizer) classValues(pieces []piece) {
	for k := range pieces {
		pc := &pieces[k]
		pc.y = make([]float64, len(pc.labels))
		for i, l := range pc.labels {
			pc.y[i], _ = f.labels.value(l)
		}
		pc.labels = nil
	}
}
