package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

// reviews writes n labelled JSONL documents of two kinds to dir/name.
func reviews(t *testing.T, dir, name string, n int) string {
	t.Helper()
	var b strings.Builder
	for i := range n {
		b.WriteString(`{"label":"pos","text":"good great fine lovely` + strings.Repeat(" nice", i%3) + ` film ` + strconv.Itoa(i%7) + `"}` + "\n")
		b.WriteString(`{"label":"neg","text":"bad awful poor dreadful` + strings.Repeat(" dull", i%3) + ` film ` + strconv.Itoa(i%5) + `"}` + "\n")
	}
	return writeFile(t, dir, name, b.String())
}

// train reads raw labelled text directly, fits the featurizer inside,
// calibrates, tests on raw text and writes one text model, which predict
// and eval read with raw text: the two-command workflow.
func TestTrainRawText(t *testing.T) {
	dir := t.TempDir()
	tr := reviews(t, dir, "train.jsonl", 100)
	te := reviews(t, dir, "test.jsonl", 20)
	model := filepath.Join(dir, "m.hptm")
	code, out, e := runCmd("train", "-test", te, "-o", model, tr)
	if code != 0 {
		t.Fatalf("train: %s", e)
	}
	for _, want := range []string{"2-grams, a vocabulary of 39 terms (in ≥ 2 documents), tf log, idf", "labels neg, pos", "calibration: platt(", "accuracy 1.0000", "log loss", "ECE"} {
		if !strings.Contains(out, want) {
			t.Errorf("train's report lacks %q:\n%s", want, out)
		}
	}
	if !isTextModel(model) {
		t.Fatal("-o did not write a text model")
	}
	// -bits asks for hashing over the default vocabulary.
	if code, out, e := runCmd("train", "-bits", "12", tr); code != 0 || !strings.Contains(out, "hashed into 2^12 buckets") {
		t.Errorf("train -bits 12: exit %d\n%s%s", code, out, e)
	}
	code, out, e = runCmd("predict", "-model", model, "-proba", writeFile(t, dir, "new.txt", "a great and lovely film\nawful, dreadful, poor\n"))
	if code != 0 {
		t.Fatalf("predict: %s", e)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "pos\t") || !strings.HasPrefix(lines[1], "neg\t") {
		t.Fatalf("predict -proba: %q", out)
	}
	for _, l := range lines {
		p, err := strconv.ParseFloat(strings.Split(l, "\t")[1], 64)
		if err != nil || !(p > 0.5 && p <= 1) {
			t.Errorf("predict -proba: %q: the predicted label's probability must be in (0.5, 1]", l)
		}
	}
	// -k 2 lists both labels, best first, probabilities summing to 1.
	code, out, e = runCmd("predict", "-model", model, "-proba", "-k", "2", writeFile(t, dir, "one.txt", "lovely\n"))
	f := strings.Split(strings.TrimSpace(out), "\t")
	if code != 0 || len(f) != 4 || f[0] != "pos" || f[2] != "neg" {
		t.Fatalf("predict -k 2: exit %d, %q, %s", code, out, e)
	}
	p1, _ := strconv.ParseFloat(f[1], 64)
	p2, _ := strconv.ParseFloat(f[3], 64)
	if !(p1 >= p2) || p1+p2 < 0.9999 || p1+p2 > 1.0001 {
		t.Errorf("predict -k 2: probabilities %v and %v", p1, p2)
	}
	code, out, e = runCmd("predict", "-model", model, "-explain", "2", writeFile(t, dir, "ex.txt", "lovely lovely film\n"))
	if f := strings.Split(strings.TrimSpace(out), "\t"); code != 0 || len(f) != 2 || f[0] != "pos" || !strings.HasPrefix(f[1], `"lovely" `) {
		t.Errorf("predict -explain 2: exit %d, %q, %s", code, out, e)
	}
	code, out, e = runCmd("inspect", "-n", "3", model)
	if code != 0 || !strings.Contains(out, "pos\n  toward:  ") || strings.Contains(out, "\nneg\n") {
		t.Errorf("inspect: exit %d\n%s%s", code, out, e)
	}
	for _, w := range []string{`"good"`, `"great"`, `"lovely"`, `"fine"`, `"nice"`} {
		if strings.Contains(out, "against: "+w) {
			t.Errorf("inspect: %s against pos:\n%s", w, out)
		}
	}
	code, out, e = runCmd("eval", "-json", "-model", model, te)
	if code != 0 {
		t.Fatalf("eval: %s", e)
	}
	var ev struct {
		LogLoss *float64 `json:"log_loss"`
		ECE     *float64 `json:"ece"`
		Metrics struct {
			Accuracy float64 `json:"accuracy"`
		} `json:"metrics"`
	}
	if err := json.Unmarshal([]byte(out), &ev); err != nil || ev.LogLoss == nil || ev.ECE == nil || ev.Metrics.Accuracy != 1 {
		t.Errorf("eval -json: %v: %s", err, out)
	}
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"predict", "-model", model, "-featurizer", model, "x.txt"}, 2, "holds its featurizer"},
		{[]string{"predict", "-model", model, "-proba", "-scores", "x.txt"}, 2, "give one"},
		{[]string{"inspect", writeFile(t, dir, "x.hpm", "")}, 1, "x.hpm"},
		{[]string{"train", "-stream", "-refit", tr}, 2, "-stream on raw text trains a new linear model"},
		{[]string{"train", "-ngrams", "3", writeFile(t, dir, "d.svm", "1 1:1\n-1 2:1\n")}, 2, "the text flags apply to raw text"},
		{[]string{"train", "-vocab=false", "-min-df", "2", tr}, 2, "MinDF and MaxFeatures need Vocabulary"},
		{[]string{"train", "-cv", "1", tr}, 2, "1 folds"},
	} {
		code, _, e := runCmd(c.args...)
		if code != c.code || !strings.Contains(e, c.msg) {
			t.Errorf("%v: exit %d, %q; want %d and %q", c.args, code, e, c.code, c.msg)
		}
	}
}

