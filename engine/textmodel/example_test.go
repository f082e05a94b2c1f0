package textmodel_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hyperplane-ml/hyperplane/engine/textmodel"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

func Example() {
	docs := []string{
		"a wonderful, moving film", "great acting and a great story", "I loved every minute",
		"a dull and boring film", "awful acting, a terrible story", "I hated every minute",
	}
	labels := []string{"pos", "pos", "pos", "neg", "neg", "neg"}
	m, _, err := textmodel.Fit(context.Background(), docs, labels, textmodel.Config{Text: text.Config{Bits: 12}})
	if err != nil {
		fmt.Println(err)
		return
	}
	// m.Save("reviews.hptm") writes featurizer and model as one file;
	// textmodel.Load reads it back.
	fmt.Println(m.Classify("what a wonderful story"))
	fmt.Println(m.Classify("boring, and terrible acting"))
	// Output:
	// pos
	// neg
}

// A command-line run that classifies a few documents loads the model for
// them alone: with a vocabulary, only their terms and those terms'
// weights are made.
func ExampleLoadFor() {
	docs := []string{
		"a wonderful, moving film", "great acting and a great story", "I loved every minute",
		"a dull and boring film", "awful acting, a terrible story", "I hated every minute",
	}
	labels := []string{"pos", "pos", "pos", "neg", "neg", "neg"}
	cfg := textmodel.Config{Text: text.Config{Vocabulary: true}, NoCalibration: true}
	m, _, err := textmodel.Fit(context.Background(), docs, labels, cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "reviews.hptm")
	if err := m.Save(path); err != nil {
		fmt.Println(err)
		return
	}
	news := []string{"what a wonderful story", "boring, and terrible acting"}
	part, err := textmodel.LoadFor(path, news)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Featurizer().Dim(), "terms in the model,", part.Featurizer().Dim(), "loaded")
	for _, d := range news {
		fmt.Println(part.Classify(d))
	}
	// Output:
	// 17 terms in the model, 7 loaded
	// pos
	// neg
}
