package text

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
)

// DefaultBits is the default number of hash bits (Config.Bits): 2^20
// buckets.
const DefaultBits = 20

// MaxBits is the largest Config.Bits.
const MaxBits = 30

// TF says how a term's count in a document becomes its value.
type TF uint8

const (
	// Count keeps the raw count: the sum of the ±1 signs of the document's
	// terms that hash to the feature (with a vocabulary, the plain count).
	Count TF = iota
	// Binary keeps only the sign: +1 or −1 for any nonzero count.
	Binary
	// Log dampens the count: sign(tf)·(1 + ln|tf|).
	Log
)

var tfNames = [...]string{"count", "binary", "log"}

// String returns the name ParseTF reads.
func (t TF) String() string { return enumName(t, tfNames[:], "TF") }

// enumName returns the name of v, an enumeration value, in names, or
// typ(v) for a value that has none.
func enumName[T ~uint8](v T, names []string, typ string) string {
	if int(v) < len(names) {
		return names[v]
	}
	return typ + "(" + strconv.Itoa(int(v)) + ")"
}

// ParseTF reads "count", "binary" or "log".
func ParseTF(s string) (TF, error) {
	for i, n := range tfNames {
		if strings.EqualFold(s, n) {
			return TF(i), nil
		}
	}
	return 0, fmt.Errorf("%w: unknown term weighting %q (want count, binary or log)", ErrConfig, s)
}

// Config sets up a Featurizer. Its zero value is the documented default:
// unigrams hashed into 2^20 signed buckets, raw counts, no IDF, rows
// scaled to unit L2 norm, all cores. For sentiment or topic
// classification Config{NGrams: 2, TF: Log, IDF: true} is markedly
// better (see the package documentation).
type Config struct {
	// NGrams is the longest word n-gram to use, from 1 to 8: with 2 a
	// document yields its words and its pairs of adjacent words. 0 means 1.
	NGrams int
	// Bits sets the number of hash buckets, 2^Bits, from 1 to 30 (2^31
	// columns would be one more than package sparse's int32 indices and
	// cache files hold). 0 means DefaultBits. It must be 0 with
	// Vocabulary. More buckets mean fewer collisions between terms, and
	// wider models: a perceptron keeps a weight per bucket and class.
	Bits int
	// Vocabulary replaces hashing by a vocabulary: the distinct terms
	// (n-grams, their words joined by single spaces) of the training
	// documents, filtered by MinDF and MaxFeatures and sorted; a term's
	// feature index is its position. Terms not in the vocabulary are
	// dropped. Terms are identified by their 64-bit hash: two distinct
	// terms whose hashes collide (odds about n²/2^65 for n terms) would
	// count as one.
	Vocabulary bool
	// MinDF keeps only the vocabulary terms found in at least MinDF
	// training documents. 0 means 1. Only with Vocabulary.
	MinDF int
	// MaxFeatures, when > 0, keeps only the MaxFeatures vocabulary terms
	// with the most occurrences in the training documents (ties: the
	// alphabetically first). Only with Vocabulary.
	MaxFeatures int
	// TF is how a term count becomes a value; the zero value is Count.
	TF TF
	// IDF multiplies every value by the term's inverse document frequency
	// in the training documents, idf = ln((1+n)/(1+df)) + 1 for n
	// documents of which df hold the term (scikit-learn's smooth idf), so
	// that rare terms weigh more than common ones. The Featurizer keeps a
	// df and an idf per feature, or, with hashing, per bucket the training
	// documents touch when that takes less memory (at most 8·2^Bits bytes).
	IDF bool
	// NoNormalize keeps the weighted values as they are; otherwise every
	// row is scaled to unit Euclidean (L2) norm, so long and short
	// documents weigh alike.
	NoNormalize bool
	// Workers is the number of goroutines that Fit, FitFile and the
	// Vectorize methods use. 0 means runtime.GOMAXPROCS(0); more than
	// sparse.MaxReadWorkers means sparse.MaxReadWorkers. It is not saved: a loaded
	// Featurizer uses 0.
	Workers int
}

