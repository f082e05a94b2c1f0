package main

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"github.com/hyperplane-ml/hyperplane/asm"
	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/engine/metrics"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/libsvm"
)

// subjectivity is the embedded demo data set (see data/README.md).
//
//go:embed data/subjectivity.svm.gz
var subjectivity []byte

func newDemoCmd() *Command {
	o := new(demoOptions)
	c := &Command{
		UsageLine: "demo",
		Short:     "train and evaluate a perceptron on the embedded demo data",
		Long: `Demo parses the embedded Subjectivity data set (10,000 sentences, 20,913
word-count features, Pang & Lee 2004), holds out a random 20% for testing,
trains an averaged perceptron on the rest and prints the test accuracy and
the training throughput. It needs no download.`,
		Run: o.run,
	}
	fs := &c.Flag
	fs.IntVar(&o.epochs, "epochs", 10, "passes over the training rows")
	fs.BoolVar(&o.plain, "plain", false, "keep the last weights instead of averaging")
	fs.Uint64Var(&o.seed, "seed", 1, "seed for the split and the shuffling")
	fs.Float64Var(&o.holdout, "test", 0.2, "fraction of rows held out for testing")
	fs.BoolVar(&o.json, "json", false, "print the result as JSON")
	return c
}

// demoOptions holds demo's flags.
type demoOptions struct {
	epochs  int
	plain   bool
	seed    uint64
	holdout float64 // -test, the fraction of rows held out
	json    bool
}

// run checks the flags and runs the demo.
func (o *demoOptions) run(ctx context.Context, env *Env, args []string) error {
	if len(args) > 0 {
		return usageError("demo takes no arguments")
	}
	if o.epochs < 1 || o.holdout <= 0 || o.holdout >= 1 {
		return usageError("need -epochs ≥ 1 and 0 < -test < 1")
	}
	return demo(ctx, env.Stdout, o.epochs, o.plain, o.seed, o.holdout, o.json)
}

type demoResult struct {
	Data         string  `json:"data"`
	Tier         string  `json:"tier"`
	TrainRows    int     `json:"train_rows"`
	TestRows     int     `json:"test_rows"`
	Features     int     `json:"features"`
	TrainNNZ     int64   `json:"train_nnz"`
	Epochs       int     `json:"epochs"`
	Averaged     bool    `json:"averaged"`
	ParseSeconds float64 `json:"parse_seconds"`
	TrainSeconds float64 `json:"train_seconds"`
	NsPerNNZ     float64 `json:"ns_per_nonzero"`
	TrainAcc     float64 `json:"train_accuracy"`
	TestAcc      float64 `json:"test_accuracy"`
}

func demo(ctx context.Context, out io.Writer, epochs int, plain bool, seed uint64, holdout float64, asJSON bool) error {
	t0 := time.Now()
	d, err := libsvm.Read(bytes.NewReader(subjectivity), sparse.ReadOptions{Name: "subjectivity.svm.gz"})
	if err != nil {
		return err
	}
	parse := time.Since(t0)

	perm := rand.New(rand.NewPCG(seed, 2)).Perm(d.Len())
	nTest := int(float64(d.Len()) * holdout)
	if nTest == 0 || nTest == d.Len() {
		return usageError("-test %g leaves no rows to test or to train on (of %d)", holdout, d.Len())
	}
	testIdx, trainIdx := perm[:nTest], perm[nTest:]
	Xtr, Xte := d.X.SelectRows(trainIdx), d.X.SelectRows(testIdx)
	ytr, yte := pick(d.Y, trainIdx), pick(d.Y, testIdx)

	t1 := time.Now()
	cfg := engine.Config{Epochs: epochs, Seed: seed}
	if plain {
		cfg.Algorithm = engine.Plain
	}
	m, stats, err := engine.Fit(ctx, Xtr, ytr, cfg)
	if err != nil {
		return err
	}
	train := time.Since(t1)
	ran := len(stats)
	r := demoResult{
		Data: "Subjectivity v1.0 (Pang & Lee 2004), embedded", Tier: asm.Active().String(),
		TrainRows: Xtr.Rows, TestRows: Xte.Rows, Features: d.X.Cols, TrainNNZ: Xtr.NNZ(),
		Epochs: ran, Averaged: !plain, ParseSeconds: parse.Seconds(), TrainSeconds: train.Seconds(),
		NsPerNNZ: float64(train.Nanoseconds()) / float64(Xtr.NNZ()*int64(ran)),
		TrainAcc: accuracy(m, Xtr, ytr), TestAcc: accuracy(m, Xte, yte),
	}
	if asJSON {
		return printJSON(out, r)
	}
	kind := "averaged"
	if plain {
		kind = "plain"
	}
	fmt.Fprintf(out, "data:     %s\n", r.Data)
	fmt.Fprintf(out, "          %s train / %s test rows, %s features, %s train nonzeros\n", commas(int64(r.TrainRows)), commas(int64(r.TestRows)), commas(int64(r.Features)), commas(r.TrainNNZ))
	fmt.Fprintf(out, "parse:    %.1f ms (gzip + LIBSVM, %s rows)\n", 1e3*r.ParseSeconds, commas(int64(d.Len())))
	fmt.Fprintf(out, "train:    %s perceptron, %d epochs, %.1f ms, %.2f ns per nonzero (SIMD tier %s)\n", kind, r.Epochs, 1e3*r.TrainSeconds, r.NsPerNNZ, r.Tier)
	fmt.Fprintf(out, "accuracy: train %.4f, test %.4f\n", r.TrainAcc, r.TestAcc)
	return nil
}

func pick(y []float64, idx []int) []float64 {
	out := make([]float64, len(idx))
	for i, j := range idx {
		out[i] = y[j]
	}
	return out
}

// accuracy returns the fraction of rows of X that m labels as y does.
func accuracy(m *engine.Model, X *sparse.CSR, y []float64) float64 {
	a, err := metrics.Accuracy(y, m.PredictBatch(X, nil))
	if err != nil {
		return 0
	}
	return a
}
