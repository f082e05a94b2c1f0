package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/engine/textmodel"
)

const (
	mlTrain = "testdata/topics.train.jsonl"
	mlTest  = "testdata/topics.test.jsonl"
)

// TestMultiLabelTrainEvalPredict trains the shipped topic set, then
// checks eval's figures against ones counted here, by hand, from
// predict's output and the test file's labels.
func TestMultiLabelTrainEvalPredict(t *testing.T) {
	model := filepath.Join(t.TempDir(), "m.hptl")
	if code, _, e := runCmd("train", "-o", model, mlTrain); code != 0 {
		t.Fatalf("train: exit %d: %s", code, e)
	}
	if !textmodel.IsMultiLabelFile(model) {
		t.Fatal("a JSONL file with label arrays did not give a multi-label model")
	}
	code, out, e := runCmd("eval", "-json", "-model", model, mlTest)
	if code != 0 {
		t.Fatalf("eval: exit %d: %s", code, e)
	}
	var r mlEvalResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("eval -json: %v\n%s", err, out)
	}
	code, out, e = runCmd("predict", "-model", model, mlTest)
	if code != 0 {
		t.Fatalf("predict: exit %d: %s", code, e)
	}
	pred := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	data, _ := os.ReadFile(mlTest)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(pred) != len(lines) {
		t.Fatalf("%d predictions for %d documents", len(pred), len(lines))
	}
	labels := []string{"politics", "sports", "tech"}
	tp, fp, fn := map[string]int{}, map[string]int{}, map[string]int{}
	wrong, exact := 0, 0
	for i, ln := range lines {
		var d struct{ Label []string }
		if err := json.Unmarshal([]byte(ln), &d); err != nil {
			t.Fatal(err)
		}
		var p []string
		if pred[i] != "" {
			p = strings.Split(pred[i], ",")
		}
		diff := 0
		for _, l := range labels {
			inT, inP := slices.Contains(d.Label, l), slices.Contains(p, l)
			switch {
			case inT && inP:
				tp[l]++
			case inP:
				fp[l]++
				diff++
			case inT:
				fn[l]++
				diff++
			}
		}
		wrong += diff
		if diff == 0 {
			exact++
		}
	}
	var TP, FP, FN int
	var macro float64
	for _, l := range labels {
		TP, FP, FN = TP+tp[l], FP+fp[l], FN+fn[l]
		if d := 2*tp[l] + fp[l] + fn[l]; d > 0 {
			macro += float64(2*tp[l]) / float64(d) / 3
		}
	}
	micro := float64(2*TP) / float64(2*TP+FP+FN)
	n := float64(len(lines))
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"micro-F1", r.MicroF1, micro}, {"macro-F1", r.MacroF1, macro},
		{"micro precision", r.MicroP, float64(TP) / float64(TP+FP)}, {"micro recall", r.MicroR, float64(TP) / float64(TP+FN)},
		{"Hamming loss", r.Hamming, float64(wrong) / (3 * n)}, {"subset accuracy", r.Subset, float64(exact) / n},
	} {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s: eval %v, counted %v", c.name, c.got, c.want)
		}
	}
	if r.MicroF1 < 0.6 || r.Rows != 35 || r.Labels != 3 {
		t.Errorf("eval: %+v", r)
	}
	// -k 1 writes one label a line, -proba a probability after each.
	code, out, _ = runCmd("predict", "-k", "1", "-proba", "-model", model, mlTest)
	for _, ln := range strings.Split(strings.TrimSpace(out), "\n") {
		if code != 0 || strings.Count(ln, ":") != 1 || strings.Contains(ln, ",") {
			t.Fatalf("predict -k 1 -proba: exit %d, line %q", code, ln)
		}
	}
}

func TestMultiLabelSingleLabelJSONLUnchanged(t *testing.T) {
	// A JSONL file with string labels still trains a single-label text
	// model.
	dir := t.TempDir()
	in := filepath.Join(dir, "s.jsonl")
	var b strings.Builder
	for i := range 20 {
		l := []string{"a", "b"}[i%2]
		b.WriteString(`{"label":"` + l + `","text":"word` + l + ` filler"}` + "\n")
	}
	os.WriteFile(in, []byte(b.String()), 0o644)
	model := filepath.Join(dir, "m")
	if code, _, e := runCmd("train", "-o", model, in); code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	if textmodel.IsMultiLabelFile(model) {
		t.Error("string labels gave a multi-label model")
	}
}

