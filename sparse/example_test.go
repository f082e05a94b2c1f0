package sparse_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/hyperplane-ml/hyperplane/sparse"
	_ "github.com/hyperplane-ml/hyperplane/sparse/hpc"    // registers the HPSC format
	_ "github.com/hyperplane-ml/hyperplane/sparse/libsvm" // registers LIBSVM
)

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

// WriteFile picks the format by the file name's ending, ReadFile by the
// file's first bytes.
func ExampleReadFile() {
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	d := &sparse.Dataset{X: sparse.FromDense([][]float32{{1, 0, 2}, {0, 3, 0}}), Y: []float64{1, -1}}
	for _, name := range []string{"d.svm", "d.svm.gz", "d.hpc"} {
		path := filepath.Join(dir, name)
		if err := sparse.WriteFile(path, d); err != nil {
			fmt.Println(err)
			return
		}
		format, _ := sparse.SniffFile(path)
		back, err := sparse.ReadFile(path, sparse.ReadOptions{})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(name, format, back.X.Rows, "rows,", back.X.NNZ(), "nonzeros")
	}
	// Output:
	// d.svm libsvm 2 rows, 3 nonzeros
	// d.svm.gz libsvm.gz 2 rows, 3 nonzeros
	// d.hpc hpsc 2 rows, 3 nonzeros
}