// normalize validates c and fills in the defaults.
func (c Config) normalize() (Config, error) {
	bad := func(format string, a ...any) (Config, error) {
		return c, fmt.Errorf("%w: "+format, append([]any{ErrConfig}, a...)...)
	}
	switch {
	case c.NGrams < 0 || c.NGrams > maxNGrams:
		return bad("NGrams = %d, want 0 to %d", c.NGrams, maxNGrams)
	case c.Bits < 0 || c.Bits > MaxBits:
		return bad("Bits = %d, want 0 to %d", c.Bits, MaxBits)
	case c.Vocabulary && c.Bits != 0:
		return bad("Bits = %d is for hashing; it must be 0 with Vocabulary", c.Bits)
	case !c.Vocabulary && (c.MinDF != 0 || c.MaxFeatures != 0):
		return bad("MinDF and MaxFeatures need Vocabulary")
	case c.MinDF < 0:
		return bad("MinDF = %d is negative", c.MinDF)
	case c.MaxFeatures < 0:
		return bad("MaxFeatures = %d is negative", c.MaxFeatures)
	case c.TF >= TF(len(tfNames)):
		return bad("unknown TF %d", c.TF)
	case c.Workers < 0:
		return bad("Workers = %d is negative", c.Workers)
	}
	if c.NGrams == 0 {
		c.NGrams = 1
	}
	if c.Vocabulary {
		c.MinDF = max(c.MinDF, 1)
	} else if c.Bits == 0 {
		c.Bits = DefaultBits
	}
	return c, nil
}

func (c *Config) workers() int {
	if c.Workers > 0 {
		return min(c.Workers, sparse.MaxReadWorkers)
	}
	return runtime.GOMAXPROCS(0)
}

// Featurizer turns documents into sparse feature vectors and labels into
// class values, as fitted on training documents by Fit (or loaded with
// Load). It is read-only once made: every method may run concurrently.
type Featurizer struct {
	cfg   Config
	dim   int
	mask  uint64   // hashing: 2^Bits − 1
	vocab []string // vocabulary mode: the terms, sorted; see terms
	// vocabFC holds a vocabulary read from the binary form, front-coded,
	// until terms makes vocab of it (nil otherwise).
	vocabFC   *frontCoded
	vocabOnce sync.Once
	index     vocabIndex // vocabulary mode: term hash → feature
	nDocs     int        // training documents
	df        dfTable    // IDF: document frequency of each feature
	idf       idfTable   // IDF: the weight of each feature
	labels    labelSet
	pool      sync.Pool // of *Encoder, for Transform
	// labelField and textField are the JSONL fields the training text
	// was read from (see ReadOptions).
	labelField, textField string
}

// fields returns the JSONL fields label and text, "" standing for the
// defaults, or an error if they are the same.
func fields(label, text string) (string, string, error) {
	if label == "" {
		label = "label"
	}
	if text == "" {
		text = "text"
	}
	if label == text {
		return "", "", fmt.Errorf("label and text fields are both %q", label)
	}
	return label, text, nil
}

// ReadOptions returns the options to read text for f with: the JSONL
// label and text fields its training text was read from (a Corpus's
// LabelField and TextField, or FitFile's options), other fields zero.
// Test or new text is read alike by default (set the fields to read it
// otherwise).
func (f *Featurizer) ReadOptions() ReadOptions {
	return ReadOptions{LabelField: f.labelField, TextField: f.textField}
}

// IsLabel reports whether s is a label of f's: one of the training
// labels, or with numeric labels any number in canonical form (see Label). It is
// what ReadOptions.IsLabel asks for.
func (f *Featurizer) IsLabel(s string) bool {
	_, msg := f.labels.value(s)
	return msg == "" && s != ""
}

// Config returns the configuration f was fitted with, defaults filled in.
func (f *Featurizer) Config() Config { return f.cfg }

// Dim returns the number of features: 2^Bits with hashing, the vocabulary
// size with a vocabulary. It is the Cols of the matrices Vectorize makes.
func (f *Featurizer) Dim() int { return f.dim }

// Vocabulary returns a copy of the vocabulary (nil with hashing): term i
// is feature i.
func (f *Featurizer) Vocabulary() []string { return slices.Clone(f.terms()) }

// terms returns the vocabulary, making its strings on the first call for
// one read from the binary form: most users of a read featurizer only
// transform text and need none of them.
func (f *Featurizer) terms() []string {
	if f.vocabFC != nil {
		f.vocabOnce.Do(func() { f.vocab = f.vocabFC.strings() })
	}
	return f.vocab
}

// Term returns the vocabulary term of feature j, and false with hashing
// or for j outside [0, Dim). Unlike Vocabulary it copies nothing (a
// featurizer read from the binary form makes the strings of all its terms
// once, on the first call of either).
func (f *Featurizer) Term(j int) (string, bool) {
	v := f.terms()
	if j < 0 || j >= len(v) {
		return "", false
	}
	return v[j], true
}

