package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCmd(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// runWith runs args as run does, with the context ctx (a test cancels
// it, as a signal does) and stdin as the standard input.
func runWith(ctx context.Context, stdin io.Reader, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := runEnv(ctx, &Env{Stdin: stdin, Stdout: &out, Stderr: &errb}, args)
	return code, out.String(), errb.String()
}

func TestDemoTrainsAndEvaluates(t *testing.T) {
	code, out, errOut := runCmd("demo", "-json", "-epochs", "5")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r demoResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("bad JSON %q: %v", out, err)
	}
	if r.TrainRows+r.TestRows != 10000 || r.Features != 20913 {
		t.Fatalf("embedded data has %d+%d rows, %d features", r.TrainRows, r.TestRows, r.Features)
	}
	// A linear model reaches about 0.90 here; chance is 0.5.
	if r.TestAcc < 0.85 {
		t.Fatalf("test accuracy %v, want ≥ 0.85", r.TestAcc)
	}
}

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.svm")
	if err := os.WriteFile(bad, []byte("1 1:1\n-1 3:1 2:1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{[]string{"demo", "-nosuchflag"}, 2, "flag provided but not defined"},
		{[]string{"demo", "-epochs", "zero"}, 2, "invalid value"},
		{[]string{"demo", "-epochs", "0"}, 2, "-epochs"},
		{[]string{"demo", "-simd", "sse9"}, 2, "unknown SIMD tier"},
		{[]string{"stats"}, 2, "needs at least one file"},
		{[]string{"stats", filepath.Join(dir, "missing.svm")}, 1, "no such file"},
		{[]string{"stats", bad}, 1, bad + ":2:"},
		{[]string{"help", "nosuch"}, 2, "unknown command"},
		{[]string{"demo", "-test", "0.00001"}, 2, "no rows to test"},
		{[]string{"gen", "-kind", "separable", "-margin", "0", filepath.Join(dir, "sep.svm")}, 2, "-margin"},
		{[]string{"gen", "-nnz", "0", filepath.Join(dir, "t.svm")}, 2, "-nnz"},
		{[]string{"gen", "-zipf", "0", filepath.Join(dir, "t.svm")}, 2, "-zipf"},
		{[]string{"gen", "-classes", "0", filepath.Join(dir, "t.svm")}, 2, "-classes"},
		// Dense rows of 5: the estimate counts 5 a row (it counted 100,
		// refusing sizes that fit), here 1.5e9, past the limit.
		{[]string{"gen", "-kind", "separable", "-dim", "5", "-rows", "300000000", filepath.Join(dir, "s.svm")}, 2, "1,500,000,000 nonzeros"},
		{[]string{"train", "-kernel", "linear", "-gram-mb", "9000000000000", bad}, 2, "-gram-mb"},
	}
	for _, c := range cases {
		code, _, errOut := runCmd(c.args...)
		if code != c.code || !strings.Contains(errOut, c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, errOut, c.code, c.msg)
		}
	}
}

func TestHelpAndCPU(t *testing.T) {
	code, out, _ := runCmd("help")
	if code != 0 || !strings.Contains(out, "stats") || !strings.Contains(out, "cpu") {
		t.Fatalf("help: exit %d, %q", code, out)
	}
	code, out, _ = runCmd("help", "demo")
	if code != 0 || !strings.Contains(out, "-epochs") {
		t.Fatalf("help demo: exit %d, %q", code, out)
	}
	code, out, _ = runCmd("cpu", "-json")
	var c struct{ Active string }
	if code != 0 || json.Unmarshal([]byte(out), &c) != nil || c.Active == "" {
		t.Fatalf("cpu -json: exit %d, %q", code, out)
	}
}

// A misuse prints the error, the command's usage line and where its flags
// are described, not the whole help; -h prints the whole help.
func TestUsageErrorIsShort(t *testing.T) {
	for _, args := range [][]string{{"train", "-epochs", "0", "x.svm"}, {"train", "-bogus"}, {"predict", "x.svm"}} {
		code, _, stderr := runCmd(args...)
		if code != 2 || !strings.Contains(stderr, "Run 'hyperplane help "+args[0]+"' for its flags.") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
		if n := strings.Count(stderr, "\n"); n > 3 {
			t.Errorf("%v: %d lines of stderr:\n%s", args, n, stderr)
		}
	}
	code, _, stderr := runCmd("train", "-h")
	if code != 0 || !strings.Contains(stderr, "-epochs int") {
		t.Errorf("train -h: exit %d, stderr %q", code, stderr)
	}
}

// Flags may follow the file names, as users of fastText and Vowpal Wabbit
// type them; "--" ends the flags; -simd and -mem may come before the
// command.
func TestFlagsAnywhere(t *testing.T) {
	train, test := threeClassFiles(t)
	// What training did, without the timings.
	strip := func(s string) string {
		var r struct {
			Epochs   int     `json:"epochs"`
			Mistakes []int   `json:"mistakes_per_epoch"`
			Acc      float64 `json:"test_accuracy"`
			Tier     string  `json:"tier"`
		}
		if err := json.Unmarshal([]byte(s), &r); err != nil {
			t.Fatalf("%v: %s", err, s)
		}
		r.Tier = ""
		return fmt.Sprint(r)
	}
	code, before, stderr := runCmd("train", "-json", "-epochs", "3", "-test", test, train)
	if code != 0 {
		t.Fatalf("flags first: %d %s", code, stderr)
	}
	for _, args := range [][]string{
		{"train", train, "-json", "-epochs", "3", "-test", test},
		{"train", "-json", train, "-epochs=3", "-test", test},
		{"-simd", "generic", "train", train, "-json", "-epochs", "3", "-test", test},
		{"-mem=1GiB", "train", "-json", train, "-epochs", "3", "-test", test},
	} {
		code, after, stderr := runCmd(args...)
		if code != 0 {
			t.Fatalf("%v: %d %s", args, code, stderr)
		}
		if strip(after) != strip(before) {
			t.Errorf("%v: output differs from flags first:\n%s\nvs\n%s", args, after, before)
		}
	}
	code, _, stderr = runCmd("train", "-epochs", "1", "--", "-not-a-flag.svm")
	if code != 1 || !strings.Contains(stderr, "-not-a-flag.svm") {
		t.Errorf("after --: exit %d, %q", code, stderr)
	}
	code, _, stderr = runCmd("train", train, "-epochs")
	if code != 2 || !strings.Contains(stderr, "flag needs an argument") {
		t.Errorf("a trailing flag without its value: exit %d, %q", code, stderr)
	}
}

func TestVersion(t *testing.T) {
	code, out, stderr := runCmd("version", "-json")
	if code != 0 {
		t.Fatalf("%d %s", code, stderr)
	}
	var v versionInfo
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	if v.Module != "github.com/hyperplane-ml/hyperplane" || !strings.HasPrefix(v.Go, "go") || v.Version == "" || v.Tier == "" {
		t.Errorf("%+v", v)
	}
	if code, out, _ := runCmd("version"); code != 0 || !strings.HasPrefix(out, "hyperplane ") {
		t.Errorf("version: %d %q", code, out)
	}
	if code, _, _ := runCmd("version", "extra"); code != 2 {
		t.Errorf("version extra: exit %d", code)
	}
}

func TestCommas(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 2250: "2,250", 1234567: "1,234,567", -1234: "-1,234", 100000000: "100,000,000"} {
		if got := commas(n); got != want {
			t.Errorf("commas(%d) = %q, want %q", n, got, want)
		}
	}
}
