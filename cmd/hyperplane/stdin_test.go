package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// stdinData returns a small separable LIBSVM set and the same documents
// as JSONL text.
func stdinData() (svm, jsonl string) {
	var a, b strings.Builder
	for i := 0; i < 60; i++ {
		if i%2 == 0 {
			fmt.Fprintf(&a, "1 1:%d 3:1\n", 1+i%3)
			fmt.Fprintf(&b, "{\"label\": \"pos\", \"text\": \"good great fine %d\"}\n", i)
		} else {
			fmt.Fprintf(&a, "-1 2:%d 4:1\n", 1+i%3)
			fmt.Fprintf(&b, "{\"label\": \"neg\", \"text\": \"bad awful poor %d\"}\n", i)
		}
	}
	return a.String(), b.String()
}

func gzipString(s string) string {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(s))
	zw.Close()
	return buf.String()
}

// TestTrainReadsStdin: "-" is standard input for TRAIN and for -test, in
// LIBSVM and in raw text, plain or gzip-compressed.
func TestTrainReadsStdin(t *testing.T) {
	svm, jsonl := stdinData()
	dir := t.TempDir()
	svmFile, textFile := filepath.Join(dir, "d.svm"), filepath.Join(dir, "d.jsonl")
	os.WriteFile(svmFile, []byte(svm), 0o644)
	os.WriteFile(textFile, []byte(jsonl), 0o644)
	for _, c := range []struct {
		name, stdin string
		args        []string
		want        string
	}{
		{"libsvm train", svm, []string{"train", "-epochs", "2", "-"}, "60 rows"},
		{"libsvm train gzip", gzipString(svm), []string{"train", "-epochs", "2", "-"}, "60 rows"},
		{"libsvm test", svm, []string{"train", "-epochs", "2", "-test", "-", svmFile}, "accuracy 1.0000"},
		{"libsvm test gzip", gzipString(svm), []string{"train", "-epochs", "2", "-test", "-", svmFile}, "accuracy 1.0000"},
		{"text train", jsonl, []string{"train", "-epochs", "2", "-no-calibrate", "-"}, "60 rows"},
		{"text train gzip", gzipString(jsonl), []string{"train", "-epochs", "2", "-no-calibrate", "-"}, "60 rows"},
		{"text test", jsonl, []string{"train", "-epochs", "2", "-no-calibrate", "-test", "-", textFile}, "accuracy 1.0000"},
		{"text test gzip", gzipString(jsonl), []string{"train", "-epochs", "2", "-no-calibrate", "-test", "-", textFile}, "accuracy 1.0000"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runWith(context.Background(), strings.NewReader(c.stdin), c.args...)
			if code != 0 || !strings.Contains(out, c.want) {
				t.Fatalf("exit %d, want %q in the output:\n%s%s", code, c.want, out, errOut)
			}
		})
	}
}

// TestConvertShardsMakesFolder: convert -shards creates OUT's missing
// folders, and removes them again when the command fails.
func TestConvertShardsMakesFolder(t *testing.T) {
	svm, _ := stdinData()
	dir := t.TempDir()
	in := filepath.Join(dir, "d.svm")
	os.WriteFile(in, []byte(svm), 0o644)
	out := filepath.Join(dir, "new", "shards", "train.hpc")
	if code, _, errOut := runCmd("convert", "-shards", "4", in, out); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, p := range shardPaths(out, 4) {
		if _, err := os.Stat(p); err != nil {
			t.Fatal(err)
		}
	}
	bad := filepath.Join(dir, "gone", "deep", "train.hpc")
	if code, _, _ := runCmd("convert", "-shards", "4", filepath.Join(dir, "missing.svm"), bad); code == 0 {
		t.Fatal("convert of a missing file succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, "gone")); !os.IsNotExist(err) {
		t.Fatalf("the folders made for a failed convert remain: %v", err)
	}
	// A file where a folder is needed is an error, and is left as it was.
	os.WriteFile(filepath.Join(dir, "file"), []byte("x"), 0o644)
	if code, _, _ := runCmd("convert", "-shards", "4", in, filepath.Join(dir, "file", "train.hpc")); code == 0 {
		t.Fatal("convert into a file's path succeeded")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "file")); string(b) != "x" {
		t.Fatalf("the file became %q", b)
	}
}

