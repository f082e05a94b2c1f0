package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// multiLabelSVMText returns a multi-label LIBSVM file of n rows whose
// first label is a list: label lists in no particular order, rows with
// no label, values of several digits.
func multiLabelSVMText(n int) string {
	var b strings.Builder
	b.WriteString("4,0 1:0.5 3:1\n")
	for i := range n {
		var ls, fs []string
		for c := range 5 {
			if (i*7+c*3)%5 < 2 {
				ls = append(ls, strconv.Itoa((c*3)%5))
				fs = append(fs, strconv.Itoa(c+1)+":"+strconv.FormatFloat(0.25+float64(i%7)/8, 'g', -1, 32))
			}
		}
		fs = append(fs, strconv.Itoa(6+i%9)+":0.5")
		b.WriteString(strings.Join(ls, ",") + " " + strings.Join(fs, " ") + "\n")
	}
	return b.String()
}

// TestMultiLabelCacheTrainsSameModel converts a multi-label LIBSVM file to
// a cache and checks that train makes the same model file from both, byte
// for byte, for each learner, and that eval and predict read the cache as
// they read the LIBSVM file.
func TestMultiLabelCacheTrainsSameModel(t *testing.T) {
	dir := t.TempDir()
	svm, cache := filepath.Join(dir, "m.svm"), filepath.Join(dir, "m.hpc")
	os.WriteFile(svm, []byte(multiLabelSVMText(150)), 0o644)
	if code, out, e := runCmd("convert", svm, cache); code != 0 || !strings.Contains(out, "label lists") {
		t.Fatalf("convert: exit %d: %s %s", code, out, e)
	}
	for _, algo := range []string{"", "averaged", "pa", "ranking"} {
		var models [2][]byte
		for k, in := range []string{svm, cache} {
			m := filepath.Join(dir, strconv.Itoa(k)+".hpml")
			args := []string{"train", "-epochs", "3", "-o", m}
			if algo != "" {
				args = append(args, "-algo", algo)
			}
			if code, _, e := runCmd(append(args, in)...); code != 0 {
				t.Fatalf("train -algo %q %s: exit %d: %s", algo, in, code, e)
			}
			models[k], _ = os.ReadFile(m)
		}
		if len(models[0]) == 0 || !bytes.Equal(models[0], models[1]) {
			t.Errorf("-algo %q: the model from the cache differs from the LIBSVM file's", algo)
		}
	}
	model := filepath.Join(dir, "0.hpml")
	for _, cmd := range [][]string{{"eval", "-json", "-model", model}, {"predict", "-k", "2", "-model", model}} {
		c1, o1, e1 := runCmd(append(cmd, svm)...)
		c2, o2, e2 := runCmd(append(cmd, cache)...)
		if c1 != 0 || c2 != 0 || o1 != strings.ReplaceAll(o2, cache, svm) || o1 == "" {
			t.Errorf("%s: exit %d %s, on the cache exit %d %s", cmd[0], c1, e1, c2, e2)
		}
	}
	// Back to LIBSVM, the same lines.
	back := filepath.Join(dir, "back.svm")
	if code, _, e := runCmd("convert", cache, back); code != 0 {
		t.Fatalf("convert back: exit %d: %s", code, e)
	}
	if a, b := readString(t, svm), readString(t, back); a != b {
		t.Errorf("cache → LIBSVM gave other lines:\n%s\nwant\n%s", b[:min(200, len(b))], a[:min(200, len(a))])
	}
	code, _, e := runCmd("train", "-stream", "-o", model, cache)
	if code != 2 || !strings.Contains(e, cache) || !strings.Contains(e, "drop -stream") {
		t.Errorf("train -stream on a multi-label cache: exit %d: %s", code, e)
	}
	if code, _, e := runCmd("stats", cache); code == 0 || !strings.Contains(e, "label lists") {
		t.Errorf("stats of a multi-label cache: exit %d: %s", code, e)
	}
}

// TestMultiLabelCacheShards deals a multi-label file into shards, which
// hold the rows with their label lists.
func TestMultiLabelCacheShards(t *testing.T) {
	dir := t.TempDir()
	svm := filepath.Join(dir, "m.svm")
	os.WriteFile(svm, []byte(multiLabelSVMText(40)), 0o644)
	if code, _, e := runCmd("convert", "-shards", "3", "-seed", "2", svm, filepath.Join(dir, "sh", "m.hpc")); code != 0 {
		t.Fatalf("convert -shards: exit %d: %s", code, e)
	}
	rows, lines := 0, 0
	for _, p := range shardPaths(filepath.Join(dir, "sh", "m.hpc"), 3) {
		out := filepath.Join(dir, "s.svm")
		if code, _, e := runCmd("convert", p, out); code != 0 {
			t.Fatalf("convert %s: exit %d: %s", p, code, e)
		}
		s := readString(t, out)
		rows += strings.Count(s, "\n")
		lines += strings.Count(s, ",")
	}
	if want := readString(t, svm); rows != strings.Count(want, "\n") || lines != strings.Count(want, ",") {
		t.Errorf("shards hold %d rows and %d commas, want %d and %d", rows, lines, strings.Count(want, "\n"), strings.Count(want, ","))
	}
}

