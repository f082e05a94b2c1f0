package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/kernels"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/synth"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

// Every command is in the table once, named by the first word of its
// usage line, with the help 'hyperplane help' lists and prints.
func TestCommandTable(t *testing.T) {
	seen := map[string]bool{}
	for _, mk := range commands {
		c := mk()
		name := c.Name()
		if name == "" || seen[name] || c.Short == "" || c.Long == "" || c.Run == nil {
			t.Errorf("command %q: duplicate, or without its help or Run: %+v", name, c)
		}
		seen[name] = true
		if lookup(name) == nil {
			t.Errorf("lookup(%q) = nil", name)
		}
		code, out, _ := runCmd("help", name)
		if code != 0 || !strings.HasPrefix(out, "usage: hyperplane "+name+" [flags]") || !strings.Contains(out, "-simd") {
			t.Errorf("help %s: exit %d, %.200q", name, code, out)
		}
	}
	code, out, _ := runCmd("help")
	for name := range seen {
		if code != 0 || !strings.Contains(out, "\n  "+name+" ") {
			t.Errorf("help does not list %s: %q", name, out)
		}
	}
}

// Each run starts from the flags' defaults: a flag set by one run (tests
// and callers of run make many in one process) does not carry over.
func TestFlagsDoNotCarryOver(t *testing.T) {
	train, _ := threeClassFiles(t)
	if code, out, e := runCmd("stats", "-json", train); code != 0 || !json.Valid([]byte(out)) {
		t.Fatalf("stats -json: %d %q %s", code, out, e)
	}
	if code, out, e := runCmd("stats", train); code != 0 || json.Valid([]byte(out)) || !strings.Contains(out, " rows, ") {
		t.Fatalf("stats after stats -json: %d %q %s", code, out, e)
	}
}

// Flags may follow the arguments in every command, as users of Vowpal
// Wabbit and fastText type them, and "-" is standard input or output.
func TestFlagsAfterArgumentsEveryCommand(t *testing.T) {
	dir := t.TempDir()
	train, test := threeClassFiles(t)
	text := reviews(t, dir, "train.jsonl", 60)
	model := filepath.Join(dir, "m.hpm")
	tmodel := filepath.Join(dir, "t.hptm")
	svm, _ := os.ReadFile(test)
	for _, c := range []struct {
		args  []string
		stdin string
		want  string
	}{
		{[]string{"train", train, "-epochs", "2", "-o", model}, "", "model:    saved to"},
		{[]string{"train", text, "-epochs", "2", "-o", tmodel}, "", "labels neg, pos"},
		{[]string{"eval", test, "-model", model, "-json"}, "", `"accuracy"`},
		{[]string{"eval", "-", "-model", model}, string(svm), "accuracy"},
		{[]string{"predict", "-", "-model", tmodel, "-proba"}, "a good great film\n", "pos\t"},
		{[]string{"predict", test, "-model", model, "-scores"}, "", "\t"},
		{[]string{"convert", text, filepath.Join(dir, "c.svm"), "-ngrams", "2", "-json"}, "", `"from": "text"`},
		{[]string{"convert", "-", "-", "-json"}, string(svm), string(svm[:10])},
		{[]string{"stats", test, "-json"}, "", `"rows": `},
		{[]string{"inspect", tmodel, "-n", "2", "-json"}, "", `"toward"`},
		{[]string{"gen", filepath.Join(dir, "g.svm"), "-rows", "50", "-json"}, "", `"rows": 50`},
		{[]string{"version", "-json"}, "", `"module"`},
		{[]string{"cpu", "-json"}, "", `"active"`},
	} {
		code, out, e := runWith(context.Background(), strings.NewReader(c.stdin), c.args...)
		if code != 0 || !strings.Contains(out, c.want) {
			t.Errorf("%q: exit %d, stdout %.300q, stderr %.300q; want %q", c.args, code, out, e, c.want)
		}
	}
}

