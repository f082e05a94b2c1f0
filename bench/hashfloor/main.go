// Command hashfloor measures how much slower an epoch of hyperplane train
// is on hashed text than on the vocabulary of the same text, on the rows
// the learner sees, so that C references can train on exactly those rows
// (bench/hashed_floor.sh runs it).
//
//	hashfloor rows -o DIR TRAIN.jsonl.gz
//
// featurizes TRAIN as train does by default (word 1- and 2-grams, log
// term frequency, idf, unit rows; a vocabulary of the terms in two
// documents or more, or with hashing 2^20 buckets), keeps the rows train
// learns from (all but those it holds out for calibration) and writes them
// as LIBSVM files (1-based indices, labels as train's classes) into DIR:
//
//	vocab.svm      the vocabulary's rows
//	hashed.svm     the hashed rows, by bucket (what train hands to engine.Fit)
//	hashed_rn.svm  the hashed rows with the used buckets renumbered as Fit
//	               renumbers a wide feature space (by the number of rows
//	               that hold them, most first, ties in order of first use),
//	               each row's values in their order, as Fit trains on them
//
// and prints each set's rows, nonzeros and distinct features, next to the
// nonzeros of all the documents, the figure train -json reports.
//
//	hashfloor fit [-r REPS] [-e EPOCHS] [-cpuprofile FILE] FILE.svm
//
// fits FILE with train's default learner (averaged PA-II, rows normalized,
// the same seed) REPS times and prints, as median [min-max] over the fits,
// a fit's time per epoch and per nonzero, the time to the end of its
// first epoch (with what Fit does before it), the mean and the median of
// epochs 2..E, and the mistakes of each epoch (which must equal those
// train -json reports when FILE holds train's rows).
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"time"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/engine/textmodel"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "rows":
		err = rowsCmd(os.Args[2:])
	case "fit":
		err = fitCmd(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "hashfloor:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: hashfloor rows -o DIR TRAIN.jsonl.gz | hashfloor fit [-r REPS] [-e EPOCHS] FILE.svm")
	os.Exit(2)
}

// learner is train's default learner with its default settings.
func learner(epochs int) engine.Config {
	return engine.Config{Algorithm: engine.Averaged, Rule: engine.PA2, Normalize: true, Epochs: epochs,
		Bias: engine.BiasSeparate, BiasScale: 1, Patience: 5, Workers: 1}
}

// featurizers are train's text defaults (cmd/hyperplane trainTextDefaults)
// in its two modes, with the settings train's flags apply to each.
var featurizers = []struct {
	name string
	cfg  text.Config
}{
	{"vocab", text.Config{NGrams: 2, TF: text.Log, IDF: true, Vocabulary: true, MinDF: 2}},
	{"hashed", text.Config{NGrams: 2, TF: text.Log, IDF: true, Bits: text.DefaultBits}},
}

func rowsCmd(args []string) error {
	fs := flag.NewFlagSet("rows", flag.ExitOnError)
	dir := fs.String("o", ".", "folder for the LIBSVM files")
	fs.Parse(args)
	if fs.NArg() != 1 {
		usage()
	}
	path := fs.Arg(0)
	opt := text.ReadOptions{LabelField: "label", TextField: "text", Name: path}
	for _, f := range featurizers {
		_, d, err := text.FitFileContext(context.Background(), path, opt, f.cfg)
		if err != nil {
			return err
		}
		kept, _, err := textmodel.HeldOut(d.Y, textmodel.Config{Learner: learner(0)})
		if err != nil {
			return err
		}
		X, y := d.X.SelectRows(kept), make([]float64, len(kept))
		for i, r := range kept {
			y[i] = d.Y[r]
		}
		out := filepath.Join(*dir, f.name+".svm")
		if err := writeSVM(out, X, y); err != nil {
			return err
		}
		fmt.Printf("%s: all %d documents: %d nonzeros, %d columns; trained rows %d: %d nonzeros, %d distinct features\n",
			out, d.X.Rows, d.X.NNZ(), d.X.Cols, X.Rows, X.NNZ(), distinct(X))
		if f.cfg.Vocabulary {
			continue
		}
		rn := renumber(X)
		out = filepath.Join(*dir, f.name+"_rn.svm")
		if err := writeSVM(out, rn, y); err != nil {
			return err
		}
		fmt.Printf("%s: renumbered to %d columns\n", out, rn.Cols)
	}
	return nil
}

// distinct counts the columns X's rows use.
func distinct(X *sparse.CSR) int {
	seen := make([]bool, X.Cols)
	n := 0
	for _, j := range X.Ind[:X.NNZ()] {
		if !seen[j] {
			seen[j] = true
			n++
		}
	}
	return n
}

