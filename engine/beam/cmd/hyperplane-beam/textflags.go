package main

import (
	"errors"
	"flag"

	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

// The featurizer's flags with -text, spelled, defaulted and read as
// hyperplane train's, so that the same flags fit the same featurizer in
// both commands: by default a vocabulary of the terms in at least two
// documents; hashing with -vocab=false, or with a -bits given without
// -vocab. They are made on a flag set of their own and registered on the
// command line's noted, to tell a flag given from its default.
var (
	textFlags   = flag.NewFlagSet("text", flag.ContinueOnError)
	bits        = textFlags.Int("bits", 0, "with -text: hash into 2^`bits` features (default the text package's); given without -vocab, it asks for hashing")
	vocab       = textFlags.Bool("vocab", true, "with -text: index terms by a vocabulary of the training text, fitted on the workers, instead of hashing")
	minDF       = textFlags.Int("min-df", 2, "with -text and -vocab: keep terms found in at least `n` documents (0: all)")
	maxFeatures = textFlags.Int("max-features", 0, "with -text and -vocab: keep the `n` most frequent terms only (0: all)")
	textNoted   = map[string]*noted{}
)

func init() {
	textFlags.VisitAll(func(f *flag.Flag) {
		n := &noted{Value: f.Value}
		flag.Var(n, f.Name, f.Usage)
		textNoted[f.Name] = n
	})
}

// noted is a flag's value that notes whether the command line set it.
type noted struct {
	flag.Value
	set bool
}

func (n *noted) Set(s string) error { n.set = true; return n.Value.Set(s) }

// String is the value's, and "" for a zero noted (flag.PrintDefaults
// makes one to find the zero value).
func (n *noted) String() string {
	if n == nil || n.Value == nil {
		return ""
	}
	return n.Value.String()
}

// IsBoolFlag lets a boolean flag stand alone (-vocab), as flag.Bool's does.
func (n *noted) IsBoolFlag() bool {
	b, ok := n.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// resetTextFlags sets the text flags to their defaults, not given.
func resetTextFlags() {
	textFlags.VisitAll(func(f *flag.Flag) {
		f.Value.Set(f.DefValue)
		textNoted[f.Name].set = false
	})
}

// textConfig returns the featurizer the flags ask for, by hyperplane
// train's rules, checked by the text package (by fitting no documents,
// which it refuses only after checking the settings).
func textConfig() (text.Config, error) {
	cfg := text.Config{NGrams: *ngrams, TF: text.Log, IDF: true, Vocabulary: *vocab, Bits: *bits, MinDF: *minDF, MaxFeatures: *maxFeatures}
	if cfg.Vocabulary && textNoted["bits"].set && !textNoted["vocab"].set {
		cfg.Vocabulary = false
	}
	if cfg.Vocabulary && !textNoted["bits"].set {
		cfg.Bits = 0
	}
	if !cfg.Vocabulary {
		if !textNoted["min-df"].set {
			cfg.MinDF = 0
		}
		if !textNoted["max-features"].set {
			cfg.MaxFeatures = 0
		}
	}
	if _, err := text.Fit(nil, cfg); !errors.Is(err, text.ErrEmpty) {
		return cfg, err
	}
	return cfg, nil
}
