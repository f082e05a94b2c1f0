// Command measure takes the figures of the Beam pipeline on imdb: test
// accuracy against Fit with the same workers and with one, the time of an
// epoch on Prism (one job, and one job per epoch) against an epoch in
// memory, and, at the hashed widths and shard counts asked for, the
// bytes an epoch reads and writes (as Train's figures count them), the
// features the shards hold and the state lists, and the time of the
// slowest shard and of the mixing step. The README's cost model comes
// from
//
//	go run ./internal/measure -data ../../../shared/data/text/imdb -skip-accuracy -byte-epochs 10 -bits 20,24 -shards 2,4,8,16
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/hyperplane-ml/hyperplane/engine"
	hpbeam "github.com/hyperplane-ml/hyperplane/engine/beam"
	"github.com/hyperplane-ml/hyperplane/engine/metrics"
	"github.com/hyperplane-ml/hyperplane/sparse"
	_ "github.com/hyperplane-ml/hyperplane/sparse/hpc"
	_ "github.com/hyperplane-ml/hyperplane/sparse/libsvm"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

func main() {
	data := flag.String("data", "../../../shared/data/text/imdb", "the imdb `dir`")
	epochs := flag.Int("epochs", 10, "epochs of the accuracy runs")
	byteEpochs := flag.Int("byte-epochs", 2, "epochs of the runs that count bytes")
	skipAcc := flag.Bool("skip-accuracy", false, "only count bytes")
	skipBytes := flag.Bool("skip-bytes", false, "only measure accuracy and time")
	bitsList := flag.String("bits", "20,24", "hashed widths of the byte runs, as `bits,...`")
	shardList := flag.String("shards", "4,8", "shard counts of the byte runs, as `n,...`")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the run to `file`")
	flag.Parse()
	beam.Init()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		check(err)
		check(pprof.StartCPUProfile(f))
		defer pprof.StopCPUProfile()
	}
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "hyperplane-measure-")
	check(err)
	defer os.RemoveAll(tmp)
	cfg := engine.Config{Algorithm: engine.Averaged, Rule: engine.PA2, Normalize: true, Epochs: *epochs}

	if !*skipAcc {
		accuracy(ctx, *data, tmp, cfg)
	}
	if !*skipBytes {
		c := cfg
		c.Epochs = *byteEpochs
		for _, bits := range ints(*bitsList) {
			byteRuns(ctx, *data, tmp, c, bits, ints(*shardList))
		}
	}
}

// accuracy prints the test accuracy and time per epoch of Fit with one
// worker, and of Fit with P workers and Train on P shards, one job and a
// job per epoch, for P of 4 and 8.
func accuracy(ctx context.Context, data, tmp string, cfg engine.Config) {
	train, err := sparse.ReadFile(filepath.Join(data, "imdb.train.svm.gz"), sparse.ReadOptions{})
	check(err)
	test, err := sparse.ReadFile(filepath.Join(data, "imdb.test.svm.gz"), sparse.ReadOptions{})
	check(err)
	t0 := time.Now()
	one, _, err := engine.Fit(ctx, train.X, train.Y, cfg)
	check(err)
	fmt.Printf("imdb Fit, 1 worker: accuracy %.4f, %.3f s/epoch\n", acc(one, test), time.Since(t0).Seconds()/float64(cfg.Epochs))
	for _, P := range []int{4, 8} {
		glob := shards(train, P, filepath.Join(tmp, fmt.Sprint("imdb", P)))
		c := cfg
		c.Workers = P
		t0 := time.Now()
		fit, _, err := engine.Fit(ctx, train.X, train.Y, c)
		check(err)
		fitT := time.Since(t0).Seconds() / float64(cfg.Epochs)
		for _, per := range []bool{false, true} {
			t0 = time.Now()
			m, figs, err := hpbeam.Train(ctx, hpbeam.Options{Shards: []string{glob}, Workdir: filepath.Join(tmp, "work"), Config: cfg, PerEpochJobs: per})
			check(err)
			what := "one job"
			if per {
				what = "a job per epoch"
			}
			fmt.Printf("imdb %d shards, Prism, %s: accuracy %.4f (Fit with %d workers %.4f, %.3f s/epoch), %.3f s/epoch over %d epochs\n",
				P, what, acc(m, test), P, acc(fit, test), fitT, time.Since(t0).Seconds()/float64(len(figs)), len(figs))
		}
	}
}

