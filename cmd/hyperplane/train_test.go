package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// threeClassFiles writes a small separable 3-class LIBSVM train and test
// file: class c has feature c+1 large.
func threeClassFiles(t *testing.T) (train, test string) {
	dir := t.TempDir()
	var tr, te strings.Builder
	for i := 0; i < 90; i++ {
		c := i % 3
		line := fmt.Sprintf("%d %d:%d %d:1\n", c+1, c+1, 2+i%4, 4+i%5)
		if i%5 == 0 {
			te.WriteString(line)
		} else {
			tr.WriteString(line)
		}
	}
	train, test = filepath.Join(dir, "train.svm"), filepath.Join(dir, "test.svm")
	if err := os.WriteFile(train, []byte(tr.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(test, []byte(te.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return train, test
}

func TestTrainSaveEval(t *testing.T) {
	train, test := threeClassFiles(t)
	model := filepath.Join(t.TempDir(), "m.hpm")
	code, out, errOut := runCmd("train", "-json", "-algo", "plain", "-epochs", "20", "-margins", "-o", model, "-test", test, train)
	if code != 0 {
		t.Fatalf("train: exit %d: %s", code, errOut)
	}
	var r trainResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("bad JSON %q: %v", out, err)
	}
	if r.Classes != 3 || r.Rows != 72 || r.TestAccuracy == nil || *r.TestAccuracy != 1 {
		t.Fatalf("train result %+v", r)
	}
	if r.Margins == nil || !r.Margins.Separable || float64(sum(r.Mistakes)) > float64(r.Margins.Bound) {
		t.Fatalf("margins %+v with %d mistakes", r.Margins, sum(r.Mistakes))
	}
	code, out, errOut = runCmd("eval", "-model", model, test)
	if code != 0 {
		t.Fatalf("eval: exit %d: %s", code, errOut)
	}
	for _, want := range []string{"accuracy", "1.0000", "confusion matrix"} {
		if !strings.Contains(out, want) {
			t.Errorf("eval output lacks %q:\n%s", want, out)
		}
	}
}

func sum(x []int) int {
	s := 0
	for _, v := range x {
		s += v
	}
	return s
}

func TestTrainEvalErrors(t *testing.T) {
	train, test := threeClassFiles(t)
	dir := t.TempDir()
	corrupt := filepath.Join(dir, "corrupt.hpm")
	if err := os.WriteFile(corrupt, []byte("HPLM not really a model"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"train"}, 2, "one TRAIN file"},
		{[]string{"train", "-algo", "kernel", train}, 2, "unknown algorithm"},
		{[]string{"train", "-bias", "maybe", train}, 2, "unknown bias mode"},
		{[]string{"train", "-class-weight", "1=2", train}, 2, "LABEL:WEIGHT"},
		{[]string{"train", "-algo", "averaged", "-lr", "-1", train}, 2, "-lr -1: the value must be positive"},
		{[]string{"train", "-epochs", "-3", train}, 2, "-epochs -3: the value must be positive"},
		{[]string{"train", "-kernel", "rbf", "-budget", "5", train}, 2, "needs Algorithm Plain"},
		{[]string{"train", filepath.Join(dir, "missing.svm")}, 1, "no such file"},
		{[]string{"eval", test}, 2, "-model"},
		{[]string{"eval", "-model", filepath.Join(dir, "none.hpm"), test}, 1, "no such file"},
		{[]string{"eval", "-model", corrupt, test}, 1, "corrupt.hpm"},
	}
	for _, c := range cases {
		code, _, errOut := runCmd(c.args...)
		if code != c.code || !strings.Contains(errOut, c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, errOut, c.code, c.msg)
		}
	}
}

// TestTrainJSONNotFinite: -json stays valid JSON where a figure is not
// finite: the mistake bound of rows the model does not separate (+Inf) is
// null, and data without nonzeros has no time per nonzero.
func TestTrainJSONNotFinite(t *testing.T) {
	dir := t.TempDir()
	xor := filepath.Join(dir, "xor.svm")
	if err := os.WriteFile(xor, []byte("1 1:1\n1 2:1\n-1 1:1 2:1\n-1 3:1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.svm")
	if err := os.WriteFile(empty, []byte("1\n-1\n1\n-1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"-margins", xor}, {empty}} {
		code, out, errOut := runCmd(append([]string{"train", "-json", "-algo", "plain"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		var raw map[string]any
		if err := json.Unmarshal([]byte(out), &raw); err != nil {
			t.Fatalf("%v: bad JSON %q: %v", args, out, err)
		}
		if args[0] == "-margins" {
			m, _ := raw["margins"].(map[string]any)
			if m == nil || m["Separable"] != false || m["Bound"] != nil {
				t.Fatalf("%v: margins %v; want a null Bound for rows not separated", args, raw["margins"])
			}
		} else if raw["ns_per_nonzero"] != 0.0 {
			t.Fatalf("%v: ns_per_nonzero %v", args, raw["ns_per_nonzero"])
		}
	}
}

// TestTrainKeepsModelOnFailure: a train command that fails leaves the
// file -o names as it was; the test file is read before training.
func TestTrainKeepsModelOnFailure(t *testing.T) {
	train, _ := threeClassFiles(t)
	dir := t.TempDir()
	model := filepath.Join(dir, "m.hpm")
	old := []byte("the model that was here")
	bad := filepath.Join(dir, "bad.svm")
	if err := os.WriteFile(bad, []byte("1 1:1\n1 2:1 1:1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"-test", filepath.Join(dir, "missing.svm")},
		{"-test", bad},
		{"-kernel", "linear", "-test", bad},
	} {
		if err := os.WriteFile(model, old, 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errOut := runCmd(append(append([]string{"train", "-o", model}, args...), train)...)
		if code != 1 {
			t.Fatalf("%v: exit %d (%s); want 1", args, code, errOut)
		}
		if got, err := os.ReadFile(model); err != nil || string(got) != string(old) {
			t.Fatalf("%v: the model file was replaced (%q, %v)", args, got, err)
		}
	}
}

// TestTrainZeroFlags: a flag written as 0 that the library would read as
// its default is refused, not silently replaced by the default; the flags
// whose 0 means what it says (-margin, -init, -validation, -seed) are
// taken.
func TestTrainZeroFlags(t *testing.T) {
	train, _ := threeClassFiles(t)
	for _, args := range [][]string{
		{"-epochs", "0"},
		{"-algo", "averaged", "-lr", "0"},
		{"-bias", "augmented", "-bias-scale", "0"},
		{"-algo", "pa1", "-C", "0"},
		{"-algo", "pegasos", "-alpha", "0"},
		{"-validation", "0.2", "-patience", "0"},
		{"-kernel", "linear", "-epochs", "0"},
		{"-kernel", "linear", "-lr", "0"},
	} {
		code, _, errOut := runCmd(append(append([]string{"train"}, args...), train)...)
		first, _, _ := strings.Cut(errOut, "\n")
		flag := args[len(args)-2]
		if code != 2 || !strings.Contains(first, flag+" 0: the value must be positive") {
			t.Errorf("%v: exit %d, first line %q; want exit 2 and %q", args, code, first, flag+" 0: the value must be positive")
		}
	}
	for _, args := range [][]string{
		{"-algo", "averaged", "-margin", "0"},
		{"-algo", "averaged", "-init", "0"},
		{"-validation", "0"},
		{"-seed", "0"},
	} {
		if code, _, errOut := runCmd(append(append([]string{"train"}, args...), train)...); code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, errOut)
		}
	}
}

// TestTestDataWarnings: train -test and eval warn, one line each on stderr
// and in the -json output, when the test data has labels the model has no
// class for (which score as mistakes however good the model) and when it
// is wider than the training data.
func TestTestDataWarnings(t *testing.T) {
	train, _ := threeClassFiles(t)
	dir := t.TempDir()
	test := filepath.Join(dir, "other.svm")
	if err := os.WriteFile(test, []byte("-1 1:3 4:1\n7 2:3 20:1\n1 1:3 4:1\n-1 3:2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "m.hpm")
	labels := "3 of 4 rows have labels the model has no class for (-1, 7; its classes: 1, 2, 3)"
	width := "uses features up to 20, the model 8"
	for _, args := range [][]string{
		{"train", "-o", model, "-test", test, train},
		{"eval", "-model", model, test},
	} {
		for _, asJSON := range []bool{false, true} {
			a := args
			if asJSON {
				a = append([]string{a[0], "-json"}, a[1:]...)
			}
			code, out, errOut := runCmd(a...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", a, code, errOut)
			}
			for _, want := range []string{labels, width} {
				if n := strings.Count(errOut, want); n != 1 {
					t.Errorf("%v: stderr has %q %d times, want once:\n%s", a, want, n, errOut)
				}
			}
			if lines := strings.Count(strings.TrimSpace(errOut), "\n") + 1; lines != 2 {
				t.Errorf("%v: %d lines of warnings, want 2:\n%s", a, lines, errOut)
			}
			if asJSON {
				var r struct{ Warnings []string }
				if err := json.Unmarshal([]byte(out), &r); err != nil {
					t.Fatalf("%v: bad JSON %q: %v", a, out, err)
				}
				if len(r.Warnings) != 2 || !strings.Contains(strings.Join(r.Warnings, "\n"), labels) {
					t.Errorf("%v: JSON warnings %q", a, r.Warnings)
				}
			}
		}
	}
	// Test data with the model's labels only has nothing to warn about.
	_, test2 := threeClassFiles(t)
	if code, _, errOut := runCmd("eval", "-model", model, test2); code != 0 || errOut != "" {
		t.Errorf("eval on matching data: exit %d, stderr %q", code, errOut)
	}
}

// Early stopping is reported: -json gives the kept epoch and its held-out
// accuracy, the text report a line, and the data line comes first, before
// training starts.
func TestTrainReportsEarlyStopping(t *testing.T) {
	train, _ := threeClassFiles(t)
	code, out, stderr := runCmd("train", "-json", "-validation", "0.3", "-epochs", "20", train)
	if code != 0 {
		t.Fatalf("%d %s", code, stderr)
	}
	var r struct {
		Mistakes   []int           `json:"mistakes_per_epoch"`
		Validation *validationJSON `json:"validation"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	v := r.Validation
	if v == nil || v.Fraction != 0.3 || v.BestEpoch < 1 || v.BestEpoch > len(r.Mistakes) || !(v.Accuracy >= 0 && v.Accuracy <= 1) {
		t.Fatalf("validation %+v after %d epochs", v, len(r.Mistakes))
	}
	code, out, _ = runCmd("train", "-validation", "0.3", "-epochs", "20", train)
	if code != 0 || !strings.HasPrefix(out, "data:") || !strings.Contains(out, "validation: 30% held out; kept epoch") {
		t.Errorf("text report:\n%s", out)
	}
	if code, out, _ = runCmd("train", "-json", train); code != 0 || strings.Contains(out, `"validation"`) {
		t.Errorf("without -validation: %s", out)
	}
}