// -cv K reports K stratified folds' accuracy, and with nothing else asked
// for trains no final model.
func TestTrainCV(t *testing.T) {
	dir := t.TempDir()
	tr := reviews(t, dir, "train.jsonl", 60)
	code, out, e := runCmd("train", "-cv", "4", "-json", tr)
	if code != 0 {
		t.Fatalf("train -cv: %s", e)
	}
	var r struct {
		Epochs int `json:"epochs"`
		CV     *struct {
			Folds    int       `json:"folds"`
			Accuracy []float64 `json:"accuracy"`
			Mean     float64   `json:"mean"`
		} `json:"cv"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || r.CV == nil {
		t.Fatalf("train -cv -json: %v: %s", err, out)
	}
	if r.CV.Folds != 4 || len(r.CV.Accuracy) != 4 || r.CV.Mean != 1 || r.Epochs != 0 {
		t.Errorf("cv %+v, %d epochs; want 4 folds at accuracy 1 and no final training", *r.CV, r.Epochs)
	}
	svm := writeFile(t, dir, "d.svm", strings.Repeat("1 1:1 3:0.5\n-1 2:1 3:0.5\n", 20))
	code, out, e = runCmd("train", "-cv", "5", "-o", filepath.Join(dir, "m.hpm"), svm)
	if code != 0 || !strings.Contains(out, "cv:       5 stratified folds: accuracy 1.0000") || !strings.Contains(out, "mistakes:") {
		t.Errorf("train -cv 5 -o on LIBSVM: exit %d\n%s%s", code, out, e)
	}
	if _, err := os.Stat(filepath.Join(dir, "m.hpm")); err != nil {
		t.Errorf("-cv with -o: %v", err)
	}
}

// train -kernel on raw text writes a text model holding a calibrated
// kernel model: predict classifies new text with it, inspect describes
// it, and -explain, which needs feature weights, says that it cannot.
func TestTrainRawTextKernel(t *testing.T) {
	dir := t.TempDir()
	tr := reviews(t, dir, "train.jsonl", 100)
	te := reviews(t, dir, "test.jsonl", 20)
	model := filepath.Join(dir, "k.hptm")
	code, out, e := runCmd("train", "-kernel", "poly:degree=2,gamma=1,coef0=1", "-test", te, "-o", model, tr)
	if code != 0 {
		t.Fatalf("train -kernel: %s", e)
	}
	for _, want := range []string{"kernel poly:degree=2", "support vectors", "calibration: platt(", "accuracy 1.0000"} {
		if !strings.Contains(out, want) {
			t.Errorf("train -kernel's report lacks %q:\n%s", want, out)
		}
	}
	newText := writeFile(t, dir, "new.txt", "a great and lovely film\nawful, dreadful, poor\n")
	if code, out, e := runCmd("predict", "-model", model, newText); code != 0 || out != "pos\nneg\n" {
		t.Errorf("predict with a kernel text model: exit %d, %q %s", code, out, e)
	}
	if code, out, e := runCmd("inspect", model); code != 0 || !strings.Contains(out, "kernel poly:degree=2") || strings.Contains(out, "toward") {
		t.Errorf("inspect of a kernel text model: exit %d\n%s%s", code, out, e)
	}
	if code, _, e := runCmd("predict", "-model", model, "-explain", "2", newText); code == 0 || !strings.Contains(e, "not linear") {
		t.Errorf("predict -explain with a kernel model: exit %d, %s", code, e)
	}
}

// predict loads a text model for its input alone when the input is
// small (textmodel.LoadFor), and writes what it writes with the whole
// model: from a file and from standard input, and when the input is
// larger, so that the documents read first are followed by the rest.
func TestPredictSmallInputLoadsPart(t *testing.T) {
	dir := t.TempDir()
	tr := reviews(t, dir, "train.jsonl", 100)
	model := filepath.Join(dir, "m.hptm")
	if code, _, e := runCmd("train", "-o", model, tr); code != 0 {
		t.Fatalf("train: %s", e)
	}
	input := "a great and lovely film\nawful, dreadful, poor\n{\"text\": \"lovely but poor\"}\n\nunknown words only\n"
	in := writeFile(t, dir, "new.txt", input)
	defer func(v int) { subsetInput = v }(subsetInput)
	for _, flags := range [][]string{nil, {"-proba"}, {"-scores"}, {"-k", "2", "-proba"}, {"-explain", "3"}} {
		subsetInput = 0 // the whole model
		args := append(append([]string{"predict", "-model", model}, flags...), in)
		before := partLoads.Load()
		code, want, e := runCmd(args...)
		if code != 0 || partLoads.Load() != before {
			t.Fatalf("%q: exit %d, loaded in part %v: %s", args, code, partLoads.Load() != before, e)
		}
		for _, limit := range []int{1 << 20, 10} {
			subsetInput = limit
			before := partLoads.Load()
			code, got, e := runCmd(args...)
			if code != 0 || got != want {
				t.Errorf("%q with %d bytes read first: exit %d, %q, whole model %q (%s)", args, limit, code, got, want, e)
			}
			if part := partLoads.Load() > before; part != (limit > len(input)) {
				t.Errorf("%q with %d bytes read first: loaded in part %v", args, limit, part)
			}
			stdin := append(append([]string{"predict", "-model", model}, flags...), "-")
			code, got, e = runWith(context.Background(), strings.NewReader(input), stdin...)
			if code != 0 || got != want {
				t.Errorf("%q from standard input: exit %d, %q, whole model %q (%s)", stdin, code, got, want, e)
			}
		}
	}
}

// The input a text model is loaded in part for follows the model file's
// size, up to a cap.
func TestSubsetLimit(t *testing.T) {
	dir := t.TempDir()
	for size, want := range map[int64]int{9600: 100, 1 << 30: 1 << 20} {
		p := filepath.Join(dir, fmt.Sprint(size))
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(size); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if got := subsetLimit(p); got != want {
			t.Errorf("a model of %d bytes: limit %d, want %d", size, got, want)
		}
	}
	if got := subsetLimit(filepath.Join(dir, "none")); got != 0 {
		t.Errorf("no model file: limit %d, want 0", got)
	}
}

// From 4,000 training documents up, train calibrates a text model on
// documents held out of it, and says how many; -refit learns from every
// document and calibrates a second model, holding none out of the model.
func TestTrainCalibrationRows(t *testing.T) {
	dir := t.TempDir()
	tr := reviews(t, dir, "train.jsonl", 2100) // 4,200 documents
	for _, c := range []struct {
		args []string
		rows int
	}{
		{nil, 250},
		{[]string{"-refit"}, 0},
	} {
		args := append([]string{"train", "-json", "-o", filepath.Join(dir, "m.hptm")}, c.args...)
		code, out, e := runCmd(append(args, tr)...)
		if code != 0 {
			t.Fatalf("%v: %s", c.args, e)
		}
		var r struct {
			Calibration string `json:"calibration"`
			Rows        int    `json:"calibration_rows"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%v: %v\n%s", c.args, err, out)
		}
		if r.Rows < c.rows-10 || r.Rows > c.rows+10 || !strings.HasPrefix(r.Calibration, "platt(") {
			t.Errorf("%v: calibration %q on %d rows held out of the model, want about %d", c.args, r.Calibration, r.Rows, c.rows)
		}
	}
	if code, _, e := runCmd("train", "-refit", "-o", filepath.Join(dir, "n.hpm"), writeFile(t, dir, "d.svm", "1 1:1\n-1 2:1\n")); code != 2 || !strings.Contains(e, "refit") {
		t.Errorf("-refit on numbered features: exit %d: %s", code, e)
	}
}

