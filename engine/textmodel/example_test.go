package textmodel_test

import (
	"context"
	"fmt"

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
