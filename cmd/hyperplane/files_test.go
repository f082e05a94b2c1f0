package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeFile writes s to name in dir and returns its path.
func writeFile(t *testing.T, dir, name, s string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const smallSVM = "1 1:1 3:2\n-1 2:1\n1 4:5\n-1 2:2 3:1\n"

// TestConvertStdinGzip: "-" reads a piped input once, through the reader
// that told its kind: a gzip-compressed LIBSVM stream converts whole (its
// first bytes were lost, and the rest refused as binary, when the kind
// was told by reading the input and then opening it again); "-" as OUT
// writes LIBSVM to standard output.
func TestConvertStdinGzip(t *testing.T) {
	dir := t.TempDir()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(smallSVM))
	zw.Close()
	for _, out := range []string{"o.svm", "o.hpc", "-"} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		go func() { w.Write(gz.Bytes()); w.Close() }()
		dst := out
		if out != "-" {
			dst = filepath.Join(dir, out)
		}
		code, stdout, errOut := runWith(context.Background(), r, "convert", "-", dst)
		r.Close()
		if code != 0 {
			t.Fatalf("convert - %s: exit %d: %s", out, code, errOut)
		}
		if out == "-" {
			if stdout != smallSVM || !strings.Contains(errOut, "4 rows") {
				t.Fatalf("convert - -: stdout %q, stderr %q", stdout, errOut)
			}
			continue
		}
		_, back, errOut := runCmd("convert", dst, "-")
		if back != smallSVM {
			t.Fatalf("convert - %s: reads back as %q (%s)", out, back, errOut)
		}
	}
}

// TestOutputIsInput: no command writes over a file it reads, whatever the
// spelling (./x, a hard link) or the flag that names it; two outputs of
// one command may not be one file either. The refusal is a usage error
// naming both, and every file is left as it was.
func TestOutputIsInput(t *testing.T) {
	dir := t.TempDir()
	svm := writeFile(t, dir, "data.svm", smallSVM)
	test := writeFile(t, dir, "test.svm", smallSVM)
	txt := writeFile(t, dir, "x.jsonl", "{\"label\": \"a\", \"text\": \"one\"}\n{\"label\": \"b\", \"text\": \"two\"}\n")
	model := filepath.Join(dir, "m.hpm")
	feat := filepath.Join(dir, "f.json")
	if code, _, errOut := runCmd("train", "-o", model, svm); code != 0 {
		t.Fatal(errOut)
	}
	if code, _, errOut := runCmd("convert", "-save-featurizer", feat, txt, filepath.Join(dir, "x.svm")); code != 0 {
		t.Fatal(errOut)
	}
	link := filepath.Join(dir, "link.svm")
	if err := os.Link(svm, link); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	before := map[string]string{}
	for _, p := range []string{svm, test, txt, model, feat} {
		b, _ := os.ReadFile(p)
		before[p] = string(b)
	}
	for _, c := range []struct {
		args []string
		a, b string // the two names the message must give
	}{
		{[]string{"train", "-o", svm, svm}, svm, svm},
		{[]string{"train", "-o", "./data.svm", "data.svm"}, "./data.svm", "data.svm"},
		{[]string{"train", "-o", link, svm}, link, svm},
		{[]string{"train", "-o", test, "-test", test, svm}, test, test},
		{[]string{"predict", "-model", model, "-o", svm, svm}, svm, svm},
		{[]string{"predict", "-model", model, "-o", model, svm}, model, model},
		{[]string{"predict", "-model", model, "-featurizer", feat, "-o", feat, svm}, feat, feat},
		{[]string{"convert", txt, txt}, txt, txt},
		{[]string{"convert", "-save-featurizer", txt, txt, "out.svm"}, txt, txt},
		{[]string{"convert", "-featurizer", feat, txt, feat}, feat, feat},
		{[]string{"convert", "-save-featurizer", "same.svm", txt, "same.svm"}, "same.svm", "same.svm"},
	} {
		code, _, errOut := runCmd(c.args...)
		first, _, _ := strings.Cut(errOut, "\n")
		if code != 2 || !strings.Contains(first, c.a) || !strings.Contains(first, c.b) || !(strings.Contains(first, "is the input") || strings.Contains(first, "same file")) {
			t.Errorf("%v: exit %d, %q; want exit 2 naming %s and %s", c.args, code, first, c.a, c.b)
		}
	}
	for p, s := range before {
		if b, _ := os.ReadFile(p); string(b) != s {
			t.Errorf("%s changed", p)
		}
	}
	if _, err := os.Stat("same.svm"); err == nil {
		t.Error("same.svm was written")
	}
	if names, _ := filepath.Glob(filepath.Join(dir, ".*")); len(names) > 0 {
		t.Errorf("temporary files left: %v", names)
	}
}