// A misuse of any command prints the error, its usage line and where to
// read more: three lines, exit 2, not the whole help.
func TestUsageErrorOneLineEveryCommand(t *testing.T) {
	train, _ := threeClassFiles(t)
	for _, args := range [][]string{
		{"demo", "extra"}, {"cpu", "extra"}, {"version", "extra"}, {"stats"}, {"train"}, {"train", train, "-nosuch"},
		{"eval", train}, {"convert", train}, {"predict", train}, {"inspect"}, {"gen"}, {"experiment"}, {"bench", "x"},
		{"train", train, "-epochs"}, {"train", train, "-threads", "-1"}, {"-simd", "sse9", "stats", train},
	} {
		code, _, stderr := runCmd(args...)
		name := args[0]
		if name == "-simd" {
			name = "stats"
		}
		lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
		if code != 2 || len(lines) != 3 || !strings.HasPrefix(lines[0], "hyperplane "+name+": ") ||
			!strings.HasPrefix(lines[1], "usage: hyperplane "+name+" [flags]") || lines[2] != "Run 'hyperplane help "+name+"' for its flags." {
			t.Errorf("%q: exit %d, stderr:\n%s", args, code, stderr)
		}
	}
}

// Every -json goes through one printer: indented, one object.
func TestJSONOnePrinter(t *testing.T) {
	dir := t.TempDir()
	train, test := threeClassFiles(t)
	model := filepath.Join(dir, "m.hpm")
	if code, _, e := runCmd("train", "-o", model, train); code != 0 {
		t.Fatal(e)
	}
	for _, args := range [][]string{
		{"demo", "-epochs", "1"}, {"cpu"}, {"version"}, {"stats", train}, {"train", "-epochs", "2", train},
		{"eval", "-model", model, test}, {"convert", train, filepath.Join(dir, "c.hpc")}, {"gen", "-rows", "20", filepath.Join(dir, "g.svm")},
	} {
		code, out, e := runCmd(append(args, "-json")...)
		var v map[string]any
		if code != 0 || json.Unmarshal([]byte(out), &v) != nil || !strings.HasPrefix(out, "{\n  \"") {
			t.Errorf("%q -json: exit %d, %.200q %s", args, code, out, e)
		}
	}
}

