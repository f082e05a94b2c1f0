package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/engine/textmodel"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/hpc"
	"github.com/hyperplane-ml/hyperplane/sparse/libsvm"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

// TestConvertTextCacheStream: raw JSONL text becomes features (the test
// text through the saved featurizer), the training set a cache, and the
// model trained out of core from it, on two cores and in memory all
// separate the two topics.
func TestConvertTextCacheStream(t *testing.T) {
	dir := t.TempDir()
	var tr, te strings.Builder
	topics := map[string][]string{
		"sport":  {"match", "goal", "team", "league", "coach", "score"},
		"garden": {"roses", "soil", "seeds", "compost", "bloom", "prune"},
	}
	for i := range 200 {
		label := "sport"
		if i%2 == 1 {
			label = "garden"
		}
		w := topics[label]
		line := fmt.Sprintf("{\"id\": %d, \"label\": %q, \"text\": \"The %s and the %s, then %s!\"}\n", i, label, w[i%6], w[(i/2)%6], w[(i/3)%6])
		if i%5 == 0 {
			te.WriteString(line)
		} else {
			tr.WriteString(line)
		}
	}
	trPath, tePath := filepath.Join(dir, "train.jsonl"), filepath.Join(dir, "test.jsonl")
	for p, s := range map[string]string{trPath: tr.String(), tePath: te.String()} {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	feat, trCache, teSVM := filepath.Join(dir, "f.json"), filepath.Join(dir, "train.hpc"), filepath.Join(dir, "test.svm")
	if code, out, errOut := runCmd("convert", "-ngrams", "2", "-bits", "12", "-idf", "-tf", "log", "-save-featurizer", feat, trPath, trCache); code != 0 {
		t.Fatalf("convert train: exit %d\n%s%s", code, out, errOut)
	} else if !strings.Contains(out, "160 rows") || !strings.Contains(out, "labels: garden=-1, sport=1") {
		t.Fatalf("convert train printed:\n%s", out)
	}
	if code, out, errOut := runCmd("convert", "-featurizer", feat, tePath, teSVM); code != 0 {
		t.Fatalf("convert test: exit %d\n%s%s", code, out, errOut)
	}
	svm, err := os.ReadFile(teSVM)
	if err != nil || !strings.HasPrefix(string(svm), "1 ") { // sport (the second name) is +1
		t.Fatalf("test LIBSVM output starts %.20q (err %v)", svm, err)
	}
	for _, flags := range [][]string{{"-stream"}, {"-threads", "2"}, {}} {
		args := append([]string{"train", "-json"}, flags...)
		code, out, errOut := runCmd(append(args, "-test", teSVM, trCache)...)
		if code != 0 {
			t.Fatalf("train %v: exit %d\n%s%s", flags, code, out, errOut)
		}
		var r struct {
			TestAccuracy float64 `json:"test_accuracy"`
			Streamed     bool    `json:"streamed"`
			Workers      int     `json:"workers"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if r.TestAccuracy != 1 || r.Streamed != (len(flags) == 1) || (len(flags) == 2) != (r.Workers == 2) {
			t.Fatalf("train %v: %s", flags, out)
		}
	}
	// predict names the classes by the featurizer's labels, and refuses a
	// model whose classes are not among them.
	model := filepath.Join(dir, "m.hpm")
	if code, _, errOut := runCmd("train", "-o", model, trCache); code != 0 {
		t.Fatalf("train -o: exit %d: %s", code, errOut)
	}
	code, out, errOut := runCmd("predict", "-model", model, "-featurizer", feat, teSVM)
	if code != 0 || !strings.Contains(out, "sport\n") || !strings.Contains(out, "garden\n") {
		t.Fatalf("predict -featurizer: exit %d\n%s%s", code, out, errOut)
	}
	other := filepath.Join(dir, "other.hpm")
	three, _ := threeClassFiles(t)
	if code, _, errOut := runCmd("train", "-o", other, three); code != 0 {
		t.Fatalf("train three classes: exit %d: %s", code, errOut)
	}
	if code, _, errOut := runCmd("predict", "-model", other, "-featurizer", feat, teSVM); code != 1 || !strings.Contains(errOut, "none of its labels") {
		t.Fatalf("predict with a model from other data: exit %d, %q; want 1", code, errOut)
	}
	// The cache converts back to LIBSVM with the same rows.
	back := filepath.Join(dir, "back.svm")
	if code, out, errOut := runCmd("convert", trCache, back); code != 0 || !strings.Contains(out, "160 rows") {
		t.Fatalf("cache → LIBSVM: exit %d\n%s%s", code, out, errOut)
	}
}

// TestConvertTrainMisuse: misuse exits 2 with a message, bad data 1.
func TestConvertTrainMisuse(t *testing.T) {
	train, _ := threeClassFiles(t)
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"convert", train}, 2, "IN and OUT"},
		{[]string{"convert", "-ngrams", "2", train, filepath.Join(dir, "x.hpc")}, 2, "not text"},
		{[]string{"convert", "-from", "xml", train, filepath.Join(dir, "x.hpc")}, 2, "-from"},
		{[]string{"convert", "-from", "text", "-tf", "sqrt", train, filepath.Join(dir, "x.svm")}, 2, "-tf"},
		{[]string{"train", "-stream", train}, 2, "cache file"},
		{[]string{"train", "-stream", "-threads", "2", train}, 2, "-stream"},
		{[]string{"train", "-threads", "-1", train}, 2, "Workers -1"},
		{[]string{"train", "-algo", "voted", "-threads", "2", train}, 2, "voted"},
		{[]string{"train", "-algo", "batch", "-threads", "2", train}, 2, "batch"},
		{[]string{"train", "-class-weight", "0:5", train}, 2, "none of the classes"},
		{[]string{"convert", "-vocab", "-bits", "10", "-from", "text", train, filepath.Join(dir, "x.svm")}, 2, "Bits = 10 is for hashing"},
		{[]string{"convert", "-featurizer", filepath.Join(dir, "f.json"), "-ngrams", "2", "-from", "text", train, filepath.Join(dir, "x.svm")}, 2, "-ngrams"},
		{[]string{"convert", filepath.Join(dir, "missing.svm"), filepath.Join(dir, "x.hpc")}, 1, "missing.svm"},
	} {
		code, _, errOut := runCmd(c.args...)
		if code != c.code || !strings.Contains(errOut, c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %q", c.args, code, errOut, c.code, c.msg)
		}
	}
}

// TestConvertKeepsFeaturizerOnFailure: a conversion that cannot write OUT
// leaves the featurizer file as it was, so it still matches the data it
// made.
func TestConvertKeepsFeaturizerOnFailure(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(in, []byte("{\"label\": \"a\", \"text\": \"one two\"}\n{\"label\": \"b\", \"text\": \"three four\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	feat := filepath.Join(dir, "f.json")
	if code, _, errOut := runCmd("convert", "-save-featurizer", feat, in, filepath.Join(dir, "ok.svm")); code != 0 {
		t.Fatalf("convert: exit %d: %s", code, errOut)
	}
	before, err := os.ReadFile(feat)
	if err != nil {
		t.Fatal(err)
	}
	code, _, _ := runCmd("convert", "-ngrams", "2", "-save-featurizer", feat, in, filepath.Join(dir, "no", "such", "dir", "x.svm"))
	if code != 1 {
		t.Fatalf("convert to a missing directory: exit %d, want 1", code)
	}
	if after, err := os.ReadFile(feat); err != nil || string(after) != string(before) {
		t.Fatalf("the featurizer was replaced by a failed conversion (%v)", err)
	}
	if code, _, errOut := runCmd("convert", "-dim", "10", in, filepath.Join(dir, "x.svm")); code != 2 || !strings.Contains(errOut, "-dim") {
		t.Fatalf("convert -dim on text: exit %d, %q; want 2", code, errOut)
	}
}

// convert featurizes text as train does unless told otherwise, and
// spells row normalization as train does (-normalize=false), the former
// -no-normalize still meaning the same.
func TestConvertTextDefaultsAreTrains(t *testing.T) {
	dir := t.TempDir()
	tr := reviews(t, dir, "train.jsonl", 50)
	model := filepath.Join(dir, "m.hptm")
	if code, _, e := runCmd("train", "-o", model, tr); code != 0 {
		t.Fatal(e)
	}
	m, err := textmodel.Load(model)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, flags := range [][]string{nil, {"-normalize=false"}, {"-no-normalize"}} {
		feat := filepath.Join(dir, "f.json")
		args := append(append([]string{"convert", "-save-featurizer", feat}, flags...), tr, filepath.Join(dir, "o.svm"))
		if code, _, e := runCmd(args...); code != 0 {
			t.Fatalf("%v: %s", flags, e)
		}
		f, err := text.Load(feat)
		if err != nil {
			t.Fatal(err)
		}
		want := m.Featurizer().Config()
		want.NoNormalize = flags != nil
		if got := f.Config(); got != want {
			t.Errorf("convert %v: featurizer %+v, want train's %+v", flags, got, want)
		}
		b, _ := os.ReadFile(filepath.Join(dir, "o.svm"))
		out[strings.Join(flags, " ")] = string(b)
	}
	if out["-normalize=false"] != out["-no-normalize"] || out["-normalize=false"] == out[""] {
		t.Error("-normalize=false and -no-normalize differ, or match the normalized rows")
	}
}

// convert of text to a cache streams the rows to it (text.FitCache)
// rather than holding them; they are the rows convert writes as LIBSVM,
// and the featurizer saved is the same.
func TestConvertTextToCacheStreams(t *testing.T) {
	dir := t.TempDir()
	tr := reviews(t, dir, "train.jsonl", 300)
	for _, flags := range [][]string{nil, {"-vocab=false", "-idf"}} {
		hpcOut, svmOut := filepath.Join(dir, "o.hpc"), filepath.Join(dir, "o.svm")
		fa, fb := filepath.Join(dir, "a.feat"), filepath.Join(dir, "b.feat")
		if code, _, e := runCmd(append(append([]string{"convert", "-save-featurizer", fa}, flags...), tr, hpcOut)...); code != 0 {
			t.Fatal(e)
		}
		if code, _, e := runCmd(append(append([]string{"convert", "-save-featurizer", fb}, flags...), tr, svmOut)...); code != 0 {
			t.Fatal(e)
		}
		a, err := hpc.ReadFile(hpcOut, sparse.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := libsvm.ReadFile(svmOut, sparse.ReadOptions{Dim: a.X.Cols})
		if err != nil {
			t.Fatal(err)
		}
		if a.X.Rows != 600 || !slices.Equal(a.Y, b.Y) || !slices.Equal(a.X.Ind, b.X.Ind) || !slices.Equal(a.X.Indptr, b.X.Indptr) {
			t.Errorf("%v: the cache's rows differ from the LIBSVM file's", flags)
		}
		for i := range a.X.Val {
			if d := a.X.Val[i] - b.X.Val[i]; d > 1e-6 || d < -1e-6 { // LIBSVM text rounds the values
				t.Fatalf("%v: value %d: %v against %v", flags, i, a.X.Val[i], b.X.Val[i])
			}
		}
		ba, _ := os.ReadFile(fa)
		bb, _ := os.ReadFile(fb)
		if !bytes.Equal(ba, bb) {
			t.Errorf("%v: the featurizers saved differ", flags)
		}
		if names, _ := filepath.Glob(filepath.Join(dir, ".*")); len(names) > 0 {
			t.Errorf("%v: left %v", flags, names)
		}
	}
}
