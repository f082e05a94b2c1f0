package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// doc is a labelled document of the differential test.
type doc struct{ label, text string }

// randomDocs returns n documents of three labels, each a few words drawn
// mostly from its label's words and partly from words of all (so that
// some are misclassified), with punctuation, capitals, non-ASCII words,
// inner tabs and the label names as words, which a reader that took a
// label column for text would count.
func randomDocs(r *rand.Rand, n int) []doc {
	words := map[string][]string{
		"good": {"fine", "great", "lovely", "superb", "Wonderful", "joy", "brilliant"},
		"bad":  {"awful", "boring", "dull", "poor", "dreadful", "mess", "tedious"},
		"meh":  {"average", "okay", "so-so", "middling", "plain", "ordinary", "fair"},
	}
	common := []string{"a", "the", "movie", "film", "plot", "good", "bad", "meh", "naïve", "café", "über", "x:1", "{", "}", "\"quoted\"", "back\\slash"}
	labels := []string{"good", "bad", "meh"}
	docs := make([]doc, n)
	for i := range docs {
		l := labels[r.IntN(len(labels))]
		var b strings.Builder
		for k := range 3 + r.IntN(8) {
			if k > 0 {
				b.WriteString([]string{" ", " ", " ", ", ", "\t", "  "}[r.IntN(6)])
			}
			if r.IntN(3) == 0 {
				b.WriteString(common[r.IntN(len(common))])
			} else if r.IntN(6) == 0 {
				o := labels[r.IntN(len(labels))]
				b.WriteString(words[o][r.IntN(len(words[o]))])
			} else {
				b.WriteString(words[l][r.IntN(len(words[l]))])
			}
		}
		docs[i] = doc{l, b.String()}
	}
	return docs
}

