package text

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/hyperplane-ml/hyperplane/sparse/budget"
)

// Fitting a vocabulary from counts made apart: TermCounter counts the
// terms of some of the documents as a vocabulary fit counts them, the
// counts of all the parts are summed term by term (by text) wherever they
// were made, and FromTermFrequencies chooses the vocabulary of the sums
// with the code FitFile chooses it with.

// TermCounter counts the terms of documents as a vocabulary fit does: in
// how many documents each distinct term is and, when the configuration
// ranks terms by it (MaxFeatures), how often it occurs. Summed over parts
// of a corpus, its counts are what FromTermFrequencies needs to make the
// featurizer of the whole corpus. A TermCounter belongs to one goroutine.
type TermCounter struct {
	e *Encoder
}

// NewTermCounter returns a TermCounter for the vocabulary configuration
// cfg (Vocabulary true; Workers does not matter). An invalid cfg, or one
// that hashes, is an error wrapping ErrConfig.
func NewTermCounter(cfg Config) (*TermCounter, error) {
	ncfg, err := cfg.normalize()
	if err != nil {
		return nil, err
	}
	if !ncfg.Vocabulary {
		return nil, fmt.Errorf("%w: a TermCounter counts the terms of a vocabulary (Config.Vocabulary)", ErrConfig)
	}
	f, _, acct := newStreamFit(ncfg)
	e := f.NewEncoder()
	e.tc = &termCounter{acct: acct, countCF: ncfg.MaxFeatures > 0}
	return &TermCounter{e: e}, nil
}

// Add counts the terms of one more document, its text s. The counts are
// checked against the memory budget (budget.Default) as they grow, as
// FitFile checks them: an error wraps budget.ErrExceeded, and the counter
// is then of no further use. More than math.MaxInt32 documents are an
// error wrapping ErrConfig.
func (c *TermCounter) Add(s string) error {
	if c.e.tc.docs == math.MaxInt32 {
		return fmt.Errorf("%w: more than %d documents", ErrConfig, math.MaxInt32)
	}
	return c.e.countRow(s)
}

// Docs returns the number of documents counted.
func (c *TermCounter) Docs() int { return int(c.e.tc.docs) }

// Counts returns every distinct term counted so far, as Vocabulary spells
// terms, sorted (as strings), each with the number of documents holding
// it and, when the configuration has MaxFeatures, its occurrences in all
// of them (cf is nil otherwise).
func (c *TermCounter) Counts() (terms []string, df []int32, cf []int64) {
	tc := c.e.tc
	order := make([]int32, len(tc.stats))
	terms = make([]string, len(tc.stats))
	for i := range order {
		order[i] = int32(i)
		terms[i] = tc.term(int32(i))
	}
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(terms[a], terms[b]) })
	sorted := make([]string, len(order))
	df = make([]int32, len(order))
	if tc.countCF {
		cf = make([]int64, len(order))
	}
	for k, i := range order {
		sorted[k], df[k] = terms[i], tc.hot[i].df
		if cf != nil {
			cf[k] = tc.stats[i].cf
		}
	}
	return sorted, df, cf
}

// FromTermFrequencies returns the vocabulary featurizer (cfg.Vocabulary
// true) that FitFile fits on documents read with opt, from what was
// counted of them elsewhere (as TermCounter counts): nDocs documents,
// their distinct label names labels (in any order), and every distinct
// term of theirs terms[k] (as Vocabulary spells terms; in any order, each
// once), held by df[k] of the documents (1 to nDocs) and, with
// cfg.MaxFeatures, occurring cf[k] times in all (at least df[k]; cf may
// be nil without MaxFeatures, and is ignored then). Terms in fewer than
// cfg.MinDF documents may be left out. Counts made on parts of the
// documents and summed term by term give the featurizer of one FitFile on
// all of them, bit for bit: the vocabulary is chosen by the same code,
// so that a fit can be spread over machines.
//
// Terms are told apart by their 64-bit hash, as a fit tells them: two
// terms whose hashes collide (odds about n²/2^65 for n terms) count as
// one, whose text is the one that sorts first and whose counts are
// summed (document frequencies at most nDocs). One fit keeps the text of
// one of them too, but which one depends on how its workers split the
// documents, and it counts a document holding both once.
//
// Invalid counts are an error wrapping ErrConfig; no documents or no
// labels one wrapping ErrEmpty; terms that take more memory than the
// budget (budget.Default) one wrapping budget.ErrExceeded. Unlike a fit
// that streams its documents into a cache (FitCache), which drops the
// rarest terms when their counts reach its memory limit, nothing is
// dropped here: the counts are exact or refused.
func FromTermFrequencies(cfg Config, opt ReadOptions, nDocs int, labels, terms []string, df []int32, cf []int64) (*Featurizer, error) {
	f, err := countedFit(cfg, opt, true, nDocs, labels)
	if err != nil {
		return nil, err
	}
	ncfg := f.cfg
	if len(df) != len(terms) || (ncfg.MaxFeatures > 0 && len(cf) != len(terms)) {
		return nil, fmt.Errorf("%w: %d terms with %d document frequencies and %d occurrence counts (MaxFeatures %d)", ErrConfig, len(terms), len(df), len(cf), ncfg.MaxFeatures)
	}
	acct := &vocabBudget{f: f}
	tc, err := countedTerms(ncfg, acct, int32(nDocs), terms, df, cf)
	if err != nil {
		return nil, err
	}
	if err := f.chooseVocabulary([]*termCounter{tc}, acct); err != nil {
		return nil, err
	}
	if err := f.setIDF(); err != nil {
		return nil, err
	}
	return f, nil
}

// countedTerms returns a term counter holding the terms and their counts
// (see FromTermFrequencies), its memory counted in acct: the one counter
// of a fit on all the documents.
func countedTerms(cfg Config, acct *vocabBudget, nDocs int32, terms []string, df []int32, cf []int64) (*termCounter, error) {
	var need int64
	for _, t := range terms {
		need = budget.Add(need, termBytes(len(t)))
	}
	if err := acct.add(need); err != nil {
		return nil, err
	}
	tc := &termCounter{countCF: cfg.MaxFeatures > 0}
	var tok tokenizer
	var parts []uint64
	for k, t := range terms {
		var h uint64
		var bad string
		h, parts, bad = termHash(&tok, parts, t, cfg.NGrams)
		var c int64
		if tc.countCF {
			c = cf[k]
		}
		switch {
		case bad != "":
			return nil, fmt.Errorf("%w: term %d %q %s", ErrConfig, k, t, bad)
		case df[k] < 1 || df[k] > nDocs || tc.countCF && c < int64(df[k]):
			return nil, fmt.Errorf("%w: term %d %q in %d documents, %d times: want 1 to %d documents, at least once in each", ErrConfig, k, t, df[k], c, nDocs)
		}
		idx, ok := tc.at.get(h)
		if !ok {
			tc.text = append(tc.text, t...)
			idx = tc.added(h, len(tc.text)-len(t))
		} else if old := tc.term(idx); old == t {
			return nil, fmt.Errorf("%w: term %d %q listed twice", ErrConfig, k, t)
		} else if t < old {
			// A collision: the text that sorts first is the term's.
			tc.text = append(tc.text, t...)
			tc.stats[idx].off, tc.stats[idx].n = int64(len(tc.text)-len(t)), int32(len(t))
		}
		tc.hot[idx].df = min(tc.hot[idx].df+df[k], nDocs)
		tc.stats[idx].cf += c
	}
	return tc, nil
}
