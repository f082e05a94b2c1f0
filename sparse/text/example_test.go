package text_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/sparse"
	_ "github.com/hyperplane-ml/hyperplane/sparse/libsvm" // registers LIBSVM, which sparse.WriteFile writes train.svm in
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

const reviews = `{"label": "pos", "id": 1, "text": "A wonderful film, great acting and a great story."}
{"label": "neg", "id": 2, "text": "Boring plot, awful acting. A waste of time."}
{"label": "pos", "id": 3, "text": "Great fun! I loved every minute."}
{"label": "neg", "id": 4, "text": "Awful. I hated it, truly boring."}
{"label": "pos", "id": 5, "text": "Wonderful \u2014 a film I loved."}
{"label": "neg", "id": 6, "text": "A waste: boring and awful."}
`

func ExampleFit() {
	train, err := text.Read(strings.NewReader(reviews), text.ReadOptions{Name: "reviews.jsonl"})
	if err != nil {
		fmt.Println(err)
		return
	}
	f, err := text.Fit(train, text.Config{NGrams: 2, Bits: 18, TF: text.Log, IDF: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	ds, err := f.Vectorize(train)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ds.X.Rows, "documents,", ds.X.Cols, "features, labels", f.Labels(), "→", ds.Y)

	m, _, err := engine.Fit(context.Background(), ds.X, ds.Y, engine.Config{Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	e := f.NewEncoder() // one per goroutine; Transform then allocates nothing
	for _, review := range []string{"What a wonderful story, I loved it", "An awful, boring waste"} {
		fmt.Printf("%q: %s\n", review, f.Name(m.Predict(e.Transform(review))))
	}
	// Output:
	// 6 documents, 262144 features, labels [neg pos] → [1 -1 1 -1 1 -1]
	// "What a wonderful story, I loved it": pos
	// "An awful, boring waste": neg
}

func ExampleFitFile() {
	dir, err := os.MkdirTemp("", "text-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	trainPath := filepath.Join(dir, "train.tsv")
	testPath := filepath.Join(dir, "test.tsv")
	os.WriteFile(trainPath, []byte("ham\tSee you at lunch?\nspam\tWIN a FREE prize now!!!\nham\tCall me later\n"), 0o644)
	os.WriteFile(testPath, []byte("spam\tFree prize, call now\n"), 0o644)

	// Fit on the training file and turn both files into datasets that
	// share one feature space.
	f, train, err := text.FitFile(trainPath, text.ReadOptions{}, text.Config{Vocabulary: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	test, err := f.VectorizeFile(testPath, text.ReadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("vocabulary:", f.Vocabulary())
	fmt.Println("train labels:", train.Y, "test labels:", test.Y, "test features:", test.X.Row(0).Ind)

	// Write LIBSVM files for other tools, and keep the featurizer for
	// later.
	if err := sparse.WriteFile(filepath.Join(dir, "train.svm"), train); err != nil {
		fmt.Println(err)
		return
	}
	if err := f.Save(filepath.Join(dir, "featurizer.json")); err != nil {
		fmt.Println(err)
		return
	}
	svm, _ := os.ReadFile(filepath.Join(dir, "train.svm"))
	fmt.Print(string(svm[:strings.IndexByte(string(svm), '\n')+1]))

	// An unknown label in test data is an error naming file and line.
	os.WriteFile(testPath, []byte("spam\tFree prize\nphishing\tClick here\n"), 0o644)
	_, err = f.VectorizeFile(testPath, text.ReadOptions{Name: "test.tsv"})
	fmt.Println(err)
	// Output:
	// vocabulary: [a at call free later lunch me now prize see win you]
	// train labels: [-1 1 -1] test labels: [1] test features: [2 3 7 8]
	// -1 2:0.5 6:0.5 10:0.5 12:0.5
	// test.tsv:2:1: unknown label "phishing" (not among the 2 training labels)
}

func ExampleScanner() {
	input := "pos\tLoved it\n\nneg\tHated it\r\n"
	sc := text.NewScanner(strings.NewReader(input), text.ReadOptions{})
	for sc.Scan() {
		d := sc.Doc()
		fmt.Printf("line %d: %s %q\n", d.Line, d.Label, d.Text)
	}
	if err := sc.Err(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// line 1: pos "Loved it"
	// line 3: neg "Hated it"
}

func ExampleTokenize() {
	fmt.Println(text.Tokenize(`Ünïcödé ÉTÉ: it's "2024"<br />ok`))
	// Output:
	// [ünïcödé été it s 2024 br ok]
}

func ExampleEncoder_Transform() {
	docs := &text.Corpus{Docs: []text.Doc{{Label: "a", Text: "red apple"}, {Label: "b", Text: "green apple"}}}
	f, err := text.Fit(docs, text.Config{Vocabulary: true, NoNormalize: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	e := f.NewEncoder()
	v := e.Transform("Apple, apple and a RED apple")
	fmt.Println(f.Vocabulary(), v.Ind, v.Val)
	// Output:
	// [apple green red] [0 2] [3 1]
}
