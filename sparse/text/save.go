package text

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/cespare/xxhash/v2"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// The saved form of a Featurizer.
const (
	fileFormat  = "hyperplane.text.Featurizer"
	fileVersion = 1
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
	Labels      labelsJSON `json:"labels"`
}

type labelsJSON struct {
	Numeric bool     `json:"numeric"`
	Names   []string `json:"names"`
}

// Save writes f to path as a versioned JSON document, atomically (see
// sparse.WriteFileAtomic): on any error an existing file at path is left
// untouched. It holds the configuration (without Workers), the label
// names, the vocabulary and the document frequencies the idf weights
// come from.
func (f *Featurizer) Save(path string) error {
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
		DF:          f.df,
		Labels:      labelsJSON{Numeric: f.labels.numeric, Names: f.labels.names},
	}
	if f.cfg.Vocabulary {
		v := f.vocab
		if v == nil {
			v = []string{}
		}
		doc.Vocabulary = &v
	}
	return sparse.WriteFileAtomic(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		return enc.Encode(&doc)
	})
}

// Load reads a Featurizer written by Save. Everything is checked: a file
// that is not a featurizer, is truncated, corrupt or inconsistent (an idf
// table whose length is not the number of features, a vocabulary out of
// order, ...) or of an unknown version is an error wrapping ErrFormat.
// The loaded Featurizer works exactly as the saved one, with Workers 0.
func Load(path string) (*Featurizer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// decode parses and checks a saved featurizer.
func decode(data []byte) (*Featurizer, error) {
	bad := func(format string, a ...any) (*Featurizer, error) {
		return nil, fmt.Errorf("%w: "+format, append([]any{ErrFormat}, a...)...)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var doc fileJSON
	if err := dec.Decode(&doc); err != nil {
		return bad("%v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return bad("data after the JSON document")
	}
	switch {
	case doc.Format != fileFormat:
		return bad("format %q, want %q", doc.Format, fileFormat)
	case doc.Version != fileVersion:
		return bad("version %d, this build reads version %d", doc.Version, fileVersion)
	case doc.Hash != fileHash:
		return bad("hashing scheme %q, this build uses %q", doc.Hash, fileHash)
	}
	tf, err := ParseTF(doc.TF)
	if err != nil {
		return bad("tf %q", doc.TF)
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
		return bad("invalid configuration %+v", cfg)
	}
	if doc.Docs < 1 || doc.Docs > math.MaxInt32 {
		return bad("docs = %d", doc.Docs)
	}
	f := &Featurizer{cfg: cfg, nDocs: doc.Docs}

	// Features.
	if cfg.Vocabulary {
		vocab := *doc.Vocabulary
		if len(vocab) > math.MaxInt32 {
			return bad("vocabulary of %d terms", len(vocab))
		}
		if cfg.MaxFeatures > 0 && len(vocab) > cfg.MaxFeatures {
			return bad("%d vocabulary terms, more than max_features = %d", len(vocab), cfg.MaxFeatures)
		}
		f.vocab = vocab
		f.dim = len(vocab)
		f.index = newHashIndex(len(vocab))
		var t tokenizer
		var hs []uint64
		for i, term := range vocab {
			if i > 0 && vocab[i-1] >= term {
				return bad("vocabulary not sorted and distinct at term %d %q", i, term)
			}
			hs = hs[:0]
			parts := strings.Split(term, " ")
			if len(parts) > cfg.NGrams {
				return bad("vocabulary term %d %q has more than ngrams = %d words", i, term, cfg.NGrams)
			}
			for _, p := range parts {
				a, b, lowered, ok := t.next(p, 0)
				if !ok || a != 0 || b != len(p) || lowered && string(t.buf) != p {
					return bad("vocabulary term %d %q is not a run of lowercase tokens", i, term)
				}
				hs = append(hs, xxhash.Sum64String(p))
			}
			h := hs[0]
			if len(hs) > 1 {
				h = gramHash(hs)
			}
			if _, dup := f.index.get(h); dup {
				return bad("vocabulary terms collide in the hash (term %d %q)", i, term)
			}
			f.index.put(h, int32(i))
		}
	} else {
		f.dim = 1 << cfg.Bits
		f.mask = uint64(f.dim - 1)
	}

	// Document frequencies.
	if cfg.IDF {
		if len(doc.DF) != f.dim {
			return bad("%d document frequencies for %d features", len(doc.DF), f.dim)
		}
		for i, df := range doc.DF {
			if df < 0 || int(df) > doc.Docs {
				return bad("document frequency %d of feature %d is outside [0, docs = %d]", df, i, doc.Docs)
			}
		}
		f.df = doc.DF
		f.setIDF()
	} else if doc.DF != nil {
		return bad("document frequencies without idf")
	}

	// Labels.
	names := doc.Labels.Names
	if len(names) == 0 {
		return bad("no labels")
	}
	if doc.Labels.Numeric {
		vals := make([]float64, len(names))
		for i, s := range names {
			v, ok := parseNumber(s)
			if !ok || formatNumber(v) != s || i > 0 && vals[i-1] >= v {
				return bad("numeric labels not canonical, increasing numbers at %q", s)
			}
			vals[i] = v
		}
		f.labels = labelSet{numeric: true, names: names, values: vals}
	} else {
		for i, s := range names {
			if s == "" || i > 0 && names[i-1] >= s {
				return bad("label names not sorted, distinct and non-empty at %q", s)
			}
		}
		f.labels = newNamedLabels(slices.Clip(names))
	}
	return f, nil
}
