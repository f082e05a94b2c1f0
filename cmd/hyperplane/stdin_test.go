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
