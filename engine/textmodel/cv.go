package textmodel

import (
	"context"
	"fmt"
	"slices"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/engine/internal/folds"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

// CrossValidate runs k-fold cross-validation of the whole pipeline on
// docs and their labels: for each stratified fold (engine.Folds, seeded
// with cfg.Learner.Seed) it fits a featurizer with cfg.Text and a
// classifier with cfg.Learner on the other folds' documents only, and
// classifies the fold's documents with them. The held-out text is
// therefore unseen by the vocabulary and the IDF as well as by the
// classifier, as when a text pipeline is refitted for each fold; a term
// found only in the held-out fold has no feature there. No calibration is
// fitted: it does not change the labels. Folds run concurrently as those
// of engine.CrossValidate do (cfg.Learner.OnEpoch, when set, is called
// from them at once); a fold's Correct counts the documents whose label
// Classify gives.
func CrossValidate(ctx context.Context, docs, labels []string, cfg Config, k int) ([]engine.FoldResult, error) {
	if len(docs) != len(labels) {
		return nil, fmt.Errorf("%w: %d documents and %d labels", engine.ErrLabels, len(docs), len(labels))
	}
	if len(docs) == 0 {
		return nil, engine.ErrNoData
	}
	// Stratify on the labels' ranks among the distinct labels.
	names := slices.Clone(labels)
	slices.Sort(names)
	names = slices.Compact(names)
	y := make([]float64, len(labels))
	for i, l := range labels {
		j, _ := slices.BinarySearch(names, l)
		y[i] = float64(j)
	}
	fold, err := engine.Folds(y, k, cfg.Learner.Seed)
	if err != nil {
		return nil, err
	}
	if cfg.Kernel != nil {
		kc := *cfg.Kernel
		kc.OnEpoch, kc.OnKernelEpoch = nil, nil
		cfg.Kernel = &kc
	}
	cfg.NoCalibration = true
	return folds.Run(k, cfg.Learner.Workers, func(f int) (engine.FoldResult, error) {
		rows, out := folds.Split(fold, f)
		in := make([]text.Doc, len(rows))
		for j, i := range rows {
			in[j] = text.Doc{Label: labels[i], Text: docs[i]}
		}
		m, stats, err := fitFold(ctx, &text.Corpus{Docs: in}, cfg)
		if err != nil {
			return engine.FoldResult{}, err
		}
		r := engine.FoldResult{Rows: len(out), Epochs: len(stats)}
		held := make([]string, len(out))
		for j, i := range out {
			held[j] = docs[i]
		}
		for j, l := range m.ClassifyBatch(held, nil) {
			if l == labels[out[j]] {
				r.Correct++
			}
		}
		return r, nil
	})
}

// fitFold fits a fold's pipeline; tests watch it.
var fitFold = fitCorpus
