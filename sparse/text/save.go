package text

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/cespare/xxhash/v2"
	"github.com/hyperplane-ml/hyperplane/internal/iox"
	"github.com/hyperplane-ml/hyperplane/sparse/atomicfile"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
)

// The saved form of a Featurizer.
const (
	fileFormat = "hyperplane.text.Featurizer"
	// fileVersion is the version of a file whose document frequencies,
	// if any, are one per feature ("df"); fileVersionSparse that of a
	// file holding only the hash buckets with df > 0 ("df_sparse"; every
	// other bucket has df 0, and so the idf ln(1+docs) + 1). Save writes
	// the sparse form when the training documents touch few buckets, and
	// version 1 otherwise, which older builds read too.
	fileVersion       = 1
	fileVersionSparse = 2
	// fileHash names the hashing scheme (tokenizer, xxHash64 of tokens,
	// gramHash of n-grams, bucket and sign bits). Feature indices depend
	// on it, so a file is only read by a build with the same scheme.
	fileHash = "xxh64-gram1"
)

// fileJSON is the JSON document Save writes.
type fileJSON struct {
	Format      string     `json:"format"`
	Version     int        `json:"version"`
	Hash        string     `json:"hash"`
	NGrams      int        `json:"ngrams"`
	Bits        int        `json:"bits,omitempty"`
	Vocabulary  *[]string  `json:"vocabulary,omitempty"`
	MinDF       int        `json:"min_df,omitempty"`
	MaxFeatures int        `json:"max_features,omitempty"`
	TF          string     `json:"tf"`
	IDF         bool       `json:"idf"`
	Normalize   bool       `json:"normalize"`
	Docs        int        `json:"docs"`
	DF          []int32    `json:"df,omitempty"`
	DFSparse    *dfSparse  `json:"df_sparse,omitempty"`
	Labels      labelsJSON `json:"labels"`
	// The JSONL fields the training text was read from, when not the
	// defaults "label" and "text" (files without them read with those).
	LabelField string `json:"label_field,omitempty"`
	TextField  string `json:"text_field,omitempty"`
}

// dfSparse is the sparse form of the document frequencies: Features, in
// increasing order, are the features with df > 0 and Counts their df.
type dfSparse struct {
	Features []int32 `json:"features"`
	Counts   []int32 `json:"counts"`
}

type labelsJSON struct {
	Numeric bool     `json:"numeric"`
	Names   []string `json:"names"`
}

// Save writes f to path as a versioned JSON document, atomically (see
// atomicfile.Write): on any error an existing file at path is left
// untouched. It holds the configuration (without Workers), the label
// names, the vocabulary and the document frequencies the idf weights
// come from.
func (f *Featurizer) Save(path string) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := f.WriteTo(w)
		return err
	})
}

// WriteTo writes f to w as Save writes it to a file, for a featurizer
// kept beside other data (a model, object storage); ReadFeaturizer reads
// it back. It returns the bytes written.
func (f *Featurizer) WriteTo(w io.Writer) (int64, error) {
	cw := &iox.CountWriter{W: w}
	enc := json.NewEncoder(cw)
	enc.SetEscapeHTML(false)
	err := enc.Encode(f.document())
	return cw.N, err
}