// TestMultiLabelTextConvert converts multi-label text to LIBSVM and to a
// cache, which train to the same model; the test text, converted with
// the saved featurizer, numbers its labels alike; fastText lines with
// several labels convert to the same rows as the JSONL.
func TestMultiLabelTextConvert(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	code, out, e := runCmd("convert", "-json", "-save-featurizer", p("f.feat"), mlTrain, p("train.svm"))
	var r convertResult
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil {
		t.Fatalf("convert text → LIBSVM: exit %d: %s %s", code, out, e)
	}
	if !r.MultiLabel || strings.Join(r.Labels, " ") != "politics sports tech" || r.Rows != 140 {
		t.Errorf("convert's result %+v", r)
	}
	if code, _, e := runCmd("convert", mlTrain, p("train.hpc")); code != 0 {
		t.Fatalf("convert text → cache: exit %d: %s", code, e)
	}
	for _, in := range []string{"test.svm", "test.hpc"} {
		if code, _, e := runCmd("convert", "-featurizer", p("f.feat"), mlTest, p(in)); code != 0 {
			t.Fatalf("convert test text: exit %d: %s", code, e)
		}
	}
	if code, _, e := runCmd("train", "-multilabel", "-o", p("a.hpml"), p("train.svm")); code != 0 {
		t.Fatalf("train on LIBSVM: exit %d: %s", code, e)
	}
	if code, _, e := runCmd("train", "-o", p("b.hpml"), p("train.hpc")); code != 0 {
		t.Fatalf("train on the cache: exit %d: %s", code, e)
	}
	if a, b := readString(t, p("a.hpml")), readString(t, p("b.hpml")); a == "" || a != b {
		t.Error("text → LIBSVM → train and text → cache → train made different models")
	}
	c1, o1, _ := runCmd("eval", "-json", "-model", p("a.hpml"), p("test.svm"))
	c2, o2, _ := runCmd("eval", "-json", "-model", p("b.hpml"), p("test.hpc"))
	var er mlEvalResult
	if c1 != 0 || c2 != 0 || o1 != strings.ReplaceAll(o2, "test.hpc", "test.svm") || json.Unmarshal([]byte(o1), &er) != nil || er.MicroF1 < 0.5 {
		t.Errorf("eval: exit %d, %d: %s / %s", c1, c2, o1, o2)
	}
	// The same documents as fastText lines, several labels a line (a
	// fastText line needs a label: those with none are left out of both).
	js, ft := labelledAsFastText(t, mlTrain)
	os.WriteFile(p("l.jsonl"), []byte(js), 0o644)
	os.WriteFile(p("l.txt"), []byte(ft), 0o644)
	for _, in := range []string{"l.jsonl", "l.txt"} {
		if code, _, e := runCmd("convert", "-multilabel", p(in), p(in+".svm")); code != 0 {
			t.Fatalf("convert %s: exit %d: %s", in, code, e)
		}
	}
	if a, b := readString(t, p("l.jsonl.svm")), readString(t, p("l.txt.svm")); a != b || !strings.Contains(a, ",") {
		t.Error("fastText lines converted to other rows than the JSONL")
	}
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestTSVSingleLabelByDefault checks that TSV whose labels are names, with
// no -multilabel, trains and converts as single-label data: a TSV label
// read as a list always is one, so only a JSONL array tells by itself.
func TestTSVSingleLabelByDefault(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 30 {
		b.WriteString([]string{"neg", "pos"}[i%2] + "\tw" + strconv.Itoa(i%2) + " v" + strconv.Itoa(i%5) + "\n")
	}
	in := filepath.Join(dir, "two.tsv")
	os.WriteFile(in, []byte(b.String()), 0o644)
	model := filepath.Join(dir, "m")
	if code, out, e := runCmd("train", "-o", model, in); code != 0 || strings.Contains(out, "multi-label") {
		t.Errorf("train on TSV: exit %d: %s %s", code, out, e)
	}
	if code, out, e := runCmd("convert", in, filepath.Join(dir, "two.svm")); code != 0 || strings.Contains(out, "multi-label") {
		t.Errorf("convert of TSV: exit %d: %s %s", code, out, e)
	}
	if code, out, e := runCmd("convert", "-multilabel", in, filepath.Join(dir, "two.hpc")); code != 0 || !strings.Contains(out, "multi-label") {
		t.Errorf("convert -multilabel of TSV: exit %d: %s %s", code, out, e)
	}
	csv := filepath.Join(dir, "t.csv")
	os.WriteFile(csv, []byte("label,a\n1,2\n0,3\n"), 0o644)
	if code, _, e := runCmd("convert", "-multilabel", csv, filepath.Join(dir, "t.svm")); code != 2 || !strings.Contains(e, "CSV") {
		t.Errorf("convert -multilabel of CSV: exit %d: %s", code, e)
	}
}