// textForm writes documents in one of the forms the commands read.
type textForm struct {
	name  string
	write func(docs []doc) []byte
	stdin bool     // read from standard input ("-")
	flags []string // eval's and predict's flags for it
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func lines(docs []doc, line func(i int, d doc) string, sep string) []byte {
	var b strings.Builder
	for i, d := range docs {
		b.WriteString(line(i, d))
		b.WriteString(sep)
	}
	return []byte(b.String())
}

func gzipped(b []byte) []byte {
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(b)
	zw.Close()
	return z.Bytes()
}

// differentialForms are the forms of the differential test. The model is
// trained on JSONL with the text in "body" and the label in "y"
// (-label-field, -text-field), which it must remember.
func differentialForms() []textForm {
	plain := func(i int, d doc) string {
		return `{"y":` + jsonString(d.label) + `,"body":` + jsonString(d.text) + `}`
	}
	odd := func(i int, d doc) string {
		// Other members, a "BODY" and a "Body" beside "body", numbers
		// and nesting, members in another order, spaces.
		return ` { "id" : ` + strconv.Itoa(i) + `, "BODY": "boring dull awful", "meta": {"y": [1, {"body": "x"}], "n": -1.5e3},` +
			` "body" : ` + jsonString(d.text) + `, "Body": "mess", "y": ` + jsonString(d.label) + ` } `
	}
	tsv := func(i int, d doc) string { return d.label + "\t" + d.text }
	bomCRLF := func(docs []doc) []byte {
		b := lines(docs, func(i int, d doc) string {
			if i == 2 {
				return "\r\n" + plain(i, d) // a blank line too
			}
			return plain(i, d)
		}, "\r\n")
		return append([]byte("\ufeff"), b...)
	}
	return []textForm{
		{name: "test.jsonl", write: func(docs []doc) []byte { return lines(docs, plain, "\n") }},
		{name: "odd.jsonl", write: func(docs []doc) []byte { return lines(docs, odd, "\n") }},
		{name: "bom.jsonl", write: bomCRLF},
		{name: "bom.jsonl.gz", write: func(docs []doc) []byte { return gzipped(bomCRLF(docs)) }},
		{name: "test.tsv", write: func(docs []doc) []byte { return lines(docs, tsv, "\n") }},
		{name: "crlf.data", write: func(docs []doc) []byte { return append([]byte("\ufeff"), lines(docs, tsv, "\r\n")...) }},
		{name: "test.tsv.gz", write: func(docs []doc) []byte { return gzipped(lines(docs, tsv, "\n")) }},
		{name: "stdin.jsonl", stdin: true, write: func(docs []doc) []byte { return lines(docs, odd, "\n") }},
		{name: "stdin.tsv", stdin: true, write: func(docs []doc) []byte { return lines(docs, tsv, "\r\n") }},
		{name: "stdin.gz", stdin: true, write: func(docs []doc) []byte { return gzipped(bomCRLF(docs)) }},
		{name: "other-fields.jsonl", flags: []string{"-label-field", "gold", "-text-field", "content"}, write: func(docs []doc) []byte {
			return lines(docs, func(i int, d doc) string {
				return `{"body":"dull dull dull","content":` + jsonString(d.text) + `,"y":"not a label","gold":` + jsonString(d.label) + `}`
			}, "\n")
		}},
	}
}

// TestDifferentialReading: for random documents in every form the
// commands read (JSONL with odd keys, a byte order mark, CRLF, blank
// lines, TSV with and without its name, gzip, standard input, other
// fields by the flags), train -test, eval and predict read the same
// documents: eval's accuracy, predict's agreement with the labels and
// train -test's accuracy are one number, and predict gives every
// document the label and probability it gives the document's text alone
// (a line of plain text).
func TestDifferentialReading(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(7, 11))
	trainDocs, testDocs := randomDocs(r, 240), randomDocs(r, 80)
	forms := differentialForms()
	tr := writeFile(t, dir, "train.jsonl", string(forms[0].write(trainDocs)))
	model := filepath.Join(dir, "m.hptm")
	if code, _, e := runCmd("train", "-label-field", "y", "-text-field", "body", "-o", model, tr); code != 0 {
		t.Fatalf("train: %s", e)
	}

	// The reference: each document's text alone, a line each.
	var ref strings.Builder
	for _, d := range testDocs {
		ref.WriteString(d.text + "\n")
	}
	refPath := writeFile(t, dir, "texts.txt", ref.String())
	code, refOut, e := runCmd("predict", "-model", model, "-proba", "-from", "lines", refPath)
	if code != 0 {
		t.Fatalf("predict the texts: %s", e)
	}
	refRows := strings.Split(strings.TrimSuffix(refOut, "\n"), "\n")
	if len(refRows) != len(testDocs) {
		t.Fatalf("predict gave %d rows for %d texts", len(refRows), len(testDocs))
	}
	var refAcc float64
	for i, row := range refRows {
		if label, _, _ := strings.Cut(row, "\t"); label == testDocs[i].label {
			refAcc++
		}
	}
	refAcc /= float64(len(testDocs))
	if refAcc < 0.6 || refAcc == 1 {
		t.Fatalf("reference accuracy %v: the documents should be learnable but not all easy", refAcc)
	}

	for _, f := range forms {
		t.Run(f.name, func(t *testing.T) {
			content := f.write(testDocs)
			path := writeFile(t, dir, f.name, string(content))
			arg := path
			run := func(args ...string) (int, string, string) {
				if f.stdin {
					return runWith(context.Background(), bytes.NewReader(content), args...)
				}
				return runCmd(args...)
			}
			if f.stdin {
				arg = "-"
			}

			// train -test: the model is trained on the same file, with
			// the same flags, so it is the same model.
			code, out, e := run("train", "-json", "-label-field", "y", "-text-field", "body", "-test", arg, tr)
			if f.flags != nil {
				// train reads its test text with its own fields; the
				// flags of this form are eval's and predict's.
				code, out, e = run("train", "-json", "-label-field", "y", "-text-field", "body", "-test", writeFile(t, dir, "as-train.jsonl", string(forms[0].write(testDocs))), tr)
			}
			if code != 0 {
				t.Fatalf("train -test: %s", e)
			}
			var tj struct {
				TestRows     int      `json:"test_rows"`
				TestAccuracy *float64 `json:"test_accuracy"`
			}
			if err := json.Unmarshal([]byte(out), &tj); err != nil || tj.TestAccuracy == nil {
				t.Fatalf("train -json: %v: %s", err, out)
			}

			code, out, e = run(append(append([]string{"eval", "-json", "-model", model}, f.flags...), arg)...)
			if code != 0 {
				t.Fatalf("eval: %s", e)
			}
			var ej struct {
				Rows    int `json:"rows"`
				Metrics struct {
					Accuracy float64 `json:"accuracy"`
				} `json:"metrics"`
			}
			if err := json.Unmarshal([]byte(out), &ej); err != nil {
				t.Fatalf("eval -json: %v: %s", err, out)
			}

			code, out, e = run(append(append([]string{"predict", "-model", model, "-proba"}, f.flags...), arg)...)
			if code != 0 {
				t.Fatalf("predict: %s", e)
			}
			rows := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if len(rows) != len(testDocs) || ej.Rows != len(testDocs) || tj.TestRows != len(testDocs) {
				t.Fatalf("rows: predict %d, eval %d, train -test %d; %d documents", len(rows), ej.Rows, tj.TestRows, len(testDocs))
			}
			var agree float64
			for i, row := range rows {
				if row != refRows[i] {
					t.Errorf("document %d (%q): predict gives %q, and %q for its text alone", i+1, testDocs[i].text, row, refRows[i])
				}
				if label, _, _ := strings.Cut(row, "\t"); label == testDocs[i].label {
					agree++
				}
			}
			agree /= float64(len(testDocs))
			if agree != refAcc || ej.Metrics.Accuracy != refAcc || *tj.TestAccuracy != refAcc {
				t.Errorf("accuracy: predict %v, eval %v, train -test %v; of the texts alone %v", agree, ej.Metrics.Accuracy, *tj.TestAccuracy, refAcc)
			}
		})
	}
}

