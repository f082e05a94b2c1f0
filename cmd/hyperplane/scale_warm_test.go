package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
)

// unitsFile writes n rows of three dense features on scales a million
// apart, whose label follows the two small ones, to dir/name.
func unitsFile(t *testing.T, dir, name string, n int, seed uint64) string {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	var b strings.Builder
	for range n {
		a, c, d := r.Float64(), r.Float64(), r.Float64()
		y := -1
		if c+d > 1 {
			y = 1
		}
		fmt.Fprintf(&b, "%d 1:%.6g 2:%.6g 3:%.6g\n", y, 1000+1000*a, 0.001*c, 0.01*d)
	}
	return writeFile(t, dir, name, b.String())
}

// trainJSON runs train -json with args and returns its result.
func trainJSON(t *testing.T, args ...string) trainResult {
	t.Helper()
	code, out, e := runCmd(append([]string{"train", "-json"}, args...)...)
	if code != 0 {
		t.Fatalf("train %v: exit %d: %s", args, code, e)
	}
	var r trainResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("bad JSON %q: %v", out, err)
	}
	return r
}

// train standardizes dense data whose columns are on different scales by
// default, says so, and saves a model that eval scores raw rows with;
// sparse counts are left to row normalization.
func TestTrainAutoScale(t *testing.T) {
	dir := t.TempDir()
	tr, te := unitsFile(t, dir, "tr.svm", 400, 1), unitsFile(t, dir, "te.svm", 200, 2)
	model := filepath.Join(dir, "m.hpm")
	r := trainJSON(t, "-o", model, "-test", te, tr)
	if !strings.HasPrefix(r.Scale, "standardized") || r.Normalize {
		t.Fatalf("scale %q, normalize %v: want the rows standardized", r.Scale, r.Normalize)
	}
	raw := trainJSON(t, "-scale", "none", "-test", te, tr)
	if raw.Scale != "" || *r.TestAccuracy < 0.9 || *r.TestAccuracy <= *raw.TestAccuracy {
		t.Errorf("test accuracy %v standardized, %v raw (scale %q)", *r.TestAccuracy, *raw.TestAccuracy, raw.Scale)
	}
	code, out, e := runCmd("eval", "-json", "-model", model, te)
	if code != 0 || !strings.Contains(out, fmt.Sprintf(`"accuracy": %v`, *r.TestAccuracy)) {
		t.Errorf("eval of the scaled model (exit %d, %s): %s, want accuracy %v", code, e, out, *r.TestAccuracy)
	}
	code, out, _ = runCmd("inspect", model)
	if code != 0 || !strings.Contains(out, "features scaled (standard; folded into the weights)") {
		t.Errorf("inspect does not say the model scales its features:\n%s", out)
	}
	code, out, _ = runCmd("train", "-cv", "3", tr)
	if code != 0 || !strings.Contains(out, "scale:    standardized") {
		t.Errorf("train -cv does not say it standardized:\n%s", out)
	}
	// Sparse rows of small counts: no scaling.
	sp, _ := threeClassFiles(t)
	if r := trainJSON(t, sp); r.Scale != "" || !r.Normalize {
		t.Errorf("sparse counts: scale %q, normalize %v", r.Scale, r.Normalize)
	}
	// A width of 2^31−1 named by one index: auto measures the columns
	// the rows hold, in memory of their size.
	wide := writeFile(t, dir, "wide.svm", "+1 2147483647:1\n-1 1:1\n")
	if code, _, e := runCmd("train", "-mem", "64MiB", "-epochs", "2", wide); code != 0 {
		t.Errorf("two rows of width 2^31−1 under -mem 64MiB: exit %d, %s", code, e)
	}
	for _, args := range [][]string{
		{"-scale", "standard", "-normalize", tr},
		{"-scale", "maxabs", "-kernel", "linear", tr},
		{"-scale", "unit", tr},
	} {
		if code, _, e := runCmd(append([]string{"train"}, args...)...); code != 2 || !strings.Contains(e, "-scale") {
			t.Errorf("train %v: exit %d, %s; want a usage error naming -scale", args, code, e)
		}
	}
}

