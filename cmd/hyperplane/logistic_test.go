package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/engine"
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

// TestTrainDefaultEpochs checks that train runs the learner's default
// number of epochs (engine.Rule.DefaultEpochs: more for -algo logistic
// than for the others) when -epochs is not set, and -epochs when it is,
// as -json reports them: on LIBSVM rows, a cache with -stream, raw text
// in memory and streamed, with -cv (whose folds' meter counts the
// default's epochs) and with -i; and that train -h says the default.
func TestTrainDefaultEpochs(t *testing.T) {
	fakeProgressClock(t)
	dir := t.TempDir()
	var b, tx strings.Builder
	for i := range 120 {
		// Every third row repeats the one before with the other label,
		// so that no epoch is without updates and none stops early.
		y := 2*(i%2) - 1
		if i%3 == 2 {
			y = -y
		}
		fmt.Fprintf(&b, "%d 1:%d 2:%d 3:1\n", y, 1+(i/2%7), 1+i/2%5)
		fmt.Fprintf(&tx, "{\"label\": \"%d\", \"text\": \"w%d v%d the\"}\n", y, i/2%7, i/2%5)
	}
	data := writeFile(t, dir, "bin.svm", b.String())
	text := writeFile(t, dir, "bin.jsonl", tx.String())
	cache, pa2 := filepath.Join(dir, "bin.hpc"), filepath.Join(dir, "pa2.hpm")
	if code, _, e := runCmd("convert", data, cache); code != 0 {
		t.Fatal(e)
	}
	if code, _, e := runCmd("train", "-o", pa2, data); code != 0 {
		t.Fatal(e)
	}
	lg := engine.Logistic.DefaultEpochs()
	if lg == engine.PA2.DefaultEpochs() {
		t.Fatalf("logistic's default, %d epochs, is PA-II's: the test cannot tell them apart", lg)
	}
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"-algo", "logistic", data}, lg},
		{[]string{"-algo", "logistic", "-epochs", "7", data}, 7},
		{[]string{data}, engine.PA2.DefaultEpochs()},
		{[]string{"-algo", "modified_huber", data}, engine.ModifiedHuber.DefaultEpochs()},
		{[]string{"-algo", "logistic", "-stream", cache}, lg},
		{[]string{"-algo", "logistic", "-stream", "-epochs", "4", cache}, 4},
		{[]string{"-algo", "logistic", text}, lg},
		{[]string{"-algo", "logistic", "-epochs", "5", text}, 5},
		{[]string{"-algo", "logistic", "-stream", "-o", filepath.Join(dir, "s.hptm"), text}, lg},
		{[]string{"-algo", "logistic", "-cv", "2", "-test", data, data}, lg},
		{[]string{"-i", pa2, data}, engine.PA2.DefaultEpochs()},
	} {
		args := append([]string{"train", "-json"}, c.args...)
		code, out, e := runCmd(args...)
		var r struct{ Epochs int }
		if err := json.Unmarshal([]byte(out), &r); code != 0 || err != nil {
			t.Fatalf("%q: exit %d, %v: %s %s", args, code, err, out, e)
		}
		if r.Epochs != c.want {
			t.Errorf("%q: %d epochs, want %d", args, r.Epochs, c.want)
		}
	}
	// The folds' meter counts 2·lg epochs, out of 2·lg: it ends at 100%.
	args := []string{"train", "-progress", "-cv", "2", "-algo", "logistic", data}
	code, _, e := runWith(context.Background(), strings.NewReader(""), args...)
	pct := regexp.MustCompile(`folds: [0-9]+ epochs, [^\r]*, ([0-9]+)%`).FindAllStringSubmatch(e, -1)
	if want := fmt.Sprintf("folds: %d epochs", 2*lg); code != 0 || !strings.Contains(e, want) || len(pct) == 0 || pct[len(pct)-1][1] != "100" {
		t.Errorf("%q: exit %d, stderr %q; want %q at 100%%", args, code, e, want)
	}
	_, out, e := runCmd("train", "-h")
	if want := fmt.Sprintf("(default: %d; %d for -algo logistic)", engine.PA2.DefaultEpochs(), lg); !strings.Contains(out+e, want) {
		t.Errorf("train -h does not say %q:\n%s%s", want, out, e)
	}
}
