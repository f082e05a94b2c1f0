package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"time"

	"github.com/hyperplane-ml/hyperplane/internal/iox"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/hpc"
	"github.com/hyperplane-ml/hyperplane/sparse/libsvm"
)

func newStatsCmd() *Command {
	o := new(statsOptions)
	c := &Command{
		UsageLine: "stats FILE...",
		Short:     "parse LIBSVM/SVMlight files (gzip too) and describe them",
		Long: `Stats parses each file as LIBSVM/SVMlight (gzip is detected by its magic
bytes), or reads it as a cache file, and prints its rows, columns, nonzeros
and label counts, with the time the parse took. It streams the file a row
at a time, so it describes files of any number of rows in a few megabytes;
past ` + fmt.Sprint(maxStatsLabels) + ` distinct labels (a regression target) it reports only
that there are more. FILE - reads standard input (LIBSVM, gzip too, or a
cache).`,
		Run: o.run,
	}
	c.Flag.BoolVar(&o.json, "json", false, "print one JSON object per file")
	return c
}

// statsOptions holds stats's flags.
type statsOptions struct {
	json bool
}

// run describes each file of args in turn.
func (o *statsOptions) run(ctx context.Context, env *Env, args []string) error {
	if len(args) == 0 {
		return usageError("stats needs at least one file")
	}
	for _, path := range args {
		if err := stats(ctx, env, path, o.json); err != nil {
			return err
		}
	}
	return nil
}

// maxStatsLabels is the most distinct labels stats counts: beyond it the
// labels are a regression target, whose counts say nothing, and tracking
// them would let a file's distinct values grow the map without bound.
const maxStatsLabels = 1 << 16

type fileStats struct {
	File         string         `json:"file"`
	Bytes        int64          `json:"bytes"`
	Rows         int            `json:"rows"`
	Cols         int            `json:"cols"`
	NNZ          int64          `json:"nnz"`
	Labels       map[string]int `json:"labels"` // null past LabelsOver distinct labels
	LabelsOver   int            `json:"labels_more_than,omitempty"`
	ParseSeconds float64        `json:"parse_seconds"`
	MBPerSecond  float64        `json:"mb_per_second_of_file"`
}

// labelCounter counts rows by label (told apart by their bits, so that 0
// and -0 stay apart as fmt.Sprint writes them), up to maxStatsLabels
// distinct labels.
type labelCounter struct {
	counts map[uint64]int
	over   bool
	// Rows of one label often come in runs: cur counts the current run
	// without a map access per row.
	cur uint64
	run int
}

func (c *labelCounter) add(y float64) {
	b := math.Float64bits(y)
	if c.run > 0 && b == c.cur {
		c.run++
		return
	}
	c.flush()
	c.cur, c.run = b, 1
}

func (c *labelCounter) flush() {
	if c.run == 0 || c.over {
		c.run = 0
		return
	}
	if c.counts == nil {
		c.counts = map[uint64]int{}
	}
	if _, ok := c.counts[c.cur]; !ok && len(c.counts) == maxStatsLabels {
		c.over, c.counts = true, nil
	} else {
		c.counts[c.cur] += c.run
	}
	c.run = 0
}

// labels returns the counts by label as fmt.Sprint writes it, or nil past
// maxStatsLabels distinct labels.
func (c *labelCounter) labels() map[string]int {
	c.flush()
	if c.over {
		return nil
	}
	m := make(map[string]int, len(c.counts))
	for b, n := range c.counts {
		m[fmt.Sprint(math.Float64frombits(b))] = n
	}
	return m
}