func TestMultiLabelTSVFlag(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "t.tsv")
	var b strings.Builder
	for i := range 30 {
		b.WriteString([]string{"x,y\tapple banana", "x\tapple cherry", "\tcherry plum"}[i%3] + "\n")
	}
	os.WriteFile(in, []byte(b.String()), 0o644)
	model := filepath.Join(dir, "m")
	if code, _, e := runCmd("train", "-multilabel", "-o", model, in); code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	m, err := textmodel.LoadMultiLabel(model)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Labels(); !slices.Equal(got, []string{"x", "y"}) {
		t.Errorf("labels %q", got)
	}
	if got := m.Predict("apple banana"); !slices.Equal(got, []string{"x", "y"}) {
		t.Errorf("apple banana: %q", got)
	}
}

func TestMultiLabelRefusals(t *testing.T) {
	for _, args := range [][]string{
		{"train", "-algo", "pegasos", mlTrain},
		{"train", "-kernel", "rbf:gamma=1", mlTrain},
		{"train", "-cv", "3", mlTrain},
	} {
		if code, _, e := runCmd(args...); code == 0 || !strings.Contains(e, "multi-label") {
			t.Errorf("%q: exit %d, %q", args, code, e)
		}
	}
	// A label array in a later line of a single-label file names the
	// line and the way out.
	dir := t.TempDir()
	in := filepath.Join(dir, "mixed.jsonl")
	os.WriteFile(in, []byte(`{"label":"a","text":"x"}`+"\n"+`{"label":["a"],"text":"y"}`+"\n"), 0o644)
	if code, _, e := runCmd("train", in); code == 0 || !strings.Contains(e, ":2:") || !strings.Contains(e, "-multilabel") {
		t.Errorf("mixed labels: exit %d, %q", code, e)
	}
}

func TestMultiLabelLIBSVM(t *testing.T) {
	// Rows whose classes are the features 1-3 they hold; a leading
	// blank is a row with no label.
	dir := t.TempDir()
	var b strings.Builder
	for i := range 120 {
		var ls, fs []string
		for c := range 3 {
			if (i>>c)&1 == 1 {
				ls = append(ls, strconv.Itoa(c))
				fs = append(fs, strconv.Itoa(c+1)+":1")
			}
		}
		fs = append(fs, strconv.Itoa(4+i%5)+":0.5")
		b.WriteString(strings.Join(ls, ",") + " " + strings.Join(fs, " ") + "\n")
	}
	in := filepath.Join(dir, "m.svm")
	os.WriteFile(in, []byte(b.String()), 0o644)
	model := filepath.Join(dir, "m.hpml")
	// The first row has no label: -multilabel says what the file is.
	if code, _, e := runCmd("train", "-o", model, in); code == 0 {
		t.Errorf("a multi-label file not told multi-label trained: %s", e)
	}
	if code, _, e := runCmd("train", "-multilabel", "-o", model, in); code != 0 {
		t.Fatalf("train: exit %d: %s", code, e)
	}
	code, out, e := runCmd("eval", "-json", "-model", model, in)
	var r mlEvalResult
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil {
		t.Fatalf("eval: exit %d: %s %s", code, out, e)
	}
	if r.MicroF1 != 1 || r.Subset != 1 || r.Rows != 120 || r.Labels != 3 {
		t.Errorf("eval on separable rows: %+v", r)
	}
	code, out, _ = runCmd("predict", "-model", model, in)
	lines := strings.Split(out, "\n")
	if code != 0 || lines[0] != "" || lines[7] != "0,1,2" || lines[5] != "0,2" {
		t.Errorf("predict: exit %d, lines %q", code, lines[:8])
	}
	// A file whose first label is a list is told by it.
	in2 := filepath.Join(dir, "m2.svm")
	os.WriteFile(in2, []byte("0,1 1:1 2:1\n"+b.String()), 0o644)
	if code, _, e := runCmd("train", "-o", model, in2); code != 0 {
		t.Fatalf("train on a list label: exit %d: %s", code, e)
	}
}

