package main

import (
	"context"
	"os"
	"runtime/pprof"

	"github.com/hyperplane-ml/hyperplane/engine/textmodel"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

func main() {
	f, _ := os.Open(os.Args[1])
	c, err := text.Read(f, text.ReadOptions{MultiLabel: true})
	if err != nil {
		panic(err)
	}
	pf, _ := os.Create("/tmp/ml.prof")
	pprof.StartCPUProfile(pf)
	for range 3 {
		if _, err := textmodel.FitMultiLabelCorpus(context.Background(), c, textmodel.MultiLabelConfig{}); err != nil {
			panic(err)
		}
	}
	pprof.StopCPUProfile()
}
