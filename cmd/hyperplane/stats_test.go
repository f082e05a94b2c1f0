package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

// loadedStats computes what stats reported when it loaded the file whole:
// the reference the streaming pass must match.
func loadedStats(t *testing.T, path string) fileStats {
	t.Helper()
	d, err := sparse.ReadFile(path, sparse.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := fileStats{File: path, Rows: d.Len(), Cols: d.X.Cols, NNZ: d.X.NNZ(), Labels: map[string]int{}}
	for _, y := range d.Y {
		s.Labels[fmt.Sprint(y)]++
	}
	return s
}

var timing = regexp.MustCompile(`parsed in [0-9.]+ ms \([0-9]+ MB/s of file\)`)

// TestStatsMatchesLoad: the streaming stats print, as text and as JSON,
// the rows, columns, nonzeros and label counts that loading the file gave
// (labels 0 and -0 apart, float labels, qids, blank and comment lines, rows
// without features), for LIBSVM text, gzip and a cache file.
func TestStatsMatchesLoad(t *testing.T) {
	dir := t.TempDir()
	text := "# head\n1 qid:1 1:1 7:2\n-1 3:0.5\n\n0 2:1\n-0 9:1\n2.5\n1 1:1 40:3 # c\n-1 5:1\n1e300 2:2\n"
	plain := filepath.Join(dir, "d.svm")
	if err := os.WriteFile(plain, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write([]byte(text))
	zw.Close()
	gz := filepath.Join(dir, "d.svm.gz")
	if err := os.WriteFile(gz, zb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := sparse.ReadFile(plain, sparse.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, "d.hpc")
	if err := sparse.WriteFile(cache, d); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{plain, gz, cache} {
		want := loadedStats(t, path)
		if len(want.Labels) != 6 || want.Labels["-0"] != 1 || want.Labels["0"] != 1 {
			t.Fatalf("%s: reference labels %v", path, want.Labels)
		}
		code, out, errOut := runCmd("stats", "-json", path)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", path, code, errOut)
		}
		var got fileStats
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%s: %q: %v", path, out, err)
		}
		fi, _ := os.Stat(path)
		want.Bytes = fi.Size()
		if got.ParseSeconds <= 0 || got.MBPerSecond <= 0 || strings.Contains(out, "labels_more_than") {
			t.Errorf("%s: %s", path, out)
		}
		got.ParseSeconds, got.MBPerSecond = 0, 0
		if g, w := fmt.Sprintf("%+v", got), fmt.Sprintf("%+v", want); g != w {
			t.Errorf("%s: stats -json\n got %s\nwant %s", path, g, w)
		}

		// The text form, with the labels sorted as strings.
		keys := make([]string, 0, len(want.Labels))
		for k := range want.Labels {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		wantText := fmt.Sprintf("%s: %d rows, %d columns, %d nonzeros, TIME\n  labels:", path, want.Rows, want.Cols, want.NNZ)
		for _, k := range keys {
			wantText += fmt.Sprintf(" %s=%d", k, want.Labels[k])
		}
		wantText += "\n"
		code, out, errOut = runCmd("stats", path)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", path, code, errOut)
		}
		if got := timing.ReplaceAllString(out, "TIME"); got != wantText {
			t.Errorf("%s: stats\n got %q\nwant %q", path, got, wantText)
		}
	}
}

// TestStatsManyLabels: past maxStatsLabels distinct labels stats stops
// counting them (the map would grow with the file) and says so.
func TestStatsManyLabels(t *testing.T) {
	var b strings.Builder
	for i := range maxStatsLabels + 10 {
		fmt.Fprintf(&b, "%d.5 1:1\n", i)
	}
	path := filepath.Join(t.TempDir(), "reg.svm")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCmd("stats", path)
	if code != 0 || !strings.Contains(out, commas(maxStatsLabels+10)+" rows") ||
		!strings.HasSuffix(out, "  labels: more than "+commas(maxStatsLabels)+" distinct values\n") {
		t.Fatalf("exit %d, %q, %s", code, out, errOut)
	}
	code, out, _ = runCmd("stats", "-json", path)
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil {
		t.Fatalf("exit %d, %q: %v", code, out, err)
	}
	if got["labels"] != nil || got["labels_more_than"] != float64(maxStatsLabels) {
		t.Fatalf("-json: %s", out)
	}

	// Exactly maxStatsLabels distinct labels are all counted.
	b.Reset()
	for i := range maxStatsLabels {
		fmt.Fprintf(&b, "%d 1:1\n%d\n", i, i)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runCmd("stats", "-json", path)
	var s fileStats
	if err := json.Unmarshal([]byte(out), &s); code != 0 || err != nil || len(s.Labels) != maxStatsLabels || s.Labels["65535"] != 2 || s.LabelsOver != 0 {
		t.Fatalf("exit %d, %d labels, %v", code, len(s.Labels), err)
	}
}

// TestStatsStreams: stats holds one row at a time, so a file of many rows
// costs it no more memory than a file of a few (loaded whole, the million
// rows here took over 40 MB), and a line that never ends is an error
// naming the file and line, not a buffer as large as the line.
func TestStatsStreams(t *testing.T) {
	dir := t.TempDir()
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	row := []byte(strings.Repeat("1 1:1\n-1 2:1\n", 500))
	const rows = 1000000
	for range rows / 1000 {
		zw.Write(row)
	}
	zw.Close()
	path := filepath.Join(dir, "rows.svm.gz")
	if err := os.WriteFile(path, zb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	code, out, errOut := runCmd("stats", path)
	runtime.ReadMemStats(&m1)
	if code != 0 || !strings.Contains(out, "1,000,000 rows, 2 columns, 1,000,000 nonzeros") || !strings.Contains(out, "labels: -1=500,000 1=500,000") {
		t.Fatalf("exit %d, %q, %s", code, out, errOut)
	}
	if a := m1.TotalAlloc - m0.TotalAlloc; a > 8<<20 {
		t.Errorf("stats of %d rows allocated %d bytes", rows, a)
	}

	// A first line of 65 MiB, past the default MaxLineBytes: what a few
	// kilobytes of gzip can hold.
	zb.Reset()
	zw = gzip.NewWriter(&zb)
	zw.Write([]byte("1 1:1\n1 "))
	chunk := bytes.Repeat([]byte("a"), 1<<20)
	for range 65 {
		zw.Write(chunk)
	}
	zw.Close()
	long := filepath.Join(dir, "long.svm.gz")
	if err := os.WriteFile(long, zb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runCmd("stats", long)
	if want := fmt.Sprintf("%s:2:%d: line longer than", long, sparse.DefaultMaxLineBytes+1); code != 1 || !strings.Contains(errOut, want) {
		t.Fatalf("exit %d, stderr %q; want %q", code, errOut, want)
	}
}
