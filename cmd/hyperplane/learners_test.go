package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/engine"
)

// TestTrainLearners trains every -algo on the three-class files, checks
// that the JSON names the learner, that the saved model records its rule
// and evaluates as train -test did, and that the default is PA-II (the
// averaged kernel perceptron with -kernel).
func TestTrainLearners(t *testing.T) {
	train, test := threeClassFiles(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		args            []string
		algorithm, rule string
		normalize       bool
	}{
		{nil, "averaged", "pa2", true},
		{[]string{"-normalize=false"}, "averaged", "pa2", false},
		{[]string{"-algo", "averaged"}, "averaged", "perceptron", true},
		{[]string{"-algo", "voted"}, "voted", "perceptron", false},
		{[]string{"-algo", "pa"}, "averaged", "pa", true},
		{[]string{"-algo", "pa1", "-C", "0.1"}, "averaged", "pa1", true},
		{[]string{"-algo", "pa2", "-no-average"}, "plain", "pa2", true},
		{[]string{"-algo", "pegasos", "-alpha", "0.01"}, "averaged", "pegasos", true},
		{[]string{"-algo", "logistic", "-alpha", "0.01"}, "averaged", "logistic", true},
		{[]string{"-algo", "modified_huber", "-no-average"}, "plain", "modified_huber", true},
		{[]string{"-kernel", "rbf:gamma=0.5"}, "averaged", "perceptron", false},
		{[]string{"-kernel", "rbf:gamma=0.5", "-algo", "pa1"}, "averaged", "pa1", false},
		{[]string{"-kernel", "rbf:gamma=0.5", "-normalize=false"}, "averaged", "perceptron", false},
	} {
		name := strings.Join(tc.args, " ")
		model := filepath.Join(dir, "m.hpm")
		args := append([]string{"train", "-json", "-o", model, "-test", test}, tc.args...)
		code, out, errOut := runCmd(append(args, train)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errOut)
		}
		var r trainResult
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%s: bad JSON %q: %v", name, out, err)
		}
		if r.Algorithm != tc.algorithm || r.Rule != tc.rule || r.Normalize != tc.normalize {
			t.Errorf("%s: trained %s/%s normalize=%v, want %s/%s normalize=%v", name, r.Algorithm, r.Rule, r.Normalize, tc.algorithm, tc.rule, tc.normalize)
		}
		if r.TestAccuracy == nil || *r.TestAccuracy < 0.9 {
			t.Errorf("%s: test accuracy %v on separable data", name, r.TestAccuracy)
		}
		if r.Kernel == "" {
			m, err := engine.Load(model)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if m.Rule.String() != tc.rule || m.Normalize != tc.normalize {
				t.Errorf("%s: saved model has rule %v, normalize %v", name, m.Rule, m.Normalize)
			}
		}
		code, out, errOut = runCmd("eval", "-json", "-model", model, test)
		if code != 0 || !strings.Contains(out, `"accuracy"`) {
			t.Fatalf("%s: eval exit %d: %s %s", name, code, out, errOut)
		}
	}
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-lr", "0.5"}, "add -algo averaged"},
		{[]string{"-algo", "pa1", "-margin", "1"}, "LearningRate, Margin and InitScale must be 0"},
		{[]string{"-algo", "pa", "-C", "1"}, "C is the parameter of rules PA1 and PA2"},
		{[]string{"-algo", "pa2", "-alpha", "1"}, "Alpha is the parameter of rules pegasos, logistic and modified_huber"},
		{[]string{"-algo", "averaged", "-no-average"}, "-no-average is for"},
		{[]string{"-algo", "pegasos", "-threads", "2"}, "rule pegasos trains sequentially"},
		{[]string{"-algo", "pegasos", "-kernel", "rbf"}, "no kernel form"},
		{[]string{"-algo", "svm"}, "unknown algorithm"},
		{[]string{"-kernel", "rbf", "-normalize"}, "normalize not available with -kernel"},
		{[]string{"-algo", "voted", "-normalize"}, "does not normalize"},
	} {
		code, _, errOut := runCmd(append(append([]string{"train"}, tc.args...), train)...)
		if code != 2 || !strings.Contains(errOut, tc.msg) {
			t.Errorf("%v: exit %d, stderr %.200q; want exit 2 and %q", tc.args, code, errOut, tc.msg)
		}
	}
}