// document is the JSON document Save and WriteTo write.
func (f *Featurizer) document() *fileJSON {
	doc := fileJSON{
		Format:      fileFormat,
		Version:     fileVersion,
		Hash:        fileHash,
		NGrams:      f.cfg.NGrams,
		Bits:        f.cfg.Bits,
		MinDF:       f.cfg.MinDF,
		MaxFeatures: f.cfg.MaxFeatures,
		TF:          f.cfg.TF.String(),
		IDF:         f.cfg.IDF,
		Normalize:   !f.cfg.NoNormalize,
		Docs:        f.nDocs,
		Labels:      labelsJSON{Numeric: f.labels.numeric, Names: f.labels.names},
	}
	if f.labelField != "label" {
		doc.LabelField = f.labelField
	}
	if f.textField != "text" {
		doc.TextField = f.textField
	}
	// The sparse form, "features":[j,…],"counts":[c,…], takes up to about
	// 16 bytes a bucket with df > 0, the dense one, [c,…], 2 or more a
	// bucket: hashed frequencies go sparse when at most 1 in 8 buckets
	// have some.
	switch {
	case f.cfg.IDF && !f.cfg.Vocabulary && (f.df.sparse || f.df.nnz(f.dim/8) <= f.dim/8):
		ds := f.df.sparseForm()
		doc.Version = fileVersionSparse
		doc.DFSparse = &dfSparse{Features: ds.ind, Counts: ds.cnt}
		if ds.ind == nil { // an empty list, not null
			doc.DFSparse = &dfSparse{Features: []int32{}, Counts: []int32{}}
		}
	case f.cfg.IDF:
		doc.DF = f.df.dense
	}
	if f.cfg.Vocabulary {
		v := f.terms()
		if v == nil {
			v = []string{}
		}
		doc.Vocabulary = &v
	}
	return &doc
}

// Load reads a Featurizer written by Save. Everything is checked: a file
// that is not a featurizer, is truncated, corrupt or inconsistent (an idf
// table whose length is not the number of features, a vocabulary out of
// order, ...) or of an unknown version is an error wrapping ErrFormat.
// A file, or a table it asks for, larger than the memory budget allows
// (budget.Default) is an error wrapping budget.ErrExceeded; nothing is
// allocated by a size a file claims before that is checked. The loaded
// Featurizer works exactly as the saved one, with Workers 0.
func Load(path string) (*Featurizer, error) {
	fl, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fl.Close()
	st, err := fl.Stat()
	if err != nil {
		return nil, err
	}
	// The bytes, and at worst about three times as much decoded: a short
	// vocabulary term takes a 16-byte string header, "a", 4 bytes.
	if err := budget.Check(0, budget.Mul(st.Size(), 4), "reading the featurizer file "+path); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(fl, st.Size()+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > st.Size() {
		return nil, fmt.Errorf("%s: %w: the file grew while being read", path, ErrFormat)
	}
	f, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// ReadFeaturizer reads a featurizer written by WriteTo (or Save) from r,
// to its end, with Load's checks. Where r's size is unknown, it reads at
// most a quarter of the memory budget (budget.Default) before refusing
// it, as Load refuses a file of that size.
func ReadFeaturizer(r io.Reader) (*Featurizer, error) {
	limit := budget.Default() / 4
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%w: a featurizer of more than %s", budget.ErrExceeded, budget.Format(limit))
	}
	return decode(data)
}

// decode parses and checks a saved featurizer. What it builds, data
// included, is counted against the memory budget as it is built.
func decode(data []byte) (*Featurizer, error) {
	meter := budget.NewMeter(0)
	doc, err := decodeDoc(data, meter)
	if err != nil {
		return nil, err
	}
	return build(&doc, nil, meter)
}

// build checks a decoded document and makes its featurizer; pre, when not
// nil, is its vocabulary as version 2 of the binary form holds it, with
// its index (the document then lists no terms). What it makes is counted
// on meter, which holds what decoding doc took.
func build(doc *fileJSON, pre *prebuilt, meter *budget.Meter) (*Featurizer, error) {
	cfg, err := docConfig(doc)
	if err != nil {
		return nil, err
	}
	f := &Featurizer{cfg: cfg, nDocs: doc.Docs}
	if err := f.buildFeatures(doc, pre, meter); err != nil {
		return nil, err
	}
	if err := f.buildDF(doc); err != nil {
		return nil, err
	}
	if err := f.setIDFOn(meter); err != nil {
		return nil, err
	}
	if f.labels, err = docLabels(doc.Labels.Names, doc.Labels.Numeric); err != nil {
		return nil, err
	}
	if f.labelField, f.textField, err = fields(doc.LabelField, doc.TextField); err != nil {
		return nil, badDoc("%v", err)
	}
	return f, nil
}

// badDoc is the error for a saved featurizer that is not what it should
// be: format and a say what.
func badDoc(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrFormat}, a...)...)
}

