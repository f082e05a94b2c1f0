package hpc_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/hpc"
	"github.com/hyperplane-ml/hyperplane/sparse/libsvm"
)

// A multi-label data set, written as a cache with label lists and read
// back: the rows and each row's labels, in the order written.
func ExampleWriteMultiLabel() {
	d, err := libsvm.ReadMultiLabel(strings.NewReader("3,1 1:0.5 4:2\n 2:1\n0 3:1\n"), sparse.ReadOptions{})
	if err != nil {
		panic(err)
	}
	path := filepath.Join(os.TempDir(), "example-multilabel.hpc")
	defer os.Remove(path)
	f, err := os.Create(path)
	if err != nil {
		panic(err)
	}
	if err := hpc.WriteMultiLabel(f, d); err != nil {
		panic(err)
	}
	f.Close()
	back, err := hpc.ReadMultiLabelFile(path, sparse.ReadOptions{})
	if err != nil {
		panic(err)
	}
	for i := range back.X.Rows {
		fmt.Println(back.Labels[i], back.X.Row(i).Ind)
	}
	// A reader of one label per row refuses the file by name.
	_, err = hpc.ReadFile(path, sparse.ReadOptions{Name: "m.hpc"})
	fmt.Println(err != nil && strings.HasPrefix(err.Error(), "m.hpc: holds label lists"))
	// Output:
	// [3 1] [0 3]
	// [] [1]
	// [0] [2]
	// true
}
