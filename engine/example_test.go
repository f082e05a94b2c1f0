package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/libsvm"
)

func ExampleFit() {
	// Two features; the label is 1 where x0 + x1 > 0.
	X := sparse.FromDense([][]float32{
		{1, 0}, {2, 1}, {0, 1}, {1, 1},
		{-1, -2}, {-2, 0}, {0, -1}, {-1, 0},
	})
	y := []float64{1, 1, 1, 1, 0, 0, 0, 0}

	m, stats, err := engine.Fit(context.Background(), X, y, engine.Config{Epochs: 20, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	pred := m.PredictBatch(X, nil)
	right := 0
	for i, p := range pred {
		if p == y[i] {
			right++
		}
	}
	fmt.Printf("classes %v, %d features\n", m.Classes, m.Dim)
	fmt.Printf("training accuracy %.2f\n", float64(right)/float64(len(y)))
	fmt.Println("last epoch mistakes:", stats[len(stats)-1].Mistakes)

	x := sparse.FromDense([][]float32{{3, -1}}).Row(0)
	fmt.Println("prediction for (3, -1):", m.Predict(x))
	// Output:
	// classes [0 1], 2 features
	// training accuracy 1.00
	// last epoch mistakes: 0
	// prediction for (3, -1): 1
}

func ExampleLearner() {
	// A stream of LIBSVM rows (label index:value ..., indices from 1), as
	// it might arrive from a file or a socket.
	stream := `+1 1:1 2:1
-1 1:-1 3:1
+1 1:2
-1 1:-2 2:-1
+1 2:1 4:1
-1 1:-1 4:-1
`
	l, err := engine.NewLearner([]float64{-1, 1}, 0, engine.Config{Algorithm: engine.Plain})
	if err != nil {
		fmt.Println(err)
		return
	}
	sc := libsvm.NewScanner(strings.NewReader(stream), sparse.ReadOptions{})
	stats, err := l.LearnFrom(context.Background(), sc)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("learned %d rows, %d mistakes on the way\n", stats.Rows, stats.Mistakes)

	// The learner goes on with single examples, and grows to wider rows.
	wide := sparse.Vector{Dim: 10, Ind: []int32{0, 9}, Val: []float32{1, 1}}
	if _, err := l.Learn(wide, 1); err != nil {
		fmt.Println(err)
		return
	}
	m := l.Model()
	fmt.Println("seen:", l.Seen(), "width at least 10:", m.Dim >= 10)
	fmt.Println("predict x0=3:", m.Predict(sparse.Vector{Dim: 1, Ind: []int32{0}, Val: []float32{3}}))
	fmt.Println("predict x0=-3:", m.Predict(sparse.Vector{Dim: 1, Ind: []int32{0}, Val: []float32{-3}}))
	// Output:
	// learned 6 rows, 2 mistakes on the way
	// seen: 7 width at least 10: true
	// predict x0=3: 1
	// predict x0=-3: -1
}

func ExampleModel_PredictBatch() {
	// Three classes: the index of the largest feature.
	train := sparse.FromDense([][]float32{
		{3, 1, 0}, {2, 0, 1}, {4, 1, 1},
		{0, 3, 1}, {1, 2, 0}, {1, 4, 2},
		{0, 1, 3}, {1, 0, 2}, {2, 1, 4},
	})
	y := []float64{10, 10, 10, 20, 20, 20, 30, 30, 30}
	m, _, err := engine.Fit(context.Background(), train, y, engine.Config{Epochs: 50, Seed: 7})
	if err != nil {
		fmt.Println(err)
		return
	}
	test := sparse.FromDense([][]float32{{5, 1, 1}, {1, 5, 1}, {1, 1, 5}, {0, 0, 2}})
	fmt.Println(m.PredictBatch(test, nil))
	// Output:
	// [10 20 30 30]
}

// ExampleParseLearner maps the names the command line's -algo takes to an
// Algorithm and a Rule for Config.
func ExampleParseLearner() {
	for _, name := range []string{"averaged", "voted", "pa1", "logistic", "sgd"} {
		alg, rule, err := engine.ParseLearner(name)
		if err != nil {
			fmt.Println(name, "→ error wrapping ErrConfig:", errors.Is(err, engine.ErrConfig))
			continue
		}
		fmt.Println(name, "→", alg, rule)
	}
	// Output:
	// averaged → averaged perceptron
	// voted → voted perceptron
	// pa1 → averaged pa1
	// logistic → averaged logistic
	// sgd → error wrapping ErrConfig: true
}