// docConfig checks the format, version and hashing scheme of doc and
// returns its configuration, which must be one Config.normalize keeps.
func docConfig(doc *fileJSON) (Config, error) {
	switch {
	case doc.Format != fileFormat:
		return Config{}, badDoc("format %q, want %q", doc.Format, fileFormat)
	case doc.Version != fileVersion && doc.Version != fileVersionSparse:
		return Config{}, badDoc("version %d, this build reads versions %d and %d", doc.Version, fileVersion, fileVersionSparse)
	case doc.Hash != fileHash:
		return Config{}, badDoc("hashing scheme %q, this build uses %q", doc.Hash, fileHash)
	}
	tf, err := ParseTF(doc.TF)
	if err != nil {
		return Config{}, badDoc("tf %q", doc.TF)
	}
	cfg := Config{
		NGrams:      doc.NGrams,
		Bits:        doc.Bits,
		Vocabulary:  doc.Vocabulary != nil,
		MinDF:       doc.MinDF,
		MaxFeatures: doc.MaxFeatures,
		TF:          tf,
		IDF:         doc.IDF,
		NoNormalize: !doc.Normalize,
	}
	norm, err := cfg.normalize()
	if err != nil || norm != cfg || cfg.NGrams == 0 {
		return Config{}, badDoc("invalid configuration %+v", cfg)
	}
	if doc.Docs < 1 || doc.Docs > math.MaxInt32 {
		return Config{}, badDoc("docs = %d", doc.Docs)
	}
	return cfg, nil
}

// buildFeatures sets f's features: the vocabulary (pre's, or doc's
// terms, checked and indexed) or the hashing space.
func (f *Featurizer) buildFeatures(doc *fileJSON, pre *prebuilt, meter *budget.Meter) error {
	cfg := f.cfg
	switch {
	case cfg.Vocabulary && pre != nil:
		n := pre.terms.n
		if cfg.MaxFeatures > 0 && n > cfg.MaxFeatures {
			return badDoc("%d vocabulary terms, more than max_features = %d", n, cfg.MaxFeatures)
		}
		f.vocabFC, f.index, f.dim = &pre.terms, pre.index, n
	case cfg.Vocabulary:
		vocab := *doc.Vocabulary
		if len(vocab) > math.MaxInt32 {
			return badDoc("vocabulary of %d terms", len(vocab))
		}
		if cfg.MaxFeatures > 0 && len(vocab) > cfg.MaxFeatures {
			return badDoc("%d vocabulary terms, more than max_features = %d", len(vocab), cfg.MaxFeatures)
		}
		f.vocab = vocab
		f.dim = len(vocab)
		if err := meter.Take(budget.Mul(int64(len(vocab)), 4*4+8), fmt.Sprintf("the index of a vocabulary of %d terms", len(vocab))); err != nil {
			return err
		}
		// The terms' hashes first, then the index in one pass over
		// them, which places the keys in the order of their slots.
		hs, err := hashVocabulary(vocab, cfg.NGrams)
		if err != nil {
			return err
		}
		var dup int
		if f.index, dup = buildVocabIndex(hs); dup >= 0 {
			return badDoc("vocabulary terms collide in the hash (term %d %q)", dup, vocab[dup])
		}
	default:
		f.dim = 1 << cfg.Bits
		f.mask = uint64(f.dim - 1)
	}
	return nil
}

// hashVocabulary checks that vocab is sorted and distinct, each term a
// run of at most ngrams lowercase tokens joined by spaces, and returns
// each term's hash as the encoder hashes its words and n-grams.
func hashVocabulary(vocab []string, ngrams int) ([]uint64, error) {
	hs := make([]uint64, len(vocab))
	var t tokenizer
	var parts []uint64
	for i, term := range vocab {
		if i > 0 && vocab[i-1] >= term {
			return nil, badDoc("vocabulary not sorted and distinct at term %d %q", i, term)
		}
		var bad string
		if hs[i], parts, bad = termHash(&t, parts, term, ngrams); bad != "" {
			return nil, badDoc("vocabulary term %d %q %s", i, term, bad)
		}
	}
	return hs, nil
}

