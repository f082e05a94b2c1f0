package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"time"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

var statsCmd = &command{
	name:  "stats",
	args:  "FILE...",
	short: "parse LIBSVM/SVMlight files (gzip too) and describe them",
	long: `Stats parses each file as LIBSVM/SVMlight (gzip is detected by its magic
bytes) and prints its rows, columns, nonzeros and label counts, with the
time the parse took.`,
	flags: func(fs *flag.FlagSet) func([]string, io.Writer) error {
		asJSON := fs.Bool("json", false, "print one JSON object per file")
		workers := fs.Int("workers", 0, "parsing goroutines (0: one per core)")
		return func(args []string, out io.Writer) error {
			if len(args) == 0 {
				return fmt.Errorf("%w: stats needs at least one file", errUsage)
			}
			for _, path := range args {
				if err := stats(out, path, *workers, *asJSON); err != nil {
					return err
				}
			}
			return nil
		}
	},
}

type fileStats struct {
	File         string         `json:"file"`
	Bytes        int64          `json:"bytes"`
	Rows         int            `json:"rows"`
	Cols         int            `json:"cols"`
	NNZ          int64          `json:"nnz"`
	Labels       map[string]int `json:"labels"`
	ParseSeconds float64        `json:"parse_seconds"`
	MBPerSecond  float64        `json:"mb_per_second_of_file"`
}

func stats(out io.Writer, path string, workers int, asJSON bool) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	t0 := time.Now()
	d, err := sparse.ReadFile(path, sparse.ReadOptions{Workers: workers})
	if err != nil {
		return err
	}
	el := time.Since(t0)
	s := fileStats{File: path, Bytes: fi.Size(), Rows: d.Len(), Cols: d.X.Cols, NNZ: d.X.NNZ(),
		Labels: map[string]int{}, ParseSeconds: el.Seconds(), MBPerSecond: float64(fi.Size()) / 1e6 / el.Seconds()}
	for _, y := range d.Y {
		s.Labels[fmt.Sprint(y)]++
	}
	if asJSON {
		return json.NewEncoder(out).Encode(s)
	}
	keys := make([]string, 0, len(s.Labels))
	for k := range s.Labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Fprintf(out, "%s: %d rows, %d columns, %d nonzeros, parsed in %.1f ms (%.0f MB/s of file)\n", path, s.Rows, s.Cols, s.NNZ, 1e3*s.ParseSeconds, s.MBPerSecond)
	fmt.Fprint(out, "  labels:")
	for _, k := range keys {
		fmt.Fprintf(out, " %s=%d", k, s.Labels[k])
	}
	fmt.Fprintln(out)
	return nil
}
