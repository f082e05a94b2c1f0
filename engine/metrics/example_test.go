package metrics_test

import (
	"errors"
	"fmt"
	"os"

	"github.com/hyperplane-ml/hyperplane/engine/metrics"
)

func ExampleNewConfusion() {
	truth := []float64{1, 1, 1, 1, -1, -1, -1, -1, -1, -1}
	pred := []float64{1, 1, 1, -1, 1, 1, -1, -1, -1, -1}
	c, err := metrics.NewConfusion(truth, pred)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("accuracy %.2f (%d of %d)\n", c.Accuracy(), c.Correct(), c.Total())
	for _, s := range c.PerClass() {
		fmt.Printf("class %v: precision %.3f recall %.3f f1 %.3f support %d\n",
			s.Label, s.Precision, s.Recall, s.F1, s.Support)
	}
	// Output:
	// accuracy 0.70 (7 of 10)
	// class -1: precision 0.800 recall 0.667 f1 0.727 support 6
	// class 1: precision 0.600 recall 0.750 f1 0.667 support 4
}

func ExampleConfusion_WriteReport() {
	truth := []float64{2, 0, 1, 2, 0, 1, 2, 0, 2}
	pred := []float64{2, 0, 2, 2, 1, 1, 2, 0, 2}
	c, err := metrics.NewConfusion(truth, pred)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := c.WriteReport(os.Stdout); err != nil {
		fmt.Println(err)
	}
	// Output:
	//                precision     recall   f1-score    support
	//
	//            0     1.0000     0.6667     0.8000          3
	//            1     0.5000     0.5000     0.5000          2
	//            2     0.8000     1.0000     0.8889          4
	//
	//     accuracy                           0.7778          9
	//    macro avg     0.7667     0.7222     0.7296          9
	// weighted avg     0.8000     0.7778     0.7728          9
	//
	// confusion matrix (rows: true label, columns: predicted label)
	//    0  1  2
	// 0  2  1  0
	// 1  0  1  1
	// 2  0  0  4
}

func ExampleConfusion_WriteNamedReport() {
	truth := []float64{1, 0, 1, 1, 0}
	pred := []float64{1, 0, 0, 1, 0}
	c, err := metrics.NewConfusion(truth, pred)
	if err != nil {
		fmt.Println(err)
		return
	}
	// c.Labels is [0 1]: the names go in that order.
	if err := c.WriteNamedReport(os.Stdout, []string{"ham", "spam"}); err != nil {
		fmt.Println(err)
	}
	err = c.WriteNamedReport(os.Stdout, []string{"ham"})
	fmt.Println(errors.Is(err, metrics.ErrLength))
	// Output:
	//                precision     recall   f1-score    support
	//
	//          ham     0.6667     1.0000     0.8000          2
	//         spam     1.0000     0.6667     0.8000          3
	//
	//     accuracy                           0.8000          5
	//    macro avg     0.8333     0.8333     0.8000          5
	// weighted avg     0.8667     0.8000     0.8000          5
	//
	// confusion matrix (rows: true label, columns: predicted label)
	//        ham  spam
	//  ham     2     0
	// spam     1     2
	// true
}

func ExampleAccuracy() {
	_, err := metrics.Accuracy([]float64{1, 2, 3}, []float64{1, 2})
	fmt.Println(err)
	a, _ := metrics.Accuracy([]float64{1, 2, 3, 4}, []float64{1, 2, 3, 3})
	fmt.Println(a)
	// Output:
	// metrics: truth and predictions differ in length or are empty: 3 true labels, 2 predictions
	// 0.75
}

func ExampleECE() {
	// Probabilities of 3 classes for 4 rows, row after row, and the index
	// of each row's true class.
	proba := []float64{
		0.7, 0.2, 0.1, // predicted 0 with confidence 0.7: right
		0.1, 0.6, 0.3, // predicted 1 with 0.6: right
		0.3, 0.3, 0.4, // predicted 2 with 0.4: wrong
		0.9, 0.05, 0.05, // predicted 0 with 0.9: wrong
	}
	truth := []int{0, 1, 1, 2}
	ll, err := metrics.LogLoss(proba, 3, truth)
	if err != nil {
		fmt.Println(err)
		return
	}
	// With 5 bins of width 0.2 each row has a bin of its own, a
	// confidence on an edge going to the bin below: 0.7 in (0.6, 0.8],
	// 0.6 in (0.4, 0.6], 0.4 in (0.2, 0.4], 0.9 in (0.8, 1]. So
	// ECE = (|1−0.7| + |1−0.6| + |0−0.4| + |0−0.9|)/4 = 0.5.
	ece, err := metrics.ECE(proba, 3, truth, 5)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("log loss %.4f, ECE %.4f\n", ll, ece)
	// Output:
	// log loss 1.2668, ECE 0.5000
}