func TestMultiLabelFastTextSameModelAsJSONL(t *testing.T) {
	// The topic set's labelled documents as fastText lines (several
	// __label__ tokens, then the text) train, with -multilabel, the
	// same model file byte for byte as the JSONL.
	js, ft := labelledAsFastText(t, mlTrain)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.txt")
	os.WriteFile(a, []byte(js), 0o644)
	os.WriteFile(b, []byte(ft), 0o644)
	ma, mb := filepath.Join(dir, "a.hptl"), filepath.Join(dir, "b.hptl")
	if code, _, e := runCmd("train", "-o", ma, a); code != 0 {
		t.Fatalf("JSONL: %s", e)
	}
	if code, _, e := runCmd("train", "-multilabel", "-o", mb, b); code != 0 {
		t.Fatalf("fastText: %s", e)
	}
	x, _ := os.ReadFile(ma)
	y, _ := os.ReadFile(mb)
	if !bytes.Equal(x, y) {
		t.Error("fastText lines and JSONL of the same documents train different models")
	}
	// Without -multilabel a second label names the way out.
	if code, _, e := runCmd("train", b); code == 0 || !strings.Contains(e, "-multilabel") {
		t.Errorf("fastText multi-label without -multilabel: exit %d, %q", code, e)
	}
}

// inspect reads multi-label models, of text and of numbered features:
// every label with its threshold and its heaviest features, named by
// their terms (or LIBSVM index).
func TestInspectMultiLabel(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.hptl")
	if code, _, e := runCmd("train", "-o", model, mlTrain); code != 0 {
		t.Fatalf("train: %s", e)
	}
	code, out, e := runCmd("inspect", "-json", "-n", "3", model)
	if code != 0 {
		t.Fatalf("inspect: exit %d: %s", code, e)
	}
	var r struct {
		Featurizer string
		Labels     int
		Weights    []struct {
			Label     string
			Threshold float32
			Toward    []textmodel.Weighted
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if r.Labels != 3 || len(r.Weights) != 3 || r.Featurizer == "" {
		t.Fatalf("inspect: %s", out)
	}
	m, err := textmodel.LoadMultiLabel(model)
	if err != nil {
		t.Fatal(err)
	}
	th := m.Model().Thresholds()
	for c, w := range r.Weights {
		if w.Label != m.Labels()[c] || w.Threshold != th[c] || len(w.Toward) == 0 || len(w.Toward) > 3 {
			t.Errorf("label %d: %+v", c, w)
			continue
		}
		for k, f := range w.Toward {
			if f.Term == "" || f.Weight <= 0 || f.Weight != m.Model().Weight(c, int(f.Feature)) || (k > 0 && f.Weight > w.Toward[k-1].Weight) {
				t.Errorf("label %s: %+v is not its heaviest terms, heaviest first", w.Label, w.Toward)
			}
		}
	}
	if code, out, _ := runCmd("inspect", model); code != 0 || !strings.Contains(out, "multi-label, one-vs-rest, 3 labels") || !strings.Contains(out, "(threshold ") {
		t.Errorf("inspect: %s", out)
	}
	// Numbered features: separable rows, class c held by feature c+1.
	var b strings.Builder
	for i := range 60 {
		var ls, fs []string
		for c := range 3 {
			if (i>>c)&1 == 1 {
				ls = append(ls, strconv.Itoa(c))
				fs = append(fs, strconv.Itoa(c+1)+":1")
			}
		}
		b.WriteString(strings.Join(ls, ",") + " " + strings.Join(append(fs, "9:0.5"), " ") + "\n")
	}
	in := filepath.Join(dir, "m.svm")
	os.WriteFile(in, []byte(b.String()), 0o644)
	nm := filepath.Join(dir, "m.hpml")
	if code, _, e := runCmd("train", "-multilabel", "-o", nm, in); code != 0 {
		t.Fatal(e)
	}
	code, out, e = runCmd("inspect", "-n", "1", nm)
	if code != 0 || !strings.Contains(out, "\n0 (threshold ") || !strings.Contains(out, "toward:  1 +") || !strings.Contains(out, "toward:  3 +") {
		t.Errorf("inspect of numbered features: exit %d: %s %s", code, out, e)
	}
}

// labelledAsFastText returns the documents of the JSONL file at path that
// have labels (a fastText line needs one), as JSONL and as fastText
// lines: several __label__ tokens, then the text.
func labelledAsFastText(t *testing.T, path string) (jsonl, fastText string) {
	t.Helper()
	data, _ := os.ReadFile(path)
	var js, ft strings.Builder
	for _, ln := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var d struct {
			Label []string
			Text  string
		}
		if err := json.Unmarshal([]byte(ln), &d); err != nil {
			t.Fatal(err)
		}
		if len(d.Label) == 0 {
			continue
		}
		js.WriteString(ln + "\n")
		for _, l := range d.Label {
			ft.WriteString("__label__" + l + " ")
		}
		ft.WriteString(d.Text + "\n")
	}
	return js.String(), ft.String()
}