// eval and train -report write a text model's label names, not the
// numbers the classes are stored as.
func TestReportLabelNames(t *testing.T) {
	dir := t.TempDir()
	tr := reviews(t, dir, "train.jsonl", 60)
	te := reviews(t, dir, "test.jsonl", 10)
	model := filepath.Join(dir, "m.hptm")
	code, out, e := runCmd("train", tr, "-test", te, "-report", "-o", model)
	if code != 0 || !strings.Contains(out, "\n         neg  ") || !strings.Contains(out, "\nneg  ") || strings.Contains(out, "\n          -1") {
		t.Errorf("train -report: exit %d, %s %s", code, out, e)
	}
	code, out, e = runCmd("eval", te, "-model", model)
	if code != 0 || !strings.Contains(out, "pos") || !strings.Contains(out, "\nneg ") || strings.Contains(out, "\n-1 ") {
		t.Errorf("eval: exit %d, %s %s", code, out, e)
	}
	code, out, e = runCmd("eval", te, "-model", model, "-json")
	var r struct {
		Names []string `json:"label_names"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil || !reflect.DeepEqual(r.Names, []string{"neg", "pos"}) {
		t.Errorf("eval -json: exit %d, names %q, %s", code, r.Names, e)
	}
}

// The library's checks of train's options run before any data are read
// (and before -o is created): a bad option is a usage error in the
// library's words even when the data file does not exist.
func TestTrainOptionsCheckedByTheLibraryFirst(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.svm")
	out := filepath.Join(dir, "m.hpm")
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-algo", "pa", "-C", "1"}, "C is the parameter of rules PA1 and PA2"},
		{[]string{"-algo", "voted", "-threads", "2"}, "cannot mix parameters"},
		{[]string{"-kernel", "rbf", "-algo", "batch"}, "no kernel form"},
		{[]string{"-kernel", "rbf", "-algo", "averaged", "-budget", "10"}, "needs Algorithm Plain"},
		{[]string{"-kernel", "rbf", "-algo", "plain", "-budget", "-1"}, "MaxSupportVectors -1"},
		{[]string{"-lr", "2"}, "add -algo averaged"},
	} {
		code, _, e := runCmd(append(append([]string{"train", "-o", out}, c.args...), missing)...)
		if code != 2 || !strings.Contains(e, c.msg) || !strings.Contains(e, engine.ErrConfig.Error()) {
			t.Errorf("%q: exit %d, %q; want exit 2 and %q", c.args, code, e, c.msg)
		}
	}
	// The featurizer's settings too, checked by the text package.
	for _, args := range [][]string{
		{"train", "-o", out, "-vocab", "-bits", "10", filepath.Join(dir, "missing.jsonl")},
		{"convert", "-from", "text", "-vocab=false", "-min-df", "2", missing, filepath.Join(dir, "out.svm")},
	} {
		code, _, e := runCmd(args...)
		if code != 2 || !strings.Contains(e, text.ErrConfig.Error()) {
			t.Errorf("%q: exit %d, %q; want exit 2 and the text package's refusal", args, code, e)
		}
	}
	if names, _ := filepath.Glob(filepath.Join(dir, "*")); len(names) > 0 {
		t.Errorf("left behind: %v", names)
	}
}

// Errors about a data file name it once, through fileError, and the
// library's sentinel is still found.
func TestErrorsNameTheFile(t *testing.T) {
	err := inFile("d.svm", engine.ErrNoData)
	var fe *fileError
	if !errors.Is(err, engine.ErrNoData) || !errors.As(err, &fe) || err.Error() != "d.svm: "+engine.ErrNoData.Error() {
		t.Errorf("inFile: %v", err)
	}
	if again := inFile("d.svm", err); again != err {
		t.Errorf("named twice: %v", again)
	}
	pe := &sparse.ParseError{File: "x.svm", Line: 2, Err: sparse.ErrSyntax}
	if got := inFile("x.svm", pe); got != error(pe) {
		t.Errorf("a parse error naming its file was wrapped again: %v", got)
	}
	if got := inFile("x.svm", engine.ErrConfig); got != engine.ErrConfig {
		t.Errorf("a config error is about the options, not the file: %v", got)
	}
	dir := t.TempDir()
	one := writeFile(t, dir, "one.svm", "1 1:1\n1 2:1\n")
	code, _, e := runCmd("train", one)
	if code != 1 || !strings.Contains(e, "hyperplane train: "+one+": ") || strings.Count(e, one) != 1 {
		t.Errorf("one class: exit %d, %q", code, e)
	}
}

// The data summary comes before the epochs' lines, and -v and -json show
// what early stopping did: the epoch kept and its held-out accuracy.
func TestTrainSummaryFirstAndEarlyStopping(t *testing.T) {
	train, _ := threeClassFiles(t)
	var both bytes.Buffer
	env := &Env{Stdin: strings.NewReader(""), Stdout: &both, Stderr: &both}
	if code := runEnv(context.Background(), env, []string{"train", train, "-v", "-algo", "averaged", "-epochs", "4", "-validation", "0.2"}); code != 0 {
		t.Fatal(both.String())
	}
	out := both.String()
	data, epoch, valid := strings.Index(out, "data:"), strings.Index(out, "epoch 1:"), strings.Index(out, "validation: 20% held out; kept epoch ")
	if data < 0 || epoch < data || valid < epoch || !strings.Contains(out, "held-out accuracy") {
		t.Errorf("want the data line, then the epochs with their held-out accuracy, then the validation line:\n%s", out)
	}
	code, js, e := runCmd("train", train, "-json", "-algo", "averaged", "-epochs", "4", "-validation", "0.2")
	var r trainResult
	if code != 0 || json.Unmarshal([]byte(js), &r) != nil || r.Validation == nil || r.Validation.BestEpoch < 1 || !(r.Validation.Accuracy > 0) {
		t.Errorf("train -json -validation: exit %d, %s %s", code, js, e)
	}
}

// kernelConfig carries train's whole Config into the kernel learner's
// (KernelConfig embeds it) and the kernel flags beside it.
func TestKernelConfigFromLinear(t *testing.T) {
	cfg := engine.Config{Algorithm: engine.Plain, Rule: engine.PA1, C: 0.5, Epochs: 7, Bias: engine.BiasAugmented, BiasScale: 2,
		Margin: 0.25, NoShuffle: true, Seed: 9, ClassWeight: map[float64]float64{1: 2}, Balanced: true, MaxClasses: 5, MemoryBudget: 1 << 30}
	k := kernelOpts{kernel: kernels.RBF{Gamma: 2}, budget: 7, gram: kernels.Options{Budget: 1 << 20}}
	kc := kernelConfig(cfg, k)
	if !reflect.DeepEqual(kc.Config, cfg) || kc.Kernel != k.kernel || kc.MaxSupportVectors != 7 || kc.Gram != k.gram {
		t.Errorf("kernelConfig(%+v, %+v) = %+v", cfg, k, kc)
	}
}

// gen's refusals of its options are the generator's own, as usage errors.
func TestGenOptionsCheckedByTheGenerator(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"gen", "-rows", "-1", filepath.Join(dir, "t.svm")},
		{"gen", "-kind", "separable", "-dim", "-3", filepath.Join(dir, "s.svm")},
	} {
		code, _, e := runCmd(args...)
		if code != 2 || !strings.Contains(e, synth.ErrConfig.Error()) {
			t.Errorf("%q: exit %d, %q", args, code, e)
		}
	}
}

// The one context reaches the experiments and the benchmark: cancelled
// (as a signal does), they stop at their first fit.
func TestExperimentCancelled(t *testing.T) {
	c, cancel := context.WithCancel(context.Background())
	cancel()
	for _, args := range [][]string{
		{"experiment", "-quick", "-seeds", "1", "-o", t.TempDir(), "convergence"},
		{"experiment", "-quick", "-seeds", "1", "-o", t.TempDir(), "margins"},
		{"experiment", "-epochs", "2", "-o", t.TempDir(), "variants"},
	} {
		code, _, e := runWith(c, nil, args...)
		if code != 1 || !strings.Contains(e, context.Canceled.Error()) {
			t.Errorf("%q cancelled: exit %d, %.300q", args, code, e)
		}
	}
}

// eval -featurizer names the labels of a model trained on convert's
// output, and reads labelled raw text with it.
func TestEvalFeaturizerNames(t *testing.T) {
	dir := t.TempDir()
	tr := reviews(t, dir, "train.jsonl", 60)
	te := reviews(t, dir, "test.jsonl", 10)
	feat, svm, model := filepath.Join(dir, "f.feat"), filepath.Join(dir, "train.svm"), filepath.Join(dir, "m.hpm")
	if code, _, e := runCmd("convert", tr, svm, "-save-featurizer", feat); code != 0 {
		t.Fatal(e)
	}
	if code, _, e := runCmd("train", svm, "-o", model); code != 0 {
		t.Fatal(e)
	}
	for _, file := range []string{svm, te} {
		code, out, e := runCmd("eval", file, "-model", model, "-featurizer", feat)
		if code != 0 || !strings.Contains(out, "\nneg ") || !strings.Contains(out, "  pos\n") {
			t.Errorf("eval %s -featurizer: exit %d, %s %s", file, code, out, e)
		}
	}
	if code, out, _ := runCmd("eval", svm, "-model", model); code != 0 || strings.Contains(out, "neg") {
		t.Errorf("eval without -featurizer: exit %d, %s", code, out)
	}
	tm := filepath.Join(dir, "t.hptm")
	if code, _, e := runCmd("train", tr, "-o", tm); code != 0 {
		t.Fatal(e)
	}
	if code, _, e := runCmd("eval", te, "-model", tm, "-featurizer", feat); code != 2 || !strings.Contains(e, "drop -featurizer") {
		t.Errorf("a text model with -featurizer: exit %d, %q", code, e)
	}
}

// --version, the habit of most command lines, is the version command.
func TestDashVersion(t *testing.T) {
	for _, a := range []string{"--version", "-version"} {
		code, out, e := runCmd(a)
		if code != 0 || !strings.HasPrefix(out, "hyperplane ") || !strings.Contains(out, "\ngo:") {
			t.Errorf("%s: exit %d, %q %q", a, code, out, e)
		}
	}
}

// On a terminal, train rewrites one progress line: counts and rates with
// thousands separators (2,250 rows/s, not 2.25e+03), ended after the last
// epoch, or by end when training stops before it.
func TestProgressLine(t *testing.T) {
	var b bytes.Buffer
	show, end := progress(&b, false, true, 3)
	show(engine.EpochStats{Epoch: 1, Mistakes: 6657, Updates: 9000, Rows: 2_000_000_000, Loss: 0.15}, "")
	line := b.String()
	rate := regexp.MustCompile(`^\repoch 1/3: 6,657 mistakes, [1-9][0-9]{0,2}(,[0-9]{3})+ rows/s, loss 0\.15   $`)
	if !rate.MatchString(line) {
		t.Errorf("progress line %q", line)
	}
	show(engine.EpochStats{Epoch: 2, Mistakes: 10, Updates: 10, Rows: 5}, ", 7 support vectors")
	if !strings.HasSuffix(b.String(), ", 7 support vectors   ") {
		t.Errorf("extra not shown: %q", b.String())
	}
	end()
	if !strings.HasSuffix(b.String(), "\n") {
		t.Errorf("end left the line open: %q", b.String())
	}
	b.Reset()
	show, end = progress(&b, false, true, 2)
	show(engine.EpochStats{Epoch: 2, Rows: 5, Updates: 1}, "")
	end()
	if strings.Count(b.String(), "\n") != 1 {
		t.Errorf("the last epoch ends the line once: %q", b.String())
	}
	if show, _ := progress(&b, false, false, 3); show != nil {
		t.Error("a file or pipe gets a progress line")
	}
	b.Reset()
	show, _ = progress(&b, true, false, 3)
	show(engine.EpochStats{Epoch: 1, Mistakes: 12345, Updates: 23456, Loss: 0.5, ValidAccuracy: 0.75}, "")
	if got := b.String(); got != "epoch 1: 12,345 mistakes, 23,456 updates, loss 0.5, held-out accuracy 0.7500\n" {
		t.Errorf("-v line %q", got)
	}
}

// A command's flag written before the command says where it goes.
func TestFlagBeforeCommand(t *testing.T) {
	code, _, e := runCmd("-epochs", "3", "train", "x.svm")
	if code != 2 || !strings.Contains(e, "flag -epochs before the command") {
		t.Errorf("exit %d, %q", code, e)
	}
}

// stats - reads standard input: LIBSVM, gzip too, or a cache; gen -
// writes the data alone on standard output, its report on standard error.
func TestStatsAndGenStandardStreams(t *testing.T) {
	dir := t.TempDir()
	train, _ := threeClassFiles(t)
	raw, _ := os.ReadFile(train)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(raw)
	zw.Close()
	cache := filepath.Join(dir, "c.hpc")
	if code, _, e := runCmd("convert", train, cache); code != 0 {
		t.Fatal(e)
	}
	hpc, _ := os.ReadFile(cache)
	_, want, _ := runCmd("stats", "-json", train)
	var w fileStats
	json.Unmarshal([]byte(want), &w)
	for name, in := range map[string][]byte{"libsvm": raw, "gzip": gz.Bytes(), "cache": hpc} {
		code, out, e := runWith(context.Background(), bytes.NewReader(in), "stats", "-", "-json")
		var s fileStats
		if code != 0 || json.Unmarshal([]byte(out), &s) != nil || s.Rows != w.Rows || s.NNZ != w.NNZ || !reflect.DeepEqual(s.Labels, w.Labels) {
			t.Errorf("stats - of %s: exit %d, %+v, want %+v; %s", name, code, s, w, e)
		}
	}
	code, out, e := runCmd("gen", "-rows", "7", "-")
	if code != 0 || strings.Count(out, "\n") != 7 || !strings.Contains(e, "7 rows") {
		t.Errorf("gen -: exit %d, stdout %q, stderr %q", code, out, e)
	}
}

// A bad line in the raw training text is an error naming the file and
// line (its error used to be lost to a shadowed variable, and train
// went on with no featurizer and panicked).
func TestTrainBadTextLine(t *testing.T) {
	bad := writeFile(t, t.TempDir(), "bad.jsonl", "{\"label\":\"a\",\"text\":\"x\"}\nnot json\n")
	code, _, e := runCmd("train", bad)
	if code != 1 || !strings.Contains(e, bad+":2") {
		t.Errorf("exit %d, %q", code, e)
	}
}

// train -stream with an option that needs the data in memory gets a
// refusal naming the flags, not the library's advice to use Fit; other
// refusals are the library's, without that hint.
func TestStreamHint(t *testing.T) {
	train, _ := threeClassFiles(t)
	cache := filepath.Join(t.TempDir(), "c.hpc")
	if code, _, e := runCmd("convert", train, cache); code != 0 {
		t.Fatal(e)
	}
	code, _, e := runCmd("train", "-stream", cache, "-validation", "0.2")
	if code != 2 || !strings.Contains(e, "-stream trains") || !strings.Contains(e, "(drop -stream)") || strings.Contains(e, "use Fit") {
		t.Errorf("-stream -validation: exit %d, %q", code, e)
	}
	code, _, e = runCmd("train", "-stream", cache, "-class-weight", "99:1")
	if code != 2 || !strings.Contains(e, "ClassWeight") || strings.Contains(e, "hint") {
		t.Errorf("-stream -class-weight: exit %d, %q", code, e)
	}
}
