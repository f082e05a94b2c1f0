package main

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// FuzzFlagValues feeds arbitrary text to every flag of train, gen,
// predict and convert that reads a number or a small language (class
// weights, kernel specs, term weighting), on small files: the command
// must succeed or fail with exit 1 or 2 and a message, never panic, hang
// or try to allocate without bound. Inputs asking gen for more than a
// few thousand rows are skipped (gen refuses what does not fit in memory,
// but what fits can take minutes).
//
//	go test -run '^$' -fuzz '^FuzzFlagValues$' -fuzztime 60s ./cmd/hyperplane/
func FuzzFlagValues(f *testing.F) {
	for _, s := range []string{"", "0", "-1", "1e309", "NaN", "-Inf", "3", "0.5", "1e9", "1:2,-1:0.5", "rbf:gamma=2", "poly:degree=99", "log", "1:", ":", "0x10", "99999999999999999999"} {
		f.Add(s, s)
	}
	dir := f.TempDir()
	train := filepath.Join(dir, "train.svm")
	var b strings.Builder
	for i := range 60 {
		b.WriteString(strconv.Itoa(2*(i%2)-1) + " 1:" + strconv.Itoa(i%5) + " 3:1 " + strconv.Itoa(4+i%7) + ":0.5\n")
	}
	if err := os.WriteFile(train, []byte(b.String()), 0o644); err != nil {
		f.Fatal(err)
	}
	text := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(text, []byte("{\"label\":\"a\",\"text\":\"x y\"}\n{\"label\":\"b\",\"text\":\"y z\"}\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, a, c string) {
		// Big counts would make gen and -epochs merely slow: skip them, in
		// every syntax the flag package reads. gen -kind separable with
		// -rows and -dim both a writes a² values, so a is kept small
		// enough that one input cannot outlast a short fuzzing run.
		if v, err := strconv.ParseInt(a, 0, 64); err == nil && (v > 500 || v < -500) {
			return
		}
		if v, err := strconv.ParseFloat(a, 64); err == nil && !(math.Abs(v) <= 500) {
			return
		}
		if strings.ContainsAny(a+c, "/\\") {
			return // no paths: outputs stay in the temp directory
		}
		out := filepath.Join(t.TempDir(), "out.svm")
		for _, args := range [][]string{
			{"train", "-algo", "averaged", "-epochs", a, "-lr", c, "-margin", c, "-class-weight", c, train},
			{"train", "-algo", "averaged", "-init", a, "-validation", c, "-patience", a, "-threads", a, "-bias-scale", c, train},
			{"train", "-kernel", c, "-algo", "plain", "-budget", a, "-epochs", "2", train},
			{"gen", "-rows", a, "-nnz", c, "-dim", a, "-zipf", c, "-classes", a, "-noise", c, out},
			{"gen", "-kind", "separable", "-rows", a, "-dim", a, "-margin", c, "-radius", c, out},
			{"convert", "-ngrams", a, "-bits", a, "-tf", c, "-min-df", a, text, out},
		} {
			code, _, errOut := runCmd(args...)
			if code != 0 && code != 1 && code != 2 {
				t.Fatalf("%q: exit %d", args, code)
			}
			if code != 0 && strings.TrimSpace(errOut) == "" {
				t.Fatalf("%q: exit %d with no message", args, code)
			}
		}
	})
}

// TestParseClassWeights: the -class-weight language accepts finite labels
// and finite weights ≥ 0 and nothing else.
func TestParseClassWeights(t *testing.T) {
	for in, ok := range map[string]bool{
		"": true, "1:2": true, "-1:0.5,1:2": true, " 3 : 0 ": true,
		"1": false, "1:": false, ":2": false, "1:-1": false, "NaN:1": false, "1:Inf": false, "1:2,": false, "a:b": false,
	} {
		m, err := parseClassWeights(in)
		if (err == nil) != ok {
			t.Errorf("%q: %v, err %v", in, m, err)
		}
	}
}