// byteRuns prints, for imdb hashed to 2^bits features and every shard
// count P of shardCounts, the mean bytes of Train's epochs 2 to the last
// (of c.Epochs) and of all of them, and the time of its epochs against
// Fit's epochs in memory.
func byteRuns(ctx context.Context, data, tmp string, c engine.Config, bits int, shardCounts []int) {
	_, train, err := text.FitFile(filepath.Join(data, "imdb.train.jsonl.gz"), text.ReadOptions{},
		text.Config{NGrams: 2, TF: text.Log, IDF: true, Bits: bits})
	check(err)
	t0 := time.Now()
	_, _, err = engine.Fit(ctx, train.X, train.Y, c)
	check(err)
	memT := time.Since(t0).Seconds() / float64(c.Epochs)
	for _, P := range shardCounts {
		glob := shards(train, P, filepath.Join(tmp, fmt.Sprint("text", bits, "-", P)))
		cw := c
		cw.Workers = P
		t0, c0 := time.Now(), cpuSeconds()
		_, _, err = engine.Fit(ctx, train.X, train.Y, cw)
		check(err)
		memP := time.Since(t0).Seconds() / float64(c.Epochs)
		memCPU := (cpuSeconds() - c0) / float64(c.Epochs)
		t0, c0 = time.Now(), cpuSeconds()
		_, figs, err := hpbeam.Train(ctx, hpbeam.Options{Shards: []string{glob}, Workdir: filepath.Join(tmp, fmt.Sprint("work", bits, "-", P)), Config: c})
		check(err)
		per := time.Since(t0).Seconds() / float64(len(figs))
		perCPU := (cpuSeconds() - c0) / float64(len(figs))
		// The mean of epochs 2 to the last: the first reads the zero
		// weights of every feature and renumbers the shards, and the
		// state is written as a file every few epochs and after the last.
		f := meanEpoch(figs[min(1, len(figs)-1):])
		// The shards read their weights; the mixing step reads the
		// deltas and the state and writes the state and the next
		// weights. All of it counted as it went through the files
		// (the deltas as the bytes the shards emitted).
		read := f.WeightsBytes + f.DeltaBytes + f.StateBytes + f.FeaturesBytes
		written := f.DeltaBytes + f.StateWritten + f.WeightsWritten
		dense := int64(train.X.Cols) * 4
		// Binary averaged: a shard's weights file holds 4 bytes a
		// feature (the values; the shard keeps its features' list), the
		// state 16, each after a header of 72. The state
		// the epoch started from is the one the epoch before wrote (the
		// mixing step may have taken it from memory).
		var shardS, mixS float64
		for _, f := range figs {
			shardS += f.ShardSeconds / float64(len(figs))
			mixS += f.MixSeconds / float64(len(figs))
		}
		fmt.Printf("  rows %d, nonzeros %d; features the shards hold, summed %.2fM; in the state %.2fM; mean of epochs: slowest shard %.3f s, mixing step %.3f s\n",
			train.X.Rows, train.X.NNZ(), float64(f.WeightsBytes-int64(P)*72)/4/1e6, float64(figs[len(figs)-1].StateWritten-72)/16/1e6, shardS, mixS)
		fmt.Printf("2^%d features (%d wide), %d shards, mean of epochs 2 to %d: weights read %s, state %s, deltas %s (%.1f%% of %d dense weights); per epoch read %s (%.2f× deltas), written %s (%.2f× deltas); %.3f s/epoch on Prism, in memory %.3f s with %d workers (%.2f×), %.3f s with one; CPU %.2f s/epoch on Prism, %.2f s in memory with %d workers\n",
			bits, train.X.Cols, P, len(figs), mib(f.WeightsBytes), mib(f.StateBytes), mib(f.DeltaBytes),
			100*float64(f.DeltaBytes)/float64(int64(P)*dense), P, mib(read), float64(read)/float64(f.DeltaBytes),
			mib(written), float64(written)/float64(f.DeltaBytes), per, memP, P, per/memP, memT, perCPU, memCPU, P)
		a := meanEpoch(figs)
		aRead, aWritten := a.WeightsBytes+a.DeltaBytes+a.StateBytes+a.FeaturesBytes, a.DeltaBytes+a.StateWritten+a.WeightsWritten
		fmt.Printf("  mean of all %d epochs: read %s, written %s, %.2f× deltas of %s\n",
			len(figs), mib(aRead), mib(aWritten), float64(aRead+aWritten)/float64(a.DeltaBytes), mib(a.DeltaBytes))
	}
}

// meanEpoch returns the mean of the byte counts of figs.
func meanEpoch(figs []hpbeam.Epoch) hpbeam.Epoch {
	var m hpbeam.Epoch
	for _, f := range figs {
		m.WeightsBytes += f.WeightsBytes
		m.DeltaBytes += f.DeltaBytes
		m.StateBytes += f.StateBytes
		m.FeaturesBytes += f.FeaturesBytes
		m.StateWritten += f.StateWritten
		m.WeightsWritten += f.WeightsWritten
	}
	n := int64(max(len(figs), 1))
	m.WeightsBytes /= n
	m.DeltaBytes /= n
	m.StateBytes /= n
	m.FeaturesBytes /= n
	m.StateWritten /= n
	m.WeightsWritten /= n
	return m
}

// ints parses a comma-separated list of integers.
func ints(s string) []int {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		check(err)
		out = append(out, n)
	}
	return out
}

// cpuSeconds returns the CPU time (user and system) the process has used:
// on a machine shared with other work, a steadier figure than the wall
// clock (Prism runs in the process, so it counts the whole pipeline).
func cpuSeconds() float64 {
	var u syscall.Rusage
	check(syscall.Getrusage(syscall.RUSAGE_SELF, &u))
	return time.Duration(u.Utime.Nano() + u.Stime.Nano()).Seconds()
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

func acc(m *engine.Model, d *sparse.Dataset) float64 {
	a, err := metrics.Accuracy(d.Y, m.PredictBatch(d.X, nil))
	check(err)
	return a
}

// shards deals d's rows, shuffled, into P cache files of contiguous runs.
func shards(d *sparse.Dataset, P int, dir string) string {
	check(os.MkdirAll(dir, 0o755))
	order := rand.New(rand.NewPCG(1, 2)).Perm(d.Len())
	for s := range P {
		rows := order[s*len(order)/P : (s+1)*len(order)/P]
		b := sparse.NewBuilder(d.X.Cols)
		y := make([]float64, len(rows))
		for p, i := range rows {
			x := d.X.Row(i)
			check(b.Add(x.Ind, x.Val))
			y[p] = d.Y[i]
		}
		check(sparse.WriteFile(filepath.Join(dir, fmt.Sprintf("shard-%03d.hpc", s)), &sparse.Dataset{X: b.Build(), Y: y}))
	}
	return filepath.Join(dir, "shard-*.hpc")
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