// termHash returns the hash of the vocabulary term term as the encoder
// hashes its words and n-grams, with parts as scratch (returned for the
// next call), or else says why term is not a term: more than ngrams
// words, or not a run of lowercase tokens joined by single spaces.
func termHash(t *tokenizer, parts []uint64, term string, ngrams int) (uint64, []uint64, string) {
	parts = parts[:0]
	for rest := term; ; {
		p, tail, more := strings.Cut(rest, " ")
		if len(parts) == ngrams {
			return 0, parts, fmt.Sprintf("has more than ngrams = %d words", ngrams)
		}
		a, b, lowered, ok := t.next(p, 0)
		if !ok || a != 0 || b != len(p) || lowered && string(t.buf) != p {
			return 0, parts, "is not a run of lowercase tokens"
		}
		parts = append(parts, xxhash.Sum64String(p))
		if !more {
			break
		}
		rest = tail
	}
	if len(parts) > 1 {
		return gramHash(parts), parts, ""
	}
	return parts[0], parts, ""
}

// buildDF checks doc's document frequencies, dense (version 1) or sparse
// (version 2, hashing), against f's features and sets them.
func (f *Featurizer) buildDF(doc *fileJSON) error {
	switch {
	case !f.cfg.IDF:
		if doc.DF != nil || doc.DFSparse != nil {
			return badDoc("document frequencies without idf")
		}
	case doc.Version == fileVersion:
		if doc.DFSparse != nil {
			return badDoc("df_sparse in a version %d file", fileVersion)
		}
		if len(doc.DF) != f.dim {
			return badDoc("%d document frequencies for %d features", len(doc.DF), f.dim)
		}
		for i, df := range doc.DF {
			if df < 0 || int(df) > doc.Docs {
				return badDoc("document frequency %d of feature %d is outside [0, docs = %d]", df, i, doc.Docs)
			}
		}
		f.df = dfTable{dense: doc.DF}
	default:
		ds := doc.DFSparse
		switch {
		case f.cfg.Vocabulary:
			return badDoc("version %d is for hashing: a vocabulary has version %d", fileVersionSparse, fileVersion)
		case doc.DF != nil:
			return badDoc("df in a version %d file", fileVersionSparse)
		case ds == nil || ds.Features == nil || ds.Counts == nil:
			return badDoc("no df_sparse features and counts")
		case len(ds.Features) != len(ds.Counts):
			return badDoc("%d df_sparse features, %d counts", len(ds.Features), len(ds.Counts))
		}
		for i, j := range ds.Features {
			if j < 0 || int(j) >= f.dim || i > 0 && ds.Features[i-1] >= j {
				return badDoc("df_sparse feature %d is not increasing within [0, %d)", j, f.dim)
			}
			if c := ds.Counts[i]; c < 1 || int(c) > doc.Docs {
				return badDoc("document frequency %d of feature %d is outside [1, docs = %d]", c, j, doc.Docs)
			}
		}
		f.df = dfTable{sparse: true, ind: ds.Features, cnt: ds.Counts}
	}
	return nil
}

// docLabels checks and returns the label set saved as names: numbers in
// canonical form, increasing, or names sorted, distinct and non-empty.
func docLabels(names []string, numeric bool) (labelSet, error) {
	if len(names) == 0 {
		return labelSet{}, badDoc("no labels")
	}
	if numeric {
		vals := make([]float64, len(names))
		for i, s := range names {
			v, ok := parseCanonical(s)
			if !ok || i > 0 && vals[i-1] >= v {
				return labelSet{}, badDoc("numeric labels not canonical, increasing numbers at %q", s)
			}
			vals[i] = v
		}
		return labelSet{numeric: true, names: names, values: vals}, nil
	}
	for i, s := range names {
		if s == "" || i > 0 && names[i-1] >= s {
			return labelSet{}, badDoc("label names not sorted, distinct and non-empty at %q", s)
		}
	}
	return newNamedLabels(slices.Clip(names)), nil
}