// train -i continues a saved model on new rows, with the model's learner
// and scaling, and says what does not match.
func TestTrainContinue(t *testing.T) {
	dir := t.TempDir()
	a, b := unitsFile(t, dir, "a.svm", 300, 3), unitsFile(t, dir, "b.svm", 300, 4)
	te := unitsFile(t, dir, "te.svm", 200, 5)
	first := filepath.Join(dir, "a.hpm")
	trainJSON(t, "-o", first, a)
	r := trainJSON(t, "-i", first, "-test", te, b)
	if !strings.Contains(r.Continued, first) || !strings.Contains(r.Continued, "standard scaling") || r.Rule != "pa2" {
		t.Errorf("continued %q, rule %q", r.Continued, r.Rule)
	}
	if *r.TestAccuracy < 0.9 {
		t.Errorf("continued model's test accuracy %v", *r.TestAccuracy)
	}
	// An epoch from the model with no update leaves its predictions: the
	// start is the model itself, not zeros.
	rows := writeFile(t, dir, "one.svm", "1 1:1500 2:0.0009 3:0.009\n-1 1:1500 2:0.0001 3:0.001\n")
	second := filepath.Join(dir, "b.hpm")
	trainJSON(t, "-i", first, "-epochs", "1", "-o", second, rows)
	_, p1, _ := runCmd("predict", "-model", first, te)
	_, p2, _ := runCmd("predict", "-model", second, te)
	if diff := countDiff(p1, p2); diff > 10 {
		t.Errorf("one epoch of two rows from the model changed %d of 200 predictions", diff)
	}
	peg := filepath.Join(dir, "p.hpm")
	trainJSON(t, "-algo", "pegasos", "-o", peg, a)
	if r := trainJSON(t, "-i", peg, "-algo", "pa2", b); r.Rule != "pa2" || r.Continued == "" {
		t.Errorf("a Pegasos model continued by -algo pa2: rule %q, continued %q", r.Rule, r.Continued)
	}
	kern := filepath.Join(dir, "k.hpk")
	if code, _, e := runCmd("train", "-kernel", "linear", "-o", kern, a); code != 0 {
		t.Fatal(e)
	}
	newClass := writeFile(t, dir, "c.svm", "3 1:1 2:0.001 3:0.01\n1 1:1 2:0.001 3:0.01\n")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-i", first, newClass}, 1, "label 3 of row 0 is none of the warm start's classes"},
		{[]string{"-i", kern, b}, 2, "a kernel model"},
		{[]string{"-i", peg, b}, 2, "pegasos's steps"},
		{[]string{"-i", first, "-normalize", b}, 2, "-normalize=true: the model"},
		{[]string{"-i", first, "-scale", "maxabs", b}, 2, "-i continues with the scaling"},
		{[]string{"-i", first, "-cv", "3", b}, 2, "not with -kernel or -cv"},
		{[]string{"-i", first, "-stream", b}, 2, "-stream: the model"},
		{[]string{"-i", first, "-o", first, b}, 2, first},
		{[]string{"-i", filepath.Join(dir, "none.hpm"), b}, 1, "none.hpm"},
	} {
		code, _, e := runCmd(append([]string{"train"}, c.args...)...)
		if code != c.code || !strings.Contains(e, c.want) {
			t.Errorf("train %v: exit %d, %q; want exit %d and %q", c.args, code, e, c.code, c.want)
		}
	}
}

// countDiff counts the lines in which a and b differ.
func countDiff(a, b string) int {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	n := max(len(la), len(lb)) - min(len(la), len(lb))
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			n++
		}
	}
	return n
}

// A text model continues on raw text through its own featurizer, and is
// calibrated again; a label it does not know, LIBSVM rows, or text
// flags are refused.
func TestTrainContinueText(t *testing.T) {
	dir := t.TempDir()
	tr, more, te := reviews(t, dir, "a.jsonl", 60), reviews(t, dir, "b.jsonl", 60), reviews(t, dir, "te.jsonl", 20)
	model := filepath.Join(dir, "m.hptm")
	trainJSON(t, "-o", model, tr)
	r := trainJSON(t, "-i", model, "-test", te, more)
	if r.Continued == "" || r.Calibration == "" || *r.TestAccuracy != 1 {
		t.Errorf("continued %q, calibration %q, accuracy %v", r.Continued, r.Calibration, *r.TestAccuracy)
	}
	other := writeFile(t, dir, "other.jsonl", `{"label":"meh","text":"fine film"}`+"\n")
	sp, _ := threeClassFiles(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-i", model, other}, `"meh"`},
		{[]string{"-i", model, sp}, "a text model"},
		{[]string{"-i", model, "-ngrams", "1", more}, "-ngrams"},
	} {
		code, _, e := runCmd(append([]string{"train"}, c.args...)...)
		if code == 0 || !strings.Contains(e, c.want) {
			t.Errorf("train %v: exit %d, %q; want an error with %q", c.args, code, e, c.want)
		}
	}
}

// A kernel whose gamma is far above the data's scale learns every row by
// heart; train says so on stderr, and not for a gamma that fits.
func TestTrainKernelWarnings(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(9, 9))
	var b strings.Builder
	for i := range 120 {
		c := i % 2
		fmt.Fprintf(&b, "%d", c)
		for j := 1; j <= 8; j++ {
			v := r.IntN(9)
			if j == 1+c {
				v += 8
			}
			fmt.Fprintf(&b, " %d:%d", j, v)
		}
		b.WriteString("\n")
	}
	tr := writeFile(t, dir, "px.svm", b.String())
	// (A margin: a row unlike every other then scores about 0, within
	// it, and becomes a support vector, as in a many-class set.)
	code, _, e := runCmd("train", "-kernel", "rbf:gamma=2", "-margin", "0.5", tr)
	if code != 0 || !strings.Contains(e, "gamma 2 is") || !strings.Contains(e, "120 of the 120 training rows are support vectors") {
		t.Errorf("rbf:gamma=2 on values of 0 to 16: exit %d, stderr %q; want both warnings", code, e)
	}
	code, _, e = runCmd("train", "-kernel", "default", "-margin", "0.5", tr)
	if code != 0 || strings.Contains(e, "warning") {
		t.Errorf("-kernel default: exit %d, stderr %q; want no warning", code, e)
	}
}
