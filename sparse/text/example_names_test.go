package text_test

import (
	"fmt"
	"strings"

	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

func ExampleEncoder_Terms() {
	train, err := text.Read(strings.NewReader(reviews), text.ReadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	// 8 buckets, so that terms share them; raw counts.
	f, err := text.Fit(train, text.Config{NGrams: 2, Bits: 3, NoNormalize: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	e := f.NewEncoder()
	const review = "Not bad, not bad at all"
	for _, t := range e.Terms(review, nil) {
		fmt.Printf("feature %2d: %+.0f × %d %q\n", t.Feature, t.Sign, t.Count, t.Text)
	}
	// The vector holds each feature's sum of sign × count; the two terms
	// of feature 4 cancel out.
	fmt.Println(e.Transform(review))
	// Output:
	// feature  0: +1 × 1 "all"
	// feature  0: +1 × 2 "not"
	// feature  1: -1 × 1 "at"
	// feature  2: +1 × 1 "bad not"
	// feature  3: -1 × 2 "not bad"
	// feature  4: -1 × 1 "at all"
	// feature  4: +1 × 1 "bad at"
	// feature  7: +1 × 2 "bad"
	// {8 [0 1 2 3 7] [3 -1 1 -2 2]}
}

func ExampleFeaturizer_FeatureNames() {
	train, err := text.Read(strings.NewReader(reviews), text.ReadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	f, err := text.Fit(train, text.Config{NGrams: 2, Bits: 6})
	if err != nil {
		fmt.Println(err)
		return
	}
	// Name the features of a document, as one would those of a model's
	// largest weights, by the training terms hashed into them, with the
	// number of documents holding each.
	v := f.Transform("a great film")
	names, err := f.FeatureNames(train, v.Ind, 3)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, j := range v.Ind {
		var terms []string
		for _, t := range names.Lookup(j) {
			sign := ""
			if t.Sign < 0 {
				sign = "-"
			}
			terms = append(terms, fmt.Sprintf("%s%s (%d)", sign, t.Text, t.DF))
		}
		if terms == nil {
			terms = []string{"no training term"}
		}
		fmt.Printf("feature %2d: %s\n", j, strings.Join(terms, ", "))
	}
	// A minus marks a term counted negatively; "great" and "waste" share
	// a bucket, and "great film" is not in the training documents.
	// Output:
	// feature 19: -film (2)
	// feature 25: a great (1)
	// feature 27: -a (4)
	// feature 56: no training term
	// feature 58: -great (2), -waste (2)
}