// Labels returns the label names in class order. With names as labels
// these are the sorted distinct training labels, whose classes are −1 and
// +1 for two labels and 0, 1, …, K−1 for more; with numeric labels they
// are the distinct training values, formatted.
func (f *Featurizer) Labels() []string { return slices.Clone(f.labels.names) }

// Label returns the class value of a label name. An empty label, an
// unknown name, or a non-number where the training labels were numbers is
// an error wrapping ErrLabel. With numeric labels any finite number
// written as the training labels are (as strconv.FormatFloat(v, 'g', -1,
// 64) writes it: "1", not "1.0" or "01") is accepted; labels are strings,
// and one written otherwise would name a class the model does not know.
func (f *Featurizer) Label(name string) (float64, error) {
	v, msg := f.labels.value(name)
	if msg != "" {
		return 0, fmt.Errorf("%w: %s", ErrLabel, msg)
	}
	return v, nil
}

// Name returns the label name of a class value, such as a prediction of a
// model trained on Vectorize's output: the training label it stands for,
// or the number formatted if it stands for none (numeric labels).
func (f *Featurizer) Name(class float64) string { return f.labels.name(class) }

// Fit fits a Featurizer on the training documents c: the label mapping,
// and, as cfg asks, the vocabulary and the document frequencies. It
// tokenizes the documents in parallel. An invalid cfg is an error wrapping
// ErrConfig; a corpus without documents one wrapping ErrEmpty; an empty
// label one wrapping ErrLabel; document frequencies or a vocabulary that
// would take more memory than the budget (budget.Default) one wrapping
// budget.ErrExceeded.
func Fit(c *Corpus, cfg Config) (*Featurizer, error) {
	return FitContext(context.Background(), c, cfg)
}

// FitContext is Fit that stops soon after ctx is done, returning
// ctx.Err().
func FitContext(ctx context.Context, c *Corpus, cfg Config) (*Featurizer, error) {
	cfg, err := cfg.normalize()
	if err != nil {
		return nil, err
	}
	f, err := newFeaturizer(c, cfg)
	if err != nil {
		return nil, err
	}
	switch {
	case cfg.Vocabulary:
		err = f.fitVocabulary(ctx, c.Docs)
	case cfg.IDF:
		err = f.fitHashedDF(ctx, c.Docs)
	}
	if err == nil {
		err = f.setIDF()
	}
	if err != nil {
		return nil, err
	}
	return f, nil
}

// newFeaturizer checks the training corpus and returns a Featurizer with
// its labels fitted and, with hashing, its dimension set.
func newFeaturizer(c *Corpus, cfg Config) (*Featurizer, error) {
	if c == nil || len(c.Docs) == 0 {
		return nil, fmt.Errorf("%w: cannot fit on an empty corpus", ErrEmpty)
	}
	if len(c.Docs) > math.MaxInt32 {
		return nil, fmt.Errorf("%w: %d documents, at most %d can be fitted on", ErrConfig, len(c.Docs), math.MaxInt32)
	}
	distinct := make(map[string]struct{})
	for i := range c.Docs {
		d := &c.Docs[i]
		if d.Label == "" {
			return nil, c.docErr(i, "empty label")
		}
		if _, ok := distinct[d.Label]; !ok {
			if k, r := controlChar([]byte(d.Label)); k >= 0 {
				return nil, c.docErr(i, fmt.Sprintf("label %q holds a control character (%U): a label is one field of one output line", d.Label, r))
			}
		}
		distinct[d.Label] = struct{}{}
	}
	lf, tf, err := fields(c.LabelField, c.TextField)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	f := &Featurizer{cfg: cfg, nDocs: len(c.Docs), labels: fitLabels(distinct), labelField: lf, textField: tf}
	if !cfg.Vocabulary {
		f.dim = 1 << cfg.Bits
		f.mask = uint64(f.dim - 1)
	}
	return f, nil
}

