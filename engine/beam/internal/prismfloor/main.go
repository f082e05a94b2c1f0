// Command prismfloor times Prism running the shape of Train's unrolled
// epochs with DoFns that do nothing but the combine: per epoch a fan-out
// of one task per shard, a Reshuffle, a ParDo per task, the trainer's own
// Combine of the parts (package gather) and one mixing ParDo, as
// engine/beam's epochs builds them. What it reports is the runner's own
// cost of an epoch, the floor under Train's on Prism:
//
//	go run ./internal/prismfloor -shards 4 -epochs 10 -runs 3
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"os"
	"reflect"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	"github.com/hyperplane-ml/hyperplane/engine/beam/internal/gather"
)

type ref struct{ Epoch int }
type task struct{ Epoch, Index int }
type part = gather.Part

// fanFn emits a task per shard, as Train's fan-out does.
type fanFn struct{ Shards int }

func (f *fanFn) ProcessElement(r ref, emit func(task)) {
	for i := range f.Shards {
		emit(task{Epoch: r.Epoch, Index: i})
	}
}

// learnFn stands for a shard's epoch, and does nothing.
type learnFn struct{}

func (learnFn) ProcessElement(t task) part { return part{Index: t.Index} }

// mixFn stands for the mixing step, and passes the epoch on.
type mixFn struct{ Epoch int }

func (f *mixFn) ProcessElement(gather.Gathered) ref { return ref{Epoch: f.Epoch + 1} }

func init() {
	for _, v := range []any{ref{}, task{}, part{}, gather.Gathered{}, fanFn{}, learnFn{}, gather.Fn{}, mixFn{}} {
		beam.RegisterType(reflect.TypeOf(v))
	}
}

func main() {
	shards := flag.Int("shards", 4, "tasks an epoch")
	epochs := flag.Int("epochs", 10, "epochs in the one job")
	runs := flag.Int("runs", 3, "jobs to time")
	flag.Parse()
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	beam.Init()
	for range *runs {
		p, s := beam.NewPipelineWithRoot()
		start := beam.Create(s, ref{})
		for e := range *epochs {
			es := s.Scope(fmt.Sprintf("epoch%d", e+1))
			tasks := beam.Reshuffle(es, beam.ParDo(es, &fanFn{Shards: *shards}, start))
			all := beam.Combine(es, gather.Fn{}, beam.ParDo(es, learnFn{}, tasks))
			start = beam.ParDo(es, &mixFn{Epoch: e}, all)
		}
		t0 := time.Now()
		if _, err := beam.Run(context.Background(), "prism", p); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%d shards, %d epochs in one job: %.3f s an epoch, the job's start included\n", *shards, *epochs, time.Since(t0).Seconds()/float64(*epochs))
	}
}
