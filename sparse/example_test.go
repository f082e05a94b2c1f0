package sparse_test

import (
	"fmt"
	"strings"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

func ExampleReadLIBSVM() {
	input := `# label index:value ...
+1 1:0.5 3:2
-1 2:1 # a comment
0
`
	d, err := sparse.ReadLIBSVM(strings.NewReader(input), sparse.ReadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.X.Rows, "rows,", d.X.Cols, "cols,", d.X.NNZ(), "nonzeros")
	for i := range d.X.Rows {
		v := d.X.Row(i)
		fmt.Println(d.Y[i], v.Ind, v.Val)
	}

	_, err = sparse.ReadLIBSVM(strings.NewReader("1 3:1 2:1\n"), sparse.ReadOptions{Name: "bad.svm"})
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
	sc := sparse.NewScanner(strings.NewReader(input), sparse.ReadOptions{Dim: 2})
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

func ExampleVector_Dot() {
	v := sparse.Vector{Dim: 4, Ind: []int32{0, 3}, Val: []float32{2, -1}}
	w := []float32{1, 10, 100, 1000}
	fmt.Println(v.Dot(w))
	v.AddTo(w, 0.5)
	fmt.Println(w)
	// Output:
	// -998
	// [2 10 100 999.5]
}

func ExampleBuilder() {
	var b sparse.Builder // zero value: columns inferred
	_ = b.Add([]int32{0, 2}, []float32{1, 2})
	_ = b.Add(nil, nil)
	if err := b.Add([]int32{3, 1}, []float32{1, 1}); err != nil {
		fmt.Println(err)
	}
	m := b.Build()
	fmt.Println(m.Rows, m.Cols, m.Indptr, m.Ind, m.Val)
	// Output:
	// sparse: indices not strictly increasing: entry 1: index 1 after 3
	// 2 3 [0 2 2] [0 2] [1 2]
}