// fitVocabulary builds the vocabulary of the training documents: every
// worker counts the terms of the chunks it takes, then the counts are
// merged, filtered and sorted. The counts are checked against the memory
// budget as they grow.
func (f *Featurizer) fitVocabulary(ctx context.Context, docs []Doc) error {
	chunks := chunkDocs(docs)
	var mu sync.Mutex
	var counters []*termCounter
	acct := &vocabBudget{f: f}
	err := runChunksErr(ctx, f, chunks, func(e *Encoder, k int) error {
		if e.tc == nil {
			e.tc = &termCounter{acct: acct, countCF: f.cfg.MaxFeatures > 0}
			mu.Lock()
			counters = append(counters, e.tc)
			mu.Unlock()
		}
		for i := chunks[k].lo; i < chunks[k].hi; i++ {
			if err := e.countTerms(docs[i].Text, int32(i), e.tc); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return f.chooseVocabulary(counters, acct)
}

// chooseVocabulary merges the term counters and keeps the terms in at
// least MinDF documents, the MaxFeatures most frequent of those if set,
// sorted by their text: f's vocabulary, its index and, with IDF, its
// document frequencies. The counters are left as they were.
func (f *Featurizer) chooseVocabulary(counters []*termCounter, acct *vocabBudget) error {
	total := 0
	for _, tc := range counters {
		total += len(tc.stats)
	}
	// The lists by hash, then for each term kept its candidate, its
	// reference and text, its index slots and frequency.
	perKept := int64(unsafe.Sizeof(candidate{})+unsafe.Sizeof(termRef{})) + 16 + 2*int64(unsafe.Sizeof(hashSlot{})) + 4
	need := budget.Add(acct.used.Load(), budget.Mul(int64(total), int64(unsafe.Sizeof(hashRef{}))+perKept))
	if err := budget.Check(0, need, fmt.Sprintf("a vocabulary of up to %d terms", total)); err != nil {
		return f.overBudget(err)
	}
	// Where counters hold one hash under two texts, the text of the
	// largest counter (the first of those of its size) is the term's.
	counters = slices.Clone(counters)
	slices.SortStableFunc(counters, func(a, b *termCounter) int { return cmp.Compare(len(b.stats), len(a.stats)) })
	workers := f.cfg.workers()
	cs := mergeCandidates(counters, max(f.cfg.MinDF, 1), workers)
	refs := termRefs(counters, cs, workers)
	if f.cfg.MaxFeatures > 0 && len(refs) > f.cfg.MaxFeatures {
		slices.SortFunc(refs, func(a, b termRef) int {
			return cmp.Or(cmp.Compare(cs[b.i].cf, cs[a.i].cf), compareTerms(a, b))
		})
		refs = refs[:f.cfg.MaxFeatures]
	}
	refs = sortTerms(refs, workers)
	f.dim = len(refs)
	f.vocab = make([]string, len(refs))
	hs := make([]uint64, len(refs))
	if f.cfg.IDF {
		f.df = dfTable{dense: make([]int32, len(refs))}
	}
	for k, r := range refs {
		c := &cs[r.i]
		f.vocab[k] = r.term
		hs[k] = c.h
		if f.cfg.IDF {
			f.df.dense[k] = c.df
		}
	}
	f.index, _ = buildVocabIndex(hs) // the terms are distinct, and so are their hashes
	return nil
}

// vocabBudget counts the memory of the term counters of one fit against
// the budget.
type vocabBudget struct {
	f    *Featurizer
	used atomic.Int64
	// soft, when above 0, is what the counters may take before each
	// drops its rarest terms (see termCounter.prune) down to its share of
	// half of it, shared among its counters; the budget itself is then
	// not met.
	soft     int64
	counters int
}

// pruneIfFull drops tc's rarest terms if the counters have reached the
// soft limit: those in the fewest documents, a document more at a time,
// until tc takes its share of half the limit.
func (b *vocabBudget) pruneIfFull(tc *termCounter) {
	if b.soft <= 0 || b.used.Load() <= b.soft {
		return
	}
	target := b.soft / int64(2*max(1, b.counters))
	var freed int64
	for tc.bytes > target && len(tc.stats) > 0 {
		freed += tc.prune(tc.floor + 1)
	}
	b.used.Add(-freed)
}

// vocabCheckBytes is how much a term counter grows between checks.
const vocabCheckBytes = 1 << 20

// step is how much a term counter grows between checks against b:
// vocabCheckBytes, or less under a small soft limit.
func (b *vocabBudget) step() int64 {
	if b.soft > 0 {
		return min(vocabCheckBytes, max(b.soft/16, 1))
	}
	return vocabCheckBytes
}

// add counts n more bytes, or returns the error that refuses them.
func (b *vocabBudget) add(n int64) error {
	total := b.used.Add(n)
	if err := budget.Check(0, total, "the terms of the training documents"); err != nil {
		return b.f.overBudget(err)
	}
	return nil
}
