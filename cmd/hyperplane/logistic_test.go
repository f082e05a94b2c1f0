package main

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestLogisticCLI trains -algo logistic on a binary file, evaluates it,
// and checks that predict -proba, which a model of numbered features of
// another rule is refused, gives for every row the logistic of the score
// predict -scores gives, for the predicted label; and that -i refuses to
// continue it.
func TestLogisticCLI(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 200 {
		y := 2*(i%2) - 1
		fmt.Fprintf(&b, "%d 1:%d 2:%d 3:1\n", y, 1+(i%7)*(y+2), 1+i%5)
	}
	data := writeFile(t, dir, "bin.svm", b.String())
	model := filepath.Join(dir, "m.hpm")
	code, out, e := runCmd("train", "-algo", "logistic", "-o", model, "-test", data, data)
	if code != 0 || !strings.Contains(out, "averaged logistic regression") || !strings.Contains(out, "accuracy") {
		t.Fatalf("train: exit %d: %s %s", code, out, e)
	}
	if code, out, e := runCmd("eval", "-model", model, data); code != 0 || !strings.Contains(out, "accuracy") {
		t.Fatalf("eval: exit %d: %s %s", code, out, e)
	}
	code, probs, e := runCmd("predict", "-model", model, "-proba", data)
	if code != 0 {
		t.Fatalf("predict -proba: exit %d: %s", code, e)
	}
	code, scores, e := runCmd("predict", "-model", model, "-scores", data)
	if code != 0 {
		t.Fatalf("predict -scores: exit %d: %s", code, e)
	}
	pl, sl := strings.Split(strings.TrimSpace(probs), "\n"), strings.Split(strings.TrimSpace(scores), "\n")
	if len(pl) != 200 || len(sl) != 200 {
		t.Fatalf("%d and %d lines, want 200", len(pl), len(sl))
	}
	for i := range pl {
		lp, p, _ := strings.Cut(pl[i], "\t")
		ls, s, _ := strings.Cut(sl[i], "\t")
		pv, err1 := strconv.ParseFloat(p, 64)
		sv, err2 := strconv.ParseFloat(s, 64)
		if lp != ls || err1 != nil || err2 != nil {
			t.Fatalf("row %d: %q vs %q", i, pl[i], sl[i])
		}
		// The probability of the label predicted: σ(s) for the larger
		// label (s > 0), 1 − σ(s) for the smaller.
		want := 1 / (1 + math.Exp(-math.Abs(sv)))
		if math.Abs(pv-want) > 1e-5 || pv < 0.5 {
			t.Fatalf("row %d: probability %v, score %v: want %v", i, pv, sv, want)
		}
	}
	if code, _, e := runCmd("train", "-i", model, "-o", filepath.Join(dir, "m2.hpm"), data); code != 2 || !strings.Contains(e, "logistic's steps follow") {
		t.Errorf("train -i on a logistic model: exit %d: %s", code, e)
	}
}
