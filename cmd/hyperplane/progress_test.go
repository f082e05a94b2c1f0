package main

import (
	"context"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeProgressClock makes meters show every step on a clock that moves
// a second at each reading, and puts the real ones back after the test.
func fakeProgressClock(t *testing.T) {
	every, clock := progressEvery, progressClock
	t.Cleanup(func() { progressEvery, progressClock = every, clock })
	at := time.Unix(0, 0)
	progressEvery = 0
	progressClock = func() time.Time { at = at.Add(time.Second); return at }
}

// TestProgress: with -progress, convert, train, eval and predict show reading progress (and
// train -cv its folds' epochs)
// (bytes, rate, percentage and ETA of a file) and gen its writing on
// standard error; without
// it, on a standard error that is no terminal, they show none; standard
// output is the same either way.
func TestProgress(t *testing.T) {
	fakeProgressClock(t)
	dir := t.TempDir()
	svm := writeFile(t, dir, "s.svm", smallSVM)
	model := filepath.Join(dir, "m.hpm")
	if code, _, e := runCmd("train", "-o", model, svm); code != 0 {
		t.Fatal(e)
	}
	for _, args := range [][]string{
		{"convert", svm, filepath.Join(dir, "o.hpc")},
		{"train", "-epochs", "2", svm},
		{"train", "-cv", "2", svm},
		{"gen", "-rows", "50", filepath.Join(dir, "g.svm")},
		{"eval", "-model", model, svm},
		{"predict", "-model", model, svm},
	} {
		with := append([]string{args[0], "-progress"}, args[1:]...)
		code, out, e := runWith(context.Background(), strings.NewReader(""), with...)
		want := []string{"\rreading " + svm + ": ", "MB/s, 100%"}
		if args[0] == "gen" {
			want = []string{"\rwriting " + args[len(args)-1] + ": ", "MB/s"}
		}
		if code != 0 || !strings.Contains(e, want[0]) || !strings.Contains(e, want[1]) {
			t.Fatalf("%q: exit %d, stderr %q; want reading progress", with, code, e)
		}
		if slices.Contains(args, "-cv") && !strings.Contains(e, "\rcross-validating, 2 folds: ") {
			t.Errorf("%q: stderr %q; want the folds' progress", with, e)
		}
		code, plain, e2 := runWith(context.Background(), strings.NewReader(""), args...)
		if code != 0 || strings.Contains(e2, "\r") {
			t.Errorf("%q: exit %d, stderr %q; want no progress off a terminal", args, code, e2)
		}
		if !sameOutput(out, plain) {
			t.Errorf("%q: stdout %q with -progress, %q without", args, out, plain)
		}
	}
}

// sameOutput compares two runs' standard output but for the numbers in
// them (times differ from run to run).
func sameOutput(a, b string) bool {
	digits := regexp.MustCompile(`[0-9.,]+`)
	return digits.ReplaceAllString(a, "N") == digits.ReplaceAllString(b, "N")
}

// TestMeterETA: a meter of a known total shows the percentage done and
// the time left at the rate so far.
func TestMeterETA(t *testing.T) {
	fakeProgressClock(t)
	var b strings.Builder
	m := newMeter(&Env{Stderr: &b}, true, "gen", "rows", 1000)
	m.add(100) // one second in: 100 rows/s, 900 left
	if got := b.String(); !strings.Contains(got, "gen: 100 rows, 100 rows/s, 10%, ETA 9s") {
		t.Fatalf("meter line %q", got)
	}
	m.end()
	if !strings.HasSuffix(b.String(), "\n") {
		t.Errorf("end left the line open: %q", b.String())
	}
	if newMeter(&Env{Stderr: &b}, false, "gen", "rows", 0) != nil {
		t.Error("a meter without -progress on a buffer, not a terminal")
	}
}
