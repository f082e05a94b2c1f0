package text

import (
	"fmt"
	"strconv"
)

// WithLabels returns a copy of f whose labels are the names given, its
// features unchanged: for documents with several labels each
// (ReadOptions.MultiLabel), whose label names a featurizer fitted on one
// label a document cannot all list. The names map to classes as Fit maps
// training labels (see Labels): sorted, or as numbers when they all are
// numbers; repeats count once. An empty name, one with a control
// character, or no name at all is an error wrapping ErrLabel.
func (f *Featurizer) WithLabels(names []string) (*Featurizer, error) {
	if len(names) == 0 {
		return nil, fmt.Errorf("%w: no label names", ErrLabel)
	}
	distinct := make(map[string]struct{}, len(names))
	for _, s := range names {
		if s == "" {
			return nil, fmt.Errorf("%w: empty label", ErrLabel)
		}
		if k, r := controlChar([]byte(s)); k >= 0 {
			return nil, fmt.Errorf("%w: label %s holds a control character (%U)", ErrLabel, strconv.Quote(s), r)
		}
		distinct[s] = struct{}{}
	}
	g := new(Featurizer)
	g.set(f)
	g.labels = fitLabels(distinct)
	return g, nil
}
