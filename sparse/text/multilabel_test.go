package text

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

func TestMultiLabelJSONL(t *testing.T) {
	in := `{"label":["earn","acq"],"text":"a"}
{"label":[],"text":"b"}
{"label":"grain","text":"c"}
{"label":[ "x" , 3, "x" ],"text":"d"}
{"label":["caf\u00e9"],"text":"e"}
`
	c, err := Read(strings.NewReader(in), ReadOptions{MultiLabel: true})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"earn", "acq"}, {}, {"grain"}, {"x", "3"}, {"café"}}
	if len(c.Docs) != len(want) {
		t.Fatalf("%d documents, want %d", len(c.Docs), len(want))
	}
	for i, ls := range c.Labels {
		if !reflect.DeepEqual(ls, want[i]) {
			t.Errorf("doc %d: labels %q, want %q", i, ls, want[i])
		}
		if ls == nil {
			t.Errorf("doc %d: nil labels with MultiLabel", i)
		}
	}
	if c.Docs[2].Label != "grain" || c.Docs[0].Label != "" {
		t.Errorf("Label of a string label %q, of an array %q", c.Docs[2].Label, c.Docs[0].Label)
	}
}

func TestMultiLabelTSV(t *testing.T) {
	in := "earn, acq,earn\ta\n\tb\n-\tc\ngrain\td\n" // a repeated label is dropped
	c, err := Read(strings.NewReader(in), ReadOptions{MultiLabel: true, Format: TSV})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"earn", "acq"}, {}, {}, {"grain"}}
	if !reflect.DeepEqual(c.Labels, want) {
		t.Errorf("labels %q, want %q", c.Labels, want)
	}
}

func TestMultiLabelErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		multi    bool
		want     error
		line     int
		msg      string
	}{
		{"array without MultiLabel", `{"label":"a","text":"x"}` + "\n" + `{"label":["a"],"text":"x"}`, false, ErrFieldType, 2, "multi-label"},
		{"object in array", `{"label":["a",{}],"text":"x"}`, true, ErrFieldType, 1, "string or a number"},
		{"empty string in array", `{"label":["a",""],"text":"x"}`, true, ErrLabel, 1, "empty label"},
		{"unclosed array", `{"label":["a","b"`, true, ErrSyntax, 1, "label array"},
		{"missing comma", `{"label":["a" "b"],"text":"x"}`, true, ErrSyntax, 1, "label array"},
		{"empty string label", `{"label":"","text":"x"}`, true, ErrLabel, 1, "empty label"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.in), ReadOptions{MultiLabel: tc.multi, Name: "f.jsonl"})
			var pe *sparse.ParseError
			if !errors.Is(err, tc.want) || !errors.As(err, &pe) {
				t.Fatalf("err %v, want a ParseError wrapping %v", err, tc.want)
			}
			if pe.Line != tc.line || pe.File != "f.jsonl" || !strings.Contains(pe.Msg, tc.msg) {
				t.Errorf("err %v: want line %d and %q in the message", err, tc.line, tc.msg)
			}
		})
	}
}

func TestMultiLabelDocumentsIgnoresArrays(t *testing.T) {
	// A prediction reads documents alone: an array label is skipped like
	// any other member, with or without MultiLabel.
	for _, multi := range []bool{false, true} {
		c, err := Read(strings.NewReader(`{"label":["a","b"],"text":"x"}`), ReadOptions{Documents: true, MultiLabel: multi})
		if err != nil || len(c.Docs) != 1 || c.Docs[0].Text != "x" || c.Labels != nil {
			t.Fatalf("MultiLabel %v: %v, %+v", multi, err, c)
		}
	}
}
