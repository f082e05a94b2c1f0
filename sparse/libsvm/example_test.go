package libsvm_test

import (
	"fmt"
	"strings"

	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/libsvm"
)

func ExampleRead() {
	input := `# label index:value ...
+1 1:0.5 3:2
-1 2:1 # a comment
0
`
	d, err := libsvm.Read(strings.NewReader(input), sparse.ReadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.X.Rows, "rows,", d.X.Cols, "cols,", d.X.NNZ(), "nonzeros")
	for i := range d.X.Rows {
		v := d.X.Row(i)
		fmt.Println(d.Y[i], v.Ind, v.Val)
	}

	_, err = libsvm.Read(strings.NewReader("1 3:1 2:1\n"), sparse.ReadOptions{Name: "bad.svm"})
	fmt.Println(err)
	// Output:
	// 3 rows, 3 cols, 3 nonzeros
	// 1 [0 2] [0.5 2]
	// -1 [1] [1]
	// 0 [] []
	// bad.svm:1:7: index 2 after 3: indices must be strictly increasing
}

func ExampleScanner() {
	input := "1 1:1 2:1\n-1 2:3\n"
	sc := libsvm.NewScanner(strings.NewReader(input), sparse.ReadOptions{Dim: 2})
	w := []float32{0.5, -0.25}
	for sc.Scan() {
		y, x := sc.Row()
		fmt.Printf("line %d: label %v, score %v\n", sc.Line(), y, x.Dot(w))
	}
	if err := sc.Err(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// line 1: label 1, score 0.25
	// line 2: label -1, score -0.75
}