// TestOneReadingOfKeys: keys are matched exactly, by every command: a
// "TEXT" beside "text" is another member, and a line with only "Text"
// has no text field, for eval and predict alike.
func TestOneReadingOfKeys(t *testing.T) {
	dir := t.TempDir()
	tr := reviews(t, dir, "train.jsonl", 60)
	model := filepath.Join(dir, "m.hptm")
	if code, _, e := runCmd("train", "-o", model, tr); code != 0 {
		t.Fatal(e)
	}
	both := writeFile(t, dir, "both.jsonl", `{"label":"pos","text":"good great fine","TEXT":"bad awful poor dreadful dull"}`+"\n")
	alone := writeFile(t, dir, "alone.txt", "good great fine\n")
	_, a, _ := runCmd("predict", "-model", model, "-proba", both)
	_, b, _ := runCmd("predict", "-model", model, "-proba", alone)
	if a != b || a == "" {
		t.Errorf("predict reads %q for the text and %q for the text alone", a, b)
	}
	only := writeFile(t, dir, "only.jsonl", `{"label":"pos","Text":"good"}`+"\n")
	for _, cmd := range []string{"eval", "predict"} {
		code, _, e := runCmd(cmd, "-model", model, only)
		if code != 1 || !strings.Contains(e, `only.jsonl:1:1: no text field "text"`) {
			t.Errorf("%s: exit %d, %q; want the missing field named", cmd, code, e)
		}
	}
}

// TestModelRemembersFields: a model trained with -label-field and
// -text-field evaluates and predicts its own test file without flags,
// and the flags still choose other fields.
func TestModelRemembersFields(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 60 {
		fmt.Fprintf(&b, `{"fine":"pos:%d","coarse":"pos","body":"good great fine film %d"}`+"\n", i%3, i%7)
		fmt.Fprintf(&b, `{"fine":"neg:%d","coarse":"neg","body":"bad awful poor film %d"}`+"\n", i%3, i%5)
	}
	tr := writeFile(t, dir, "train.jsonl", b.String())
	model := filepath.Join(dir, "m.hptm")
	if code, _, e := runCmd("train", "-label-field", "coarse", "-text-field", "body", "-o", model, tr); code != 0 {
		t.Fatal(e)
	}
	code, out, e := runCmd("eval", "-json", "-model", model, tr)
	if code != 0 || !strings.Contains(out, `"accuracy": 1`) {
		t.Errorf("eval of the training file: exit %d, %s %s", code, out, e)
	}
	code, out, e = runCmd("predict", "-model", model, tr)
	if code != 0 || strings.Count(out, "pos\n") != 60 || strings.Count(out, "neg\n") != 60 {
		t.Errorf("predict of the training file: exit %d, %q", code, e)
	}
	// Another text field by the flag, which eval and predict share.
	other := writeFile(t, dir, "other.jsonl", `{"coarse":"neg","body":"good great fine","review":"bad awful poor"}`+"\n")
	for _, cmd := range []string{"eval", "predict"} {
		code, out, e = runCmd(cmd, "-model", model, "-text-field", "review", other)
		if code != 0 || cmd == "predict" && out != "neg\n" || cmd == "eval" && !strings.Contains(out, "accuracy") {
			t.Errorf("%s -text-field review: exit %d, %q %s", cmd, code, out, e)
		}
	}
	code, _, e = runCmd("eval", "-model", model, "-label-field", "fine", tr)
	if code != 1 || !strings.Contains(e, `unknown label "pos:0"`) {
		t.Errorf("eval -label-field fine: exit %d, %s; want its labels read (and refused: the model has none such)", code, e)
	}
	// A featurizer that convert saves keeps them too.
	feat := filepath.Join(dir, "f.json")
	if code, _, e := runCmd("convert", "-label-field", "coarse", "-text-field", "body", "-save-featurizer", feat, tr, filepath.Join(dir, "a.svm")); code != 0 {
		t.Fatal(e)
	}
	if code, _, e := runCmd("convert", "-featurizer", feat, tr, filepath.Join(dir, "b.svm")); code != 0 {
		t.Errorf("convert -featurizer: %s", e)
	}
}