// renumber numbers X's used columns as engine.Fit does for a wide
// feature space: by the number of values in each column (one per row that
// holds it), most first, equal counts in the order the rows first use
// them. The rows keep their values in their order, so their indices are
// no longer increasing.
func renumber(X *sparse.CSR) *sparse.CSR {
	ind := X.Ind[:X.NNZ()]
	count := make([]int32, X.Cols)
	var first []int32
	for _, j := range ind {
		if count[j] == 0 {
			first = append(first, j)
		}
		count[j]++
	}
	order := slices.Clone(first)
	slices.SortStableFunc(order, func(a, b int32) int { return int(count[b] - count[a]) })
	newID := make([]int32, X.Cols)
	for p, j := range order {
		newID[j] = int32(p)
	}
	out := &sparse.CSR{Rows: X.Rows, Cols: len(order), Indptr: X.Indptr, Ind: make([]int32, len(ind)), Val: X.Val}
	for p, j := range ind {
		out.Ind[p] = newID[j]
	}
	return out
}

// writeSVM writes X's rows with labels y as LIBSVM, 1-based, each value
// in the fewest digits that read back as the same float32.
func writeSVM(path string, X *sparse.CSR, y []float64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var b []byte
	for i := range X.Rows {
		b = strconv.AppendFloat(b[:0], y[i], 'g', -1, 64)
		for p := X.Indptr[i]; p < X.Indptr[i+1]; p++ {
			b = append(b, ' ')
			b = strconv.AppendInt(b, int64(X.Ind[p])+1, 10)
			b = append(b, ':')
			b = strconv.AppendFloat(b, float64(X.Val[p]), 'g', -1, 32)
		}
		b = append(b, '\n')
		w.Write(b)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func fitCmd(args []string) error {
	fs := flag.NewFlagSet("fit", flag.ExitOnError)
	reps := fs.Int("r", 3, "fits")
	epochs := fs.Int("e", 10, "epochs per fit")
	profile := fs.String("cpuprofile", "", "write a CPU profile of the fits to this file")
	fs.Parse(args)
	if fs.NArg() != 1 || *reps < 1 || *epochs < 2 {
		usage()
	}
	d, err := sparse.ReadFile(fs.Arg(0), sparse.ReadOptions{})
	if err != nil {
		return err
	}
	nnz := float64(d.X.NNZ())
	if *profile != "" {
		f, err := os.Create(*profile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	var fit, first, mean2, med2 []float64
	var mistakes []int
	for range *reps {
		cfg := learner(*epochs)
		var ends []time.Time
		mistakes = mistakes[:0]
		cfg.OnEpoch = func(s engine.EpochStats) error {
			ends = append(ends, time.Now())
			mistakes = append(mistakes, s.Mistakes)
			return nil
		}
		t0 := time.Now()
		if _, _, err := engine.Fit(context.Background(), d.X, d.Y, cfg); err != nil {
			return err
		}
		total := time.Since(t0)
		var ep []float64
		for e := 1; e < len(ends); e++ {
			ep = append(ep, ends[e].Sub(ends[e-1]).Seconds()*1e3)
		}
		fit = append(fit, total.Seconds()*1e3/float64(*epochs))
		first = append(first, ends[0].Sub(t0).Seconds()*1e3)
		mean2 = append(mean2, ends[len(ends)-1].Sub(ends[0]).Seconds()*1e3/float64(len(ep)))
		med2 = append(med2, median(ep))
	}
	fmt.Printf("rows=%d dim=%d nnz=%d\n", d.X.Rows, d.X.Cols, d.X.NNZ())
	fmt.Printf("hp.epoch_ms %s\n", summary(fit, 1))
	fmt.Printf("hp.first_ms %s\n", summary(first, 1))
	fmt.Printf("hp.epoch2_ms %s\n", summary(mean2, 1))
	fmt.Printf("hp.epoch2med_ms %s\n", summary(med2, 1))
	fmt.Printf("hp.ns_per_nonzero %s\n", summary(fit, 1e6/nnz))
	fmt.Printf("hp.epoch2med_ns_per_nonzero %s\n", summary(med2, 1e6/nnz))
	fmt.Printf("hp.mistakes %v\n", mistakes)
	return nil
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// summary prints v scaled by k as median [min-max].
func summary(v []float64, k float64) string {
	return fmt.Sprintf("%.4g [%.4g-%.4g]", median(v)*k, slices.Min(v)*k, slices.Max(v)*k)
}