// TestTrainFastText: fastText's format trains by its content, whatever
// the file's name, from a file or standard input, with the label prefix
// settable; it gives the JSONL's accuracy on the same documents.
func TestTrainFastText(t *testing.T) {
	_, jsonl := stdinData()
	var ft, hashed strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(jsonl), "\n") {
		label := "pos"
		if strings.Contains(l, `"neg"`) {
			label = "neg"
		}
		txt := l[strings.Index(l, `"text": "`)+9 : len(l)-2]
		fmt.Fprintf(&ft, "__label__%s %s\n", label, txt)
		fmt.Fprintf(&hashed, "#%s %s\n", label, txt)
	}
	dir := t.TempDir()
	ftFile, hashFile := filepath.Join(dir, "cooking.train"), filepath.Join(dir, "h.txt")
	os.WriteFile(ftFile, []byte(ft.String()), 0o644)
	os.WriteFile(hashFile, []byte(hashed.String()), 0o644)
	for _, c := range []struct {
		stdin string
		args  []string
	}{
		{"", []string{"train", "-epochs", "2", "-no-calibrate", "-test", ftFile, ftFile}},
		{ft.String(), []string{"train", "-epochs", "2", "-no-calibrate", "-test", ftFile, "-"}},
		{"", []string{"train", "-epochs", "2", "-no-calibrate", "-label-prefix", "#", "-test", hashFile, hashFile}},
	} {
		code, out, errOut := runWith(context.Background(), strings.NewReader(c.stdin), c.args...)
		if code != 0 || !strings.Contains(out, "accuracy 1.0000") || !strings.Contains(out, "60 rows") {
			t.Errorf("%v: exit %d:\n%s%s", c.args, code, out, errOut)
		}
	}
}

// TestTrainCSV: a CSV table with a header trains as the LIBSVM file of
// the same rows does, to the same figures.
func TestTrainCSV(t *testing.T) {
	svm, _ := stdinData()
	var tab strings.Builder
	tab.WriteString("f1,f2,f3,f4,target\n")
	for _, l := range strings.Split(strings.TrimSpace(svm), "\n") {
		v := []string{"0", "0", "0", "0"}
		p := strings.Fields(l)
		for _, kv := range p[1:] {
			v[kv[0]-'1'] = kv[2:]
		}
		fmt.Fprintf(&tab, "%s,%s\n", strings.Join(v, ","), p[0])
	}
	dir := t.TempDir()
	svmFile, csvFile := filepath.Join(dir, "d.svm"), filepath.Join(dir, "d.csv")
	os.WriteFile(svmFile, []byte(svm), 0o644)
	os.WriteFile(csvFile, []byte(tab.String()), 0o644)
	var outs []string
	for _, f := range []string{svmFile, csvFile} {
		code, out, errOut := runCmd("train", "-cv", "3", "-test", f, f)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", f, code, errOut)
		}
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "cv:") || strings.HasPrefix(l, "test:") {
				outs = append(outs, strings.SplitN(strings.ReplaceAll(l, f, "F"), " (", 2)[0])
			}
		}
	}
	if len(outs) != 4 || outs[0] != outs[2] || outs[1] != outs[3] {
		t.Fatalf("LIBSVM then CSV: %q", outs)
	}
	// convert writes the table's rows as LIBSVM: the file they came from.
	back := filepath.Join(dir, "back.svm")
	if code, _, errOut := runCmd("convert", csvFile, back); code != 0 {
		t.Fatalf("convert: exit %d: %s", code, errOut)
	}
	if b, _ := os.ReadFile(back); string(b) != svm {
		t.Fatalf("convert of the CSV wrote\n%s\nwant\n%s", b, svm)
	}
}

// TestWordings: the messages say what a command-line user can act on.
func TestWordings(t *testing.T) {
	_, jsonl := stdinData()
	dir := t.TempDir()
	textFile, model := filepath.Join(dir, "d.jsonl"), filepath.Join(dir, "m.hptm")
	os.WriteFile(textFile, []byte(jsonl), 0o644)
	if code, _, errOut := runCmd("train", "-epochs", "1", "-no-calibrate", "-o", model, textFile); code != 0 {
		t.Fatal(errOut)
	}
	svm, _ := stdinData()
	svmFile, cache := filepath.Join(dir, "d.svm"), filepath.Join(dir, "d.hpc")
	os.WriteFile(svmFile, []byte(svm), 0o644)
	if code, _, errOut := runCmd("convert", svmFile, cache); code != 0 {
		t.Fatal(errOut)
	}
	check := func(args []string, want, not string) {
		t.Helper()
		_, out, errOut := runCmd(args...)
		all := out + errOut
		if !strings.Contains(all, want) || (not != "" && strings.Contains(all, not)) {
			t.Errorf("%v: want %q without %q in:\n%s", args, want, not, all)
		}
	}
	check([]string{"stats", textFile}, "is labelled raw text", "missing")
	check([]string{"stats", model}, "'hyperplane inspect "+model+"'", "NUL")
	check([]string{"help", "gen"}, "A corpus for a scale test", "Issue")
	check([]string{"help", "train"}, "of TRAIN's kind", "LIBSVM `file`")
	check([]string{"train", "-stream", "-threads", "2", cache}, "(drop -stream)", "use Fit")
}
