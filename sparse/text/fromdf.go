package text

import (
	"fmt"
	"math"
)

// FromDocumentFrequencies returns the hashing featurizer (cfg.Vocabulary
// false) that FitFile fits on documents read with opt, from what was
// counted of them elsewhere: nDocs documents, their distinct label names
// labels (in any order), and with cfg.IDF the document frequency df[k] of
// every hash bucket ind[k] that some document holds (ind strictly
// increasing, df > 0; other buckets have none). Counts made on parts of
// the documents and summed give the featurizer of one fit on all of them,
// so that a fit can be spread over machines. Without cfg.IDF, ind and df
// must be empty.
func FromDocumentFrequencies(cfg Config, opt ReadOptions, nDocs int, labels []string, ind, df []int32) (*Featurizer, error) {
	f, err := countedFit(cfg, opt, false, nDocs, labels)
	if err != nil {
		return nil, err
	}
	ncfg := f.cfg
	if len(ind) != len(df) || (!ncfg.IDF && len(ind) > 0) {
		return nil, fmt.Errorf("%w: %d buckets with %d document frequencies (IDF %v)", ErrConfig, len(ind), len(df), ncfg.IDF)
	}
	if !ncfg.IDF {
		return f, nil
	}
	for k := range ind {
		if ind[k] < 0 || int(ind[k]) >= f.dim || (k > 0 && ind[k] <= ind[k-1]) || df[k] <= 0 || int(df[k]) > nDocs {
			return nil, fmt.Errorf("%w: bucket %d with document frequency %d at %d: want increasing buckets below %d, frequencies 1 to %d", ErrConfig, ind[k], df[k], k, f.dim, nDocs)
		}
	}
	f.df = dfTable{sparse: true, ind: ind, cnt: df}
	if err := f.setIDF(); err != nil {
		return nil, err
	}
	return f, nil
}

// countedFit returns the featurizer of cfg and opt for a fit from counts
// (with a vocabulary if vocabulary, else hashing), with its nDocs
// documents and their labels set.
func countedFit(cfg Config, opt ReadOptions, vocabulary bool, nDocs int, labels []string) (*Featurizer, error) {
	ncfg, err := cfg.normalize()
	if err != nil {
		return nil, err
	}
	o, err := opt.normalize()
	if err != nil {
		return nil, err
	}
	switch {
	case ncfg.Vocabulary && !vocabulary:
		return nil, fmt.Errorf("%w: FromDocumentFrequencies makes hashing featurizers; FromTermFrequencies vocabularies", ErrConfig)
	case !ncfg.Vocabulary && vocabulary:
		return nil, fmt.Errorf("%w: FromTermFrequencies makes vocabularies; FromDocumentFrequencies hashing featurizers", ErrConfig)
	case nDocs <= 0 || len(labels) == 0:
		return nil, fmt.Errorf("%w: cannot fit on %d documents with %d labels", ErrEmpty, nDocs, len(labels))
	case nDocs > math.MaxInt32:
		return nil, fmt.Errorf("%w: %d documents, at most %d can be fitted on", ErrConfig, nDocs, math.MaxInt32)
	}
	f, _, _ := newStreamFit(ncfg)
	f.nDocs = nDocs
	f.labelField, f.textField = o.LabelField, o.TextField
	distinct := make(map[string]struct{}, len(labels))
	for _, l := range labels {
		distinct[l] = struct{}{}
	}
	f.labels = fitLabels(distinct)
	return f, nil
}
