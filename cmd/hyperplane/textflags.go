package main

import (
	"errors"
	"flag"

	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

// textFlags are the flags that fit a text featurizer and read labelled
// text, one spelling for convert and train.
type textFlags struct {
	cfg                       text.Config
	tf, labelField, textField *string
	labelPrefix               *string
	normalize, noNormalize    *bool    // convert's; train has one -normalize of its own
	fitting, all              []string // the flag names: those that fit, and all
}

// addTextFlags registers the text flags on fs with def's settings as
// their defaults (def.TF as -tf's); -normalize only with normalize
// (train has one -normalize flag for featurizer and learner alike).
func addTextFlags(fs *flag.FlagSet, def text.Config, normalize bool) *textFlags {
	t := &textFlags{cfg: def}
	fs.IntVar(&t.cfg.NGrams, "ngrams", max(def.NGrams, 1), "text: longest word n-gram (1: words; 2: words and pairs)")
	fs.IntVar(&t.cfg.Bits, "bits", text.DefaultBits, "text: hash into 2^bits buckets")
	fs.BoolVar(&t.cfg.Vocabulary, "vocab", def.Vocabulary, "text: index terms by a vocabulary of the training text instead of hashing")
	fs.IntVar(&t.cfg.MinDF, "min-df", def.MinDF, "text, -vocab: keep terms found in at least this many documents (0: all)")
	fs.IntVar(&t.cfg.MaxFeatures, "max-features", def.MaxFeatures, "text, -vocab: keep the most frequent terms only (0: all)")
	t.tf = fs.String("tf", def.TF.String(), "text: term weight: count, binary or log")
	fs.BoolVar(&t.cfg.IDF, "idf", def.IDF, "text: multiply by the inverse document frequency of the training text")
	if normalize {
		t.normalize = fs.Bool("normalize", !def.NoNormalize, "text: scale rows to unit L2 norm")
		t.noNormalize = fs.Bool("no-normalize", false, "text: the former spelling of -normalize=false")
	}
	t.labelField = fs.String("label-field", "label", "text, JSONL: the label field")
	t.textField = fs.String("text-field", "text", "text, JSONL: the text field")
	t.labelPrefix = fs.String("label-prefix", text.DefaultLabelPrefix, "text, fastText: what starts a label token (__label__pos great movie)")
	t.fitting = []string{"ngrams", "bits", "vocab", "min-df", "max-features", "tf", "idf"}
	if normalize {
		t.fitting = append(t.fitting, "normalize", "no-normalize")
	}
	t.all = append([]string{"label-field", "text-field", "label-prefix"}, t.fitting...)
	return t
}

// config returns the featurizer settings the flags ask for, checked by
// the text package (by fitting no documents, which it refuses only after
// checking the settings) before any text is read. The defaults of -bits
// and of -min-df and -max-features apply to hashing and to a vocabulary
// respectively; a -bits written on the command line asks for hashing
// where a vocabulary is the default.
func (t *textFlags) config(fs *flag.FlagSet) (text.Config, error) {
	cfg := t.cfg
	if t.normalize != nil {
		cfg.NoNormalize = !*t.normalize || *t.noNormalize
	}
	var err error
	if cfg.TF, err = text.ParseTF(*t.tf); err != nil {
		return cfg, usageError("-tf: %v", err)
	}
	if cfg.Vocabulary && len(setAmong(fs, "bits")) > 0 && len(setAmong(fs, "vocab")) == 0 {
		cfg.Vocabulary = false
	}
	if cfg.Vocabulary && len(setAmong(fs, "bits")) == 0 {
		cfg.Bits = 0
	}
	if !cfg.Vocabulary {
		if len(setAmong(fs, "min-df")) == 0 {
			cfg.MinDF = 0
		}
		if len(setAmong(fs, "max-features")) == 0 {
			cfg.MaxFeatures = 0
		}
	}
	if _, err := text.Fit(nil, cfg); !errors.Is(err, text.ErrEmpty) {
		return cfg, err
	}
	return cfg, nil
}

// readOptions returns how to read labelled text named name (a path, or
// "standard input"), its format by textFormat.
func (t *textFlags) readOptions(name string) text.ReadOptions {
	return text.ReadOptions{LabelField: *t.labelField, TextField: *t.textField, LabelPrefix: *t.labelPrefix, Name: name, Format: textFormat(name, "")}
}