// TestConvertBothOrNeither: when the featurizer cannot be saved (a
// directory in its place, or a directory that takes no new file), neither
// OUT nor the old featurizer changes; OUT used to be written first.
func TestConvertBothOrNeither(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "in.jsonl", "{\"label\": \"a\", \"text\": \"one two\"}\n{\"label\": \"b\", \"text\": \"three\"}\n")
	out := writeFile(t, dir, "out.svm", "the old data\n")
	asDir := filepath.Join(dir, "feat-dir")
	if err := os.Mkdir(asDir, 0o755); err != nil {
		t.Fatal(err)
	}
	feats := []string{asDir}
	if os.Geteuid() != 0 { // root writes into any directory
		ro := filepath.Join(dir, "ro")
		if err := os.Mkdir(ro, 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, ro, "f.json", "the old featurizer\n")
		if err := os.Chmod(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(ro, 0o755) })
		feats = append(feats, filepath.Join(ro, "f.json"))
	}
	for _, feat := range feats {
		code, _, errOut := runCmd("convert", "-save-featurizer", feat, in, out)
		if code == 0 {
			t.Fatalf("-save-featurizer %s: succeeded", feat)
		}
		if b, _ := os.ReadFile(out); string(b) != "the old data\n" {
			t.Errorf("-save-featurizer %s (%s): OUT was replaced", feat, strings.TrimSpace(errOut))
		}
		if fi, err := os.Stat(asDir); err != nil || !fi.IsDir() {
			t.Errorf("the directory in the featurizer's place is gone")
		}
	}
	if len(feats) > 1 {
		if b, _ := os.ReadFile(feats[1]); string(b) != "the old featurizer\n" {
			t.Errorf("the old featurizer changed")
		}
	}
	if names, _ := filepath.Glob(filepath.Join(dir, ".*")); len(names) > 0 {
		t.Errorf("temporary files left: %v", names)
	}
}

// TestOutputsCheckedFirst: an output that cannot be written, or an empty
// output name, stops a command before its work: train and predict report
// the output, not the bad data they would have read first; an empty -o
// is a usage error rather than "no -o".
func TestOutputsCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, dir, "bad.svm", "1 1:1\n1 2:1 1:1\n")
	good := writeFile(t, dir, "good.svm", smallSVM)
	model := filepath.Join(dir, "m.hpm")
	if code, _, errOut := runCmd("train", "-o", model, good); code != 0 {
		t.Fatal(errOut)
	}
	missing := filepath.Join(dir, "no", "such", "dir", "out")
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"train", "-o", missing, bad}, 1, missing},
		{[]string{"train", "-kernel", "linear", "-o", missing, bad}, 1, missing},
		{[]string{"predict", "-model", model, "-o", missing, bad}, 1, missing},
		{[]string{"convert", bad, missing}, 1, missing},
		{[]string{"convert", "-from", "text", "-save-featurizer", missing, bad, filepath.Join(dir, "x.svm")}, 1, missing},
		{[]string{"gen", "-rows", "10", missing}, 1, missing},
		{[]string{"bench", "-quick", "-o", missing}, 1, missing},
		{[]string{"train", "-o", "", good}, 2, "-o: the file name is empty"},
		{[]string{"predict", "-model", model, "-o", "", good}, 2, "-o: the file name is empty"},
		{[]string{"convert", good, ""}, 2, "OUT: the file name is empty"},
		{[]string{"gen", ""}, 2, "OUT: the file name is empty"},
		{[]string{"bench", "-o", ""}, 2, "-o: the file name is empty"},
		{[]string{"experiment", "-o", "", "convergence"}, 2, "-o: the directory name is empty"},
	} {
		code, _, errOut := runCmd(c.args...)
		first, _, _ := strings.Cut(errOut, "\n")
		if code != c.code || !strings.Contains(first, c.msg) || strings.Contains(errOut, "bad.svm:2") {
			t.Errorf("%v: exit %d, %q; want exit %d and %q first", c.args, code, first, c.code, c.msg)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.svm")); err == nil {
		t.Error("convert wrote OUT though -save-featurizer could not be written")
	}
}

// TestGenCancelled: a command whose context is cancelled (as a signal
// does) writes nothing and leaves no temporary file.
func TestGenCancelled(t *testing.T) {
	dir := t.TempDir()
	c, cancel := context.WithCancel(context.Background())
	cancel()
	for _, args := range [][]string{
		{"gen", "-rows", "1000", filepath.Join(dir, "g.svm")},
		{"convert", writeFile(t, dir, "in.svm", smallSVM), filepath.Join(dir, "c.hpc")},
	} {
		code, _, errOut := runWith(c, nil, args...)
		if code != 1 || !strings.Contains(errOut, "interrupted") {
			t.Errorf("%v cancelled: exit %d, %q", args, code, errOut)
		}
	}
	if names, _ := filepath.Glob(filepath.Join(dir, "*")); len(names) != 1 {
		t.Errorf("directory holds %v, want in.svm only", names)
	}
	if names, _ := filepath.Glob(filepath.Join(dir, ".*")); len(names) > 0 {
		t.Errorf("temporary files left: %v", names)
	}
}

// TestStartsWith: a file is told by its first bytes only when it holds
// all of the magic; a shorter file or a missing one is not.
func TestStartsWith(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		content string
		want    bool
	}{{"HPTM and more", true}, {"HPTM", true}, {"HPT", false}, {"", false}, {"HPML", false}} {
		if got := startsWith(writeFile(t, dir, "f", c.content), "HPTM"); got != c.want {
			t.Errorf("startsWith(%q, HPTM) = %v, want %v", c.content, got, c.want)
		}
	}
	if startsWith(filepath.Join(dir, "missing"), "HPTM") {
		t.Error("a missing file starts with HPTM")
	}
}