func stats(ctx context.Context, env *Env, path string, asJSON bool) error {
	out := env.Stdout
	t0 := time.Now()
	s := fileStats{File: path}
	var lc labelCounter
	if path == "-" {
		if err := scanStdin(ctx, env, &s, &lc); err != nil {
			return err
		}
	} else {
		fi, err := os.Stat(path)
		if err != nil {
			return err
		}
		s.Bytes = fi.Size()
		if err := statsRefuses(path); err != nil {
			return err
		}
		if err := scanStats(ctx, path, &s, &lc); err != nil {
			return interrupted(ctx, err)
		}
	}
	s.Labels = lc.labels()
	if lc.over {
		s.LabelsOver = maxStatsLabels
	}
	el := time.Since(t0)
	s.ParseSeconds, s.MBPerSecond = el.Seconds(), float64(s.Bytes)/1e6/el.Seconds()
	if asJSON {
		return printJSON(out, s)
	}
	rate := "" // (standard input has no size to measure by)
	if s.Bytes > 0 {
		rate = fmt.Sprintf(" (%.0f MB/s of file)", s.MBPerSecond)
	}
	fmt.Fprintf(out, "%s: %s rows, %s columns, %s nonzeros, parsed in %.1f ms%s\n", path, commas(int64(s.Rows)), commas(int64(s.Cols)), commas(s.NNZ), 1e3*s.ParseSeconds, rate)
	fmt.Fprint(out, "  labels:")
	if lc.over {
		fmt.Fprintf(out, " more than %s distinct values", commas(maxStatsLabels))
	}
	keys := make([]string, 0, len(s.Labels))
	for k := range s.Labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(out, " %s=%s", k, commas(int64(s.Labels[k])))
	}
	fmt.Fprintln(out)
	return nil
}

// scanStats fills in s's rows, columns and nonzeros and counts the labels
// of the file at path, a LIBSVM file or a cache, one row at a time.
// scanStdin is scanStats for standard input ("-"): a cache, told by its
// magic, is read whole; LIBSVM (gzip too) a row at a time.
func scanStdin(ctx context.Context, env *Env, s *fileStats, lc *labelCounter) error {
	br := bufio.NewReaderSize(iox.Reader(ctx, env.Stdin), 1<<16)
	opt := sparse.ReadOptions{Name: "standard input"}
	if isCache(br) {
		d, err := hpc.Read(br, opt)
		if err != nil {
			return err
		}
		for _, y := range d.Y {
			lc.add(y)
		}
		s.Rows, s.Cols, s.NNZ = d.X.Rows, d.X.Cols, d.X.NNZ()
		return nil
	}
	return scanLIBSVM(br, opt, s, lc)
}

// scanLIBSVM counts the rows of LIBSVM text (gzip too) from r.
func scanLIBSVM(r io.Reader, opt sparse.ReadOptions, s *fileStats, lc *labelCounter) error {
	sc := libsvm.NewScanner(r, opt)
	for sc.Scan() {
		y, x := sc.Row()
		lc.add(y)
		s.Rows++
		s.NNZ += int64(len(x.Ind))
		s.Cols = max(s.Cols, x.Dim)
	}
	return sc.Err()
}

// statsRefuses says what to run instead when path holds what stats does
// not describe: a model (inspect), labelled raw text or a CSV table
// (train -cv reads them). nil for anything else, which stats parses.
func statsRefuses(path string) error {
	switch {
	case isTextModel(path):
		return fmt.Errorf("%s is a text model, not data: 'hyperplane inspect %s' describes it", path, path)
	case csvNamed(path):
		return fmt.Errorf("%s is a CSV table: stats describes LIBSVM and cache files; train, eval and convert read it as it is", path)
	case fileIsText(path):
		return fmt.Errorf("%s is labelled raw text: stats describes LIBSVM and cache files; train reads it as it is ('hyperplane train -cv 5 %s')", path, path)
	}
	return nil
}

func scanStats(ctx context.Context, path string, s *fileStats, lc *labelCounter) error {
	format, err := sparse.SniffFile(path)
	if err != nil {
		return err
	}
	if format == hpc.Name {
		c, err := hpc.Open(path, hpc.Options{})
		if err != nil {
			return err
		}
		defer c.Close()
		sc := c.Scanner()
		defer sc.Close()
		for sc.Scan() {
			y, _ := sc.Row()
			lc.add(y)
		}
		if err := sc.Err(); err != nil {
			return err
		}
		s.Rows, s.Cols, s.NNZ = int(c.Rows()), c.Cols(), c.NNZ()
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	// Through ctx, so that a signal stops the scan at its next buffer.
	return scanLIBSVM(iox.Reader(ctx, f), sparse.ReadOptions{Name: path}, s, lc)
}