// TestWrongKindOfInput: a text model refuses LIBSVM (gzip and standard
// input too) and a cache, and a model of numbered features refuses raw
// text, each with an error that says what the file looks like and what
// the model reads.
func TestWrongKindOfInput(t *testing.T) {
	dir := t.TempDir()
	tr := reviews(t, dir, "train.jsonl", 60)
	tm := filepath.Join(dir, "m.hptm")
	if code, _, e := runCmd("train", "-o", tm, tr); code != 0 {
		t.Fatal(e)
	}
	svmText := "-1 3:1 11:1 14:1\n+1 5:1 7:0.5\n"
	svm := writeFile(t, dir, "d.t", svmText)
	svmGz := writeFile(t, dir, "d.svm.gz", string(gzipped([]byte(svmText))))
	cache := filepath.Join(dir, "d.hpc")
	if code, _, e := runCmd("convert", svm, cache); code != 0 {
		t.Fatal(e)
	}
	lm := filepath.Join(dir, "m.hpm")
	if code, _, e := runCmd("train", "-o", lm, svm); code != 0 {
		t.Fatal(e)
	}
	for _, c := range []struct {
		args  []string
		stdin string
		msg   []string
	}{
		{[]string{"eval", "-model", tm, svm}, "", []string{"d.t:1:1", "looks like LIBSVM", "is a text model"}},
		{[]string{"predict", "-model", tm, svm}, "", []string{"d.t:1:1", "looks like LIBSVM", "is a text model"}},
		{[]string{"eval", "-model", tm, svmGz}, "", []string{"d.svm.gz:1:1", "looks like LIBSVM"}},
		{[]string{"predict", "-model", tm, "-"}, svmText, []string{"standard input:1:1", "looks like LIBSVM"}},
		{[]string{"eval", "-model", tm, cache}, "", []string{"d.hpc", "cache file", "is a text model"}},
		{[]string{"train", "-test", svm, tr}, "", []string{"d.t:1:1", "looks like LIBSVM"}},
		{[]string{"eval", "-model", lm, tr}, "", []string{"train.jsonl", "looks like JSONL", "model of numbered features"}},
		{[]string{"predict", "-model", lm, "-"}, "pos\ta fine film\n", []string{"standard input", "looks like text", "model of numbered features"}},
		{[]string{"train", "-test", tr, svm}, "", []string{"train.jsonl", "looks like JSONL", "model of numbered features"}},
	} {
		code, _, e := runWith(context.Background(), strings.NewReader(c.stdin), c.args...)
		ok := code == 1
		for _, m := range c.msg {
			ok = ok && strings.Contains(e, m)
		}
		if !ok {
			t.Errorf("%v: exit %d, %q; want 1 and %q", c.args, code, e, c.msg)
		}
	}
	// LIBSVM still reads as LIBSVM with a model of numbered features.
	if code, _, e := runCmd("eval", "-model", lm, svmGz); code != 0 {
		t.Errorf("eval LIBSVM: %s", e)
	}
}

// cancelReader gives its data, then cancels the context and has nothing
// more, as a read interrupted by a signal does in the middle of a line.
type cancelReader struct {
	data   []byte
	cancel func()
}

func (c *cancelReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		c.cancel()
		return 0, context.Canceled
	}
	n := copy(p, c.data)
	c.data = c.data[n:]
	return n, nil
}

// TestReadInterrupted: a read cut short by a signal ends predict and eval
// with an interruption, not with a parse error of the part of a line read
// before it.
func TestReadInterrupted(t *testing.T) {
	dir := t.TempDir()
	tr := reviews(t, dir, "train.jsonl", 60)
	model := filepath.Join(dir, "m.hptm")
	if code, _, e := runCmd("train", "-o", model, tr); code != 0 {
		t.Fatal(e)
	}
	// Cut short in the first bytes, which tell the input's kind, or
	// past them, while the documents are read.
	for _, lines := range []int{1, 3000} {
		for _, cmd := range []string{"predict", "eval"} {
			ctx, cancel := context.WithCancel(context.Background())
			data := strings.Repeat(`{"label":"pos","text":"good"}`+"\n", lines) + `{"label":"pos","text":"a fi`
			in := &cancelReader{data: []byte(data), cancel: cancel}
			code, out, e := runWith(ctx, io.Reader(in), cmd, "-model", model, "-")
			cancelled := ctx.Err() != nil
			cancel()
			if code != 1 || !strings.Contains(e, "interrupted") || strings.Contains(e, "JSON") || strings.Contains(e, "string") || out != "" {
				t.Errorf("%s, %d lines: exit %d, %q, output %q; want 1 and an interruption", cmd, lines, code, e, out)
			}
			if !cancelled {
				t.Fatalf("%s, %d lines: the reader was not read to its end", cmd, lines)
			}
		}
	}
}
