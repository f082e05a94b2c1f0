package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// inspect describes a model of numbered features: a linear model's
// heaviest feature toward each label is the one that marks it in the
// data, by its LIBSVM index; a kernel model shows its kernel.
func TestInspectNumbered(t *testing.T) {
	train, _ := threeClassFiles(t)
	dir := t.TempDir()
	model := filepath.Join(dir, "m.hpm")
	if code, _, e := runCmd("train", "-epochs", "10", "-o", model, train); code != 0 {
		t.Fatalf("train: %s", e)
	}
	code, out, e := runCmd("inspect", "-n", "2", "-json", model)
	if code != 0 {
		t.Fatalf("inspect: exit %d: %s", code, e)
	}
	var r struct {
		Labels   []string
		Features int
		Weights  []struct {
			Label   string
			Toward  []struct{ Index int }
			Against []struct{ Index int }
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if strings.Join(r.Labels, " ") != "1 2 3" || len(r.Weights) != 3 || r.Features < 3 {
		t.Fatalf("inspect -json: %s", out)
	}
	for k, w := range r.Weights {
		if w.Label != r.Labels[k] || len(w.Toward) == 0 || w.Toward[0].Index != k+1 || len(w.Toward) > 2 || len(w.Against) > 2 {
			t.Errorf("label %s: %+v; want feature %d heaviest toward it", w.Label, w, k+1)
		}
	}
	if code, out, _ := runCmd("inspect", model); code != 0 || !strings.Contains(out, "features by their LIBSVM index") {
		t.Errorf("inspect: exit %d\n%s", code, out)
	}

	kmodel := filepath.Join(dir, "k.hpm")
	if code, _, e := runCmd("train", "-kernel", "rbf:gamma=0.5", "-epochs", "2", "-o", kmodel, train); code != 0 {
		t.Fatalf("train -kernel: %s", e)
	}
	if code, out, e := runCmd("inspect", kmodel); code != 0 || !strings.Contains(out, "kernel:    rbf:gamma=0.5") || !strings.Contains(out, "support vectors") {
		t.Errorf("inspect of a kernel model: exit %d\n%s%s", code, out, e)
	}
}

// -proba on a model of numbered features, which holds no calibration,
// is refused with what to do instead.
func TestPredictProbaNeedsCalibration(t *testing.T) {
	train, test := threeClassFiles(t)
	model := filepath.Join(t.TempDir(), "m.hpm")
	if code, _, e := runCmd("train", "-epochs", "5", "-o", model, train); code != 0 {
		t.Fatalf("train: %s", e)
	}
	code, out, e := runCmd("predict", "-model", model, "-proba", test)
	if code != 2 || out != "" || !strings.Contains(e, "model of numbered features") || !strings.Contains(e, "-scores") {
		t.Errorf("predict -proba with a .hpm: exit %d, %q, %q", code, out, e)
	}
	if code, _, e := runCmd("predict", "-model", model, "-scores", test); code != 0 {
		t.Errorf("predict -scores: exit %d: %s", code, e)
	}
}
