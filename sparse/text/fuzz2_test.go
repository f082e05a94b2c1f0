package text

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

// FuzzReadTSV: label<TAB>text input read whole and by the Scanner gives
// the same documents or the same error; an error is a *sparse.ParseError
// with a line (or, for gzip input, may be the decompressor's); a document's label and text never hold a line break.
//
//	go test -run '^$' -fuzz '^FuzzReadTSV$' -fuzztime 60s ./sparse/text/
func FuzzReadTSV(f *testing.F) {
	for _, s := range []string{"pos\tgreat film\nneg\tdull\n", "\ufeffa\tb\r\nc\td\te\n", "no tab here\n", "\tempty label\n", "x\t\n\n\ny\tz", "1\t\xff\xfe bytes\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, opt := range []ReadOptions{{Format: TSV, Name: "fuzz.tsv"}, {Format: TSV, MaxLineBytes: 16}} {
			c, err := Read(bytes.NewReader(data), opt)
			sc := NewScanner(bytes.NewReader(data), opt)
			var docs []Doc
			for sc.Scan() {
				docs = append(docs, sc.Doc())
			}
			serr := sc.Err()
			if (err == nil) != (serr == nil) || (err != nil && err.Error() != serr.Error()) {
				t.Fatalf("Read error %v, Scanner error %v", err, serr)
			}
			if err != nil {
				var pe *sparse.ParseError
				gz := bytes.HasPrefix(data, []byte{0x1f, 0x8b}) // a gzip stream's own errors are not parse errors
				if !gz && (!errors.As(err, &pe) || pe.Line < 1) {
					t.Fatalf("error %v is not a ParseError with a line", err)
				}
				continue
			}
			if !slices.EqualFunc(c.Docs, docs, func(a, b Doc) bool { return a == b }) {
				t.Fatalf("Read and Scanner disagree: %v vs %v", c.Docs, docs)
			}
			for _, d := range docs {
				if strings.ContainsAny(d.Label, "\n\t") || strings.Contains(d.Text, "\n") {
					t.Fatalf("document %+v holds a separator", d)
				}
			}
		}
	})
}

// FuzzLoadFeaturizer: any file Load accepts is a featurizer that
// transforms text into valid rows of its width and saves back to a file
// that loads the same; anything else is an error, never a panic.
//
//	go test -run '^$' -fuzz '^FuzzLoadFeaturizer$' -fuzztime 60s ./sparse/text/
func FuzzLoadFeaturizer(f *testing.F) {
	dir := f.TempDir()
	c := &Corpus{Docs: []Doc{{Label: "a", Text: "red apple pie"}, {Label: "b", Text: "blue sky pie"}}}
	for _, cfg := range []Config{{}, {NGrams: 2, Bits: 8, TF: Log, IDF: true}, {Vocabulary: true, MinDF: 1}} {
		ft, err := Fit(c, cfg)
		if err != nil {
			f.Fatal(err)
		}
		p := filepath.Join(dir, "f.json")
		if err := ft.Save(p); err != nil {
			f.Fatal(err)
		}
		b, _ := os.ReadFile(p)
		f.Add(b)
	}
	f.Add([]byte("{}"))
	f.Add([]byte("not json"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "f.json")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		ft, err := Load(p)
		if err != nil {
			return
		}
		v := ft.Transform("Red apple, blue SKY pie! ünï 42")
		if err := v.Validate(); err != nil || v.Dim != ft.Dim() {
			t.Fatalf("loaded featurizer makes an invalid row %+v (dim %d): %v", v, ft.Dim(), err)
		}
		q := filepath.Join(t.TempDir(), "g.json")
		if err := ft.Save(q); err != nil {
			t.Fatalf("a loaded featurizer does not save: %v", err)
		}
		ft2, err := Load(q)
		if err != nil {
			t.Fatalf("saved featurizer does not load: %v", err)
		}
		v2 := ft2.Transform("Red apple, blue SKY pie! ünï 42")
		if !slices.Equal(v.Ind, v2.Ind) || !slices.Equal(v.Val, v2.Val) {
			t.Fatalf("save and load changed the features: %v vs %v", v, v2)
		}
	})
}
