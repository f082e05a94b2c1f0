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

// A data set written to a name ending in ".hpc" is an HPSC file; ReadFile
// tells the formats apart by their first bytes.
func Example() {
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)

	d, err := libsvm.Read(strings.NewReader("+1 1:0.5 3:2\n-1 2:1\n0\n"), sparse.ReadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	path := filepath.Join(dir, "train.hpc")
	if err := sparse.WriteFile(path, d); err != nil {
		fmt.Println(err)
		return
	}
	// sparse.ReadFile accepts an HPSC or a LIBSVM file alike.
	back, err := sparse.ReadFile(path, sparse.ReadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := range back.X.Rows {
		v := back.X.Row(i)
		fmt.Println(back.Y[i], v.Ind, v.Val)
	}
	// Output:
	// 1 [0 2] [0.5 2]
	// -1 [1] [1]
	// 0 [] []
}

func ExampleOpen() {
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)

	// Convert a LIBSVM file row by row, in bounded memory.
	src := filepath.Join(dir, "train.svm")
	text := "1 1:1 2:1\n-1 2:3\n1 3:0.5\n2 1:2 3:1\n"
	if err := os.WriteFile(src, []byte(text), 0o644); err != nil {
		fmt.Println(err)
		return
	}
	path := filepath.Join(dir, "train.hpc")
	if err := hpc.ConvertLIBSVMFile(path, src, sparse.ReadOptions{}, hpc.WriterOptions{}); err != nil {
		fmt.Println(err)
		return
	}

	c, err := hpc.Open(path, hpc.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	fmt.Println(c.Rows(), "rows,", c.Cols(), "cols,", c.NNZ(), "nonzeros in", c.NumBlocks(), "block; labels", c.Labels())

	// Stream the rows (the next block is read ahead on another goroutine).
	w := []float32{0.5, -0.25, 1}
	sc := c.Scanner()
	defer sc.Close()
	for sc.Scan() {
		y, x := sc.Row()
		fmt.Println(y, x.Dot(w))
	}
	if err := sc.Err(); err != nil {
		fmt.Println(err)
	}

	// Or visit blocks in any order.
	var blk hpc.Block
	if err := c.ReadBlock(0, &blk); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("block 0:", blk.X.Rows, "rows from row", blk.Start)
	// Output:
	// 4 rows, 3 cols, 6 nonzeros in 1 block; labels [-1 1 2]
	// 1 0.25
	// -1 -0.75
	// 1 0.5
	// 2 2
	// block 0: 4 rows from row 0
}