// A fit on hashed text that numbers its columns by the featurizer's
// counts writes the model a fit that counts them itself writes, byte for
// byte: calibrated on rows held out (some of them alone in using a
// bucket) or refitted, and not calibrated; binary and multiclass.
func TestTrainHashedPlanSameModel(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 4500 {
		fmt.Fprintf(&b, `{"label":"c%d","text":"word%d word%d only%d %s"}`+"\n", i%3, i%17, i%41, i, strings.Repeat("common ", i%4))
	}
	multi := writeFile(t, dir, "multi.jsonl", b.String())
	binary := reviews(t, dir, "binary.jsonl", 300)
	for _, args := range [][]string{
		{"-vocab=false", "-bits", "22", binary},
		{"-vocab=false", "-bits", "22", "-no-calibrate", binary},
		{"-vocab=false", "-bits", "22", multi},
		{"-vocab=false", "-bits", "18", "-algo", "pa", multi},
	} {
		var models [2][]byte
		for k, plan := range []bool{true, false} {
			planColumns = plan
			out := filepath.Join(dir, fmt.Sprintf("m%d.hptm", k))
			code, _, e := runCmd(append([]string{"train", "-o", out}, args...)...)
			planColumns = true
			if code != 0 {
				t.Fatalf("train %v: %s", args, e)
			}
			var err error
			if models[k], err = os.ReadFile(out); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(models[0], models[1]) {
			t.Errorf("train %v: the model differs with the featurizer's numbering", args)
		}
	}
}

// splitRows gives the rows kept and those held as SelectRows does: in
// place (d.X then gone) where asked and the rows kept increase, in new
// arrays otherwise (d.X left as it was).
func TestSplitRows(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	X := &sparse.CSR{Rows: 60, Cols: 50, Indptr: []int64{0}}
	for range X.Rows {
		for j := range 50 {
			if r.IntN(5) == 0 {
				X.Ind, X.Val = append(X.Ind, int32(j)), append(X.Val, r.Float32())
			}
		}
		X.Indptr = append(X.Indptr, int64(len(X.Ind)))
	}
	y := make([]float64, X.Rows)
	for i := range y {
		y[i] = float64(i % 3)
	}
	var kept, held []int
	for i := range X.Rows {
		if i%7 == 3 {
			held = append(held, i)
		} else {
			kept = append(kept, i)
		}
	}
	same := func(a, b *sparse.CSR) bool {
		return a.Rows == b.Rows && a.Cols == b.Cols && slices.Equal(a.Indptr, b.Indptr) && slices.Equal(a.Ind, b.Ind) && slices.Equal(a.Val, b.Val)
	}
	reversed := slices.Clone(kept)
	slices.Reverse(reversed)
	for _, c := range []struct {
		kept    []int
		inPlace bool
	}{{kept, true}, {kept, false}, {reversed, true}} {
		orig := &sparse.CSR{Rows: X.Rows, Cols: X.Cols, Indptr: slices.Clone(X.Indptr), Ind: slices.Clone(X.Ind), Val: slices.Clone(X.Val)}
		d := &sparse.Dataset{X: orig, Y: y}
		rows, heldRows := splitRows(d, c.kept, held, c.inPlace)
		if !same(rows.X, X.SelectRows(c.kept)) || !slices.Equal(rows.Y, pick(y, c.kept)) {
			t.Errorf("kept %v, in place %v: the rows kept differ from SelectRows'", c.kept[:3], c.inPlace)
		}
		if !same(heldRows.X, X.SelectRows(held)) || !slices.Equal(heldRows.Y, pick(y, held)) {
			t.Errorf("kept %v, in place %v: the rows held differ from SelectRows'", c.kept[:3], c.inPlace)
		}
		moved := c.inPlace && increasing(c.kept)
		if moved != (d.X == nil) || (!moved && !same(d.X, X)) || (moved && &rows.X.Ind[0] != &orig.Ind[0]) {
			t.Errorf("kept %v, in place %v: d.X %v, rows in d's arrays %v", c.kept[:3], c.inPlace, d.X != nil, &rows.X.Ind[0] == &orig.Ind[0])
		}
	}
	if rows, heldRows := splitRows(&sparse.Dataset{X: X, Y: y}, nil, nil, true); rows.X != X || heldRows != nil {
		t.Error("nothing held: the rows are not all of d's")
	}
}

// -margins reads all of the training rows after a calibrated text fit,
// which therefore leaves them in place.
func TestTrainTextMarginsCalibrated(t *testing.T) {
	dir := t.TempDir()
	tr := reviews(t, dir, "train.jsonl", 2100)
	code, out, e := runCmd("train", "-json", "-margins", "-o", filepath.Join(dir, "m.hptm"), tr)
	if code != 0 {
		t.Fatalf("train -margins: %s", e)
	}
	var r struct {
		Rows    int            `json:"calibration_rows"`
		Margins map[string]any `json:"margins"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || r.Rows == 0 || r.Margins == nil {
		t.Fatalf("calibration rows %d, margins %v (%v)\n%s", r.Rows, r.Margins, err, out)
	}
}
